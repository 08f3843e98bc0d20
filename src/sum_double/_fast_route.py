"""The fast route of ``sum_double.add``: the public route's results for less host time, on torch's
private names. Optional: delete this file, its two lines in ``_ops.py`` (the import and
``make_fast_route``'s call: ``_route`` is then ``_public_route``) and the fast-route tests.

What each name buys: entering below autograd skips the op's Python autograd kernel; knowing that
no torch.func transform is active lets a call take a Function in the ``forward(ctx, ...)`` form,
which ``apply`` binds without ``inspect.signature``, and call the C half of ``apply`` itself; the
forward-AD level stands in for two ``unpack_dual`` calls.
"""

from collections.abc import Callable
from typing import Any

import torch
import torch.autograd.forward_ad as _forward_ad
from torch import Tensor


def make_fast_route(
    add: type[torch.autograd.Function],
) -> Callable[[Tensor, Tensor], Tensor] | None:
    """The fast route around the op, with ``add``'s derivative, or None where this torch lacks a
    name it reads (then the public route runs). ``add`` is ``_ops._Add``: it still serves calls
    under a torch.func transform."""
    try:
        below_autograd = torch._C._AutoDispatchBelowAutograd
        functorch_active = torch._C._are_functorch_transforms_active
        unwrap_if_dead = torch._C._functorch.unwrap_if_dead
    except AttributeError:
        return None
    if not hasattr(_forward_ad, "_current_level"):  # read on each call: dual_level() rebinds it
        return None
    op = torch.ops.sum_double.add.default

    class AddOutsideFunc(torch.autograd.Function):
        """``add`` in the older ``forward(ctx, ...)`` form, which torch.func transforms refuse."""

        @staticmethod
        def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
            if _forward_ad._current_level >= 0:  # only jvp reads the context
                add.setup_context(ctx, (a, b), None)
            with below_autograd():
                return op(a, b)

        backward = staticmethod(add.backward)
        jvp = staticmethod(add.jvp)

    # Function.apply is Python up to torch 2.13 (C from 2.14): outside a torch.func transform,
    # all it does for this Function is unwrap tensors that escaped one, then call this.
    apply = super(torch.autograd.Function, AddOutsideFunc).apply

    def fast_route(a: Tensor, b: Tensor) -> Tensor:
        if (
            (a.requires_grad or b.requires_grad) and torch.is_grad_enabled()
        ) or _forward_ad._current_level >= 0:
            if functorch_active():
                return add.apply(a, b)
            return apply(unwrap_if_dead(a), unwrap_if_dead(b))
        # Nothing to differentiate: skip autograd as C++ ops do. Every other dispatch key
        # (FakeTensorMode, functionalization, vmap, ...) still sees the call.
        with below_autograd():
            return op(a, b)

    return fast_route
