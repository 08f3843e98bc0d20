"""How bench.py and cases.py time one op: the measurement methods, apart from what they measure.

On CUDA, each measurement is a CUDA graph of up to 20 calls on distinct input sets, replayed after
L2 has been flushed, timed with events, divided by the calls in it; the figure is the median over
the replays. Graph replay keeps host overhead out, so this compares kernels (host cost has its own
benchmark, benchmarks/host_cost.py).

On the CPU, each call is timed with ``perf_counter``; the ops take turns (each round in the
opposite order) and every call reads the next input set of one shared rotation, so no call finds
its inputs left in cache by the call before it. The figure is the median.
"""

import statistics
import time
from collections.abc import Callable

import torch

# Memory for the rotating input sets: on a GPU enough to go well past L2 at every size; on the
# CPU, where nothing is flushed anyway, little enough for a laptop.
_SET_BUDGET_BYTES = {"cuda": 4 << 30, "cpu": 512 << 20}
_MAX_CALLS_PER_GRAPH = 20


def l2_flush_buffer(device: torch.device) -> torch.Tensor:
    """A buffer twice the L2: rewriting it evicts whatever an earlier launch left there."""
    l2 = torch.cuda.get_device_properties(device).L2_cache_size
    return torch.empty(2 * l2 // 4 + 1, device=device, dtype=torch.float32)


def input_sets(set_bytes: int, device: torch.device) -> int:
    """How many input sets of ``set_bytes`` (inputs and output) to rotate through: as many as one
    graph replays, within the device's memory budget, and at least one."""
    budget = _SET_BUDGET_BYTES["cuda" if device.type == "cuda" else "cpu"]
    return max(1, min(_MAX_CALLS_PER_GRAPH, budget // max(set_bytes, 1)))


def cuda_seconds(
    fn: Callable[[int], object],
    sets: int,
    device: torch.device,
    reps: int,
    flush: torch.Tensor | None,
) -> float:
    """Median seconds per call of ``fn(i)``: a CUDA graph of calls on sets i = 0, 1, ... is
    replayed ``reps`` times, each replay after ``flush`` (twice the L2) has been rewritten, or
    back to back when ``flush`` is None (whatever L2 keeps from the last replay stays)."""
    calls = min(sets, _MAX_CALLS_PER_GRAPH)
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):  # warm-up outside capture, as CUDA graphs require
        for i in range(calls):
            fn(i)
    torch.cuda.current_stream(device).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(calls):
            fn(i)
    samples = []
    for _ in range(reps):
        if flush is not None:
            flush.zero_()  # evict the inputs from L2
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / 1e3 / calls)
    del graph
    return statistics.median(samples)


def cpu_seconds(fns: list[Callable[[int], object]], sets: int, reps: int) -> list[float]:
    """Median seconds per call of each fn. Had two fns read the same set one after the other, the
    second would find it in cache and look faster; so every call takes the next set of a rotation
    that all fns share, and the order within a round alternates."""
    for i in range(min(sets, 3)):
        for fn in fns:
            fn(i)
    samples: list[list[float]] = [[] for _ in fns]
    turn = 0
    for r in range(reps):
        order = range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))
        for k in order:
            t0 = time.perf_counter()
            fns[k](turn % sets)
            samples[k].append(time.perf_counter() - t0)
            turn += 1
    return [statistics.median(times) for times in samples]
