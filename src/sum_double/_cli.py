"""The command line of ``python -m sum_double``: its flags and help, the answers that need no
torch (help, and the paths a C++ build asks for), which ``__init__`` gives before it imports torch,
and the check of --device, which benchmarks/bench.py shares.

Imports no torch and loads no binary: build scripts call ``--cmakedir`` and the like, and torch's
import would cost them seconds each time. Only the device check, which needs both, loads them.
"""

import argparse
import ast
import re
import sys
from pathlib import Path

from . import _cpp


def _op_words() -> dict[str, str]:
    """NAME, FORMULA and TWIN as ``_definition.py`` writes them, read from its source: importing
    it would import torch."""
    words = {}
    for node in ast.parse(Path(__file__).with_name("_definition.py").read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(target := node.targets[0], ast.Name):
            if target.id in ("NAME", "FORMULA"):
                words[target.id] = ast.literal_eval(node.value)
            elif target.id == "TWIN":
                words["TWIN"] = ast.unparse(node.value)
    return words


def _description() -> str:
    words = _op_words()
    op, twin = f"{__package__}.{words['NAME']}", words["TWIN"]
    return f"""\
{op}(a, b) computes {words["FORMULA"]} as a PyTorch operator, with autograd, on CPU and CUDA.
This command tries it out, says how it was built, and tells C++ builds where its files are.

commands:
  demo   (the default) checks {op} against {twin} on random data: the values
         must be the same bits, the gradients right. Then it times both at a few sizes: a
         quick look on this machine, not a benchmark.
  info   how this build was made (the torch it was built against, CPU-only or CUDA, which
         GPUs it has code for) and what it runs on here: torch, the NVIDIA driver, the GPUs.
"""


_EPILOG = """\
--cmakedir, --includes and --library answer without importing torch.
The benchmark (kernel time, dtypes and sizes) is in the source repository, not in this
package: python benchmarks/bench.py --help.
"""


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sum_double",
        description=_description(),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "command",
        nargs="?",
        choices=["demo", "info"],
        default="demo",
        metavar="command",
        help="demo (the default) or info, as above",
    )
    parser.add_argument(
        "--device",
        help="where the demo runs: cpu, cuda or cuda:N (default: cuda if torch sees a GPU and "
        "this build has CUDA kernels, else cpu)",
    )
    paths = parser.add_mutually_exclusive_group()
    paths.add_argument(
        "--cmakedir",
        action="store_true",
        help="print the directory of SumDoubleConfig.cmake, for cmake -DSumDouble_DIR=...",
    )
    paths.add_argument(
        "--includes",
        action="store_true",
        help="print the compiler flag for #include <sum_double/sum_double.h>: -I<directory>",
    )
    paths.add_argument(
        "--library",
        action="store_true",
        help="print the path of the op library, libsum_double_ops.so: a C++ program that loads "
        "it has the op, without Python",
    )
    return parser


def path_asked(args: argparse.Namespace) -> str | None:
    """What --cmakedir, --includes or --library prints; None when none of them was given."""
    if args.cmakedir:
        return _cpp.cmake_dir()
    if args.includes:
        return f"-I{_cpp.get_include()}"
    if args.library:
        return _cpp.library_path()
    return None


# torch's own spelling: it refuses "cuda:01" and "gpu" too, but with a traceback or a list of every
# device type it knows.
_DEVICE = re.compile(r"cpu|cuda(?::(0|[1-9][0-9]*))?", re.ASCII)


def device_problem(device: str) -> str | None:
    """Why the op cannot run on ``device`` (cpu, cuda or cuda:N) here, as one line for
    ``parser.error``; None when it can.

    Checked before any work, so that a bad --device ends in that line and status 2, not a torch
    traceback halfway through. Imports torch and loads the op: call it only after the answers
    that need neither.
    """
    syntax = _DEVICE.fullmatch(device)
    if syntax is None:
        return f"--device {device}: expected cpu, cuda or cuda:N"
    if device == "cpu":
        return None
    import torch

    from . import _C

    if not torch.cuda.is_available():
        return f"--device {device}: torch sees no CUDA device"
    count = torch.cuda.device_count()
    if syntax[1] is not None and int(syntax[1]) >= count:
        seen = "1 CUDA device, cuda:0" if count == 1 else f"{count}, cuda:0 to cuda:{count - 1}"
        return f"--device {device}: torch sees {seen}"
    if _C.cpu_only:
        return f"--device {device}: this sum_double is a CPU-only build (no CUDA code)"
    return None


def answer_before_torch(package: str) -> None:
    """Answers ``python -m <package>`` and exits, if what it asks needs no torch; else returns.

    Call it only while runpy imports the package (sys.argv[0] is "-m" then, as Python's docs for -m
    promise). sys.orig_argv tells this package's own run from another module's that imports it;
    a spelling not recognised here (-m sum_double.__main__) takes the slow path to the same answer.
    """
    # The -m's argument is what comes just before the arguments the module gets.
    module = sys.orig_argv[-len(sys.argv) :][:1]
    if module not in ([package], [f"-m{package}"]):
        return
    path = path_asked(parser().parse_args(sys.argv[1:]))  # --help, and a bad line, exit here
    if path is not None:
        print(path)
        sys.exit(0)
