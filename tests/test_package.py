"""The package around the op: import guard, build facts, typing marker, the command line."""

import platform
import re
import subprocess
import sys
import sysconfig
from importlib import metadata, resources
from pathlib import Path

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


def test_shipped_headers_line_directives_keep_their_own_numbers() -> None:
    # A #line names the header in torch's error messages; its number must be the next line's, or
    # the messages point elsewhere once a comment above it grows.
    for header in sorted(Path(sum_double.get_include()).rglob("*.h")):
        for number, line in enumerate(header.read_text().splitlines(), start=1):
            if match := re.match(r"#line (\d+) ", line):
                assert int(match[1]) == number + 1, f"{header.name}:{number}: {line}"


def test_schema() -> None:
    schema = str(torch.ops.sum_double.add.default._schema)
    assert schema == "sum_double::add(Tensor a, Tensor b) -> Tensor"


@pytest.fixture(scope="module")
def info() -> str:
    """What `python -m sum_double info` prints; run once, as it starts a Python that loads torch."""
    proc = run("-m", "sum_double", "info")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_cli_info(info: str) -> None:
    assert f"sum-double {sum_double.__version__}" in info
    assert f"running on    torch {torch.__version__}" in info


def test_cli_info_names_cuda_toolkit_and_driver(info: str) -> None:
    driver = _C.cuda_driver_version()
    if _C.cpu_only:
        assert driver is None
        assert "  kernels       CPU only" in info
        assert "  CUDA driver   not looked for (CPU-only build)\n" in info
        return
    assert re.fullmatch(r"\d+\.\d+\.\d+", _C.cuda_version), _C.cuda_version
    assert f"  kernels       CPU + CUDA {_C.cuda_version}, archs " in info
    needed = f"(this build needs CUDA {_C.cuda_version.split('.')[0]} or newer)"
    if driver is None:
        assert not torch.cuda.is_available(), "torch found a GPU, so there is a driver"
        assert f"  CUDA driver   none found {needed}\n" in info
    else:
        assert re.fullmatch(r"\d+\.\d", driver), driver
        assert f"  CUDA driver   supports CUDA {driver} {needed}\n" in info


def test_cli_info_names_the_wheel_tag(info: str) -> None:
    # pip installs through a wheel even from a source tree, built for this interpreter and machine.
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    abi = python + ("t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "")
    # auditwheel may give a wheel more than one platform tag: info lists them all.
    tag = rf"{python}-{abi}-\w*linux\w*_{platform.machine()}"
    assert re.search(rf"^  wheel         {tag}(, {tag})*$", info, re.MULTILINE), info
    wheel = metadata.distribution("sum-double").read_text("WHEEL")
    assert wheel is not None
    assert re.search(rf"^Tag: {tag}$", wheel, re.MULTILINE), wheel


@pytest.mark.parametrize(
    "sum_double_distribution",
    [
        "raise metadata.PackageNotFoundError(name)",  # e.g. a CMake build put on sys.path
        "return metadata.PathDistribution(tmp_path)",  # a dist-info folder without a WHEEL file
    ],
    ids=["no-distribution", "no-WHEEL-file"],
)
def test_cli_info_without_a_wheel(sum_double_distribution: str, tmp_path: Path) -> None:
    script = f"""
import sys
from importlib import metadata
from pathlib import Path

tmp_path = Path({str(tmp_path)!r})
real_distribution = metadata.distribution

def distribution(name):
    if name != "sum-double":  # torch looks up other distributions at import
        return real_distribution(name)
    {sum_double_distribution}

metadata.distribution = distribution
from sum_double.__main__ import main
sys.exit(main(["info"]))
"""
    proc = run("-c", script)
    assert proc.returncode == 0, proc.stderr
    assert "  wheel         not installed from a wheel\n" in proc.stdout


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def test_cli_demo(device: str) -> None:
    proc = run("-m", "sum_double", "--device", device)
    assert proc.returncode == 0, proc.stderr
    assert "equals torch.add bit for bit: yes" in proc.stdout
    assert "gradients equal the incoming grad:  yes" in proc.stdout
    assert "1000000" in proc.stdout  # the seed's size is in the timing table
