"""The CUDA architectures a build with a given nvcc carries, and whether a binary holds them.

    python ci/cuda_archs.py --nvcc NVCC [--machine aarch64]     e.g. 70-real;75-real;...;90
    python ci/cuda_archs.py --nvcc NVCC --check libsum_double_ops.so --cuobjdump PATH/cuobjdump

The list comes from cmake/CudaArchitectures.cmake, the one place that derives it (from what NVCC
can build, for the machine's processor), run in CMake's script mode: the CI checks ask it what the
build should have carried. --check takes the binary that holds the device code, the op library
(sum_double/lib/libsum_double_ops.so), and fails unless cuobjdump finds in it SASS for each entry
but the -virtual ones and PTX for each but the -real ones, and nothing else.
"""

import argparse
import platform
import re
import subprocess
import sys
from pathlib import Path

RULE = Path(__file__).resolve().parent.parent / "cmake" / "CudaArchitectures.cmake"


def archs_for(nvcc: str, machine: str) -> str:
    proc = subprocess.run(
        ["cmake", f"-DNVCC={nvcc}", f"-DPROCESSOR={machine}", "-P", str(RULE)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        sys.exit(f"{RULE.name} failed for {nvcc}: {proc.stderr.strip()}")
    return proc.stderr.strip()  # script mode's message() writes to stderr


def cuobjdump_list(cuobjdump: str, what: str, binary: str) -> set[str]:
    proc = subprocess.run([cuobjdump, f"--list-{what}", binary], capture_output=True, text=True)
    if proc.returncode != 0 and "file found" not in proc.stdout + proc.stderr:
        sys.exit(f"{cuobjdump} --list-{what} failed: {proc.stderr.strip()}")
    # e.g. "ELF file    1: libsum_double_ops.1.sm_90.cubin", "PTX file    1: ....sm_120.ptx"
    return set(re.findall(r"\.sm_(\w+)\.(?:cubin|ptx)$", proc.stdout, re.MULTILINE))


def by_number(arch: str) -> tuple[int, str]:
    return int(re.match(r"\d+", arch)[0]), arch


def check(archs: str, binary: str, cuobjdump: str) -> int:
    entries = [entry.split("-") for entry in archs.split(";")]
    want_sass = {e[0] for e in entries if e[1:] != ["virtual"]}
    want_ptx = {e[0] for e in entries if e[1:] != ["real"]}
    sass = cuobjdump_list(cuobjdump, "elf", binary)
    ptx = cuobjdump_list(cuobjdump, "ptx", binary)
    print(f"    SASS: {', '.join(f'sm_{a}' for a in sorted(sass, key=by_number))}")
    print(f"    PTX:  {', '.join(f'compute_{a}' for a in sorted(ptx, key=by_number))}")
    problems = []
    if sass != want_sass:
        problems.append(f"SASS {sorted(sass)}, expected {sorted(want_sass)}")
    if ptx != want_ptx:
        problems.append(f"PTX {sorted(ptx)}, expected {sorted(want_ptx)}")
    for problem in problems:
        print(f"{binary}: {problem} (the list for this nvcc: {archs})", file=sys.stderr)
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nvcc", required=True, help="the nvcc the build used")
    parser.add_argument("--machine", default=platform.machine(), help="x86_64 or aarch64")
    parser.add_argument("--check", metavar="LIBRARY", help="a binary to check against the list")
    parser.add_argument("--cuobjdump", default="cuobjdump")
    args = parser.parse_args()
    archs = archs_for(args.nvcc, args.machine)
    if not args.check:
        print(archs)
        return 0
    return check(archs, args.check, args.cuobjdump)


if __name__ == "__main__":
    sys.exit(main())
