"""The fast route (_fast_route.py, optional): where torch lacks a name it reads, calls take the
public route. Its results are every other test's: the ``wrapper`` and ``call`` fixtures run each
test through it. Delete this file with _fast_route.py."""

import pytest
import torch
import torch.autograd.forward_ad as fwAD

from sum_double import _fast_route

PRIVATE_NAMES = [
    (torch._C, "_are_functorch_transforms_active"),
    (torch._C._functorch, "unwrap_if_dead"),
    (fwAD, "_current_level"),
]


@pytest.mark.parametrize(("module", "name"), PRIVATE_NAMES, ids=[n for _, n in PRIVATE_NAMES])
def test_without_a_private_name_there_is_no_fast_route(
    monkeypatch: pytest.MonkeyPatch, module: object, name: str
) -> None:
    # A torch release may drop any of them; the public call must then take the public route, and
    # quietly (the suite turns warnings into errors).
    monkeypatch.delattr(module, name, raising=False)
    assert _fast_route.make_fast_route() is None
