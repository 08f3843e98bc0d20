"""The demo, ``python -m sum_double``: the op checked against its torch twin on random data
(values, gradients), then timed against it at a few sizes.

A quick look, not a benchmark (``benchmarks/bench.py`` is one: kernel time, inputs cold in cache).
It must stay quick and say nothing wrong on a busy laptop: the two ops take turns sample by sample,
each sample a run of calls that a stall is only a part of, and the speed is the median of the
per-pair ratios with its 95% interval, or, where the machine is too busy to tell, a line saying so.
"""

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from time import perf_counter

import torch

import sum_double
from sum_double import _C
from sum_double._definition import FORMULA, TWIN, TWIN_NAME
from sum_double._public import call

_SIZES = (2**10, 2**16, 1_000_000, 2**24)  # 1_000_000: the size the original tutorial timed
# A sample: calls back to back for at least this long, so that a stall is a part of one sample,
# not the whole of it.
_SAMPLE_S = 2e-3
# A row stops after _MAX_PAIRS pairs or _ROW_S seconds, whichever comes first: the rows and
# torch's import fit in 15 s on a busy two-core machine.
_ROW_S = 1.25
_MAX_PAIRS = 100
# Below this many pairs, not even the lowest and highest ratio bracket the median 95% of the time.
_MIN_PAIRS = 6
# A speed is not printed when its 95% interval reaches further than this from it (a fraction),
# or when either op's median call took this many times its fastest: then the calls mostly
# waited for a core, and the figure would time the scheduler, not the ops.
_TOO_NOISY = 0.20
_WAITED = 2.0


def _line(text: str = "") -> None:
    print(text, flush=True)  # each line as it is known, also into a pipe


def _device_label(device: torch.device) -> str:
    if device.type == "cuda":
        major, minor = torch.cuda.get_device_capability(device)
        return f"{device} ({torch.cuda.get_device_name(device)}, sm_{major}{minor})"
    return f"cpu ({torch.get_num_threads()} threads)"


def _seconds(
    add: Callable[[], object], calls: int, sync: Callable[[], None], until: float
) -> float:
    """Seconds per call of ``calls`` calls back to back (on CUDA: launched, then waited for), or of
    fewer once ``until`` has passed: on a machine too busy for the row's budget, calls can take
    a time slice each."""
    start = perf_counter()
    done = 0
    while done < calls:
        batch = min(16, calls - done)  # the clock read once per batch, not as part of each call
        for _ in range(batch):
            add()
        done += batch
        if perf_counter() > until:
            break
    sync()
    return (perf_counter() - start) / done


def _skip_for_95(n: int) -> int:
    """How many of n sorted ratios to drop at each end so that the rest brackets their true median
    95% of the time: the count below the median is binomial(n, 1/2) (the sign test)."""
    skip, below = 0, 1 / 2**n  # below: P(at most `skip` of the n fall below the median)
    while 2 * (below + math.comb(n, skip + 1) / 2**n) <= 0.05:
        skip += 1
        below += math.comb(n, skip) / 2**n
    return skip


@dataclass
class Comparison:
    ours_s: float  # median seconds per call, each op over its own samples
    ref_s: float
    speed: float  # median over the pairs of the twin's time / ours
    spread: float  # how far the 95% interval of that median reaches from it, as a fraction
    waited: float  # the larger of the two ops' median call / its fastest call, first one included
    pairs: int


def compare(
    ours: Callable[[], object], ref: Callable[[], object], sync: Callable[[], None]
) -> Comparison:
    """Times ours against ref in pairs of samples, within the row's budget.

    A sample has as many calls as the fastest call seen so far says fill _SAMPLE_S. A stall only
    makes calls slower, so one at the start (the first calls allocate, threads wake up, another
    process has the core) makes the first samples short, never the later ones.
    """
    ours_first, ref_first = _seconds(ours, 1, sync, math.inf), _seconds(ref, 1, sync, math.inf)
    fastest = min(ours_first, ref_first)
    deadline = perf_counter() + _ROW_S
    ours_s: list[float] = []
    ref_s: list[float] = []
    # At least one pair, even if a stall used the whole budget before the first.
    while not ours_s or (len(ours_s) < _MAX_PAIRS and perf_counter() < deadline):
        calls = max(1, math.ceil(_SAMPLE_S / max(fastest, 1e-9)))
        # Who goes first alternates: neither always finds the caches as the other left them.
        if len(ours_s) % 2 == 0:
            ours_s.append(_seconds(ours, calls, sync, deadline))
            ref_s.append(_seconds(ref, calls, sync, deadline))
        else:
            ref_s.append(_seconds(ref, calls, sync, deadline))
            ours_s.append(_seconds(ours, calls, sync, deadline))
        fastest = min(fastest, ours_s[-1], ref_s[-1])
    ratios = sorted(r / o for o, r in zip(ours_s, ref_s, strict=True))
    speed = statistics.median(ratios)
    skip = _skip_for_95(len(ratios))
    spread = max(speed - ratios[skip], ratios[-1 - skip] - speed) / speed
    ours_median, ref_median = statistics.median(ours_s), statistics.median(ref_s)
    waited = max(ours_median / min(ours_first, *ours_s), ref_median / min(ref_first, *ref_s))
    return Comparison(ours_median, ref_median, speed, spread, waited, len(ratios))


def speed_text(row: Comparison) -> str:
    """The speed and its interval, or why there is none."""
    if row.pairs < _MIN_PAIRS:
        return "too noisy: too few pairs"
    if row.waited > _WAITED:
        return f"too noisy: median call {row.waited:.0f}x the fastest"
    spread = f"±{math.ceil(row.spread * 100)}%"
    if row.spread > _TOO_NOISY:
        return f"too noisy: {spread}"
    return f"{row.speed:.2f}x {spread}"


def _time_text(seconds: float) -> str:
    return f"{seconds * 1e6:7.1f} us" if seconds < 1e-2 else f"{seconds * 1e3:7.1f} ms"


def _timing_table(device: torch.device) -> None:
    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    # On the CPU, one thread: a call split across threads waits for each of them, and while other
    # work holds a core, that is a time slice per call for both ops, which reads as a speed of 1.
    threads = torch.get_num_threads()
    if device.type == "cpu":
        torch.set_num_threads(1)
    on = ", one CPU thread" if device.type == "cpu" else ""
    _line(f"  {'n':>10} {'sum_double':>10} {TWIN_NAME:>10} {'pairs':>5}   speed (float32{on})")
    noisy = False
    try:
        for n in _SIZES:
            x, y = torch.randn(n, device=device), torch.randn(n, device=device)
            row = compare(partial(call, x, y), partial(TWIN, x, y), sync)
            ours, ref, speed = _time_text(row.ours_s), _time_text(row.ref_s), speed_text(row)
            noisy = noisy or speed.startswith("too noisy")
            _line(f"  {n:>10} {ours} {ref} {row.pairs:>5}   {speed}")
    finally:
        torch.set_num_threads(threads)
    _line("  per call: median wall time of calls back to back on the same inputs (caches warm)")
    _line(
        f"  speed: {TWIN_NAME}'s time / sum_double's, median over pairs of samples taken in turn,"
    )
    _line("  ± its 95% interval (above 1: sum_double is faster). A quick look, not a benchmark:")
    _line("  that is benchmarks/bench.py, in the source repository")
    if noisy:
        _line("  too noisy: other work on this machine made the times disagree; try again when it")
        _line("  is idle")


def demo(device: torch.device) -> int:
    build = "CPU-only build" if _C.cpu_only else "CPU + CUDA build"
    _line(f"sum_double {sum_double.__version__} ({build}) on {_device_label(device)}")
    if _C.cpu_only and torch.cuda.is_available():
        _line("  torch sees a GPU, which this build has no code for: reinstall sum-double with")
        _line("  nvcc on PATH to use it")

    # Values: random data (zeros or ones would hide unwritten or misindexed elements).
    a = torch.randn(1_000_000, device=device, requires_grad=True)
    b = torch.randn(1_000_000, device=device, requires_grad=True)
    c, ref = call(a, b), TWIN(a, b)
    values_ok = torch.equal(c, ref)
    grad = torch.randn_like(c)
    grads = torch.autograd.grad(c, (a, b), grad)
    grads_ok = all(map(torch.equal, grads, torch.autograd.grad(ref, (a, b), grad)))
    checks = {
        f"{FORMULA} equals {TWIN_NAME} bit for bit:": values_ok,
        f"gradients equal {TWIN_NAME}'s:": grads_ok,
    }
    width = max(map(len, checks))
    for what, ok in checks.items():
        _line(f"  {what:<{width}} {'yes' if ok else 'NO'}")

    _line()
    _timing_table(device)
    return 0 if values_ok and grads_ok else 1
