"""CPU timing of sum_double.add against torch.add, interleaved, for kernel A/B comparisons.

    python benchmarks/experiments/cpu_ab.py [--rounds 5] [--sizes 1024 65536 1048576 4194304]
                                            [--threads N]

Each round times, per dtype and size, sum_double.add and then torch.add on the same operands with
torch.utils.benchmark (blocked_autorange, median) on torch.get_num_threads() threads (or
--threads), in alternating order; the table gives each one's median over the rounds and the
median of the rounds' ratios. Pairing the two in each round lets load from other processes on the
machine hit both alike.
"""

import argparse
import statistics

import torch
from torch.utils import benchmark

import sum_double

DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def time_us(fn: object, a: torch.Tensor, b: torch.Tensor, threads: int) -> float:
    timer = benchmark.Timer(
        stmt="fn(a, b)", globals={"fn": fn, "a": a, "b": b}, num_threads=threads
    )
    return timer.blocked_autorange(min_run_time=0.2).median * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2**16, 2**20, 2**22])
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    threads = args.threads
    cases = [(dtype, n) for dtype in DTYPES for n in args.sizes]
    operands = {
        case: (torch.randn(case[1]).to(case[0]), torch.randn(case[1]).to(case[0])) for case in cases
    }
    ours: dict[tuple, list[float]] = {case: [] for case in cases}
    theirs: dict[tuple, list[float]] = {case: [] for case in cases}
    for round_ in range(args.rounds):
        for case in cases:
            a, b = operands[case]
            if round_ % 2:
                theirs[case].append(time_us(torch.add, a, b, threads))
            ours[case].append(time_us(sum_double.add, a, b, threads))
            if not round_ % 2:
                theirs[case].append(time_us(torch.add, a, b, threads))
    print(
        f"sum_double {sum_double.__version__}, cpu kernel {sum_double._C.cpu_isa()}, "
        f"torch {torch.__version__}, {threads} threads, {args.rounds} rounds"
    )
    print(f"{'dtype':<10}{'n':>9}{'sum_double us':>15}{'torch.add us':>14}{'ratio':>8}")
    for dtype, n in cases:
        mine, ref = ours[dtype, n], theirs[dtype, n]
        ratio = statistics.median(x / y for x, y in zip(mine, ref, strict=True))
        name = str(dtype).removeprefix("torch.")
        print(
            f"{name:<10}{n:>9}{statistics.median(mine):>15.2f}{statistics.median(ref):>14.2f}"
            f"{ratio:>8.3f}"
        )
    print("ratio = median over rounds of sum_double time / torch.add time (below 1: faster)")


if __name__ == "__main__":
    main()
