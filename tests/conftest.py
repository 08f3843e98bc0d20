"""pytest wiring: the device fixture, and skipping CUDA tests where there is no GPU."""

import pytest

from support import CUDA_BUILD, HAS_CUDA

DEVICES = [
    "cpu",
    pytest.param("cuda", marks=pytest.mark.cuda),
]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip = pytest.mark.skip(reason="needs a CUDA device and a CUDA build of sum_double")
    for item in items:
        if "cuda" in item.keywords and not (HAS_CUDA and CUDA_BUILD):
            item.add_marker(skip)


@pytest.fixture(params=DEVICES)
def device(request: pytest.FixtureRequest) -> str:
    return request.param
