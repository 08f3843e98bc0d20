"""Deployment: the op library without the Python module, and exported programs that use the op.

The op's registrations live in one shared library, ``sum_double.library_path()``, which the module
links. Loaded by itself (as a C++ program does: examples/cpp-deploy), it registers the op with no
Python module; loaded as well as the module, by any route, it is one library registered once.
Each case runs in a fresh interpreter, since a process can register the op only once.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import sum_double
from support import needs_regular_install


def python(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=300
    )


def test_library_path_is_the_op_library_this_process_loaded() -> None:
    path = Path(sum_double.library_path())
    assert path.name == "libsum_double_ops.so"
    # The file the loader mapped when the module was imported (its DT_NEEDED), not a look-alike.
    maps = Path("/proc/self/maps").read_text().split()
    (loaded,) = {Path(m) for m in maps if m.endswith("/libsum_double_ops.so")}
    assert os.path.samefile(loaded, path)


@needs_regular_install
def test_cli_prints_the_library_path() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "sum_double", "--library"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == sum_double.library_path() + "\n"


# argv[1]: the op library's path; the script must not import sum_double to find it.
ALONE = """
import ctypes, sys
import torch
ctypes.CDLL(sys.argv[1])
assert "sum_double" not in sys.modules
a, b = torch.randn(4, 3), torch.randn(3, dtype=torch.bfloat16)
out = torch.ops.sum_double.add(a, b)
assert torch.equal(out, torch.add(a, b)) and out.dtype == torch.float32
print("alone: ok")
"""


def test_the_library_alone_registers_the_op_without_the_module() -> None:
    proc = python(ALONE, sum_double.library_path())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "alone: ok\n"


LOADS = {
    "ctypes": "ctypes.CDLL(sys.argv[1])",
    "load_library": "torch.ops.load_library(sys.argv[1])",
    "import": "import sum_double",
}


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("ctypes", "import"),
        ("load_library", "import"),
        ("import", "ctypes"),
        ("import", "load_library"),
    ],
)
def test_loading_it_twice_registers_the_op_once(first: str, then: str) -> None:
    # The loader hands out the library it already has, whichever way it is reached, so the
    # namespace is registered once (a second registration crashes: the next test).
    script = (
        f"import ctypes, sys\nimport torch\n{LOADS[first]}\n{LOADS[then]}\nimport sum_double\n"
        "a = torch.randn(5)\n"
        "assert torch.equal(sum_double.add(a, a), a + a)\n"
        "assert torch.equal(torch.ops.sum_double.add(a, a), a + a)\n"
        "print('once: ok')\n"
    )
    proc = python(script, sum_double.library_path())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "once: ok\n"


def test_a_copy_of_the_library_elsewhere_is_a_second_registration(tmp_path: Path) -> None:
    # Why "the wheel's library, not a second file" (docs/deploying.md): another path is another
    # library to the loader, and its registrations run again; torch does not survive that.
    copy = tmp_path / "libsum_double_ops.so"
    copy.write_bytes(Path(sum_double.library_path()).read_bytes())
    script = (
        "import ctypes, sys, torch, sum_double\n"
        "print('imported', flush=True)\n"
        "ctypes.CDLL(sys.argv[1])\n"
    )
    proc = python(script, str(copy))
    assert proc.stdout == "imported\n", proc.stderr
    assert proc.returncode < 0, "expected the process to die of a signal"


class Residual(torch.nn.Module):
    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        h = sum_double.add(x, bias)
        return sum_double.add(torch.relu(h) * 2, x)


@pytest.fixture(scope="module", params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def saved_program(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    """A program exported and saved by torch.export, and its inputs and eager output."""
    x = torch.randn(4, 8, device=request.param)
    bias = torch.randn(8, dtype=torch.bfloat16, device=request.param)
    program = torch.export.export(Residual(), (x, bias))
    folder = tmp_path_factory.mktemp("export")
    torch.export.save(program, folder / "residual.pt2")
    torch.save({"x": x, "bias": bias, "out": Residual()(x, bias)}, folder / "io.pt")
    return folder / "residual.pt2", folder / "io.pt"


LOAD = """
import sys
import torch
{imports}
program = torch.export.load(sys.argv[1])
io = torch.load(sys.argv[2])
out = program.module()(io["x"], io["bias"])
assert out.dtype == io["out"].dtype
assert out.device == io["out"].device
assert torch.equal(out.view(torch.int32), io["out"].view(torch.int32))
print("loaded: ok")
"""


def test_a_saved_program_loads_and_runs_after_import_sum_double(
    saved_program: tuple[Path, Path],
) -> None:
    proc = python(LOAD.format(imports="import sum_double"), *map(str, saved_program))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "loaded: ok\n"


def test_without_the_import_the_error_names_the_op_to_register(
    saved_program: tuple[Path, Path],
) -> None:
    # torch's own words (its loader is all that runs): the op's name, whose namespace is the
    # package to import, and that it must be registered first. No traceback of ours is involved.
    proc = python(LOAD.format(imports=""), *map(str, saved_program))
    assert proc.returncode != 0
    assert "torch.ops.sum_double.add" in proc.stderr, proc.stderr
    assert "custom op is not registered" in proc.stderr, proc.stderr
