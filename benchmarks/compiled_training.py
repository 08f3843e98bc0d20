"""Compiled training: a transformer stack whose residual joins are the op (sum_double.<NAME>),
against the same stack with its twin (the torch op it matches), under torch.compile(fullgraph=True),
forward + backward. Two models use the op: as inductor compiles it by default (as its ATen twin,
fused with its neighbours), and "unfused", compiled with SUM_DOUBLE_INDUCTOR_FUSION=0 (a call of the
op's own kernel per join, what an op with no ATen twin gets).

    python benchmarks/compiled_training.py [--dtype bfloat16] [--layers 4] [--width 1024]
        [--batch 8] [--seq 512] [--rounds 200] [--steps 2] [--device cuda] [--control]

At these sizes a step is bound by the host (inductor's wrapper launching kernels one by one), so
what an op costs the host shows in the step time, and so does any call that inductor does not fuse
with its neighbours.

Method. The models share their weights and input and take turns round by round, each model in
each place of a round equally often (the rounds are rounded up to whole cycles of the orders). A
turn is one untimed step, then `--steps` steps and one synchronisation; a model's figure is the
median over rounds of the time per step, and the speed is the twin's figure over the other's.
`--control` adds a second twin model, compiled separately as the others are: its speed
against the first is the method's noise for two identical graphs. Then one profiled step per
model: the kernels it launches, their GPU time, and the host time of the op's calls as the profiler
records them (with its own overhead).
"""

import argparse
import os
import statistics
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

import sum_double
from sum_double._definition import NAME, TWIN, TWIN_NAME
from sum_double._ops import BELOW_AUTOGRAD, OP, QUALNAME

Combine = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]  # the op, or its twin
op = getattr(sum_double, NAME)  # the public call, by the name the package gives it


class Block(nn.Module):
    """Pre-norm attention, then an MLP, each joined to the residual stream by ``combine``."""

    def __init__(self, combine: Combine, width: int) -> None:
        super().__init__()
        self.combine = combine
        self.heads = width // 64
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.fc1, self.fc2 = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(self.ln1(x)).unflatten(-1, (3, self.heads, -1)).permute(2, 0, 3, 1, 4)
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = self.combine(x, self.proj(att.transpose(1, 2).flatten(2)))
        return self.combine(x, self.fc2(F.gelu(self.fc1(self.ln2(x)))))


def make_models(
    ops: dict[str, Combine],
    layers: int,
    width: int,
    dtype: torch.dtype,
    device: torch.device,
    backend: str | Callable[..., object] = "inductor",
) -> dict[str, nn.Module]:
    """One compiled stack per op (the op or its twin), each with the same weights (seed 0)."""
    models = {}
    for name, combine in ops.items():
        torch.manual_seed(0)
        model = nn.Sequential(*(Block(combine, width) for _ in range(layers))).to(device, dtype)
        models[name] = torch.compile(model, fullgraph=True, backend=backend)
    return models


def inductor_again(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> object:
    """Inductor under a backend of its own: Dynamo hands a second model of the same structure and
    backend the first one's compiled code, and the control must be compiled as the others are."""
    from torch._inductor.compile_fx import compile_fx

    return compile_fx(gm, example_inputs)


def unfused_inductor(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> object:
    """Inductor, with the op's fusion off while it compiles (AOT autograd reads the switch as it
    traces, inside compile_fx)."""
    from torch._inductor.compile_fx import compile_fx

    switch = "SUM_DOUBLE_INDUCTOR_FUSION"
    before = os.environ.get(switch)
    os.environ[switch] = "0"
    try:
        return compile_fx(gm, example_inputs)
    finally:
        if before is None:
            del os.environ[switch]
        else:
            os.environ[switch] = before


def train_step(model: nn.Module, x: torch.Tensor) -> None:
    for p in model.parameters():
        p.grad = None
    model(x).float().square().mean().backward()


def turn_orders(names: list[str]) -> list[list[str]]:
    """Every rotation of the models' order, forwards and backwards: over a cycle each model takes
    each place in a round equally often (one order and its flip keep the middle one of three in
    the middle, where it read 1-2% slower than elsewhere: NOTES, "Fusing the op")."""
    rotations = [names[i:] + names[:i] for i in range(len(names))]
    return rotations + [order[::-1] for order in rotations]


def time_steps(
    models: dict[str, nn.Module], x: torch.Tensor, rounds: list[list[str]], steps: int
) -> dict[str, float]:
    """Seconds per step, each model's median over rounds; in each round the models take turns in
    that round's order (of ``turn_orders``)."""

    def sync() -> None:
        if x.is_cuda:
            torch.cuda.synchronize(x.device)

    samples: dict[str, list[float]] = {name: [] for name in models}
    for order in rounds:
        for name in order:
            # Untimed: each turn starts with its own model warm in the caches, whatever ran before.
            train_step(models[name], x)
            sync()
            t0 = time.perf_counter()
            for _ in range(steps):
                train_step(models[name], x)
            sync()
            samples[name].append((time.perf_counter() - t0) / steps)
    return {name: statistics.median(s) for name, s in samples.items()}


def profile_step(model: nn.Module, x: torch.Tensor) -> tuple[int, float, float]:
    """One step under the profiler: GPU kernels launched, their total time (s), and the host time
    (s) of the op's calls (by its name below autograd, which compiled graphs call, or its own)."""
    activities = [torch.profiler.ProfilerActivity.CPU]
    if x.is_cuda:
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    # acc_events: one cycle either way, and without it torch 2.11 warns.
    with torch.profiler.profile(activities=activities, acc_events=True) as prof:
        train_step(model, x)
        if x.is_cuda:
            torch.cuda.synchronize(x.device)
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    gpu = sum(e.device_time for e in kernels) / 1e6
    names = {BELOW_AUTOGRAD._schema.name, OP._schema.name}  # never nested in a compiled graph
    host = sum(e.cpu_time for e in prof.events() if e.name in names) / 1e6
    return len(kernels), gpu, host


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/compiled_training.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    default_device = "cuda" if torch.cuda.is_available() else "cpu"
    parser.add_argument("--device", default=default_device, help="(default: %(default)s)")
    parser.add_argument(
        "--dtype",
        default="bfloat16",
        choices=["bfloat16", "float16", "float32"],
        help="the weights' and activations' dtype (default: %(default)s)",
    )
    parser.add_argument("--layers", type=int, default=4, help="blocks (default: %(default)s)")
    parser.add_argument(
        "--width", type=int, default=1024, help="model width, 64 per head (default: %(default)s)"
    )
    parser.add_argument("--batch", type=int, default=8, help="(default: %(default)s)")
    parser.add_argument("--seq", type=int, default=512, help="tokens (default: %(default)s)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=200,
        help="turns of each model, rounded up to whole cycles of the orders (default: %(default)s)",
    )
    parser.add_argument(
        "--steps", type=int, default=2, help="steps per turn (default: %(default)s)"
    )
    parser.add_argument(
        "--control",
        action="store_true",
        help=f"also time a second {TWIN_NAME} model, to read the method's noise",
    )
    return parser


def main() -> None:
    args = parser().parse_args()
    # A cached graph may come from another build of the op, or have been compiled with fusion on
    # or off, which the caches' keys leave out (NOTES, "Compiled graphs"): compile each one here.
    torch._inductor.config.fx_graph_cache = False
    torch._functorch.config.enable_autograd_cache = False
    device, dtype = torch.device(args.device), getattr(torch, args.dtype)
    shape = (args.layers, args.width, dtype, device)
    models = make_models({TWIN_NAME: TWIN, QUALNAME: op}, *shape)  # report() reads TWIN_NAME's
    if args.control:
        models.update(make_models({f"{TWIN_NAME}, control": TWIN}, *shape, inductor_again))
    unfused = {f"{QUALNAME}, unfused": op}
    models.update(make_models(unfused, *shape, unfused_inductor))
    torch.manual_seed(1)
    x = torch.randn(args.batch, args.seq, args.width, device=device, dtype=dtype)
    report(models, x, args.rounds, args.steps)


def report(models: dict[str, nn.Module], x: torch.Tensor, rounds: int, steps: int) -> None:
    """Compile and warm each model, time them, and print one row per model. The compiled twin
    may round a fused chain once where eager code rounds each op, so the models' outputs are
    compared with the twin model's (max |difference|) rather than asserted equal."""
    t0 = time.perf_counter()
    for model in models.values():
        for _ in range(3):
            train_step(model, x)
    print(f"compiled and warmed in {time.perf_counter() - t0:.0f} s", flush=True)
    with torch.no_grad():
        ref_out = models[TWIN_NAME](x)
        diffs = {n: float((m(x) - ref_out).abs().max()) for n, m in models.items()}
    orders = turn_orders(list(models))
    orders *= -(-rounds // len(orders))  # whole cycles
    name = torch.cuda.get_device_name(x.device) if x.is_cuda else "CPU"
    print(
        f"{name}, torch {torch.__version__}, sum_double {sum_double.__version__}; "
        f"{x.dtype}, input {list(x.shape)}, {len(orders)} rounds of {steps} steps"
    )
    times = time_steps(models, x, orders, steps)
    ref = times[TWIN_NAME]
    print(
        f"  {'model':<36} {'ms/step':>8} {'speed':>7} {'kernels':>8} {'GPU ms':>8} "
        f"{'op host ms':>10} {'max diff':>9}"
    )
    for name, model in models.items():
        kernels, gpu, host = profile_step(model, x)
        print(
            f"  {name:<36} {times[name] * 1e3:>8.3f} {ref / times[name]:>6.3f}x "
            f"{kernels:>8} {gpu * 1e3:>8.3f} {host * 1e3:>10.3f} {diffs[name]:>9.2g}",
            flush=True,
        )
    print(f"  speed: {TWIN_NAME}'s time per step over the model's (above 1: faster)")
    print("  kernels, GPU ms, op host ms: one profiled step (the profiler's overhead included)")


if __name__ == "__main__":
    main()
