"""The wheel's stable-ABI promise, audited by the field's tool: torch-abi-audit (Quansight).

    python ci/check_abi_audit.py dist/sum_double-*.whl

Runs ``torch-abi-audit DIR --check torch`` on the unpacked wheel (its report is printed) and reads
its JSON. Fails (exit 1) unless every binary that references torch is STABLE, with 0 unstable
symbols; the op library is one of them; and the minimum torch its stable-shim symbols need is the
stable-ABI target the build states (``SUM_DOUBLE_STABLE_ABI_TARGET`` in CMakeLists.txt). A higher
one means the build calls something newer than it promises; a lower one, that the stated target
no longer matches what the build uses. A failure names the symbols.
The tool is pinned in ci/release-tools.txt; it needs ``nm`` (binutils).
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPS_LIBRARY = "sum_double/lib/libsum_double_ops.so"
AUDIT = ["torch-abi-audit", "--check", "torch"]


def stated_target() -> str:
    """The target CMakeLists.txt compiles the op library for, e.g. "2.10"."""
    found = re.findall(
        r"^set\(SUM_DOUBLE_STABLE_ABI_TARGET (\d+\.\d+)\)$",
        (ROOT / "CMakeLists.txt").read_text(encoding="utf-8"),
        re.M,
    )
    if len(found) != 1:
        sys.exit("CMakeLists.txt: expected one set(SUM_DOUBLE_STABLE_ABI_TARGET X.Y)")
    return found[0]


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def findings(report: dict, target: str, unpacked: Path) -> tuple[list[str], bool]:
    """What breaks the promise, and whether the op library calls past it (unstable or newer)."""
    out, past_it = [], False
    if report.get("error"):
        out.append(f"the audit failed: {report['error']}")
    libs = {
        Path(lib["path"]).relative_to(unpacked).as_posix(): lib
        for lib in report["extensions"] + report["bundled_libs"]
    }
    if OPS_LIBRARY not in libs or not libs[OPS_LIBRARY]["torch"]["uses_torch"]:
        out.append(f"{OPS_LIBRARY}: not audited as a library that uses torch")
    for name, lib in sorted(libs.items()):
        torch = lib["torch"]
        if lib["error"]:
            out.append(f"{name}: {lib['error']}")
        for symbol in torch["unstable_symbols"]:
            out.append(f"{name}: unstable symbol {symbol}")
        for symbol in torch["unknown_shim_symbols"]:
            out.append(f"{name}: shim symbol newer than the audit's data: {symbol}")
        floor = torch["min_torch_version"]
        if floor and version(floor)[:2] > version(target):
            out.append(
                f"{name}: needs torch {floor} for {', '.join(torch['version_defining_symbols'])},"
                f" newer than the {target} stable ABI the build states"
            )
        elif floor and version(floor)[:2] < version(target) and not torch["unknown_shim_symbols"]:
            out.append(
                f"{name}: its shim symbols need only torch {floor}, below the {target} target the"
                " build states: lower SUM_DOUBLE_STABLE_ABI_TARGET (and torch>= in pyproject.toml)"
                " if that torch is to be supported, or say here why the target stays"
            )
        past_it |= bool(torch["unstable_symbols"] or torch["unknown_shim_symbols"])
        past_it |= bool(floor and version(floor)[:2] > version(target))
    return out, past_it


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", type=Path)
    args = parser.parse_args()
    target = stated_target()
    with tempfile.TemporaryDirectory() as tmp:
        unpacked = Path(tmp).resolve()
        zipfile.ZipFile(args.wheel).extractall(unpacked)
        package = str(unpacked / "sum_double")  # a path: a bare name is looked up on sys.path
        table = subprocess.run([*AUDIT, "--verbose", package], capture_output=True, text=True)
        # Not the CPython ABI's findings: the wheel is built per CPython, not for abi3.
        for line in table.stdout.replace(str(unpacked), "<wheel>").rstrip().splitlines():
            if "cpython violation:" not in line:
                print(line)
        audit = subprocess.run([*AUDIT, "--json", package], capture_output=True, text=True)
        problems, past_it = findings(json.loads(audit.stdout), target, unpacked)
    if audit.returncode != 0 and not problems:
        problems.append(f"torch-abi-audit --check torch exited {audit.returncode}: {audit.stderr}")
    if not problems:
        print(f"    torch-abi-audit: STABLE, min torch = the stated target {target}")
        return 0
    sys.stdout.flush()
    print(f"FAIL: the wheel breaks its {target} stable-ABI promise:", file=sys.stderr)
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    if not past_it:
        return 1
    print(
        "The op library (src/ops/) may use only torch/csrc/stable and torch/headeronly, and only"
        f" what torch {target} has of them. Replace each symbol named above with a call that"
        f" torch {target}'s stable ABI offers; or, for a package that is to need a newer torch,"
        " raise SUM_DOUBLE_STABLE_ABI_TARGET in CMakeLists.txt and torch>= in pyproject.toml.",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
