"""The op (sum_double.<NAME>) against its twin (the torch op it matches bit for bit) over sizes and
dtypes, each as the package's _definition.py names it: a copy made into another op times that one.

    python benchmarks/bench.py [--help]

A script, not part of the wheel: it times the installed sum_double. --plot needs matplotlib.

Method. Both ops run the same inputs in the same process, timed as benchmarks/timing.py says: on
CUDA, CUDA graphs of up to 20 calls on distinct input sets, replayed after an L2 flush (kernel
time, host overhead kept out); on the CPU, ``perf_counter`` around each call, the ops taking turns
over one shared rotation of input sets. The figure is the median. The read-once-write-once ceiling
is ``torch.neg(a, out=o)`` measured the same way: a kernel that moves what a device-to-device copy
moves. (Not ``out.copy_(a)`` itself, which runs well below an uncaptured copy when captured in a
graph: benchmarks/NOTES.md, "The GPU bench".)

GB/s counts the bytes a call must move at least: a and b read once, the output written once (a
broadcast input counts once, however often it is read); the ceiling counts 2 x n x size.

The input shapes (``--cases``) are described in workload.py's CASES, which ``--help`` prints.
"""

import argparse
import importlib.util
import json
import sys
from collections.abc import Callable
from dataclasses import asdict

import torch

import sum_double
from sum_double._cli import device_problem
from sum_double._definition import NAME, TWIN, TWIN_NAME
from sum_double._ops import QUALNAME

from report import Row, format_table, plot  # report.py, timing.py, workload.py sit beside it
from timing import cpu_seconds, cuda_seconds, input_sets, l2_flush_buffer
from workload import CASES, bytes_moved, datasheet_bytes_per_s, make_inputs

op = getattr(sum_double, NAME)  # the public call, by the name the package gives it

DTYPES = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
}


def measure(
    case: str,
    dtype: torch.dtype,
    n: int,
    device: torch.device,
    reps: int,
    flush: torch.Tensor | None,
) -> tuple[float, float, float | None, int, torch.Tensor]:
    """Median seconds per call of the op, its twin and (on CUDA) the r+w ceiling, the bytes a
    call moves, and one output (for its size and dtype)."""
    a0, b0 = make_inputs(case, dtype, n, device)
    out0 = TWIN(a0, b0)
    if not torch.equal(op(a0, b0), out0):  # time the right thing
        raise RuntimeError(f"{QUALNAME} differs from {TWIN_NAME}: {case} {dtype}, n={n}")
    moved = bytes_moved(a0, b0, out0)
    sets = input_sets(moved, device)
    pairs = [(a0, b0), *(make_inputs(case, dtype, n, device) for _ in range(sets - 1))]

    def ours(i: int) -> object:
        return op(*pairs[i])

    def ref(i: int) -> object:
        return TWIN(*pairs[i])

    if device.type != "cuda":
        ours_s, ref_s = cpu_seconds([ours, ref], sets, reps)
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
                twin_us=ref * 1e6,
                read_write_us=None if ceiling is None else ceiling * 1e6,
                speedup=ref / ours,
                ours_gb_s=moved / ours / 1e9,
                twin_gb_s=moved / ref / 1e9,
                read_write_gb_s=None if ceiling is None else 2 * out_bytes / ceiling / 1e9,
                datasheet_gb_s=None if peak is None else peak / 1e9,
                pct_of_datasheet=None if peak is None else 100 * moved / ours / peak,
                case=case,
            )
        )
        if device.type == "cuda":
            torch.cuda.empty_cache()  # the next size's sets need the memory
    return rows


_DESCRIPTION = f"""\
{QUALNAME} against {TWIN_NAME} over sizes and dtypes, on one device, in one process.

On CUDA each figure is the median over CUDA graph replays of up to 20 calls on distinct inputs,
each replay after an L2 flush (kernel time, no host overhead), beside a read-once-write-once
ceiling (torch.neg); on the CPU, the median of single calls, the two ops taking turns. The table
gives the time per call, GB/s (the bytes a call must move at least) and the speed ({TWIN_NAME}'s
time / sum_double's: above 1, sum_double is faster). More in the docstrings of this script and
of benchmarks/timing.py."""


def argument_parser() -> argparse.ArgumentParser:
    cases = "\n".join(f"  {name:<11} {words}" for name, words in CASES.items())
    parser = argparse.ArgumentParser(
        prog="python benchmarks/bench.py",
        description=_DESCRIPTION,
        epilog=f"cases (--cases), each with n output elements:\n{cases}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--device",
        default="cuda" if torch.cuda.is_available() else "cpu",
        metavar="{cpu,cuda,cuda:N}",
        help="where to measure (default: cuda if torch sees a GPU, else cpu; here %(default)s)",
    )
    parser.add_argument(
        "--dtypes",
        nargs="+",
        choices=list(DTYPES),
        default=list(DTYPES),
        help="the dtypes to measure, each at every size (default: all four)",
    )
    parser.add_argument(
        "--sizes",
        nargs="+",
        type=int,
        metavar="N",
        help="element counts (default: 2^10 up to 2^29 on CUDA, 2^24 on the CPU)",
    )
    parser.add_argument(
        "--cases",
        nargs="+",
        choices=list(CASES),
        default=["same"],
        help="input shapes, as listed below (default: same)",
    )
    parser.add_argument(
        "--reps",
        type=int,
        default=30,
        help="timed repetitions per figure: graph replays on CUDA, calls on the CPU (default: "
        "%(default)s)",
    )
    parser.add_argument("--json", metavar="FILE", help="write one record per row to FILE")
    parser.add_argument(
        "--plot", metavar="FILE.png", help="plot GB/s against size (needs matplotlib)"
    )
    parser.add_argument(
        "--from-json",
        metavar="FILE",
        help="measure nothing: table and plot from a file that --json wrote",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = argument_parser()
    args = parser.parse_args(argv)
    # The demo's check (python -m sum_double --device): a device the op runs on here,
    # said before anything is measured.
    problem = device_problem(args.device)
    if problem is not None:
        parser.error(problem)
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
