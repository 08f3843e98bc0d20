"""The device fixture: every test runs on the CPU, and on CUDA where there is a GPU."""

import pytest
import torch

DEVICES = [
    "cpu",
    pytest.param(
        "cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
    ),
]


@pytest.fixture(params=DEVICES)
def device(request: pytest.FixtureRequest) -> str:
    return request.param
