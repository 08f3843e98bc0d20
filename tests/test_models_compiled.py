"""The tiny transformer compiled (aot_eager, inductor), exported and FX-traced: the op stays in
the graph with its mixed dtypes, and the compiled model trains as the eager one does. Graphs
traced above autograd (Dynamo's, export's, FX's) name the op; those traced below it (AOT
autograd's forward, export's ATen IR, inductor's code with fusion off) name it there,
sum_double._<NAME>."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch
from torch import nn
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func
from torch._inductor.utils import run_and_get_code

from support import (
    BELOW_AUTOGRAD,
    BELOW_NAME,
    IGNORE_TORCH_LEAFSPEC,
    OP,
    OP_NAME,
    assert_bitwise_equal,
)
from tiny_transformer import BATCH, TIME, WIDTH, Autocast, train, twins


def _op_nodes(gm: torch.fx.GraphModule, op: torch._ops.OpOverload = OP) -> list[torch.fx.Node]:
    """The op's calls in ``gm`` and its submodules (export puts autocast regions in those)."""
    return [
        node
        for module in gm.modules()
        if isinstance(module, torch.fx.GraphModule)
        for node in module.graph.nodes
        if node.op == "call_function" and node.target is op
    ]


def _input_dtypes(node: torch.fx.Node) -> tuple[torch.dtype, ...]:
    return tuple(arg.meta["val"].dtype for arg in node.args if isinstance(arg, torch.fx.Node))


def _mixed(nodes: list[torch.fx.Node]) -> list[torch.fx.Node]:
    return [n for n in nodes if len(set(_input_dtypes(n))) == 2]


def _assert_close(compiled: torch.Tensor, eager: torch.Tensor) -> None:
    # Compiled code may round differently (inductor fuses away intermediate bf16 roundings), so
    # compiled is checked against eager to 1e-3 relative, not to the bit.
    assert torch.isfinite(compiled).all()
    rel = ((compiled - eager).abs() / eager.abs()).max()
    assert rel <= 1e-3, f"losses differ by {float(rel):.3g} relative: {compiled} vs {eager}"


@pytest.fixture
def fresh_dynamo() -> Iterator[None]:
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.usefixtures("fresh_dynamo")
def test_compiled_aot_eager_keeps_the_op_and_trains_as_eager(device: str) -> None:
    ours, _ = twins(device)
    eager_losses = train(ours, device, torch.bfloat16)
    compiled_model, _ = twins(device)
    graphs: dict[str, list[torch.fx.GraphModule]] = {"dynamo": [], "forward": [], "backward": []}

    def keep(kind: str) -> Callable[[torch.fx.GraphModule, Any], Any]:
        def compiler(gm: torch.fx.GraphModule, example_inputs: Any) -> Any:
            graphs[kind].append(gm)
            return make_boxed_func(gm.forward)

        return compiler

    # aot_eager, with each graph kept: Dynamo's, and the forward and backward that AOT autograd
    # makes of it (where the fake kernel gives every dtype and shape).
    aot = aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward"))

    def backend(gm: torch.fx.GraphModule, example_inputs: Any) -> Any:
        graphs["dynamo"].append(gm)
        return aot(gm, example_inputs)

    compiled = torch.compile(compiled_model, fullgraph=True, backend=backend)
    compiled_losses = train(compiled_model, device, torch.bfloat16, compiled)
    assert len(graphs["dynamo"]) == 1  # one graph, no recompilation over the steps
    assert len(_op_nodes(graphs["dynamo"][0])) == 6  # 2 blocks x (2 residual + 1 bias) adds
    (forward,) = graphs["forward"]
    assert _op_nodes(forward) == []
    nodes = _op_nodes(forward, BELOW_AUTOGRAD)
    assert len(nodes) == 6
    assert {_input_dtypes(n) for n in _mixed(nodes)} == {
        (torch.float32, torch.bfloat16),
        (torch.bfloat16, torch.float32),
    }
    _assert_close(compiled_losses, eager_losses)


@pytest.mark.usefixtures("no_compile_caches")
def test_compiled_inductor_without_fusion_calls_the_op_and_trains_as_eager(
    device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Inductor compiles the op as an add unless told not to (test_inductor_fusion.py); told so,
    # or where this torch lacks the names that takes, it calls the op.
    monkeypatch.setenv("SUM_DOUBLE_INDUCTOR_FUSION", "0")
    # One block, no attention: inductor's C++ compiles dominate on a small CPU machine.
    ours, _ = twins(device, blocks=1, attention=False)
    eager_losses = train(ours, device, torch.bfloat16)
    compiled_model, _ = twins(device, blocks=1, attention=False)
    compiled = torch.compile(compiled_model, fullgraph=True, backend="inductor")
    compiled_losses, code = run_and_get_code(
        lambda: train(compiled_model, device, torch.bfloat16, compiled)
    )
    # The op is an extern call in inductor's forward code, once for each of the block's 2 adds
    # (the backward needs no op: the gradients are the incoming one, reduced and cast), by its
    # name below autograd: no Python autograd kernel runs when the graph does.
    calls = sum(source.count(f"{BELOW_NAME}.default(") for source in code)
    assert calls == 2, code
    assert not any(f"{OP_NAME}.default(" in source for source in code), code
    _assert_close(compiled_losses, eager_losses)


def _assert_exported(
    program: torch.export.ExportedProgram,
    model: nn.Module,
    x: torch.Tensor,
    op: torch._ops.OpOverload = OP,
) -> None:
    nodes = _op_nodes(program.graph_module, op)
    assert len(nodes) == 6
    assert len(_mixed(nodes)) == 6  # every add mixes float32 with bfloat16
    assert_bitwise_equal(program.module()(x), model(x))  # and computes what the module does


@IGNORE_TORCH_LEAFSPEC
def test_export_records_the_op_with_mixed_dtypes(device: str) -> None:
    ours, _ = twins(device)
    model = Autocast(ours, device, torch.bfloat16)
    x = torch.randn(BATCH, TIME, WIDTH, device=device)
    exported = torch.export.export(model, (x,), strict=False)
    _assert_exported(exported, model, x)
    # The ATen IR, traced below autograd, keeps it as sum_double._<NAME>.
    _assert_exported(exported.run_decompositions(), model, x, BELOW_AUTOGRAD)


@IGNORE_TORCH_LEAFSPEC
def test_the_aten_ir_replayed_with_grad_has_no_gradient_and_warns(device: str) -> None:
    # export's ATen IR is recorded below autograd, so it calls sum_double._<NAME>, which has no
    # derivative (docs/limits.md); the program export gives first, above autograd, trains.
    ours, _ = twins(device, blocks=1, attention=False)
    x = torch.randn(BATCH, TIME, WIDTH, device=device)
    exported = torch.export.export(ours, (x,), strict=False)
    x.requires_grad_()
    exported.module()(x).sum().backward()
    assert x.grad is not None
    x.grad = None
    with pytest.warns(UserWarning, match="autograd kernel was not registered"):
        exported.run_decompositions().module()(x).sum().backward()
    assert x.grad is None


@IGNORE_TORCH_LEAFSPEC
def test_export_with_a_dynamic_batch(device: str) -> None:
    # As with the twin: the fake kernel must not specialize the batch (guard on its value).
    ours, _ = twins(device)
    model = Autocast(ours, device, torch.bfloat16)
    x = torch.randn(BATCH, TIME, WIDTH, device=device)
    batch = torch.export.Dim("batch")
    exported = torch.export.export(model, (x,), dynamic_shapes={"x": {0: batch}}, strict=False)
    for n in (BATCH, 3, 4 * WIDTH):
        _assert_exported(exported, model, torch.randn(n, TIME, WIDTH, device=device))


def test_fx_symbolic_trace_records_the_op(device: str) -> None:
    ours, _ = twins(device)
    traced = torch.fx.symbolic_trace(ours)
    assert len(_op_nodes(traced)) == 6
    x = torch.randn(BATCH, TIME, WIDTH, device=device)
    with torch.autocast(device, dtype=torch.bfloat16):
        assert_bitwise_equal(traced(x), ours(x))
