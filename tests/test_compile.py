"""What torch.compile relies on: torch.library.opcheck over the registration (schema, fake
kernel, autograd, AOT dispatch), fullgraph compiles that give eager's values and gradients, and
bad shapes refused while tracing."""

import pytest
import torch

from support import BELOW_AUTOGRAD, MIXED_AND_BROADCAST, OP, op

SHAPES_AND_VIEWS = pytest.mark.parametrize(
    "shape_and_view",
    [((5,), None), ((), None), ((0, 3), None), ((6, 4), torch.Tensor.t)],
    ids=["1d", "0d", "empty", "transposed"],
)


def _inputs(device: str, shape_and_view) -> tuple[torch.Tensor, torch.Tensor]:
    shape, view = shape_and_view
    a, b = torch.randn(shape, device=device), torch.randn(shape, device=device)
    return (a, b) if view is None else (view(a), view(b))


# opcheck's own AOT test reads .grad of intermediate tensors it makes; that warning is torch's.
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.parametrize("requires_grad", [False, True])
@SHAPES_AND_VIEWS
def test_opcheck(device: str, requires_grad: bool, shape_and_view) -> None:
    a, b = _inputs(device, shape_and_view)
    a.requires_grad_(requires_grad)  # leaves, strided or not
    b.requires_grad_(requires_grad)
    # Schema, fake kernel, autograd registration and AOT dispatch, all checked by torch itself.
    torch.library.opcheck(OP, (a, b))


@SHAPES_AND_VIEWS
def test_opcheck_below_autograd(device: str, shape_and_view) -> None:
    # What compiled graphs call, which has no derivative of its own: the same checks without one.
    torch.library.opcheck(BELOW_AUTOGRAD, _inputs(device, shape_and_view))


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize(("a_meta", "b_meta"), MIXED_AND_BROADCAST)
def test_opcheck_broadcast_and_mixed(
    device: str, requires_grad: bool, a_meta: tuple, b_meta: tuple
) -> None:
    (a_shape, a_dtype), (b_shape, b_dtype) = a_meta, b_meta
    a = torch.randn(a_shape, device=device, dtype=a_dtype)
    b = torch.randn(b_shape, device=device, dtype=b_dtype)
    a.requires_grad_(requires_grad)  # leaves, strided or not
    b.requires_grad_(requires_grad)
    # Schema, fake kernel, autograd registration and AOT dispatch, all checked by torch itself.
    torch.library.opcheck(OP, (a, b))


def _fused(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    # Power-of-two scalings are exact, so compiled and eager results must agree bit for bit.
    return op(x * 0.5, y) * 2.0


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph(device: str, backend: str) -> None:
    torch._dynamo.reset()
    compiled = torch.compile(_fused, fullgraph=True, backend=backend)
    x = torch.randn(8, 3, device=device, requires_grad=True)
    y = torch.randn(8, 3, device=device, requires_grad=True)
    out = compiled(x, y)
    assert torch.equal(out, _fused(x, y))
    grad = torch.randn_like(out)
    out.backward(grad)
    assert all(map(torch.equal, (x.grad, y.grad), torch.autograd.grad(_fused(x, y), (x, y), grad)))


def test_torch_compile_rejects_bad_shapes_at_trace() -> None:
    torch._dynamo.reset()
    compiled = torch.compile(op, fullgraph=True, backend="aot_eager")
    with pytest.raises(
        Exception, match=r"shapes of a and b to broadcast, but a: \[3\] and b: \[4\]"
    ):
        compiled(torch.randn(3), torch.randn(4))
