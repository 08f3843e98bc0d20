"""One rank of the two-process DTensor checks that tests/test_distributed.py starts.

Not collected by pytest: that module's fixture runs two of these,

    RANK=r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=p python distributed_worker.py DEVICE OUT

with DEVICE cpu (gloo) or cuda (NCCL, rank r on cuda:r). Every case runs in turn and appends one
JSON line to OUT as it ends, {"case": name, "error": traceback or null}, so a hang still leaves
what ran before it. Each case does all of its collectives before its first assertion, so that a
failure on one rank cannot leave the other waiting in a collective.
"""

import copy
import itertools
import json
import os
import sys
import traceback
from collections.abc import Callable
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import Tensor, nn
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import (
    DTensor,
    Partial,
    Placement,
    Replicate,
    Shard,
    distribute_tensor,
)
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
from torch.torch_version import TorchVersion

import sum_double
from support import assert_bitwise_equal

ROUTES = {"wrapper": sum_double.add, "op": torch.ops.sum_double.add.default}
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
# On two ranks 4 x 6 splits evenly, 5 x 3 unevenly in both dims (3 + 2 rows, 2 + 1 columns).
SHAPES = {"even": (4, 6), "uneven": (5, 3)}
# Before 2.12 torch.add followed the input with more shards (the first on a tie), whatever moving
# the other cost; from 2.12 on it takes the cheapest common placement, as the op's rule does.
# Before 2.12 DTensor prices moves otherwise: torch.add keeps its inputs' placement where it can,
# and for mixed dtypes and broadcast inputs the op's choice among its strategies differs too (the
# placement is then not checked; values, dtypes and gradients are).
TORCH_ADD_FOLLOWS_INPUTS = TorchVersion(torch.__version__) < "2.12"


def cheapest(a: str, b: str, itemsizes: tuple[int, int] = (4, 4)) -> str:
    """The common placement of a and b (one shape) that DTensor moves them to for least traffic."""
    if a == b:
        return a
    shards = sorted(p for p in (a, b) if p.startswith("S"))
    if len(shards) == 2 and itemsizes[0] != itemsizes[1]:
        # Between two shard dims (one all-to-all either way) the input of fewer bytes moves.
        return a if itemsizes[0] > itemsizes[1] else b
    if shards:
        # A replica is cut locally and partial sums are reduce-scattered into the shard; between
        # two shard dims of inputs of one dtype the lower dim wins the tie.
        return shards[0]
    return "P"  # R + P: the replica is split into partial sums locally, with no communication


def torch_add_placement(a: str, b: str, itemsizes: tuple[int, int] = (4, 4)) -> str:
    """The placement torch.add gives inputs of one shape placed a and b, on the torch running."""
    if not TORCH_ADD_FOLLOWS_INPUTS:
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


def _dtensor(
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
    """Forward, backward and no-grad through ``route`` against torch.add on the same DTensors.

    ``want`` is the op's placement, ``want_torch`` torch.add's on the torch running (None: not
    known for that torch, so not checked; values, dtypes and gradients are checked all the same).
    """
    add = ROUTES[route]
    da, db = (DTYPES[d] for d in dtypes)
    a = _dtensor(shapes[0], PLACEMENTS[pa], mesh, seed=1, dtype=da).requires_grad_()
    b = _dtensor(shapes[1], PLACEMENTS[pb], mesh, seed=2, dtype=db).requires_grad_()
    out = add(a, b)
    with torch.no_grad():  # the wrapper skips autograd here: another way into DTensor
        out_no_grad = add(a, b)
    ref = torch.add(a, b)
    grad = _dtensor(out.shape, out.placements[0], mesh, seed=3, dtype=out.dtype)
    ga, gb = torch.autograd.grad(out, (a, b), grad)
    ref_grad = (
        grad
        if ref.placements == out.placements
        else _dtensor(ref.shape, ref.placements[0], mesh, seed=3, dtype=ref.dtype)
    )
    ref_ga, ref_gb = torch.autograd.grad(ref, (a, b), ref_grad)
    # torch.add of the inputs moved where the op moved them, for a bitwise reference on any
    # torch. (Only DTensor itself may turn a replica into partial sums: there is none for P.)
    moved = None
    if not out.placements[0].is_partial():
        moved = torch.add(
            *(
                t.redistribute(
                    placements=[operand_placement(out.placements[0], t.shape, out.shape)]
                )
                for t in (a, b)
            )
        )
    full = {k: t.full_tensor() for k, t in dict(out=out, a=a, b=b, grad=grad, ga=ga, gb=gb).items()}
    # The same on plain tensors: torch.add's values and gradients, computed on each rank alone.
    fa, fb = (full[k].detach().requires_grad_() for k in ("a", "b"))
    full_out = torch.add(fa, fb)
    full_ga, full_gb = torch.autograd.grad(full_out, (fa, fb), full["grad"])

    if want is not None:
        assert out.placements == (PLACEMENTS[want],), f"{out.placements}, not {PLACEMENTS[want]}"
    assert out.dtype == torch.promote_types(da, db), f"{out.dtype} for {da} + {db}"
    assert out_no_grad.placements == out.placements
    assert_bitwise_equal(out_no_grad.to_local(), out.to_local())
    if moved is not None:
        assert_bitwise_equal(out.to_local(), moved.to_local())
    if PLACEMENTS[pa].is_partial() or PLACEMENTS[pb].is_partial():
        # The summands are added up in another order than in a + b: equal within rounding.
        _assert_close(full["out"], full_out.detach(), da, db)
    else:
        assert_bitwise_equal(full["out"], full_out.detach())
    for name, x, g, full_g in (("a", a, ga, full_ga), ("b", b, gb, full_gb)):
        assert g.shape == x.shape, f"grad of {name}: {g.shape}"
        assert g.dtype == x.dtype, f"grad of {name}: {g.dtype}"
        if x.shape == out.shape and x.dtype == out.dtype:
            # Backward hands the incoming gradient to the input as it is.
            assert g.placements == grad.placements, f"grad of {name}: {g.placements}"
            assert_bitwise_equal(g.to_local(), grad.to_local())
        elif (
            out.placements[0].is_partial()
            or (
                isinstance(out.placements[0], Shard)
                and operand_placement(out.placements[0], x.shape, out.shape) == Replicate()
            )
            or (x.shape != out.shape and mesh.device_type != "cpu")
        ):
            # Summed over the broadcast dims shard by shard, then across ranks (or, on a GPU, by
            # a reduction kernel that may split a shard's sum otherwise than the whole one's).
            _assert_close(full[f"g{name}"], full_g, x.dtype, out.dtype)
        else:
            # Each rank summed (if at all) whole rows of the plain gradient, as torch.add did.
            assert_bitwise_equal(full[f"g{name}"], full_g)
    if want_torch is not None:
        assert ref.placements == (PLACEMENTS[want_torch],), (
            f"torch {torch.__version__}'s add gave {ref.placements}, not {PLACEMENTS[want_torch]}"
        )
    if ref.placements == out.placements:
        assert ref.dtype == out.dtype
        assert_bitwise_equal(out.to_local(), ref.to_local())
        for g, ref_g in ((ga, ref_ga), (gb, ref_gb)):
            assert g.placements == ref_g.placements, f"{g.placements}, torch's {ref_g.placements}"
            assert_bitwise_equal(g.to_local(), ref_g.to_local())


def _placement_cases() -> dict[str, Callable[[DeviceMesh], None]]:
    """SHAPE-ROUTE-A+B for every pair of R, P (sum), S0 and S1, and Pavg + Pavg."""
    cases: dict[str, Callable[[DeviceMesh], None]] = {}
    pairs = [*itertools.product(["R", "P", "S0", "S1"], repeat=2), ("Pavg", "Pavg")]
    for (shape_name, shape), route, (pa, pb) in itertools.product(SHAPES.items(), ROUTES, pairs):
        cases[f"{shape_name}-{route}-{pa}+{pb}"] = lambda mesh, s=shape, r=route, a=pa, b=pb: (
            check_placements(
                mesh, r, a, b, cheapest(a, b), shapes=(s, s), want_torch=torch_add_placement(a, b)
            )
        )
    # register_sharding drops a Shard rule that would leave a rank an empty shard, so a dim
    # smaller than the mesh is gathered, where torch.add keeps it sharded.
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
                    None if TORCH_ADD_FOLLOWS_INPUTS else cheapest(a, b, i),
                    shapes=(shape, shape),
                    dtypes=d,
                    want_torch=torch_add_placement(a, b, i),
                )
            )
    return cases


# Broadcast inputs, GROUP[_SHAPES]-ROUTE-A+B (the shapes named unless (B, T, D) + (D,); the group
# names the dtypes where they differ): the op's placement, and torch.add's from torch 2.12 (the
# same, but where noted; before 2.12 not checked). B, T, D = 5, 4, 3: uneven, even, uneven.
BTD, D = (5, 4, 3), (3,)
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
    ("bias", "wrapper", BTD, D, "P", "R", "P"),
    ("bias", "wrapper", BTD, D, "P", "P", "P"),
    ("bias", "wrapper", BTD, D, "S0", "P", "S0"),  # the bias all-reduced
    ("bias", "op", BTD, D, "Pavg", "R", "Pavg"),
    ("bias", "op", BTD, D, "Pmax", "R", "S0"),  # torch.add: Pmax (BROADCAST_TORCH)
    ("bias", "op", BTD, D, "R", "Pmax", "S2"),  # torch.add: R (BROADCAST_TORCH)
    ("bias", "op", D, BTD, "R", "S1", "S1"),
    ("bias", "op", D, BTD, "S0", "S2", "S2"),
    # Mixed precision: a float32 residual stream, a bfloat16 bias.
    ("bias_f32_bf16", "wrapper", BTD, D, "S0", "R", "S0"),
    ("bias_f32_bf16", "op", BTD, D, "S2", "S0", "S2"),
    ("bias_bf16_f32", "op", BTD, D, "P", "R", "P"),
    # Size-1 dims. A shard of a size-1 dim (rank 1's is empty) is gathered.
    ("size1", "op", (5, 1, 3), (1, 4, 3), "S0", "S1", "S0"),  # the smaller input gathered
    ("size1", "op", BTD, (5, 1, 3), "S1", "S1", "S1"),
    ("size1", "op", (5, 4, 1), BTD, "R", "S2", "S2"),
    ("size1", "op", (5, 4, 1), (1, 1, 3), "S0", "R", "S0"),
    ("size1", "op", BTD, (5, 4, 1), "S0", "S0", "S0"),
    ("size1", "wrapper", (1, 3), (5, 1), "S1", "S0", "S0"),  # an outer sum
    ("size1", "wrapper", (1, 1, 3), BTD, "P", "P", "P"),
]
# torch.add's placement where it differs from the op's: R + P(max) all-reduces the partial maxima
# to a replica, where the op reduce-scatters them into the other's shard (half the traffic).
BROADCAST_TORCH = {("bias", "R", "Pmax"): "R", ("bias", "Pmax", "R"): "Pmax"}


def _shape_name(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape))


def _broadcast_cases() -> dict[str, Callable[[DeviceMesh], None]]:
    cases: dict[str, Callable[[DeviceMesh], None]] = {}
    for group, route, sa, sb, pa, pb, want in BROADCAST:
        dtypes = tuple(group.split("_")[1:]) or ("f32", "f32")
        want_torch = None
        if TORCH_ADD_FOLLOWS_INPUTS:
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


class Residual(nn.Module):
    """x + mlp(x), the add by sum_double: the block both training checks use."""

    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x: Tensor) -> Tensor:
        return sum_double.add(x, self.down(torch.relu(self.up(x))))


def check_fsdp2_step(mesh: DeviceMesh) -> None:
    """One FSDP2 step (each rank on its half of the batch) against the unsharded model's.

    Inside forward FSDP2 hands the modules plain, all-gathered parameters: this checks the op
    under FSDP2's hooks and gradient reduction; the placement cases check it on DTensors.
    """
    rank, device = mesh.get_local_rank(), mesh.device_type
    torch.manual_seed(0)
    model = Residual(dim=8, hidden=16).to(device)
    ref = copy.deepcopy(model)
    fully_shard(model, mesh=mesh)
    halves = torch.randn(6, 8, generator=torch.Generator().manual_seed(1)).to(device).chunk(2)

    loss = model(halves[rank]).pow(2).mean()
    loss.backward()
    grads = {name: p.grad.full_tensor() for name, p in model.named_parameters()}
    torch.optim.SGD(model.parameters(), lr=0.1).step()
    params = {name: p.full_tensor() for name, p in model.named_parameters()}
    # FSDP2 averages the ranks' gradients: the reference is the mean of the two halves' losses.
    ref_losses = [ref(half).pow(2).mean() for half in halves]
    (sum(ref_losses) / 2).backward()
    torch.optim.SGD(ref.parameters(), lr=0.1).step()

    # On the CPU both runs use the same kernels on the same shapes, and halving is exact: the
    # results are bit-identical. cuBLAS may choose other kernels for FSDP's all-gathered weights
    # (another alignment), so on CUDA they are compared within rounding.
    exact = {"rtol": 0, "atol": 0} if device == "cpu" else {}
    torch.testing.assert_close(loss.detach(), ref_losses[rank].detach(), **exact)
    for name, p in ref.named_parameters():
        torch.testing.assert_close(grads[name], p.grad, **exact, msg=f"grad of {name}")
        torch.testing.assert_close(params[name], p.detach(), **exact, msg=f"{name} after step")


def check_tensor_parallel_block(mesh: DeviceMesh) -> None:
    """Three SGD steps of a column- then row-parallel MLP with a sequence-sharded residual.

    The residual add meets two Shard(1) DTensors. Equal to the unsharded model's steps within
    rounding: each rank sums half of the hidden dim.
    """
    device = mesh.device_type
    torch.manual_seed(0)
    model = Residual(dim=8, hidden=16).to(device)
    ref = copy.deepcopy(model)
    plan = {
        "up": ColwiseParallel(input_layouts=Shard(1)),
        "down": RowwiseParallel(output_layouts=Shard(1), use_local_output=False),
    }
    parallelize_module(model, mesh, plan)
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (model, ref)]
    losses: list[list[Tensor]] = [[], []]
    placements = []
    for step in range(3):
        # Batch 2, sequence 6 (3 positions a rank), features 8. (An uneven sequence dim fails
        # in torch 2.10's own linear after the all-gather, before the add is reached.)
        x = torch.randn(2, 6, 8, generator=torch.Generator().manual_seed(step)).to(device)
        out = model(distribute_tensor(x, mesh, [Shard(1)]))
        placements.append(out.placements)
        for i, loss in enumerate((out.full_tensor().pow(2).mean(), ref(x).pow(2).mean())):
            opts[i].zero_grad()
            loss.backward()
            opts[i].step()
            losses[i].append(loss.detach())
    params = {name: p.full_tensor() for name, p in model.named_parameters()}

    assert placements == [(Shard(1),)] * 3, f"residual placements {placements}"
    torch.testing.assert_close(torch.stack(losses[0]), torch.stack(losses[1]))
    for name, p in ref.named_parameters():
        torch.testing.assert_close(params[name], p.detach(), msg=f"{name} after 3 steps")


PLACEMENT_CASES = _placement_cases()
MIXED_DTYPE_CASES = _mixed_dtype_cases()
BROADCAST_CASES = _broadcast_cases()
CASES = {
    **PLACEMENT_CASES,
    **MIXED_DTYPE_CASES,
    **BROADCAST_CASES,
    "fsdp2_step": check_fsdp2_step,
    "tensor_parallel_block": check_tensor_parallel_block,
}


def main(device: str, out_path: str) -> None:
    rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    # A collective that waits this long has lost its peer: fail rather than hang. A third of the
    # job's own limit (test_distributed.py), which emulated ranks raise.
    timeout = timedelta(seconds=int(os.environ.get("SUM_DOUBLE_RANKS_TIMEOUT_S", "180")) // 3)
    if device == "cuda":
        torch.cuda.set_device(rank)
        dist.init_process_group("nccl", timeout=timeout, device_id=torch.device("cuda", rank))
    else:
        dist.init_process_group("gloo", timeout=timeout)
    try:
        mesh = init_device_mesh(device, (world_size,))
        with open(out_path, "a") as out:
            for name, case in CASES.items():
                try:
                    case(mesh)
                    error = None
                except Exception:
                    error = traceback.format_exc()
                out.write(json.dumps({"case": name, "error": error}) + "\n")
                out.flush()
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main(*sys.argv[1:])
