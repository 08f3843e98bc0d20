"""Gradients, torch.library.opcheck and torch.compile for torch.ops.sum_double.add."""

import pytest
import torch
import torch.autograd.forward_ad as fwAD

import sum_double
from support import FLOAT_DTYPES, assert_bitwise_equal

# The two ways in: the public wrapper (which picks the cheapest autograd route) and the op itself
# (fake kernel + registered autograd, what torch.compile sees).
ROUTES = [
    pytest.param(sum_double.add, id="wrapper"),
    pytest.param(torch.ops.sum_double.add.default, id="op"),
]


@pytest.mark.parametrize("add", ROUTES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_gradient_is_the_incoming_gradient_uncopied(device: str, add, dtype: torch.dtype) -> None:
    a = torch.randn(5, 7, device=device, dtype=dtype, requires_grad=True)
    b = torch.randn(5, 7, device=device, dtype=dtype, requires_grad=True)
    grad = torch.randn(5, 7, device=device, dtype=dtype)
    ga, gb = torch.autograd.grad(add(a, b), (a, b), grad)
    # d(a + b)/da = d(a + b)/db = identity: the same tensor comes back, no clone (the seed cloned
    # twice).
    assert ga.data_ptr() == grad.data_ptr()
    assert gb.data_ptr() == grad.data_ptr()


@pytest.mark.parametrize("add", ROUTES)
@pytest.mark.parametrize("which", ["a", "b"])
def test_one_input_requires_grad(device: str, add, which: str) -> None:
    args = {"a": torch.randn(4, device=device), "b": torch.randn(4, device=device)}
    args[which].requires_grad_()
    out = add(args["a"], args["b"])
    assert out.requires_grad
    grad = torch.randn(4, device=device)
    out.backward(grad)
    assert torch.equal(args[which].grad, grad)


@pytest.mark.parametrize("add", ROUTES)
def test_no_graph_without_grad(device: str, add) -> None:
    a = torch.randn(4, device=device, requires_grad=True)
    with torch.no_grad():
        assert not add(a, a).requires_grad
    with torch.inference_mode():
        assert not add(a, a).requires_grad
    assert not add(a.detach(), a.detach()).requires_grad


@pytest.mark.parametrize("add", ROUTES)
def test_same_tensor_twice_accumulates(device: str, add) -> None:
    a = torch.randn(4, device=device, requires_grad=True)
    add(a, a).sum().backward()
    assert torch.equal(a.grad, torch.full_like(a, 2.0))


def test_forward_mode_ad_through_the_wrapper(device: str) -> None:
    # Dual tensors need no requires_grad: a no-grad shortcut that ignored them would silently drop
    # the tangent.
    x, y = torch.randn(5, device=device), torch.randn(5, device=device)
    tx, ty = torch.randn(5, device=device), torch.randn(5, device=device)
    with fwAD.dual_level():
        out = sum_double.add(fwAD.make_dual(x, tx), y)
        assert torch.equal(fwAD.unpack_dual(out).tangent, tx)
        out = sum_double.add(fwAD.make_dual(x, tx), fwAD.make_dual(y, ty))
        assert torch.equal(fwAD.unpack_dual(out).tangent, tx + ty)
        assert torch.equal(fwAD.unpack_dual(out).primal, torch.add(x, y))


def test_torch_func_transforms(device: str) -> None:
    x, y, t = (torch.randn(5, device=device) for _ in range(3))
    grad = torch.func.grad(lambda x: sum_double.add(x, y).sum())(x)
    assert torch.equal(grad, torch.ones_like(x))
    _, tangent = torch.func.jvp(lambda x: sum_double.add(x, y), (x,), (t,))
    assert torch.equal(tangent, t)


def test_vmap(device: str) -> None:
    # The op's vmap rule (no per-example loop: that fallback warns, and warnings fail the suite).
    x, y = torch.randn(3, 5, device=device), torch.randn(3, 5, device=device)
    row = torch.randn(5, device=device)
    assert_bitwise_equal(torch.func.vmap(sum_double.add)(x, y), torch.add(x, y))
    assert_bitwise_equal(torch.func.vmap(sum_double.add, in_dims=(0, None))(x, row), x + row)
    xt, yt = x.t().contiguous(), y.t().contiguous()
    assert_bitwise_equal(torch.func.vmap(sum_double.add, in_dims=(1, 1))(xt, yt), x + y)
    # vmap over grad and jacrev: the autograd.Function under vmap.
    per_example = torch.func.vmap(torch.func.grad(lambda x, y: sum_double.add(x, y).sum()))
    assert torch.equal(per_example(x, y), torch.ones_like(x))
    jacobian = torch.func.jacrev(sum_double.add)(row, row)
    assert torch.equal(jacobian, torch.eye(5, device=device))


@pytest.mark.parametrize("add", ROUTES)
def test_gradcheck_and_gradgradcheck(device: str, add) -> None:
    a = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 3, device=device, dtype=torch.float64, requires_grad=True).t()
    assert torch.autograd.gradcheck(add, (a, b))
    assert torch.autograd.gradgradcheck(add, (a, b))


# opcheck's own AOT test reads .grad of intermediate tensors it makes; that warning is torch's.
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize(
    "shape_and_view",
    [((5,), None), ((), None), ((0, 3), None), ((6, 4), torch.Tensor.t)],
    ids=["1d", "0d", "empty", "transposed"],
)
def test_opcheck(device: str, requires_grad: bool, shape_and_view) -> None:
    shape, view = shape_and_view
    a, b = torch.randn(shape, device=device), torch.randn(shape, device=device)
    if view is not None:
        a, b = view(a), view(b)
    a.requires_grad_(requires_grad)  # leaves, strided or not
    b.requires_grad_(requires_grad)
    # Schema, fake kernel, autograd registration and AOT dispatch, all checked by torch itself.
    torch.library.opcheck(torch.ops.sum_double.add.default, (a, b))


def _fused(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    # Power-of-two scalings are exact, so compiled and eager results must agree bit for bit.
    return sum_double.add(x * 0.5, y) * 2.0


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
    assert torch.equal(x.grad, grad)
    assert torch.equal(y.grad, 2.0 * grad)


def test_torch_compile_rejects_bad_shapes_at_trace() -> None:
    torch._dynamo.reset()
    compiled = torch.compile(sum_double.add, fullgraph=True, backend="aot_eager")
    with pytest.raises(Exception, match=r"expected a and b to have the same shape.*\[3\].*\[4\]"):
        compiled(torch.randn(3), torch.randn(4))
