"""Optional: the op's sharding rule for DTensor (FSDP2, tensor parallelism). Delete this file, its
line in ``__init__.py``, ``tests/test_distributed.py`` and ``tests/distributed_*.py``, and DTensor
refuses the op.

It goes to DTensor through ``register_sharding``, the API torch offers custom ops for this
(experimental, and the same from torch 2.10 to 2.15), once ``torch.distributed.tensor`` is
imported, by whoever imports it (``_after_import.py``): importing it here would make
``import sum_double`` about a second slower for everyone who never shards.
"""

from typing import Any, Protocol

import torch

from ._after_import import call_after_import
from ._ops import OPS

_DTENSOR = "torch.distributed.tensor"


class _Spec(Protocol):
    """What DTensor passes a sharding rule for a tensor argument: of it, the rule reads shape and
    placements.

    It is a ``DTensorSpec``: the argument's global shape, stride and dtype (``tensor_meta``), and
    its placements as they are now. The rule lists every strategy whatever those placements are
    (DTensor prices moving the inputs to each), and the same for every dtype: promotion happens
    within each rank's local add, so it changes no placement.
    """

    @property
    def shape(self) -> torch.Size: ...

    @property
    def placements(self) -> tuple[Any, ...]: ...


def _register() -> None:
    try:
        from torch.distributed.tensor import Partial, Placement, Replicate, Shard
        from torch.distributed.tensor.experimental import register_sharding
    except ImportError:  # a torch without the API: the op still works, on plain tensors
        return

    def follow(x: _Spec, out_shape: torch.Size, d: int) -> Placement:
        """x's placement for a result sharded on its dim d: that dim's shard, or all of x.

        Broadcasting aligns dims from the right; a dim x lacks, or has as 1 where the result has
        more, is read whole by every shard of the result, so x is then a replica.
        """
        x_dim = d - (len(out_shape) - len(x.shape))
        if x_dim >= 0 and x.shape[x_dim] == out_shape[d]:
            return Shard(x_dim)
        return Replicate()

    def partial_rules(p: Placement) -> list[tuple[list[Placement], list[Placement]]]:
        """The op's own part of the rule: the inputs' placements from which the result is the
        Partial ``p`` with no communication, where the op is linear (a product is in one input
        while the other is a replica; a nonlinear op is in neither: return [])."""
        return [([p], [p, p])]  # an add is linear in each input, broadcast or not

    def _sharding(a: _Spec, b: _Spec) -> list[tuple[list[Placement], list[Placement]]]:
        # The strategies of torch's pointwise rule, of which DTensor picks the one that costs least
        # to move the inputs to, the first listed among equals: their order matters (replicas
        # first; shards before partials, so that an op with a partial rule beside a replica moves
        # a partial input into the other's shard rather than gathering that shard). Elementwise:
        # replicas give a replica, and a result sharded on dim d needs of each input the rows of
        # that shard (its own dim's shard where it has the dim at full size, else, broadcast, all
        # of it). Non-broadcasting shapes never get here: the fake kernel, run first for the
        # result's shape, raises the op's own error.
        shape = torch.broadcast_shapes(a.shape, b.shape)
        # Partial results only of the kind the inputs already hold, if any: DTensor before 2.12
        # turned partial maxima or means into partial sums as if that were free, with wrong values.
        held = {p.reduce_op for x in (a, b) for p in x.placements if p.is_partial()}
        partials = [Partial(op) for op in ("sum", "avg") if held <= {op}]
        rules: list[tuple[list[Placement], list[Placement]]] = [([Replicate()], [Replicate()] * 2)]
        for d in range(len(shape)):
            rules.append(([Shard(d)], [follow(a, shape, d), follow(b, shape, d)]))
        for p in partials:
            rules += partial_rules(p)
        return rules

    # The op, and its name below autograd (_ops.py), which DTensor meets once autograd is done.
    for op in OPS:
        register_sharding(op)(_sharding)


call_after_import(_DTENSOR, _register)
