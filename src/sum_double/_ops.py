"""The Python half of torch.ops.sum_double.add: its fake kernel, its autograd, the public call."""

import torch
from torch import Tensor

_add = torch.ops.sum_double.add.default
_below_autograd = torch._C._AutoDispatchBelowAutograd


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


@torch.library.register_fake("sum_double::add")
def _add_fake(a: Tensor, b: Tensor) -> Tensor:
    # The C++ checks (add_op.cpp) that shapes decide, so torch.compile rejects bad input at trace.
    torch._check(a.dtype == b.dtype, lambda: f"sum_double.add(): dtypes {a.dtype} != {b.dtype}")
    torch._check(a.shape == b.shape, lambda: f"sum_double.add(): shapes {a.shape} != {b.shape}")
    # The output layout rule of flat_operands() in add_op.cpp: the inputs' shared dense layout,
    # else contiguous.
    if a.is_contiguous() and b.is_contiguous():
        return a.new_empty(a.shape)
    if a.numel() > 1 and a.stride() == b.stride() and _is_dense(a):
        return a.new_empty_strided(a.shape, a.stride())
    return a.new_empty(a.shape)


def _setup_context(ctx: object, inputs: tuple[Tensor, Tensor], output: Tensor) -> None:
    pass  # d(a + b)/da = d(a + b)/db = 1: the backward needs nothing from the forward.


def _backward(ctx: object, grad: Tensor) -> tuple[Tensor, Tensor]:
    # The incoming gradient goes to both inputs as it is: no copy, no kernel.
    return grad, grad


torch.library.register_autograd("sum_double::add", _backward, setup_context=_setup_context)


class _Add(torch.autograd.Function):
    """The same derivative as the registered one, entered straight from Python.

    The op's own autograd kernel is Python called back from the C++ dispatcher, which costs about
    15 us a call on top of the add; entering autograd here costs about 5 us.
    """

    @staticmethod
    def forward(ctx: object, a: Tensor, b: Tensor) -> Tensor:
        with _below_autograd():
            return _add(a, b)

    backward = staticmethod(_backward)


def add(a: Tensor, b: Tensor) -> Tensor:
    """Return ``a + b`` as a new tensor, bit-identical to ``torch.add(a, b)``.

    The result is contiguous, unless ``a`` and ``b`` share one dense layout (both transposed, both
    channels-last, ...): then it has that layout too, as with ``torch.add``, and no input is copied.

    Args:
        a: float16, bfloat16, float32 or float64 tensor, on CPU or CUDA, of any shape and strides.
        b: a tensor of the same shape, dtype and device as ``a`` (no broadcasting, no promotion).

    Gradients flow to both inputs; the call works under ``torch.compile(fullgraph=True)``.

    Raises:
        RuntimeError: if the shapes, dtypes or devices differ, the dtype is not one listed above,
            a tensor is not dense, or CUDA tensors reach a CPU-only build.
        torch.OutOfMemoryError: if the output (or a dense copy of a strided input) does not fit
            on the GPU.
    """
    # torch.compile traces the op itself (fake kernel + registered autograd).
    if torch.compiler.is_compiling():
        return _add(a, b)
    try:
        return _add_eager(a, b)
    except RuntimeError as e:
        # The stable ABI carries errors across as codes, so torch's OutOfMemoryError arrives as a
        # plain RuntimeError (with torch's message); give it its type back for callers that
        # catch it.
        if "CUDA out of memory" in str(e):
            raise torch.OutOfMemoryError(str(e)) from None
        raise


def _add_eager(a: Tensor, b: Tensor) -> Tensor:
    try:
        needs_grad = (a.requires_grad or b.requires_grad) and torch.is_grad_enabled()
    except AttributeError:  # not tensors: the op itself raises the error that names the argument
        return _add(a, b)
    if needs_grad:
        return _Add.apply(a, b)
    # Nothing to differentiate: skip autograd entirely, as C++ ops do. Every other dispatch key
    # (FakeTensorMode, functionalization, ...) still sees the call.
    with _below_autograd():
        return _add(a, b)


sum_double_op = add
"""The seed tutorial's name for :func:`add`."""
