"""__torch_function__ overrides and TorchFunctionMode see the op as callers name it,
torch.ops.sum_double.<NAME>, for every call of the public call, whatever its route; values as
ever."""

from typing import Any, ClassVar

import pytest
import torch
from torch import Tensor

from reference import gradients, reference, tangent
from support import OP_PACKET, Op, assert_bitwise_equal


class Logged(Tensor):
    """A subclass whose override records every function it sees."""

    seen: ClassVar[list[object]] = []

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        cls.seen.append(func)
        return super().__torch_function__(func, types, args, kwargs or {})


class LoggedMode(torch.overrides.TorchFunctionMode):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[object] = []

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.seen.append(func)
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("grad", [False, True], ids=["plain", "requires-grad"])
@pytest.mark.parametrize("subclass", ["a", "b"])
def test_a_subclass_override_sees_the_op(
    device: str, wrapper: Op, subclass: str, grad: bool
) -> None:
    a, b = (torch.randn(3, 4, device=device, requires_grad=grad) for _ in range(2))
    x, y = (t.as_subclass(Logged) if name == subclass else t for name, t in (("a", a), ("b", b)))
    Logged.seen.clear()
    out = wrapper(x, y)
    assert Logged.seen == [OP_PACKET]
    assert type(out) is Logged
    assert_bitwise_equal(out.as_subclass(Tensor), reference(a, b))
    if grad:  # through the subclass to the leaves, as the twin's gradients
        t = torch.randn_like(out.as_subclass(Tensor))
        out.backward(t)
        for got, want in zip((a.grad, b.grad), gradients(a, b, t), strict=True):
            assert got is not None
            assert_bitwise_equal(got, want)


@pytest.mark.parametrize("grad", [False, True], ids=["plain", "requires-grad"])
def test_a_mode_sees_the_op(device: str, wrapper: Op, grad: bool) -> None:
    a, b = (torch.randn(3, 4, device=device, requires_grad=grad) for _ in range(2))
    with LoggedMode() as mode:
        out = wrapper(a, b)
    assert mode.seen == [OP_PACKET]
    assert_bitwise_equal(out, reference(a, b))


@pytest.mark.parametrize("context", ["mode", "device"])
def test_torch_func_transforms_under_a_mode(device: str, wrapper: Op, context: str) -> None:
    # A mode is on for whole programs (torch.set_default_device is one): torch.func transforms of
    # the call still work there, though the op's autograd kernel cannot run inside them.
    a, b, t = (torch.randn(3, 4, device=device) for _ in range(3))
    with LoggedMode() if context == "mode" else torch.device(device):
        grad = torch.func.grad(lambda x: (wrapper(x, b) * t).sum())(a)
        _, jvp_out = torch.func.jvp(lambda x: wrapper(x, b), (a,), (t,))
        batched = torch.func.vmap(wrapper)(a, b)
    assert_bitwise_equal(grad, gradients(a, b, t)[0])
    assert_bitwise_equal(jvp_out, tangent(a, b, t, None))
    assert_bitwise_equal(batched, reference(a, b))
