"""What the op's errors become in Python: a TypeError for what is not a tensor and for ``alpha=``,
and torch.OutOfMemoryError given back its type after crossing the stable ABI as a code."""

from numbers import Number

import torch
from torch import Tensor

from . import _C

# torch's reason for an error ("CUDA out of memory", ...) comes along with its code only where the
# headers built against and the torch running both allow it.
_REASON_CROSSES = _C.torch_reason_in_errors()

# What torch.as_tensor converts: sequences, and the objects of the array protocols.
_ARRAY_PROTOCOLS = ("__array__", "__array_interface__", "__cuda_array_interface__", "__dlpack__")


def _kind(value: object) -> str:
    """``value``'s type, as a message names it: a Python float, a numpy.ndarray."""
    kind = type(value)
    if kind.__module__ == "builtins":
        return f"a Python {kind.__qualname__}"
    name = f"{kind.__module__}.{kind.__qualname__}"
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _takes_torch_functions(value: object) -> bool:
    # As FX's Proxy does: the op then records itself. Dynamo has no such objects, and answers
    # True for a NumPy array, which it traces as a tensor.
    return not torch.compiler.is_compiling() and hasattr(type(value), "__torch_function__")


def argument_error(a: object, b: object) -> TypeError | None:
    """The TypeError for the first of ``a`` and ``b`` that is not a tensor; None if both are."""
    for name, value, other in (("a", a, b), ("b", b, a)):
        if not (isinstance(value, Tensor) or _takes_torch_functions(value)):
            return _not_a_tensor(name, value, other)
    return None


def none_message(name: str) -> str:
    """The op's own words for None (add_op.cpp), which the dispatcher lets through."""
    return f"sum_double.add(): expected {name} to be a Tensor, but got None; pass a tensor"


def _not_a_tensor(name: str, value: object, other: object) -> TypeError:
    if value is None:
        return TypeError(none_message(name))
    like = "a" if name == "b" else "b"
    options = f", dtype={like}.dtype, device={like}.device" if isinstance(other, Tensor) else ""
    # Python numbers follow rules of their own in torch.add (wrapped numbers); the op takes
    # tensors only.
    if isinstance(value, complex):  # torch.tensor(1j, dtype=a.dtype) would fail in turn
        fix = (
            "pass a tensor of its real part (the op adds real numbers), "
            f"e.g. torch.tensor({value.real!r}{options})"
        )
    elif isinstance(value, Number):
        fix = f"pass a tensor, e.g. torch.tensor({value!r}{options})"
    elif isinstance(value, (list, tuple)) or any(hasattr(value, p) for p in _ARRAY_PROTOCOLS):
        fix = f"pass a tensor, e.g. torch.as_tensor({name}{options})"
    else:
        fix = "pass a tensor"
    return TypeError(
        f"sum_double.add(): expected {name} to be a Tensor, but got {_kind(value)}; {fix}"
    )


def alpha_error(alpha: object) -> TypeError:
    # torch.add's alpha scales b inside the add; the op has no such argument, so say how to scale b
    # instead and what that changes.
    scale = repr(alpha) if isinstance(alpha, Number) else "alpha"
    return TypeError(
        f"sum_double.add(): alpha is not supported; write sum_double.add(a, b * {scale}), which "
        f"rounds b * {scale} to b's dtype before the add (torch.add(a, b, alpha={scale}) may "
        f"round only once)"
    )


def is_out_of_memory(error: RuntimeError, a: Tensor) -> bool:
    """Whether ``error`` from the op is the GPU running out of memory; may raise the real error.

    With torch's reason, the reason says so. Without it, the op still reports that an allocation
    failed. On a GPU that means out of memory, unless an earlier error is pending on the GPU: that
    fails every allocation that reaches the driver. Synchronizing raises such an error, and it is
    raised in place of ``error``, as torch's own ops would raise it.
    """
    message = str(error)
    if "CUDA out of memory" in message:
        return True
    if _REASON_CROSSES or not a.is_cuda or "could not allocate memory for" not in message:
        return False
    # Synchronizing would invalidate a CUDA graph being captured; the capture fails either way.
    if not torch.cuda.is_current_stream_capturing():
        try:
            torch.cuda.synchronize(a.device)
        except RuntimeError as pending:
            raise pending from None
    return True
