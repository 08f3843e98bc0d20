"""The package around the op: import guard, build facts, typing marker, the command line."""

import subprocess
import sys
from importlib import resources

import pytest
import torch

import sum_double
from sum_double import _C


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)


def test_old_torch_is_refused_with_a_clear_message() -> None:
    # The guard reads torch.__version__ before loading the library; pretend torch is 2.9.
    proc = run(
        "-c",
        "import torch; torch.__version__ = torch.torch_version.TorchVersion('2.9.1');"
        "import sum_double",
    )
    assert proc.returncode != 0
    assert "ImportError: sum_double needs torch>=2.10, but torch 2.9.1 is installed" in proc.stderr


def test_build_facts() -> None:
    assert sum_double.__version__ == _C.__version__
    assert _C.stable_abi_target == "2.10"
    assert torch.torch_version.TorchVersion(_C.built_with_torch) >= "2.10"
    if _C.cpu_only:
        assert _C.cuda_archs == ()
        assert _C.cuda_version is None
    else:
        assert _C.cuda_archs, "a CUDA build lists the architectures it carries"
        assert _C.cuda_version


BUILT_13_0 = "sum_double.add(): this sum_double was built with CUDA 13.0, but "
REBUILD = (
    ", or build sum_double from source with a CUDA toolkit that this driver supports (nvcc on "
    "PATH): pip install --no-binary sum-double sum-double"
)


@pytest.mark.parametrize(
    ("built_with", "driver", "problem"),
    [
        pytest.param(13000, 13000, "", id="same"),
        pytest.param(13000, 13020, "", id="newer-minor-driver"),
        # Minor version compatibility: a 13.2 runtime runs on a driver for 13.0.
        pytest.param(13020, 13000, "", id="older-minor-driver"),
        pytest.param(12080, 13000, "", id="newer-major-driver"),
        pytest.param(
            13000,
            12080,
            BUILT_13_0 + "the installed NVIDIA driver supports CUDA 12.8 at most. Update the "
            "NVIDIA driver (CUDA 13 needs driver 580 or newer)" + REBUILD,
            id="older-major-driver",
        ),
        pytest.param(
            12040,
            11080,
            "sum_double.add(): this sum_double was built with CUDA 12.4, but the installed NVIDIA "
            "driver supports CUDA 11.8 at most. Update the NVIDIA driver (CUDA 12 needs driver 525 "
            "or newer)" + REBUILD,
            id="older-major-driver-12",
        ),
        pytest.param(
            14000,
            13000,
            "sum_double.add(): this sum_double was built with CUDA 14.0, but the installed NVIDIA "
            "driver supports CUDA 13.0 at most. Update the NVIDIA driver (it must support CUDA 14)"
            + REBUILD,
            id="unknown-major",
        ),
        pytest.param(
            13000,
            0,
            BUILT_13_0 + "no NVIDIA driver was found. Install one (CUDA 13 needs driver 580 or "
            "newer).",
            id="no-driver",
        ),
    ],
)
def test_driver_problem(built_with: int, driver: int, problem: str) -> None:
    # The check the op runs on its first CUDA tensor, fed versions no machine here has.
    assert _C._driver_problem(built_with, driver) == problem


def test_ships_py_typed() -> None:
    assert resources.files("sum_double").joinpath("py.typed").is_file()


def test_schema() -> None:
    schema = str(torch.ops.sum_double.add.default._schema)
    assert schema == "sum_double::add(Tensor a, Tensor b) -> Tensor"


def test_cli_info() -> None:
    proc = run("-m", "sum_double", "info")
    assert proc.returncode == 0, proc.stderr
    assert f"sum-double {sum_double.__version__}" in proc.stdout
    assert f"running on    torch {torch.__version__}" in proc.stdout


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def test_cli_demo(device: str) -> None:
    proc = run("-m", "sum_double", "--device", device)
    assert proc.returncode == 0, proc.stderr
    assert "equals torch.add bit for bit: yes" in proc.stdout
    assert "gradients equal the incoming grad:  yes" in proc.stdout
    assert "1000000" in proc.stdout  # the seed's size is in the timing table
