"""The fast route of ``sum_double.add``: the public route's results for less host time, on torch's
private names. Optional: delete this file, its two lines in ``_ops.py`` (the import and
``make_fast_route``'s call: ``_route`` is then ``_public_route``) and the fast-route tests.

What each name buys: knowing that no torch.func transform is active lets a call take a Function in
the ``forward(ctx, ...)`` form, which ``apply`` binds without ``inspect.signature``, and call the C
half of ``apply`` itself; the forward-AD level stands in for two ``unpack_dual`` calls.
"""

from collections.abc import Callable

import torch
import torch.autograd.forward_ad as _forward_ad
from torch import Tensor


def make_fast_route(
    add: type[torch.autograd.Function],
    op_add: type[torch.autograd.Function],
    op: Callable[[Tensor, Tensor], Tensor],
) -> Callable[[Tensor, Tensor], Tensor] | None:
    """The fast route around ``op`` (the op below autograd), or None where this torch lacks a name
    it reads (then the public route runs). ``add`` and ``op_add`` are ``_ops._Add`` and
    ``_ops._OpAdd``, the derivative in the form torch.func transforms take and in the older
    ``forward(ctx, ...)`` form, which costs less outside them."""
    try:
        functorch_active = torch._C._are_functorch_transforms_active
        unwrap_if_dead = torch._C._functorch.unwrap_if_dead
    except AttributeError:
        return None
    if not hasattr(_forward_ad, "_current_level"):  # read on each call: dual_level() rebinds it
        return None
    # Function.apply is Python up to torch 2.13 (C from 2.14): outside a torch.func transform,
    # all it does for op_add is unwrap tensors that escaped one, then call this. (mypy follows
    # super() only for a class it can name.)
    apply = super(torch.autograd.Function, op_add).apply  # type: ignore[misc]

    def fast_route(a: Tensor, b: Tensor) -> Tensor:
        if (
            (a.requires_grad or b.requires_grad) and torch.is_grad_enabled()
        ) or _forward_ad._current_level >= 0:
            if functorch_active():
                return add.apply(a, b)
            return apply(unwrap_if_dead(a), unwrap_if_dead(b))
        # Nothing to differentiate: the op without autograd. Every other dispatch key
        # (FakeTensorMode, functionalization, vmap, ...) still sees the call.
        return op(a, b)

    return fast_route
