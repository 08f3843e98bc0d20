"""Timing that means something: warm-up, device synchronisation, the median of many runs."""

import statistics
import time
from collections.abc import Callable

import torch


def median_seconds(
    fn: Callable[[], object], device: torch.device, reps: int = 50, warmup: int = 5
) -> float:
    """Median wall time of ``fn()`` on ``device`` over ``reps`` runs, after ``warmup`` runs.

    CUDA work is timed with events on the current stream, so queueing on the host is not counted
    as work; CPU work is timed with ``perf_counter``.
    """
    for _ in range(warmup):
        fn()
    if device.type == "cuda":
        events = [
            (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
            for _ in range(reps)
        ]
        torch.cuda.synchronize(device)
        for start, end in events:
            start.record()
            fn()
            end.record()
        torch.cuda.synchronize(device)
        return statistics.median(s.elapsed_time(e) for s, e in events) / 1e3
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def gb_per_s(nbytes: int, seconds: float) -> float:
    return nbytes / seconds / 1e9
