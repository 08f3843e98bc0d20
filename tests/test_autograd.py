"""Gradients and forward-mode AD, through every route in (torch.ops.sum_double.<NAME> too): the
reference's bit for bit (tests/reference.py); gradcheck; the op below autograd, which has no
derivative of its own. What holds of the add's derivative alone: test_facts_of_the_op.py."""

import pytest
import torch
import torch.autograd.forward_ad as fwAD

from reference import gradients, reference, tangent
from support import BELOW_AUTOGRAD, MIXED_AND_BROADCAST, Op, assert_bitwise_equal


@pytest.mark.parametrize("which", ["a", "b"])
def test_one_input_requires_grad(device: str, call: Op, which: str) -> None:
    args = {"a": torch.randn(4, device=device), "b": torch.randn(4, device=device)}
    args[which].requires_grad_()
    out = call(args["a"], args["b"])
    assert out.requires_grad
    grad = torch.randn(4, device=device)
    out.backward(grad)
    expected = gradients(args["a"], args["b"], grad)["ab".index(which)]
    assert torch.equal(args[which].grad, expected)


@pytest.mark.parametrize(("a_meta", "b_meta"), MIXED_AND_BROADCAST)
def test_gradients_are_the_references(device: str, call: Op, a_meta: tuple, b_meta: tuple) -> None:
    # Each input's gradient has that input's shape and dtype: summed over the dims it was
    # broadcast along, then cast, with the twin's own reductions (same bits).
    (a_shape, a_dtype), (b_shape, b_dtype) = a_meta, b_meta
    a = torch.randn(a_shape, device=device, dtype=a_dtype, requires_grad=True)
    b = torch.randn(b_shape, device=device, dtype=b_dtype, requires_grad=True)
    out, ref = call(a, b), reference(a, b)
    assert_bitwise_equal(out, ref)
    grad = torch.randn_like(ref) * 3
    ours = torch.autograd.grad(out, (a, b), grad)
    theirs = gradients(a, b, grad)
    for mine, want, x in zip(ours, theirs, (a, b), strict=True):
        assert (mine.shape, mine.dtype) == (x.shape, x.dtype)
        assert_bitwise_equal(mine, want)


@pytest.mark.parametrize(("a_meta", "b_meta"), MIXED_AND_BROADCAST)
def test_forward_ad_is_the_references(device: str, call: Op, a_meta: tuple, b_meta: tuple) -> None:
    (a_shape, a_dtype), (b_shape, b_dtype) = a_meta, b_meta
    a, ta = (torch.randn(a_shape, device=device, dtype=a_dtype) for _ in range(2))
    b, tb = (torch.randn(b_shape, device=device, dtype=b_dtype) for _ in range(2))
    for tangents in [(ta, tb), (ta, None), (None, tb)]:
        with fwAD.dual_level():
            duals = [
                x if t is None else fwAD.make_dual(x, t)
                for x, t in zip((a, b), tangents, strict=True)
            ]
            mine = fwAD.unpack_dual(call(*duals)).tangent
        assert_bitwise_equal(mine, tangent(a, b, *tangents))


def test_gradcheck_broadcast_and_mixed(device: str, call: Op) -> None:
    a = torch.randn(3, 1, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(5, 1, device=device, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(call, (a, b))
    assert torch.autograd.gradgradcheck(call, (a, b))
    c = torch.randn((), device=device, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(call, (a, c))
    assert torch.autograd.gradgradcheck(call, (c, b))


@pytest.mark.filterwarnings("ignore:Input #1 requires gradient and is not a double precision")
def test_gradcheck_mixed_precision(device: str, call: Op) -> None:
    # float32's finite differences need a coarser step and tolerance than float64's.
    a = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, device=device, dtype=torch.float32, requires_grad=True)
    assert torch.autograd.gradcheck(call, (a, b), eps=1e-3, atol=1e-3, rtol=1e-3)
    assert torch.autograd.gradgradcheck(call, (a, b), eps=1e-3, atol=1e-3, rtol=1e-3)


def test_no_graph_without_grad(device: str, call: Op) -> None:
    a = torch.randn(4, device=device, requires_grad=True)
    with torch.no_grad():
        assert not call(a, a).requires_grad
    with torch.inference_mode():
        assert not call(a, a).requires_grad
    assert not call(a.detach(), a.detach()).requires_grad


def test_same_tensor_twice_accumulates(device: str, call: Op) -> None:
    a = torch.randn(4, device=device, requires_grad=True)
    call(a, a).sum().backward()
    ref = a.detach().requires_grad_()
    reference(ref, ref).sum().backward()
    assert torch.equal(a.grad, ref.grad)


def test_forward_mode_ad_through_every_route(device: str, call: Op) -> None:
    # Dual tensors need no requires_grad: a no-grad shortcut that ignored them would silently drop
    # the tangent.
    x, y = torch.randn(5, device=device), torch.randn(5, device=device)
    tx, ty = torch.randn(5, device=device), torch.randn(5, device=device)
    # The reference's first: forward AD has one level at a time.
    want = {which: tangent(x, y, *which) for which in ((tx, None), (tx, ty), (None, ty))}
    with fwAD.dual_level():
        out = call(fwAD.make_dual(x, tx), y)
        assert torch.equal(fwAD.unpack_dual(out).tangent, want[tx, None])
        out = call(fwAD.make_dual(x, tx), fwAD.make_dual(y, ty))
        assert torch.equal(fwAD.unpack_dual(out).tangent, want[tx, ty])
        assert torch.equal(fwAD.unpack_dual(out).primal, reference(x, y))
        out = call(x, fwAD.make_dual(y, ty))
        assert torch.equal(fwAD.unpack_dual(out).tangent, want[None, ty])
        assert fwAD.unpack_dual(call(x, y)).tangent is None


def test_forward_and_backward_gradcheck_through_every_route(device: str, call: Op) -> None:
    a = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(call, (a, b), check_forward_ad=True)


def test_below_autograd_the_op_has_no_derivative_of_its_own(device: str) -> None:
    # sum_double._<NAME> is what every route calls once autograd is dealt with (and what compiled
    # graphs call). Called directly with an input that requires grad, torch's autograd fallback
    # warns at backward and no gradient reaches the input (docs/limits.md).
    a = torch.randn(3, device=device, requires_grad=True)
    out = BELOW_AUTOGRAD(a, a)
    with pytest.warns(UserWarning, match="autograd kernel was not registered"):
        out.sum().backward()
    assert a.grad is None


def test_gradcheck_and_gradgradcheck(device: str, call: Op) -> None:
    a = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 3, device=device, dtype=torch.float64, requires_grad=True).t()
    assert torch.autograd.gradcheck(call, (a, b))
    assert torch.autograd.gradgradcheck(call, (a, b))
