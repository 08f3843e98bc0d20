"""``python -m sum_double info``: how this build was made (torch, CUDA runtime, the code it
carries) and what it runs on here (torch, the NVIDIA driver, the GPUs, the wheel it came from).
"""

import json
from importlib import metadata

import torch

import sum_double
from sum_double import _C


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
    build = " (CPU-only build: no CUDA code)" if _C.cpu_only else ""
    print(f"sum-double {sum_double.__version__}{build}")
    print(f"  built against torch {_C.built_with_torch} (stable ABI target {_C.stable_abi_target})")
    print(f"  running on    torch {torch.__version__} (CUDA {torch.version.cuda or 'none'})")
    if _C.cpu_only:
        print("  kernels       CPU only (no nvcc used: none found, or SUM_DOUBLE_CUDA=OFF)")
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
