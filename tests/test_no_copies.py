"""One call, one allocation, no copy: mixed dtypes, broadcasting and odd layouts read in place.

The op converts mixed dtypes in registers and reads broadcast and strided inputs with their
strides, so a call's only work outside its kernel is allocating the result.
Each check runs one call under the profiler (and on CUDA between two readings of the caching
allocator's counters) and lists what it saw beyond that: any other operator (a ``to()``,
``contiguous()``, ``clone()``, ``copy_()`` or ``expand()`` of an input would show as one) and any
allocation other than the output. ``torch.add`` copies mixed-dtype inputs on the CPU, and the last
tests here hold the harness to seeing that, so a check that passes is one that could fail.
"""

import gc
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
import torch
from torch._C._profiler import _EventType, _ProfilerEvent
from torch.profiler import ProfilerActivity, profile

import sum_double
from support import assert_bitwise_equal

Add = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
Inputs = Callable[[str], tuple[torch.Tensor, torch.Tensor]]

OP = "sum_double::add"  # the name the profiler records for a call of the op, whatever the route
# What may run inside the op's record: the output's allocation, if it goes through the dispatcher
# (on CUDA it does; on the CPU the C shim allocates below it and the profiler shows no op).
ALLOCATING = {"aten::empty_strided", "aten::empty"}


def _walk(events: list[_ProfilerEvent]) -> Iterator[_ProfilerEvent]:
    for event in events:
        yield event
        yield from _walk(event.children)


def _inside(event: _ProfilerEvent, outer: _ProfilerEvent) -> bool:
    parent = event.parent
    while parent is not None:
        if parent.id == outer.id:
            return True
        parent = parent.parent
    return False


@dataclass
class Seen:
    out: torch.Tensor
    problems: list[str]


def what_one_call_does(call: Callable[[], torch.Tensor], device: str) -> Seen:
    """Runs ``call`` once under the profiler and lists everything beyond the op and its output.

    The op must run once; inside it, at most one allocating operator; nothing else at all, apart
    from the records that enclose it (the Python wrapper's autograd Function, which runs no ATen
    op). Exactly one allocation, made inside the op, at the output's address and of its size, and
    nothing freed (a temporary would be). On CUDA the caching allocator's counters must say the
    same: one allocation, of exactly the output's bytes, none freed.
    """
    call()  # first-call work (lazy initialisation, the allocator's caches) is not the call's
    cuda = device == "cuda"
    # The garbage collector must not free earlier tensors inside the window: the profiler and
    # CUDA's counters would count those frees as the call's.
    gc.disable()
    try:
        if cuda:
            torch.cuda.synchronize()
            before = torch.cuda.memory_stats()
        # acc_events: one cycle either way, and without it torch 2.11 warns (an error here).
        with profile(
            activities=[ProfilerActivity.CPU], profile_memory=True, acc_events=True
        ) as prof:
            out = call()
        if cuda:
            torch.cuda.synchronize()
            after = torch.cuda.memory_stats()
    finally:
        gc.enable()
    events = list(_walk(prof.profiler.kineto_results.experimental_event_tree()))
    ops = [e for e in events if e.tag == _EventType.TorchOp]
    memory = [e for e in events if e.tag == _EventType.Allocation]
    problems: list[str] = []

    ours = [e for e in ops if e.name == OP]
    if len(ours) != 1:
        problems.append(f"{OP} ran {len(ours)} times, not once")
    op = ours[0] if ours else None
    allocating = 0
    for e in ops:
        if op is None:
            problems.append(f"{e.name} ran")
        elif e.id == op.id:
            continue
        elif _inside(e, op) and e.name in ALLOCATING:
            allocating += 1
            if allocating > 1:
                problems.append(f"a second allocating op inside {OP}: {e.name}")
        elif _inside(op, e) and not e.name.startswith("aten::"):
            pass  # a record around the op: the wrapper's autograd Function
        else:
            where = "inside" if _inside(e, op) else "beside"
            problems.append(f"{e.name} ran {where} {OP}")

    allocations = [e for e in memory if e.extra_fields.alloc_size > 0]
    frees = [e for e in memory if e.extra_fields.alloc_size < 0]
    nbytes = out.nbytes
    if len(allocations) != 1:
        sizes = [e.extra_fields.alloc_size for e in allocations]
        problems.append(f"{len(allocations)} allocations (bytes: {sizes}), not 1 (the output)")
    for e in allocations:
        fields = e.extra_fields
        if fields.ptr != out.data_ptr():
            problems.append(f"an allocation of {fields.alloc_size} bytes that is not the output")
        elif op is not None and not _inside(e, op):
            problems.append(f"the output was allocated outside {OP}")
        # The CPU allocator reports the bytes asked for. On CUDA the caching allocator's counters
        # (below) check the bytes asked for; what it reports to the profiler may be its block.
        elif not cuda and fields.alloc_size != nbytes:
            problems.append(f"the output's allocation is {fields.alloc_size} bytes, not {nbytes}")
    if frees:  # the CPU allocator reports frees to the profiler; CUDA's, its counters below
        problems.append(f"{len(frees)} frees in the call: a temporary was made")
    if cuda:

        def delta(key: str) -> int:
            return after.get(key, 0) - before.get(key, 0)

        if delta("allocation.all.allocated") != 1:
            problems.append(f"CUDA allocations: {delta('allocation.all.allocated')}, not 1")
        if delta("requested_bytes.all.allocated") != nbytes:
            problems.append(
                f"CUDA bytes requested: {delta('requested_bytes.all.allocated')}, not {nbytes}"
            )
        if delta("allocation.all.freed") != 0:
            problems.append(f"CUDA frees: {delta('allocation.all.freed')}, not 0")
    return Seen(out, problems)


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


@pytest.fixture(params=["sum_double.add", "sum_double.add-grad", "torch.ops.sum_double.add"])
def route(request: pytest.FixtureRequest) -> tuple[Add, bool]:
    """Each way in: the wrapper without and with autograd recording, and the registered op."""
    if request.param == "torch.ops.sum_double.add":
        return torch.ops.sum_double.add, False
    return sum_double.add, request.param.endswith("-grad")


@pytest.mark.parametrize("inputs", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_one_call_allocates_its_output_and_copies_nothing(
    device: str, route: tuple[Add, bool], inputs: Inputs
) -> None:
    add, grad = route
    a, b = inputs(device)
    if grad:
        a.requires_grad_()
        b.requires_grad_()
    seen = what_one_call_does(lambda: add(a, b), device)
    assert not seen.problems, "\n".join(seen.problems)
    # Nothing left out to get there: torch.add's values, dtype, shape and strides.
    ref = torch.add(a, b)
    assert_bitwise_equal(seen.out.detach(), ref.detach())
    assert seen.out.stride() == ref.stride()


# ---- The harness is live: it sees the copies torch.add and a contiguous() make ---------------


def test_the_harness_sees_torch_adds_copy() -> None:
    # torch.add converts a mixed-dtype input to the result's dtype before its CPU loop runs: a
    # temporary of the input's size, made by aten::to -> aten::_to_copy -> aten::copy_.
    a = torch.randn(33, 65)
    b = torch.randn(33, 65, dtype=torch.bfloat16)
    problems = what_one_call_does(lambda: torch.add(a, b), "cpu").problems
    assert "aten::_to_copy ran" in problems
    assert "aten::copy_ ran" in problems
    # Each half of the check fails on its own: the ops, and the allocation count and frees.
    assert f"{OP} ran 0 times, not once" in problems
    assert f"2 allocations (bytes: [{33 * 65 * 4}, {33 * 65 * 4}]), not 1 (the output)" in problems
    assert "1 frees in the call: a temporary was made" in problems


def test_the_harness_sees_a_contiguous_copy_before_the_op(device: str) -> None:
    # What the op once did (flat_operands called contiguous()), done by hand: the
    # op runs once, but beside it a clone, and a second allocation that is freed in the call.
    a = torch.randn(72, 48, device=device).t()
    b = torch.randn(48, 72, device=device)
    problems = what_one_call_does(
        lambda: torch.ops.sum_double.add(a.contiguous(), b), device
    ).problems
    assert "aten::contiguous ran beside sum_double::add" in problems
    assert "aten::clone ran beside sum_double::add" in problems
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
    problems = what_one_call_does(
        lambda: (torch.ops.sum_double.add(a, a), torch.ops.sum_double.add(a, a))[1], device
    ).problems
    assert f"{OP} ran 2 times, not once" in problems
    assert any(p.startswith("2 allocations") for p in problems), problems
    # A result that is half of what was allocated (a slice of the output): the size check.
    problems = what_one_call_does(lambda: torch.ops.sum_double.add(a, a)[:4], device).problems
    assert "aten::slice ran beside sum_double::add" in problems
    if device == "cuda":
        assert f"CUDA bytes requested: {8 * 24 * 4}, not {4 * 24 * 4}" in problems
    else:
        assert f"the output's allocation is {8 * 24 * 4} bytes, not {4 * 24 * 4}" in problems
