"""What fusing the op would give compiled training: compiled_training.py's two models and a third,
"sum_double.add, fused", compiled by inductor with a decomposition table that maps the op (both
its names) to aten.add, so that inductor fuses it with its neighbours as it fuses torch.add. The
table is passed through private inductor names, for this measurement only.

    python benchmarks/experiments/compiled_variants.py [compiled_training.py's options]
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import compiled_training as ct  # benchmarks/, beside this folder
import sum_double


def fused_inductor(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> object:
    """Inductor, with the op decomposed to aten.add before it lowers the graph."""
    from torch._inductor.compile_fx import compile_fx
    from torch._inductor.decomposition import select_decomp_table

    ops = (torch.ops.sum_double.add.default, torch.ops.sum_double._add.default)
    table = {**select_decomp_table(), **dict.fromkeys(ops, torch.ops.aten.add.Tensor)}
    return compile_fx(gm, example_inputs, decompositions=table)


def main() -> None:
    args = ct.parser().parse_args()
    # The compile caches key a graph before decomposition: "fused" would get the unfused graph.
    torch._inductor.config.fx_graph_cache = False
    torch._functorch.config.enable_autograd_cache = False
    device, dtype = torch.device(args.device), getattr(torch, args.dtype)
    torch.manual_seed(1)
    x = torch.randn(args.batch, args.seq, args.width, device=device, dtype=dtype)
    shape = (args.layers, args.width, dtype, device)
    models = ct.make_models({"torch.add": torch.add, "sum_double.add": sum_double.add}, *shape)
    models.update(ct.make_models({"sum_double.add, fused": sum_double.add}, *shape, fused_inductor))
    ct.report(models, x, args.rounds, args.steps)


if __name__ == "__main__":
    main()
