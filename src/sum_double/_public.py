"""The public call, ``sum_double.<NAME>(a, b)``: argument errors before the dispatcher sees them,
then a route to the op (the public route here; an optional part may set a faster one)."""

from collections.abc import Callable
from numbers import Number

import torch
from torch import Tensor

from ._autograd import Function, differentiable
from ._definition import FORMULA, NAME, TWIN_NAME
from ._errors import argument_error, is_out_of_memory
from ._ops import BELOW_AUTOGRAD, OP, OP_PACKET, QUALNAME

_is_compiling = torch.compiler.is_compiling  # bound once: the call asks on every call
# No public API says whether a torch.func transform is active; torch 2.10-2.15 have this one.
_functorch_active = getattr(torch._C, "_are_functorch_transforms_active", lambda: False)
Route = Callable[[Tensor, Tensor], Tensor]
OutCall = Callable[[Tensor, Tensor, object], Tensor]


def public_route(a: Tensor, b: Tensor) -> Tensor:
    """The op on public torch APIs: the Function, which torch.func transforms take, where a
    gradient or tangent is wanted; else the op below autograd. But the op as callers name it
    where a ``__torch_function__`` override or mode, or ``torch.jit.trace``, is to see the call."""
    seen = torch.overrides.has_torch_function_variadic(a, b) or torch.jit.is_tracing()
    if seen and not _functorch_active():  # whose transforms cannot enter the op's autograd kernel
        return OP_PACKET(a, b)
    return Function.apply(a, b) if differentiable(a, b) else BELOW_AUTOGRAD(a, b)


_route: Route = public_route


def use_route(route: Route) -> None:
    """Send calls down ``route`` (``_fast_route.py``): it must give what ``public_route`` gives."""
    global _route
    _route = route


def _refuse_out(a: Tensor, b: Tensor, out: object) -> Tensor:
    raise TypeError(f"{QUALNAME}(): out= is not supported; write out.copy_({QUALNAME}(a, b))")


_out_call: OutCall = _refuse_out


def use_out(out_call: OutCall) -> None:
    """Send calls with out= to ``out_call`` (``_out.py``)."""
    global _out_call
    _out_call = out_call


def _refuse_alpha(alpha: object) -> None:
    # torch.add's alpha scales b inside the add: say how to scale b instead, and what that changes.
    if alpha is not None:
        scale = repr(alpha) if isinstance(alpha, Number) else "alpha"
        raise TypeError(
            f"{QUALNAME}(): alpha is not supported; write {QUALNAME}(a, b * {scale}), which rounds "
            f"b * {scale} to b's dtype before the add ({TWIN_NAME}(a, b, alpha={scale}) may round "
            "only once)"
        )


torch.fx.wrap("_refuse_alpha")  # FX records the call (alpha a Proxy): refused as the graph runs


def call(a: Tensor, b: Tensor, *, alpha: None = None, out: Tensor | None = None) -> Tensor:
    # Compiled and FX-traced code records the op itself. Off the hot path, what the schema would
    # refuse in its own words gets a TypeError here that says what to pass instead.
    if (
        _is_compiling()
        or not (isinstance(a, Tensor) and isinstance(b, Tensor))
        or alpha is not None
        or out is not None
    ):
        error = argument_error(a, b)
        if error is not None:
            raise error
        if alpha is not None:
            _refuse_alpha(alpha)
        if out is not None:
            return _out_call(a, b, out)
        return OP(a, b)
    try:
        return _route(a, b)
    except RuntimeError as e:
        # torch's OutOfMemoryError arrives as a plain RuntimeError (_errors.py): give it its type
        # back for callers that catch it.
        if is_out_of_memory(e, a):
            raise torch.OutOfMemoryError(str(e)) from None
        raise


call.__name__ = call.__qualname__ = NAME
call.__module__ = __package__ or __name__
call.__doc__ = f"""Return ``{FORMULA}`` as a new tensor, bit for bit as ``{TWIN_NAME}(a, b)``.

    {TWIN_NAME}'s semantics for floating tensors: the result's dtype is
    ``torch.result_type(a, b)`` (float32 and bfloat16 give float32; a 0-dim tensor does not raise
    a dimensioned one's dtype), its shape the two shapes broadcast, its strides {TWIN_NAME}'s.
    Inputs are read in place, whatever their strides, dtypes or broadcasting: the only allocation
    is the result.

    With ``out=``, as ``{TWIN_NAME}(a, b, out=out)``: the result is written into ``out``, which is
    returned; ``out`` may have any strides and any floating or complex dtype (the result is then
    cast to it), and is resized, with {TWIN_NAME}'s warning, if its shape differs. Not with inputs
    that require grad, nor under torch.func transforms.

    Args:
        a: float16, bfloat16, float32 or float64 tensor, on CPU or CUDA, of any shape and strides.
        b: the same, on the same device; its shape must broadcast with ``a``'s.
        out: optional, a tensor on the inputs' device to write the result into.
        alpha: not supported: given, it raises a TypeError. ``torch.add(a, b, alpha=3)`` rounds
            ``a + 3 * b`` its own way; ``add(a, b * 3)`` rounds ``b * 3`` first (docs/limits.md).

    Gradients flow to both inputs (each with its input's shape and dtype), forward-mode AD
    included; the call works under ``torch.compile(fullgraph=True)`` and torch.func transforms
    (``grad``, ``jvp``, ``vmap``). ``torch.fx.symbolic_trace`` records it as the op,
    ``torch.ops.{QUALNAME}``, which has the backward, forward-mode AD, the vmap rule and the fake
    kernel, but raises under ``torch.func.grad`` and ``torch.func.jvp``: there, call this function.

    Raises:
        TypeError: if ``a`` or ``b`` is not a tensor (None, a Python number, a list, a NumPy
            array), or ``alpha`` is given. The message says what to pass instead.
        RuntimeError: if the shapes do not broadcast, the devices differ, a dtype is not one
            listed above, a tensor is not dense, or CUDA tensors reach a CPU-only build: the
            op's own checks, in the same words through ``torch.ops.{QUALNAME}``.
        torch.OutOfMemoryError: if the output does not fit on the GPU. The message says what did
            not fit, and where ``_C.torch_reason_in_errors()`` also torch's account of the GPU's
            memory. In a compiled graph, and through ``torch.ops.{QUALNAME}``, it arrives as
            a RuntimeError.
        torch.AcceleratorError: an error that an earlier GPU call left pending, found when an
            allocation failed and torch's reason did not come along.
    """
