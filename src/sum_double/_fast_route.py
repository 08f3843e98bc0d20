"""Optional: the fast route of the public call, the public route's results for less host time, on
torch's private names. Delete this file, its line in ``__init__.py`` and
``tests/test_fast_route.py``, and calls take the public route.

What each name buys: knowing that no torch.func transform is active lets a call take a Function in
the ``forward(ctx, ...)`` form, which ``apply`` binds without ``inspect.signature``, and call the C
half of ``apply`` itself; the forward-AD level stands in for two ``unpack_dual`` calls.
"""

import torch
import torch.autograd.forward_ad as _forward_ad
from torch import Tensor

from ._autograd import CtxFunction, Function
from ._ops import BELOW_AUTOGRAD, OP_PACKET
from ._public import Route, use_route


def make_fast_route() -> Route | None:
    """The fast route, or None where this torch lacks a name it reads (then the public route
    runs)."""
    try:
        functorch_active = torch._C._are_functorch_transforms_active
        unwrap_if_dead = torch._C._functorch.unwrap_if_dead
        is_tracing = torch._C._is_tracing  # torch.jit.is_tracing less its Python
    except AttributeError:
        return None
    has_torch_function = torch.overrides.has_torch_function_variadic
    if not hasattr(_forward_ad, "_current_level"):  # read on each call: dual_level() rebinds it
        return None
    # Function.apply is Python up to torch 2.13 (C from 2.14): outside a torch.func transform,
    # all it does for CtxFunction is unwrap tensors that escaped one, then call this.
    apply = super(torch.autograd.Function, CtxFunction).apply

    def fast_route(a: Tensor, b: Tensor) -> Tensor:
        if (has_torch_function(a, b) or is_tracing()) and not functorch_active():
            return OP_PACKET(a, b)  # the public route's reasons
        if (
            (a.requires_grad or b.requires_grad) and torch.is_grad_enabled()
        ) or _forward_ad._current_level >= 0:
            if functorch_active():
                return Function.apply(a, b)
            return apply(unwrap_if_dead(a), unwrap_if_dead(b))
        # Nothing to differentiate: the op without autograd. Every other dispatch key
        # (FakeTensorMode, functionalization, vmap, ...) still sees the call.
        return BELOW_AUTOGRAD(a, b)

    return fast_route


route = make_fast_route()
if route is not None:
    use_route(route)
