"""Optional: inductor compiles the op as its ATen twin, fused into its neighbours' kernels as that
op is, on torch's private decomposition and lowering tables. Delete this file, its line in
``__init__.py`` and ``tests/test_inductor_fusion.py``; compiled graphs then call the op's kernel
once per call.

Why: inductor cannot fuse across a custom op, so each call would be a call through the dispatcher
from inductor's code and a kernel of its own (benchmarks/NOTES.md, "Compiled graphs"). Decomposed
to ``aten.add`` as inductor traces the graph, it is torch.add there: the same graph, kernels and
results. An op with no ATen twin has no such way. ``SUM_DOUBLE_INDUCTOR_FUSION=0`` keeps the op's
own kernel (docs/performance.md).
"""

import os
from collections.abc import Callable, Collection, Sequence

import torch
from torch import Tensor

from . import _C
from ._after_import import call_after_import
from ._fake import fake
from ._ops import OPS


def twin(a: Tensor, b: Tensor) -> Tensor:
    """The op in ATen ops, with the op's dtype, shape and strides: the op's own part here."""
    return torch.ops.aten.add.Tensor(a, b)


_SWITCH = "SUM_DOUBLE_INDUCTOR_FUSION"


def enabled() -> bool:
    """Whether inductor traces the op as an add: read on each compile, so a process can change it
    between compiles (AOT autograd's cache keeps what was compiled before)."""
    return os.environ.get(_SWITCH, "1").strip().lower() not in ("0", "false", "off", "no")


def decompose_as_twin(
    ops: Sequence[torch._ops.OpOverload],
    check: Callable[[Tensor, Tensor], object],
    devices: Collection[str],
) -> None:
    """Have inductor trace ``ops`` as ``twin``, once its tables are loaded (they take seconds to
    import, so this waits for whoever imports them). ``check`` is the op's fake kernel: its checks
    of the inputs; on a device type not in ``devices`` the op stays, and refuses."""

    def as_twin(a: Tensor, b: Tensor) -> Tensor:
        check(a, b)  # as the op would: a graph traced here may not have met its fake kernel
        if not enabled() or a.device.type not in devices:
            return NotImplemented  # the op stays in the graph
        return twin(a, b)

    call_after_import("torch._inductor.lowering", lambda: _register(ops, as_twin))


def _register(ops: Sequence[torch._ops.OpOverload], as_twin: Callable[..., Tensor]) -> None:
    from torch._inductor import decomposition, lowering  # loaded: lowering imports decomposition

    # Every name first, so that a torch without one changes nothing: inductor then calls the op.
    table = getattr(decomposition, "decompositions", None)
    lowerings = getattr(lowering, "lowerings", None)
    fallback_handler = getattr(lowering, "fallback_handler", None)
    copies = getattr(decomposition, "fast_random_decomps", None)
    if table is None or lowerings is None or fallback_handler is None or copies is None:
        return
    calls = {op: fallback_handler(op, add_to_fallback_set=False) for op in ops}
    for op in ops:
        table[op] = as_twin
        # With fusion off the op stays in the graph, and inductor refuses to call an op that has
        # a decomposition unless the op has a lowering: this one is that call.
        lowerings[op] = calls[op]
    # Inductor copies the table once, on first use (functools.cache): a copy made before now
    # would lack the op.
    getattr(copies, "cache_clear", lambda: None)()


# On the devices this build has kernels for; elsewhere a graph calls the op, which refuses as it
# does eagerly.
decompose_as_twin(OPS, fake, ("cpu",) if _C.cpu_only else ("cpu", "cuda"))
