"""sum_double.add against torch.add over sizes and dtypes.

    python benchmarks/bench.py [--help]

A script, not part of the wheel: it times the installed sum_double. --plot needs matplotlib.

Method. Both ops run the same inputs in the same process. On CUDA, each measurement is a CUDA
graph of up to 20 calls on distinct input sets, replayed after L2 has been flushed, timed with
events, divided by the calls in it; the figure is the median over the replays. Graph replay keeps
host overhead out, so this compares kernels (host cost has its own benchmark,
benchmarks/host_cost.py). The read-once-write-once ceiling is ``torch.neg(a, out=o)`` measured the
same way: a kernel that moves what a device-to-device copy moves. (Not ``out.copy_(a)`` itself,
which runs well below an uncaptured copy when captured in a graph:
benchmarks/NOTES.md, "The GPU bench".)

On the CPU, each call is timed with ``perf_counter``; the ops take turns (each round in the
opposite order) and every call reads the next input set of one shared rotation, so no call finds
its inputs left in cache by the call before it. The figure is the median.

GB/s counts the bytes a call must move at least: a and b read once, the output written once (a
broadcast input counts once, however often it is read); the ceiling counts 2 x n x size.

Cases (``--cases``): ``same``, both inputs n elements of the dtype; ``mixed``, b bfloat16 (float16
when the dtype is bfloat16), so the result has the promoted dtype; ``bias``, (n / 8192, 8192) +
(8192,); ``transposed``, the transpose of a square matrix + a contiguous one.
"""

import argparse
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import torch

import sum_double

# Memory bandwidth by the vendors' datasheets, bytes/s, matched against the device name.
DATASHEET_BYTES_PER_S = {
    "GH200": 4.0e12,
    "H200": 4.8e12,
    "H100 NVL": 3.9e12,
    "H100 PCIe": 2.0e12,
    "H100": 3.35e12,
    "B200": 8.0e12,
    "A100-SXM4-80GB": 2.039e12,
    "A100 80GB PCIe": 1.935e12,
    "A100": 1.555e12,
    "L40S": 0.864e12,
    "RTX 4090": 1.008e12,
}
DTYPES = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
}
# Memory for the rotating input sets: on a GPU enough to go well past L2 at every size; on the
# CPU, where nothing is flushed anyway, little enough for a laptop.
_SET_BUDGET_BYTES = {"cuda": 4 << 30, "cpu": 512 << 20}
_MAX_CALLS_PER_GRAPH = 20
CASES = ("same", "mixed", "bias", "transposed")
_BIAS = 8192  # the bias's length: a model dimension


@dataclass
class Row:
    device: str
    torch: str
    sum_double: str
    dtype: str
    n: int
    ours_us: float
    torch_add_us: float
    read_write_us: float | None
    speedup: float  # torch.add time / our time: above 1 means we are faster
    ours_gb_s: float
    torch_add_gb_s: float
    read_write_gb_s: float | None
    datasheet_gb_s: float | None
    pct_of_datasheet: float | None
    case: str = "same"  # last, with a default: files written before cases existed still load


def datasheet_bytes_per_s(device: torch.device) -> float | None:
    if device.type != "cuda":
        return None
    name = torch.cuda.get_device_name(device)
    for key, value in DATASHEET_BYTES_PER_S.items():  # most specific names come first
        if key in name:
            return value
    return None


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


def _cpu_seconds(fns: list[Callable[[int], object]], sets: int, reps: int) -> list[float]:
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


def make_inputs(
    case: str, dtype: torch.dtype, n: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """One input set of ``case`` with n output elements (fewer for ``transposed`` where n is no
    square: the largest square below it)."""
    if case == "mixed":
        other = torch.float16 if dtype == torch.bfloat16 else torch.bfloat16
        return torch.randn(n, device=device, dtype=dtype), torch.randn(
            n, device=device, dtype=other
        )
    if case == "bias":
        width = min(n, _BIAS)
        a = torch.randn(n // width, width, device=device, dtype=dtype)
        return a, torch.randn(width, device=device, dtype=dtype)
    if case == "transposed":
        side = int(n**0.5)
        a = torch.randn(side, side, device=device, dtype=dtype).t()
        return a, torch.randn(side, side, device=device, dtype=dtype)
    return torch.randn(n, device=device, dtype=dtype), torch.randn(n, device=device, dtype=dtype)


def bytes_moved(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> int:
    return sum(t.numel() * t.element_size() for t in (a, b, out))


def measure(
    case: str,
    dtype: torch.dtype,
    n: int,
    device: torch.device,
    reps: int,
    flush: torch.Tensor | None,
) -> tuple[float, float, float | None, int, torch.Tensor]:
    """Median seconds per call of sum_double.add, torch.add and (on CUDA) the r+w ceiling, the
    bytes a call moves, and one output (for its size and dtype)."""
    a0, b0 = make_inputs(case, dtype, n, device)
    out0 = torch.add(a0, b0)
    if not torch.equal(sum_double.add(a0, b0), out0):  # time the right thing
        raise RuntimeError(f"sum_double.add differs from torch.add: {case} {dtype}, n={n}")
    moved = bytes_moved(a0, b0, out0)
    sets = input_sets(moved, device)
    pairs = [(a0, b0), *(make_inputs(case, dtype, n, device) for _ in range(sets - 1))]

    def ours(i: int) -> object:
        return sum_double.add(*pairs[i])

    def ref(i: int) -> object:
        return torch.add(*pairs[i])

    if device.type != "cuda":
        ours_s, ref_s = _cpu_seconds([ours, ref], sets, reps)
        return ours_s, ref_s, None, moved, out0
    plain = [torch.empty_like(out0) for _ in range(sets)]
    out = [torch.empty_like(out0) for _ in range(sets)]

    def read_write(i: int) -> object:
        return torch.neg(plain[i], out=out[i])

    return (
        cuda_seconds(ours, sets, device, reps, flush),
        cuda_seconds(ref, sets, device, reps, flush),
        cuda_seconds(read_write, sets, device, reps, flush),
        moved,
        out0,
    )


def default_sizes(device: torch.device) -> list[int]:
    top = 29 if device.type == "cuda" else 24
    return [2**k for k in range(10, top + 1)]


def run(
    device: torch.device,
    dtypes: list[str],
    sizes: list[int],
    reps: int,
    progress: Callable[[str], None],
    cases: tuple[str, ...] = ("same",),
) -> list[Row]:
    peak = datasheet_bytes_per_s(device)
    flush = l2_flush_buffer(device) if device.type == "cuda" else None
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    rows = []
    work = [(c, d, n) for c in cases for d in dtypes for n in sizes]
    for k, (case, dname, n) in enumerate(work, 1):
        progress(f"[{k}/{len(work)}] {case} {dname} n={n}")
        dtype = DTYPES[dname]
        ours, ref, ceiling, moved, out = measure(case, dtype, n, device, reps, flush)
        numel, out_bytes = out.numel(), out.numel() * out.element_size()
        del out
        rows.append(
            Row(
                device=name,
                torch=torch.__version__,
                sum_double=sum_double.__version__,
                dtype=dname,
                n=numel,
                ours_us=ours * 1e6,
                torch_add_us=ref * 1e6,
                read_write_us=None if ceiling is None else ceiling * 1e6,
                speedup=ref / ours,
                ours_gb_s=moved / ours / 1e9,
                torch_add_gb_s=moved / ref / 1e9,
                read_write_gb_s=None if ceiling is None else 2 * out_bytes / ceiling / 1e9,
                datasheet_gb_s=None if peak is None else peak / 1e9,
                pct_of_datasheet=None if peak is None else 100 * moved / ours / peak,
                case=case,
            )
        )
        if device.type == "cuda":
            torch.cuda.empty_cache()  # the next size's sets need the memory
    return rows


def format_table(rows: list[Row]) -> str:
    head = (
        f"{'case':<10} {'dtype':<9} {'n':>10} {'sum_double':>12} {'torch.add':>12} {'speed':>6} "
        f"{'GB/s':>7} {'torch GB/s':>10} {'r+w GB/s':>9} {'% sheet':>7}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        ceiling = "" if r.read_write_gb_s is None else f"{r.read_write_gb_s:9.0f}"
        pct = "" if r.pct_of_datasheet is None else f"{r.pct_of_datasheet:6.1f}%"
        lines.append(
            f"{r.case:<10} {r.dtype:<9} {r.n:>10} {r.ours_us:>9.2f} us {r.torch_add_us:>9.2f} us "
            f"{r.speedup:>5.3f}x {r.ours_gb_s:>7.0f} {r.torch_add_gb_s:>10.0f} "
            f"{ceiling:>9} {pct:>7}"
        )
    lines.append(
        "speed = torch.add time / sum_double time (above 1: faster than torch.add); "
        "GB/s counts a and b read once and the output written once"
    )
    return "\n".join(lines)


def plot(rows: list[Row], path: str) -> None:
    import matplotlib  # only --plot needs it; main() has checked it is there

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = list(dict.fromkeys((r.case, r.dtype) for r in rows))
    cols = min(2, len(panels))
    nrows = -(-len(panels) // cols)
    fig, axes = plt.subplots(
        nrows, cols, figsize=(6.5 * cols, 4.2 * nrows), squeeze=False, sharey=True
    )
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax, (case, dname) in zip(axes.flat, panels, strict=False):
        sel = [r for r in rows if (r.case, r.dtype) == (case, dname)]
        ns = [r.n for r in sel]
        ax.plot(ns, [r.ours_gb_s for r in sel], "o-", label="sum_double.add")
        ax.plot(ns, [r.torch_add_gb_s for r in sel], "s--", label="torch.add")
        if sel[0].read_write_gb_s is not None:
            ax.plot(
                ns,
                [r.read_write_gb_s for r in sel],
                ":",
                color="gray",
                label="read+write ceiling (torch.neg)",
            )
        if sel[0].datasheet_gb_s is not None:
            ax.axhline(sel[0].datasheet_gb_s, color="red", lw=0.8, label="datasheet")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements")
        ax.set_title(dname if case == "same" else f"{case}, {dname}")
        ax.grid(True, which="both", alpha=0.3)
    for row in axes:
        row[0].set_ylabel("GB/s (bytes moved / time)")
    axes[0][0].legend(loc="upper left")
    fig.suptitle(
        f"sum_double {rows[0].sum_double} vs torch.add, {rows[0].device}, torch {rows[0].torch}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/bench.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dtypes", nargs="+", choices=list(DTYPES), default=list(DTYPES))
    parser.add_argument(
        "--sizes",
        nargs="+",
        type=int,
        help="element counts (default: 2^10 up to 2^29 on CUDA, 2^24 on the CPU)",
    )
    parser.add_argument(
        "--cases", nargs="+", choices=CASES, default=["same"], help="input shapes (see above)"
    )
    parser.add_argument("--reps", type=int, default=30, help="timed repetitions per figure")
    parser.add_argument("--json", metavar="FILE", help="write one record per row")
    parser.add_argument("--plot", metavar="FILE.png", help="plot GB/s against size (matplotlib)")
    parser.add_argument(
        "--from-json",
        metavar="FILE",
        help="measure nothing: table and plot from a file that --json wrote",
    )
    args = parser.parse_args(argv)
    if args.plot and importlib.util.find_spec("matplotlib") is None:  # say so before measuring
        parser.error("--plot needs matplotlib: pip install matplotlib")
    device = torch.device(args.device)
    sizes = args.sizes or default_sizes(device)

    def progress(msg: str) -> None:
        print(f"\r{msg:<60}", end="", file=sys.stderr, flush=True)

    if args.from_json:
        with open(args.from_json) as f:
            rows = [Row(**record) for record in json.load(f)]
    else:
        rows = run(device, args.dtypes, sizes, args.reps, progress, tuple(args.cases))
        print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
    print(format_table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([asdict(r) for r in rows], f, indent=1)
    if args.plot:
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
