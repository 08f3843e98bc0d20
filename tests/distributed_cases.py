"""The DTensor case tables: placement pairs, mixed dtypes and broadcast inputs, by case name.

Each case is ``check_placements`` (tests/distributed_placements.py) on one pair of inputs, run on
the ranks of tests/distributed_worker.py; tests/test_distributed.py parametrizes over the names.
"""

import itertools
from collections.abc import Callable

import torch
from torch.distributed.device_mesh import DeviceMesh

from distributed_placements import (
    DTYPES,
    PLACEMENTS,
    ROUTES,
    TWIN_FOLLOWS_INPUTS,
    cheapest,
    check_placements,
    random_dtensor,
    twin_placement,
)
from reference import PARTIAL_BROADCAST, TWIN, as_read
from support import assert_bitwise_equal

# On two ranks 4 x 6 splits evenly, 5 x 3 unevenly in both dims (3 + 2 rows, 2 + 1 columns).
SHAPES = {"even": (4, 6), "uneven": (5, 3)}


def _placement_cases() -> dict[str, Callable[[DeviceMesh], None]]:
    """SHAPE-ROUTE-A+B for every pair of R, P (sum), S0 and S1, and Pavg + Pavg."""
    cases: dict[str, Callable[[DeviceMesh], None]] = {}
    pairs = [*itertools.product(["R", "P", "S0", "S1"], repeat=2), ("Pavg", "Pavg")]
    for (shape_name, shape), route, (pa, pb) in itertools.product(SHAPES.items(), ROUTES, pairs):
        cases[f"{shape_name}-{route}-{pa}+{pb}"] = lambda mesh, s=shape, r=route, a=pa, b=pb: (
            check_placements(
                mesh, r, a, b, cheapest(a, b), shapes=(s, s), want_torch=twin_placement(a, b)
            )
        )
    # register_sharding drops a Shard rule that would leave a rank an empty shard, so a dim
    # smaller than the mesh is gathered, where the twin keeps it sharded.
    for route in ROUTES:
        cases[f"empty_shard-{route}-S0+S0"] = lambda mesh, r=route: check_placements(
            mesh, r, "S0", "S0", "R", shapes=((1, 3), (1, 3)), want_torch="S0"
        )
    return cases


# Mixed dtypes (DTYPE_DTYPE-ROUTE-A+B): the placements of one dtype, except that between two shard
# dims the input of fewer bytes is the one moved. bfloat16 + float16 gives float32.
MIXED_DTYPE_PAIRS = {
    ("f32", "bf16"): [
        ("S0", "S0"),
        ("S1", "S0"),
        ("S0", "S1"),
        ("R", "P"),
        ("P", "S1"),
        ("Pavg", "Pavg"),
    ],
    ("bf16", "f16"): [("S1", "S0"), ("P", "R"), ("S1", "S1")],
}


def _mixed_dtype_cases() -> dict[str, Callable[[DeviceMesh], None]]:
    cases: dict[str, Callable[[DeviceMesh], None]] = {}
    shape = SHAPES["uneven"]
    for (dta, dtb), pairs in MIXED_DTYPE_PAIRS.items():
        sizes = (DTYPES[dta].itemsize, DTYPES[dtb].itemsize)
        # float32 + bfloat16 through both routes, bfloat16 + float16 through the op.
        routes = ROUTES if dta == "f32" else ["op"]
        for route, (pa, pb) in itertools.product(routes, pairs):
            cases[f"{dta}_{dtb}-{route}-{pa}+{pb}"] = (
                lambda mesh, r=route, a=pa, b=pb, d=(dta, dtb), i=sizes: check_placements(
                    mesh,
                    r,
                    a,
                    b,
                    None if TWIN_FOLLOWS_INPUTS else cheapest(a, b, i),
                    shapes=(shape, shape),
                    dtypes=d,
                    want_torch=twin_placement(a, b, i),
                )
            )
    return cases


# Broadcast inputs, GROUP[_SHAPES]-ROUTE-A+B (the shapes named unless (B, T, D) + (D,); the group
# names the dtypes where they differ): the op's placement, and the twin's from torch 2.12 (the
# same, but where noted; before 2.12 not checked). B, T, D = 5, 4, 3: uneven, even, uneven.
BTD, D = (5, 4, 3), (3,)
SIZES = {"BTD": BTD, "D": D}  # the shapes by name, as tests/reference.py writes them
BROADCAST = [
    # The bias add, (B, T, D) + (D,): a shard of x along B or T takes all of the bias, one along D
    # the bias's own shard.
    ("bias", "wrapper", BTD, D, "S0", "R", "S0"),
    ("bias", "wrapper", BTD, D, "S1", "R", "S1"),
    ("bias", "wrapper", BTD, D, "S2", "R", "S2"),
    ("bias", "wrapper", BTD, D, "S2", "S0", "S2"),
    ("bias", "wrapper", BTD, D, "R", "S0", "S2"),  # x cut locally, the bias kept
    ("bias", "wrapper", BTD, D, "S0", "S0", "S0"),  # the bias gathered, not x moved
    ("bias", "wrapper", BTD, D, "R", "R", "R"),
    # Partial inputs beside a replica or another partial: the op's own (tests/reference.py).
    *(
        (group, route, SIZES.get(sa, sa), SIZES.get(sb, sb), pa, pb, want)
        for group, route, sa, sb, pa, pb, want in PARTIAL_BROADCAST
    ),
    ("bias", "op", BTD, D, "Pmax", "R", "S0"),  # the twin: Pmax (BROADCAST_TORCH)
    ("bias", "op", BTD, D, "R", "Pmax", "S2"),  # the twin: R (BROADCAST_TORCH)
    ("bias", "op", D, BTD, "R", "S1", "S1"),
    ("bias", "op", D, BTD, "S0", "S2", "S2"),
    # Mixed precision: a float32 residual stream, a bfloat16 bias.
    ("bias_f32_bf16", "wrapper", BTD, D, "S0", "R", "S0"),
    ("bias_f32_bf16", "op", BTD, D, "S2", "S0", "S2"),
    # Size-1 dims. A shard of a size-1 dim (rank 1's is empty) is gathered.
    ("size1", "op", (5, 1, 3), (1, 4, 3), "S0", "S1", "S0"),  # the smaller input gathered
    ("size1", "op", BTD, (5, 1, 3), "S1", "S1", "S1"),
    ("size1", "op", (5, 4, 1), BTD, "R", "S2", "S2"),
    ("size1", "op", (5, 4, 1), (1, 1, 3), "S0", "R", "S0"),
    ("size1", "op", BTD, (5, 4, 1), "S0", "S0", "S0"),
    ("size1", "wrapper", (1, 3), (5, 1), "S1", "S0", "S0"),  # an outer product's shape
]
# The twin's placement where it differs from the op's: R + P(max) all-reduces the partial maxima
# to a replica, where the op reduce-scatters them into the other's shard (half the traffic).
BROADCAST_TORCH = {("bias", "R", "Pmax"): "R", ("bias", "Pmax", "R"): "Pmax"}


def _shape_name(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape))


def _broadcast_cases() -> dict[str, Callable[[DeviceMesh], None]]:
    cases: dict[str, Callable[[DeviceMesh], None]] = {}
    for group, route, sa, sb, pa, pb, want in BROADCAST:
        dtypes = tuple(group.split("_")[1:]) or ("f32", "f32")
        want_torch = None
        if TWIN_FOLLOWS_INPUTS:
            want = None
        else:
            want_torch = BROADCAST_TORCH.get((group, pa, pb), want)
        name = group if (sa, sb) == (BTD, D) else f"{group}_{_shape_name(sa)}_{_shape_name(sb)}"
        cases[f"{name}-{route}-{pa}+{pb}"] = (
            lambda mesh, r=route, s=(sa, sb), a=pa, b=pb, w=want, d=dtypes, t=want_torch: (
                check_placements(mesh, r, a, b, w, shapes=s, dtypes=d, want_torch=t)
            )
        )
    return cases


PLACEMENT_CASES = _placement_cases()
MIXED_DTYPE_CASES = _mixed_dtype_cases()
BROADCAST_CASES = _broadcast_cases()


# out=, A+B->OUT: DTensor runs the out= form as the op and a copy (src/sum_double/_out.py), so out
# keeps its placement and holds the twin's values into a tensor of that placement.
OUT_PLACEMENTS = [("S0", "R", "S0"), ("S0", "S0", "R"), ("R", "S1", "S0"), ("P", "R", "R")]


def check_out(mesh: DeviceMesh, pa: str, pb: str, po: str) -> None:
    shape = SHAPES["uneven"]
    a, b = (random_dtensor(shape, PLACEMENTS[p], mesh, seed) for p, seed in ((pa, 1), (pb, 2)))
    out, twin_out = (random_dtensor(shape, PLACEMENTS[po], mesh, 3) for _ in range(2))
    result = ROUTES["wrapper"](a, b, out=out)
    TWIN(*as_read(a, b), out=twin_out)
    got, want = out.full_tensor(), twin_out.full_tensor()
    assert result is out
    assert out.placements == (PLACEMENTS[po],), out.placements
    if TWIN_FOLLOWS_INPUTS and "P" in (pa, pb):
        # Before 2.12 the twin places the result otherwise (TWIN_FOLLOWS_INPUTS): its partial
        # sums are added up in another order.
        torch.testing.assert_close(got, want)
    else:
        assert_bitwise_equal(got, want)


OUT_CASES = {
    f"out-{pa}+{pb}->{po}": lambda mesh, a=pa, b=pb, o=po: check_out(mesh, a, b, o)
    for pa, pb, po in OUT_PLACEMENTS
}
