"""Optional: ``sum_double.<NAME>(a, b, out=o)``, the twin's out= form: the result written into a
tensor the caller gives. Delete this file, its line in ``__init__.py`` and ``tests/test_out.py``,
and the public call refuses ``out=`` (the C++ overloads stay, callable through ``torch.ops``).

The op library registers ``<NAME>.out`` and ``_<NAME>.out`` with the C++ kernels (``out_arg.cpp``:
out's checks, its resize, in place or a cast copy). Here: the autograd kernel, which refuses what
the twin's out= refuses; the decomposition that functionalization (``torch.compile``,
``torch.export``) and fake tensors run, the functional op and a copy; and the public call's part.
"""

import warnings

import torch
from torch import Tensor

from ._definition import NAME, TWIN_NAME
from ._errors import PREFIX, kind
from ._ops import BELOW_AUTOGRAD, OP, OP_PACKET, QUALNAME
from ._public import use_out

OUT = OP_PACKET.out
BELOW_AUTOGRAD_OUT = getattr(torch.ops.sum_double, f"_{NAME}").out
_functorch_active = getattr(torch._C, "_are_functorch_transforms_active", lambda: False)


def _refuse_grad(*tensors: object) -> None:
    # torch's words for its out= forms: such a call cannot go on autograd's record.
    if torch.is_grad_enabled() and any(isinstance(t, Tensor) and t.requires_grad for t in tensors):
        raise RuntimeError(
            f"{PREFIX} functions with out=... arguments don't support automatic differentiation, "
            f"but one of the arguments requires grad; call {QUALNAME}(a, b) without out= for a "
            "result with a gradient, or pass tensors that do not require grad (x.detach())"
        )


def _write(a: Tensor, b: Tensor, *, out: Tensor) -> Tensor:
    # The C++ kernels, then what ADInplaceOrView does for torch's ops: out's version counted, so
    # autograd sees that a tensor it saved has changed (inference tensors count none).
    result = BELOW_AUTOGRAD_OUT(a, b, out=out)
    if not out.is_inference():
        torch.autograd.graph.increment_version(out)
    return result


def _out_autograd(a: Tensor, b: Tensor, *, out: Tensor) -> Tensor:
    _refuse_grad(a, b, out)
    return _write(a, b, out=out)


def _decomposition(a: Tensor, b: Tensor, *, out: Tensor) -> Tensor:
    """The out= form as the functional op and a copy: functionalization (torch.compile,
    torch.export), fake and meta tensors and DTensor run this, the C++ kernels never. Its checks
    are out_arg.cpp's, in its words."""
    result = BELOW_AUTOGRAD(a, b)
    torch._check(
        out.device == result.device,
        lambda: (
            f"{PREFIX} expected out on {result.device}, the device of a and b, but got out "
            f"on {out.device}"
        ),
    )
    torch._check(
        out.dtype.is_floating_point or out.dtype.is_complex,
        lambda: (
            f"{PREFIX} expected out to be a floating or complex tensor, which the result "
            f"({result.dtype}) can be cast to, but got {out.dtype}; pass one of the result's "
            f"dtype, e.g. torch.empty_like(out, dtype={result.dtype})"
        ),
    )
    if out.shape != result.shape:
        out.resize_(result.shape)
    return out.copy_(result)


_LIB = torch.library.Library("sum_double", "IMPL")
_LIB.impl(OUT, _out_autograd, "Autograd")
_LIB.impl(OUT, _write, "ADInplaceOrView")  # reached without the Autograd key: inference mode
for _overload in (OUT, BELOW_AUTOGRAD_OUT):
    _LIB.impl(_overload, _decomposition, "CompositeImplicitAutograd")


def _resize_message(shape: torch.Size, wanted: torch.Size) -> str:
    # torch's resize_output words, which its out= forms warn with.
    return (
        f"An output with one or more elements was resized since it had shape {list(shape)}, "
        f"which does not match the required output shape {list(wanted)}. This behavior is "
        "deprecated, and in a future PyTorch release outputs will not be resized unless they "
        "have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, "
        "to zero elements with t.resize_(0)."
    )


def _refuse_out_in_trace(out: object) -> None:
    if out is not None:
        raise TypeError(
            f"{PREFIX} this graph was traced from {QUALNAME} itself, whose out= it cannot take; "
            "trace a function or module that passes out="
        )


# Recorded, as the public call's alpha check is: it runs in the graph.
torch.fx.wrap("_refuse_out_in_trace")


def _is_the_traced_default(out: object) -> bool:
    # torch.fx.symbolic_trace of the public call itself makes out a placeholder, None by default.
    return (
        isinstance(out, torch.fx.Proxy)
        and out.node.op == "placeholder"
        and out.node.args == (None,)
    )


def out_call(a: Tensor, b: Tensor, out: object) -> Tensor:
    """``sum_double.<NAME>(a, b, out=out)``: what the public call does with out=."""
    if _is_the_traced_default(out):
        _refuse_out_in_trace(out)
        return OP(a, b)
    if isinstance(out, torch.fx.Proxy):  # FX records the op
        return OUT(a, b, out=out)
    if not isinstance(out, Tensor):
        raise TypeError(
            f"{PREFIX} expected out to be a Tensor, but got {kind(out)}; pass a tensor, e.g. "
            "out=torch.empty_like(a)"
        )
    if _functorch_active():  # torch's out= forms have no batching rule either
        raise RuntimeError(
            f"{PREFIX} out= does not work under torch.func transforms (vmap, grad, jvp), as "
            f"{TWIN_NAME}'s does not; use the result instead: out = {QUALNAME}(a, b)"
        )
    if not torch.compiler.is_compiling():
        # The op's C++ resizes too, but its warning reaches Python only through torch's own
        # bindings (as torch.ops.aten.add.out's does): say it here, then let it resize silently.
        try:
            shape = torch.broadcast_shapes(a.shape, b.shape)
        except RuntimeError:  # the op says so in its own words
            shape = out.shape
        if out.shape != shape and out.numel() != 0:
            warnings.warn(_resize_message(out.shape, shape), UserWarning, stacklevel=3)
            out.resize_(0)
    return OUT(a, b, out=out)


use_out(out_call)
