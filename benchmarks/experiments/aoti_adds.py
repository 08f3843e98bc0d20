"""What a custom op costs inside an AOTInductor package: a chain of small adds, sum_double vs torch.

    python benchmarks/experiments/aoti_adds.py [--device cpu|cuda] [--adds 32] [--n 1024]
        [--calls 200] [--rounds 11] [--out DIR [--compile-only]]

Exports one model two ways and AOTInductor-compiles each: `adds` calls of sum_double.add (each a
proxy-executor call: a boxed dispatcher call rebuilt from the serialized node, and an output of
its own) and of torch.add (which inductor fuses into one generated loop: what a custom op gives
up). The packages' runs take turns: the median over rounds of `calls` back-to-back runs (then one
sync). Per add: (sum_double's time - torch.add's) / adds. --compile-only writes the packages
(DIR/sum_double.add.pt2, DIR/torch.add.pt2) for benchmarks/experiments/aoti_time, which times them
from C++ where Python's loader is not usable. main() turns the op's fusion off
(SUM_DOUBLE_INDUCTOR_FUSION=0): left on, inductor compiles sum_double.add as the add it is, and both
packages would be torch.add's.
"""

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

import sum_double


class Chain(torch.nn.Module):
    def __init__(self, add: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], adds: int):
        super().__init__()
        self.add, self.adds = add, adds

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        for _ in range(self.adds):
            x = self.add(x, y)
        return x


def package(
    name: str,
    add: Callable[..., torch.Tensor],
    args: tuple[torch.Tensor, ...],
    adds: int,
    out: Path,
) -> str:
    n = torch.export.Dim("n")  # any length, so that aoti_time can run other sizes
    program = torch.export.export(Chain(add, adds), args, dynamic_shapes=({0: n}, {0: n}))
    start = time.perf_counter()
    path = torch._inductor.aoti_compile_and_package(program, package_path=str(out / f"{name}.pt2"))
    print(f"  {name:<14} compiled in {time.perf_counter() - start:5.1f} s", flush=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--adds", type=int, default=32)
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=11)
    os.environ["SUM_DOUBLE_INDUCTOR_FUSION"] = "0"  # the op's own call in its package
    parser.add_argument("--out", type=Path, help="keep the packages here (default: a temp dir)")
    parser.add_argument("--compile-only", action="store_true", help="write the packages, time none")
    args = parser.parse_args()
    if args.compile_only and args.out is None:
        parser.error("--compile-only needs --out")
    device = torch.device(args.device)
    x, y = (torch.randn(args.n, device=device) for _ in range(2))
    adds = {"sum_double.add": sum_double.add, "torch.add": torch.add}

    print(f"AOTInductor packages of {args.adds} adds, n = {args.n}, {device}, {torch.__version__}")
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        paths = {name: package(name, add, (x, y), args.adds, out) for name, add in adds.items()}
        if args.compile_only:
            return
        runners = {name: torch._inductor.aoti_load_package(path) for name, path in paths.items()}
        ref = Chain(torch.add, args.adds)(x, y)
        for name, run in runners.items():
            result = run(x, y)
            assert torch.equal(result, ref), f"{name}: the package's result differs from eager"

        def sync() -> None:
            if device.type == "cuda":
                torch.cuda.synchronize(device)

        samples: dict[str, list[float]] = {name: [] for name in runners}
        for run in runners.values():  # warm-up
            for _ in range(args.calls // 4):
                run(x, y)
        sync()
        for _ in range(args.rounds):
            for name, run in runners.items():
                start = time.perf_counter()
                for _ in range(args.calls):
                    run(x, y)
                sync()
                samples[name].append((time.perf_counter() - start) / args.calls * 1e6)
    times = {name: statistics.median(s) for name, s in samples.items()}
    ours, fused = times["sum_double.add"], times["torch.add"]
    print(
        f"  per run: sum_double.add {ours:.1f} us, torch.add {fused:.1f} us ({ours / fused:.2f}x)"
    )
    print(f"  per add: {(ours - fused) / args.adds:.2f} us more than inductor's fused torch.add")


if __name__ == "__main__":
    main()
