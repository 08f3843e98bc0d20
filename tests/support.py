"""What the test modules share: the op's names as the package has them, the dtypes and the mixed and
broadcast cases, bitwise comparison, output poisoning, ``check_op`` (the one comparison with the
reference, tests/reference.py), the install's kind, the ``--device`` values a command line refuses
here, fresh Pythons run side by side."""

import contextlib
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from importlib import metadata
from typing import Any

import pytest
import torch
from torch.torch_version import TorchVersion

import sum_double
from sum_double._definition import NAME
from sum_double._ops import BELOW_AUTOGRAD, OP, OP_PACKET, QUALNAME  # noqa: F401 (for the test modules)

from reference import reference

# The op's names, read from the package (a copy's own, whatever its op): the public call
# sum_double.<NAME>, torch.ops.sum_double.<NAME> (OP is its .default) and, below autograd,
# torch.ops.sum_double._<NAME>, as graphs, profiler records and generated code name them.
op = getattr(sum_double, NAME)
OP_NAME = f"torch.ops.{QUALNAME}"
BELOW_NAME = f"torch.ops.sum_double._{NAME}"

HAS_CUDA = torch.cuda.is_available()
CUDA_BUILD = not sum_double._C.cpu_only
FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
Op = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
# Errors cross the stable ABI as codes. torch's own reason for one (e.g. "CUDA out of memory")
# comes along only if the module was built against torch >= 2.14 headers (2.13's fetch it only for a
# 2.13 target) and runs on torch >= 2.13 (which added the call that returns it). Worked out here
# from versions, apart from the package's own probe, which the tests check against this.
TORCH_REASON_CROSSES = (
    TorchVersion(sum_double._C.built_with_torch) >= "2.14"
    and TorchVersion(torch.__version__) >= "2.13"
)


# (a's shape and dtype, b's): a bias add, both sides broadcast, a 0-dim tensor, mixed precision
# (the residual stream in float32 beside an autocast branch), and both at once.
MIXED_AND_BROADCAST = [
    pytest.param(((4, 3, 8), torch.float32), ((8,), torch.float32), id="bias"),
    pytest.param(((4, 1), torch.float64), ((1, 5), torch.float64), id="outer"),
    pytest.param(((), torch.float32), ((2, 3), torch.float32), id="0-dim"),
    pytest.param(((2, 3), torch.float16), ((), torch.float64), id="wider-0-dim"),
    pytest.param(((6, 5), torch.float32), ((6, 5), torch.bfloat16), id="f32+bf16"),
    pytest.param(((6, 5), torch.float16), ((6, 5), torch.bfloat16), id="f16+bf16"),
    pytest.param(((3, 1, 5), torch.bfloat16), ((4, 5), torch.float32), id="bf16-bcast+f32"),
]


# torch 2.10 and 2.11 warn, in export and AOTInductor, about their own use of pytree's LeafSpec
# (gone by 2.14).
IGNORE_TORCH_LEAFSPEC = pytest.mark.filterwarnings(
    "ignore:`isinstance.treespec, LeafSpec.` is deprecated:FutureWarning"
)


# --device values that python -m sum_double and benchmarks/bench.py both refuse, with the error's
# words (those naming a GPU only where torch sees none).
NO_GPU = pytest.mark.skipif(HAS_CUDA, reason="a machine without a GPU")
REFUSED_DEVICES = [
    pytest.param("cuda", "--device cuda: torch sees no CUDA device", marks=NO_GPU),
    pytest.param("cuda:1", "--device cuda:1: torch sees no CUDA device", marks=NO_GPU),
    pytest.param("gpu", "--device gpu: expected cpu, cuda or cuda:N"),
]


def _editable() -> bool:
    # pip records an editable install in the distribution's direct_url.json (PEP 610).
    try:
        text = metadata.distribution("sum-double").read_text("direct_url.json")
    except metadata.PackageNotFoundError:  # e.g. a bare CMake build put on sys.path
        return False
    return bool(text) and bool(json.loads(text).get("dir_info", {}).get("editable", False))


needs_regular_install = pytest.mark.skipif(
    _editable(),
    reason="an editable install maps the entry point into the source tree and rebuilds on import "
    "(docs/building.md)",
)

_BITS = {
    torch.float16: torch.int16,
    torch.bfloat16: torch.int16,
    torch.float32: torch.int32,
    torch.float64: torch.int64,
}


def assert_bitwise_equal(out: torch.Tensor, ref: torch.Tensor) -> None:
    """``out`` is ``ref`` bit for bit, except that any NaN matches any NaN.

    IEEE 754 leaves NaN payloads to the implementation (CUDA returns a canonical NaN, x86 keeps an
    operand's payload), so they are not part of the contract; everything else is.
    """
    assert out.shape == ref.shape
    assert out.dtype == ref.dtype
    assert out.device == ref.device
    nan = out.isnan()
    assert torch.equal(nan, ref.isnan()), "NaNs in different places"
    bits = _BITS[out.dtype]
    mismatch = (out.contiguous().view(bits) != ref.contiguous().view(bits)) & ~nan
    assert not mismatch.any(), (
        f"{int(mismatch.sum())} of {out.numel()} elements differ, first at flat index "
        f"{int(mismatch.flatten().nonzero()[0])}"
    )


@contextlib.contextmanager
def poisoned_allocations() -> Iterator[None]:
    """Inside, new tensors start filled with NaN (torch's deterministic mode).

    On CUDA the op's output is allocated through the dispatcher's empty_strided, which applies the
    fill, so an element the kernel fails to write stays NaN and the comparison with the reference
    fails instead of passing on stale memory that happens to be right. On the CPU the C shim
    allocates with at::detail::empty_strided_cpu, which skips the fill: there the fresh random
    inputs of every check are what makes stale memory fail.
    """
    was_deterministic = torch.are_deterministic_algorithms_enabled()
    was_filling = torch.utils.deterministic.fill_uninitialized_memory
    torch.use_deterministic_algorithms(True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(was_deterministic)
        torch.utils.deterministic.fill_uninitialized_memory = was_filling


def check_op(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The op of a and b is the reference's: values (bits), dtype, shape and strides."""
    ref = reference(a, b)
    with poisoned_allocations():
        out = op(a, b)
    assert_bitwise_equal(out, ref)
    assert out.stride() == ref.stride()
    assert out.data_ptr() not in (a.data_ptr(), b.data_ptr()) or out.numel() == 0
    return out


Runs = dict[str, Future[subprocess.CompletedProcess[str]]]


def run_side_by_side(commands: dict[str, list[str]], timeout: float = 300, **options: Any) -> Runs:
    """Runs ``python ARGS`` for each of ``commands`` at once, each a fresh process, and waits for
    them all. By name, what ``subprocess.run`` returned or raised: ``.result()`` gives it.

    Each of these Pythons imports torch, seconds of one core, while this process only waits: side
    by side they use every core instead of taking turns on one. A timeout or a failure to start
    stays with its own test, raised where it calls ``.result()``. ``options`` (env, cwd) go to
    every ``subprocess.run``.
    """

    def run(args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, *args], capture_output=True, text=True, timeout=timeout, **options
        )

    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        return {name: pool.submit(run, args) for name, args in commands.items()}
