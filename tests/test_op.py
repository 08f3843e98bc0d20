"""torch.ops.sum_double.add against torch.add: values, layouts, special values, bad input."""

from collections.abc import Callable

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch._subclasses.fake_tensor import FakeTensorMode

import sum_double
from support import (
    FLOAT_DTYPES,
    HAS_CUDA,
    TORCH_REASON_CROSSES,
    assert_bitwise_equal,
    poisoned_allocations,
)

SHAPES = [(), (1,), (7,), (33,), (1000,), (3, 5), (2, 3, 4, 5), (1, 1, 1), (2**16 + 3,)]


def rand(shape: tuple[int, ...], dtype: torch.dtype, device: str) -> torch.Tensor:
    return torch.randn(shape, dtype=dtype, device=device)


def check_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """sum_double.add(a, b) is torch.add(a, b): values (bits), dtype, shape and strides."""
    ref = torch.add(a, b)
    with poisoned_allocations():
        out = sum_double.add(a, b)
    assert_bitwise_equal(out, ref)
    assert out.stride() == ref.stride()
    assert out.data_ptr() not in (a.data_ptr(), b.data_ptr()) or out.numel() == 0
    return out


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_matches_torch_add(device: str, dtype: torch.dtype, shape: tuple[int, ...]) -> None:
    check_add(rand(shape, dtype, device), rand(shape, dtype, device))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_poison_reaches_new_tensors(device: str, dtype: torch.dtype) -> None:
    # Guards the guard: if poisoning stopped working, check_add could pass on stale memory.
    with poisoned_allocations():
        fresh = torch.empty_strided((1000,), (1,), dtype=dtype, device=device)
    assert fresh.isnan().all()


def test_both_routes_and_the_alias_agree(device: str) -> None:
    a, b = rand((100,), torch.float32, device), rand((100,), torch.float32, device)
    ref = torch.add(a, b)
    assert_bitwise_equal(torch.ops.sum_double.add(a, b), ref)
    assert_bitwise_equal(sum_double.sum_double_op(a, b), ref)
    with torch.no_grad():
        assert_bitwise_equal(sum_double.add(a.requires_grad_(), b), ref)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda t: t.t(), id="transposed"),
        pytest.param(lambda t: t[::2, 1::3], id="stepped-slice"),
        pytest.param(lambda t: t[1:, 2:], id="storage-offset"),
        pytest.param(lambda t: t[:1].expand(t.shape[0], -1), id="stride-0-expanded"),
        pytest.param(lambda t: t.flatten()[1:].view(-1, 1).expand(-1, 3), id="misaligned-expand"),
        pytest.param(
            lambda t: t.unsqueeze(0).unsqueeze(-1).contiguous(memory_format=torch.channels_last),
            id="channels-last",
        ),
    ],
)
def test_strided_inputs(device: str, dtype: torch.dtype, make) -> None:
    a = make(rand((64, 48), dtype, device))
    b = make(rand((64, 48), dtype, device))
    assert not a.is_contiguous()
    check_add(a, b)
    # One strided, one dense, and new values (the same sums again could match stale memory).
    check_add(a, make(rand((64, 48), dtype, device)).contiguous())


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("offset", [1, 3])  # odd: never a multiple of 16 bytes, even for float64
@pytest.mark.parametrize("n", [1, 7, 33, 1000, 4099])
def test_contiguous_views_off_a_16_byte_boundary(
    device: str, dtype: torch.dtype, offset: int, n: int
) -> None:
    # Contiguous, so nothing is copied, but not 16-byte aligned: the kernel cannot use 128-bit
    # accesses on a and b, and must still add every element, tail included.
    a = rand((n + offset,), dtype, device)[offset:]
    b = rand((n + offset,), dtype, device)[offset:]
    assert a.is_contiguous()
    assert a.data_ptr() % 16 != 0
    check_add(a, b)
    check_add(a, rand((n,), dtype, device))  # one aligned, one not


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 5, 2)], ids=str)
def test_empty(device: str, shape: tuple[int, ...]) -> None:
    out = check_add(rand(shape, torch.float32, device), rand(shape, torch.float32, device))
    assert out.shape == shape


def special_values(dtype: torch.dtype) -> list[float]:
    info = torch.finfo(dtype)
    return [
        0.0,
        -0.0,
        float("inf"),
        float("-inf"),
        float("nan"),
        info.max,
        -info.max,
        info.tiny,
        -info.tiny,
        info.smallest_normal / 4,
        info.eps,
        1.0,
        -1.0,
    ]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_special_values(device: str, dtype: torch.dtype) -> None:
    special = special_values(dtype)
    values = torch.tensor(special, dtype=dtype, device=device)
    a = values.repeat_interleave(len(special))  # every pair (x, y), overflow and -0 included
    b = values.repeat(len(special))
    check_add(a, b)


# (a's shape, b's shape): same shape, a bias, leading dims missing, size-1 dims both ways, 0-dim
# on either side or both, size-0 dims broadcast against 1.
BROADCASTS = [
    ((6, 5), (6, 5)),
    ((2, 3, 8), (8,)),
    ((8,), (2, 3, 8)),
    ((4, 1), (1, 7)),
    ((3, 1, 5), (4, 1)),
    ((), (5, 3)),
    ((5, 3), ()),
    ((), ()),
    ((1,), ()),
    ((0, 3), (3,)),
    ((2, 0, 1), (1, 4)),
    ((1,), (0,)),
    ((2**16 + 3,), (1,)),
]


@pytest.mark.parametrize("b_dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("a_dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
def test_every_dtype_pair_and_broadcast(
    device: str, a_dtype: torch.dtype, b_dtype: torch.dtype, shapes: tuple
) -> None:
    # Result dtype torch.result_type(a, b) (a 0-dim tensor does not raise a dimensioned one's
    # dtype), shape broadcast, strides and bits torch.add's: check_add compares all of them.
    a_shape, b_shape = shapes
    out = check_add(rand(a_shape, a_dtype, device) * 100, rand(b_shape, b_dtype, device) * 100)
    assert out.dtype == torch.result_type(
        torch.empty(a_shape, dtype=a_dtype), torch.empty(b_shape, dtype=b_dtype)
    )


@pytest.mark.parametrize("b_dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("a_dtype", FLOAT_DTYPES)
def test_special_values_of_every_dtype_pair(
    device: str, a_dtype: torch.dtype, b_dtype: torch.dtype
) -> None:
    # Every special value of a's dtype against every one of b's: overflow of the narrower in the
    # wider, subnormals, signed zeros, NaN and infinities in each type's own range.
    x = torch.tensor(special_values(a_dtype), dtype=a_dtype, device=device)
    y = torch.tensor(special_values(b_dtype), dtype=b_dtype, device=device)
    check_add(x.repeat_interleave(len(y)), y.repeat(len(x)))
    check_add(x[:, None], y[None, :])  # the same pairs by broadcasting
    # Each as a 0-dim tensor beside a dimensioned one: rounded to the other's dtype first when
    # wider (the op converts it in registers, as torch's cast does).
    for value in x:
        check_add(value.clone(), y)
    for value in y:
        check_add(x, value.clone())


WIDER_THAN = [
    (wide, narrow)
    for narrow in (torch.float16, torch.bfloat16, torch.float32)
    for wide in FLOAT_DTYPES
    if wide != narrow and torch.promote_types(wide, narrow) != narrow
]


@pytest.mark.parametrize(("wide", "narrow"), WIDER_THAN, ids=str)
def test_a_wider_0_dim_input_is_rounded_as_torch_rounds_it(
    device: str, wide: torch.dtype, narrow: torch.dtype
) -> None:
    # Values next to, on and between the narrow type's rounding ties, where rounding straight
    # from float64 and rounding through float32 (as c10's casts do) can differ.
    grid = torch.randn(4000, dtype=torch.float64) * 8
    info = torch.finfo(narrow)
    ties = torch.nextafter(
        grid.to(narrow).double(), torch.tensor(float("inf"), dtype=torch.float64)
    )
    candidates = torch.cat([grid, (grid.to(narrow).double() + ties) / 2, ties, grid * info.eps])
    b = rand((64,), narrow, device)
    for value in candidates.to(wide)[::37]:
        check_add(value.to(device), b)
        check_add(b, value.to(device))


def test_cpu_threads_split_the_range() -> None:
    # Large enough to be split across torch's intra-op pool (grain 32768): the pieces must tile.
    n = 5 * 32768 + 17
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(4)
        check_add(rand((n,), torch.float32, "cpu"), rand((n,), torch.float32, "cpu"))
    finally:
        torch.set_num_threads(threads)


def draw_view(draw: st.DrawFn, shape: list[int], dtype: torch.dtype, device: str) -> torch.Tensor:
    """A tensor of `shape` that is an arbitrary view: permuted, sliced, offset, expanded."""
    # Start bigger than needed, then slice with steps and offsets down to `shape`.
    steps = [draw(st.integers(1, 3)) for _ in shape]
    starts = [draw(st.integers(0, 2)) for _ in shape]
    base = torch.randn(
        [st_ + s * k + 1 for s, k, st_ in zip(shape, steps, starts, strict=True)],
        dtype=dtype,
        device=device,
    )
    t = base[
        tuple(slice(st_, st_ + s * k, k) for s, k, st_ in zip(shape, steps, starts, strict=True))
    ]
    if t.dim() > 1 and draw(st.booleans()):
        perm = draw(st.permutations(range(t.dim())))
        # Same shape, but the memory order of the dims is `perm`.
        t = t.permute(*perm).contiguous().permute(*[perm.index(d) for d in range(t.dim())])
    if t.dim() and draw(st.booleans()):
        # Broadcast one element along a dim: stride 0, every element read many times.
        d = draw(st.integers(0, t.dim() - 1))
        if t.shape[d]:
            t = t.narrow(d, 0, 1).expand(t.shape)
    return t


# The profile's own suppressions (conftest.py) and the fixture one: a test's list replaces the
# profile's.
VIEW_HEALTH_CHECKS = [*settings.default.suppress_health_check, HealthCheck.function_scoped_fixture]


@st.composite
def strided_pairs(draw: st.DrawFn, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Two same-shape tensors of one dtype, each an arbitrary view."""
    dtype = draw(st.sampled_from(FLOAT_DTYPES))
    shape = draw(st.lists(st.integers(0, 6), min_size=0, max_size=4))
    return draw_view(draw, shape, dtype, device), draw_view(draw, shape, dtype, device)


@st.composite
def broadcast_pairs(draw: st.DrawFn, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Two tensors whose shapes broadcast (leading dims missing, dims of size 1, 0-dim), each of
    any floating dtype and an arbitrary view."""
    shape = draw(st.lists(st.integers(0, 5), min_size=0, max_size=4))

    def operand() -> torch.Tensor:
        kept = shape[len(shape) - draw(st.integers(0, len(shape))) :]
        mine = [1 if draw(st.integers(0, 3)) == 0 else s for s in kept]
        return draw_view(draw, mine, draw(st.sampled_from(FLOAT_DTYPES)), device)

    return operand(), operand()


# `device` is a plain string, so reusing it across examples is safe.
@settings(deadline=None, suppress_health_check=VIEW_HEALTH_CHECKS)
@given(data=st.data())
def test_any_view_matches_torch_add(device: str, data: st.DataObject) -> None:
    check_add(*data.draw(strided_pairs(device)))


# `device` is a plain string, so reusing it across examples is safe.
@settings(deadline=None, suppress_health_check=VIEW_HEALTH_CHECKS)
@given(data=st.data())
def test_any_broadcast_and_dtypes_match_torch_add(device: str, data: st.DataObject) -> None:
    check_add(*data.draw(broadcast_pairs(device)))


# `device` is a plain string, so reusing it across examples is safe.
@settings(deadline=None, suppress_health_check=VIEW_HEALTH_CHECKS)
@given(data=st.data())
def test_fake_kernel_predicts_the_real_output(device: str, data: st.DataObject) -> None:
    # torch.compile plans memory from the fake kernel: its shape, dtype and strides must be the
    # real kernel's, for every layout rule the C++ side applies.
    a, b = data.draw(st.one_of(strided_pairs(device), broadcast_pairs(device)))
    real = sum_double.add(a, b)
    with FakeTensorMode() as mode:
        fake = torch.ops.sum_double.add(mode.from_tensor(a), mode.from_tensor(b))
    assert (fake.shape, fake.dtype, fake.stride()) == (real.shape, real.dtype, real.stride())


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


@pytest.mark.cuda
@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA devices")
def test_second_device_while_first_is_current() -> None:
    with torch.cuda.device(0):
        check_add(
            rand((10_000,), torch.float32, "cuda:1"), rand((10_000,), torch.float32, "cuda:1")
        )


@pytest.mark.skipif(HAS_CUDA and not sum_double._C.cpu_only, reason="checks a CPU-only build")
@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device to make a CUDA tensor")
def test_cuda_tensor_on_cpu_only_build() -> None:
    with pytest.raises(RuntimeError, match="built CPU-only"):
        sum_double.add(torch.ones(3, device="cuda"), torch.ones(3, device="cuda"))
