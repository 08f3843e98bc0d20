"""``python -m sum_double``: the seed tutorial's experiment, done right.

python -m sum_double          add on CUDA if present (else CPU), check values and gradients
                              against torch, time against torch.add
python -m sum_double info     how this build was made and what it runs on
python -m sum_double --cmakedir   the directory of SumDoubleConfig.cmake (for -DSumDouble_DIR)
python -m sum_double --includes   -I flags for <sum_double/sum_double.h>
python -m sum_double --library    the op library's path (for a C++ program that loads the op)

The benchmark (kernel time, caches cold, dtypes x sizes) lives in the repository, not the wheel:
python benchmarks/bench.py --help, from a checkout.
"""

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from importlib import metadata

import torch

import sum_double
from sum_double import _C

_SIZES = (2**10, 2**16, 2**20, 1_000_000, 2**24)


def _device_label(device: torch.device) -> str:
    if device.type == "cuda":
        major, minor = torch.cuda.get_device_capability(device)
        return f"{device} ({torch.cuda.get_device_name(device)}, sm_{major}{minor})"
    return f"cpu ({torch.get_num_threads()} threads)"


def _driver_line() -> str:
    if _C.cuda_runtime_version is None:  # a CPU-only build
        return "not looked for (CPU-only build)"
    # cudart is linked in, so the driver must support its major release (minor versions of one
    # major run on its oldest driver); torch's own CUDA does not matter here.
    major = int(_C.cuda_runtime_version.split(".")[0])
    branch = _C._oldest_driver_branch(major)
    floor = f"driver {branch}+" if branch else f"a driver for CUDA {major}"
    needed = f"this build's CUDA {major} runtime needs {floor}"
    driver = _C.cuda_driver_version()
    return f"supports CUDA {driver} ({needed})" if driver else f"none found ({needed})"


def _ptx_line() -> str:
    if not _C.cuda_ptx:
        return "none (a GPU that none of the machine code fits cannot run this build)"
    return f"{', '.join(_C.cuda_ptx)} (for newer GPUs: the first call JIT-compiles it)"


def _gpu_code(major: int, minor: int, archs: tuple[str, ...]) -> str:
    """Which code of a build with these CUDA archs a GPU of compute capability major.minor runs, in
    words; the rule is the C++ one (_C._cuda_code_for), which the op's launch error follows too."""
    code = _C._cuda_code_for(major, minor, ",".join(archs))
    if code.startswith("sm_"):
        return f"{code} machine code"
    if code.startswith("compute_"):
        return f"{code} PTX, JIT-compiled by the driver on first use"
    if code == "unknown":
        return f"cannot tell from this build's archs ({', '.join(archs)})"
    return "none: this build cannot run on it"


def _device_lines() -> list[str]:
    lines = []
    for index in range(torch.cuda.device_count()):
        major, minor = torch.cuda.get_device_capability(index)
        gpu = f"cuda:{index} {torch.cuda.get_device_name(index)} (sm_{major}{minor})"
        runs = "no CUDA code (CPU-only build)"
        if not _C.cpu_only:
            runs = _gpu_code(major, minor, _C.cuda_archs)
        lines.append(f"{gpu}: {runs}")
    return lines or ["no CUDA device"]


def _wheel_tags() -> list[str]:
    """The tags of the wheel this package was installed from, read from its dist-info."""
    try:
        wheel = metadata.distribution("sum-double").read_text("WHEEL")
    except metadata.PackageNotFoundError:  # e.g. a bare CMake build put on sys.path
        return []
    lines = wheel.splitlines() if wheel else []
    return [line.removeprefix("Tag:").strip() for line in lines if line.startswith("Tag:")]


# The wheel's SBOM (cmake/Sbom.cmake), in its dist-info.
_SBOM = "sboms/sum_double.cdx.json"


def _cuda_runtime_line() -> str:
    """The CUDA runtime linked in, as the wheel's SBOM names it: info and the SBOM cannot differ."""
    try:
        sbom = metadata.distribution("sum-double").read_text(_SBOM)
    except metadata.PackageNotFoundError:  # e.g. a bare CMake build put on sys.path
        sbom = None
    if sbom is None:
        return "not recorded (not installed from a wheel)"
    for part in json.loads(sbom).get("components", []):
        if part.get("bom-ref") == "cudart_static":
            licenses = ", ".join(choice["license"]["name"] for choice in part["licenses"])
            return f"{part['name']} {part['version']}, linked statically; license: {licenses}"
    return "none (CPU-only build)"


def info() -> int:
    print(f"sum-double {sum_double.__version__}")
    print(f"  built against torch {_C.built_with_torch} (stable ABI target {_C.stable_abi_target})")
    print(f"  running on    torch {torch.__version__} (CUDA {torch.version.cuda or 'none'})")
    if _C.cpu_only:
        print("  kernels       CPU only (built without a CUDA compiler)")
    else:
        runtime = f"runtime {_C.cuda_runtime_version} (nvcc {_C.cuda_version})"
        print(f"  kernels       CPU + CUDA, {runtime}")
        print(f"  machine code  {', '.join(_C.cuda_machine_code) or 'none'}")
        print(f"  PTX           {_ptx_line()}")
    print(f"  CUDA runtime  {_cuda_runtime_line()}")
    print(f"  CPU loops     {_C.cpu_isa()}")
    print(f"  CUDA driver   {_driver_line()}")
    print(f"  wheel         {', '.join(_wheel_tags()) or 'not installed from a wheel'}")
    print(f"  module        {_C.__file__}")
    print(f"  op library    {sum_double.library_path()}")
    devices = _device_lines()  # one line each, under the first
    print(f"  devices       {devices[0]}")
    for line in devices[1:]:
        print(f"                {line}")
    return 0


def _median_us(
    add: Callable[[torch.Tensor, torch.Tensor], object], a: torch.Tensor, b: torch.Tensor
) -> float:
    """Microseconds per call of add(a, b): the median over 11 rounds of 20 calls back to back, as
    a model makes them (on CUDA, launches queue while kernels run; one synchronize per round)."""

    def round_us() -> float:
        t0 = time.perf_counter()
        for _ in range(20):
            add(a, b)
        if a.is_cuda:
            torch.cuda.synchronize(a.device)
        return (time.perf_counter() - t0) / 20 * 1e6

    round_us()  # warm-up
    return statistics.median(round_us() for _ in range(11))


def demo(device: torch.device) -> int:
    print(f"sum_double {sum_double.__version__} on {_device_label(device)}")

    # Values: random data (zeros or ones would hide unwritten or misindexed elements).
    a = torch.randn(1_000_000, device=device, requires_grad=True)
    b = torch.randn(1_000_000, device=device, requires_grad=True)
    c = sum_double.add(a, b)
    values_ok = torch.equal(c, torch.add(a, b))
    grad = torch.randn_like(c)
    c.backward(grad)
    grads_ok = all(g is not None and torch.equal(g, grad) for g in (a.grad, b.grad))
    print(f"  a + b equals torch.add bit for bit: {'yes' if values_ok else 'NO'}")
    print(f"  gradients equal the incoming grad:  {'yes' if grads_ok else 'NO'}")

    # Time: a quick look, not a benchmark (benchmarks/bench.py: kernel time, inputs cold in cache).
    print()
    print(f"  {'n':>10} {'sum_double':>12} {'torch.add':>12} {'speed':>7}   float32, per call")
    for n in _SIZES:
        x, y = torch.randn(n, device=device), torch.randn(n, device=device)
        ours, ref = _median_us(sum_double.add, x, y), _median_us(torch.add, x, y)
        print(f"  {n:>10} {ours:>9.1f} us {ref:>9.1f} us {ref / ours:>6.2f}x")
    print("  wall time, calls back to back; speed = torch.add time / ours (above 1: faster)")
    return 0 if values_ok and grads_ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sum_double",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", nargs="?", choices=["demo", "info"], default="demo")
    parser.add_argument(
        "--device",
        default="cuda" if torch.cuda.is_available() else "cpu",
        help="cpu, cuda or cuda:N (default: cuda if available)",
    )
    paths = parser.add_mutually_exclusive_group()
    paths.add_argument("--cmakedir", action="store_true", help="print sum_double.cmake_dir()")
    paths.add_argument("--includes", action="store_true", help="print -I<sum_double.get_include()>")
    paths.add_argument("--library", action="store_true", help="print sum_double.library_path()")
    args = parser.parse_args(argv)
    if args.cmakedir:
        print(sum_double.cmake_dir())
        return 0
    if args.includes:
        print(f"-I{sum_double.get_include()}")
        return 0
    if args.library:
        print(sum_double.library_path())
        return 0
    if args.command == "info":
        return info()
    return demo(torch.device(args.device))


if __name__ == "__main__":
    sys.exit(main())
