"""torch.jit.trace through the public call and torch.ops: the trace records the op with its
autograd, trains with the twin's gradients, and saves and loads, as a trace of the twin does."""

import contextlib
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import torch
from torch import Tensor

from reference import TWIN
from support import OP_PACKET, Op, assert_bitwise_equal, op, run_side_by_side

Fn = Callable[[Tensor, Tensor], Tensor]


@contextlib.contextmanager
def deprecated_jit() -> Iterator[None]:
    # torch deprecates torch.jit, which still works: a DeprecationWarning in 2.10, a FutureWarning
    # in 2.14.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"`torch\.jit\.\w+` is deprecated")
        yield


def trace(fn: Fn, *inputs: Tensor) -> torch.jit.ScriptFunction:
    with deprecated_jit():
        return torch.jit.trace(fn, inputs)


def model(f: Op) -> Fn:
    return lambda a, b: f(a.sin(), b) * 2


def nodes(traced: torch.jit.ScriptFunction) -> list[str]:
    return [node.kind() for node in traced.graph.nodes()]


def inputs(device: str, grad: bool) -> list[Tensor]:
    return [torch.randn(4, 5, device=device, requires_grad=grad) for _ in range(2)]


def grads(fn: Fn, a: Tensor, b: Tensor) -> tuple[Tensor, ...]:
    a, b = (x.detach().requires_grad_() for x in (a, b))
    return (fn(a, b), *torch.autograd.grad(fn(a, b).square().sum(), (a, b)))


@pytest.mark.parametrize("traced_with_grad", [False, True], ids=["plain", "requires-grad"])
@pytest.mark.parametrize("f", [op, OP_PACKET], ids=["public", "torch.ops"])
def test_the_trace_records_the_op_and_trains(
    device: str, wrapper: Op, f: Op, traced_with_grad: bool
) -> None:
    traced = trace(model(f), *inputs(device, traced_with_grad))
    # The op as callers name it, whose autograd kernel runs in the trace; not its name below
    # autograd, which has none, nor a Python Function, which jit.save cannot export.
    assert nodes(traced).count(OP_PACKET._qualified_op_name) == 1, traced.graph
    assert "prim::PythonOp" not in nodes(traced)
    a, b = inputs(device, True)
    for got, want in zip(grads(traced, a, b), grads(model(TWIN), a, b), strict=True):
        assert_bitwise_equal(got, want)


def test_the_trace_saves_and_loads(device: str, tmp_path: Path) -> None:
    traced = trace(model(op), *inputs(device, True))
    with deprecated_jit():
        torch.jit.save(traced, str(tmp_path / "traced.pt"))
        loaded = torch.jit.load(str(tmp_path / "traced.pt"))
    a, b = inputs(device, True)
    for got, want in zip(grads(loaded, a, b), grads(model(TWIN), a, b), strict=True):
        assert_bitwise_equal(got, want)


def test_loading_without_the_import_names_the_op(tmp_path: Path) -> None:
    # docs/deploying.md quotes these words: a saved trace loads only once the op is registered.
    with deprecated_jit():
        torch.jit.save(trace(model(op), *inputs("cpu", False)), str(tmp_path / "traced.pt"))
    load = f"import torch; torch.jit.load({str(tmp_path / 'traced.pt')!r})"
    child = run_side_by_side({"load": ["-c", load]}, timeout=120)["load"].result()
    assert child.returncode != 0
    assert f"Unknown builtin op: {OP_PACKET._qualified_op_name}." in child.stderr, child.stderr
