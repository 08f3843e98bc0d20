"""The op's words in Python: the fake kernel's refusals (the C++ checks' own words), a TypeError for
what is not a tensor, and torch.OutOfMemoryError given back its type after crossing the stable ABI
as a code."""

from numbers import Number

import torch
from torch import Tensor

from . import _C
from ._ops import QUALNAME

PREFIX = f"{QUALNAME}():"  # every message's first words, as the C++ checks' (names.h)

# torch's reason for an error ("CUDA out of memory", ...) comes along with its code only where the
# headers built against and the torch running both allow it.
_REASON_CROSSES = _C.torch_reason_in_errors()

# What torch.as_tensor converts: sequences, and the objects of the array protocols.
_ARRAY_PROTOCOLS = ("__array__", "__array_interface__", "__cuda_array_interface__", "__dlpack__")


def kind(value: object) -> str:
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
    """The op's own words for None (check_defined()), which the dispatcher lets through."""
    return f"{PREFIX} expected {name} to be a Tensor, but got None; pass a tensor"


# Dtypes of packed data, which .to() refuses (names.cpp's dtype_fix); older torch lacks some.
_PACKED_NAMES = (
    *(f"bits{kind}" for kind in ("1x8", "2x4", "4x2", "8", "16")),
    *(f"{sign}int{bits}" for sign in ("", "u") for bits in range(1, 8)),
    "float4_e2m1fn_x2",
)
_PACKED = frozenset(getattr(torch, name) for name in _PACKED_NAMES if hasattr(torch, name))


def dtype_message(dtype: torch.dtype, name: str) -> str:
    """launcher_dtype()'s words: the dtype as torch prints it (names.cpp's dtype_name), and how to
    convert it, keeping the values (dtype_fix)."""
    if dtype.is_complex:
        fix = f"pass its real and imaginary parts as a real tensor, e.g. torch.view_as_real({name})"
    elif dtype in _PACKED:
        fix = "torch cannot convert it, so unpack it to one of those first"
    else:
        fix = f"convert it first, e.g. {name}.to(torch.float32)"
    return (
        f"{PREFIX} expected {name} to be a float16, bfloat16, float32 or float64 tensor, "
        f"but got {dtype}; {fix}"
    )


def device_message(a: Tensor, b: Tensor) -> str:
    return (
        f"{PREFIX} expected a and b on the same device, but got a on {a.device} and b on {b.device}"
    )


def broadcast_message(a: torch.Size, b: torch.Size) -> str:
    """check_inputs()'s words for shapes that do not broadcast: the first dim where they clash."""
    dim = max(len(a), len(b))
    for d in range(dim):
        sa = a[d - dim + len(a)] if d >= dim - len(a) else 1
        sb = b[d - dim + len(b)] if d >= dim - len(b) else 1
        if sa != sb and sa != 1 and sb != 1:
            break
    return (
        f"{PREFIX} expected the shapes of a and b to broadcast, but a: {list(a)} and "
        f"b: {list(b)} differ in dim {d} of the result ({sa} and {sb}), where neither is 1"
    )


def _not_a_tensor(name: str, value: object, other: object) -> TypeError:
    if value is None:
        return TypeError(none_message(name))
    like = "a" if name == "b" else "b"
    options = f", dtype={like}.dtype, device={like}.device" if isinstance(other, Tensor) else ""
    # Python numbers follow rules of their own in torch.add (wrapped numbers); the op takes
    # tensors only.
    if isinstance(value, complex):  # torch.tensor(1j, dtype=a.dtype) would fail in turn
        fix = (
            "pass a tensor of its real part (the op takes real numbers), "
            f"e.g. torch.tensor({value.real!r}{options})"
        )
    elif isinstance(value, Number):
        fix = f"pass a tensor, e.g. torch.tensor({value!r}{options})"
    elif isinstance(value, (list, tuple)) or any(hasattr(value, p) for p in _ARRAY_PROTOCOLS):
        fix = f"pass a tensor, e.g. torch.as_tensor({name}{options})"
    else:
        fix = "pass a tensor"
    return TypeError(f"{PREFIX} expected {name} to be a Tensor, but got {kind(value)}; {fix}")


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
