"""The bugs custom CUDA ops ship with: int32 overflow, the wrong stream, graphs, threads, OOM.

Every test here needs a GPU; on a machine without one they are skipped (conftest.py).
"""

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import torch

import sum_double

from reference import reference
from support import (
    FLOAT_DTYPES,
    NAME,
    TORCH_REASON_CROSSES,
    assert_bitwise_equal,
    op,
    poisoned_allocations,
)

pytestmark = pytest.mark.cuda


def free_bytes() -> int:
    return torch.cuda.mem_get_info()[0] if torch.cuda.is_available() else 0


@pytest.mark.large
@pytest.mark.parametrize("offset", [0, 1], ids=["aligned", "misaligned"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_more_than_2_pow_31_elements(dtype: torch.dtype, offset: int) -> None:
    # Past int32: the launcher must switch to 64-bit indices, and the last elements (beyond
    # 2^31) must be written too; in the 16-byte-pack kernel and, one element off alignment, in the
    # scalar one. a, b, ours and torch's: four arrays of n elements.
    n = 2**31 + 17
    needed = 4 * (n + offset) * dtype.itemsize
    if free_bytes() < needed * 1.1:
        pytest.skip(f"needs {needed / 2**30:.0f} GiB of free GPU memory")
    a = torch.randn(n + offset, device="cuda", dtype=dtype)[offset:]
    b = torch.randn(n + offset, device="cuda", dtype=dtype)[offset:]
    ref = reference(a, b)
    out = op(a, b)
    assert torch.equal(out[-1000:], ref[-1000:])  # the tail past 2^31 first: cheapest to report
    assert torch.equal(out, ref)


@pytest.mark.large
@pytest.mark.parametrize(
    "case",
    ["mixed", "broadcast", "2-d"],
)
def test_more_than_2_pow_31_elements_off_the_flat_kernels(case: str) -> None:
    # The N-d kernel with 64-bit indices: mixed dtypes past the vectorised kernel's int32 range,
    # a broadcast 0-dim input, and two dims whose offsets pass 2^31 (rows of 2^16 + 1).
    n = 2**31 + 17
    if free_bytes() < 4 * n * 4 * 1.1:
        pytest.skip(f"needs {4 * n * 4 * 1.1 / 2**30:.0f} GiB of free GPU memory")
    if case == "mixed":
        a = torch.randn(n, device="cuda", dtype=torch.float16)
        b = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    elif case == "broadcast":
        a = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        b = torch.tensor(0.3, device="cuda", dtype=torch.float64)
    else:
        a = torch.randn(2**15 + 9, 2**16 + 1, device="cuda", dtype=torch.float16)
        b = torch.randn(2**16 + 1, device="cuda", dtype=torch.float16)
    ref = reference(a, b)
    out = op(a, b)
    assert torch.equal(out.flatten()[-1000:], ref.flatten()[-1000:])
    assert torch.equal(out, ref)


# (waves, extra packs): inside each band of the launcher and on both sides of each threshold.
GRID_SIZES = [
    (0.25, 0),
    (0.5, 0),
    (0.5, 1),
    (0.75, 0),
    (1, 0),
    (1, 1),
    (1.5, 0),
    (2, 0),
    (2, 1),
    (3, 0),
]


@pytest.mark.parametrize(("waves", "extra"), GRID_SIZES, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_every_grid_shape_the_launcher_picks(dtype: torch.dtype, waves: float, extra: int) -> None:
    # The launcher's block size and packs per thread depend on how many waves of resident threads
    # the array fills on this GPU (add_cuda.cu). Each size here, plus a tail that fills no pack,
    # must come out right whatever shape it gets (which shape that is, is a matter of speed).
    props = torch.cuda.get_device_properties(0)
    wave_packs = props.multi_processor_count * props.max_threads_per_multi_processor
    per_pack = 16 // dtype.itemsize
    n = (int(waves * wave_packs) + extra) * per_pack + per_pack - 1
    a = torch.randn(n, device="cuda", dtype=dtype)
    b = torch.randn(n, device="cuda", dtype=dtype)
    with poisoned_allocations():
        out = op(a, b)
    assert_bitwise_equal(out, reference(a, b))


def test_side_stream_after_producer() -> None:
    """The producer sleeps on the side stream before it writes `a`, so an op launched on any other
    stream reads `a` while it still holds NaN, every time; on the side stream it waits its turn."""
    n = 1 << 22
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    a = torch.full((n,), float("nan"), device="cuda")
    side = torch.cuda.Stream()  # non-blocking (torch's pool): not even the legacy stream waits
    side.wait_stream(torch.cuda.current_stream())  # x, y and the NaNs are in place
    with torch.cuda.stream(side):
        torch.cuda._sleep(1 << 27)  # about 0.1 s of GPU clock: far longer than the launches below
        torch.mul(x, 3.0, out=a)
        out = op(a, y)
    side.synchronize()
    assert_bitwise_equal(out, reference(x * 3.0, y))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_cuda_graph_capture_and_replay(dtype: torch.dtype) -> None:
    a = torch.randn(10_000, device="cuda", dtype=dtype)
    b = torch.randn(10_000, device="cuda", dtype=dtype)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        op(a, b)  # warm-up outside capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = op(a, b)
    for _ in range(3):  # new inputs in the captured buffers, then replay
        a.copy_(torch.randn_like(a))
        b.copy_(torch.randn_like(b))
        graph.replay()
        torch.cuda.synchronize()
        assert_bitwise_equal(out, reference(a, b))


# torch 2.11 warns that a graph it captured is empty; the check below would catch a sum_double
# kernel missing from the replayed graph (the outputs would go stale across new inputs).
@pytest.mark.filterwarnings("ignore:The CUDA Graph is empty")
def test_torch_compile_reduce_overhead() -> None:
    torch._dynamo.reset()

    def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return op(x * 0.5, y) * 2.0

    compiled = torch.compile(f, mode="reduce-overhead", fullgraph=True)
    for _ in range(4):  # the first calls record, later ones replay the CUDA graph
        x = torch.randn(4096, device="cuda")
        y = torch.randn(4096, device="cuda")
        assert_bitwise_equal(compiled(x, y).clone(), f(x, y))


def test_threads_on_their_own_streams() -> None:
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            gen = torch.Generator(device="cuda").manual_seed(seed)
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                for _ in range(20):
                    a = torch.randn(1 << 18, device="cuda", generator=gen)
                    b = torch.randn(1 << 18, device="cuda", generator=gen)
                    out = op(a, b)
                    ref = reference(a, b)
                    stream.synchronize()
                    assert torch.equal(out, ref)
        except BaseException as e:  # re-raised on the main thread below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_out_of_memory_is_a_clear_error_and_recoverable() -> None:
    # An expanded view costs nothing; its dense output would need more memory than the GPU has.
    huge = torch.cuda.get_device_properties(0).total_memory
    a = torch.ones(1, device="cuda").expand(huge)
    try:
        with pytest.raises(torch.OutOfMemoryError) as info:
            op(a, a)
    finally:
        del a
        torch.cuda.empty_cache()
    message = str(info.value)
    assert f"could not allocate memory for [{huge}] torch.float32 elements on cuda:0" in message
    if TORCH_REASON_CROSSES:
        assert "CUDA out of memory" in message
    x, y = torch.randn(1000, device="cuda"), torch.randn(1000, device="cuda")
    assert_bitwise_equal(op(x, y), reference(x, y))


# In a child process: a device-side assert leaves the CUDA context unusable for the rest of it.
_ALLOCATE_AFTER_A_GPU_ERROR = """
import torch, sum_double
a = torch.ones(1, device="cuda").expand(2**20)
x = torch.zeros(1, device="cuda")
try:
    x[torch.tensor([5], device="cuda")] = 1.0  # out of bounds: a device-side assert
    torch.cuda.synchronize()
except RuntimeError:
    pass
try:
    sum_double.{NAME}(a, a)
except torch.OutOfMemoryError as e:
    print("OutOfMemoryError:", e)
except RuntimeError as e:
    print("RuntimeError:", e)
"""


def test_allocation_after_an_earlier_gpu_error_is_that_error() -> None:
    # With an error pending, every allocation that reaches the driver fails. The op must report
    # that error, not an out-of-memory (which, without torch's reason, is the usual cause).
    child = subprocess.run(
        [sys.executable, "-c", _ALLOCATE_AFTER_A_GPU_ERROR.replace("{NAME}", NAME)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.stdout.startswith("RuntimeError:"), child.stdout + child.stderr
    assert "device-side assert" in child.stdout


def test_the_ptx_runs_where_no_machine_code_fits() -> None:
    # A GPU newer than the build's newest machine code (Blackwell, for the CUDA 12.4 release) runs
    # its PTX, compiled by the driver. CUDA_FORCE_PTX_JIT=1 makes this GPU do the same; torch's own
    # kernels are kept out of the child (copies and CPU references only), as they may carry no PTX.
    if not sum_double._C.cuda_ptx:
        pytest.skip("this build carries no PTX")
    newest = max(int(ptx.removeprefix("compute_")) for ptx in sum_double._C.cuda_ptx)
    major, minor = torch.cuda.get_device_capability()
    if major * 10 + minor < newest:
        pytest.skip(f"sm_{major}{minor} is older than the newest PTX, compute_{newest}")
    script = (
        "import torch, sum_double\n"
        "from reference import reference\n"
        "for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):\n"
        "    a, b = (torch.randn(100_003, dtype=dtype) for _ in range(2))\n"
        f"    out = sum_double.{NAME}(a.cuda(), b.cuda()).cpu()\n"
        "    assert torch.equal(out, reference(a, b)), dtype\n"
    )
    env = {**os.environ, "CUDA_FORCE_PTX_JIT": "1", "CUDA_CACHE_DISABLE": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        cwd=Path(__file__).parent,  # where reference.py is
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
