"""add3: sum-double's launchers called from another package's op."""

import pytest
import torch

import downstream_demo

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
TWIN = torch.add  # what sum-double's launchers compute, as torch computes it


def operands(
    device: str, dtype: torch.dtype, shape: tuple[int, ...] = (4096,)
) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    # Magnitudes from 1e-3 to 1e3: the order of the two roundings changes many results.
    return [
        (
            torch.randn(shape, generator=gen, dtype=torch.float64)
            * 10.0 ** torch.randint(-3, 4, shape, generator=gen)
        ).to(device, dtype)
        for _ in range(3)
    ]


def same_bits(x: torch.Tensor, y: torch.Tensor) -> bool:
    return x.shape == y.shape and torch.equal(
        x.contiguous().view(torch.uint8), y.contiguous().view(torch.uint8)
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_add3_rounds_like_two_torch_adds(device: str, dtype: torch.dtype) -> None:
    a, b, c = operands(device, dtype)
    expected = TWIN(TWIN(a, b), c)
    # The inputs tell rounding orders apart, so the comparison below can fail.
    assert not same_bits(expected, TWIN(a, TWIN(b, c)))
    assert same_bits(downstream_demo.add3(a, b, c), expected)


def test_add3_takes_strided_and_empty_inputs(device: str) -> None:
    a, b, c = operands(device, torch.float32, (64, 48))
    assert same_bits(downstream_demo.add3(a.t(), b.t(), c.t()), TWIN(TWIN(a.t(), b.t()), c.t()))
    empty = torch.empty(0, 3, device=device)
    assert downstream_demo.add3(empty, empty, empty).shape == (0, 3)


def test_add3_names_the_argument_at_fault() -> None:
    a = torch.ones(3)
    with pytest.raises(
        RuntimeError, match=r"expected c to have a's dtype \(Float\), but it is Double"
    ):
        downstream_demo.add3(a, a, a.double())
    with pytest.raises(RuntimeError, match=r"expected b to have a's shape \[3\], but it is \[2\]"):
        downstream_demo.add3(a, torch.ones(2), a)
    ints = torch.ones(3, dtype=torch.int64)
    with pytest.raises(
        RuntimeError, match="expected a to be Half, BFloat16, Float or Double, but it is Long"
    ):
        downstream_demo.add3(ints, ints, ints)


@pytest.mark.cuda
def test_add3_names_the_device_at_fault() -> None:
    a = torch.ones(3, device="cuda")
    with pytest.raises(
        RuntimeError, match=r"expected b on a's device \(cuda:0\), but it is on cpu"
    ):
        downstream_demo.add3(a, a.cpu(), a)


@pytest.mark.cuda
def test_add3_runs_on_torchs_current_stream() -> None:
    # A CUDA graph captures the current stream's work; a launch anywhere else fails the capture.
    a, b, c = operands("cuda", torch.float32, (1 << 16,))
    downstream_demo.add3(a, b, c)  # warm-up: lazy loading and first-call setup, outside capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = downstream_demo.add3(a, b, c)
    a.copy_(b)
    graph.replay()
    torch.cuda.synchronize()
    assert same_bits(out, TWIN(TWIN(b, b), c))


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_add3_passes_opcheck(device: str, dtype: torch.dtype) -> None:
    # Schema, fake kernel, and the op under torch.compile's tracing (AOT dispatch).
    torch.library.opcheck(torch.ops.downstream_demo.add3.default, operands(device, dtype, (8, 5)))
