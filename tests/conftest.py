"""pytest wiring: the device, route and ``info`` fixtures, and skipping CUDA tests where there is
no GPU."""

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
import torch
from hypothesis import HealthCheck, settings

from sum_double import _public

from support import CUDA_BUILD, HAS_CUDA, OP, Op, op

# Property-based sweeps: 150 examples normally, 10 under compute-sanitizer (ci/sanitize.sh), where
# every launch is instrumented and costs a thousand times more. Under qemu (ci/aarch64.sh) drawing
# tensors can trip the too-slow health check: the same sweep, without that check.
settings.register_profile("suite", max_examples=150)
settings.register_profile("sanitizer", max_examples=10)
settings.register_profile(
    "emulated", max_examples=150, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("SUM_DOUBLE_HYPOTHESIS_PROFILE", "suite"))

DEVICES = [
    "cpu",
    pytest.param("cuda", marks=pytest.mark.cuda),
]


# Why the CUDA tests cannot run here, or None where they can. ci/gpu.sh looks for these words.
_NO_CUDA = (
    None
    if HAS_CUDA and CUDA_BUILD
    else "they need a CUDA device and a CUDA build of sum_double; "
    + ("this build is CPU-only" if HAS_CUDA else "torch sees no CUDA device")
)
_LEFT_OUT = pytest.StashKey[int]()  # how many were left out, for the summary line


def _cannot_run(item: pytest.Item) -> bool:
    # cuda: needs a device and a CUDA build; cuda_device: a device whatever the build.
    return (_NO_CUDA is not None and item.get_closest_marker("cuda") is not None) or (
        not HAS_CUDA and item.get_closest_marker("cuda_device") is not None
    )


@pytest.hookimpl(trylast=True)  # after -k and -m have chosen: count only what they kept
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Without CUDA, the CUDA tests are left out as a group, reported in one line at the end rather
    # than as hundreds of skips. Where they are all there is (one CUDA file, or `-m cuda`), each
    # reports its skip instead, so that the run still passes and says why.
    left_out = [item for item in items if _cannot_run(item)]
    if not left_out:
        return
    if len(left_out) == len(items) or "cuda" in config.getoption("markexpr"):
        for item in left_out:
            item.add_marker(pytest.mark.skip(reason=_NO_CUDA))
        return
    items[:] = [item for item in items if not _cannot_run(item)]
    config.hook.pytest_deselected(items=left_out)
    config.stash[_LEFT_OUT] = len(left_out)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    left_out = terminalreporter.config.stash.get(_LEFT_OUT, 0)
    if left_out:
        tests = "test" if left_out == 1 else "tests"
        terminalreporter.write_line(f"{left_out} CUDA {tests} left out (deselected): {_NO_CUDA}")


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    # Test ids say float16, not dtype0.
    return str(val).removeprefix("torch.") if isinstance(val, torch.dtype) else None


@pytest.fixture(params=DEVICES)
def device(request: pytest.FixtureRequest) -> str:
    return request.param


def _fast_route() -> _public.Route | None:
    # The optional part may be deleted (its tests with it); then the public route is all there is.
    try:
        from sum_double._fast_route import route
    except ImportError:
        return None
    return route


def _force(route: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sends the public call down one route: "fast" (on torch's private names) or "public"."""
    fast = _fast_route()
    if route == "fast" and fast is None:
        pytest.skip("this torch lacks a name the fast route reads, or the route was deleted")
    monkeypatch.setattr(_public, "_route", fast if route == "fast" else _public.public_route)


@pytest.fixture(params=["fast", "public"])
def wrapper(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Op:
    """The public call, sum_double.<NAME>, through each of its routes: every torch runs the public
    one this way."""
    _force(request.param, monkeypatch)
    return op


@pytest.fixture(params=["fast", "public", "op"])
def call(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Op:
    """The wrapper's routes, and the op itself (fake kernel + its autograd kernel: what FX graphs
    and torch.ops callers call; compiled graphs call its name below autograd)."""
    if request.param == "op":
        return OP
    _force(request.param, monkeypatch)
    return op


@pytest.fixture
def no_compile_caches(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A fresh Dynamo, the op's fusion as it is by default, and AOT autograd's on-disk cache off:
    its key (Dynamo's graph) leaves out SUM_DOUBLE_INDUCTOR_FUSION, so it could hand back a graph
    compiled under the other setting."""
    monkeypatch.delenv("SUM_DOUBLE_INDUCTOR_FUSION", raising=False)
    torch._dynamo.reset()
    with torch._functorch.config.patch(enable_autograd_cache=False):
        yield
    torch._dynamo.reset()


@pytest.fixture(scope="session")
def info() -> str:
    """What `python -m sum_double info` prints: one run, which starts a Python that loads torch,
    for both files that read it (test_package.py, test_sbom.py)."""
    proc = subprocess.run(
        [sys.executable, "-m", "sum_double", "info"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
