"""Compare what cuda_runtime_ab.sh (beside this script) measured: two builds, rounds alternating.

    python benchmarks/experiments/cuda_runtime_ab.py OUTDIR NVCC_A NVCC_B

Per row (case, dtype, n): the median over rounds of each build's kernel time and of torch.add's
(measured beside each), and b / a: above 1 means build a is faster. Then the host cost per call
(n = 1024) of each build and its ratio to torch.add's, medians over rounds.
"""

import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def kernel_rows(out: Path) -> dict[tuple[str, str, int], dict[str, list[float]]]:
    rows: dict[tuple[str, str, int], dict[str, list[float]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for path in sorted(out.glob("bench-*-*.json")):
        build = path.stem.split("-")[1]
        for r in json.loads(path.read_text()):
            key = (r["case"], r["dtype"], r["n"])
            rows[key][build].append(r["ours_us"])
            rows[key]["torch." + build].append(r["twin_us"])
    return rows


def host_ratios(out: Path, build: str) -> dict[str, list[float]]:
    found: dict[str, list[float]] = defaultdict(list)
    for path in sorted(out.glob(f"host-cost-{build}-*.txt")):
        for line in path.read_text().splitlines():
            m = re.match(r"\s+(no grad|inputs require grad)\s+([\d.]+) us\s+([\d.]+) us", line)
            if m:
                found[m[1]].append(float(m[3]) / float(m[2]))
                found[m[1] + " us"].append(float(m[3]))
    return found


def main() -> int:
    out, nvcc_a, nvcc_b = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    med = statistics.median
    print(f"a: {nvcc_a}\nb: {nvcc_b}")
    head = f"{'case':<10} {'dtype':<9} {'n':>10} {'a us':>9} {'b us':>9} {'b / a':>6} "
    head += f"{'torch.add us':>12} {'a vs torch':>10}"
    print(head)
    print("-" * len(head))
    worst = float("inf")
    for (case, dtype, n), t in sorted(kernel_rows(out).items()):
        a, b = med(t["a"]), med(t["b"])
        ref = med(t["torch.a"] + t["torch.b"])
        worst = min(worst, b / a)
        print(
            f"{case:<10} {dtype:<9} {n:>10} {a:>9.2f} {b:>9.2f} {b / a:>5.3f}x {ref:>12.2f} "
            f"{ref / a:>9.3f}x"
        )
    print(f"lowest b / a: {worst:.3f} (above 1: a faster; medians over rounds)")
    print("host cost per call, n = 1024 (ratio to torch.add in the same run; medians over rounds)")
    for build in ("a", "b"):
        h = host_ratios(out, build)
        print(
            f"  {build}: no grad {med(h['no grad us']):.2f} us ({med(h['no grad']):.2f}x), "
            f"grad {med(h['inputs require grad us']):.2f} us "
            f"({med(h['inputs require grad']):.2f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
