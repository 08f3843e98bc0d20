"""The cases `benchmarks/bench.py` does not sweep, each against the op's twin in the same process.

    python benchmarks/cases.py [--reps 30]   (needs a CUDA device)

forward + backward; inputs that share a transposed layout; one transposed and one not; views that
start one element past a 16-byte boundary; sizes that are not a multiple of the vector width; the
seed's n = 1e6; one warm-L2 row for comparison with benchmarks that do not flush. Forward-only
cases use bench.py's method, from timing.py (CUDA graph replays over rotating input sets after an
L2 flush); forward + backward is timed with events around 5 steps, after warm-up, median of --reps.
"""

import argparse
import statistics
from collections.abc import Callable

import torch

import sum_double
from sum_double._definition import NAME, TWIN

from timing import cuda_seconds, input_sets, l2_flush_buffer  # timing.py beside this script

op = getattr(sum_double, NAME)  # the public call, by the name the package gives it


def fwd_bwd_seconds(fn, n: int, reps: int, steps: int = 5) -> float:
    a = torch.randn(n, device="cuda", requires_grad=True)
    b = torch.randn(n, device="cuda", requires_grad=True)
    g = torch.randn(n, device="cuda")

    def step() -> None:
        a.grad = b.grad = None
        fn(a, b).backward(g)

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


def forward_cases() -> dict[str, Callable[[], tuple[torch.Tensor, torch.Tensor]]]:
    def r(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, device="cuda")

    return {
        "transposed 16384x16384, both": lambda: (r(16384, 16384).t(), r(16384, 16384).t()),
        "transposed 16384x16384, a only": lambda: (r(16384, 16384).t(), r(16384, 16384)),
        "offset by 1 element, n=2^24": lambda: (r(2**24 + 1)[1:], r(2**24 + 1)[1:]),
        "odd size, n=2^24+3": lambda: (r(2**24 + 3), r(2**24 + 3)),
        "odd size, n=2^20+1": lambda: (r(2**20 + 1), r(2**20 + 1)),
        "seed size, n=1e6": lambda: (r(1_000_000), r(1_000_000)),
        "n=2^20": lambda: (r(2**20), r(2**20)),
    }


def forward_row(
    name: str,
    inputs: list[tuple[torch.Tensor, torch.Tensor]],
    reps: int,
    flush: torch.Tensor | None,
) -> None:
    a0, b0 = inputs[0]
    assert torch.equal(op(a0, b0), TWIN(a0, b0))
    device = a0.device
    ours = cuda_seconds(lambda i: op(*inputs[i]), len(inputs), device, reps, flush)
    ref = cuda_seconds(lambda i: TWIN(*inputs[i]), len(inputs), device, reps, flush)
    gbs = 3 * a0.numel() * a0.element_size() / ours / 1e9
    print(
        f"{name:<34} {len(inputs):>5} {ours * 1e6:>9.1f} us {ref * 1e6:>9.1f} us "
        f"{ref / ours:>6.3f}x {gbs:>7.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/cases.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--reps",
        type=int,
        default=30,
        help="timed repetitions per figure: graph replays, or forward + backward samples "
        "(default: %(default)s)",
    )
    args = parser.parse_args()
    device = torch.device("cuda")
    flush = l2_flush_buffer(device)
    print(
        f"{torch.cuda.get_device_name(device)}, torch {torch.__version__}, "
        f"sum_double {sum_double.__version__}; float32"
    )
    print(f"{'case':<34} {'calls':>5} {'sum_double':>12} {'torch':>12} {'speed':>7} {'GB/s':>7}")
    for name, make in forward_cases().items():
        first = make()
        # Rotating sets, as the bench does: one set would time a single launch per replay, its
        # start-up and the L2 flush's write-back included.
        sets = input_sets(3 * first[0].numel() * first[0].element_size(), device)
        inputs = [first] + [make() for _ in range(sets - 1)]
        forward_row(name, inputs, args.reps, flush)
        del first, inputs
        torch.cuda.empty_cache()
    # The same inputs back to back with no flush: what a benchmark that forgets L2 would report.
    # At 2^24 (192 MB a call, L2 60 MB) only what the last call left in L2 can be reused.
    pair = (torch.randn(2**24, device=device), torch.randn(2**24, device=device))
    warm = [pair] * input_sets(3 * 2**24 * 4, device)  # as many calls per replay as the rows above
    forward_row("n=2^24, same inputs, no flush", warm, args.reps, None)
    del pair, warm
    ours = fwd_bwd_seconds(op, 2**26, args.reps)
    ref = fwd_bwd_seconds(TWIN, 2**26, args.reps)
    print(
        f"{'forward + backward, n=2^26':<34} {'':>5} {ours * 1e6:>9.1f} us {ref * 1e6:>9.1f} us "
        f"{ref / ours:>6.3f}x"
    )
    print("speed = torch time / sum_double time (above 1: faster)")
    print("calls: calls per graph replay, each on its own input set unless the case says otherwise")


if __name__ == "__main__":
    main()
