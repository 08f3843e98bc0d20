"""Bad input gets a Python exception that names the argument, what it got and the fix, in eager
mode, through torch.ops and (the fake kernel) under torch.compile: a TypeError for what is not a
tensor, a RuntimeError for a tensor the op refuses (docs/limits.md). alpha=, the add's own, is
refused in test_facts_of_the_op.py."""

from collections.abc import Callable

import numpy as np
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import sum_double

from reference import reference
from support import (
    FLOAT_DTYPES,
    HAS_CUDA,
    OP,
    OP_PACKET,
    QUALNAME,
    TORCH_REASON_CROSSES,
    Op,
    assert_bitwise_equal,
    op,
)

# Only where this torch has it, as with every dtype the tests below name.
FLOAT8_E4M3FN = getattr(torch, "float8_e4m3fn", None)

BAD_PAIRS = {
    "shapes": lambda d: (torch.ones(3, 4, device=d), torch.ones(4, 3, device=d)),
    "leading dims": lambda d: (torch.ones(2, 3, device=d), torch.ones(5, 1, 4, device=d)),
    "int a": lambda d: (torch.ones(3, device=d, dtype=torch.int64), torch.ones(3, device=d)),
    "complex b": lambda d: (torch.ones(3, device=d), torch.ones(3, device=d, dtype=torch.cfloat)),
    "bool b": lambda d: (torch.ones(3, device=d), torch.ones(3, device=d, dtype=torch.bool)),
    "uint16 a": lambda d: (torch.ones(3, device=d).to(torch.uint16), torch.ones(3, device=d)),
}
if FLOAT8_E4M3FN is not None:
    BAD_PAIRS["float8 a"] = lambda d: (
        torch.ones(3, device=d).to(FLOAT8_E4M3FN),
        torch.ones(3, device=d),
    )


@pytest.mark.parametrize("case", list(BAD_PAIRS))
def test_fake_kernel_refuses_in_the_ops_words(device: str, case: str) -> None:
    # The fake kernel repeats check_inputs() so that torch.compile refuses at trace time; this is
    # what keeps the two messages the same.
    a, b = BAD_PAIRS[case](device)
    with pytest.raises(RuntimeError) as real:
        OP_PACKET(a, b)
    with FakeTensorMode() as mode, pytest.raises(RuntimeError) as fake:
        OP_PACKET(mode.from_tensor(a), mode.from_tensor(b))
    assert str(fake.value) == str(real.value)


# ---- bad input: a Python exception that names the argument and what was expected ---------------


def test_shapes_that_do_not_broadcast(device: str) -> None:
    with pytest.raises(RuntimeError) as info:
        op(torch.ones(3, 4, device=device), torch.ones(4, 3, device=device))
    assert str(info.value) == (
        f"{QUALNAME}(): expected the shapes of a and b to broadcast, but a: [3, 4] and b: "
        "[4, 3] differ in dim 0 of the result (3 and 4), where neither is 1"
    )
    with pytest.raises(RuntimeError, match=r"a: \[2, 3\] and b: \[5, 1, 4\] differ in dim 2"):
        op(torch.ones(2, 3, device=device), torch.ones(5, 1, 4, device=device))


DTYPE_MESSAGE = (
    QUALNAME + "(): expected {which} to be a float16, bfloat16, float32 or float64 tensor, but "
    "got torch.{dtype}; {fix}"
)
CONVERT = "convert it first, e.g. {which}.to(torch.float32)"
REAL_VIEW = "pass its real and imaginary parts as a real tensor, e.g. torch.view_as_real({which})"
UNPACK = "torch cannot convert it, so unpack it to one of those first"
# The dtypes a user most likely passes, each with the fix its message gives.
NAMED_DTYPES = {
    "int32": CONVERT,
    "int64": CONVERT,
    "uint8": CONVERT,
    "uint16": CONVERT,
    "bool": CONVERT,
    "complex64": REAL_VIEW,
    "complex128": REAL_VIEW,
    "float8_e4m3fn": CONVERT,
    "float8_e5m2": CONVERT,
    "float4_e2m1fn_x2": UNPACK,
}


def _zeros(dtype: torch.dtype, device: str) -> torch.Tensor:
    # Through uint8, so that dtypes that torch cannot fill (bits8, uint4, ...) can be made too.
    return torch.zeros(3 * dtype.itemsize, dtype=torch.uint8, device=device).view(dtype)


@pytest.mark.parametrize("dtype", list(NAMED_DTYPES))
@pytest.mark.parametrize("which", ["a", "b"])
def test_unsupported_dtype(call: Op, device: str, dtype: str, which: str) -> None:
    # A float op: integer, bool, complex and float8 tensors are refused, naming the argument and
    # the dtype as torch prints it, even where the twin would promote them to a floating result.
    if not hasattr(torch, dtype):
        pytest.skip(f"this torch has no torch.{dtype}")
    args = {"a": torch.ones(3, device=device), "b": torch.ones(3, device=device)}
    args[which] = _zeros(getattr(torch, dtype), device)
    with pytest.raises(RuntimeError) as info:
        call(args["a"], args["b"])
    assert type(info.value) is RuntimeError
    fix = NAMED_DTYPES[dtype].format(which=which)
    assert str(info.value) == DTYPE_MESSAGE.format(which=which, dtype=dtype, fix=fix)


QUANTIZED = {torch.qint8, torch.quint8, torch.qint32, torch.quint4x2, torch.quint2x4}
OTHER_DTYPES = sorted(
    {v for v in vars(torch).values() if isinstance(v, torch.dtype)} - set(FLOAT_DTYPES) - QUANTIZED,
    key=str,
)


@pytest.mark.parametrize("dtype", OTHER_DTYPES)
@pytest.mark.parametrize("which", ["a", "b"])
@pytest.mark.filterwarnings("ignore:(ComplexHalf|BComplex32) support is experimental")
def test_every_dtype_in_torchs_words(device: str, dtype: torch.dtype, which: str) -> None:
    # Every dtype this torch has (quantized ones are not dense: test_not_dense): the op names it
    # as Python prints it (names.cpp keeps a table by code), the fake kernel in the same words,
    # and the fix it gives works, or, for packed data, torch indeed cannot convert it.
    args = {"a": torch.ones(3, device=device), "b": torch.ones(3, device=device)}
    args[which] = _zeros(dtype, device)
    with pytest.raises(RuntimeError) as real:
        OP_PACKET(args["a"], args["b"])
    message = str(real.value)
    if "a dtype unknown to this build" in message:
        pytest.skip(f"{dtype} is newer than the torch this build's dtype names come from")
    assert f"tensor, but got {dtype}; " in message
    with FakeTensorMode() as mode, pytest.raises(RuntimeError) as fake:
        OP_PACKET(mode.from_tensor(args["a"]), mode.from_tensor(args["b"]))
    assert str(fake.value) == message
    if message.endswith(CONVERT.format(which=which)):
        args[which] = args[which].to(torch.float32)
    elif message.endswith(REAL_VIEW.format(which=which)):
        args[which] = torch.view_as_real(args[which])
        args["b" if which == "a" else "a"] = torch.ones(3, 2, device=device)
    else:
        assert message.endswith(UNPACK)
        # On CUDA torch tries the conversion in a kernel, whose device-side assert would poison
        # the context for every later test: the CPU's refusal stands for both.
        packed = _zeros(dtype, "cpu")
        with pytest.raises((RuntimeError, NotImplementedError)):
            packed.to(torch.float32)
        return
    assert_bitwise_equal(op(args["a"], args["b"]), reference(args["a"], args["b"]))


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


@pytest.mark.parametrize("call", [op, OP_PACKET], ids=["public", "torch.ops"])
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
        f"{QUALNAME}(): expected {which} to be a dense (torch.strided) tensor, but got "
        f"{what}; convert it with {conversion} first"
    )
    assert capfd.readouterr().err == ""  # nothing on stderr, from torch's shim or anyone else
    # The advice, run as written, gives a tensor the op takes.
    args[which] = eval(f"t{conversion}", {"t": args[which]})
    assert_bitwise_equal(call(args["a"], args["b"]), reference(args["a"], args["b"]))


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
        op(a, b)


def test_allocation_failure_is_an_exception() -> None:
    # The output of this stride-0 view needs 4 PiB: the allocation fails inside torch, the error
    # crosses the stable ABI as a code and must come back as an exception, not a crash (a module
    # with a private static libstdc++ used to segfault here).
    a = torch.ones(1).expand(2**50)
    with pytest.raises(RuntimeError) as info:
        op(a, a)
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


# ---- not a tensor: the public call's TypeError; through torch.ops, the dispatcher's words -----

NONE_MESSAGE = QUALNAME + "(): expected {named} to be a Tensor, but got None; pass a tensor"


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
    wrapper: Op,
    a: torch.Tensor | None,
    b: torch.Tensor | None,
    named: str,
    capfd: pytest.CaptureFixture[str],
) -> None:
    # The public call: a TypeError. torch.ops: the schema takes None as an undefined tensor, which
    # the op refuses in the same words; from C++ that can only be a RuntimeError.
    with pytest.raises(TypeError) as info:
        wrapper(a, b)
    assert type(info.value) is TypeError
    assert str(info.value) == NONE_MESSAGE.format(named=named)
    with pytest.raises(RuntimeError) as info:
        OP_PACKET(a, b)
    assert type(info.value) is RuntimeError
    assert str(info.value) == NONE_MESSAGE.format(named=named)
    assert capfd.readouterr().err == ""  # no C++ stack trace on stderr


def test_none_in_the_fake_kernel() -> None:
    # What torch.compile traces torch.ops.sum_double.<NAME> with: check_inputs()'s words.
    with FakeTensorMode() as mode, pytest.raises(RuntimeError) as info:
        OP_PACKET(mode.from_tensor(torch.ones(3)), None)
    assert str(info.value) == NONE_MESSAGE.format(named="b")


AS_TENSOR = "torch.as_tensor({named}, dtype={other}.dtype, device={other}.device)"
# What a user passes instead of a tensor: what the message calls it, and the tensor it advises.
NOT_TENSORS = [
    pytest.param([1.0, 2.0, 3.0], "a Python list", AS_TENSOR, id="list"),
    pytest.param((1.0, 2.0, 3.0), "a Python tuple", AS_TENSOR, id="tuple"),
    pytest.param(np.arange(3.0), "a numpy.ndarray", AS_TENSOR, id="ndarray"),
    pytest.param(
        1.5,
        "a Python float",
        "torch.tensor(1.5, dtype={other}.dtype, device={other}.device)",
        id="float",
    ),
    pytest.param(
        2, "a Python int", "torch.tensor(2, dtype={other}.dtype, device={other}.device)", id="int"
    ),
    pytest.param(
        True,
        "a Python bool",
        "torch.tensor(True, dtype={other}.dtype, device={other}.device)",
        id="bool",
    ),
    pytest.param(
        1j,
        "a Python complex",
        "torch.tensor(0.0, dtype={other}.dtype, device={other}.device)",
        id="complex",
    ),
    pytest.param("1.0", "a Python str", None, id="str"),
]


@pytest.mark.parametrize(("value", "kind", "advice"), NOT_TENSORS)
@pytest.mark.parametrize("named", ["a", "b"])
def test_not_a_tensor_is_named_with_the_fix(
    wrapper: Op, device: str, value: object, kind: str, advice: str | None, named: str
) -> None:
    # The twin's rules for Python numbers (wrapped numbers) and sequences are not followed: the
    # message says what was passed and which tensor to pass instead.
    other = "b" if named == "a" else "a"
    args: dict[str, object] = {other: torch.arange(3.0, device=device), named: value}
    with pytest.raises(TypeError) as info:
        wrapper(args["a"], args["b"])
    assert type(info.value) is TypeError
    expected = f"{QUALNAME}(): expected {named} to be a Tensor, but got {kind}; pass a tensor"
    if isinstance(value, complex):
        expected += " of its real part (the op takes real numbers)"
    if advice is not None:
        advice = advice.format(named=named, other=other)
        expected += f", e.g. {advice}"
    assert str(info.value) == expected
    if advice is None:
        return  # nothing to run
    # The advice, run as written, gives a tensor the op takes.
    args[named] = eval(advice, {"torch": torch, **args})
    assert_bitwise_equal(wrapper(args["a"], args["b"]), reference(args["a"], args["b"]))


@pytest.mark.parametrize(("value", "kind", "advice"), NOT_TENSORS)
def test_not_a_tensor_through_torch_ops_gets_the_schemas_words(
    value: object, kind: str, advice: str | None
) -> None:
    # The dispatcher checks arguments against the schema before any of the op's code runs, and
    # words the error itself (docs/limits.md).
    with pytest.raises(RuntimeError, match="Expected a value of type 'Tensor' for argument 'b'"):
        OP_PACKET(torch.ones(3), value)


def test_neither_is_a_tensor() -> None:
    # No tensor to take dtype and device from: the advice makes a tensor of the value alone.
    with pytest.raises(TypeError) as info:
        op(2.0, [1.0])
    assert str(info.value) == (
        f"{QUALNAME}(): expected a to be a Tensor, but got a Python float; pass a tensor, "
        "e.g. torch.tensor(2.0)"
    )
    with pytest.raises(TypeError) as info:
        op([1.0], None)
    assert str(info.value) == (
        f"{QUALNAME}(): expected a to be a Tensor, but got a Python list; pass a tensor, "
        "e.g. torch.as_tensor(a)"
    )


def test_fx_proxies_still_record_the_op() -> None:
    # An FX Proxy is no Tensor, but takes torch functions itself: the op records itself, as
    # before, rather than being refused.
    traced = torch.fx.symbolic_trace(lambda a, b: op(a, b))
    assert any(node.target is OP for node in traced.graph.nodes)
    a, b = torch.randn(5), torch.randn(5)
    assert_bitwise_equal(traced(a, b), reference(a, b))


# ---- torch.compile(fullgraph=True): the same words, inside Dynamo's own exception ---------------

T = torch.ones(3)
COMPILED_CASES = [
    pytest.param((T, None), {}, NONE_MESSAGE.format(named="b"), id="None"),
    pytest.param(
        ([1.0, 2.0, 3.0], T),
        {},
        f"{QUALNAME}(): expected a to be a Tensor, but got a Python list; pass a tensor, e.g. "
        + AS_TENSOR.format(named="a", other="b"),
        id="list",
    ),
    pytest.param(
        (np.ones(3), T),
        {},
        f"{QUALNAME}(): expected a to be a Tensor, but got a numpy.ndarray; pass a tensor, "
        "e.g. " + AS_TENSOR.format(named="a", other="b"),
        id="ndarray",
    ),
    pytest.param(
        (2.0, T),
        {},
        f"{QUALNAME}(): expected a to be a Tensor, but got a Python float; pass a tensor, e.g. "
        "torch.tensor(2.0, dtype=b.dtype, device=b.device)",
        id="float",
    ),
    pytest.param(
        (T.long(), T),
        {},
        DTYPE_MESSAGE.format(which="a", dtype="int64", fix=CONVERT.format(which="a")),
        id="int64",
    ),
    pytest.param(
        (T, T.bool()),
        {},
        DTYPE_MESSAGE.format(which="b", dtype="bool", fix=CONVERT.format(which="b")),
        id="bool",
    ),
    pytest.param(
        (T.to(torch.complex64), T),
        {},
        DTYPE_MESSAGE.format(which="a", dtype="complex64", fix=REAL_VIEW.format(which="a")),
        id="complex64",
    ),
]
if FLOAT8_E4M3FN is not None:
    COMPILED_CASES.append(
        pytest.param(
            (T.to(FLOAT8_E4M3FN), T),
            {},
            DTYPE_MESSAGE.format(which="a", dtype="float8_e4m3fn", fix=CONVERT.format(which="a")),
            id="float8_e4m3fn",
        )
    )


@pytest.mark.parametrize(("args", "kwargs", "message"), COMPILED_CASES)
def test_compiled_calls_refuse_in_the_same_words(
    args: tuple[object, ...], kwargs: dict[str, object], message: str
) -> None:
    # Dynamo raises its own exception (a RuntimeError) with the error it traced quoted inside:
    # the public call's TypeError, or the fake kernel's RuntimeError.
    torch._dynamo.reset()
    compiled = torch.compile(op, fullgraph=True)
    with pytest.raises(RuntimeError) as info:
        compiled(*args, **kwargs)
    assert isinstance(info.value, torch._dynamo.exc.TorchDynamoException)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param((None, T), NONE_MESSAGE.format(named="a"), id="None"),
        pytest.param(
            (T, T.long()),
            DTYPE_MESSAGE.format(which="b", dtype="int64", fix=CONVERT.format(which="b")),
            id="int64",
        ),
    ],
)
def test_compiled_op_refuses_in_the_same_words(args: tuple[object, ...], message: str) -> None:
    # Graphs call the op itself: its fake kernel refuses while tracing, in check_inputs()'s words.
    torch._dynamo.reset()
    compiled = torch.compile(OP, fullgraph=True)
    with pytest.raises(RuntimeError) as info:
        compiled(*args)
    assert isinstance(info.value, torch._dynamo.exc.TorchDynamoException)
    assert message in str(info.value)


@pytest.mark.cuda
@pytest.mark.parametrize("cpu_arg", ["a", "b"])
def test_cpu_and_cuda_mismatch(cpu_arg: str) -> None:
    args = {"a": torch.ones(3, device="cuda"), "b": torch.ones(3, device="cuda")}
    args[cpu_arg] = args[cpu_arg].cpu()
    with pytest.raises(RuntimeError, match=r"same device.*(cpu.*cuda:0|cuda:0.*cpu)"):
        op(args["a"], args["b"])


@pytest.mark.cuda
@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA devices")
def test_two_cuda_devices_mismatch() -> None:
    with pytest.raises(RuntimeError, match="a on cuda:0 and b on cuda:1"):
        op(torch.ones(3, device="cuda:0"), torch.ones(3, device="cuda:1"))


@pytest.mark.skipif(HAS_CUDA and not sum_double._C.cpu_only, reason="checks a CPU-only build")
@pytest.mark.cuda_device
def test_cuda_tensor_on_cpu_only_build() -> None:
    with pytest.raises(RuntimeError, match="built CPU-only"):
        op(torch.ones(3, device="cuda"), torch.ones(3, device="cuda"))
