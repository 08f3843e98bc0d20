"""Gradients, forward-mode AD, torch.func, opcheck and torch.compile, through every route in."""

from collections.abc import Callable

import pytest
import torch
import torch.autograd.forward_ad as fwAD

import sum_double
from sum_double import _fast_route, _ops
from support import FLOAT_DTYPES, assert_bitwise_equal

Add = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def _force(route: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sends sum_double.add down one route: "fast" (on torch's private names) or "public"."""
    if route == "fast" and _ops._fast_route is None:
        pytest.skip("this torch lacks a name the fast route reads")
    monkeypatch.setattr(_ops, "_route", getattr(_ops, f"_{route}_route"))


@pytest.fixture(params=["fast", "public"])
def wrapper(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Add:
    """sum_double.add through each of its routes: every torch runs the public one this way."""
    _force(request.param, monkeypatch)
    return sum_double.add


@pytest.fixture(params=["fast", "public", "op"])
def add(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Add:
    """The wrapper's routes, and the op itself (fake kernel + registered autograd: what
    torch.compile and FX graphs call)."""
    if request.param == "op":
        return torch.ops.sum_double.add.default
    _force(request.param, monkeypatch)
    return sum_double.add


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_gradient_is_the_incoming_gradient_uncopied(
    device: str, add: Add, dtype: torch.dtype
) -> None:
    a = torch.randn(5, 7, device=device, dtype=dtype, requires_grad=True)
    b = torch.randn(5, 7, device=device, dtype=dtype, requires_grad=True)
    grad = torch.randn(5, 7, device=device, dtype=dtype)
    ga, gb = torch.autograd.grad(add(a, b), (a, b), grad)
    # d(a + b)/da = d(a + b)/db = identity: the same tensor comes back, no clone (the seed cloned
    # twice).
    assert ga.data_ptr() == grad.data_ptr()
    assert gb.data_ptr() == grad.data_ptr()


@pytest.mark.parametrize("which", ["a", "b"])
def test_one_input_requires_grad(device: str, add: Add, which: str) -> None:
    args = {"a": torch.randn(4, device=device), "b": torch.randn(4, device=device)}
    args[which].requires_grad_()
    out = add(args["a"], args["b"])
    assert out.requires_grad
    grad = torch.randn(4, device=device)
    out.backward(grad)
    assert torch.equal(args[which].grad, grad)


# (a's shape and dtype, b's): a bias add, both sides broadcast, a 0-dim tensor, mixed precision
# (the residual stream in float32 beside an autocast branch), and both at once.
MIXED_AND_BROADCAST = [
    pytest.param(((4, 3, 8), torch.float32), ((8,), torch.float32), id="bias"),
    pytest.param(((4, 1), torch.float64), ((1, 5), torch.float64), id="outer"),
    pytest.param(((), torch.float32), ((2, 3), torch.float32), id="0-dim"),
    pytest.param(((2, 3), torch.float16), ((), torch.float64), id="wider-0-dim"),
    pytest.param(((6, 5), torch.float32), ((6, 5), torch.bfloat16), id="f32+bf16"),
    pytest.param(((6, 5), torch.float16), ((6, 5), torch.bfloat16), id="f16+bf16"),
    pytest.param(((3, 1, 5), torch.bfloat16), ((4, 5), torch.float32), id="bf16-bcast+f32"),
]


@pytest.mark.parametrize(("a_meta", "b_meta"), MIXED_AND_BROADCAST)
def test_gradients_are_torch_adds(device: str, add: Add, a_meta: tuple, b_meta: tuple) -> None:
    # Each input's gradient has that input's shape and dtype: the incoming gradient summed over
    # the dims it was broadcast along, then cast, with torch.add's own reductions (same bits).
    (a_shape, a_dtype), (b_shape, b_dtype) = a_meta, b_meta
    a = torch.randn(a_shape, device=device, dtype=a_dtype, requires_grad=True)
    b = torch.randn(b_shape, device=device, dtype=b_dtype, requires_grad=True)
    out, ref = add(a, b), torch.add(a, b)
    assert_bitwise_equal(out, ref)
    grad = torch.randn_like(ref) * 3
    ours = torch.autograd.grad(out, (a, b), grad)
    theirs = torch.autograd.grad(ref, (a, b), grad)
    for mine, reference, x in zip(ours, theirs, (a, b), strict=True):
        assert (mine.shape, mine.dtype) == (x.shape, x.dtype)
        assert_bitwise_equal(mine, reference)


@pytest.mark.parametrize(("a_meta", "b_meta"), MIXED_AND_BROADCAST)
def test_forward_ad_is_torch_adds(device: str, wrapper: Add, a_meta: tuple, b_meta: tuple) -> None:
    (a_shape, a_dtype), (b_shape, b_dtype) = a_meta, b_meta
    a, ta = (torch.randn(a_shape, device=device, dtype=a_dtype) for _ in range(2))
    b, tb = (torch.randn(b_shape, device=device, dtype=b_dtype) for _ in range(2))
    for tangents in [(ta, tb), (ta, None), (None, tb)]:
        with fwAD.dual_level():
            duals = [
                x if t is None else fwAD.make_dual(x, t)
                for x, t in zip((a, b), tangents, strict=True)
            ]
            mine = fwAD.unpack_dual(wrapper(*duals)).tangent
            theirs = fwAD.unpack_dual(torch.add(*duals)).tangent
        assert_bitwise_equal(mine, theirs)


def test_gradcheck_broadcast_and_mixed(device: str, add: Add) -> None:
    a = torch.randn(3, 1, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(5, 1, device=device, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(add, (a, b))
    assert torch.autograd.gradgradcheck(add, (a, b))
    c = torch.randn((), device=device, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(add, (a, c))
    assert torch.autograd.gradgradcheck(add, (c, b))


@pytest.mark.filterwarnings("ignore:Input #1 requires gradient and is not a double precision")
def test_gradcheck_mixed_precision(device: str, add: Add) -> None:
    # The derivative is exactly 1 for both inputs; float32's finite differences need a coarser
    # step and tolerance than float64's.
    a = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, device=device, dtype=torch.float32, requires_grad=True)
    assert torch.autograd.gradcheck(add, (a, b), eps=1e-3, atol=1e-3, rtol=1e-3)
    assert torch.autograd.gradgradcheck(add, (a, b), eps=1e-3, atol=1e-3, rtol=1e-3)


def test_no_graph_without_grad(device: str, add: Add) -> None:
    a = torch.randn(4, device=device, requires_grad=True)
    with torch.no_grad():
        assert not add(a, a).requires_grad
    with torch.inference_mode():
        assert not add(a, a).requires_grad
    assert not add(a.detach(), a.detach()).requires_grad


def test_same_tensor_twice_accumulates(device: str, add: Add) -> None:
    a = torch.randn(4, device=device, requires_grad=True)
    add(a, a).sum().backward()
    assert torch.equal(a.grad, torch.full_like(a, 2.0))


def test_forward_mode_ad_through_the_wrapper(device: str, wrapper: Add) -> None:
    # Dual tensors need no requires_grad: a no-grad shortcut that ignored them would silently drop
    # the tangent.
    x, y = torch.randn(5, device=device), torch.randn(5, device=device)
    tx, ty = torch.randn(5, device=device), torch.randn(5, device=device)
    with fwAD.dual_level():
        out = wrapper(fwAD.make_dual(x, tx), y)
        assert torch.equal(fwAD.unpack_dual(out).tangent, tx)
        out = wrapper(fwAD.make_dual(x, tx), fwAD.make_dual(y, ty))
        assert torch.equal(fwAD.unpack_dual(out).tangent, tx + ty)
        assert torch.equal(fwAD.unpack_dual(out).primal, torch.add(x, y))
        out = wrapper(x, fwAD.make_dual(y, ty))
        assert torch.equal(fwAD.unpack_dual(out).tangent, ty)
        assert fwAD.unpack_dual(wrapper(x, y)).tangent is None


def test_forward_and_backward_gradcheck_through_the_wrapper(device: str, wrapper: Add) -> None:
    a = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(wrapper, (a, b), check_forward_ad=True)


def test_torch_func_transforms(device: str, wrapper: Add) -> None:
    x, y, t = (torch.randn(5, device=device) for _ in range(3))
    grad = torch.func.grad(lambda x: wrapper(x, y).sum())(x)
    assert torch.equal(grad, torch.ones_like(x))
    _, tangent = torch.func.jvp(lambda x: wrapper(x, y), (x,), (t,))
    assert torch.equal(tangent, t)


def test_a_tensor_kept_past_a_transform_stands_for_its_tensor(device: str, wrapper: Add) -> None:
    # Inside torch.func.grad, f sees a wrapper of x; kept past the transform, that wrapper is
    # "dead" and must count as x itself (Function.apply unwraps it), so this is x + x.
    x = torch.randn(3, device=device, requires_grad=True)
    kept = []

    def f(t: torch.Tensor) -> torch.Tensor:
        kept.append(t)
        return t.sum()

    torch.func.grad(f)(x)
    wrapper(kept[0], x).sum().backward()
    assert torch.equal(x.grad, torch.full_like(x, 2.0))


def test_vmap(device: str, wrapper: Add) -> None:
    # The op's vmap rule (no per-example loop: that fallback warns, and warnings fail the suite).
    x, y = torch.randn(3, 5, device=device), torch.randn(3, 5, device=device)
    row = torch.randn(5, device=device)
    assert_bitwise_equal(torch.func.vmap(wrapper)(x, y), torch.add(x, y))
    assert_bitwise_equal(torch.func.vmap(wrapper, in_dims=(0, None))(x, row), x + row)
    xt, yt = x.t().contiguous(), y.t().contiguous()
    assert_bitwise_equal(torch.func.vmap(wrapper, in_dims=(1, 1))(xt, yt), x + y)
    # vmap over grad and jacrev: the autograd.Function under vmap.
    per_example = torch.func.vmap(torch.func.grad(lambda x, y: wrapper(x, y).sum()))
    assert torch.equal(per_example(x, y), torch.ones_like(x))
    jacobian = torch.func.jacrev(wrapper)(row, row)
    assert torch.equal(jacobian, torch.eye(5, device=device))


@pytest.mark.parametrize(
    ("a", "b", "in_dims"),
    [
        pytest.param((3, 4, 5), (3, 5), (0, 0), id="batched-bias"),
        pytest.param((3, 4, 5), (5,), (0, None), id="unbatched-bias"),
        pytest.param((4, 3), (3, 2, 1), (1, 0), id="broadcast-both"),
        pytest.param((3,), (3, 6), (0, 0), id="batched-0-dim"),
        pytest.param((2, 4), (), (None, None), id="none-batched"),
    ],
)
@pytest.mark.parametrize(
    ("a_dtype", "b_dtype"),
    [
        (torch.float32, torch.float32),
        (torch.float32, torch.bfloat16),
        (torch.float64, torch.float16),
        (torch.float16, torch.bfloat16),
    ],
    ids=str,
)
def test_vmap_broadcast_and_mixed(
    device: str,
    wrapper: Add,
    a: tuple,
    b: tuple,
    in_dims: tuple,
    a_dtype: torch.dtype,
    b_dtype: torch.dtype,
) -> None:
    # Per example, torch.add's result (dtype by the per-example dims: a batch of 0-dim tensors
    # stays 0-dim to each example); the batch dims line up whatever the ranks.
    if in_dims == (None, None):
        in_dims = (0, None)
        a = (1, *a)
    x = torch.randn(a, device=device, dtype=a_dtype)
    y = torch.randn(b, device=device, dtype=b_dtype)
    assert_bitwise_equal(
        torch.func.vmap(wrapper, in_dims=in_dims)(x, y),
        torch.func.vmap(torch.add, in_dims=in_dims)(x, y),
    )


PRIVATE_NAMES = [
    (torch._C, "_AutoDispatchBelowAutograd"),
    (torch._C, "_are_functorch_transforms_active"),
    (torch._C._functorch, "unwrap_if_dead"),
    (fwAD, "_current_level"),
]


@pytest.mark.parametrize(("module", "name"), PRIVATE_NAMES, ids=[n for _, n in PRIVATE_NAMES])
def test_without_a_private_name_there_is_no_fast_route(
    monkeypatch: pytest.MonkeyPatch, module: object, name: str
) -> None:
    # A torch release may drop any of them; sum_double.add must then take the public route, and
    # quietly (the suite turns warnings into errors).
    monkeypatch.delattr(module, name, raising=False)
    assert _fast_route.make_fast_route(_ops._Add) is None


def test_gradcheck_and_gradgradcheck(device: str, add: Add) -> None:
    a = torch.randn(3, 4, device=device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 3, device=device, dtype=torch.float64, requires_grad=True).t()
    assert torch.autograd.gradcheck(add, (a, b))
    assert torch.autograd.gradgradcheck(add, (a, b))


# opcheck's own AOT test reads .grad of intermediate tensors it makes; that warning is torch's.
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize(
    "shape_and_view",
    [((5,), None), ((), None), ((0, 3), None), ((6, 4), torch.Tensor.t)],
    ids=["1d", "0d", "empty", "transposed"],
)
def test_opcheck(device: str, requires_grad: bool, shape_and_view) -> None:
    shape, view = shape_and_view
    a, b = torch.randn(shape, device=device), torch.randn(shape, device=device)
    if view is not None:
        a, b = view(a), view(b)
    a.requires_grad_(requires_grad)  # leaves, strided or not
    b.requires_grad_(requires_grad)
    # Schema, fake kernel, autograd registration and AOT dispatch, all checked by torch itself.
    torch.library.opcheck(torch.ops.sum_double.add.default, (a, b))


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize(("a_meta", "b_meta"), MIXED_AND_BROADCAST)
def test_opcheck_broadcast_and_mixed(
    device: str, requires_grad: bool, a_meta: tuple, b_meta: tuple
) -> None:
    (a_shape, a_dtype), (b_shape, b_dtype) = a_meta, b_meta
    a = torch.randn(a_shape, device=device, dtype=a_dtype)
    b = torch.randn(b_shape, device=device, dtype=b_dtype)
    a.requires_grad_(requires_grad)  # leaves, strided or not
    b.requires_grad_(requires_grad)
    # Schema, fake kernel, autograd registration and AOT dispatch, all checked by torch itself.
    torch.library.opcheck(torch.ops.sum_double.add.default, (a, b))


def _fused(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    # Power-of-two scalings are exact, so compiled and eager results must agree bit for bit.
    return sum_double.add(x * 0.5, y) * 2.0


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph(device: str, backend: str) -> None:
    torch._dynamo.reset()
    compiled = torch.compile(_fused, fullgraph=True, backend=backend)
    x = torch.randn(8, 3, device=device, requires_grad=True)
    y = torch.randn(8, 3, device=device, requires_grad=True)
    out = compiled(x, y)
    assert torch.equal(out, _fused(x, y))
    grad = torch.randn_like(out)
    out.backward(grad)
    assert torch.equal(x.grad, grad)
    assert torch.equal(y.grad, 2.0 * grad)


def test_torch_compile_rejects_bad_shapes_at_trace() -> None:
    torch._dynamo.reset()
    compiled = torch.compile(sum_double.add, fullgraph=True, backend="aot_eager")
    with pytest.raises(
        Exception, match=r"shapes of a and b to broadcast, but a: \[3\] and b: \[4\]"
    ):
        compiled(torch.randn(3), torch.randn(4))
