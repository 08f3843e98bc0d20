"""torch.add from Python against one other way of calling an add, on the CPU: the bench's rotation
(every call takes the next of 20 input sets, so each reads its inputs from memory), the two taking
turns call by call, each round in the opposite order. Prints the other's median time over
torch.add's. With ``--other torch`` it is torch.add against itself: the spread of the method.

    python benchmarks/experiments/python_path_ab.py --n 1048576 --reps 3000
                                                    --other torch aten ops add
"""

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import torch

import sum_double

# timing.py, the bench's CPU method, is in benchmarks/, the folder above this script.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from timing import cpu_seconds

SETS = 20

OTHERS: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "torch": torch.add,
    "aten": torch.ops.aten.add.Tensor,  # aten's own add, called the way a custom op is
    "ops": torch.ops.sum_double.add,  # the op itself, its Python autograd kernel included
    "add": sum_double.add,
}


def ratio(other: str, n: int, dtype: torch.dtype, reps: int) -> float:
    a = [torch.randn(n, dtype=dtype) for _ in range(SETS)]
    b = [torch.randn(n, dtype=dtype) for _ in range(SETS)]
    add = OTHERS[other]
    ref_s, other_s = cpu_seconds(
        [lambda i: torch.add(a[i], b[i]), lambda i: add(a[i], b[i])], SETS, reps
    )
    return other_s / ref_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1 << 20)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--reps", type=int, default=3000)
    parser.add_argument("--other", nargs="+", choices=list(OTHERS), default=list(OTHERS))
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    for other in args.other:
        value = ratio(other, args.n, dtype, args.reps)
        print(f"{args.dtype} n={args.n}: {other} / torch.add {value:.3f}", flush=True)


if __name__ == "__main__":
    main()
