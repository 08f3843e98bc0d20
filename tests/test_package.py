"""The package around the op: import guard, build facts, typing marker, the command line."""

import platform
import re
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from importlib import metadata, resources
from pathlib import Path

import pytest
import torch

import sum_double
from sum_double import _C, _cli, _demo
from sum_double.__main__ import main
from sum_double._definition import FORMULA
from sum_double._info import _gpu_code

from reference import TWIN_NAME
from support import (
    CUDA_BUILD,
    HAS_CUDA,
    NAME,
    OP,
    QUALNAME,
    REFUSED_DEVICES,
    Runs,
    run_side_by_side,
)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """The fresh Pythons of the tests that read this, side by side: each imports torch, seconds
    of a core. The demo's timings share the cores with the others ("too noisy" is a speed it
    may print).

    ci/aarch64.sh leaves out (-k) every test that reads this, so that none of these pays an
    emulated `import torch`; a test it keeps would start them all.
    """
    no_wheel_file = str(tmp_path_factory.mktemp("no-WHEEL-file"))
    commands = {
        "old torch": ["-c", OLD_TORCH],
        "demo cpu": ["-m", "sum_double", "--device", "cpu"],
    }
    if HAS_CUDA and CUDA_BUILD:  # where the CUDA tests run (conftest.py)
        commands["demo cuda"] = ["-m", "sum_double", "--device", "cuda"]
    if torch.cuda.device_count() <= 7:  # else its test skips
        commands["cuda:7"] = ["-m", "sum_double", "--device", "cuda:7"]
    for case, distribution in WITHOUT_A_WHEEL.items():
        script = INFO_WITHOUT_A_WHEEL.format(distribution=distribution, tmp_path=no_wheel_file)
        commands[f"info {case}"] = ["-c", script]
    return run_side_by_side(commands)


# The guard reads torch.__version__ before loading the library; pretend torch is 2.9.
OLD_TORCH = (
    "import torch; torch.__version__ = torch.torch_version.TorchVersion('2.9.1');import sum_double"
)


def test_old_torch_is_refused_with_a_clear_message(fresh: Runs) -> None:
    proc = fresh["old torch"].result()
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


BUILT_13_0 = f"{QUALNAME}(): this sum_double was built with CUDA 13.0, but "
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
            f"{QUALNAME}(): this sum_double was built with CUDA 12.4, but the installed NVIDIA "
            "driver supports CUDA 11.8 at most. Update the NVIDIA driver (CUDA 12 needs driver 525 "
            "or newer)" + REBUILD,
            id="older-major-driver-12",
        ),
        pytest.param(
            14000,
            13000,
            f"{QUALNAME}(): this sum_double was built with CUDA 14.0, but the installed NVIDIA "
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


# The release wheel's list (CUDA 12.4) and a CUDA 13 source build's, as build_info.h spells them.
ARCHS_12_4 = "70-real,75-real,80-real,86-real,89-real,90"
ARCHS_13_0 = "75-real,80-real,86-real,89-real,90-real,100-real,120"


@pytest.mark.parametrize(
    ("archs", "capability", "code"),
    [
        pytest.param(ARCHS_12_4, (7, 0), "sm_70", id="12.4-sm_70"),
        pytest.param(ARCHS_12_4, (7, 5), "sm_75", id="12.4-sm_75"),
        pytest.param(ARCHS_12_4, (8, 0), "sm_80", id="12.4-sm_80"),
        pytest.param(ARCHS_12_4, (8, 6), "sm_86", id="12.4-sm_86"),
        # Jetson Orin: the newest machine code of its major at or below its minor.
        pytest.param(ARCHS_12_4, (8, 7), "sm_86", id="12.4-sm_87"),
        pytest.param(ARCHS_12_4, (8, 9), "sm_89", id="12.4-sm_89"),
        # "90" carries machine code and PTX: the machine code wins.
        pytest.param(ARCHS_12_4, (9, 0), "sm_90", id="12.4-sm_90"),
        # Blackwell: no machine code of major 10 or 12, so the driver compiles compute_90.
        pytest.param(ARCHS_12_4, (10, 0), "compute_90", id="12.4-sm_100"),
        pytest.param(ARCHS_12_4, (12, 0), "compute_90", id="12.4-sm_120"),
        # Pascal: older than every entry, and PTX never runs on an older GPU.
        pytest.param(ARCHS_12_4, (6, 0), "", id="12.4-sm_60"),
        pytest.param(ARCHS_13_0, (12, 0), "sm_120", id="13.0-sm_120"),
        pytest.param(ARCHS_13_0, (12, 1), "sm_120", id="13.0-sm_121"),
        pytest.param(ARCHS_13_0, (10, 3), "sm_100", id="13.0-sm_103"),
        pytest.param(ARCHS_13_0, (7, 0), "", id="13.0-sm_70"),
        # Thor: compute_120 is newer than it, and no machine code has major 11.
        pytest.param(ARCHS_13_0, (11, 0), "", id="13.0-sm_110"),
        pytest.param(ARCHS_13_0, (13, 0), "compute_120", id="13.0-later-gpu"),
        # Machine code of an older minor of the same major, never of another major.
        pytest.param("80-real,90", (8, 6), "sm_80", id="sm_86-runs-sm_80"),
        pytest.param("80-real", (9, 0), "", id="sm_80-not-on-sm_90"),
        pytest.param("86-real", (8, 0), "", id="sm_86-not-on-sm_80"),
        pytest.param("80", (9, 0), "compute_80", id="ptx-of-80-on-sm_90"),
        pytest.param("90-virtual", (9, 0), "compute_90", id="virtual-is-ptx-only"),
        pytest.param("80-virtual,86-real", (8, 9), "sm_86", id="machine-code-before-ptx"),
        pytest.param("86-real,80-real", (8, 9), "sm_86", id="newest-machine-code"),
        pytest.param("90-virtual,80", (10, 0), "compute_90", id="newest-ptx"),
        pytest.param("", (9, 0), "", id="empty-list"),
        # CMake resolves "native" only as it compiles: the list does not say.
        pytest.param("native", (9, 0), "unknown", id="native"),
        pytest.param("native,80-real", (8, 6), "sm_80", id="native-and-a-match"),
    ],
)
def test_cuda_code_for(archs: str, capability: tuple[int, int], code: str) -> None:
    # The rule the op's launch error and `info` both follow, for GPUs no machine here has.
    assert _C._cuda_code_for(*capability, archs) == code


REBUILD_FOR = (
    ". Build sum_double from source for this GPU with a CUDA toolkit whose nvcc builds {sm} (nvcc "
    "on PATH): CUDAARCHS={number} pip install --no-binary sum-double sum-double (docs/limits.md)"
)


@pytest.mark.parametrize(
    ("gpu", "archs", "problem"),
    [
        pytest.param(
            ("Tesla P100-PCIE-16GB", 0, 6, 0),
            ARCHS_12_4,
            f"{QUALNAME}(): this sum_double has no code that cuda:0 (Tesla P100-PCIE-16GB, "
            "sm_60) can run: it carries machine code for sm_70, sm_75, sm_80, sm_86, sm_89, sm_90 "
            "and PTX for compute_90" + REBUILD_FOR.format(sm="sm_60", number=60),
            id="12.4-sm_60",
        ),
        pytest.param(
            ("NVIDIA H200", 3, 9, 0),
            "80-real",
            f"{QUALNAME}(): this sum_double has no code that cuda:3 (NVIDIA H200, sm_90) can "
            "run: it carries machine code for sm_80 and no PTX"
            + REBUILD_FOR.format(sm="sm_90", number=90),
            id="no-ptx",
        ),
        pytest.param(
            ("NVIDIA H200", 0, 9, 0),
            "native",
            f"{QUALNAME}(): this sum_double has no code that cuda:0 (NVIDIA H200, sm_90) can "
            "run: it carries machine code for native and no PTX"
            + REBUILD_FOR.format(sm="sm_90", number=90),
            id="native",
        ),
        pytest.param(("NVIDIA H200", 0, 9, 0), ARCHS_12_4, "", id="12.4-sm_90"),
        pytest.param(("NVIDIA B200", 0, 10, 0), ARCHS_12_4, "", id="12.4-sm_100-runs-ptx"),
    ],
)
def test_cuda_arch_problem(gpu: tuple[str, int, int, int], archs: str, problem: str) -> None:
    # What the op raises instead of CUDA's bare "no kernel image is available for execution on
    # the device" when the launch fails on a GPU the build has no code for.
    assert _C._cuda_arch_problem(*gpu, archs) == problem


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
    schema = str(OP._schema)
    assert schema == f"sum_double::{NAME}(Tensor a, Tensor b) -> Tensor"


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
    runtime = _C.cuda_runtime_version
    assert runtime is not None
    assert re.fullmatch(r"\d+\.\d+\.\d+", runtime), runtime
    assert f"  kernels       CPU + CUDA, runtime {runtime} (nvcc {_C.cuda_version})\n" in info
    major = int(runtime.split(".")[0])
    branch = {12: 525, 13: 580}[major]  # NVIDIA's floors, written here apart from the C++ ones
    needed = f"(this build's CUDA {major} runtime needs driver {branch}+)"
    if driver is None:
        assert not torch.cuda.is_available(), "torch found a GPU, so there is a driver"
        assert f"  CUDA driver   none found {needed}\n" in info
    else:
        assert re.fullmatch(r"\d+\.\d", driver), driver
        assert f"  CUDA driver   supports CUDA {driver} {needed}\n" in info


def test_cli_info_lists_machine_code_and_ptx(info: str) -> None:
    if _C.cpu_only:
        assert _C.cuda_runtime_version is None
        assert (_C.cuda_machine_code, _C.cuda_ptx) == ((), ())
        assert "  machine code  " not in info
        assert "  PTX           " not in info
        return
    # The list read here apart from the C++ parser: "N-real" is machine code only, "N-virtual" PTX
    # only, "N" both; an entry CMake resolves itself (native) counts as machine code, as it is.
    machine_code, ptx = [], []
    for entry in _C.cuda_archs:
        number, _, kind = entry.partition("-")
        if not number.isdigit():
            machine_code.append(entry)
            continue
        if kind != "virtual":
            machine_code.append(f"sm_{number}")
        if kind != "real":
            ptx.append(f"compute_{number}")
    assert _C.cuda_machine_code == tuple(machine_code)
    assert _C.cuda_ptx == tuple(ptx)
    assert f"  machine code  {', '.join(machine_code)}\n" in info
    if ptx:
        jit = "(for newer GPUs: the first call JIT-compiles it)"
        assert f"  PTX           {', '.join(ptx)} {jit}\n" in info
    else:
        assert "  PTX           none (a GPU that none of the machine code fits cannot run" in info


@pytest.mark.parametrize(
    ("archs", "capability", "words"),
    [
        pytest.param(ARCHS_12_4, (9, 0), "sm_90 machine code", id="12.4-sm_90"),
        pytest.param(ARCHS_12_4, (8, 7), "sm_86 machine code", id="12.4-sm_87"),
        pytest.param(
            ARCHS_12_4,
            (12, 0),
            "compute_90 PTX, JIT-compiled by the driver on first use",
            id="12.4-sm_120",
        ),
        pytest.param(ARCHS_12_4, (6, 0), "none: this build cannot run on it", id="12.4-sm_60"),
        pytest.param(ARCHS_13_0, (12, 1), "sm_120 machine code", id="13.0-sm_121"),
        pytest.param("native", (9, 0), "cannot tell from this build's archs (native)", id="native"),
    ],
)
def test_cli_info_words_for_the_code_a_gpu_runs(
    archs: str, capability: tuple[int, int], words: str
) -> None:
    assert _gpu_code(*capability, tuple(archs.split(","))) == words


def test_cli_info_says_which_code_each_gpu_runs(info: str) -> None:
    count = torch.cuda.device_count()
    if count == 0:
        assert "  devices       no CUDA device\n" in info
    for index in range(count):
        major, minor = torch.cuda.get_device_capability(index)
        gpu = f"cuda:{index} {torch.cuda.get_device_name(index)} (sm_{major}{minor})"
        runs = "no CUDA code (CPU-only build)"
        if not _C.cpu_only:
            runs = _gpu_code(major, minor, _C.cuda_archs)
        label = "  devices       " if index == 0 else " " * 16
        assert f"{label}{gpu}: {runs}\n" in info


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


# What metadata.distribution("sum-double") does for `info`, by test id: no distribution (e.g. a
# CMake build put on sys.path), and a dist-info folder without a WHEEL file.
WITHOUT_A_WHEEL = {
    "no-distribution": "raise metadata.PackageNotFoundError(name)",
    "no-WHEEL-file": "return metadata.PathDistribution(tmp_path)",
}
INFO_WITHOUT_A_WHEEL = """
import sys
from importlib import metadata
from pathlib import Path

tmp_path = Path({tmp_path!r})
real_distribution = metadata.distribution

def distribution(name):
    if name != "sum-double":  # torch looks up other distributions at import
        return real_distribution(name)
    {distribution}

metadata.distribution = distribution
from sum_double.__main__ import main
sys.exit(main(["info"]))
"""


@pytest.mark.parametrize("case", WITHOUT_A_WHEEL)
def test_cli_info_without_a_wheel(case: str, fresh: Runs) -> None:
    proc = fresh[f"info {case}"].result()
    assert proc.returncode == 0, proc.stderr
    assert "  wheel         not installed from a wheel\n" in proc.stdout


def test_cli_info_says_a_cpu_only_build_on_its_first_line(info: str) -> None:
    first = info.splitlines()[0]
    assert first == f"sum-double {sum_double.__version__}" + (
        " (CPU-only build: no CUDA code)" if _C.cpu_only else ""
    )


def imported_modules(stderr: str) -> list[str]:
    """The modules a `python -X importtime` run imported, from what it wrote to stderr."""
    lines = [line for line in stderr.splitlines() if line.startswith("import time:")]
    return [line.split("|")[-1].strip() for line in lines[1:]]  # the first line is the header


def without_torch(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m sum_double ARGS`, checked to have imported neither torch nor the op library."""
    proc = run("-X", "importtime", "-m", "sum_double", *args)
    modules = imported_modules(proc.stderr)
    assert "sum_double" in modules, proc.stderr  # the importtime output was read right
    assert [m for m in modules if m.split(".")[0] == "torch" or m == "sum_double._C"] == []
    return proc


@pytest.mark.parametrize("flag", ["--cmakedir", "--includes", "--library"])
def test_cli_paths_answer_without_torch(flag: str) -> None:
    # Build scripts ask for these; torch's import would cost them seconds each time.
    proc = without_torch(flag)
    assert proc.returncode == 0, proc.stderr
    printed = proc.stdout.removesuffix("\n")
    api = {
        "--cmakedir": sum_double.cmake_dir(),
        "--includes": f"-I{sum_double.get_include()}",
        "--library": sum_double.library_path(),
    }
    assert printed == api[flag]
    # Checked apart from _cpp.py (which finds the module without loading it): beside the module
    # this process loaded, and the very op library it mapped.
    path = Path(printed.removeprefix("-I"))
    package = Path(_C.__file__).resolve().parent
    if flag == "--cmakedir":
        assert path == package.parent / "sum_double_cmake" / "lib" / "cmake" / "SumDouble"
        assert (path / "SumDoubleConfig.cmake").is_file()
    elif flag == "--includes":
        assert path == package / "include"
        assert (path / "sum_double" / "sum_double.h").is_file()
    else:
        maps = Path("/proc/self/maps").read_text().split()
        assert {Path(p).resolve() for p in maps if p.endswith("/libsum_double_ops.so")} == {
            path.resolve()
        }


def test_cli_help_is_plain_words_without_torch() -> None:
    proc = without_torch("--help")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "``" not in text
    assert "seed" not in text
    for words in ("demo ", "info ", "--device", "--cmakedir", "--includes", "--library"):
        assert words in text
    # The op in _definition.py's words, read there without torch: a copy's help names its own.
    assert text.startswith(f"usage: python -m {sum_double.__name__} ")
    assert f"{QUALNAME}(a, b) computes {FORMULA} as a PyTorch operator" in text
    assert f"checks {QUALNAME} against {TWIN_NAME} on random data" in text


def test_cli_refuses_a_bad_command_line_without_torch() -> None:
    proc = without_torch("--cmakedir", "--library")
    assert proc.returncode == 2
    assert "not allowed with argument" in proc.stderr


def test_another_modules_run_is_not_answered(tmp_path: Path) -> None:
    # A package run with -m that imports sum_double as it loads: sys.argv[0] is "-m" then too,
    # but the --help is that package's own, and the op is registered as always. Not one of the
    # `fresh` runs: ci/aarch64.sh keeps this test.
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "__init__.py").write_text("import sum_double\n")
    registered = f"hasattr(torch.ops.sum_double, {NAME!r})"
    main = f"import sys, torch\nprint('other', sys.argv[1:], {registered})\n"
    (tmp_path / "other" / "__main__.py").write_text(main)
    proc = subprocess.run(
        [sys.executable, "-m", "other", "--help"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "other ['--help'] True\n"


@pytest.mark.parametrize(("device", "problem"), REFUSED_DEVICES)
def test_cli_refuses_a_device_it_cannot_use(
    device: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # argparse's way: the usage, one line of error, status 2; not a torch traceback.
    with pytest.raises(SystemExit) as exit_info:
        main(["--device", device])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m sum_double ")
    assert err.count("error:") == 1
    assert err.endswith(f"\npython -m sum_double: error: {problem}\n")


def test_cli_refuses_a_gpu_it_does_not_have_without_a_traceback(fresh: Runs) -> None:
    # The whole command, as a user runs it; cuda:7 on a machine of fewer GPUs.
    if torch.cuda.device_count() > 7:
        pytest.skip("this machine has a cuda:7")
    proc = fresh["cuda:7"].result()
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    error = proc.stderr.splitlines()[-1]
    assert error.startswith("python -m sum_double: error: --device cuda:7: torch sees "), error


@pytest.mark.parametrize(
    ("device", "gpus", "cpu_only", "problem"),
    [
        pytest.param("cpu", 0, True, None, id="cpu"),
        pytest.param("cuda", 1, False, None, id="cuda"),
        pytest.param("cuda:1", 2, False, None, id="cuda:1-of-2"),
        pytest.param("gpu", 1, False, "expected cpu, cuda or cuda:N", id="gpu"),
        pytest.param("cuda:", 1, False, "expected cpu, cuda or cuda:N", id="no-index"),
        pytest.param("cuda:01", 2, False, "expected cpu, cuda or cuda:N", id="leading-zero"),
        pytest.param("cuda:-1", 1, False, "expected cpu, cuda or cuda:N", id="negative"),
        pytest.param("CUDA", 1, False, "expected cpu, cuda or cuda:N", id="upper-case"),
        pytest.param("cpu:0", 0, False, "expected cpu, cuda or cuda:N", id="cpu-index"),
        pytest.param("cuda", 0, False, "torch sees no CUDA device", id="no-gpu"),
        pytest.param("cuda:7", 1, False, "torch sees 1 CUDA device, cuda:0", id="cuda:7-of-1"),
        pytest.param("cuda:2", 2, False, "torch sees 2, cuda:0 to cuda:1", id="cuda:2-of-2"),
        pytest.param(
            "cuda:0", 1, True, "this sum_double is a CPU-only build (no CUDA code)", id="cpu-only"
        ),
    ],
)
def test_device_check(
    device: str, gpus: int, cpu_only: bool, problem: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every rule, on machines and builds this one is not: the demo's and bench.py's check.
    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpus > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: gpus)
    monkeypatch.setattr(_C, "cpu_only", cpu_only)
    expected = None if problem is None else f"--device {device}: {problem}"
    assert _cli.device_problem(device) == expected


# A demo row: n, sum_double's and the twin's time per call, the pairs, the speed or why not.
ROW = re.compile(r"  +(\d+) +[\d.]+ (?:us|ms) +[\d.]+ (?:us|ms) +(\d+)   (.+)")
SPEED = re.compile(r"(\d+\.\d\d)x ±\d+%|too noisy: .+")


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def test_cli_demo(device: str, fresh: Runs) -> None:
    proc = fresh[f"demo {device}"].result()
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    build = "CPU-only build" if _C.cpu_only else "CPU + CUDA build"
    assert lines[0].startswith(f"sum_double {sum_double.__version__} ({build}) on {device}")
    # Its checks, their answers in one column: "  <FORMULA> equals <twin> bit for bit: yes".
    labels = [f"{FORMULA} equals {TWIN_NAME} bit for bit:", f"gradients equal {TWIN_NAME}'s:"]
    width = max(map(len, labels))
    for label in labels:
        assert f"  {label:<{width}} yes" in lines
    rows = [match.groups() for line in lines if (match := ROW.fullmatch(line))]
    assert [int(n) for n, _, _ in rows] == list(_demo._SIZES)  # 1000000: the seed's size
    for n, pairs, speed in rows:
        assert 1 <= int(pairs) <= _demo._MAX_PAIRS, n
        match = SPEED.fullmatch(speed)
        assert match, f"n={n}: {speed}"
        # A speed is a median of ratios, each of two samples: no stall makes it read 0.00x.
        assert match[1] is None or float(match[1]) > 0, f"n={n}: {speed}"


class FakeClock:
    """perf_counter for the demo's timing: time moves only when a fake op runs."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def op(self, seconds: float) -> Callable[[], None]:
        def run() -> None:
            self.now += seconds

        return run


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(_demo, "perf_counter", fake)
    return fake


def test_demo_row_stops_at_its_budget_however_slow_the_calls(clock: FakeClock) -> None:
    # A machine so busy that each call takes a second: the row ends within its budget (plus the
    # call in progress), so the demo's time is bounded whatever the load.
    row = _demo.compare(clock.op(1.0), clock.op(1.0), lambda: None)
    assert clock.now <= 2 + _demo._ROW_S + 2  # the first calls, the budget, one call each
    assert row.pairs < _demo._MIN_PAIRS
    assert _demo.speed_text(row) == "too noisy: too few pairs"


def test_demo_row_stops_after_its_pairs_on_a_quiet_machine(clock: FakeClock) -> None:
    row = _demo.compare(clock.op(1e-6), clock.op(2e-6), lambda: None)
    assert row.pairs == _demo._MAX_PAIRS
    assert clock.now < _demo._ROW_S
    assert _demo.speed_text(row).startswith("2.00x ±")


def test_demo_speed_survives_a_stall(clock: FakeClock) -> None:
    # One call of ours stalls for half a second: its pair's ratio reads 0.00, the row's does not.
    calls = 0

    def ours() -> None:
        nonlocal calls
        calls += 1
        clock.now += 0.5 if calls == 5000 else 1e-6

    row = _demo.compare(ours, clock.op(1e-6), lambda: None)
    assert row.pairs == _demo._MAX_PAIRS
    assert _demo.speed_text(row).startswith("1.00x ±")


def test_demo_says_why_there_is_no_speed() -> None:
    def row(spread: float = 0.01, waited: float = 1.0, pairs: int = 50) -> str:
        return _demo.speed_text(_demo.Comparison(1e-3, 1e-3, 1.0, spread, waited, pairs))

    assert row() == "1.00x ±1%"
    assert row(spread=0.4) == "too noisy: ±40%"
    assert row(waited=30) == "too noisy: median call 30x the fastest"
    assert row(pairs=_demo._MIN_PAIRS - 1) == "too noisy: too few pairs"


@pytest.mark.parametrize(("n", "skip"), [(5, 0), (6, 0), (10, 1), (17, 4), (100, 39)])
def test_demo_interval_is_the_sign_tests(n: int, skip: int) -> None:
    # The 95% interval of a median from n values: drop `skip` at each end (binomial tables).
    assert _demo._skip_for_95(n) == skip
