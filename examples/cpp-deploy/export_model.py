"""Export a model that calls sum_double.add, AOTInductor-compile it, and write what C++ checks.

    python export_model.py OUT_DIR [--device cpu|cuda]

Writes OUT_DIR/model-DEVICE.pt2 (the AOTInductor package that run_model loads) and
OUT_DIR/io-DEVICE.pt (the inputs, and the outputs of the same model run eagerly in Python).
"""

import argparse
import os
import time
from pathlib import Path

import torch

import sum_double


class Block(torch.nn.Module):
    """A bias add that broadcasts, and a bfloat16 branch added to the float32 residual stream."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(dim, dim) / dim**0.5)
        self.bias = torch.nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = sum_double.add(x @ self.weight, self.bias)  # (batch, tokens, dim) + (dim,)
        h = torch.relu(h).to(torch.bfloat16)
        return sum_double.add(x, h)  # float32 + bfloat16 -> float32


class Model(torch.nn.Module):
    def __init__(self, dim: int = 64, blocks: int = 2) -> None:
        super().__init__()
        self.blocks = torch.nn.Sequential(*(Block(dim) for _ in range(blocks)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.blocks(x) * 0.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    # The package calls the op, which is what this example deploys. Left on, inductor compiles each
    # sum_double.add as the add it is, fused as torch.add is: a package with no op to load, whose
    # results are compiled torch.add's (docs/deploying.md).
    os.environ["SUM_DOUBLE_INDUCTOR_FUSION"] = "0"
    device = torch.device(args.device)
    torch.manual_seed(0)

    model = Model().to(device).eval()
    x = torch.randn(4, 16, 64, device=device)
    # A dynamic batch: the package takes any batch size, as a server's would.
    batch = torch.export.Dim("batch", min=1, max=1024)
    with torch.no_grad():
        program = torch.export.export(model, (x,), dynamic_shapes={"x": {0: batch}})
        start = time.perf_counter()
        package = torch._inductor.aoti_compile_and_package(
            program, package_path=str(args.out / f"model-{device.type}.pt2")
        )
        print(f"compiled {package} in {time.perf_counter() - start:.0f} s")
        # Another batch size than the one exported with, to run the dynamic shape.
        inputs = [torch.randn(3, 16, 64, device=device)]
        outputs = [model(*inputs)]
    # On the CPU, so that any libtorch reads it; run_model moves the inputs to the package's device.
    io = {
        "device": device.type,
        "inputs": [t.cpu() for t in inputs],
        "outputs": [t.cpu() for t in outputs],
    }
    torch.save(io, args.out / f"io-{device.type}.pt")
    print(f"wrote {args.out / f'io-{device.type}.pt'}: torch {torch.__version__}, {device}")


if __name__ == "__main__":
    main()
