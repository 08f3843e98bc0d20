"""Gradients and forward-mode AD, through every route in (torch.ops.sum_double.add too):
torch.add's bit for bit, uncopied where torch's are; gradcheck; the fast route's fallback when a
private torch name is gone; the op below autograd, which has no derivative of its own."""

import pytest
import torch
import torch.autograd.forward_ad as fwAD

from support import FLOAT_DTYPES, MIXED_AND_BROADCAST, Add, assert_bitwise_equal


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_gradient_is_the_incoming_gradient_uncopied(
    device: str, add: Add, dtype: torch.dtype
) -> None:
    a = torch.randn(5, 7, device=device, dtype=dtype, requires_grad=True)
    b = torch.randn(5, 7, device=device, dtype=dtype, requires_grad=True)
    grad = torch.randn(5, 7, device=device, dtype=dtype)
    ga, gb = torch.autograd.grad(add(a, b), (a, b), grad)
    # d(a + b)/da = d(a + b)/db = identity: the same tensor comes back, no clone (the seed cloned
    # twice).
    assert ga.data_ptr() == grad.data_ptr()
    assert gb.data_ptr() == grad.data_ptr()


@pytest.mark.parametrize("which", ["a", "b"])
def test_one_input_requires_grad(device: str, add: Add, which: str) -> None:
    args = {"a": torch.randn(4, device=device), "b": torch.randn(4, device=device)}
    args[which].requires_grad_()
    out = add(args["a"], args["b"])
    assert out.requires_grad
    grad = torch.randn(4, device=device)
    out.backward(grad)
    assert torch.equal(args[which].grad, grad)


@pytest.mark.parametrize(("a_meta", "b_meta"), MIXED_AND_BROADCAST)
def test_gradients_are_torch_adds(device: str, add: Add, a_meta: tuple, b_meta: tuple) -> None:
    # Each input's gradient has that input's shape and dtype: the incoming gradient summed over
    # the dims it was broadcast along, then cast, with torch.add's own reductions (same bits).
    (a_shape, a_dtype), (b_shape, b_dtype) = a_meta, b_meta
    a = torch.randn(a_shape, device=device, dtype=a_dtype, requires_grad=True)
    b = torch.randn(b_shape, device=device, dtype=b_dtype, requires_grad=True)
    out, ref = add(a, b), torch.add(a, b)
    assert_bitwise_equal(out, ref)
    grad = torch.randn_like(ref) * 3
    ours = torch.autograd.grad(out, (a, b), grad)
    theirs = torch.autograd.grad(ref, (a, b), grad)
    for mine, reference, x in zip(ours, theirs, (a, b), strict=True):
        assert (mine.shape, mine.dtype) == (x.shape, x.dtype)
        assert_bitwise_equal(mine, reference)


@pytest.mark.parametrize(("a_meta", "b_meta"), MIXED_AND_BROADCAST)
def test_forward_ad_is_torch_adds(device: str, add: Add, a_meta: tuple, b_meta: tuple) -> None:
    (a_shape, a_dtype), (b_shape, b_dtype) = a_meta, b_meta
    a, ta = (torch.randn(a_shape, device=device, dtype=a_dtype) for _ in range(2))
    b, tb = (torch.randn(b_shape, device=device, dtype=b_dtype) for _ in range(2))
    for tangents in [(ta, tb), (ta, None), (None, tb)]:
        with fwAD.dual_level():
            duals = [
                x if t is None else fwAD.make_dual(x, t)
                for x, t in zip((a, b), tangents, strict=True)
            ]
            mine = fwAD.unpack_dual(add(*duals)).tangent
            theirs = fwAD.unpack_dual(torch.add(*duals)).tangent
        assert_bitwise_equal(mine, theirs)


def test_gradcheck_broadcast_and_mixed(device: str, add: Add) -> None:
    a = torch.randn(3, 1, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(5, 1, device=device, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(add, (a, b))
    assert torch.autograd.gradgradcheck(add, (a, b))
    c = torch.randn((), device=device, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(add, (a, c))
    assert torch.autograd.gradgradcheck(add, (c, b))


@pytest.mark.filterwarnings("ignore:Input #1 requires gradient and is not a double precision")
def test_gradcheck_mixed_precision(device: str, add: Add) -> None:
    # The derivative is exactly 1 for both inputs; float32's finite differences need a coarser
    # step and tolerance than float64's.
    a = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, device=device, dtype=torch.float32, requires_grad=True)
    assert torch.autograd.gradcheck(add, (a, b), eps=1e-3, atol=1e-3, rtol=1e-3)
    assert torch.autograd.gradgradcheck(add, (a, b), eps=1e-3, atol=1e-3, rtol=1e-3)


def test_no_graph_without_grad(device: str, add: Add) -> None:
    a = torch.randn(4, device=device, requires_grad=True)
    with torch.no_grad():
        assert not add(a, a).requires_grad
    with torch.inference_mode():
        assert not add(a, a).requires_grad
    assert not add(a.detach(), a.detach()).requires_grad


def test_same_tensor_twice_accumulates(device: str, add: Add) -> None:
    a = torch.randn(4, device=device, requires_grad=True)
    add(a, a).sum().backward()
    assert torch.equal(a.grad, torch.full_like(a, 2.0))


def test_forward_mode_ad_through_every_route(device: str, add: Add) -> None:
    # Dual tensors need no requires_grad: a no-grad shortcut that ignored them would silently drop
    # the tangent.
    x, y = torch.randn(5, device=device), torch.randn(5, device=device)
    tx, ty = torch.randn(5, device=device), torch.randn(5, device=device)
    with fwAD.dual_level():
        out = add(fwAD.make_dual(x, tx), y)
        assert torch.equal(fwAD.unpack_dual(out).tangent, tx)
        out = add(fwAD.make_dual(x, tx), fwAD.make_dual(y, ty))
        assert torch.equal(fwAD.unpack_dual(out).tangent, tx + ty)
        assert torch.equal(fwAD.unpack_dual(out).primal, torch.add(x, y))
        out = add(x, fwAD.make_dual(y, ty))
        assert torch.equal(fwAD.unpack_dual(out).tangent, ty)
        assert fwAD.unpack_dual(add(x, y)).tangent is None


def test_forward_and_backward_gradcheck_through_every_route(device: str, add: Add) -> None:
    a = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(add, (a, b), check_forward_ad=True)


def test_below_autograd_the_op_has_no_derivative_of_its_own(device: str) -> None:
    # sum_double._add is what every route calls once autograd is dealt with (and what compiled
    # graphs call). Called directly with an input that requires grad, torch's autograd fallback
    # warns at backward and no gradient reaches the input (docs/limits.md).
    a = torch.randn(3, device=device, requires_grad=True)
    out = torch.ops.sum_double._add(a, a)
    with pytest.warns(UserWarning, match="autograd kernel was not registered"):
        out.sum().backward()
    assert a.grad is None


def test_gradcheck_and_gradgradcheck(device: str, add: Add) -> None:
    a = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 3, device=device, dtype=torch.float64, requires_grad=True).t()
    assert torch.autograd.gradcheck(add, (a, b))
    assert torch.autograd.gradgradcheck(add, (a, b))
