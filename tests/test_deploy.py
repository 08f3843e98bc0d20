"""Deployment: the op library without the Python module, and exported programs that use the op.

The op's registrations live in one shared library, ``sum_double.library_path()``, which the module
links. Loaded by itself (as a C++ program does: examples/cpp-deploy), it registers the op with no
Python module; loaded as well as the module, by any route, it is one library registered once.
Each case runs in a fresh interpreter, since a process can register the op only once; most run
side by side (``support.run_side_by_side``), as each pays for an ``import torch``.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import sum_double

from reference import TWIN_NAME
from support import NAME, OP_NAME, Runs, needs_regular_install, op, run_side_by_side


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
ALONE = f"""
import ctypes, sys
import torch
ctypes.CDLL(sys.argv[1])
assert "sum_double" not in sys.modules
a, b = torch.randn(4, 3), torch.randn(3, dtype=torch.bfloat16)
out = torch.ops.sum_double.{NAME}(a, b)
assert torch.equal(out, {TWIN_NAME}(a, b)) and out.dtype == torch.float32
print("alone: ok")
"""


def test_the_library_alone_registers_the_op_without_the_module() -> None:
    # Not one of the `fresh` runs below: ci/aarch64.sh keeps this test and leaves those out.
    proc = python(ALONE, sum_double.library_path())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "alone: ok\n"


LOADS = {
    "ctypes": "ctypes.CDLL(sys.argv[1])",
    "load_library": "torch.ops.load_library(sys.argv[1])",
    "import": "import sum_double",
}
TWICE = [
    ("ctypes", "import"),
    ("load_library", "import"),
    ("import", "ctypes"),
    ("import", "load_library"),
]


def twice(first: str, then: str) -> str:
    """A script that loads the library (argv[1]) one way, then another, then uses the op."""
    return (
        f"import ctypes, sys\nimport torch\n{LOADS[first]}\n{LOADS[then]}\nimport sum_double\n"
        "a = torch.randn(5)\n"
        f"assert torch.equal(sum_double.{NAME}(a, a), {TWIN_NAME}(a, a))\n"
        f"assert torch.equal(torch.ops.sum_double.{NAME}(a, a), {TWIN_NAME}(a, a))\n"
        "print('once: ok')\n"
    )


# argv[1]: a copy of the op library, in another folder.
COPY = (
    "import ctypes, sys, torch, sum_double\n"
    "print('imported', flush=True)\n"
    "ctypes.CDLL(sys.argv[1])\n"
)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """The loading rules' processes (the next two tests), side by side, with the op library's path
    or a copy's as argv[1]. ci/aarch64.sh leaves out every test that reads this."""
    library = sum_double.library_path()
    copy = tmp_path_factory.mktemp("copy") / "libsum_double_ops.so"
    copy.write_bytes(Path(library).read_bytes())
    commands = {"copy": ["-c", COPY, str(copy)]}
    for first, then in TWICE:
        commands[f"{first} then {then}"] = ["-c", twice(first, then), library]
    return run_side_by_side(commands)


@pytest.mark.parametrize(("first", "then"), TWICE)
def test_loading_it_twice_registers_the_op_once(first: str, then: str, fresh: Runs) -> None:
    # The loader hands out the library it already has, whichever way it is reached, so the
    # namespace is registered once (a second registration crashes: the next test).
    proc = fresh[f"{first} then {then}"].result()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "once: ok\n"


def test_a_copy_of_the_library_elsewhere_is_a_second_registration(fresh: Runs) -> None:
    # Why "the wheel's library, not a second file" (docs/deploying.md): another path is another
    # library to the loader, and its registrations run again; torch does not survive that.
    proc = fresh["copy"].result()
    assert proc.stdout == "imported\n", proc.stderr
    assert proc.returncode < 0, "expected the process to die of a signal"


class Residual(torch.nn.Module):
    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        h = op(x, bias)
        return op(torch.relu(h) * 2, x)


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


@pytest.fixture(scope="module")
def loads(saved_program: tuple[Path, Path]) -> Runs:
    """The saved program loaded by two fresh Pythons side by side: after `import sum_double`, and
    with no import. ci/aarch64.sh leaves out every test that reads this."""
    paths = [str(path) for path in saved_program]
    return run_side_by_side(
        {
            "after import": ["-c", LOAD.format(imports="import sum_double"), *paths],
            "no import": ["-c", LOAD.format(imports=""), *paths],
        }
    )


def test_a_saved_program_loads_and_runs_after_import_sum_double(loads: Runs) -> None:
    proc = loads["after import"].result()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "loaded: ok\n"


def test_without_the_import_the_error_names_the_op_to_register(loads: Runs) -> None:
    # torch's own words (its loader is all that runs): the op's name, whose namespace is the
    # package to import, and that it must be registered first. No traceback of ours is involved.
    proc = loads["no import"].result()
    assert proc.returncode != 0
    assert OP_NAME in proc.stderr, proc.stderr
    assert "custom op is not registered" in proc.stderr, proc.stderr
