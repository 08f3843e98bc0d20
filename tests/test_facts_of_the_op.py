"""The facts of the op alone, which hold of no other op: its derivatives, through every route and
in every dtype, and the arguments of its twin that it refuses. A copier replaces this file with
its own op's facts (and tests/reference.py); every other test compares the op with
tests/reference.py, which is how they run unchanged for another op."""

import re

import pytest
import torch
import torch.autograd.forward_ad as fwAD
from torch import Tensor

import sum_double
from sum_double._public import _refuse_alpha

from reference import TWIN_NAME, reference
from support import FLOAT_DTYPES, OP_PACKET, QUALNAME, Op, assert_bitwise_equal, op


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


# Each of derivatives() as the op has it, of x, y and t.
FACTS = {
    "grad-of-a": lambda x, y, t: t,
    "grad-of-b": lambda x, y, t: t,
    "grad-of-a-and-a": lambda x, y, t: 2 * t,
    "jacobian-in-a": lambda x, y, t: torch.eye(5, dtype=x.dtype, device=x.device),
    "jacobian-in-b": lambda x, y, t: torch.eye(5, dtype=x.dtype, device=x.device),
    "tangent-in-a": lambda x, y, t: t,
    "tangent-in-both": lambda x, y, t: t + 2 * t,
}
# Those that are t itself, not a copy (the add's backward hands it on; the seed cloned it twice).
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


# torch.add's alpha=, which the op refuses with the way out (the same words compiled and traced).
ALPHA = f"{QUALNAME}(): alpha is not supported; write {QUALNAME}(a, b * {{s}}), which rounds b * "
ALPHA += f"{{s}} to b's dtype before the add ({TWIN_NAME}(a, b, alpha={{s}}) may round only once)"


@pytest.mark.parametrize("alpha", [2, 0.5, -1])
def test_alpha_is_refused_with_the_way_out(wrapper: Op, alpha: float) -> None:
    a, b = torch.randn(5), torch.randn(5)
    with pytest.raises(TypeError) as info:
        wrapper(a, b, alpha=alpha)
    assert type(info.value) is TypeError
    assert str(info.value) == ALPHA.format(s=alpha)
    # The advice, as written, runs; and its value is the reference's of the same rounded operands.
    advised = eval(f"{QUALNAME}(a, b * {alpha})", {"sum_double": sum_double, "a": a, "b": b})
    assert_bitwise_equal(advised, reference(a, b * alpha))
    with pytest.raises(RuntimeError, match=r"expected at most 2 argument\(s\) but received 3"):
        OP_PACKET(a, b, alpha=alpha)  # torch.ops: the schema's words
    torch._dynamo.reset()
    with pytest.raises(RuntimeError, match=re.escape(ALPHA.format(s=alpha))):
        torch.compile(op, fullgraph=True)(a, b, alpha=alpha)


def test_alpha_none_is_the_default_and_a_tensor_is_named_alpha() -> None:
    a, b = torch.randn(5), torch.randn(5)
    assert_bitwise_equal(op(a, b, alpha=None), reference(a, b))
    with pytest.raises(TypeError, match=re.escape(f"write {QUALNAME}(a, b * alpha)")):
        op(a, b, alpha=torch.tensor(2.0))
    # FX traces alpha as a Proxy, which stands for any value: the graph keeps the check.
    traced = torch.fx.symbolic_trace(lambda x, y, s: op(x, y, alpha=s))
    assert next(n.target for n in traced.graph.nodes if n.op == "call_function") is _refuse_alpha
    with pytest.raises(TypeError, match="alpha is not supported"):
        traced(a, b, 3.0)
    assert_bitwise_equal(traced(a, b, None), reference(a, b))
