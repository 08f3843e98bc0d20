"""Inductor compiles the op as its twin (_inductor_fusion.py; tests/reference.py): fused into its
neighbours' kernels as the twin is, with the compiled twin's results, on every torch in the matrix,
once inductor is imported, whichever comes first. Delete this file with _inductor_fusion.py."""

import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from torch import Tensor
from torch._inductor.utils import run_and_get_code

from sum_double import _inductor_fusion
from sum_double._ops import OPS

from reference import TWIN, as_read
from support import (
    BELOW_NAME,
    IGNORE_TORCH_LEAFSPEC,
    MIXED_AND_BROADCAST,
    OP_NAME,
    Runs,
    assert_bitwise_equal,
    check_op,
    op,
    run_side_by_side,
)
from tiny_transformer import train, twins


# On CPUs without BF16 instructions (Neoverse-N1, as ci/aarch64.sh emulates) torch warns that its
# own bf16 matmul falls back to BLAS; both models take that path.
@pytest.mark.filterwarnings("ignore:mkldnn_matmul failed, switching to BLAS gemm:UserWarning")
@pytest.mark.usefixtures("no_compile_caches")
def test_inductor_fuses_the_op_as_it_fuses_its_twin(device: str) -> None:
    # One block, no attention: inductor's C++ compiles dominate on a small CPU machine.
    ours, theirs = twins(device, blocks=1, attention=False)
    ours_losses, code = run_and_get_code(
        lambda: train(ours, device, torch.bfloat16, torch.compile(ours, fullgraph=True))
    )
    # No call of the op is left in inductor's code, forward or backward; and the code is the
    # twin model's but for names, which a fused graph that differs from the twin's is not
    # (9d7248a's lowering saved the sum for the backward), so the model trains bit for bit as that
    # one does, at its speed.
    assert code, "inductor generated no code"
    assert not any("torch.ops.sum_double" in source for source in code), code
    theirs_losses, theirs_code = run_and_get_code(
        lambda: train(theirs, device, torch.bfloat16, torch.compile(theirs, fullgraph=True))
    )
    assert [_but_for_names(s) for s in code] == [_but_for_names(s) for s in theirs_code]
    assert_bitwise_equal(ours_losses, theirs_losses)


def _but_for_names(source: str) -> str:
    """Inductor's code without comment lines (C++ directives too) and identifiers that start
    cpp_ or triton_: kernel names, which name the ops fused (the op's name below autograd among
    them), and comments, which name the graph."""
    source = re.sub(r"^[ \t]*#.*\n", "", source, flags=re.MULTILINE)
    return re.sub(r"\b(cpp|triton)_\w+", "kernel", source)


# Inductor's CPU code generator warns of float16 + bfloat16 in one kernel, as it does for the twin.
@pytest.mark.filterwarnings("ignore:bf16 and fp16 are mixed in the scheduler node")
@pytest.mark.usefixtures("no_compile_caches")
def test_the_fused_op_gives_the_compiled_twins_results(device: str) -> None:
    # Mixed dtypes, broadcasting, 0-dim inputs and a transposed one, in one graph (one compile).
    gen = torch.Generator().manual_seed(0)
    pairs = [
        tuple(torch.randn(shape, generator=gen).to(device, dtype) for shape, dtype in case.values)
        for case in MIXED_AND_BROADCAST
    ]
    pairs.append((torch.randn(5, 7, generator=gen).to(device).t(), torch.randn(7, 5).to(device)))
    names = [case.id for case in MIXED_AND_BROADCAST] + ["transposed"]

    def each(f: Callable[[Tensor, Tensor], Tensor]) -> Callable[..., list[Tensor]]:
        return lambda pairs: [f(a, b) for a, b in pairs]

    ours, code = run_and_get_code(torch.compile(each(op), fullgraph=True), pairs)
    assert code, "inductor generated no code"
    assert not any("torch.ops.sum_double" in source for source in code), code
    theirs = torch.compile(each(TWIN), fullgraph=True)(pairs)
    eager = each(op)(pairs)
    unlike_eager = set()
    for name, out, ref, mine in zip(names, ours, theirs, eager, strict=True):
        # The compiled twin's values (bits), dtype, shape and strides; the eager op's dtype, shape
        # and strides, and its values too, but where inductor reads a wider 0-dim tensor unrounded.
        assert_bitwise_equal(out, ref)
        assert out.stride() == ref.stride() == mine.stride(), name
        assert (out.dtype, out.shape) == (mine.dtype, mine.shape), name
        if not torch.equal(out, mine):
            unlike_eager.add(name)
    assert unlike_eager <= {"wider-0-dim"}


def test_as_twin_is_the_op_bit_for_bit() -> None:
    # What inductor traces in the op's place, run eagerly on the inputs as the op reads them: a
    # change of the op that leaves it behind fails here, with no compile.
    from torch._inductor import decomposition

    as_twin = decomposition.decompositions[OPS[1]]
    gen = torch.Generator().manual_seed(0)
    for case in MIXED_AND_BROADCAST:
        a, b = (torch.randn(shape, generator=gen).to(dtype) for shape, dtype in case.values)
        assert_bitwise_equal(as_twin(*as_read(a, b)), check_op(a, b))
    a = torch.randn(7, 5, generator=gen).t()
    assert_bitwise_equal(as_twin(a, a), check_op(a, a))
    with pytest.raises(RuntimeError, match="expected a to be a float16"):
        as_twin(torch.ones(3, dtype=torch.int64), torch.ones(3))  # the op's checks, even here


MISSING = ["decompositions", "fast_random_decomps", "lowerings", "fallback_handler"]


@pytest.mark.parametrize("missing", MISSING)
def test_where_this_torch_lacks_a_name_nothing_is_registered(
    monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    # Inductor then calls the op, as it does with this file deleted.
    from torch._inductor import decomposition, lowering

    decompositions, lowerings = {}, {}  # stand-ins, so that the real tables stay as they are
    monkeypatch.setattr(decomposition, "decompositions", decompositions)
    monkeypatch.setattr(lowering, "lowerings", lowerings)
    where = decomposition if missing in ("decompositions", "fast_random_decomps") else lowering
    monkeypatch.delattr(where, missing)
    _inductor_fusion._register(OPS, TWIN)  # must not raise
    assert decompositions == lowerings == {}


_REGISTERED = (
    "import torch\n"
    "from torch._inductor import decomposition, lowering\n"
    f"ops = ({OP_NAME}.default, {BELOW_NAME}.default)\n"
    "assert all(op in decomposition.select_decomp_table() for op in ops)\n"
    "assert all(op in lowering.lowerings for op in ops)\n"
)


@pytest.fixture(scope="module")
def imports() -> Runs:
    """``import sum_double`` alone, and before and after inductor's tables, each in a fresh Python
    (where the order is not yet decided). "inductor first" has used its decomposition table."""
    return run_side_by_side(
        {
            "alone": ["-c", "import sys, sum_double; print('torch._inductor' in sys.modules)"],
            "sum_double first": ["-c", "import sum_double\n" + _REGISTERED],
            "inductor first": [
                "-c",
                "import torch._inductor.lowering, torch._inductor.decomposition as d\n"
                "d.select_decomp_table()\n"
                "import sum_double\n" + _REGISTERED,
            ],
        }
    )


def test_import_sum_double_does_not_load_inductor(imports: Runs) -> None:
    run = imports["alone"].result()
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "False"  # it takes seconds: loaded by whoever compiles


@pytest.mark.parametrize("order", ["sum_double first", "inductor first"])
def test_the_op_is_in_inductors_tables_whichever_is_imported_first(
    imports: Runs, order: str
) -> None:
    run = imports[order].result()
    assert run.returncode == 0, run.stderr


@IGNORE_TORCH_LEAFSPEC
@pytest.mark.usefixtures("no_compile_caches")
def test_an_aotinductor_package_calls_no_op(tmp_path: Path) -> None:
    # Fused, a package of a model that calls the op needs no op library to run.
    class Model(torch.nn.Module):
        def forward(self, x: Tensor, y: Tensor) -> Tensor:
            return op(x, y).relu()

    args = (torch.randn(4, 8), torch.randn(8))
    with torch.no_grad():
        program = torch.export.export(Model(), args)
    package = torch._inductor.aoti_compile_and_package(
        program, package_path=str(tmp_path / "m.pt2")
    )
    with zipfile.ZipFile(package) as files:
        code = [files.read(n).decode() for n in files.namelist() if n.endswith((".cpp", ".json"))]
    # Inductor's comments name the ATen ops each kernel came from, the op's among them.
    calls = [
        line
        for source in code
        for line in source.splitlines()
        if "sum_double" in line and not line.lstrip().startswith("//")
    ]
    assert code, "no generated code in the package"
    assert calls == []
