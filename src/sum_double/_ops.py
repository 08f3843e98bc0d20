"""The Python half of torch.ops.sum_double.add: its fake kernel, its autograd, the public call."""

import torch
from torch import Tensor

_add = torch.ops.sum_double.add.default


@torch.library.register_fake("sum_double::add")
def _add_fake(a: Tensor, b: Tensor) -> Tensor:
    # Same checks as the C++ ones (add_op.cpp), so torch.compile rejects bad input while tracing.
    torch._check(a.dtype == b.dtype, lambda: f"sum_double.add(): dtype mismatch {a.dtype} vs {b.dtype}")
    torch._check(a.shape == b.shape, lambda: f"sum_double.add(): shape mismatch {a.shape} vs {b.shape}")
    return a.new_empty(a.shape)


def _setup_context(ctx: object, inputs: tuple[Tensor, Tensor], output: Tensor) -> None:
    pass  # d(a + b)/da = d(a + b)/db = 1: the backward needs nothing from the forward.


def _backward(ctx: object, grad: Tensor) -> tuple[Tensor, Tensor]:
    # The incoming gradient is passed through to both inputs: no copy, no kernel.
    return grad, grad


torch.library.register_autograd("sum_double::add", _backward, setup_context=_setup_context)


def add(a: Tensor, b: Tensor) -> Tensor:
    """Return ``a + b`` as a new contiguous tensor, bit-identical to ``torch.add(a, b)``.

    Args:
        a: float16, bfloat16, float32 or float64 tensor, on CPU or CUDA, of any shape and strides.
        b: a tensor of the same shape, dtype and device as ``a`` (no broadcasting, no promotion).

    Gradients flow to both inputs; the call works under ``torch.compile(fullgraph=True)``.

    Raises:
        RuntimeError: if the shapes, dtypes or devices differ, the dtype is not a floating type
            listed above, a tensor is not dense, or CUDA tensors reach a CPU-only build.
    """
    return _add(a, b)


sum_double_op = add
"""The seed tutorial's name for :func:`add`."""
