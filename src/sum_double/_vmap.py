"""The op's vmap rule: torch.func.vmap over the op, one call for the whole batch."""

from typing import Protocol

import torch
from torch import Tensor

from ._definition import result_dtype
from ._ops import OP, OPS


class _VmapInfo(Protocol):
    """What torch.library passes a vmap rule: of it, this rule reads only the batch size."""

    batch_size: int


def vmap_rule(
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
    out_dtype = result_dtype(a.dtype, b.dtype, a_0d, b_0d)
    a, b = batch_first(a, a_dim), batch_first(b, b_dim)
    # A batch of 0-dim inputs is not 0-dim, so its dtype may now win: then round it to the
    # result's dtype first (a copy, in this corner only), as the op does in registers.
    if result_dtype(a.dtype, b.dtype, a.dim() == 0, b.dim() == 0) != out_dtype:
        if a_0d and a_dim is not None:
            a = a.to(out_dtype)
        if b_0d and b_dim is not None:
            b = b.to(out_dtype)
    return OP(a, b), 0  # the op with autograd: a batch may need gradients


for _overload in OPS:
    torch.library.register_vmap(_overload, vmap_rule)
