"""Host cost per call: what the Python -> dispatcher -> launch path costs, kernel time aside.

At n = 1024 the kernel takes about a microsecond, so back-to-back calls are bound by the host.
Each figure is the median over rounds of (wall time of `calls` back-to-back calls, then one sync)
divided by `calls`, for `x + y` and for sum_double.add in the same process.

    python benchmarks/host_cost.py [--device cuda] [--n 1024]
"""

import argparse
import statistics
import time

import torch

import sum_double


def per_call_us(fn, device: torch.device, calls: int = 2000, rounds: int = 15) -> float:
    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    for _ in range(calls // 4):  # warm-up: caches, allocator, lazy init
        fn()
    sync()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--n", type=int, default=1024)
    args = parser.parse_args()
    device = torch.device(args.device)

    x, y = torch.randn(args.n, device=device), torch.randn(args.n, device=device)
    xg, yg = x.clone().requires_grad_(), y.clone().requires_grad_()
    rows = [
        (
            "no grad",
            per_call_us(lambda: x + y, device),
            per_call_us(lambda: sum_double.add(x, y), device),
        ),
        (
            "inputs require grad",
            per_call_us(lambda: xg + yg, device),
            per_call_us(lambda: sum_double.add(xg, yg), device),
        ),
    ]
    # Where the no-grad gap lives: any op reached through torch.ops pays for the Python op object
    # and a boxed call, and ours pays that too, below autograd; the wrapper adds the rest.
    below_autograd = torch._C._AutoDispatchBelowAutograd
    op = torch.ops.sum_double.add.default

    def op_below_autograd() -> torch.Tensor:
        with below_autograd():
            return op(x, y)

    floor = [
        ("torch.ops.aten.add.Tensor(x, y)", lambda: torch.ops.aten.add.Tensor(x, y)),
        ("torch.ops.sum_double.add, below autograd", op_below_autograd),
    ]
    print(f"host cost per call, n = {args.n}, {device}, torch {torch.__version__}")
    print(f"  {'case':<20} {'x + y':>9} {'sum_double.add':>15} {'ratio':>6}")
    for case, ref, ours in rows:
        print(f"  {case:<20} {ref:>6.2f} us {ours:>12.2f} us {ours / ref:>6.2f}")
    print("  for scale, no grad:")
    for name, fn in floor:
        print(f"    {name:<41} {per_call_us(fn, device):>6.2f} us")


if __name__ == "__main__":
    main()
