"""ResidualBlock, the op where a model would use it, and a few steps of training it."""

import torch
from torch import Tensor, nn

import sum_double


class ResidualBlock(nn.Module):
    """``x + f(x)`` with ``f`` = Linear -> GELU -> Linear; the ``+`` is ``sum_double.add``."""

    def __init__(self, features: int, hidden: int = 32) -> None:
        super().__init__()
        self.features = features
        self.f = nn.Sequential(nn.Linear(features, hidden), nn.GELU(), nn.Linear(hidden, features))

    def forward(self, x: Tensor) -> Tensor:
        return sum_double.add(x, self.f(x))


def train(block: ResidualBlock, steps: int, *, seed: int = 0) -> list[float]:
    """Fit ``block`` to a fixed random linear map with Adam; return the loss before each step.

    The data come from ``seed`` and are made on the CPU, so every device, and any two blocks with
    the same weights, see the same batch.
    """
    device = next(block.parameters()).device
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(16, block.features, generator=generator)
    target = x @ torch.randn(block.features, block.features, generator=generator)
    x, target = x.to(device), target.to(device)
    optimizer = torch.optim.Adam(block.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(block(x), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
