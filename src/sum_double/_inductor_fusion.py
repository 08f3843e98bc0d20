"""Inductor compiles the op as the add it is, fused into its neighbours' kernels, on torch's private
lowering table. Optional: delete this file, its two lines in ``_ops.py`` (the import and
``lower_as_add``'s call) and ``tests/test_inductor_fusion.py``; compiled graphs then call the op's
kernel once per add.

Why: inductor cannot fuse across a custom op, so each call would be a call through the dispatcher
from inductor's code and a kernel of its own (benchmarks/NOTES.md, "Compiled graphs"). Lowered
as ``aten.add``, it costs what torch.add costs there; an op with no ATen twin has no such way.
``SUM_DOUBLE_INDUCTOR_FUSION=0`` keeps the op's own kernel (docs/performance.md).
"""

import os
from collections.abc import Callable, Sequence
from typing import Any

import torch

from ._after_import import call_after_import

_SWITCH = "SUM_DOUBLE_INDUCTOR_FUSION"


def enabled() -> bool:
    """Whether inductor lowers the op as an add: read on each lowering, so a process can change
    it between compiles (inductor's caches keep what was compiled before)."""
    return os.environ.get(_SWITCH, "1") != "0"


def lower_as_add(ops: Sequence[torch._ops.OpOverload]) -> None:
    """Give inductor a lowering of ``ops`` that is ``aten.add.Tensor``'s, once inductor's lowering
    table is loaded (it takes seconds to import, so this waits for whoever imports it)."""
    call_after_import("torch._inductor.lowering", lambda: _register(ops))


def _register(ops: Sequence[torch._ops.OpOverload]) -> None:
    from torch._inductor import lowering

    try:
        add = lowering.lowerings[torch.ops.aten.add.Tensor]
        fallback_handler = lowering.fallback_handler
    except (AttributeError, KeyError):  # a torch without these names: inductor calls the op
        return
    for op in ops:
        lowering.lowerings[op] = _lowering(add, fallback_handler(op, add_to_fallback_set=False))


def _lowering(add: Callable[..., Any], call_op: Callable[..., Any]) -> Callable[..., Any]:
    # The fake kernel has already checked the inputs, and given the result torch.add's dtype,
    # shape and strides, which inductor keeps for a graph's outputs.
    def lower(a: Any, b: Any) -> Any:
        return add(a, b) if enabled() else call_op(a, b)

    return lower
