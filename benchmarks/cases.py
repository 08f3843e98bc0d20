"""The cases `python -m sum_double bench` does not sweep, each against torch in the same process.

    python benchmarks/cases.py [--reps 30]

forward + backward; inputs that share a transposed layout; one transposed and one not; views that
start one element past a 16-byte boundary; sizes that are not a multiple of the vector width; the
seed's n = 1e6. Forward-only cases use bench.py's method (CUDA graph replays after an L2 flush);
forward + backward is timed with events around 5 steps, after warm-up, median of --reps.
"""

import argparse
import statistics

import torch

import sum_double
from sum_double.bench import cuda_seconds, l2_flush_buffer


def fwd_bwd_seconds(add, n: int, reps: int, steps: int = 5) -> float:
    a = torch.randn(n, device="cuda", requires_grad=True)
    b = torch.randn(n, device="cuda", requires_grad=True)
    g = torch.randn(n, device="cuda")

    def step() -> None:
        a.grad = b.grad = None
        add(a, b).backward(g)

    for _ in range(3):
        step()
    samples = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(steps):  # several steps per sample: the GPU, not the host, sets the pace
            step()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / 1e3 / steps)
    return statistics.median(samples)


def forward_cases() -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    def r(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, device="cuda")

    return {
        "transposed 16384x16384, both": (r(16384, 16384).t(), r(16384, 16384).t()),
        "transposed 16384x16384, a only": (r(16384, 16384).t(), r(16384, 16384)),
        "offset by 1 element, n=2^24": (r(2**24 + 1)[1:], r(2**24 + 1)[1:]),
        "odd size, n=2^24+3": (r(2**24 + 3), r(2**24 + 3)),
        "odd size, n=2^20+1": (r(2**20 + 1), r(2**20 + 1)),
        "seed size, n=1e6": (r(1_000_000), r(1_000_000)),
        "n=2^20": (r(2**20), r(2**20)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()
    device = torch.device("cuda")
    flush = l2_flush_buffer(device)
    print(
        f"{torch.cuda.get_device_name(device)}, torch {torch.__version__}, "
        f"sum_double {sum_double.__version__}; float32"
    )
    print(f"{'case':<34} {'sum_double':>12} {'torch':>12} {'speed':>7} {'GB/s':>7}")
    for name, (a, b) in forward_cases().items():
        assert torch.equal(sum_double.add(a, b), torch.add(a, b))
        ours = cuda_seconds(lambda i, a=a, b=b: sum_double.add(a, b), 1, device, args.reps, flush)
        ref = cuda_seconds(lambda i, a=a, b=b: torch.add(a, b), 1, device, args.reps, flush)
        gbs = 3 * a.numel() * a.element_size() / ours / 1e9
        print(
            f"{name:<34} {ours * 1e6:>9.1f} us {ref * 1e6:>9.1f} us {ref / ours:>6.3f}x {gbs:>7.0f}"
        )
        del a, b
        torch.cuda.empty_cache()
    ours = fwd_bwd_seconds(sum_double.add, 2**26, args.reps)
    ref = fwd_bwd_seconds(torch.add, 2**26, args.reps)
    print(
        f"{'forward + backward, n=2^26':<34} {ours * 1e6:>9.1f} us {ref * 1e6:>9.1f} us "
        f"{ref / ours:>6.3f}x"
    )
    print("speed = torch time / sum_double time (above 1: faster)")


if __name__ == "__main__":
    main()
