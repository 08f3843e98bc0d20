"""ResidualBlock against its torch-add twin: forward, gradients, training."""

import torch
from torch import Tensor

from residual_demo import ResidualBlock, train

FEATURES = 8


class TorchAddBlock(ResidualBlock):
    """The same block with torch's own add: what sum_double.add must reproduce bit for bit."""

    def forward(self, x: Tensor) -> Tensor:
        return x + self.f(x)


def blocks(device: str) -> tuple[ResidualBlock, TorchAddBlock]:
    torch.manual_seed(0)
    block = ResidualBlock(FEATURES).to(device)
    twin = TorchAddBlock(FEATURES).to(device)
    twin.load_state_dict(block.state_dict())
    return block, twin


def test_forward_is_bitwise_the_torch_add(device: str) -> None:
    block, twin = blocks(device)
    x = torch.randn(4, FEATURES, device=device)
    assert torch.equal(block(x), twin(x))


def test_gradients_are_bitwise_the_torch_add(device: str) -> None:
    # The add's backward hands the incoming gradient to both operands unchanged, exactly as
    # torch's does, so every gradient, the input's included, matches to the bit.
    block, twin = blocks(device)
    x = torch.randn(4, FEATURES, device=device, requires_grad=True)
    x_twin = x.detach().clone().requires_grad_()
    block(x).square().sum().backward()
    twin(x_twin).square().sum().backward()
    assert torch.equal(x.grad, x_twin.grad)
    for (name, p), p_twin in zip(block.named_parameters(), twin.parameters(), strict=True):
        assert torch.equal(p.grad, p_twin.grad), name


def test_training_lowers_the_loss_as_with_torch_add(device: str) -> None:
    block, twin = blocks(device)
    losses = train(block, steps=20)
    assert losses[-1] < 0.5 * losses[0]
    assert losses == train(twin, steps=20)
    for p, p_twin in zip(block.parameters(), twin.parameters(), strict=True):
        assert torch.equal(p, p_twin)
