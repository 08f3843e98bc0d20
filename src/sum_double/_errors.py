"""What the op's errors become in Python: a TypeError that says how to pass a Python number, and
torch.OutOfMemoryError given back its type after crossing the stable ABI as a code."""

from numbers import Number

import torch
from torch import Tensor

from . import _C

# torch's reason for an error ("CUDA out of memory", ...) comes along with its code only where the
# headers built against and the torch running both allow it.
_REASON_CROSSES = _C.torch_reason_in_errors()


def number_error(a: object, b: object) -> TypeError:
    """Python numbers follow rules of their own in torch.add (wrapped numbers); the op takes
    tensors only, so say which argument and how to make it one."""
    name, number, other = ("a", a, b) if isinstance(a, Number) else ("b", b, a)
    like = "a" if name == "b" else "b"
    example = (
        f"torch.tensor({number!r}, dtype={like}.dtype, device={like}.device)"
        if isinstance(other, Tensor)
        else f"torch.tensor({number!r})"
    )
    return TypeError(
        f"sum_double.add(): expected {name} to be a Tensor, but got a Python "
        f"{type(number).__name__}; pass a tensor, e.g. {example}"
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
