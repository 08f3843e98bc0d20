"""The op's own part of the suite, which a copier replaces (with test_facts_of_the_op.py): what the
op computes and its derivative, as torch's twin of it has them, and the partial placements of its
sharding rule. Every other test reads the op's truth from here; the C++ harness's is
``op_value`` in tests/cpp/reference.cpp."""

import torch
from torch import Tensor

TWIN = torch.add  # the torch op that the op matches bit for bit, eager or compiled
TWIN_NAME = f"torch.{TWIN.__name__}"  # as messages, scripts and benchmark tables write it


def as_read(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """a and b as the op reads them, where its twin reads one otherwise (e.g. a 0-dim input at its
    own precision): the one place that says so."""
    return a, b  # the add reads them as torch.add does


def reference(a: Tensor, b: Tensor) -> Tensor:
    """The op's result for a and b: its twin's, of the inputs as the op reads them."""
    return TWIN(*as_read(a, b))


def gradients(a: Tensor, b: Tensor, grad: Tensor) -> tuple[Tensor, Tensor]:
    """Each input's gradient for the incoming ``grad``, in that input's shape and dtype: the
    twin's own, through torch's autograd (a and b are leaves, plain or DTensors)."""
    a, b = (x.detach().requires_grad_() for x in (a, b))
    ga, gb = torch.autograd.grad(TWIN(a, b), (a, b), grad)
    return ga, gb


def tangent(a: Tensor, b: Tensor, ta: Tensor | None, tb: Tensor | None) -> Tensor | None:
    """The result's tangent for the inputs' (None: no tangent): the twin's, by forward AD."""
    import torch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        duals = [x if t is None else fwAD.make_dual(x, t) for x, t in ((a, ta), (b, tb))]
        return fwAD.unpack_dual(TWIN(*duals)).tangent


def partial_result(a: str, b: str) -> str | None:
    """The Partial the op's sharding rule gives inputs placed ``a`` and ``b`` (names of
    tests/distributed_placements.py's PLACEMENTS) with no communication, or None. Partial maxima
    are no partial sums of anything."""
    # An add is linear in each input: partial sums (or means) of both give those of the result,
    # and a replica is split into partial sums locally.
    held = {a, b} - {"R"}
    return held.pop() if held in ({"P"}, {"Pavg"}) else None


# The broadcast DTensor cases with a partial input: (group, route, a's shape, b's, a's placement,
# b's, the op's placement), as tests/distributed_cases.py's BROADCAST rows (shapes there by name).
PARTIAL_BROADCAST = [
    ("bias", "wrapper", "BTD", "D", "P", "R", "P"),
    ("bias", "wrapper", "BTD", "D", "P", "P", "P"),
    ("bias", "wrapper", "BTD", "D", "S0", "P", "S0"),  # the bias all-reduced
    ("bias", "op", "BTD", "D", "Pavg", "R", "Pavg"),
    ("bias_bf16_f32", "op", "BTD", "D", "P", "R", "P"),
    ("size1", "wrapper", (1, 1, 3), "BTD", "P", "P", "P"),
]
