"""out=, as the twin has it (src/sum_double/_out.py, src/ops/out_arg.cpp): the result written into
a given tensor, bit for bit as the twin's out= writes it, whatever out's dtype, strides or shape;
the same refusals; the version counter; torch.compile, torch.export and fake tensors."""

import gc
import re
import warnings
import weakref
from collections.abc import Callable

import pytest
import torch
import torch.autograd.forward_ad as fwAD
from torch import Tensor

from reference import TWIN, as_read
from support import (
    FLOAT_DTYPES,
    IGNORE_TORCH_LEAFSPEC,
    MIXED_AND_BROADCAST,
    OP_PACKET,
    QUALNAME,
    assert_bitwise_equal,
    op,
)

OUT = OP_PACKET.out
CALLS = {
    "public": lambda a, b, out: op(a, b, out=out),
    "torch.ops": lambda a, b, out: OUT(a, b, out=out),
}

# out's layouts, made from a tensor of the result's shape: each keeps the elements it does not
# cover (the slices' neighbours) for the test to check.
LAYOUTS: dict[str, Callable[[Tensor], Tensor]] = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.transpose(0, -1).contiguous().transpose(0, -1),
    "stepped": lambda t: t.repeat_interleave(2, dim=-1)[..., ::2],
    "offset": lambda t: torch.cat([t.flatten(), t.flatten()])[t.numel() :].view(t.shape),
}


def poisoned(
    shape: torch.Size, dtype: torch.dtype, device: str, layout: str = "contiguous"
) -> Tensor:
    """out as a caller passes it, every element NaN: an element the op fails to write shows."""
    return LAYOUTS[layout](torch.full(shape, float("nan"), dtype=dtype, device=device))


def twin_out(a: Tensor, b: Tensor, out: Tensor) -> Tensor:
    """The twin's out= into a copy of ``out`` with out's strides (of the inputs as the op reads
    them): the reference."""
    ref = torch.empty_strided(out.shape, out.stride(), dtype=out.dtype, device=out.device)
    ref.copy_(out)
    return TWIN(*as_read(a, b), out=ref)


def check_out(call: Callable[..., Tensor], a: Tensor, b: Tensor, out: Tensor) -> None:
    """``call(a, b, out)`` writes the reference into out, in place, and returns out itself."""
    ref = twin_out(a, b, out)
    base, pointer, stride = out._base, out.data_ptr(), out.stride()
    assert call(a, b, out) is out
    assert (out.data_ptr(), out.stride()) == (pointer, stride)
    if out.dtype.is_complex:
        out, ref = torch.view_as_real(out), torch.view_as_real(ref)
    assert_bitwise_equal(out, ref)
    if base is not None:  # the elements out does not cover are untouched
        assert base.isnan().sum() == base.numel() - out.numel()


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_writes_the_reference_in_place(
    device: str, call: str, layout: str, dtype: torch.dtype
) -> None:
    a, b = (torch.randn(3, 4, 5, dtype=dtype, device=device) for _ in range(2))
    check_out(CALLS[call], a, b, poisoned(a.shape, dtype, device, layout))


@pytest.mark.parametrize(("a_spec", "b_spec"), MIXED_AND_BROADCAST)
@pytest.mark.parametrize("out_dtype", [*FLOAT_DTYPES, torch.complex64])
def test_mixed_and_broadcast_into_any_floating_dtype(
    device: str, a_spec: tuple, b_spec: tuple, out_dtype: torch.dtype
) -> None:
    # Another dtype than the result's: the result is rounded to its own dtype, then cast to out's.
    (a_shape, a_dtype), (b_shape, b_dtype) = a_spec, b_spec
    a = torch.randn(a_shape, dtype=a_dtype, device=device)
    b = torch.randn(b_shape, dtype=b_dtype, device=device)
    shape = torch.broadcast_shapes(a.shape, b.shape)
    for call in CALLS.values():
        check_out(call, a, b, poisoned(shape, out_dtype, device))


def test_out_may_be_an_input(device: str) -> None:
    a, b = torch.randn(4, 5, device=device), torch.randn(5, device=device)
    ref = TWIN(a, b)
    assert op(a, b, out=a) is a
    assert_bitwise_equal(a, ref)


def _warnings(call: Callable[[], object]) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught]


@pytest.mark.parametrize("elements", [0, 3], ids=["empty", "with-elements"])
def test_a_wrongly_shaped_out_is_resized_as_the_twin_resizes_it(device: str, elements: int) -> None:
    # Transposed inputs: a resized out gets the strides the twin gives a new result.
    a = torch.randn(5, 4, device=device).t()
    b = torch.randn(5, 4, device=device).t()
    out, ref = torch.empty(elements, device=device), torch.empty(elements, device=device)
    said = _warnings(lambda: op(a, b, out=out))
    twin_said = _warnings(lambda: TWIN(a, b, out=ref))
    assert_bitwise_equal(out, ref)
    assert out.stride() == ref.stride()
    assert len(said) == len(twin_said) == (1 if elements else 0)
    # The twin's warning ends with where in its C++ it was raised.
    assert all(t.startswith(s) for s, t in zip(said, twin_said, strict=True))


@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference_mode"])
@pytest.mark.parametrize("call", CALLS)
def test_the_version_counter_counts_the_write(device: str, call: str, mode: str) -> None:
    # As for the twin: autograd then knows that a tensor it saved has changed.
    a = torch.randn(3, device=device)
    out, twin = torch.empty(3, device=device), torch.empty(3, device=device)
    with getattr(torch, mode)() if mode != "grad" else torch.enable_grad():
        CALLS[call](a, a, out)
        TWIN(a, a, out=twin)
    assert out._version == twin._version == 1


def test_a_resized_out_counts_versions_too(device: str) -> None:
    # More than the twin's one: the resize is torch's own ops, each counted (docs/limits.md).
    a = torch.randn(2, 3, device=device)
    out = torch.empty(0, device=device)
    op(a, a, out=out)
    assert out._version >= 1


# out's the twin refuses: of the result's shape (2, 3), or of another that would be resized.
REFUSALS = {
    "integer-out": (
        lambda d, shape: torch.zeros(shape, dtype=torch.int64, device=d),
        "expected out to be a floating or complex tensor, which the result (torch.float32) can be "
        "cast to, but got torch.int64",
    ),
    "bool-out": (
        lambda d, shape: torch.zeros(shape, dtype=torch.bool, device=d),
        "expected out to be a floating or complex tensor",
    ),
    "expanded-out": (
        lambda d, shape: torch.zeros(1, device=d).expand(shape),
        "expected out to hold each of its elements once, but its dim 0 has stride 0",
    ),
    "meta-out": (
        lambda d, shape: torch.empty(shape, device="meta"),
        "expected out on {device}, the device of a and b, but got out on meta",
    ),
}


@pytest.mark.parametrize("shape", [(2, 3), (5,)], ids=["result-shape", "resized"])
@pytest.mark.parametrize("case", REFUSALS)
@pytest.mark.parametrize("call", CALLS)
def test_refuses_what_the_twin_refuses(device: str, call: str, case: str, shape: tuple) -> None:
    # Before anything is resized or written: out as it was, and no warning.
    make, words = REFUSALS[case]
    a, b = torch.randn(2, 3, device=device), torch.randn(3, device=device)
    with pytest.raises(RuntimeError):
        TWIN(a, b, out=make(device, shape))
    out = make(device, shape)
    before = out.clone()
    words = f"{QUALNAME}(): " + words.format(device=a.device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeError, match="^" + re.escape(words)):
            CALLS[call](a, b, out)
    assert out.shape == before.shape
    if out.device.type != "meta":
        assert torch.equal(out, before)


@pytest.mark.cuda
def test_a_cuda_call_refuses_a_cpu_out() -> None:
    # The C++ check that keeps the kernels from writing host memory (a meta out never reaches it).
    a = torch.randn(2, 3, device="cuda")
    with pytest.raises(RuntimeError):
        TWIN(a, a, out=torch.empty(2, 3))
    words = f"{QUALNAME}(): expected out on {a.device}, the device of a and b, but got out on cpu"
    for call in CALLS.values():
        with pytest.raises(RuntimeError, match="^" + re.escape(words)):
            call(a, a, torch.empty(2, 3))


@pytest.mark.parametrize("call", CALLS)
def test_refuses_an_input_as_out_that_would_be_resized(device: str, call: str) -> None:
    a = torch.arange(3.0, device=device)
    b = torch.ones(2, 3, device=device)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        TWIN(a, b, out=a)
    with pytest.raises(RuntimeError, match=re.escape("out is a, which cannot be resized")):
        CALLS[call](a, b, a)
    assert torch.equal(a, torch.arange(3.0, device=device))


@pytest.mark.parametrize("call", CALLS)
def test_a_resized_out_is_not_kept_alive(device: str, call: str) -> None:
    # Every handle the resize gets back from torch is released: out dies with its last reference.
    a = torch.randn(4, 5, device=device)
    out = torch.empty(0, device=device)
    CALLS[call](a, a, out)
    alive = weakref.ref(out)
    del out
    gc.collect()
    assert alive() is None


def test_an_inference_tensor_as_out_only_in_inference_mode(device: str) -> None:
    a = torch.randn(3, device=device)
    with torch.inference_mode():
        out, twin = torch.empty(3, device=device), torch.empty(3, device=device)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside"):
        TWIN(a, a, out=twin)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside"):
        op(a, a, out=out)
    with torch.inference_mode():
        check_out(CALLS["public"], a, a, out)


def test_forward_mode_ad_is_refused(device: str) -> None:
    a, t = torch.randn(3, device=device), torch.randn(3, device=device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(a, t)
        with pytest.raises((RuntimeError, NotImplementedError), match="forward AD"):
            TWIN(dual, a, out=torch.empty(3, device=device))
        with pytest.raises(RuntimeError, match="out= does not support forward-mode AD"):
            op(dual, a, out=torch.empty(3, device=device))


@pytest.mark.parametrize("call", CALLS)
def test_refuses_partial_overlap_with_an_input(device: str, call: str) -> None:
    x = torch.randn(6, device=device)
    with pytest.raises(RuntimeError):
        TWIN(x[:3], x[:3], out=x[1:4])
    with pytest.raises(RuntimeError, match=re.escape("out and a share part of their memory")):
        CALLS[call](x[:3], x[:3], x[1:4])


@pytest.mark.parametrize("which", ["a", "b", "out"])
@pytest.mark.parametrize("call", CALLS)
def test_refuses_tensors_that_require_grad(device: str, call: str, which: str) -> None:
    tensors = {name: torch.randn(3, device=device) for name in ("a", "b", "out")}
    tensors[which].requires_grad_()
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        TWIN(tensors["a"], tensors["b"], out=tensors["out"])
    words = (
        f"{QUALNAME}(): functions with out=... arguments don't support automatic differentiation"
    )
    with pytest.raises(RuntimeError, match="^" + re.escape(words)):
        CALLS[call](tensors["a"], tensors["b"], tensors["out"])
    if which != "out":  # without grad mode, as the twin, it goes ahead
        with torch.no_grad():
            check_out(
                CALLS[call], tensors["a"], tensors["b"], poisoned((3,), torch.float32, device)
            )


def test_out_that_is_not_a_tensor_is_a_type_error() -> None:
    a = torch.randn(3)
    words = f"{QUALNAME}(): expected out to be a Tensor, but got a Python list; pass a tensor"
    with pytest.raises(TypeError, match="^" + re.escape(words)):
        op(a, a, out=[0.0, 0.0, 0.0])


def test_torch_func_transforms_are_refused_in_words() -> None:
    # The twin's out= has no batching rule either.
    a = torch.randn(2, 3)
    with pytest.raises(RuntimeError, match="Batching rule not implemented"):
        torch.func.vmap(lambda x, o: TWIN(x, x, out=o))(a, torch.empty(2, 3))
    with pytest.raises(RuntimeError, match=re.escape("out= does not work under torch.func")):
        torch.func.vmap(lambda x, o: op(x, x, out=o))(a, torch.empty(2, 3))


def test_fake_tensors_get_the_shape_and_dtype() -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        a, b = torch.randn(2, 3), torch.randn(3)
        out = torch.empty(0, dtype=torch.float16)
        assert OUT(a, b, out=out) is out
        assert (out.shape, out.dtype) == ((2, 3), torch.float16)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph(device: str, backend: str) -> None:
    # Functionalized: the op and a copy into out, which the compiled code writes as eager does.
    def step(a: Tensor, b: Tensor, out: Tensor) -> Tensor:
        return op(a, b, out=out) * 2

    compiled = torch.compile(step, fullgraph=True, backend=backend)
    a, b = torch.randn(4, 5, device=device), torch.randn(5, device=device)
    # Dynamo takes only a contiguous out, for the twin's out= too.
    for dtype in (torch.float32, torch.float64):
        out = poisoned(torch.Size((4, 5)), dtype, device)
        ref = twin_out(a, b, out)
        assert_bitwise_equal(compiled(a, b, out), ref * 2)
        assert_bitwise_equal(out, ref)


@IGNORE_TORCH_LEAFSPEC
def test_export_keeps_the_write(device: str) -> None:
    class Model(torch.nn.Module):
        def forward(self, a: Tensor, b: Tensor, out: Tensor) -> Tensor:
            return op(a, b, out=out)

    a, b = torch.randn(4, 5, device=device), torch.randn(5, device=device)
    program = torch.export.export(Model(), (a, b, torch.empty(4, 5, device=device)))
    # Functionalized, the write into out is a mutation of a user input, the op functional.
    decomposed = program.run_decompositions()
    mutated = decomposed.graph_signature.user_inputs_to_mutate
    assert list(mutated.values()) == ["out"], decomposed.graph_signature
    out = poisoned(torch.Size((4, 5)), torch.float32, device)
    program.module()(a, b, out)
    assert_bitwise_equal(out, TWIN(a, b))
