"""The sharding rule of torch.ops.sum_double.add for DTensor (FSDP2, tensor parallelism).

It goes to DTensor through ``register_sharding``, the API torch offers custom ops for this
(experimental, and the same from torch 2.10 to 2.15), once ``torch.distributed.tensor`` is
imported, by whoever imports it: importing it here would add about a second to
``import sum_double`` for everyone who never shards.
"""

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Protocol

import torch

_DTENSOR = "torch.distributed.tensor"


class _Spec(Protocol):
    """What DTensor passes a sharding rule for a tensor argument: of it, the rule reads shape.

    It is a ``DTensorSpec``: the argument's global shape, stride and dtype (``tensor_meta``), and
    its placements as they are now. The rule lists every strategy whatever those placements are
    (DTensor prices moving the inputs to each), and the same for every dtype: promotion happens
    within each rank's local add, so it changes no placement.
    """

    @property
    def shape(self) -> torch.Size: ...


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

    @register_sharding(torch.ops.sum_double.add.default)
    def _add_sharding(a: _Spec, b: _Spec) -> list[tuple[list[Placement], list[Placement]]]:
        # The strategies of torch.add (DTensor's pointwise rule with its additive extras), of
        # which DTensor picks the one that costs least to move the inputs to. Elementwise and
        # linear: replicas add up to a replica, partial sums or means of a and b (broadcast or
        # not) to partial ones of a + b, with no communication. A result sharded on dim d needs
        # of each input the rows of that shard: its own dim's shard where it has the dim at full
        # size, else (broadcast) all of it. A replica added to every rank's partial mean, max or
        # min keeps it one (rounding is monotonic: max and min commute with it exactly).
        # Non-broadcasting shapes never get here: the fake kernel, run first for the result's
        # shape, raises the op's own error.
        shape = torch.broadcast_shapes(a.shape, b.shape)
        rules: list[tuple[list[Placement], list[Placement]]] = [
            ([p], [p, p]) for p in (Replicate(), Partial("sum"), Partial("avg"))
        ]
        for d in range(len(shape)):
            rules.append(([Shard(d)], [follow(a, shape, d), follow(b, shape, d)]))
        for reduce_op in ("avg", "max", "min"):
            rules.append(([Partial(reduce_op)], [Partial(reduce_op), Replicate()]))
        # Not R + P(max or min): torch.add leaves it out (for sub's sake, whose negative alpha
        # would turn a max into a min), and so does the op. There DTensor's costs differ: the
        # op reduce-scatters the maxima into a Shard, torch.add all-reduces them (a Replicate).
        rules.append(([Partial("avg")], [Replicate(), Partial("avg")]))
        return rules


class _RegisterOnImport(importlib.abc.MetaPathFinder):
    """Registers the rule right after ``torch.distributed.tensor`` first runs, then leaves.

    It finds nothing itself: it takes the module's spec from the finders after it and has the
    spec's loader call ``_register`` once the module is executed (DTensor's registry lives there).
    """

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != _DTENSOR:
            return None
        for finder in sys.meta_path[sys.meta_path.index(self) + 1 :]:
            find_spec = getattr(finder, "find_spec", None)  # legacy finders have none
            spec = find_spec(fullname, path, target) if find_spec else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None:
            return spec
        exec_module = loader.exec_module

        def exec_then_register(module: ModuleType) -> None:
            loader.exec_module = exec_module  # a loader may serve other modules: leave it as found
            exec_module(module)
            # Only now: a spec found by importlib.util.find_spec alone is never executed.
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            _register()

        loader.exec_module = exec_then_register
        return spec


if _DTENSOR in sys.modules:
    _register()
else:
    sys.meta_path.insert(0, _RegisterOnImport())
