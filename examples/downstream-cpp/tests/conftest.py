"""The device fixture; tests marked cuda skip where torch sees no GPU."""

import pytest
import torch


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if torch.cuda.is_available():
        return  # a CPU-only build then fails them, with the error that says so
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if item.get_closest_marker("cuda"):
            item.add_marker(skip)


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    # Test ids say float16, not dtype0.
    return str(val).removeprefix("torch.") if isinstance(val, torch.dtype) else None


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def device(request: pytest.FixtureRequest) -> str:
    return request.param
