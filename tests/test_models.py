"""sum_double.add in a model as torch.add is used: mixed precision, residual and bias adds.

A tiny transformer (two blocks of attention and MLP) with a float32 residual stream whose branches
run under torch.autocast, so each residual add is float32 + bfloat16 (or float16), and the MLP's
bias is added by broadcasting, bfloat16 (B, T, 4D) + float32 (4D,). Trained for a few steps with
sum_double.add in those adds and, from the same weights on the same data, with torch.add: in
eager mode the two must agree bit for bit at every step. Compiled, exported
and FX-traced, the op must stay in the graph.
"""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func
from torch._inductor.utils import run_and_get_code

import sum_double
from support import assert_bitwise_equal

Add = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]

BATCH, TIME, WIDTH, HEADS = 4, 8, 32, 2
STEPS = 10
OP = torch.ops.sum_double.add.default


class Block(nn.Module):
    """Pre-norm attention (optional) and MLP, each added to the residual stream by ``add``."""

    def __init__(self, add: Add, attention: bool = True) -> None:
        super().__init__()
        self.add = add
        self.attention = attention
        self.ln1 = nn.LayerNorm(WIDTH)
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.proj = nn.Linear(WIDTH, WIDTH)
        self.ln2 = nn.LayerNorm(WIDTH)
        self.fc1 = nn.Linear(WIDTH, 4 * WIDTH, bias=False)
        self.fc1_bias = nn.Parameter(0.1 * torch.randn(4 * WIDTH))  # added by ``add``
        self.fc2 = nn.Linear(4 * WIDTH, WIDTH)
        self.register_buffer("causal", torch.ones(TIME, TIME, dtype=torch.bool).tril())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.attention:
            x = self.add(x, self.attend(x))  # float32 + autocast's dtype
        h = self.add(self.fc1(self.ln2(x)), self.fc1_bias)  # bias: (B, T, 4D) + (4D,), mixed
        return self.add(x, self.fc2(F.gelu(h)))

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
    def __init__(self, add: Add, blocks: int = 2, attention: bool = True) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(Block(add, attention) for _ in range(blocks))
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
    """The model with sum_double.add and with torch.add, the same weights."""
    torch.manual_seed(0)
    ours = Net(sum_double.add, blocks, attention).to(device)
    theirs = Net(torch.add, blocks, attention).to(device)
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


def recording(add: Add, calls: list[tuple[torch.dtype, torch.dtype, bool]]) -> Add:
    """``add``, noting each call's input dtypes and whether their shapes differ."""

    def recorded(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        calls.append((a.dtype, b.dtype, a.shape != b.shape))
        return add(a, b)

    return recorded


def _eager_twins_agree(device: str, dtype: torch.dtype) -> None:
    ours, theirs = twins(device)
    calls: list[tuple[torch.dtype, torch.dtype, bool]] = []
    for block in ours.blocks:
        assert isinstance(block, Block)
        block.add = recording(sum_double.add, calls)
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
def test_cpu_bfloat16_autocast_training_is_torch_adds_bit_for_bit() -> None:
    _eager_twins_agree("cpu", torch.bfloat16)


@pytest.mark.cuda
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_cuda_autocast_training_is_torch_adds_bit_for_bit(dtype: torch.dtype) -> None:
    _eager_twins_agree("cuda", dtype)


# ---- Compiled, exported, traced: the op stays in the graph ----------------------------------


def _op_nodes(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    """The op's calls in ``gm`` and its submodules (export puts autocast regions in those)."""
    return [
        node
        for module in gm.modules()
        if isinstance(module, torch.fx.GraphModule)
        for node in module.graph.nodes
        if node.op == "call_function" and node.target is OP
    ]


def _input_dtypes(node: torch.fx.Node) -> tuple[torch.dtype, ...]:
    return tuple(arg.meta["val"].dtype for arg in node.args if isinstance(arg, torch.fx.Node))


def _mixed(nodes: list[torch.fx.Node]) -> list[torch.fx.Node]:
    return [n for n in nodes if len(set(_input_dtypes(n))) == 2]


def _assert_close(compiled: torch.Tensor, eager: torch.Tensor) -> None:
    # Compiled code may round differently (inductor fuses away intermediate bf16 roundings), so
    # compiled is checked against eager to 1e-3 relative, not to the bit.
    assert torch.isfinite(compiled).all()
    rel = ((compiled - eager).abs() / eager.abs()).max()
    assert rel <= 1e-3, f"losses differ by {float(rel):.3g} relative: {compiled} vs {eager}"


@pytest.fixture
def fresh_dynamo() -> Iterator[None]:
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.usefixtures("fresh_dynamo")
def test_compiled_aot_eager_keeps_the_op_and_trains_as_eager(device: str) -> None:
    ours, _ = twins(device)
    eager_losses = train(ours, device, torch.bfloat16)
    compiled_model, _ = twins(device)
    graphs: dict[str, list[torch.fx.GraphModule]] = {"dynamo": [], "forward": [], "backward": []}

    def keep(kind: str) -> Callable[[torch.fx.GraphModule, Any], Any]:
        def compiler(gm: torch.fx.GraphModule, example_inputs: Any) -> Any:
            graphs[kind].append(gm)
            return make_boxed_func(gm.forward)

        return compiler

    # aot_eager, with each graph kept: Dynamo's, and the forward and backward that AOT autograd
    # makes of it (where the fake kernel gives every dtype and shape).
    aot = aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward"))

    def backend(gm: torch.fx.GraphModule, example_inputs: Any) -> Any:
        graphs["dynamo"].append(gm)
        return aot(gm, example_inputs)

    compiled = torch.compile(compiled_model, fullgraph=True, backend=backend)
    compiled_losses = train(compiled_model, device, torch.bfloat16, compiled)
    assert len(graphs["dynamo"]) == 1  # one graph, no recompilation over the steps
    assert len(_op_nodes(graphs["dynamo"][0])) == 6  # 2 blocks x (2 residual + 1 bias) adds
    (forward,) = graphs["forward"]
    nodes = _op_nodes(forward)
    assert len(nodes) == 6
    assert {_input_dtypes(n) for n in _mixed(nodes)} == {
        (torch.float32, torch.bfloat16),
        (torch.bfloat16, torch.float32),
    }
    _assert_close(compiled_losses, eager_losses)


@pytest.mark.usefixtures("fresh_dynamo")
def test_compiled_inductor_keeps_the_op_and_trains_as_eager(device: str) -> None:
    # One block, no attention: inductor's C++ compiles dominate on a small CPU machine.
    ours, _ = twins(device, blocks=1, attention=False)
    eager_losses = train(ours, device, torch.bfloat16)
    compiled_model, _ = twins(device, blocks=1, attention=False)
    compiled = torch.compile(compiled_model, fullgraph=True, backend="inductor")
    compiled_losses, code = run_and_get_code(
        lambda: train(compiled_model, device, torch.bfloat16, compiled)
    )
    # The op is an extern call in inductor's forward code, once for each of the block's 2 adds
    # (the backward needs no op: the gradients are the incoming one, reduced and cast).
    calls = sum(source.count("torch.ops.sum_double.add.default(") for source in code)
    assert calls == 2, code
    _assert_close(compiled_losses, eager_losses)


def _assert_exported(
    program: torch.export.ExportedProgram, model: nn.Module, x: torch.Tensor
) -> None:
    nodes = _op_nodes(program.graph_module)
    assert len(nodes) == 6
    assert len(_mixed(nodes)) == 6  # every add mixes float32 with bfloat16
    assert_bitwise_equal(program.module()(x), model(x))  # and computes what the module does


# torch 2.11's export warns about its own use of pytree's LeafSpec (gone by 2.14).
IGNORE_LEAFSPEC = pytest.mark.filterwarnings(
    "ignore:`isinstance.treespec, LeafSpec.` is deprecated:FutureWarning"
)


@IGNORE_LEAFSPEC
def test_export_records_the_op_with_mixed_dtypes(device: str) -> None:
    ours, _ = twins(device)
    model = Autocast(ours, device, torch.bfloat16)
    x = torch.randn(BATCH, TIME, WIDTH, device=device)
    exported = torch.export.export(model, (x,), strict=False)
    _assert_exported(exported, model, x)
    _assert_exported(exported.run_decompositions(), model, x)  # the ATen IR keeps the op too


@IGNORE_LEAFSPEC
def test_export_with_a_dynamic_batch(device: str) -> None:
    # As with torch.add: the fake kernel must not specialize the batch (guard on its value).
    ours, _ = twins(device)
    model = Autocast(ours, device, torch.bfloat16)
    x = torch.randn(BATCH, TIME, WIDTH, device=device)
    batch = torch.export.Dim("batch")
    exported = torch.export.export(model, (x,), dynamic_shapes={"x": {0: batch}}, strict=False)
    for n in (BATCH, 3, 4 * WIDTH):
        _assert_exported(exported, model, torch.randn(n, TIME, WIDTH, device=device))


def test_fx_symbolic_trace_records_the_op(device: str) -> None:
    ours, _ = twins(device)
    traced = torch.fx.symbolic_trace(ours)
    assert len(_op_nodes(traced)) == 6
    x = torch.randn(BATCH, TIME, WIDTH, device=device)
    with torch.autocast(device, dtype=torch.bfloat16):
        assert_bitwise_equal(traced(x), ours(x))
