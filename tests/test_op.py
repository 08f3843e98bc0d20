"""The op against its reference (tests/reference.py): values of every dtype and pair, shapes,
special values, the CPU thread split. Views of any strides: test_views.py; bad input:
test_errors.py."""

import pytest
import torch

import sum_double

from reference import reference
from support import (
    FLOAT_DTYPES,
    OP_PACKET,
    assert_bitwise_equal,
    check_op,
    op,
    poisoned_allocations,
)

SHAPES = [(), (1,), (7,), (33,), (1000,), (3, 5), (2, 3, 4, 5), (1, 1, 1), (2**16 + 3,)]


def rand(shape: tuple[int, ...], dtype: torch.dtype, device: str) -> torch.Tensor:
    return torch.randn(shape, dtype=dtype, device=device)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_matches_the_reference(device: str, dtype: torch.dtype, shape: tuple[int, ...]) -> None:
    check_op(rand(shape, dtype, device), rand(shape, dtype, device))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_poison_reaches_new_tensors(device: str, dtype: torch.dtype) -> None:
    # Guards the guard: if poisoning stopped working, check_op could pass on stale memory.
    with poisoned_allocations():
        fresh = torch.empty_strided((1000,), (1,), dtype=dtype, device=device)
    assert fresh.isnan().all()


def test_both_routes_and_the_alias_agree(device: str) -> None:
    a, b = rand((100,), torch.float32, device), rand((100,), torch.float32, device)
    ref = reference(a, b)
    assert_bitwise_equal(OP_PACKET(a, b), ref)
    assert_bitwise_equal(sum_double.sum_double_op(a, b), ref)
    with torch.no_grad():
        assert_bitwise_equal(op(a.requires_grad_(), b), ref)


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
    check_op(a, b)
    # One strided, one dense, and new values (the same results again could match stale memory).
    check_op(a, make(rand((64, 48), dtype, device)).contiguous())


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("offset", [1, 3])  # odd: never a multiple of 16 bytes, even for float64
@pytest.mark.parametrize("n", [1, 7, 33, 1000, 4099])
def test_contiguous_views_off_a_16_byte_boundary(
    device: str, dtype: torch.dtype, offset: int, n: int
) -> None:
    # Contiguous, so nothing is copied, but not 16-byte aligned: the kernel cannot use 128-bit
    # accesses on a and b, and must still compute every element, tail included.
    a = rand((n + offset,), dtype, device)[offset:]
    b = rand((n + offset,), dtype, device)[offset:]
    assert a.is_contiguous()
    assert a.data_ptr() % 16 != 0
    check_op(a, b)
    check_op(a, rand((n,), dtype, device))  # one aligned, one not


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 5, 2)], ids=str)
def test_empty(device: str, shape: tuple[int, ...]) -> None:
    out = check_op(rand(shape, torch.float32, device), rand(shape, torch.float32, device))
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
    check_op(a, b)


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
    # dtype), shape broadcast, strides and bits the reference's: check_op compares all of them.
    a_shape, b_shape = shapes
    out = check_op(rand(a_shape, a_dtype, device) * 100, rand(b_shape, b_dtype, device) * 100)
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
    check_op(x.repeat_interleave(len(y)), y.repeat(len(x)))
    check_op(x[:, None], y[None, :])  # the same pairs by broadcasting
    # Each as a 0-dim tensor beside a dimensioned one: rounded to the other's dtype first when
    # wider (the op converts it in registers, as torch's cast does).
    for value in x:
        check_op(value.clone(), y)
    for value in y:
        check_op(x, value.clone())


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
        check_op(value.to(device), b)
        check_op(b, value.to(device))


def test_cpu_threads_split_the_range() -> None:
    # Large enough to be split across torch's intra-op pool (grain 32768): the pieces must tile.
    n = 5 * 32768 + 17
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(4)
        check_op(rand((n,), torch.float32, "cpu"), rand((n,), torch.float32, "cpu"))
    finally:
        torch.set_num_threads(threads)


@pytest.mark.cuda
@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA devices")
def test_second_device_while_first_is_current() -> None:
    with torch.cuda.device(0):
        check_op(rand((10_000,), torch.float32, "cuda:1"), rand((10_000,), torch.float32, "cuda:1"))
