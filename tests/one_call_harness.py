"""The harness of test_no_copies.py: one call under the profiler (and on CUDA between two readings
of the caching allocator's counters), and everything it saw beyond the op and its output: any other
operator (a ``to()``, ``contiguous()``, ``clone()``, ``copy_()`` or ``expand()`` of an input would
show as one) and any allocation other than the output."""

import gc
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch
from torch._C._profiler import _EventType, _ProfilerEvent
from torch.profiler import ProfilerActivity, profile

from sum_double._definition import NAME

# The name the profiler records for the op's work, whatever the route: below autograd every route
# calls sum_double::_<NAME> (where torch.ops.sum_double.<NAME> is called, its record encloses that
# one).
RECORD = f"sum_double::_{NAME}"
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

    ours = [e for e in ops if e.name == RECORD]
    if len(ours) != 1:
        problems.append(f"{RECORD} ran {len(ours)} times, not once")
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
                problems.append(f"a second allocating op inside {RECORD}: {e.name}")
        elif _inside(op, e) and not e.name.startswith("aten::"):
            pass  # a record around the op: an autograd Function, torch.ops.sum_double.<NAME>
        else:
            where = "inside" if _inside(e, op) else "beside"
            problems.append(f"{e.name} ran {where} {RECORD}")

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
            problems.append(f"the output was allocated outside {RECORD}")
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
