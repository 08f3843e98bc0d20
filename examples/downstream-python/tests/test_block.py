"""ResidualBlock against its torch-add twin, in eager mode, under torch.compile and torch.export."""

from collections.abc import Callable
from pathlib import Path

import torch
from torch import Tensor

from residual_demo import ResidualBlock, train

FEATURES = 8
SUM_DOUBLE_ADD = torch.ops.sum_double.add.default


class TorchAddBlock(ResidualBlock):
    """The same block with torch's own add: what sum_double.add must reproduce bit for bit."""

    def forward(self, x: Tensor) -> Tensor:
        return x + self.f(x)


def blocks(device: str) -> tuple[ResidualBlock, TorchAddBlock]:
    torch.manual_seed(0)
    block = ResidualBlock(FEATURES).to(device)
    twin = TorchAddBlock(FEATURES).to(device)
    twin.load_state_dict(block.state_dict())
    return block, twin


def targets(graph: torch.fx.Graph) -> list[object]:
    return [node.target for node in graph.nodes if node.op == "call_function"]


def test_forward_is_bitwise_the_torch_add(device: str) -> None:
    block, twin = blocks(device)
    x = torch.randn(4, FEATURES, device=device)
    assert torch.equal(block(x), twin(x))


def test_gradients_are_bitwise_the_torch_add(device: str) -> None:
    # The op's backward computes what torch's does, the same way, so every gradient, the
    # input's included, matches to the bit.
    block, twin = blocks(device)
    x = torch.randn(4, FEATURES, device=device, requires_grad=True)
    x_twin = x.detach().clone().requires_grad_()
    block(x).square().sum().backward()
    twin(x_twin).square().sum().backward()
    assert torch.equal(x.grad, x_twin.grad)
    for (name, p), p_twin in zip(block.named_parameters(), twin.parameters(), strict=True):
        assert torch.equal(p.grad, p_twin.grad), name


def test_training_lowers_the_loss_as_with_torch_add(device: str) -> None:
    block, twin = blocks(device)
    losses = train(block, steps=30)
    assert losses[-1] < 0.5 * losses[0]
    assert losses == train(twin, steps=30)
    for p, p_twin in zip(block.parameters(), twin.parameters(), strict=True):
        assert torch.equal(p, p_twin)


def test_compile_fullgraph_keeps_the_op(device: str) -> None:
    # A backend is any callable that takes the captured FX graph: this one records it and runs it
    # as it is, so the compiled output must equal the eager one bit for bit.
    graphs: list[torch.fx.GraphModule] = []

    def recording_backend(
        gm: torch.fx.GraphModule, example_inputs: list[Tensor]
    ) -> Callable[..., object]:
        graphs.append(gm)
        return gm.forward

    torch.compiler.reset()
    block, _ = blocks(device)
    x = torch.randn(4, FEATURES, device=device)
    compiled = torch.compile(block, fullgraph=True, backend=recording_backend)
    assert torch.equal(compiled(x), block(x))
    (graph,) = graphs
    assert SUM_DOUBLE_ADD in targets(graph.graph)


def test_compile_with_inductor_trains(device: str) -> None:
    # The default backend generates its own kernels for what surrounds the op (GELU and its
    # backward), which need not round as eager's do: close to eager, not bitwise equal.
    torch.compiler.reset()
    block, twin = blocks(device)
    block.compile(fullgraph=True)  # in place: still a ResidualBlock, as train() expects
    losses = torch.tensor(train(block, steps=5), dtype=torch.float32)
    torch.testing.assert_close(losses, torch.tensor(train(twin, steps=5), dtype=torch.float32))


def test_export_save_load_round_trip(device: str, tmp_path: Path) -> None:
    block, _ = blocks(device)
    x = torch.randn(4, FEATURES, device=device)
    batch = torch.export.Dim("batch")
    exported = torch.export.export(block, (x,), dynamic_shapes={"x": {0: batch}})
    assert SUM_DOUBLE_ADD in targets(exported.graph)
    path = tmp_path / "block.pt2"
    torch.export.save(exported, path)
    loaded = torch.export.load(path).module()
    # Another batch size than the one traced: the op's fake kernel handled a symbolic shape.
    x = torch.randn(3, FEATURES, device=device)
    assert torch.equal(loaded(x), block(x))
