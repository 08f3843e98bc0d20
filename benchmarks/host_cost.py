"""Host cost per call: what the Python -> dispatcher -> launch path costs, kernel time aside.

At n = 1024 the kernel takes about a microsecond, so back-to-back calls are bound by the host.
Each figure is the median over rounds of (wall time of `calls` back-to-back calls, then one sync)
divided by `calls`. The callables of one table take their rounds in turn, so that whatever else
the machine does falls on each alike (on a shared VM it swings by 2x).

The headline rows set the op's public call against its twin's (both named by _definition.py). Below
them, each table adds one layer at a time, so that the differences between its rows are what each
layer costs: calling an op through torch.ops at all (the twin's ATen op), our op's C++ layer,
torch's C++ autograd fallback (what `torch.ops.sum_double._<NAME>`, the op below autograd, which
compiled graphs call, pays), the op's Python autograd kernel (what `torch.ops.sum_double.<NAME>`
pays even when nothing needs grad), and the wrapper's routes (`sum_double._public`: the fast one on
torch's private names, which `sum_double.<NAME>` takes where they exist, and the public one).

    python benchmarks/host_cost.py [--device cuda] [--n 1024] [--calls 2000] [--rounds 15]
                                   [--cpu-time] [--evict MIB] [--compiled]

--cpu-time (CPU only) times with this thread's CPU time, not the wall clock: on a shared machine,
the time the core spends on other processes stays out.
--evict MIB (CPU only) writes MIB of memory before each call, on one thread, and times the calls
one by one, the callables in turn (each figure is then the median call): every host path starts
with the caches that a large input leaves it (a kernel that has just streamed through megabytes),
not with the warm caches of back-to-back calls.
--compiled adds a table for the op inside graphs that torch.compile (inductor) made with the op's
fusion off (SUM_DOUBLE_INDUCTOR_FUSION=0; fused, the op is no call): chains of 1 and of 9 calls,
each a graph of its own, so that (time of 9 - time of 1) / 8 is one call's cost in
a graph, with and without inputs that require grad (a training step's forward graph), beside what
each call in such a graph runs: the op as the graph calls it, and inductor's check of its output.
"""

import argparse
import os
import statistics
import time
from collections.abc import Callable

import torch

import sum_double
from sum_double import _public
from sum_double._definition import NAME, TWIN, TWIN_NAME
from sum_double._ops import QUALNAME

public_call = getattr(sum_double, NAME)  # by the name the package gives it


def per_call_us(
    fns: dict[str, Callable[[], object]],
    device: torch.device,
    calls: int,
    rounds: int,
    clock: Callable[[], float] = time.perf_counter,
    evict: torch.Tensor | None = None,
) -> dict[str, float]:
    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    for fn in fns.values():  # warm-up: caches, allocator, lazy init
        for _ in range(calls // 4):
            fn()
    sync()
    samples: dict[str, list[float]] = {name: [] for name in fns}
    if evict is not None:  # call by call, the callables in turn, each after the writes
        for _ in range(rounds * calls):
            for name, fn in fns.items():
                evict.zero_()
                t0 = clock()
                fn()
                samples[name].append((clock() - t0) * 1e6)
        return {name: statistics.median(s) for name, s in samples.items()}
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = clock()
            for _ in range(calls):
                fn()
            sync()
            samples[name].append((clock() - t0) / calls * 1e6)
    return {name: statistics.median(s) for name, s in samples.items()}


def _below_autograd_op() -> torch._ops.OpOverload:
    """What graphs traced below autograd call: the op's name there, or the op itself in a tree
    from before that name existed (host_cost_ab.sh times older trees too)."""
    ops = torch.ops.sum_double
    return getattr(ops, f"_{NAME}", getattr(ops, NAME)).default


def twin_aten_op() -> torch._ops.OpOverload:
    """The ATen op that the twin's call runs, as a trace of one call records it: its overload's
    name differs by op (aten.mul.Tensor, aten.maximum.default, aten.pow.Tensor_Tensor)."""
    from torch.fx.experimental.proxy_tensor import make_fx

    graph = make_fx(lambda a, b: TWIN(a, b))(torch.ones(2), torch.ones(2)).graph
    return next(node.target for node in graph.nodes if node.op == "call_function")


def compiled_table(
    x: torch.Tensor, y: torch.Tensor, device: torch.device, calls: int, rounds: int, clock
) -> None:
    """One call's cost inside compiled graphs, against the same call made eagerly."""
    try:  # what inductor checks each extern call's output with (torch 2.14; 2.11 lacks it)
        from torch._inductor.runtime.runtime_utils import assert_tensor_metadata
    except ImportError:  # before: its size and stride only

        def assert_tensor_metadata(t: torch.Tensor, size, stride, dtype, op: str) -> None:
            torch._C._dynamo.guards.assert_size_stride(t, size, stride)

    def chain(fn: Callable[..., torch.Tensor], k: int) -> Callable[..., torch.Tensor]:
        def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            for _ in range(k):
                a = fn(a, b)
            return a

        return torch.compile(f, fullgraph=True)

    # Graphs from the compile caches may come from another build of the op (host_cost_ab.sh
    # times two in turn), which may call it by another name: compile each one here.
    torch._inductor.config.fx_graph_cache = False
    torch._functorch.config.enable_autograd_cache = False
    # The op's own call, as a graph makes it where inductor cannot fuse an op (fused, the op
    # costs no call at all): what an op with no ATen twin pays. Left set: this table comes last.
    os.environ["SUM_DOUBLE_INDUCTOR_FUSION"] = "0"
    xg, yg = x.clone().requires_grad_(), y.clone().requires_grad_()
    one, nine = chain(public_call, 1), chain(public_call, 9)
    one_grad, nine_grad = chain(public_call, 1), chain(public_call, 9)
    out = public_call(x, y)
    op = _below_autograd_op()
    fns: dict[str, Callable[[], object]] = {
        "1": lambda: one(x, y),
        "9": lambda: nine(x, y),
        "1 grad": lambda: one_grad(xg, yg),
        "9 grad": lambda: nine_grad(xg, yg),
        "op": lambda: op(x, y),
        "check": lambda: assert_tensor_metadata(out, (*out.shape,), out.stride(), out.dtype, "op"),
    }
    times = per_call_us(fns, device, calls // 4, rounds, clock)
    print("  inside a compiled graph (inductor), one call of the op:")
    rows = [
        ("no grad", (times["9"] - times["1"]) / 8),
        ("inputs require grad (the forward graph)", (times["9 grad"] - times["1 grad"]) / 8),
        (f"  what the graph calls: {op._schema.name.replace('::', '.')}", times["op"]),
        ("  inductor's check of its output", times["check"]),
    ]
    for name, us in rows:
        print(f"    {name:<42} {us:>6.2f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--cpu-time", action="store_true")
    parser.add_argument("--evict", type=float, metavar="MIB")
    parser.add_argument("--compiled", action="store_true")
    args = parser.parse_args()
    device = torch.device(args.device)
    if args.cpu_time and device.type != "cpu":
        parser.error("--cpu-time leaves out the time spent waiting for the GPU: CPU only")
    if args.evict and device.type != "cpu":
        parser.error("--evict times calls one by one, without waiting for the GPU: CPU only")
    evict = None
    if args.evict:
        torch.set_num_threads(1)  # the writes then go through this core's caches only
        evict = torch.empty(int(args.evict * 2**20) // 4)
    clock = time.thread_time if args.cpu_time else time.perf_counter

    x, y = torch.randn(args.n, device=device), torch.randn(args.n, device=device)
    xg, yg = x.clone().requires_grad_(), y.clone().requires_grad_()
    op = getattr(torch.ops.sum_double, NAME).default
    public = _public.public_route
    aten = twin_aten_op()
    op_name, below_name = f"torch.ops.{QUALNAME}", f"torch.ops.sum_double._{NAME}"
    aten_name = f"torch.ops.{aten}"

    no_grad_fns: dict[str, Callable[[], object]] = {
        TWIN_NAME: lambda: TWIN(x, y),
        QUALNAME: lambda: public_call(x, y),
        aten_name: lambda: aten(x, y),
        op_name: lambda: op(x, y),
        "public route": lambda: public(x, y),
    }
    grad_fns: dict[str, Callable[[], object]] = {
        TWIN_NAME: lambda: TWIN(xg, yg),
        QUALNAME: lambda: public_call(xg, yg),
        op_name: lambda: op(xg, yg),
        "public route": lambda: public(xg, yg),
    }
    # Where this torch lacks a private name (or _fast_route.py is deleted), the public call is the
    # public route: no fast rows.
    try:
        from sum_double._fast_route import route as fast
    except ImportError:
        fast = None
    if fast is not None:

        def below_autograd(call: Callable[[], object]) -> Callable[[], object]:
            def run() -> object:
                with torch._C._AutoDispatchBelowAutograd():
                    return call()

            return run

        no_grad_fns[f"{aten_name}, below autograd"] = below_autograd(lambda: aten(x, y))
        no_grad_fns[f"{op_name}, below autograd"] = below_autograd(lambda: op(x, y))
        below = _below_autograd_op()
        if below is not op:
            no_grad_fns[below_name] = lambda: below(x, y)
        no_grad_fns["fast route"] = lambda: fast(x, y)
        grad_fns["fast route"] = lambda: fast(xg, yg)
    no_grad = per_call_us(no_grad_fns, device, args.calls, args.rounds, clock, evict)
    grad = per_call_us(grad_fns, device, args.calls, args.rounds, clock, evict)

    timer = "thread CPU time" if args.cpu_time else "wall time"
    caches = f", {args.evict:g} MiB written before each call" if args.evict else ""
    print(f"host cost per call, n = {args.n}, {device}, torch {torch.__version__}, {timer}{caches}")
    print(f"  {'case':<20} {TWIN_NAME:>9} {QUALNAME:>15} {'ratio':>6}")
    for case, times in (("no grad", no_grad), ("inputs require grad", grad)):
        ref, ours = times[TWIN_NAME], times[QUALNAME]
        print(f"  {case:<20} {ref:>6.2f} us {ours:>12.2f} us {ours / ref:>6.2f}")
    layers = {
        "no grad": [
            (aten_name, "any op through torch.ops: op object, boxed call"),
            (f"{aten_name}, below autograd", "+ the guard that skips autograd"),
            (f"{op_name}, below autograd", "our C++ op layer for aten's"),
            (below_name, "the op as compiled graphs call it: C++ autograd fallback, no guard"),
            (op_name, "+ the op's Python autograd kernel"),
            ("fast route", f"{QUALNAME} less its own checks"),
            ("public route", "what runs where a private name is missing"),
        ],
        "grad": [
            (op_name, "its autograd kernel's Function, called from C++"),
            ("fast route", "Function in the forward(ctx, ...) form"),
            ("public route", "Function with setup_context: apply binds with inspect"),
        ],
    }
    for case, times in (("no grad", no_grad), ("grad", grad)):
        print(f"  {case}, layer by layer (measured in turn with the {case} row):")
        for name, what in layers[case]:
            if name in times:
                print(f"    {name:<42} {times[name]:>6.2f} us  {what}")
    if args.compiled:
        compiled_table(x, y, device, args.calls, args.rounds, clock)


if __name__ == "__main__":
    main()
