"""The facts of the add alone, which hold of no other op: its derivatives, through every route and
in every dtype. A copier replaces FACTS with its own op's (and tests/reference.py); every other
test compares the op with tests/reference.py, which is how they run unchanged for another op."""

import pytest
import torch
import torch.autograd.forward_ad as fwAD

from support import FLOAT_DTYPES, Op


def _tangent(f: Op, x: torch.Tensor, y: torch.Tensor, tx: torch.Tensor, ty: object) -> object:
    with fwAD.dual_level():
        y = y if ty is None else fwAD.make_dual(y, ty)
        return fwAD.unpack_dual(f(fwAD.make_dual(x, tx), y)).tangent


def _grads(f: Op, x: torch.Tensor, y: torch.Tensor, t: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return torch.autograd.grad(f(x, y), (x, y), t)


# Each, of the op f (one route) at x and y (5 elements each, requiring grad) and a tensor t beside.
FACTS = {
    # d(a + b)/da = d(a + b)/db = identity: the incoming gradient itself comes back, no clone (the
    # seed cloned twice), to each input.
    "gradient-uncopied": lambda f, x, y, t: all(
        g.data_ptr() == t.data_ptr() for g in _grads(f, x, y, t)
    ),
    "a+a-gradient-2t": lambda f, x, y, t: torch.equal(torch.autograd.grad(f(x, x), x, t)[0], 2 * t),
    "jacobian-identity": lambda f, x, y, t: all(
        torch.equal(j, torch.eye(5, dtype=x.dtype, device=x.device))
        for j in torch.autograd.functional.jacobian(f, (x, y))
    ),
    "tangent-of-a": lambda f, x, y, t: torch.equal(_tangent(f, x.detach(), y.detach(), t, None), t),
    "tangent-of-both": lambda f, x, y, t: torch.equal(
        _tangent(f, x.detach(), y.detach(), t, 2 * t), t + 2 * t
    ),
}


@pytest.mark.parametrize("fact", list(FACTS))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_the_ops_facts(device: str, call: Op, dtype: torch.dtype, fact: str) -> None:
    x, y = (torch.randn(5, device=device, dtype=dtype, requires_grad=True) for _ in range(2))
    assert FACTS[fact](call, x, y, torch.randn(5, device=device, dtype=dtype))
