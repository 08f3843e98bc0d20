"""What the wheel gives packages that build on sum-double: headers, CMake package, entry point.

The example packages under examples/ build against all this for real (ci/downstream.sh); these
tests check the installed wheel's side of it anywhere the suite runs.
"""

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import sum_double

from support import needs_regular_install


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)


def test_get_include_holds_the_public_headers() -> None:
    include = Path(sum_double.get_include())
    for header in ("sum_double.h", "dtype.h", "add_cpu.h", "add_cuda.h", "op.h", "cuda_stream.h"):
        assert (include / "sum_double" / header).is_file(), header


def test_cmake_dir_holds_the_cmake_package() -> None:
    cmake_dir = Path(sum_double.cmake_dir())
    assert (cmake_dir / "SumDoubleConfig.cmake").is_file()
    assert (cmake_dir / "SumDoubleConfigVersion.cmake").is_file()
    assert (cmake_dir / "SumDoubleTargets.cmake").is_file()
    assert (cmake_dir / "SumDoubleOpsTargets.cmake").is_file()
    cuda_targets = cmake_dir / "SumDoubleCudaTargets.cmake"
    assert cuda_targets.is_file() is not sum_double._C.cpu_only


def test_cmake_package_holds_no_build_machine_path() -> None:
    # Relocatable: everything relative to the config file, so an installed wheel works anywhere.
    for path in Path(sum_double.cmake_dir()).iterdir():
        text = path.read_text()
        assert "/tmp/" not in text, path.name
        assert "site-packages" not in text, path.name


def test_the_launcher_libraries_ship() -> None:
    lib = Path(sum_double.get_include()).parent / "lib"
    assert (lib / "libsum_double_cpu.a").is_file()
    assert (lib / "libsum_double_cuda.a").is_file() is not sum_double._C.cpu_only


@needs_regular_install
def test_cli_prints_the_paths() -> None:
    cmakedir = run("-m", "sum_double", "--cmakedir")
    assert cmakedir.returncode == 0, cmakedir.stderr
    assert cmakedir.stdout == sum_double.cmake_dir() + "\n"
    includes = run("-m", "sum_double", "--includes")
    assert includes.returncode == 0, includes.stderr
    assert includes.stdout == f"-I{sum_double.get_include()}\n"


@needs_regular_install
def test_cmake_root_entry_point_finds_the_package_without_torch() -> None:
    # What scikit-build-core does at a downstream configure: load the entry point, take its files().
    (entry_point,) = metadata.entry_points(group="cmake.root", name="SumDouble")
    script = (
        "import sys, importlib.metadata as m, importlib.resources as r\n"
        "(ep,) = m.entry_points(group='cmake.root', name='SumDouble')\n"
        "print(r.files(ep.load()))\n"
        "print(sorted(n for n in sys.modules if n.split('.')[0] in ('torch', 'sum_double')))\n"
    )
    proc = run("-c", script)
    assert proc.returncode == 0, proc.stderr
    root, loaded = proc.stdout.splitlines()
    assert loaded == "[]", f"the entry point imported {loaded}"
    assert Path(root) / "lib" / "cmake" / "SumDouble" == Path(sum_double.cmake_dir())
    assert entry_point.value == "sum_double_cmake"
