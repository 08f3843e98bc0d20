"""Optional: ``sum_double.<NAME>(a, b, out=o)``, the twin's out= form: the result written into a
tensor the caller gives. Deleting it goes with the C++ overloads (docs/make-it-your-own.md lists
the lines): without this file they would have no autograd refusal and no decomposition.

The op library registers ``<NAME>.out`` and ``_<NAME>.out`` with the C++ kernels (``out_arg.cpp``:
out's checks, its resize, in place or a cast copy). Here: the autograd kernel, which refuses what
the twin's out= refuses; the decomposition that functionalization (``torch.compile``,
``torch.export``) and fake tensors run, the functional op and a copy; and the public call's part.
"""

import warnings

import torch
import torch.autograd.forward_ad as _forward_ad
from torch import Tensor

from ._definition import NAME, TWIN_NAME
from ._errors import PREFIX, kind
from ._ops import BELOW_AUTOGRAD, OP, OP_PACKET, QUALNAME
from ._public import _functorch_active, use_out

OUT = OP_PACKET.out
BELOW_AUTOGRAD_OUT = getattr(torch.ops.sum_double, f"_{NAME}").out


def _refuse_grad(*tensors: Tensor) -> None:
    # torch's words for its out= forms: such a call goes on neither autograd's record, backward
    # or forward.
    if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
        raise RuntimeError(
            f"{PREFIX} functions with out=... arguments don't support automatic differentiation, "
            f"but one of the arguments requires grad; call {QUALNAME}(a, b) without out= for a "
            "result with a gradient, or pass tensors that do not require grad (x.detach())"
        )
    if any(_forward_ad.unpack_dual(t).tangent is not None for t in tensors):
        raise RuntimeError(
            f"{PREFIX} out= does not support forward-mode AD (an argument has a tangent), as "
            f"{TWIN_NAME}'s does not; call {QUALNAME}(a, b) without out="
        )


def _write(a: Tensor, b: Tensor, *, out: Tensor) -> Tensor:
    # The C++ kernels, then what ADInplaceOrView does for torch's ops: out's version counted, so
    # autograd sees that a tensor it saved has changed. Inference tensors have none, and only
    # inference mode may write them.
    if out.is_inference() and not torch.is_inference_mode_enabled():
        raise RuntimeError(
            f"{PREFIX} Inplace update to inference tensor outside InferenceMode is not allowed; "
            "pass out=out.clone() or make out outside torch.inference_mode()"
        )
    result = BELOW_AUTOGRAD_OUT(a, b, out=out)
    if not out.is_inference():
        torch.autograd.graph.increment_version(out)
    return result


def _out_autograd(a: Tensor, b: Tensor, *, out: Tensor) -> Tensor:
    _refuse_grad(*(t for t in (a, b, out) if isinstance(t, Tensor)))
    return _write(a, b, out=out)


def _decomposition(a: Tensor, b: Tensor, *, out: Tensor) -> Tensor:
    """The out= form as the functional op and a copy: functionalization (torch.compile,
    torch.export), fake and meta tensors and DTensor run this, the C++ kernels never. Of
    out_arg.cpp's checks it repeats those that copy_ would not make in their words (overlap cannot
    arise in a functional graph)."""
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
    if out.shape != result.shape:  # with the strides a new result has, as out_arg.cpp resizes
        out.resize_(result.shape).as_strided_(result.shape, result.stride())
    return out.copy_(result)


_LIB = torch.library.Library("sum_double", "IMPL")
_LIB.impl(OUT, _out_autograd, "Autograd")
_LIB.impl(OUT, _write, "ADInplaceOrView")  # reached without the Autograd key: inference mode
# Meta has no backend kernel of its own here, where the decomposition would fill AutogradMeta.
_LIB.impl(OUT, _out_autograd, "AutogradMeta")
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


def _add_maybe_out(a: Tensor, b: Tensor, out: object) -> Tensor:
    return OP(a, b) if out is None else out_call(a, b, out)


# Recorded, as the public call's alpha check is, where out is a traced function's own parameter
# (None by default): the graph decides as it runs.
torch.fx.wrap("_add_maybe_out")


def _is_a_parameter_none_by_default(out: object) -> bool:
    return (
        isinstance(out, torch.fx.Proxy)
        and out.node.op == "placeholder"
        and out.node.args == (None,)
    )


def out_call(a: Tensor, b: Tensor, out: object) -> Tensor:
    """``sum_double.<NAME>(a, b, out=out)``: what the public call does with out=."""
    if _is_a_parameter_none_by_default(out):
        return _add_maybe_out(a, b, out)
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
    if torch.compiler.is_compiling():
        return OUT(a, b, out=out)
    # The op resizes out after its checks; torch.add's warning is said here, once the call is
    # through, as torch's bindings say a C++ warning (the op library has no Python to warn with).
    old_shape = out.shape if out.numel() != 0 else None
    result = OUT(a, b, out=out)
    if old_shape is not None and old_shape != out.shape:
        warnings.warn(_resize_message(old_shape, out.shape), UserWarning, stacklevel=3)
    return result


use_out(out_call)
