"""add_via_sum_double: torch.ops.sum_double.add called from C++ through the dispatcher."""

import pytest
import torch

import downstream_demo


def test_it_returns_what_sum_double_returns(device: str) -> None:
    a = torch.randn(1000, device=device, dtype=torch.float16)
    b = torch.randn(1000, device=device, dtype=torch.float16)
    assert torch.equal(downstream_demo.add_via_sum_double(a, b), torch.add(a, b))


def test_sum_doubles_errors_come_back() -> None:
    # In sum-double's own words where torch allows it (headers >= 2.14, torch >= 2.13 at run
    # time); else torch names the failed call to sum_double::add.
    words = r"sum_double(\.add\(\): expected the shapes of a and b to broadcast|::add)"
    with pytest.raises(RuntimeError, match=words):
        downstream_demo.add_via_sum_double(torch.ones(3), torch.ones(2))


def test_it_passes_opcheck(device: str) -> None:
    args = (torch.randn(8, 5, device=device), torch.randn(8, 5, device=device))
    torch.library.opcheck(torch.ops.downstream_demo.add_via_sum_double.default, args)
