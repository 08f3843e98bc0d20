"""What placement the op should give two DTensors, and the check of one pair of inputs.

The expected placements are modelled here (``cheapest``: the op's rule, whose partial results
tests/reference.py gives; ``twin_placement``: the twin's on the torch running), and
``check_placements`` runs one case of tests/distributed_cases.py on the ranks of
tests/distributed_worker.py: forward, backward and no-grad against the reference on the same
DTensors.
"""

import torch
from torch import Tensor
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.tensor import (
    DTensor,
    Partial,
    Placement,
    Replicate,
    Shard,
    distribute_tensor,
)
from torch.torch_version import TorchVersion

from reference import gradients, partial_result, reference
from support import OP, assert_bitwise_equal, op

ROUTES = {"wrapper": op, "op": OP}
PLACEMENTS: dict[str, Placement] = {
    "R": Replicate(),
    "P": Partial("sum"),
    "Pavg": Partial("avg"),
    "Pmax": Partial("max"),
    "S0": Shard(0),
    "S1": Shard(1),
    "S2": Shard(2),
}
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "f64": torch.float64}
# Before 2.12 the twin followed the input with more shards (the first on a tie), whatever moving
# the other cost; from 2.12 on it takes the cheapest common placement, as the op's rule does.
# Before 2.12 DTensor prices moves otherwise: the twin keeps its inputs' placement where it can,
# and for mixed dtypes and broadcast inputs the op's choice among its strategies differs too (the
# placement is then not checked; values, dtypes and gradients are).
TWIN_FOLLOWS_INPUTS = TorchVersion(torch.__version__) < "2.12"


def _passes_gradient_on() -> bool:
    """Whether the op's derivative hands the incoming gradient on as it is (the add's does)."""
    x, t = torch.ones(2, requires_grad=True), torch.ones(2)
    return gradients(x, torch.ones(2), t)[0].data_ptr() == t.data_ptr()


# Then a rank sums its shard of the incoming gradient itself, a view of the whole that it reads in
# the whole's order: the bits of the unsharded sum. A gradient made per shard (a product's) is a
# fresh tensor, summed in its own order: equal within rounding.
SUMS_IN_THE_WHOLES_ORDER = _passes_gradient_on()


def cheapest(a: str, b: str, itemsizes: tuple[int, int] = (4, 4)) -> str:
    """The common placement of a and b (one shape) that DTensor moves them to for least traffic."""
    if a == b and not PLACEMENTS[a].is_partial():
        return a
    shards = sorted(p for p in (a, b) if p.startswith("S"))
    if len(shards) == 2 and itemsizes[0] != itemsizes[1]:
        # Between two shard dims (one all-to-all either way) the input of fewer bytes moves.
        return a if itemsizes[0] > itemsizes[1] else b
    partial = partial_result(a, b) or _kept_partial(a, b, itemsizes)
    if partial is not None:
        return partial
    # A replica is cut locally and partial sums are reduce-scattered into the shard; between two
    # shard dims of inputs of one dtype the lower dim wins the tie.
    return shards[0] if shards else "S0"


def _kept_partial(a: str, b: str, itemsizes: tuple[int, int]) -> str | None:
    """The partial input whose placement the result keeps where the op's rule keeps a partial
    only beside a replica (a product's): the other input is all-reduced (a partial of the same
    kind: cheaper than reduce-scattering both) or gathered (a shard of fewer bytes)."""
    for (p, q), (p_size, q_size) in (((a, b), itemsizes), ((b, a), itemsizes[::-1])):
        keeps = partial_result(p, p) is None and partial_result(p, "R") == p
        if keeps and (q == p or (q.startswith("S") and q_size < p_size)):
            return p
    return None


def twin_placement(a: str, b: str, itemsizes: tuple[int, int] = (4, 4)) -> str:
    """The placement the twin gives inputs of one shape placed a and b, on the torch running."""
    if not TWIN_FOLLOWS_INPUTS:
        return cheapest(a, b, itemsizes)
    return b if not a.startswith("S") and b.startswith("S") else a


def operand_placement(out: Placement, shape: torch.Size, out_shape: torch.Size) -> Placement:
    """Where the op's rule has an input of ``shape`` for a result placed ``out`` (not partial).

    A result sharded on a dim takes that dim's shard of an input that has it at full size, and
    all of one that broadcasts it (broadcasting aligns dims from the right).
    """
    if isinstance(out, Shard):
        dim = out.dim - (len(out_shape) - len(shape))
        return Shard(dim) if dim >= 0 and shape[dim] == out_shape[out.dim] else Replicate()
    return out


def random_dtensor(
    shape: tuple[int, ...],
    placement: Placement,
    mesh: DeviceMesh,
    seed: int,
    dtype: torch.dtype = torch.float32,
) -> DTensor:
    """Random values, the same on every rank except a partial one's summands."""
    if placement.is_partial():
        seed = seed * 2 + mesh.get_local_rank()
    values = torch.randn(shape, generator=torch.Generator().manual_seed(seed)).to(dtype)
    values = values.to(mesh.device_type)
    if placement.is_partial():
        return DTensor.from_local(values, mesh, [placement], run_check=False)
    return distribute_tensor(values, mesh, [placement])


def _assert_close(actual: Tensor, expected: Tensor, *dtypes: torch.dtype) -> None:
    """Equal within the rounding of the least precise of ``dtypes``, in which a sum was taken."""
    eps = max(torch.finfo(dtype).eps for dtype in dtypes)
    if eps <= torch.finfo(torch.float32).eps:
        torch.testing.assert_close(actual, expected)
    else:
        # Partial sums rounded to float16 or bfloat16 before they were added up: a few ulps of
        # the largest value, rather than of each element (cancellation makes some small).
        scale = float(expected.abs().max())
        torch.testing.assert_close(actual, expected, rtol=4 * eps, atol=4 * eps * scale)


def check_placements(
    mesh: DeviceMesh,
    route: str,
    pa: str,
    pb: str,
    want: str | None,
    *,
    shapes: tuple[tuple[int, ...], tuple[int, ...]],
    dtypes: tuple[str, str] = ("f32", "f32"),
    want_torch: str | None,
) -> None:
    """Forward, backward, no-grad and inference mode through ``route`` against the reference on
    the same DTensors.

    ``want`` is the op's placement, ``want_torch`` the twin's on the torch running (None: not
    known for that torch, so not checked; values, dtypes and gradients are checked all the same).
    """
    call = ROUTES[route]
    da, db = (DTYPES[d] for d in dtypes)
    a = random_dtensor(shapes[0], PLACEMENTS[pa], mesh, seed=1, dtype=da).requires_grad_()
    b = random_dtensor(shapes[1], PLACEMENTS[pb], mesh, seed=2, dtype=db).requires_grad_()
    out = call(a, b)
    with torch.no_grad():  # the wrapper skips autograd here: another way into DTensor
        out_no_grad = call(a, b)
    with torch.inference_mode():  # no autograd key at all: DTensor meets the op's public name
        out_inference = call(a, b)
    ref = reference(a, b)
    grad = random_dtensor(out.shape, out.placements[0], mesh, seed=3, dtype=out.dtype)
    ga, gb = torch.autograd.grad(out, (a, b), grad)
    ref_grad = (
        grad
        if ref.placements == out.placements
        else random_dtensor(ref.shape, ref.placements[0], mesh, seed=3, dtype=ref.dtype)
    )
    ref_ga, ref_gb = gradients(a, b, ref_grad)
    # The reference's derivative of the op's incoming gradient, where the twin's placements are not
    # the op's (autograd reads no placement).
    derivative = gradients(a, b, grad)
    # The reference of the inputs moved where the op moved them, for a bitwise reference on any
    # torch. (Only DTensor itself may turn a replica into partial sums: there is none for P.)
    moved = None
    if not out.placements[0].is_partial():
        moved = reference(
            *(
                t.redistribute(
                    placements=[operand_placement(out.placements[0], t.shape, out.shape)]
                )
                for t in (a, b)
            )
        )
    full = {k: t.full_tensor() for k, t in dict(out=out, a=a, b=b, grad=grad, ga=ga, gb=gb).items()}
    # The same on plain tensors: the reference's values and gradients, on each rank alone.
    fa, fb = (full[k].detach() for k in ("a", "b"))
    full_out = reference(fa, fb)
    full_ga, full_gb = gradients(fa, fb, full["grad"])

    if want is not None:
        assert out.placements == (PLACEMENTS[want],), f"{out.placements}, not {PLACEMENTS[want]}"
    assert out.dtype == torch.promote_types(da, db), f"{out.dtype} for {da} and {db}"
    for other in (out_no_grad, out_inference):
        assert other.placements == out.placements
        assert_bitwise_equal(other.to_local(), out.to_local())
    if moved is not None:
        assert_bitwise_equal(out.to_local(), moved.to_local())
    if PLACEMENTS[pa].is_partial() or PLACEMENTS[pb].is_partial():
        # The partial summands are added up in another order than on one rank: equal within
        # rounding.
        _assert_close(full["out"], full_out.detach(), da, db)
    else:
        assert_bitwise_equal(full["out"], full_out.detach())
    for name, x, g, full_g, want_g in zip(
        "ab", (a, b), (ga, gb), (full_ga, full_gb), derivative, strict=True
    ):
        assert g.shape == x.shape, f"grad of {name}: {g.shape}"
        assert g.dtype == x.dtype, f"grad of {name}: {g.dtype}"
        if x.shape == out.shape and x.dtype == out.dtype:
            # Nothing for autograd to reduce: the reference's derivative of the same incoming
            # gradient, on the same DTensors (for the add, that gradient as it is).
            assert g.placements == want_g.placements, f"grad of {name}: {g.placements}"
            assert_bitwise_equal(g.to_local(), want_g.to_local())
        elif (
            out.placements[0].is_partial()
            or (
                isinstance(out.placements[0], Shard)
                and operand_placement(out.placements[0], x.shape, out.shape) == Replicate()
            )
            or (x.shape != out.shape and mesh.device_type != "cpu")
            or not SUMS_IN_THE_WHOLES_ORDER
        ):
            # Summed over the broadcast dims shard by shard, then across ranks (or, on a GPU, by
            # a reduction kernel that may split a shard's sum otherwise than the whole one's).
            _assert_close(full[f"g{name}"], full_g, x.dtype, out.dtype)
        else:
            # Each rank summed (if at all) whole rows of the plain gradient, as the twin did.
            assert_bitwise_equal(full[f"g{name}"], full_g)
    if want_torch is not None:
        assert ref.placements == (PLACEMENTS[want_torch],), (
            f"torch {torch.__version__}'s twin gave {ref.placements}, not {PLACEMENTS[want_torch]}"
        )
    # The same placement from the same local work, unless a result kept as Partial could have
    # come from moving either input (a product's P + P: which input is all-reduced is DTensor's
    # choice, and the twin's may differ from the op's before 2.12).
    kept = out.placements[0].is_partial() and partial_result(pa, pb) is None
    if ref.placements == out.placements and not kept:
        assert ref.dtype == out.dtype
        assert_bitwise_equal(out.to_local(), ref.to_local())
        for g, ref_g in ((ga, ref_ga), (gb, ref_gb)):
            assert g.placements == ref_g.placements, f"{g.placements}, torch's {ref_g.placements}"
            assert_bitwise_equal(g.to_local(), ref_g.to_local())
