"""torch.fx.symbolic_trace through the public call, as feature extractors and FX passes use it."""

from collections.abc import Callable

import pytest
import torch

from reference import reference
from support import OP, OP_PACKET, assert_bitwise_equal, op


class Block(torch.nn.Module):
    """The op between other ops, on a parameter and on intermediate values."""

    def __init__(self) -> None:
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(6))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        h = op(x * 0.5, y)
        return op(h.relu(), self.bias.expand_as(h))


def _targets(traced: torch.fx.GraphModule) -> list[object]:
    return [node.target for node in traced.graph.nodes if node.op == "call_function"]


def test_a_module_records_the_op() -> None:
    traced = torch.fx.symbolic_trace(lambda x, y: op(x, y))
    assert _targets(traced)[-1] is OP  # after the public call's checks, if any

    x, y = torch.randn(4, 5), torch.randn(4, 5)
    assert_bitwise_equal(traced(x, y), reference(x, y))


def forwards_out(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    return op(x, y, out=out)


@pytest.mark.parametrize("f", [op, forwards_out], ids=["the-public-call", "a-function-passing-out"])
def test_a_traced_parameter_out_is_decided_as_the_graph_runs(
    f: Callable[..., torch.Tensor],
) -> None:
    # out is then the graph's own input, None unless given: the op, or the op into out.
    traced = torch.fx.symbolic_trace(f)
    x, y, out = torch.randn(4, 5), torch.randn(5), torch.empty(4, 5)
    assert_bitwise_equal(traced(x, y), reference(x, y))
    assert traced(x, y, out=out) is out
    assert_bitwise_equal(out, reference(x, y))


def test_traced_module_matches_eager(device: str) -> None:
    block = Block().to(device)
    traced = torch.fx.symbolic_trace(block)
    assert _targets(traced).count(OP) == 2
    x = torch.randn(3, 6, device=device, requires_grad=True)
    y = torch.randn(3, 6, device=device, requires_grad=True)
    out, ref = traced(x, y), block(x, y)
    assert_bitwise_equal(out, ref)
    grad = torch.randn_like(out)
    got = torch.autograd.grad(out, (x, y, block.bias), grad)
    want = torch.autograd.grad(ref, (x, y, block.bias), grad)
    for g, w in zip(got, want, strict=True):
        assert_bitwise_equal(g, w)


class Writes(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        return op(x, y, out=out)


def test_out_is_recorded_and_runs() -> None:
    traced = torch.fx.symbolic_trace(Writes())
    assert _targets(traced) == [OP_PACKET.out]
    x, y, out = torch.randn(4, 5), torch.randn(5), torch.empty(4, 5)
    assert traced(x, y, out) is out
    assert_bitwise_equal(out, reference(x, y))
