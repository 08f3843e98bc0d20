"""The Python half of torch.ops.downstream_demo: the fake kernel (torch.compile, opcheck), calls."""

import torch
from torch import Tensor

from . import _C  # noqa: F401  (the ops must exist before their fake kernels are registered)


def _check_like(name: str, t: Tensor, a: Tensor) -> None:
    # The checks of add3.cpp that metadata decides, so tracing rejects what eager would.
    torch._check(
        t.device == a.device and t.dtype == a.dtype and t.shape == a.shape,
        lambda: (
            f"downstream_demo.add3(): expected {name} like a ({a.device}, {a.dtype}, "
            f"{list(a.shape)}), but it is {t.device}, {t.dtype}, {list(t.shape)}"
        ),
    )


@torch.library.register_fake("downstream_demo::add3")
def _add3_fake(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    _check_like("b", b, a)
    _check_like("c", c, a)
    torch._check(
        a.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64),
        lambda: (
            f"downstream_demo.add3(): a is {a.dtype}; expected float16, bfloat16, float32, float64"
        ),
    )
    return a.new_empty(a.shape)  # contiguous, as the kernels return it


def add3(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    """Return ``(a + b) + c``, bit-identical to ``torch.add(torch.add(a, b), c)``.

    a, b and c: one shape, one dtype (float16, bfloat16, float32 or float64), one device (CPU, or
    CUDA in a build with sum-double's CUDA launcher). No broadcasting, no promotion, no autograd.
    """
    return torch.ops.downstream_demo.add3(a, b, c)


def add_via_sum_double(a: Tensor, b: Tensor) -> Tensor:
    """Return ``sum_double.add(a, b)``'s result, computed by calling its op from C++."""
    return torch.ops.downstream_demo.add_via_sum_double(a, b)
