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
    """What DTensor passes a sharding rule for a tensor argument: of it, the rule reads ndim."""

    ndim: int


def _register() -> None:
    try:
        from torch.distributed.tensor import Partial, Placement, Replicate, Shard
        from torch.distributed.tensor.experimental import register_sharding
    except ImportError:  # a torch without the API: the op still works, on plain tensors
        return

    @register_sharding(torch.ops.sum_double.add.default)
    def _add_sharding(a: _Spec, b: _Spec) -> list[tuple[list[Placement], list[Placement]]]:
        # Elementwise and linear: any placement the two inputs share is the output's, with no
        # communication (partial sums or means of a and b add up to partial ones of a + b).
        # DTensor moves mismatched inputs to the one of these that costs least to reach.
        shared = [Replicate(), Partial("sum"), Partial("avg"), *(Shard(d) for d in range(a.ndim))]
        return [([p], [p, p]) for p in shared]


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
