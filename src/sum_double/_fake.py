"""The op's fake kernel: the result's shape, dtype and strides without computing it, for
torch.compile, FX and export. It repeats the C++ checks in their words, so torch.compile refuses bad
input while tracing rather than when the graph runs."""

import torch
from torch import Tensor

from ._definition import result_dtype
from ._errors import broadcast_message, device_message, dtype_message, none_message
from ._layout import output_strides
from ._ops import OPS

DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)  # the launchers' (dtype.h)


def fake(a: Tensor, b: Tensor) -> Tensor:
    # The schema lets None through as an undefined tensor, which check_defined() names.
    torch._check(a is not None, lambda: none_message("a"))
    torch._check(b is not None, lambda: none_message("b"))
    torch._check(a.device == b.device, lambda: device_message(a, b))
    torch._check(a.dtype in DTYPES, lambda: dtype_message(a.dtype, "a"))
    torch._check(b.dtype in DTYPES, lambda: dtype_message(b.dtype, "b"))
    try:
        shape = torch.broadcast_shapes(a.shape, b.shape)
    except RuntimeError:
        raise RuntimeError(broadcast_message(a.shape, b.shape)) from None
    dtype = result_dtype(a.dtype, b.dtype, a.dim() == 0, b.dim() == 0)
    return a.new_empty_strided(shape, output_strides(a, b, shape, dtype), dtype=dtype)


for _overload in OPS:
    torch.library.register_fake(_overload, fake)
