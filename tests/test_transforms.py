"""torch.func through the public call: grad, jvp, vmap (broadcast and mixed dtypes too), and a
tensor kept past a transform, each the reference's; grad and jvp through torch.ops refused."""

import pytest
import torch

from reference import reference
from support import OP_NAME, OP_PACKET, Op, assert_bitwise_equal


def test_torch_func_transforms(device: str, wrapper: Op) -> None:
    x, y, t = (torch.randn(5, device=device) for _ in range(3))
    grad = torch.func.grad(lambda x: wrapper(x, y).sum())(x)
    assert torch.equal(grad, torch.func.grad(lambda x: reference(x, y).sum())(x))
    _, tangent = torch.func.jvp(lambda x: wrapper(x, y), (x,), (t,))
    assert torch.equal(tangent, torch.func.jvp(lambda x: reference(x, y), (x,), (t,))[1])


def test_grad_and_jvp_through_torch_ops_refuse_in_words_that_name_the_way_out(device: str) -> None:
    # The op's autograd is a Function entered from inside the op, which functorch cannot take
    # there: a clear error, never a gradient or tangent that is silently wrong (jvp once gave
    # zeros).
    x, y, t = (torch.randn(5, device=device) for _ in range(3))
    op = OP_PACKET
    refusal = f"{OP_NAME} does not work under torch.func.grad or torch.func.jvp"
    with pytest.raises(RuntimeError, match=refusal):
        torch.func.grad(lambda x: op(x, y).sum())(x)
    with pytest.raises(RuntimeError, match=refusal):
        torch.func.jvp(lambda x: op(x, y), (x,), (t,))


def test_a_tensor_kept_past_a_transform_stands_for_its_tensor(device: str, wrapper: Op) -> None:
    # Inside torch.func.grad, f sees a wrapper of x; kept past the transform, that wrapper is
    # "dead" and must count as x itself (Function.apply unwraps it), so this is the op of x and x.
    x = torch.randn(3, device=device, requires_grad=True)
    kept = []

    def f(t: torch.Tensor) -> torch.Tensor:
        kept.append(t)
        return t.sum()

    torch.func.grad(f)(x)
    wrapper(kept[0], x).sum().backward()
    ref = x.detach().requires_grad_()
    reference(ref, ref).sum().backward()
    assert torch.equal(x.grad, ref.grad)


def test_vmap(device: str, wrapper: Op) -> None:
    # The op's vmap rule (no per-example loop: that fallback warns, and warnings fail the suite).
    x, y = torch.randn(3, 5, device=device), torch.randn(3, 5, device=device)
    row = torch.randn(5, device=device)
    assert_bitwise_equal(torch.func.vmap(wrapper)(x, y), reference(x, y))
    assert_bitwise_equal(torch.func.vmap(wrapper, in_dims=(0, None))(x, row), reference(x, row))
    xt, yt = x.t().contiguous(), y.t().contiguous()
    assert_bitwise_equal(torch.func.vmap(wrapper, in_dims=(1, 1))(xt, yt), reference(x, y))
    # vmap over grad and jacrev: the autograd.Function under vmap.
    per_example = torch.func.vmap(torch.func.grad(lambda x, y: wrapper(x, y).sum()))
    want = torch.func.vmap(torch.func.grad(lambda x, y: reference(x, y).sum()))(x, y)
    assert torch.equal(per_example(x, y), want)
    jacobian = torch.func.jacrev(wrapper)(row, row)
    assert torch.equal(jacobian, torch.func.jacrev(reference)(row, row))


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
    wrapper: Op,
    a: tuple,
    b: tuple,
    in_dims: tuple,
    a_dtype: torch.dtype,
    b_dtype: torch.dtype,
) -> None:
    # Per example, the reference's result (dtype by the per-example dims: a batch of 0-dim tensors
    # stays 0-dim to each example); the batch dims line up whatever the ranks.
    if in_dims == (None, None):
        in_dims = (0, None)
        a = (1, *a)
    x = torch.randn(a, device=device, dtype=a_dtype)
    y = torch.randn(b, device=device, dtype=b_dtype)
    assert_bitwise_equal(
        torch.func.vmap(wrapper, in_dims=in_dims)(x, y),
        torch.func.vmap(reference, in_dims=in_dims)(x, y),
    )
