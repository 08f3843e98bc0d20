"""The Python half of torch.ops.sum_double.add: its fake kernel, its autograd, the public call."""

from collections.abc import Callable, Sequence
from numbers import Number
from typing import Any, Protocol

import torch
import torch.autograd.forward_ad as _forward_ad
from torch import Tensor

from . import _C

_add = torch.ops.sum_double.add.default
_is_compiling = torch.compiler.is_compiling  # bound once: add() asks on every call
# Errors cross the stable ABI as codes; torch's reason for one ("CUDA out of memory", ...) comes
# along only where the headers built against and the torch running both allow it.
_REASON_CROSSES = _C.torch_reason_in_errors()


_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _check_dtype(t: Tensor, name: str) -> None:
    torch._check(
        t.dtype in _DTYPES,
        lambda: (
            f"sum_double.add(): expected {name} to be a floating-point tensor (float16, bfloat16, "
            f"float32 or float64), but got {t.dtype}"
        ),
    )


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


@torch.library.register_fake("sum_double::add")
def _add_fake(a: Tensor, b: Tensor) -> Tensor:
    # check_inputs() of add_op.cpp, in the same words, so torch.compile rejects bad input while
    # tracing rather than when the graph runs.
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
    return a.new_empty_strided(shape, _output_strides(a, b, shape, dtype), dtype=dtype)


def _output_strides(a: Tensor, b: Tensor, shape: torch.Size, dtype: torch.dtype) -> list[int]:
    """torch_add_strides() of add_op.cpp: the strides eager torch.add gives its result.

    Not torch.add's meta function, which differs from eager torch.add in the strides of size-1
    dims (torch._prims_common's rule): the fake kernel must predict this op's real output.
    """
    dim = len(shape)
    # On the CPU, torch.add copies an input of another dtype first; the copy's strides count.
    a_strides, b_strides = list(a.stride()), list(b.stride())
    if a.device.type == "cpu":
        if a.dtype != dtype:
            a_strides = _strides_of_copy(list(a.shape), a_strides)
        if b.dtype != dtype:
            b_strides = _strides_of_copy(list(b.shape), b_strides)

    def dense_in(order: list[int]) -> list[int]:  # order: fastest dim first
        strides, stride = [0] * dim, 1
        for d in order:
            strides[d] = stride
            stride *= shape[d]
        return strides

    row_major = list(reversed(range(dim)))
    # Ranks first: comparing (128,) with (batch, 128) elementwise would guard batch != 128.
    if a.dim() == b.dim() == dim and a.shape == shape and b.shape == shape:
        if a.numel() == 0 or (
            _is_contiguous_in(shape, a_strides, row_major)
            and _is_contiguous_in(shape, b_strides, row_major)
        ):
            return list(a.new_empty(shape).stride())  # contiguous, size-0 dims counted as 1
        cl = [1, 3, 2, 0]  # channels-last: C fastest, then W, H, N
        if dim == 4 and all(_is_contiguous_in(shape, st, cl) for st in (a_strides, b_strides)):
            return dense_in(cl)
        if a_strides == b_strides and _is_non_overlapping_and_dense(shape, a_strides):
            return a_strides

    def read(t: Tensor, strides: list[int]) -> list[int]:  # over `shape`: 0 where broadcast
        lead = dim - t.dim()
        return [
            0 if d < lead or (t.shape[d - lead] == 1 and shape[d] != 1) else strides[d - lead]
            for d in range(dim)
        ]

    reads = (read(a, a_strides), read(b, b_strides))

    def should_swap(d0: int, d1: int) -> int:
        for st in reads:
            if st[d0] == 0 or st[d1] == 0:
                continue
            if st[d0] != st[d1]:
                return -1 if st[d0] < st[d1] else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = _insertion_sort(row_major, should_swap)
    if perm == row_major:
        return list(a.new_empty(shape).stride())
    return dense_in(perm)


def _insertion_sort(perm: list[int], should_swap: Callable[[int, int], int]) -> list[int]:
    """TensorIterator's sort of dims: an undecided comparison (0) leaves the order as it is."""
    perm = perm.copy()
    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[d0], perm[d1])
            if comparison > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif comparison < 0:
                break
    return perm


def _strides_of_copy(sizes: list[int], strides: list[int]) -> list[int]:
    """strides_of_copy() of add_op.cpp: the strides of ``t.to(dtype)`` (at::infer_dense_strides
    where t is not non-overlapping and dense)."""
    if _is_non_overlapping_and_dense(sizes, strides):
        return strides

    def should_swap(d0: int, d1: int) -> int:
        if strides[d0] == 0 or strides[d1] == 0:
            return 0
        if strides[d0] != strides[d1]:
            return -1 if strides[d0] < strides[d1] else 1
        return 1 if sizes[d0] > sizes[d1] else 0

    dense, stride = [0] * len(sizes), 1
    for d in _insertion_sort(list(reversed(range(len(sizes)))), should_swap):
        dense[d] = stride
        stride *= max(sizes[d], 1)
    return dense


def _is_contiguous_in(sizes: Sequence[int], strides: Sequence[int], order: list[int]) -> bool:
    """c10's contiguity tests, dims taken in `order` (fastest first); size-1 dims ignored."""
    expected = 1
    for d in order:
        if sizes[d] != 1:
            if strides[d] != expected:
                return False
            expected *= sizes[d]
    return True


def _is_non_overlapping_and_dense(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """c10's test: empty (which counts as contiguous), or, size-1 dims aside, strides sorted
    ascending are 1, size, ..."""
    if 0 in sizes:
        return True
    expected = 1
    for stride, size in sorted((st, sz) for sz, st in zip(sizes, strides, strict=True) if sz > 1):
        if stride != expected:
            return False
        expected *= size
    return True


class _VmapInfo(Protocol):
    """What torch.library passes a vmap rule: of it, this rule reads only the batch size."""

    batch_size: int


def _result_dtype(a: torch.dtype, b: torch.dtype, a_is_0d: bool, b_is_0d: bool) -> torch.dtype:
    """torch.result_type of floating tensors of these dtypes and dims."""
    if a_is_0d != b_is_0d:
        return b if a_is_0d else a
    return torch.promote_types(a, b)


@torch.library.register_vmap("sum_double::add")
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
    return _add(a, b), 0


# ---- The derivative, once: the op's own registration, and the autograd.Functions reuse it ----


def _setup_context(ctx: Any, inputs: tuple[Tensor, Tensor], output: Tensor) -> None:
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


# The backward needs nothing from the forward, so the op keeps no context at all.
torch.library.register_autograd("sum_double::add", _backward)


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
    without ``inspect.signature``, and call the C half of ``apply`` itself (below); the forward-AD
    level stands in for two ``unpack_dual`` calls.
    """
    try:
        below_autograd = torch._C._AutoDispatchBelowAutograd
        functorch_active = torch._C._are_functorch_transforms_active
        unwrap_if_dead = torch._C._functorch.unwrap_if_dead
    except AttributeError:
        return None
    if not hasattr(_forward_ad, "_current_level"):  # read on each call: dual_level() rebinds it
        return None

    class AddOutsideFunc(torch.autograd.Function):
        """``_Add`` in the older ``forward(ctx, ...)`` form, which torch.func transforms refuse."""

        @staticmethod
        def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
            if _forward_ad._current_level >= 0:  # only _jvp reads it
                ctx.meta = (a.shape, a.dtype, b.shape, b.dtype)
            with below_autograd():
                return _add(a, b)

        backward = staticmethod(_backward)
        jvp = staticmethod(_jvp)

    # Function.apply is Python up to torch 2.13 (C from 2.14): outside a torch.func transform,
    # all it does for this Function is unwrap tensors that escaped one, then call this.
    apply = super(torch.autograd.Function, AddOutsideFunc).apply

    def fast_route(a: Tensor, b: Tensor) -> Tensor:
        if (
            (a.requires_grad or b.requires_grad) and torch.is_grad_enabled()
        ) or _forward_ad._current_level >= 0:
            if functorch_active():
                return _Add.apply(a, b)
            return apply(unwrap_if_dead(a), unwrap_if_dead(b))
        # Nothing to differentiate: skip autograd as C++ ops do. Every other dispatch key
        # (FakeTensorMode, functionalization, vmap, ...) still sees the call.
        with below_autograd():
            return _add(a, b)

    return fast_route


_fast_route = _make_fast_route()
_route = _fast_route or _public_route


def add(a: Tensor, b: Tensor) -> Tensor:
    """Return ``a + b`` as a new tensor, as ``torch.add(a, b)`` computes it, bit for bit.

    torch.add's semantics for floating tensors: the result's dtype is ``torch.result_type(a, b)``
    (float32 + bfloat16 -> float32; a 0-dim tensor does not raise a dimensioned one's dtype), its
    shape the two shapes broadcast, its strides torch.add's. Inputs are read in place, whatever
    their strides, dtypes or broadcasting: the only allocation is the result.

    Args:
        a: float16, bfloat16, float32 or float64 tensor, on CPU or CUDA, of any shape and strides.
        b: the same, on the same device; its shape must broadcast with ``a``'s.

    Gradients flow to both inputs (each with its input's shape and dtype), forward-mode AD
    included; the call works under ``torch.compile(fullgraph=True)`` and torch.func transforms
    (``grad``, ``jvp``, ``vmap``). ``torch.fx.symbolic_trace`` records it as the op,
    ``torch.ops.sum_double.add``, which has the backward, the vmap rule and the fake kernel;
    torch.library gives a custom op no forward-mode AD, though, and its backward fails under
    ``torch.func.grad``: for dual tensors, ``torch.func.jvp`` or ``torch.func.grad``, call this
    function.

    Raises:
        TypeError: if ``a`` or ``b`` is a Python number (pass a tensor: docs/limits.md).
        RuntimeError: if the shapes do not broadcast, the devices differ, a dtype is not one
            listed above, a tensor is not dense, or CUDA tensors reach a CPU-only build.
        torch.OutOfMemoryError: if the output does not fit on the GPU. The message says what did
            not fit, and where ``_C.torch_reason_in_errors()`` also torch's account of the GPU's
            memory. In a compiled graph, and through ``torch.ops.sum_double.add``, it arrives as
            a RuntimeError.
        torch.AcceleratorError: an error that an earlier GPU call left pending, found when an
            allocation failed and torch's reason did not come along.
    """
    # Compiled and FX-traced code records the op itself; None and non-tensors get its error.
    if _is_compiling() or not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        if isinstance(a, Number) or isinstance(b, Number):
            raise _number_error(a, b)
        return _add(a, b)
    try:
        return _route(a, b)
    except RuntimeError as e:
        # Errors cross the stable ABI as codes, so torch's OutOfMemoryError arrives as a plain
        # RuntimeError; give it its type back for callers that catch it.
        if _is_out_of_memory(e, a):
            raise torch.OutOfMemoryError(str(e)) from None
        raise


def _number_error(a: object, b: object) -> TypeError:
    """Python numbers follow rules of their own in torch.add (wrapped numbers); the op takes
    tensors only, so say which argument and how to make it one."""
    name, number, other = ("a", a, b) if isinstance(a, Number) else ("b", b, a)
    like = "a" if name == "b" else "b"
    example = (
        f"torch.tensor({number!r}, dtype={like}.dtype, device={like}.device)"
        if isinstance(other, Tensor)
        else f"torch.tensor({number!r})"
    )
    return TypeError(
        f"sum_double.add(): expected {name} to be a Tensor, but got a Python "
        f"{type(number).__name__}; pass a tensor, e.g. {example}"
    )


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
