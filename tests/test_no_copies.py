"""One call, one allocation, no copy: mixed dtypes, broadcasting and odd layouts read in place.

The op converts mixed dtypes in registers and reads broadcast and strided inputs with their
strides, so a call's only work outside its kernel is allocating the result. Each check runs one
call through one_call_harness.py, which lists what else ran or was allocated. The reference (torch's
twin of the op) copies mixed-dtype inputs on the CPU, and the last tests here hold the harness to
seeing that, so a check that passes is one that could fail.
"""

from collections.abc import Callable

import pytest
import torch

from one_call_harness import RECORD, what_one_call_does
from reference import reference
from support import OP_PACKET, Op, assert_bitwise_equal, op

Inputs = Callable[[str], tuple[torch.Tensor, torch.Tensor]]


def _randn(shape: tuple[int, ...], dtype: torch.dtype, device: str) -> torch.Tensor:
    return torch.randn(shape, dtype=dtype, device=device)


MIXED_PAIRS = [
    (torch.float32, torch.bfloat16),
    (torch.bfloat16, torch.float32),
    (torch.float16, torch.float64),
    (torch.bfloat16, torch.float16),
    (torch.float16, torch.float32),
    (torch.float64, torch.bfloat16),
]


def _channels_last(shape: tuple[int, ...], dtype: torch.dtype, device: str) -> torch.Tensor:
    return _randn(shape, dtype, device).contiguous(memory_format=torch.channels_last)


# (id, make inputs): each pair of inputs the op must read as they are.
CASES: list[tuple[str, Inputs]] = [
    *(
        (
            f"{str(da).removeprefix('torch.')}+{str(db).removeprefix('torch.')}",
            lambda d, da=da, db=db: (_randn((33, 65), da, d), _randn((33, 65), db, d)),
        )
        for da, db in MIXED_PAIRS
    ),
    # Past the CPU loop's grain size, so the parallel path runs too.
    (
        "float32+bfloat16-large",
        lambda d: (_randn((256, 513), torch.float32, d), _randn((256, 513), torch.bfloat16, d)),
    ),
    (
        "bias-(B,T,D)+(D,)",
        lambda d: (_randn((4, 16, 96), torch.float32, d), _randn((96,), torch.float32, d)),
    ),
    (
        "bias-mixed-bfloat16(B,T,D)+float32(D,)",
        lambda d: (_randn((4, 16, 96), torch.bfloat16, d), _randn((96,), torch.float32, d)),
    ),
    (
        "(N,1)+(1,M)",
        lambda d: (_randn((40, 1), torch.float32, d), _randn((1, 56), torch.float32, d)),
    ),
    (
        "(N,1)float16+(1,M)bfloat16",
        lambda d: (_randn((40, 1), torch.float16, d), _randn((1, 56), torch.bfloat16, d)),
    ),
    (
        "0dim+tensor",
        lambda d: (_randn((), torch.float32, d), _randn((8, 24), torch.float32, d)),
    ),
    (
        "tensor+0dim-float64-wider",
        lambda d: (_randn((8, 24), torch.float16, d), _randn((), torch.float64, d)),
    ),
    (
        "0dim-float64-wider+tensor",
        lambda d: (_randn((), torch.float64, d), _randn((8, 24), torch.bfloat16, d)),
    ),
    (
        "0dim-float16+tensor-float32",
        lambda d: (_randn((), torch.float16, d), _randn((8, 24), torch.float32, d)),
    ),
    (
        "transposed+contiguous",
        lambda d: (_randn((72, 48), torch.float32, d).t(), _randn((48, 72), torch.float32, d)),
    ),
    (
        "contiguous+transposed-mixed",
        lambda d: (_randn((48, 72), torch.bfloat16, d), _randn((72, 48), torch.float32, d).t()),
    ),
    (
        "sliced-with-steps",
        lambda d: (
            _randn((64, 90), torch.float32, d)[::2, ::3],
            _randn((32, 30), torch.float32, d),
        ),
    ),
    (
        "sliced-with-steps-both-mixed",
        lambda d: (
            _randn((96, 60), torch.float16, d)[1::3, ::2],
            _randn((64, 61), torch.float32, d)[::2, 1::2],
        ),
    ),
    (
        "channels_last+contiguous",
        lambda d: (
            _channels_last((2, 6, 9, 11), torch.float32, d),
            _randn((2, 6, 9, 11), torch.float32, d),
        ),
    ),
    (
        "contiguous+channels_last-mixed",
        lambda d: (
            _randn((2, 6, 9, 11), torch.bfloat16, d),
            _channels_last((2, 6, 9, 11), torch.float32, d),
        ),
    ),
    (
        "channels_last+bias(C,1,1)",
        lambda d: (
            _channels_last((2, 6, 9, 11), torch.float32, d),
            _randn((6, 1, 1), torch.bfloat16, d),
        ),
    ),
]


@pytest.fixture(params=["public", "public-grad", "torch.ops"])
def route(request: pytest.FixtureRequest) -> tuple[Op, bool]:
    """Each way in: the wrapper without and with autograd recording, and the registered op."""
    if request.param == "torch.ops":
        return OP_PACKET, False
    return op, request.param.endswith("-grad")


@pytest.mark.parametrize("inputs", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_one_call_allocates_its_output_and_copies_nothing(
    device: str, route: tuple[Op, bool], inputs: Inputs
) -> None:
    call, grad = route
    a, b = inputs(device)
    if grad:
        a.requires_grad_()
        b.requires_grad_()
    seen = what_one_call_does(lambda: call(a, b), device)
    assert not seen.problems, "\n".join(seen.problems)
    # Nothing left out to get there: the reference's values, dtype, shape and strides.
    ref = reference(a, b)
    assert_bitwise_equal(seen.out.detach(), ref.detach())
    assert seen.out.stride() == ref.stride()


# ---- The harness is live: it sees the copies the reference and a contiguous() make ------------


def test_the_harness_sees_the_references_copy() -> None:
    # torch's op converts a mixed-dtype input to the result's dtype before its CPU loop runs: a
    # temporary of the input's size, made by aten::to -> aten::_to_copy -> aten::copy_.
    a = torch.randn(33, 65)
    b = torch.randn(33, 65, dtype=torch.bfloat16)
    problems = what_one_call_does(lambda: reference(a, b), "cpu").problems
    assert "aten::_to_copy ran" in problems
    assert "aten::copy_ ran" in problems
    # Each half of the check fails on its own: the ops, and the allocation count and frees.
    assert f"{RECORD} ran 0 times, not once" in problems
    assert f"2 allocations (bytes: [{33 * 65 * 4}, {33 * 65 * 4}]), not 1 (the output)" in problems
    assert "1 frees in the call: a temporary was made" in problems


def test_the_harness_sees_a_contiguous_copy_before_the_op(device: str) -> None:
    # What the op once did (flat_operands called contiguous()), done by hand: the
    # op runs once, but beside it a clone, and a second allocation that is freed in the call.
    a = torch.randn(72, 48, device=device).t()
    b = torch.randn(48, 72, device=device)
    problems = what_one_call_does(lambda: OP_PACKET(a.contiguous(), b), device).problems
    assert f"aten::contiguous ran beside {RECORD}" in problems
    assert f"aten::clone ran beside {RECORD}" in problems
    assert any(p.startswith("2 allocations") for p in problems), problems
    assert any(p.startswith("an allocation of") for p in problems), problems
    if device == "cuda":
        assert "CUDA allocations: 2, not 1" in problems
        assert "CUDA frees: 1, not 0" in problems
    else:
        assert "1 frees in the call: a temporary was made" in problems


def test_the_harness_sees_a_second_call_and_a_wrong_size(device: str) -> None:
    a = torch.randn(8, 24, device=device)
    # Two calls: the op twice, two allocations.
    problems = what_one_call_does(lambda: (OP_PACKET(a, a), OP_PACKET(a, a))[1], device).problems
    assert f"{RECORD} ran 2 times, not once" in problems
    assert any(p.startswith("2 allocations") for p in problems), problems
    # A result that is half of what was allocated (a slice of the output): the size check.
    problems = what_one_call_does(lambda: OP_PACKET(a, a)[:4], device).problems
    assert f"aten::slice ran beside {RECORD}" in problems
    if device == "cuda":
        assert f"CUDA bytes requested: {8 * 24 * 4}, not {4 * 24 * 4}" in problems
    else:
        assert f"the output's allocation is {8 * 24 * 4} bytes, not {4 * 24 * 4}" in problems
