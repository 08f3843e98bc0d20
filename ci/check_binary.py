"""Binary hygiene of a built wheel: what its extension module exports, links and carries.

    python ci/check_binary.py dist/sum_double-*.whl [--forbid /path/of/the/build ...]

Fails (exit 1, one line per finding) unless every ELF file in the wheel
- exports no dynamic symbol but its entry points: ``PyInit__C`` for the extension module, the
  ``sum_double_ops_*`` facts for the op library (the rest stays inside: src/module/exports.map,
  src/ops/exports.map), and nothing else ships;
- calls none of libgcc's half-precision conversions (one element per call, and they need
  libgcc_s's GCC_12.0.0, which narrows the manylinux tag): the CPU kernel converts in its loops;
- needs no shared library beyond torch's, the C/C++ runtime's and (the module) the op library, so
  an auditwheel repair that excludes torch grafts nothing, and a new dependency shows up here
  first; the op library needs no libpython;
- is linked with full RELRO and BIND_NOW, has a non-executable stack and no RPATH/RUNPATH that
  points outside the wheel;
- carries no path of the machine that built it (pip's build environment, site-packages, the
  source and build dirs given with --forbid); the static libraries (.a) are checked for that too.
Needs pyelftools (auditwheel depends on it).
"""

import argparse
import re
import sys
import zipfile
from io import BytesIO

from elftools.elf.constants import P_FLAGS
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

OPS_LIBRARY = "libsum_double_ops.so"
# What each binary exports, by its file name.
EXPORTS = {
    re.compile(r"_C\.[^/]*\.so"): re.compile(r"PyInit__C"),
    re.compile(re.escape(OPS_LIBRARY)): re.compile(r"sum_double_ops_\w+"),
}
# torch provides these at run time (the wheel depends on torch); the rest is the C/C++ runtime that
# every manylinux policy allows.
NEEDED = re.compile(
    r"lib(torch_cpu|c10)\.so|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libm\.so\.6|libc\.so\.6"
    r"|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|ld-linux-(x86-64|aarch64)\.so\.[12]"
)
MODULE_NEEDS = re.compile(re.escape(OPS_LIBRARY))
BUILD_PATHS = [b"pip-build-env", b"site-packages", b"/tmp/", b"/home/", b"/root/"]
DF_BIND_NOW, DF_1_NOW = 0x8, 0x1
LIBGCC_HALF = re.compile(r"__(extend|trunc)\w*hf\w*2")


def check_elf(name: str, data: bytes, forbidden: list[bytes]) -> list[str]:
    elf = ELFFile(BytesIO(data))
    problems = []
    basename = name.rsplit("/", 1)[-1]
    kinds = [(file, exports) for file, exports in EXPORTS.items() if file.fullmatch(basename)]
    if not kinds:
        return [f"{name}: ships, but is neither the module nor the op library"]
    ((file, allowed),) = kinds
    is_module = file.pattern.startswith("_C")

    dynsym = elf.get_section_by_name(".dynsym")
    assert isinstance(dynsym, SymbolTableSection), f"{name}: no .dynsym"
    exported = {
        sym.name
        for sym in dynsym.iter_symbols()
        if sym.name
        and sym["st_shndx"] != "SHN_UNDEF"
        and sym["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK")
    }
    extra = sorted(sym for sym in exported if not allowed.fullmatch(sym))
    if extra:
        problems.append(f"exports {len(extra)} symbols besides {allowed.pattern}, e.g. {extra[:5]}")
    if not exported:
        problems.append(f"exports nothing, not even {allowed.pattern}")
    half_calls = sorted(
        sym.name
        for sym in dynsym.iter_symbols()
        if sym["st_shndx"] == "SHN_UNDEF" and LIBGCC_HALF.fullmatch(sym.name)
    )
    if half_calls:
        problems.append(f"calls libgcc's software half-precision conversions {half_calls}")

    dynamic = next(s for s in elf.iter_sections() if isinstance(s, DynamicSection))
    tags = list(dynamic.iter_tags())
    for tag in tags:
        if tag.entry.d_tag == "DT_NEEDED" and not (
            NEEDED.fullmatch(tag.needed) or (is_module and MODULE_NEEDS.fullmatch(tag.needed))
        ):
            problems.append(f"needs {tag.needed}, which neither torch nor the C runtime provides")
        if tag.entry.d_tag in ("DT_RPATH", "DT_RUNPATH"):
            path = tag.rpath if tag.entry.d_tag == "DT_RPATH" else tag.runpath
            if any(not p.startswith("$ORIGIN") for p in path.split(":")):
                problems.append(f"{tag.entry.d_tag} {path} points outside the wheel")
    flags = {
        t.entry.d_tag: t.entry.d_val for t in tags if t.entry.d_tag in ("DT_FLAGS", "DT_FLAGS_1")
    }
    if not (flags.get("DT_FLAGS", 0) & DF_BIND_NOW or flags.get("DT_FLAGS_1", 0) & DF_1_NOW):
        problems.append("not linked with BIND_NOW (-z now)")

    segments = {seg["p_type"]: seg for seg in elf.iter_segments()}
    if "PT_GNU_RELRO" not in segments:
        problems.append("no RELRO segment (-z relro)")
    stack = segments.get("PT_GNU_STACK")
    if stack is None or stack["p_flags"] & P_FLAGS.PF_X:
        problems.append("executable stack (-z noexecstack)")

    problems += build_paths(data, forbidden)
    return [f"{name}: {p}" for p in problems]


def build_paths(data: bytes, forbidden: list[bytes]) -> list[str]:
    problems = []
    for path in BUILD_PATHS + forbidden:
        if path in data:
            at = data.index(path)
            string = data[data.rfind(b"\0", 0, at) + 1 : data.find(b"\0", at)]
            problems.append(f"carries a build path: {string!r}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheels", nargs="+")
    parser.add_argument(
        "--forbid", action="append", default=[], help="a path that must not appear in a binary"
    )
    args = parser.parse_args()
    forbidden = [p.encode() for p in args.forbid]
    problems = []
    for wheel in args.wheels:
        with zipfile.ZipFile(wheel) as zf:
            elves = [n for n in zf.namelist() if zf.read(n)[:4] == b"\x7fELF"]
            if not elves:
                problems.append(f"{wheel}: no ELF file at all")
            for name in elves:
                problems += check_elf(f"{wheel}!{name}", zf.read(name), forbidden)
                print(f"checked {name} in {wheel}")
            for name in (n for n in zf.namelist() if n.endswith(".a")):
                problems += [f"{wheel}!{name}: {p}" for p in build_paths(zf.read(name), forbidden)]
                print(f"checked {name} in {wheel} for build paths")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
