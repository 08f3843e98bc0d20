"""The Python half of torch.ops.sum_double.add: its fake kernel, its autograd, the public call."""

from collections.abc import Callable
from typing import Protocol

import torch
import torch.autograd.forward_ad as _forward_ad
from torch import Tensor

from . import _C

_add = torch.ops.sum_double.add.default
_is_compiling = torch.compiler.is_compiling  # bound once: add() asks on every call
# Errors cross the stable ABI as codes; torch's reason for one ("CUDA out of memory", ...) comes
# along only where the headers built against and the torch running both allow it.
_REASON_CROSSES = _C.torch_reason_in_errors()


def _is_dense(t: Tensor) -> bool:
    """is_dense() of add_op.cpp: the elements fill one gap-free block, in some order of the dims."""
    expected = 1
    for stride, size in sorted(
        (st, sz) for sz, st in zip(t.shape, t.stride(), strict=True) if sz != 1
    ):
        if stride != expected:
            return False
        expected *= size
    return True


_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


@torch.library.register_fake("sum_double::add")
def _add_fake(a: Tensor, b: Tensor) -> Tensor:
    # Every check of check_inputs() in add_op.cpp that metadata decides, in the same words, so
    # torch.compile rejects bad input while tracing rather than when the graph runs.
    torch._check(
        a.device == b.device,
        lambda: (
            f"sum_double.add(): expected a and b on the same device, but got a on {a.device} "
            f"and b on {b.device}"
        ),
    )
    torch._check(
        a.dtype == b.dtype,
        lambda: (
            f"sum_double.add(): expected a and b to have the same dtype, but got a: {a.dtype} "
            f"and b: {b.dtype} (no implicit promotion: cast one of them first)"
        ),
    )
    torch._check(
        a.shape == b.shape,
        lambda: (
            f"sum_double.add(): expected a and b to have the same shape, but got a: "
            f"{list(a.shape)} and b: {list(b.shape)} (no broadcasting)"
        ),
    )
    torch._check(
        a.dtype in _DTYPES,
        lambda: (
            "sum_double.add(): expected a and b to be float16, bfloat16, float32 or float64, "
            f"but both are {a.dtype}"
        ),
    )
    # The output layout rule of flat_operands() in add_op.cpp: the inputs' shared dense layout,
    # else contiguous.
    if a.is_contiguous() and b.is_contiguous():
        return a.new_empty(a.shape)
    if a.stride() == b.stride() and _is_dense(a):
        return a.new_empty_strided(a.shape, a.stride())
    return a.new_empty(a.shape)


class _VmapInfo(Protocol):
    """What torch.library passes a vmap rule: of it, this rule reads only the batch size."""

    batch_size: int


@torch.library.register_vmap("sum_double::add")
def _add_vmap(
    info: _VmapInfo, in_dims: tuple[int | None, int | None], a: Tensor, b: Tensor
) -> tuple[Tensor, int]:
    # Elementwise, so one call covers the whole batch once the batch dims line up in front. An
    # unbatched input is expanded (a view; the op then makes it dense, as for any strided input).
    a_dim, b_dim = in_dims
    a = a.movedim(a_dim, 0) if a_dim is not None else a.expand(info.batch_size, *a.shape)
    b = b.movedim(b_dim, 0) if b_dim is not None else b.expand(info.batch_size, *b.shape)
    return _add(a, b), 0


# ---- The derivative, once: the op's own registration, and the autograd.Functions reuse it ----


def _setup_context(ctx: object, inputs: tuple[Tensor, Tensor], output: Tensor) -> None:
    pass  # d(a + b)/da = d(a + b)/db = 1: the backward needs nothing from the forward.


def _backward(ctx: object, grad: Tensor) -> tuple[Tensor, Tensor]:
    # The incoming gradient goes to both inputs as it is: no copy, no kernel.
    return grad, grad


def _jvp(ctx: object, a_tangent: Tensor | None, b_tangent: Tensor | None) -> Tensor | None:
    if a_tangent is None or b_tangent is None:
        return b_tangent if a_tangent is None else a_tangent
    return a_tangent + b_tangent


torch.library.register_autograd("sum_double::add", _backward, setup_context=_setup_context)


class _Add(torch.autograd.Function):
    """The op's derivative plus what ``register_autograd`` cannot give the op itself.

    torch.library has no forward-mode registration, and the autograd it builds for a custom op
    fails under ``torch.func.grad``: dual tensors and torch.func transforms need this Function.
    Its forward is the op (autograd is off inside it, so the op's autograd kernel passes the call
    down); under vmap that reaches the op's vmap rule, and backward and jvp are vmapped as they are.
    """

    generate_vmap_rule = True

    @staticmethod
    def forward(a: Tensor, b: Tensor) -> Tensor:
        return _add(a, b)

    setup_context = staticmethod(_setup_context)
    backward = staticmethod(_backward)
    jvp = staticmethod(_jvp)


# ---- The public route: the op's registrations, and _Add for what they cannot do ---------------


def _public_route(a: Tensor, b: Tensor) -> Tensor:
    if (
        ((a.requires_grad or b.requires_grad) and torch.is_grad_enabled())
        or _forward_ad.unpack_dual(a).tangent is not None
        or _forward_ad.unpack_dual(b).tangent is not None
    ):
        return _Add.apply(a, b)
    return _add(a, b)


# ---- The fast route: the public route's results for less host time, on torch's private names ---


def _make_fast_route() -> Callable[[Tensor, Tensor], Tensor] | None:
    """The fast route, or None where this torch lacks a name it reads: then the public one runs.

    What each name buys: entering below autograd skips the op's Python autograd kernel; knowing
    that no torch.func transform is active lets a call take a Function that ``apply`` binds
    without ``inspect.signature``; the forward-AD level stands in for two ``unpack_dual`` calls.
    """
    try:
        below_autograd = torch._C._AutoDispatchBelowAutograd
        functorch_active = torch._C._are_functorch_transforms_active
    except AttributeError:
        return None
    if not hasattr(_forward_ad, "_current_level"):  # read on each call: dual_level() rebinds it
        return None

    class AddOutsideFunc(torch.autograd.Function):
        """``_Add`` in the older ``forward(ctx, ...)`` form, which torch.func transforms refuse."""

        @staticmethod
        def forward(ctx: object, a: Tensor, b: Tensor) -> Tensor:
            with below_autograd():
                return _add(a, b)

        backward = staticmethod(_backward)
        jvp = staticmethod(_jvp)

    def fast_route(a: Tensor, b: Tensor) -> Tensor:
        if (
            (a.requires_grad or b.requires_grad) and torch.is_grad_enabled()
        ) or _forward_ad._current_level >= 0:
            return (_Add if functorch_active() else AddOutsideFunc).apply(a, b)
        # Nothing to differentiate: skip autograd as C++ ops do. Every other dispatch key
        # (FakeTensorMode, functionalization, vmap, ...) still sees the call.
        with below_autograd():
            return _add(a, b)

    return fast_route


_fast_route = _make_fast_route()
_route = _fast_route or _public_route


def add(a: Tensor, b: Tensor) -> Tensor:
    """Return ``a + b`` as a new tensor, bit-identical to ``torch.add(a, b)``.

    The result is contiguous, unless ``a`` and ``b`` share one dense layout (both transposed, both
    channels-last, ...): then it has that layout too, as with ``torch.add``, and no input is copied.

    Args:
        a: float16, bfloat16, float32 or float64 tensor, on CPU or CUDA, of any shape and strides.
        b: a tensor of the same shape, dtype and device as ``a`` (no broadcasting, no promotion).

    Gradients flow to both inputs, forward-mode AD included; the call works under
    ``torch.compile(fullgraph=True)`` and torch.func transforms (``grad``, ``jvp``, ``vmap``).
    ``torch.fx.symbolic_trace`` records it as the op, ``torch.ops.sum_double.add``, which has the
    backward, the vmap rule and the fake kernel; torch.library gives a custom op no forward-mode
    AD, though, and its backward fails under ``torch.func.grad``: for dual tensors,
    ``torch.func.jvp`` or ``torch.func.grad``, call this function.

    Raises:
        RuntimeError: if the shapes, dtypes or devices differ, the dtype is not one listed above,
            a tensor is not dense, or CUDA tensors reach a CPU-only build.
        torch.OutOfMemoryError: if the output (or a dense copy of a strided input) does not fit
            on the GPU. The message says what did not fit, and where ``_C.torch_reason_in_errors()``
            also torch's account of the GPU's memory. In a compiled graph, and
            through ``torch.ops.sum_double.add``, it arrives as a RuntimeError.
        torch.AcceleratorError: an error that an earlier GPU call left pending, found when an
            allocation failed and torch's reason did not come along.
    """
    # Compiled and FX-traced code records the op itself; None and non-tensors get its error.
    if _is_compiling() or not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        return _add(a, b)
    try:
        return _route(a, b)
    except RuntimeError as e:
        # Errors cross the stable ABI as codes, so torch's OutOfMemoryError arrives as a plain
        # RuntimeError; give it its type back for callers that catch it.
        if _is_out_of_memory(e, a):
            raise torch.OutOfMemoryError(str(e)) from None
        raise


def _is_out_of_memory(error: RuntimeError, a: Tensor) -> bool:
    """Whether ``error`` from the op is the GPU running out of memory; may raise the real error.

    With torch's reason, the reason says so. Without it, the op still reports that an allocation
    failed. On a GPU that means out of memory, unless an earlier error is pending on the GPU: that
    fails every allocation that reaches the driver. Synchronizing raises such an error, and it is
    raised in place of ``error``, as torch's own ops would raise it.
    """
    message = str(error)
    if "CUDA out of memory" in message:
        return True
    if _REASON_CROSSES or not a.is_cuda or "could not allocate memory for" not in message:
        return False
    # Synchronizing would invalidate a CUDA graph being captured; the capture fails either way.
    if not torch.cuda.is_current_stream_capturing():
        try:
            torch.cuda.synchronize(a.device)
        except RuntimeError as pending:
            raise pending from None
    return True


sum_double_op = add
"""The seed tutorial's name for :func:`add`."""
