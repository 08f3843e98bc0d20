"""pytest wiring: the device and route fixtures, and skipping CUDA tests where there is no GPU."""

import os

import pytest
import torch
from hypothesis import HealthCheck, settings

import sum_double
from sum_double import _ops
from support import CUDA_BUILD, HAS_CUDA, Add

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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip = pytest.mark.skip(reason="needs a CUDA device and a CUDA build of sum_double")
    for item in items:
        if "cuda" in item.keywords and not (HAS_CUDA and CUDA_BUILD):
            item.add_marker(skip)


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    # Test ids say float16, not dtype0.
    return str(val).removeprefix("torch.") if isinstance(val, torch.dtype) else None


@pytest.fixture(params=DEVICES)
def device(request: pytest.FixtureRequest) -> str:
    return request.param


def _force(route: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sends sum_double.add down one route: "fast" (on torch's private names) or "public"."""
    if route == "fast" and _ops._fast_route is None:
        pytest.skip("this torch lacks a name the fast route reads")
    monkeypatch.setattr(_ops, "_route", getattr(_ops, f"_{route}_route"))


@pytest.fixture(params=["fast", "public"])
def wrapper(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Add:
    """sum_double.add through each of its routes: every torch runs the public one this way."""
    _force(request.param, monkeypatch)
    return sum_double.add


@pytest.fixture(params=["fast", "public", "op"])
def add(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Add:
    """The wrapper's routes, and the op itself (fake kernel + registered autograd: what
    torch.compile and FX graphs call)."""
    if request.param == "op":
        return torch.ops.sum_double.add.default
    _force(request.param, monkeypatch)
    return sum_double.add
