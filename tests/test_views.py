"""Inputs of any strides, broadcast and dtypes, drawn by Hypothesis, against the reference; the fake
kernel's output against the real one's."""

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch._subclasses.fake_tensor import FakeTensorMode

from support import (
    FLOAT_DTYPES,
    OP_PACKET,
    check_op,
    op,
)


def draw_view(draw: st.DrawFn, shape: list[int], dtype: torch.dtype, device: str) -> torch.Tensor:
    """A tensor of `shape` that is an arbitrary view: permuted, sliced, offset, expanded."""
    # Start bigger than needed, then slice with steps and offsets down to `shape`.
    steps = [draw(st.integers(1, 3)) for _ in shape]
    starts = [draw(st.integers(0, 2)) for _ in shape]
    base = torch.randn(
        [st_ + s * k + 1 for s, k, st_ in zip(shape, steps, starts, strict=True)],
        dtype=dtype,
        device=device,
    )
    t = base[
        tuple(slice(st_, st_ + s * k, k) for s, k, st_ in zip(shape, steps, starts, strict=True))
    ]
    if t.dim() > 1 and draw(st.booleans()):
        perm = draw(st.permutations(range(t.dim())))
        # Same shape, but the memory order of the dims is `perm`.
        t = t.permute(*perm).contiguous().permute(*[perm.index(d) for d in range(t.dim())])
    if t.dim() and draw(st.booleans()):
        # Broadcast one element along a dim: stride 0, every element read many times.
        d = draw(st.integers(0, t.dim() - 1))
        if t.shape[d]:
            t = t.narrow(d, 0, 1).expand(t.shape)
    return t


# The profile's own suppressions (conftest.py) and the fixture one: a test's list replaces the
# profile's.
VIEW_HEALTH_CHECKS = [*settings.default.suppress_health_check, HealthCheck.function_scoped_fixture]


@st.composite
def strided_pairs(draw: st.DrawFn, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Two same-shape tensors of one dtype, each an arbitrary view."""
    dtype = draw(st.sampled_from(FLOAT_DTYPES))
    shape = draw(st.lists(st.integers(0, 6), min_size=0, max_size=4))
    return draw_view(draw, shape, dtype, device), draw_view(draw, shape, dtype, device)


@st.composite
def broadcast_pairs(draw: st.DrawFn, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Two tensors whose shapes broadcast (leading dims missing, dims of size 1, 0-dim), each of
    any floating dtype and an arbitrary view."""
    shape = draw(st.lists(st.integers(0, 5), min_size=0, max_size=4))

    def operand() -> torch.Tensor:
        kept = shape[len(shape) - draw(st.integers(0, len(shape))) :]
        mine = [1 if draw(st.integers(0, 3)) == 0 else s for s in kept]
        return draw_view(draw, mine, draw(st.sampled_from(FLOAT_DTYPES)), device)

    return operand(), operand()


# `device` is a plain string, so reusing it across examples is safe.
@settings(deadline=None, suppress_health_check=VIEW_HEALTH_CHECKS)
@given(data=st.data())
def test_any_view_matches_the_reference(device: str, data: st.DataObject) -> None:
    check_op(*data.draw(strided_pairs(device)))


# `device` is a plain string, so reusing it across examples is safe.
@settings(deadline=None, suppress_health_check=VIEW_HEALTH_CHECKS)
@given(data=st.data())
def test_any_broadcast_and_dtypes_match_the_reference(device: str, data: st.DataObject) -> None:
    check_op(*data.draw(broadcast_pairs(device)))


# `device` is a plain string, so reusing it across examples is safe.
@settings(deadline=None, suppress_health_check=VIEW_HEALTH_CHECKS)
@given(data=st.data())
def test_fake_kernel_predicts_the_real_output(device: str, data: st.DataObject) -> None:
    # torch.compile plans memory from the fake kernel: its shape, dtype and strides must be the
    # real kernel's, for every layout rule the C++ side applies.
    a, b = data.draw(st.one_of(strided_pairs(device), broadcast_pairs(device)))
    real = op(a, b)
    with FakeTensorMode() as mode:
        fake = OP_PACKET(mode.from_tensor(a), mode.from_tensor(b))
    assert (fake.shape, fake.dtype, fake.stride()) == (real.shape, real.dtype, real.stride())
