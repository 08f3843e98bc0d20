"""torch.add's output strides, for the fake kernel: the rule of ``src/ops/layout.cpp``.

The fake kernel must give the op's real output strides, and the op gives torch.add's
(TensorIterator's rule); torch.add's own meta function does not, in the strides of size-1 dims.
A copy in Python rather than a call into C++: under dynamic shapes the sizes are symbols, and
handing them to C++ would specialise the graph to one shape.
"""

from collections.abc import Callable, Sequence

import torch
from torch import Tensor


def output_strides(a: Tensor, b: Tensor, shape: torch.Size, dtype: torch.dtype) -> list[int]:
    """torch_add_strides() of layout.cpp: the strides eager torch.add gives its result.

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
    """strides_of_copy() of layout.cpp: the strides of ``t.to(dtype)`` (at::infer_dense_strides
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
