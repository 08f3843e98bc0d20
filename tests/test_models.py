"""The op in a model where its twin is used: mixed precision, residual and bias adds.

The tiny transformer of tiny_transformer.py, trained for a few steps with the op and, from the
same weights on the same data, with its twin (tests/reference.py): in eager mode the two must
agree bit for bit, the loss at every step and the weights after the last. test_models_compiled.py
compiles, exports and traces it.
"""

import pytest
import torch

from support import Op, assert_bitwise_equal, op
from tiny_transformer import STEPS, Block, train, twins


def recording(call: Op, calls: list[tuple[torch.dtype, torch.dtype, bool]]) -> Op:
    """``call``, noting each call's input dtypes and whether their shapes differ."""

    def recorded(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        calls.append((a.dtype, b.dtype, a.shape != b.shape))
        return call(a, b)

    return recorded


def _eager_twins_agree(device: str, dtype: torch.dtype) -> None:
    ours, theirs = twins(device)
    calls: list[tuple[torch.dtype, torch.dtype, bool]] = []
    for block in ours.blocks:
        assert isinstance(block, Block)
        block.combine = recording(op, calls)
    ours_losses = train(ours, device, dtype)
    theirs_losses = train(theirs, device, dtype)
    # The adds the model was built to make: residual float32 + autocast's dtype, and the bias
    # broadcast, autocast's dtype + float32.
    assert (torch.float32, dtype, False) in calls
    assert (dtype, torch.float32, True) in calls
    assert len(calls) == STEPS * 2 * 3
    assert torch.isfinite(ours_losses).all()
    assert ours_losses[-1] < ours_losses[0]  # it trains
    assert_bitwise_equal(ours_losses, theirs_losses)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        assert p.dtype == torch.float32, name
        assert_bitwise_equal(p.detach(), q.detach())


# On CPUs without BF16 instructions (Neoverse-N1, as ci/aarch64.sh emulates) torch warns that its
# own bf16 matmul falls back to BLAS; both twins take that path.
@pytest.mark.filterwarnings("ignore:mkldnn_matmul failed, switching to BLAS gemm:UserWarning")
def test_cpu_bfloat16_autocast_training_is_the_twins_bit_for_bit() -> None:
    _eager_twins_agree("cpu", torch.bfloat16)


@pytest.mark.cuda
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_cuda_autocast_training_is_the_twins_bit_for_bit(dtype: torch.dtype) -> None:
    _eager_twins_agree("cuda", dtype)
