"""Checks for ci/check-rename.sh: a renamed copy of this project shares no name with it.

    python ci/check_rename.py alone OLD NEW   NEW's wheel installed: all names NEW's, none OLD's
    python ci/check_rename.py both OLD NEW    both wheels, one process: both ops side by side
    python ci/check_rename.py forget-namespace OLD NEW DIR
        the self-test's broken copy: DIR, renamed to NEW, put back on OLD's dispatcher namespace

Run `alone` and `both` with the Python of the venv that holds the wheels. Each prints what it
checked and exits 1 naming every failure.
"""

import importlib
import re
import signal
import subprocess
import sys
from importlib import metadata, resources
from pathlib import Path

from git_tree import read_text, tracked
from rename import forms, pattern

failures: list[str] = []


def check(ok: object, what: str) -> None:
    print(f"    {'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        failures.append(what)


def call_op(torch, namespace: str, module) -> None:
    """The registered op and the package's Python call against the op's twin, with a gradient:
    name, twin and formula as the package's _definition.py has them (a copy's op is its own)."""
    op_def = importlib.import_module(f"{module.__name__}._definition")
    name, twin = op_def.NAME, op_def.TWIN
    a, b = torch.randn(1000, dtype=torch.float64), torch.randn(1000, dtype=torch.float64)
    op = getattr(getattr(torch.ops, namespace), name, None)
    ok = op is not None and torch.equal(op(a, b), twin(a, b))
    check(ok, f"torch.ops.{namespace}.{name}: {op_def.FORMULA}")
    x, y = a.clone().requires_grad_(), a.clone().requires_grad_()
    getattr(module, name)(x, b).sum().backward()
    twin(y, b).sum().backward()
    check(torch.equal(x.grad, y.grad), f"{module.__name__}.{name} has its twin's gradient")


def ops_in(torch, name: str) -> list[str]:
    # No public torch API lists a namespace's ops; the dispatcher's own list is complete.
    pat = pattern(name)
    return [op for op in torch._C._dispatch_get_all_op_names() if pat.fullmatch(op.split("::")[0])]


def installed(dist: metadata.Distribution) -> dict[str, Path]:
    """The files a distribution installed, by their paths in its RECORD."""
    return {str(f): p for f in dist.files or [] if (p := Path(dist.locate_file(f))).is_file()}


def alone(old: str, new: str) -> None:
    o, n = forms(old), forms(new)
    import torch

    module = importlib.import_module(n["snake"])
    call_op(torch, n["snake"], module)
    check(not ops_in(torch, old), f"no op in a {o['snake']} namespace: {ops_in(torch, old)}")

    # Every file the wheel installed, names and bytes (metadata, CMake package, headers, .so).
    dist = metadata.distribution(n["kebab"])
    check(dist.metadata["Name"] == n["kebab"], f"distribution {dist.metadata['Name']}")
    old_pat = pattern(old)
    named = [
        f
        for f, path in installed(dist).items()
        if old_pat.search(f) or old_pat.search(path.read_bytes().decode("latin-1"))
    ]
    check(not named, f"no installed file names {old} (in its name or bytes): {named}")
    top = {Path(f).parts[0] for f in dist.files or [] if ".dist-info" not in Path(f).parts[0]}
    check(all(t.startswith(n["snake"]) for t in top), f"top-level packages {sorted(top)}")

    include = Path(module.get_include()) / n["snake"] / f"{n['snake']}.h"
    check(include.is_file(), f"get_include() holds <{n['snake']}/{n['snake']}.h>")
    cmake = Path(module.cmake_dir())
    configs = [f"{n['pascal']}{x}.cmake" for x in ("Config", "ConfigVersion", "Targets")]
    check(all((cmake / c).is_file() for c in configs), f"cmake_dir() holds {', '.join(configs)}")
    targets = (cmake / f"{n['pascal']}Targets.cmake").read_text()
    for t in ("cpu", "headers"):
        check(f"add_library({n['pascal']}::{t} " in targets, f"CMake target {n['pascal']}::{t}")
    cuda = cmake / f"{n['pascal']}CudaTargets.cmake"
    if cuda.is_file():
        check(f"add_library({n['pascal']}::cuda " in cuda.read_text(), f"{n['pascal']}::cuda")
    cli = [sys.executable, "-m", n["snake"], "--cmakedir"]
    printed = subprocess.run(cli, capture_output=True, text=True).stdout.strip()
    check(printed == str(cmake), f"python -m {n['snake']} --cmakedir")

    (ep,) = [e for e in dist.entry_points if e.group == "cmake.root"] or [None]
    check(ep and (ep.name, ep.value) == (n["pascal"], f"{n['snake']}_cmake"), f"cmake.root {ep}")
    if ep:
        root = resources.files(ep.load()) / "lib" / "cmake" / n["pascal"]
        check(Path(str(root)) == cmake, "the entry point finds cmake_dir()")
    named = [f"{e.group}: {e.name} = {e.value}" for e in dist.entry_points]
    check(not [e for e in named if pattern(old).search(e)], f"entry points {named}")
    leaked = sorted(m for m in sys.modules if pattern(old).search(m))
    check(not leaked, f"no {old} module imported: {leaked}")


def both(old: str, new: str) -> None:
    o, n = forms(old), forms(new)
    import torch

    # In a child first: a namespace registered twice can kill the process with no message.
    imports = f"import {o['snake']}, {n['snake']}"
    proc = subprocess.run([sys.executable, "-c", imports], capture_output=True, text=True)
    said = (proc.stderr.strip().splitlines() or [""])[-1]
    died = f"killed by {signal.Signals(-proc.returncode).name}" if proc.returncode < 0 else said
    check(proc.returncode == 0, f"{imports}: {died or 'ok'}")
    if proc.returncode:
        return
    modules = {f["snake"]: importlib.import_module(f["snake"]) for f in (o, n)}
    for f in (o, n):
        call_op(torch, f["snake"], modules[f["snake"]])
    dists = [metadata.distribution(f["kebab"]) for f in (o, n)]
    shared = set.intersection(*({str(f) for f in d.files or []} for d in dists))
    check(not shared, f"the wheels install no path in common: {sorted(shared)[:5]}")
    eps = {e.name: e.value for e in metadata.entry_points(group="cmake.root")}
    for f in (o, n):
        check(eps.get(f["pascal"]) == f"{f['snake']}_cmake", f"cmake.root {f['pascal']} is its own")
    dirs = [modules[f["snake"]].cmake_dir() for f in (o, n)]
    check(dirs[0] != dirs[1], f"two CMake packages: {dirs}")


def forget_namespace(old: str, new: str, root: Path) -> None:
    """Undo the rename where PyTorch spells a namespace: what a hand rename could easily miss."""
    ns = re.escape(forms(new)["snake"])
    spots = [
        rf"(TORCH_LIBRARY\w*\(\s*){ns}\b",  # the registration blocks
        rf"(torch\.ops\.){ns}\b",  # Python's handle on the op
        rf"""(["']){ns}(?=::)""",  # "ns::op" in register_* calls and the dispatcher call
    ]
    changed = 0
    for rel in tracked(root):
        text = read_text(root / rel)
        if text is None:
            continue
        undone = text
        for spot in spots:
            undone = re.sub(spot, rf"\g<1>{forms(old)['snake']}", undone)
        if undone != text:
            (root / rel).write_text(undone)
            changed += 1
    print(f"    {root}: namespace put back to {old} in {changed} files")


if __name__ == "__main__":
    mode, old, new, *rest = sys.argv[1:]
    if mode == "forget-namespace":
        forget_namespace(old, new, Path(rest[0]))
        sys.exit(0)
    {"alone": alone, "both": both}[mode](old, new)
    if failures:
        print(f"{len(failures)} checks failed", file=sys.stderr)
    sys.exit(1 if failures else 0)
