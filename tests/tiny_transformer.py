"""The tests' model: a tiny transformer (two blocks of attention and MLP) with a float32 residual
stream whose branches run under torch.autocast, so each residual add is float32 + bfloat16 (or
float16), and the MLP's bias is added by broadcasting, bfloat16 (B, T, 4D) + float32 (4D,). Built
twice from the same weights, with the op and with its twin in those adds; its data and
its training loop (AdamW under autocast)."""

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from reference import TWIN
from support import Op, op

BATCH, TIME, WIDTH, HEADS = 4, 8, 32, 2
STEPS = 10


class Block(nn.Module):
    """Pre-norm attention (optional) and MLP, each joined to the residual stream by ``combine``
    (the op, or its twin)."""

    def __init__(self, combine: Op, attention: bool = True) -> None:
        super().__init__()
        self.combine = combine
        self.attention = attention
        self.ln1 = nn.LayerNorm(WIDTH)
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.proj = nn.Linear(WIDTH, WIDTH)
        self.ln2 = nn.LayerNorm(WIDTH)
        self.fc1 = nn.Linear(WIDTH, 4 * WIDTH, bias=False)
        self.fc1_bias = nn.Parameter(0.1 * torch.randn(4 * WIDTH))  # joined by ``combine``
        self.fc2 = nn.Linear(4 * WIDTH, WIDTH)
        self.register_buffer("causal", torch.ones(TIME, TIME, dtype=torch.bool).tril())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.attention:
            x = self.combine(x, self.attend(x))  # float32 + autocast's dtype
        h = self.combine(self.fc1(self.ln2(x)), self.fc1_bias)  # bias: (B, T, 4D) + (4D,), mixed
        return self.combine(x, self.fc2(F.gelu(h)))

    def attend(self, x: torch.Tensor) -> torch.Tensor:
        # Spelled out (no fused kernel, whose CUDA backward may use atomics): every op here is
        # deterministic, so two runs differ only where their adds differ. Written without
        # unpacking shapes, so that torch.fx.symbolic_trace can trace it.
        qkv = self.qkv(self.ln1(x)).unflatten(-1, (3, HEADS, WIDTH // HEADS)).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = (q @ k.transpose(-2, -1)) * (WIDTH // HEADS) ** -0.5
        att = scores.masked_fill(~self.causal, float("-inf")).softmax(-1) @ v
        return self.proj(att.transpose(1, 2).flatten(2))


class Net(nn.Module):
    def __init__(self, combine: Op, blocks: int = 2, attention: bool = True) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(Block(combine, attention) for _ in range(blocks))
        self.ln = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, WIDTH)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x)).float()


class Autocast(nn.Module):
    """``net`` under torch.autocast, the context in the module (as export records it)."""

    def __init__(self, net: nn.Module, device: str, dtype: torch.dtype) -> None:
        super().__init__()
        self.net, self.device, self.dtype = net, device, dtype

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.autocast(self.device, dtype=self.dtype):
            return self.net(x)


def twins(device: str, blocks: int = 2, attention: bool = True) -> tuple[Net, Net]:
    """The model with the op and with its twin (tests/reference.py), the same weights."""
    torch.manual_seed(0)
    ours = Net(op, blocks, attention).to(device)
    theirs = Net(TWIN, blocks, attention).to(device)
    theirs.load_state_dict(ours.state_dict())
    return ours, theirs


def batches(device: str) -> list[tuple[torch.Tensor, torch.Tensor]]:
    gen = torch.Generator().manual_seed(1)
    shape = (BATCH, TIME, WIDTH)
    return [
        (torch.randn(shape, generator=gen).to(device), torch.randn(shape, generator=gen).to(device))
        for _ in range(STEPS)
    ]


def train(
    model: nn.Module, device: str, dtype: torch.dtype, forward: Callable[..., Any] | None = None
) -> torch.Tensor:
    """STEPS of AdamW on ``batches``; the losses. ``forward``: the model compiled, if it is."""
    forward = model if forward is None else forward
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    # float16 overflows without loss scaling; float32 master weights either way.
    scaler = torch.amp.GradScaler(device, enabled=dtype == torch.float16)
    losses = []
    for x, y in batches(device):
        with torch.autocast(device, dtype=dtype):
            loss = F.mse_loss(forward(x), y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.detach())
    return torch.stack(losses)
