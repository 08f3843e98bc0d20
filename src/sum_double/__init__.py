"""c = a + b as a custom PyTorch operator, with autograd, on CPU and CUDA.

``sum_double.add(a, b)`` (alias ``sum_double_op``, the seed tutorial's name) calls
``torch.ops.sum_double.add``, which is registered on the LibTorch stable ABI: one wheel serves
every torch >= 2.10.
"""

import sys

# `python -m sum_double --cmakedir` (--includes, --library, --help) needs no torch, whose import
# takes seconds: runpy imports this package before it runs __main__, so the answer is given here.
if sys.argv[:1] == ["-m"]:
    from ._cli import answer_before_torch

    answer_before_torch(__name__)  # exits if it answered

import torch

_MIN_TORCH = "2.10"

# The op is compiled against the 2.10 stable ABI; an older libtorch lacks the symbols it calls, and
# loading it there would fail with an undefined-symbol error that names none of this.
if torch.__version__ < _MIN_TORCH:
    raise ImportError(
        f"sum_double needs torch>={_MIN_TORCH}, but torch {torch.__version__} is installed. "
        f"Upgrade it: pip install 'torch>={_MIN_TORCH}'"
    )

# Loading _C loads the op library (lib/libsum_double_ops.so), which registers
# torch.ops.sum_double.add; _distributed, the op's sharding rule for DTensor.
from . import _C, _distributed  # noqa: E402, F401
from ._cpp import cmake_dir, get_include, library_path  # noqa: E402
from ._ops import add, sum_double_op  # noqa: E402

__version__: str = _C.__version__
__all__ = ["__version__", "add", "cmake_dir", "get_include", "library_path", "sum_double_op"]
