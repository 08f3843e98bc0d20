"""Host cost of torch.ops.sum_double.add at n = 1024 on the CPU, from Python, next to torch.add.

torch.utils.benchmark.Timer on this thread's CPU time (time spent descheduled on a shared machine
is left out), median of each blocked_autorange; the statements take turns within each round
(order reversed every other round) and each figure is the median over rounds. Under
torch.no_grad() the op's autograd kernel (Python, called back from the dispatcher) still runs;
torch.inference_mode() leaves out the autograd keys, so the call goes straight to the C++ kernel.

With --libs (run.sh builds them), two op layers loaded side by side as plain libraries,
sum_double_this::add and sum_double_other::add, each with the package's autograd registered and
nothing else: an A/B comparison within one process.

    python benchmarks/experiments/op_layer_cost/timer.py [--rounds 15] [--libs THIS.so OTHER.so]
"""

import argparse
import statistics
import time

import torch
import torch.utils.benchmark as benchmark

from sum_double import _definition


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--libs", nargs=2, metavar=("THIS", "OTHER"))
    args = parser.parse_args()

    x, y = torch.randn(1024), torch.randn(1024)
    calls = {
        "torch.add": torch.add,
        # Any op called through torch.ops pays for a Python op object and a boxed call.
        "torch.ops.aten.add.Tensor": torch.ops.aten.add.Tensor,
        "torch.ops.sum_double.add": torch.ops.sum_double.add.default,
    }
    if args.libs:
        for lib, name in zip(args.libs, ("this", "other"), strict=True):
            torch.ops.load_library(lib)
            qualname = f"sum_double_{name}::add"
            torch.library.register_autograd(
                qualname, _definition.backward, setup_context=_definition.setup_context
            )
            calls[qualname] = getattr(torch.ops, f"sum_double_{name}").add.default
    for mode in (torch.no_grad, torch.inference_mode):
        times: dict[str, list[float]] = {name: [] for name in calls}
        with mode():
            for r in range(args.rounds):
                for name in list(calls)[:: 1 if r % 2 == 0 else -1]:
                    timer = benchmark.Timer(
                        "f(x, y)",
                        globals={"f": calls[name], "x": x, "y": y},
                        timer=time.thread_time,
                    )
                    times[name].append(timer.blocked_autorange(min_run_time=0.2).median * 1e6)
        median = {name: statistics.median(t) for name, t in times.items()}
        print(f"torch.{mode.__name__}(), n = 1024, cpu, torch {torch.__version__}, CPU time")
        for name, us in median.items():
            print(f"  {name:<28} {us:6.2f} us  {us / median['torch.add']:5.2f}x torch.add")


if __name__ == "__main__":
    main()
