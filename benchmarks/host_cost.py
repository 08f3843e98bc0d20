"""Host cost per call: what the Python -> dispatcher -> launch path costs, kernel time aside.

At n = 1024 the kernel takes about a microsecond, so back-to-back calls are bound by the host.
Each figure is the median over rounds of (wall time of `calls` back-to-back calls, then one sync)
divided by `calls`. The callables compared with each other take their rounds in turn, so that
whatever else the machine does falls on each alike (on a shared VM it swings by 2x).

    python benchmarks/host_cost.py [--device cuda] [--n 1024]
"""

import argparse
import statistics
import time
from collections.abc import Callable

import torch

import sum_double


def per_call_us(
    fns: dict[str, Callable[[], object]], device: torch.device, calls: int = 2000, rounds: int = 15
) -> dict[str, float]:
    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    for fn in fns.values():  # warm-up: caches, allocator, lazy init
        for _ in range(calls // 4):
            fn()
    sync()
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            sync()
            samples[name].append((time.perf_counter() - t0) / calls * 1e6)
    return {name: statistics.median(s) for name, s in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--n", type=int, default=1024)
    args = parser.parse_args()
    device = torch.device(args.device)

    x, y = torch.randn(args.n, device=device), torch.randn(args.n, device=device)
    xg, yg = x.clone().requires_grad_(), y.clone().requires_grad_()
    op = torch.ops.sum_double.add.default
    below_autograd = torch._C._AutoDispatchBelowAutograd

    def op_below_autograd() -> torch.Tensor:
        with below_autograd():
            return op(x, y)

    # Where the no-grad gap lives: any op reached through torch.ops pays for the Python op object
    # and a boxed call, and ours pays that too, below autograd; the wrapper adds the rest.
    no_grad = per_call_us(
        {
            "x + y": lambda: x + y,
            "sum_double.add": lambda: sum_double.add(x, y),
            "torch.ops.aten.add.Tensor(x, y)": lambda: torch.ops.aten.add.Tensor(x, y),
            "torch.ops.sum_double.add, below autograd": op_below_autograd,
        },
        device,
    )
    grad = per_call_us(
        {"x + y": lambda: xg + yg, "sum_double.add": lambda: sum_double.add(xg, yg)}, device
    )

    print(f"host cost per call, n = {args.n}, {device}, torch {torch.__version__}")
    print(f"  {'case':<20} {'x + y':>9} {'sum_double.add':>15} {'ratio':>6}")
    for case, times in (("no grad", no_grad), ("inputs require grad", grad)):
        ref, ours = times["x + y"], times["sum_double.add"]
        print(f"  {case:<20} {ref:>6.2f} us {ours:>12.2f} us {ours / ref:>6.2f}")
    print("  for scale, no grad (measured in turn with the no-grad row):")
    for name in ("torch.ops.aten.add.Tensor(x, y)", "torch.ops.sum_double.add, below autograd"):
        print(f"    {name:<41} {no_grad[name]:>6.2f} us")


if __name__ == "__main__":
    main()
