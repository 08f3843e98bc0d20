"""The op's autograd: its derivative (``_definition.py``) as two autograd.Functions, and the
Python kernel of torch.ops.sum_double.<NAME> at the Autograd key."""

from typing import Any, TypeVar, cast

import torch
import torch.autograd.forward_ad as _forward_ad
from torch import Tensor

from . import _definition
from ._definition import NAME
from ._ops import BELOW_AUTOGRAD


class _Function(torch.autograd.Function):
    """The derivative in the form torch.func transforms take (``setup_context``).

    A Function called from the op's own autograd kernel fails under ``torch.func.grad`` and
    ``torch.func.jvp`` (functorch runs Functions as an operator of its own, which cannot be entered
    from inside another), so torch.func transforms come here through the public call. Its forward
    is the op below autograd; under vmap that reaches the op's vmap rule, and backward and jvp are
    vmapped as they are.
    """

    generate_vmap_rule = True

    @staticmethod
    def forward(a: Tensor, b: Tensor) -> Tensor:
        return BELOW_AUTOGRAD(a, b)

    setup_context = staticmethod(_definition.setup_context)
    backward = staticmethod(_definition.backward)
    jvp = staticmethod(_definition.jvp)


class _CtxFunction(torch.autograd.Function):
    """The same derivative in the older ``forward(ctx, ...)`` form, which ``apply`` binds without
    ``inspect.signature`` and torch.func transforms refuse: the op's autograd kernel, and the fast
    route's outside torch.func transforms."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        out = BELOW_AUTOGRAD(a, b)
        _definition.setup_context(ctx, (a, b), out)
        return out

    backward = staticmethod(_definition.backward)
    jvp = staticmethod(_definition.jvp)


_F = TypeVar("_F", bound=type[torch.autograd.Function])


def _named(base: _F) -> _F:
    # autograd names a Function's backward node after its class: SumDoubleAddBackward, for both.
    return cast(_F, type(f"SumDouble{NAME.title()}", (base,), {"__module__": __name__}))


Function = _named(_Function)
CtxFunction = _named(_CtxFunction)


def differentiable(a: Tensor, b: Tensor) -> bool:
    """Whether the call goes on autograd's record: an input requires grad, or carries a tangent."""
    return (
        ((a.requires_grad or b.requires_grad) and torch.is_grad_enabled())
        or _forward_ad.unpack_dual(a).tangent is not None
        or _forward_ad.unpack_dual(b).tangent is not None
    )


def _op_autograd(a: Tensor | None, b: Tensor | None) -> Tensor:
    if a is None or b is None or not differentiable(a, b):
        return BELOW_AUTOGRAD(a, b)  # whose checks name a None argument
    try:
        return CtxFunction.apply(a, b)
    except RuntimeError as e:
        # functorch cannot enter a Function from inside an op's autograd kernel, and says so in
        # words that name neither the op nor the way out.
        if "functorch transforms" not in str(e):
            raise
        raise RuntimeError(
            f"torch.ops.sum_double.{NAME} does not work under torch.func.grad or torch.func.jvp "
            f"(its autograd runs inside the op); call sum_double.{NAME}, which does"
        ) from e


# torch.library.register_autograd would build a Function whose forward calls this very op below
# autograd, and compiled graphs, which are traced there, would then call the op and this Python
# kernel on every call (benchmarks/NOTES.md, "Compiled graphs"); here the forward calls _<NAME>,
# which has no autograd kernel.
_LIB = torch.library.Library("sum_double", "IMPL")
_LIB.impl(NAME, _op_autograd, "Autograd")
