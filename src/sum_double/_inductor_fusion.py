"""Inductor compiles the op as the add it is, fused into its neighbours' kernels as torch.add is, on
torch's private decomposition and lowering tables. Optional: delete this file, its two lines in
``_ops.py`` (the import and ``lower_as_add``'s call) and ``tests/test_inductor_fusion.py``; compiled
graphs then call the op's kernel once per add.

Why: inductor cannot fuse across a custom op, so each call would be a call through the dispatcher
from inductor's code and a kernel of its own (benchmarks/NOTES.md, "Compiled graphs"). Decomposed
to ``aten.add`` as inductor traces the graph, it is torch.add there: the same graph, kernels and
results. An op with no ATen twin has no such way. ``SUM_DOUBLE_INDUCTOR_FUSION=0`` keeps the op's
own kernel (docs/performance.md).
"""

import os
from collections.abc import Sequence

import torch
from torch import Tensor

from ._after_import import call_after_import

_SWITCH = "SUM_DOUBLE_INDUCTOR_FUSION"


def enabled() -> bool:
    """Whether inductor traces the op as an add: read on each compile, so a process can change it
    between compiles (inductor's caches keep what was compiled before)."""
    return os.environ.get(_SWITCH, "1") != "0"


def lower_as_add(ops: Sequence[torch._ops.OpOverload]) -> None:
    """Have inductor trace ``ops`` as ``aten.add.Tensor``, once its tables are loaded (they take
    seconds to import, so this waits for whoever imports them)."""
    call_after_import("torch._inductor.lowering", lambda: _register(ops))


def _as_add(a: Tensor, b: Tensor) -> Tensor:
    # The fake kernel has already checked the inputs; aten.add gives the result the op's dtype,
    # shape and strides. NotImplemented leaves the op in the graph.
    return torch.ops.aten.add.Tensor(a, b) if enabled() else NotImplemented


def _register(ops: Sequence[torch._ops.OpOverload]) -> None:
    from torch._inductor import decomposition, lowering  # loaded: lowering imports decomposition

    try:
        table, lowerings = decomposition.decompositions, lowering.lowerings
        fallback_handler = lowering.fallback_handler
    except AttributeError:  # a torch without these names: inductor calls the op
        return
    for op in ops:
        table[op] = _as_add
        # With fusion off the op stays in the graph, and inductor refuses to call an op that has
        # a decomposition unless the op has a lowering: this one is that call.
        lowerings[op] = fallback_handler(op, add_to_fallback_set=False)
    # Inductor copies the table once, on first use (functools.cache): a copy made before now
    # would lack the op.
    getattr(decomposition.fast_random_decomps, "cache_clear", lambda: None)()
