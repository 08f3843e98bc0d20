"""Bad input gets a Python exception that names the argument and what was expected, in eager
mode and (the fake kernel) under torch.compile."""

from collections.abc import Callable

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import sum_double
from support import (
    HAS_CUDA,
    TORCH_REASON_CROSSES,
    assert_bitwise_equal,
)

BAD_PAIRS = {
    "shapes": lambda d: (torch.ones(3, 4, device=d), torch.ones(4, 3, device=d)),
    "leading dims": lambda d: (torch.ones(2, 3, device=d), torch.ones(5, 1, 4, device=d)),
    "int a": lambda d: (torch.ones(3, device=d, dtype=torch.int64), torch.ones(3, device=d)),
    "complex b": lambda d: (torch.ones(3, device=d), torch.ones(3, device=d, dtype=torch.cfloat)),
}


@pytest.mark.parametrize("case", list(BAD_PAIRS))
def test_fake_kernel_refuses_in_the_ops_words(device: str, case: str) -> None:
    # The fake kernel repeats check_inputs() so that torch.compile refuses at trace time; this is
    # what keeps the two messages the same.
    a, b = BAD_PAIRS[case](device)
    with pytest.raises(RuntimeError) as real:
        torch.ops.sum_double.add(a, b)
    with FakeTensorMode() as mode, pytest.raises(RuntimeError) as fake:
        torch.ops.sum_double.add(mode.from_tensor(a), mode.from_tensor(b))
    assert str(fake.value) == str(real.value)


# ---- bad input: a Python exception that names the argument and what was expected ---------------


def test_shapes_that_do_not_broadcast(device: str) -> None:
    with pytest.raises(RuntimeError) as info:
        sum_double.add(torch.ones(3, 4, device=device), torch.ones(4, 3, device=device))
    assert str(info.value) == (
        "sum_double.add(): expected the shapes of a and b to broadcast, but a: [3, 4] and b: "
        "[4, 3] differ in dim 0 of the result (3 and 4), where neither is 1"
    )
    with pytest.raises(RuntimeError, match=r"a: \[2, 3\] and b: \[5, 1, 4\] differ in dim 2"):
        sum_double.add(torch.ones(2, 3, device=device), torch.ones(5, 1, 4, device=device))


@pytest.mark.parametrize(
    "dtype", [torch.int32, torch.int64, torch.uint8, torch.bool, torch.complex64, torch.complex128]
)
@pytest.mark.parametrize("which", ["a", "b"])
def test_unsupported_dtype(device: str, dtype: torch.dtype, which: str) -> None:
    # A float op: integer, bool and complex tensors are refused, naming the argument, even where
    # torch.add would promote them to a floating result.
    args = {"a": torch.ones(3, device=device), "b": torch.ones(3, device=device)}
    args[which] = args[which].to(dtype)
    with pytest.raises(RuntimeError) as info:
        sum_double.add(args["a"], args["b"])
    assert str(info.value) == (
        f"sum_double.add(): expected {which} to be a floating-point tensor (float16, bfloat16, "
        f"float32 or float64), but got {dtype}"
    )


# What the op must turn away, made from a dense 3x4 tensor: the words that name it in the message,
# and the conversion the message advises, which must then work.
NOT_DENSE = [
    pytest.param(
        torch.Tensor.to_sparse, "a sparse tensor (torch.sparse_coo layout)", ".to_dense()", id="coo"
    ),
    pytest.param(
        torch.Tensor.to_sparse_csr,
        "a sparse tensor (torch.sparse_csr layout)",
        ".to_dense()",
        id="csr",
    ),
    pytest.param(
        torch.Tensor.to_sparse_csc,
        "a sparse tensor (torch.sparse_csc layout)",
        ".to_dense()",
        id="csc",
    ),
    pytest.param(
        lambda t: t.to_sparse_bsr((1, 2)),
        "a sparse tensor (torch.sparse_bsr layout)",
        ".to_dense()",
        id="bsr",
    ),
    pytest.param(
        lambda t: t.to_sparse_bsc((1, 2)),
        "a sparse tensor (torch.sparse_bsc layout)",
        ".to_dense()",
        id="bsc",
    ),
    pytest.param(
        lambda t: torch.quantize_per_tensor(t, 0.25, 0, torch.quint8),
        "a quantized tensor (torch.quint8)",
        ".dequantize()",
        id="quantized",
    ),
    pytest.param(
        lambda t: torch.nested.as_nested_tensor(list(t), layout=torch.jagged),
        "a nested tensor (torch.jagged layout)",
        ".to_padded_tensor(0)",
        id="nested-jagged",
    ),
    pytest.param(
        lambda t: torch.nested.as_nested_tensor(list(t), layout=torch.strided),
        "a nested tensor (torch.strided layout)",
        ".to_padded_tensor(0)",
        id="nested-strided",
    ),
    pytest.param(
        torch.Tensor.to_mkldnn,
        "an MKLDNN tensor (torch._mkldnn layout)",
        ".to_dense()",
        id="mkldnn",
    ),
]


@pytest.mark.parametrize(
    "call", [sum_double.add, torch.ops.sum_double.add], ids=["add", "torch.ops"]
)
@pytest.mark.parametrize("which", ["a", "b"])
@pytest.mark.parametrize(("make", "what", "conversion"), NOT_DENSE)
@pytest.mark.filterwarnings("ignore:Sparse (CSR|CSC|BSR|BSC) tensor support is in beta")
@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors is in prototype stage")
@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor, torch.quantize_per_channel")
def test_not_dense(
    device: str,
    make: Callable[[torch.Tensor], torch.Tensor],
    what: str,
    conversion: str,
    which: str,
    call: Callable[..., torch.Tensor],
    capfd: pytest.CaptureFixture[str],
) -> None:
    if device == "cuda" and make is torch.Tensor.to_mkldnn:
        pytest.skip("MKLDNN tensors live on the CPU only")
    dense = torch.randn(3, 4, device=device)
    args = {"a": dense, "b": torch.randn(3, 4, device=device)}
    args[which] = make(args[which])
    with pytest.raises(RuntimeError) as info:
        call(args["a"], args["b"])
    assert str(info.value) == (
        f"sum_double.add(): expected {which} to be a dense (torch.strided) tensor, but got "
        f"{what}; convert it with {conversion} first"
    )
    assert capfd.readouterr().err == ""  # nothing on stderr, from torch's shim or anyone else
    # The advice, run as written, gives a tensor the op takes.
    args[which] = eval(f"t{conversion}", {"t": args[which]})
    assert_bitwise_equal(call(args["a"], args["b"]), torch.add(args["a"], args["b"]))


@pytest.mark.parametrize("first", ["a", "b"])
@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors is in prototype stage")
def test_the_first_argument_at_fault_is_named(device: str, first: str) -> None:
    # Two kinds the op does not take: the message names the first argument, whichever kind
    # steered the dispatcher.
    dense = torch.randn(3, 4, device=device)
    nested = torch.nested.as_nested_tensor(list(dense))
    sparse = dense.to_sparse()
    a, b = (nested, sparse) if first == "a" else (sparse, nested)
    with pytest.raises(RuntimeError, match="expected a to be a dense"):
        sum_double.add(a, b)


def test_allocation_failure_is_an_exception() -> None:
    # The output of this stride-0 view needs 4 PiB: the allocation fails inside torch, the error
    # crosses the stable ABI as a code and must come back as an exception, not a crash (a module
    # with a private static libstdc++ used to segfault here).
    a = torch.ones(1).expand(2**50)
    with pytest.raises(RuntimeError) as info:
        sum_double.add(a, a)
    assert type(info.value) is RuntimeError  # not OutOfMemoryError: that one is for GPUs
    message = str(info.value)
    assert (
        "could not allocate memory for [1125899906842624] torch.float32 elements on cpu" in message
    )
    if TORCH_REASON_CROSSES:
        assert "DefaultCPUAllocator" in message


def test_torch_reason_probe_matches_the_versions() -> None:
    # The wrapper's out-of-memory handling trusts this probe; support works it out independently.
    assert sum_double._C.torch_reason_in_errors() is TORCH_REASON_CROSSES


@pytest.mark.parametrize(
    "call", [sum_double.add, torch.ops.sum_double.add], ids=["add", "torch.ops"]
)
@pytest.mark.parametrize(
    ("a", "b", "named"),
    [
        pytest.param(None, torch.ones(3), "a", id="a"),
        pytest.param(torch.ones(3), None, "b", id="b"),
        # No tensor at all: the dispatcher has no backend to pick.
        pytest.param(None, None, "a", id="both"),
        # The other argument steers the dispatcher to a kernel other than the dense one.
        pytest.param(None, torch.ones(3).to_sparse(), "a", id="a-with-sparse-b"),
        pytest.param(None, torch.ones(3, requires_grad=True), "a", id="a-with-b-requiring-grad"),
    ],
)
def test_none_is_named(
    call: Callable[..., torch.Tensor],
    a: torch.Tensor | None,
    b: torch.Tensor | None,
    named: str,
    capfd: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(RuntimeError) as info:
        call(a, b)
    assert str(info.value) == f"sum_double.add(): expected {named} to be a Tensor, but got None"
    assert capfd.readouterr().err == ""  # no C++ stack trace on stderr


@pytest.mark.parametrize("number", [1.5, 2, True, 1j])
def test_python_numbers_are_refused_with_the_way_out(number: object) -> None:
    # torch.add's wrapped-number rules are not followed: a clear error says to pass a tensor.
    x = torch.ones(3)
    kind = type(number).__name__
    with pytest.raises(TypeError) as info:
        sum_double.add(x, number)
    assert str(info.value) == (
        f"sum_double.add(): expected b to be a Tensor, but got a Python {kind}; pass a tensor, "
        f"e.g. torch.tensor({number!r}, dtype=a.dtype, device=a.device)"
    )
    with pytest.raises(TypeError, match=rf"expected a to be a Tensor, but got a Python {kind}"):
        sum_double.add(number, x)
    # The op itself: torch's schema check names the argument.
    with pytest.raises(RuntimeError, match="Expected a value of type 'Tensor' for argument 'b'"):
        torch.ops.sum_double.add(x, number)
    # The advice, as written, works (a complex tensor is then refused in turn: a float op).
    if kind != "complex":
        advice = f"torch.tensor({number!r}, dtype=a.dtype, device=a.device)"
        advised = eval(advice, {"torch": torch, "a": x})
        assert_bitwise_equal(sum_double.add(x, advised), torch.add(x, advised))


@pytest.mark.cuda
@pytest.mark.parametrize("cpu_arg", ["a", "b"])
def test_cpu_and_cuda_mismatch(cpu_arg: str) -> None:
    args = {"a": torch.ones(3, device="cuda"), "b": torch.ones(3, device="cuda")}
    args[cpu_arg] = args[cpu_arg].cpu()
    with pytest.raises(RuntimeError, match=r"same device.*(cpu.*cuda:0|cuda:0.*cpu)"):
        sum_double.add(args["a"], args["b"])


@pytest.mark.cuda
@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA devices")
def test_two_cuda_devices_mismatch() -> None:
    with pytest.raises(RuntimeError, match="a on cuda:0 and b on cuda:1"):
        sum_double.add(torch.ones(3, device="cuda:0"), torch.ones(3, device="cuda:1"))


@pytest.mark.skipif(HAS_CUDA and not sum_double._C.cpu_only, reason="checks a CPU-only build")
@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device to make a CUDA tensor")
def test_cuda_tensor_on_cpu_only_build() -> None:
    with pytest.raises(RuntimeError, match="built CPU-only"):
        sum_double.add(torch.ones(3, device="cuda"), torch.ones(3, device="cuda"))
