"""The op's own parts on the Python side: its name, what it computes, its result dtype and its
derivative. An op of your own changes this file; the rest of the package reads it. (Two optional
parts hold a twin each: the ATen op inductor fuses it as, in ``_inductor_fusion.py``, and its
sharding rule, in ``_distributed.py``.)"""

from typing import Any

import torch
from torch import Tensor

NAME = "add"  # sum_double.add, torch.ops.sum_double.add: the one place Python names the op
FORMULA = "a + b"  # what it computes, as docstrings and messages write it
TWIN = torch.add  # the torch op it matches bit for bit: the demo's reference
TWIN_NAME = f"torch.{TWIN.__name__}"  # as docstrings and messages name it


def result_dtype(a: torch.dtype, b: torch.dtype, a_is_0d: bool, b_is_0d: bool) -> torch.dtype:
    """The result's dtype: torch.result_type of floating tensors of these dtypes and dims (a 0-dim
    tensor does not raise a dimensioned one's dtype), as any elementwise torch op has it."""
    if a_is_0d != b_is_0d:
        return b if a_is_0d else a
    return torch.promote_types(a, b)


# ---- The derivative, as autograd.Function methods (``_autograd.py`` makes the Functions) -------


def setup_context(ctx: Any, inputs: tuple[Tensor, Tensor], output: object) -> None:
    a, b = inputs  # only metadata, for jvp's lone tangent
    ctx.meta = (a.shape, a.dtype, b.shape, b.dtype)


def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    # The gradient as it is, uncopied. Autograd's engine then sums each over the dims its input was
    # broadcast along and casts it to its dtype, as for torch's ops: the same code, the same bits.
    return grad, grad


def jvp(ctx: Any, a_tangent: Tensor | None, b_tangent: Tensor | None) -> Tensor | None:
    if a_tangent is not None and b_tangent is not None:
        return a_tangent + b_tangent  # torch.add's own promotion and broadcasting
    tangent = b_tangent if a_tangent is None else a_tangent
    if tangent is None:
        return None
    a_shape, a_dtype, b_shape, b_dtype = ctx.meta
    dtype = result_dtype(a_dtype, b_dtype, len(a_shape) == 0, len(b_shape) == 0)
    return tangent.expand(torch.broadcast_shapes(a_shape, b_shape)).to(dtype)
