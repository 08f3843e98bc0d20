"""The facts of the add alone, which hold of no other op: its derivatives, through every route and
in every dtype. A copier replaces FACTS with its own op's (and tests/reference.py); every other
test compares the op with tests/reference.py, which is how they run unchanged for another op."""

import pytest
import torch
import torch.autograd.forward_ad as fwAD
from torch import Tensor

from support import FLOAT_DTYPES, Op


def _tangent(f: Op, x: Tensor, y: Tensor, tx: Tensor | None, ty: Tensor | None) -> Tensor:
    with fwAD.dual_level():
        x, y = (v if t is None else fwAD.make_dual(v, t) for v, t in ((x, tx), (y, ty)))
        return fwAD.unpack_dual(f(x, y)).tangent


def derivatives(f: Op, x: Tensor, y: Tensor, t: Tensor) -> dict[str, Tensor]:
    """What FACTS are about: the op f's derivatives at x and y (5 elements each), for t."""
    xr, yr = (v.detach().requires_grad_() for v in (x, y))
    ga, gb = torch.autograd.grad(f(xr, yr), (xr, yr), t)
    ja, jb = torch.autograd.functional.jacobian(f, (x, y))
    return {
        "grad-of-a": ga,
        "grad-of-b": gb,
        "grad-of-a-and-a": torch.autograd.grad(f(xr, xr), xr, t)[0],
        "jacobian-in-a": ja,
        "jacobian-in-b": jb,
        "tangent-in-a": _tangent(f, x, y, t, None),
        "tangent-in-both": _tangent(f, x, y, t, 2 * t),
    }


# Each of derivatives() as the add has it, of x, y and t.
FACTS = {
    "grad-of-a": lambda x, y, t: t,
    "grad-of-b": lambda x, y, t: t,
    "grad-of-a-and-a": lambda x, y, t: 2 * t,
    "jacobian-in-a": lambda x, y, t: torch.eye(5, dtype=x.dtype, device=x.device),
    "jacobian-in-b": lambda x, y, t: torch.eye(5, dtype=x.dtype, device=x.device),
    "tangent-in-a": lambda x, y, t: t,
    "tangent-in-both": lambda x, y, t: t + 2 * t,
}
# Those that are t itself, not a copy: d(a + b)/da = d(a + b)/db = identity, so the backward hands
# the incoming gradient on as it is (the seed cloned twice).
UNCOPIED = {"grad-of-a", "grad-of-b"}


@pytest.mark.parametrize("fact", list(FACTS))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_the_ops_facts(device: str, call: Op, dtype: torch.dtype, fact: str) -> None:
    x, y, t = (torch.randn(5, device=device, dtype=dtype) for _ in range(3))
    got = derivatives(call, x, y, t)
    assert set(got) == set(FACTS) >= UNCOPIED
    assert torch.equal(got[fact], FACTS[fact](x, y, t))
    if fact in UNCOPIED:
        assert got[fact].data_ptr() == t.data_ptr(), "a copy"
