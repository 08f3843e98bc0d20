"""An op library built on sum-double's C++ SDK (an example to copy).

``add3(a, b, c)`` calls sum-double's launchers, linked into this package's own library;
``add_via_sum_double(a, b)`` calls ``torch.ops.sum_double.add`` through PyTorch's dispatcher.
"""

# First: sum_double loads its op library, which registers torch.ops.sum_double.add, the op that
# add_via_sum_double calls.
import sum_double  # noqa: F401

from . import _C  # noqa: F401  (loading the library registers torch.ops.downstream_demo.*)
from ._ops import add3, add_via_sum_double

__all__ = ["add3", "add_via_sum_double"]
