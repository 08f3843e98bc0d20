"""The Python half of torch.ops.sum_double.add: its fake kernel, its autograd, the public call."""

from typing import Any, Protocol

import torch
import torch.autograd.forward_ad as _forward_ad
from torch import Tensor

from . import _C
from ._errors import alpha_error, argument_error, is_out_of_memory, none_message
from ._fast_route import make_fast_route
from ._inductor_fusion import decompose_as_add
from ._layout import output_strides

_op = torch.ops.sum_double.add.default  # what callers, Dynamo's and FX's graphs, export name
# The same kernels with no autograd kernel (add_op.h's kOpNames): what every route below calls
# once autograd is dealt with, so that compiled graphs, traced there, run no Python kernel per op.
_below_autograd = torch.ops.sum_double._add.default
OPS = (_op, _below_autograd)  # the same kernels by both names: add_op.h's kOpNames
_is_compiling = torch.compiler.is_compiling  # bound once: add() asks on every call


_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _check_tensor(t: Tensor | None, name: str) -> None:
    # The schema lets None through as an undefined tensor; facts_of() names it.
    torch._check(t is not None, lambda: none_message(name))


# Dtypes of packed data, which .to() refuses (names.cpp's dtype_fix); older torch lacks some.
_PACKED_NAMES = (
    *(f"bits{kind}" for kind in ("1x8", "2x4", "4x2", "8", "16")),
    *(f"{sign}int{bits}" for sign in ("", "u") for bits in range(1, 8)),
    "float4_e2m1fn_x2",
)
_PACKED = frozenset(getattr(torch, name) for name in _PACKED_NAMES if hasattr(torch, name))


def _dtype_error(dtype: torch.dtype, name: str) -> str:
    """launcher_dtype()'s words: the dtype as torch prints it (names.cpp's dtype_name), and how to
    convert it, keeping the values (dtype_fix)."""
    if dtype.is_complex:
        fix = f"pass its real and imaginary parts as a real tensor, e.g. torch.view_as_real({name})"
    elif dtype in _PACKED:
        fix = "torch cannot convert it, so unpack it to one of those first"
    else:
        fix = f"convert it first, e.g. {name}.to(torch.float32)"
    return (
        f"sum_double.add(): expected {name} to be a float16, bfloat16, float32 or float64 tensor, "
        f"but got {dtype}; {fix}"
    )


def _check_dtype(t: Tensor, name: str) -> None:
    torch._check(t.dtype in _DTYPES, lambda: _dtype_error(t.dtype, name))


def _broadcast_error(a: torch.Size, b: torch.Size) -> str:
    """check_inputs()'s words for shapes that do not broadcast: the first dim where they clash."""
    dim = max(len(a), len(b))
    for d in range(dim):
        sa = a[d - dim + len(a)] if d >= dim - len(a) else 1
        sb = b[d - dim + len(b)] if d >= dim - len(b) else 1
        if sa != sb and sa != 1 and sb != 1:
            break
    return (
        f"sum_double.add(): expected the shapes of a and b to broadcast, but a: {list(a)} and "
        f"b: {list(b)} differ in dim {d} of the result ({sa} and {sb}), where neither is 1"
    )


def _add_fake(a: Tensor, b: Tensor) -> Tensor:
    # check_inputs() of add_op.cpp, in the same words, so torch.compile rejects bad input while
    # tracing rather than when the graph runs.
    _check_tensor(a, "a")
    _check_tensor(b, "b")
    torch._check(
        a.device == b.device,
        lambda: (
            f"sum_double.add(): expected a and b on the same device, but got a on {a.device} "
            f"and b on {b.device}"
        ),
    )
    _check_dtype(a, "a")
    _check_dtype(b, "b")
    try:
        shape = torch.broadcast_shapes(a.shape, b.shape)
    except RuntimeError:
        raise RuntimeError(_broadcast_error(a.shape, b.shape)) from None
    dtype = _result_dtype(a.dtype, b.dtype, a.dim() == 0, b.dim() == 0)
    return a.new_empty_strided(shape, output_strides(a, b, shape, dtype), dtype=dtype)


class _VmapInfo(Protocol):
    """What torch.library passes a vmap rule: of it, this rule reads only the batch size."""

    batch_size: int


def _result_dtype(a: torch.dtype, b: torch.dtype, a_is_0d: bool, b_is_0d: bool) -> torch.dtype:
    """torch.result_type of floating tensors of these dtypes and dims."""
    if a_is_0d != b_is_0d:
        return b if a_is_0d else a
    return torch.promote_types(a, b)


def _add_vmap(
    info: _VmapInfo, in_dims: tuple[int | None, int | None], a: Tensor, b: Tensor
) -> tuple[Tensor, int]:
    # Elementwise, so one call covers the whole batch once the batch dims line up in front, with
    # size-1 dims padding each batched input to the result's rank; unbatched inputs broadcast as
    # they are (read in place).
    a_dim, b_dim = in_dims
    rank = max(a.dim() - (a_dim is not None), b.dim() - (b_dim is not None))

    def batch_first(t: Tensor, d: int | None) -> Tensor:
        if d is None:
            return t
        t = t.movedim(d, 0)
        return t.reshape(t.shape[0], *([1] * (rank - t.dim() + 1)), *t.shape[1:])

    a_0d, b_0d = a.dim() == (a_dim is not None), b.dim() == (b_dim is not None)
    out_dtype = _result_dtype(a.dtype, b.dtype, a_0d, b_0d)
    a, b = batch_first(a, a_dim), batch_first(b, b_dim)
    # A batch of 0-dim inputs is not 0-dim, so its dtype may now win: then round it to the
    # result's dtype first (a copy, in this corner only), as the op does in registers.
    if _result_dtype(a.dtype, b.dtype, a.dim() == 0, b.dim() == 0) != out_dtype:
        if a_0d and a_dim is not None:
            a = a.to(out_dtype)
        if b_0d and b_dim is not None:
            b = b.to(out_dtype)
    return _op(a, b), 0  # the op with autograd: a batch may need gradients


for _overload in OPS:
    torch.library.register_fake(_overload, _add_fake)
    torch.library.register_vmap(_overload, _add_vmap)

# Inductor compiles the op as the add it is (_inductor_fusion.py, optional), on the devices this
# build has kernels for; elsewhere a graph calls the op, which refuses as it does eagerly.
decompose_as_add(OPS, _add_fake, ("cpu",) if _C.cpu_only else ("cpu", "cuda"))


# ---- The derivative, once: the op's autograd and the wrapper's routes apply it as Functions ----


def _setup_context(ctx: Any, inputs: tuple[Tensor, Tensor], output: object) -> None:
    # For _jvp, which must give a lone tangent the result's shape and dtype.
    a, b = inputs
    ctx.meta = (a.shape, a.dtype, b.shape, b.dtype)


def _backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    # d(a + b)/da = d(a + b)/db = 1: the incoming gradient as it is, no copy, no kernel. Autograd
    # itself then gives each input's gradient that input's shape and dtype (summed over the dims
    # it was broadcast along, then cast: the engine's check of a node's outputs), the very code
    # that reduces torch.add's, whose backward also returns the gradient as it is.
    return grad, grad


def _jvp(ctx: Any, a_tangent: Tensor | None, b_tangent: Tensor | None) -> Tensor | None:
    if a_tangent is not None and b_tangent is not None:
        return a_tangent + b_tangent  # torch.add's own promotion and broadcasting
    tangent = b_tangent if a_tangent is None else a_tangent
    if tangent is None:
        return None
    a_shape, a_dtype, b_shape, b_dtype = ctx.meta
    dtype = _result_dtype(a_dtype, b_dtype, len(a_shape) == 0, len(b_shape) == 0)
    return tangent.expand(torch.broadcast_shapes(a_shape, b_shape)).to(dtype)


class _Add(torch.autograd.Function):
    """The op's derivative in the form torch.func transforms take (``setup_context``).

    A Function called from the op's own autograd kernel fails under ``torch.func.grad`` and
    ``torch.func.jvp`` (functorch runs Functions as an operator of its own, which cannot be entered
    from inside another), so torch.func transforms come here through ``sum_double.add``. Its
    forward is the op below autograd; under vmap that reaches the op's vmap rule, and backward and
    jvp are vmapped as they are.
    """

    generate_vmap_rule = True

    @staticmethod
    def forward(a: Tensor, b: Tensor) -> Tensor:
        return _below_autograd(a, b)

    setup_context = staticmethod(_setup_context)
    backward = staticmethod(_backward)
    jvp = staticmethod(_jvp)


class _OpAdd(torch.autograd.Function):
    """The same derivative in the older ``forward(ctx, ...)`` form, which ``apply`` binds without
    ``inspect.signature`` and torch.func transforms refuse: torch.ops.sum_double.add's autograd,
    and the fast route's outside torch.func transforms."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        out = _below_autograd(a, b)
        _setup_context(ctx, (a, b), out)
        return out

    backward = staticmethod(_backward)
    jvp = staticmethod(_jvp)


def _differentiable(a: Tensor, b: Tensor) -> bool:
    """Whether a + b goes on autograd's record: an input requires grad, or carries a tangent."""
    return (
        ((a.requires_grad or b.requires_grad) and torch.is_grad_enabled())
        or _forward_ad.unpack_dual(a).tangent is not None
        or _forward_ad.unpack_dual(b).tangent is not None
    )


def _op_autograd(a: Tensor | None, b: Tensor | None) -> Tensor:
    if a is None or b is None or not _differentiable(a, b):
        return _below_autograd(a, b)  # whose checks name a None argument
    try:
        return _OpAdd.apply(a, b)
    except RuntimeError as e:
        # functorch cannot enter a Function from inside an op's autograd kernel, and says so in
        # words that name neither the op nor the way out.
        if "functorch transforms" not in str(e):
            raise
        raise RuntimeError(
            "torch.ops.sum_double.add does not work under torch.func.grad or torch.func.jvp "
            "(its autograd runs inside the op); call sum_double.add, which does"
        ) from e


# torch.ops.sum_double.add's autograd. torch.library.register_autograd would build a Function
# whose forward calls this very op below autograd, and compiled graphs, which are traced there,
# would then call the op and this Python kernel on every call (benchmarks/NOTES.md, "Compiled
# graphs"); here the forward calls _add, which has no autograd kernel.
_LIB = torch.library.Library("sum_double", "IMPL")
_LIB.impl("add", _op_autograd, "Autograd")


# ---- The public route: _Add, which torch.func transforms take, around the op below autograd -----


def _public_route(a: Tensor, b: Tensor) -> Tensor:
    return _Add.apply(a, b) if _differentiable(a, b) else _below_autograd(a, b)


# The fast route (_fast_route.py, optional), where this torch has the private names it reads.
_fast_route = make_fast_route(_Add, _OpAdd, _below_autograd)
_route = _fast_route or _public_route


def _refuse_alpha(alpha: object) -> None:
    if alpha is not None:
        raise alpha_error(alpha)


# An FX trace records the call instead of making it (alpha is then a Proxy): the graph refuses an
# alpha when it runs rather than dropping it.
torch.fx.wrap("_refuse_alpha")


def add(a: Tensor, b: Tensor, *, alpha: None = None) -> Tensor:
    """Return ``a + b`` as a new tensor, as ``torch.add(a, b)`` computes it, bit for bit.

    torch.add's semantics for floating tensors: the result's dtype is ``torch.result_type(a, b)``
    (float32 + bfloat16 -> float32; a 0-dim tensor does not raise a dimensioned one's dtype), its
    shape the two shapes broadcast, its strides torch.add's. Inputs are read in place, whatever
    their strides, dtypes or broadcasting: the only allocation is the result.

    Args:
        a: float16, bfloat16, float32 or float64 tensor, on CPU or CUDA, of any shape and strides.
        b: the same, on the same device; its shape must broadcast with ``a``'s.
        alpha: not supported: given, it raises a TypeError. ``torch.add(a, b, alpha=3)`` rounds
            ``a + 3 * b`` its own way; ``add(a, b * 3)`` rounds ``b * 3`` first (docs/limits.md).

    Gradients flow to both inputs (each with its input's shape and dtype), forward-mode AD
    included; the call works under ``torch.compile(fullgraph=True)`` and torch.func transforms
    (``grad``, ``jvp``, ``vmap``). ``torch.fx.symbolic_trace`` records it as the op,
    ``torch.ops.sum_double.add``, which has the backward, forward-mode AD, the vmap rule and
    the fake kernel, but raises under ``torch.func.grad`` and ``torch.func.jvp``: there, call this
    function.

    Raises:
        TypeError: if ``a`` or ``b`` is not a tensor (None, a Python number, a list, a NumPy
            array), or ``alpha`` is given. The message says what to pass instead.
        RuntimeError: if the shapes do not broadcast, the devices differ, a dtype is not one
            listed above, a tensor is not dense, or CUDA tensors reach a CPU-only build: the
            op's own checks, in the same words through ``torch.ops.sum_double.add``.
        torch.OutOfMemoryError: if the output does not fit on the GPU. The message says what did
            not fit, and where ``_C.torch_reason_in_errors()`` also torch's account of the GPU's
            memory. In a compiled graph, and through ``torch.ops.sum_double.add``, it arrives as
            a RuntimeError.
        torch.AcceleratorError: an error that an earlier GPU call left pending, found when an
            allocation failed and torch's reason did not come along.
    """
    # Compiled and FX-traced code records the op itself. Off the hot path, what the schema would
    # refuse in its own words gets a TypeError here that says what to pass instead.
    if (
        _is_compiling()
        or not (isinstance(a, Tensor) and isinstance(b, Tensor))
        or alpha is not None
    ):
        error = argument_error(a, b)
        if error is not None:
            raise error
        if alpha is not None:
            _refuse_alpha(alpha)
        return _op(a, b)
    try:
        return _route(a, b)
    except RuntimeError as e:
        # torch's OutOfMemoryError arrives as a plain RuntimeError (_errors.py): give it its type
        # back for callers that catch it.
        if is_out_of_memory(e, a):
            raise torch.OutOfMemoryError(str(e)) from None
        raise


sum_double_op = add
"""The seed tutorial's name for :func:`add`."""
