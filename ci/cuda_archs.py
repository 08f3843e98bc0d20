"""The CUDA architectures pyproject.toml builds for on a platform, and whether a binary holds them.

    python ci/cuda_archs.py [MACHINE]       e.g. 75-real;80-real;...;120 (default: this machine)
    python ci/cuda_archs.py MACHINE --check libsum_double_ops.so --cuobjdump PATH/cuobjdump

The list is CMAKE_CUDA_ARCHITECTURES's default in [tool.scikit-build.cmake.define], replaced by
that of the last [[tool.scikit-build.overrides]] whose if.platform-machine matches MACHINE (a
regular expression searched in it), as scikit-build-core resolves it when it builds; the CI checks
read it here. --check takes the binary that holds the device code, the op library
(sum_double/lib/libsum_double_ops.so), and fails unless cuobjdump finds in it SASS for each entry
but the -virtual ones and PTX for each but the -real ones, and nothing else.
"""

import argparse
import platform
import re
import subprocess
import sys
from pathlib import Path

import tomllib

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def default_list(define: dict) -> str:
    value = define["CMAKE_CUDA_ARCHITECTURES"]
    return value["default"] if isinstance(value, dict) else value


def archs_for(machine: str) -> str:
    with PYPROJECT.open("rb") as f:
        skbuild = tomllib.load(f)["tool"]["scikit-build"]
    archs = default_list(skbuild["cmake"]["define"])
    for override in skbuild.get("overrides", []):
        condition = override["if"]
        define = override.get("cmake", {}).get("define", {})
        if "CMAKE_CUDA_ARCHITECTURES" not in define:
            continue
        if set(condition) != {"platform-machine"}:
            sys.exit(
                f"pyproject.toml: an override of the architectures on {condition}: only "
                "if.platform-machine is resolved here, so teach archs_for() the new key"
            )
        if re.search(condition["platform-machine"], machine):
            archs = default_list(define)
    return archs


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
        print(f"{binary}: {problem} (pyproject.toml: {archs})", file=sys.stderr)
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("machine", nargs="?", default=platform.machine())
    parser.add_argument("--check", metavar="LIBRARY", help="a binary to check against the list")
    parser.add_argument("--cuobjdump", default="cuobjdump")
    args = parser.parse_args()
    archs = archs_for(args.machine)
    if not args.check:
        print(archs)
        return 0
    return check(archs, args.check, args.cuobjdump)


if __name__ == "__main__":
    sys.exit(main())
