"""c = a + b as a custom PyTorch operator, with autograd, on CPU and CUDA.

``sum_double.add(a, b)`` (alias ``sum_double_op``, the seed tutorial's name) calls
``torch.ops.sum_double.add``, which is registered on the LibTorch stable ABI: one wheel serves
every torch >= 2.10. The op's own parts are in ``_definition.py``.
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

# The core. Loading _C loads the op library (lib/libsum_double_ops.so), which registers the op;
# then its fake kernel, vmap rule and autograd, and the public call.
from . import _C, _autograd, _fake, _vmap  # noqa: E402, F401
from ._cpp import cmake_dir, get_include, library_path  # noqa: E402
from ._definition import NAME  # noqa: E402
from ._public import call  # noqa: E402

globals()[NAME] = call  # the public name

# Optional parts, one line each: each registers itself with the core, which imports none of them.
# isort: off
from . import _fast_route  # noqa: E402, F401  the call on torch's private names: less host time
from . import _inductor_fusion  # noqa: E402, F401  inductor fuses the op as its ATen twin
from . import _distributed  # noqa: E402, F401  DTensor's sharding rule
from . import _out  # noqa: E402, F401  out=, torch.add's form that writes into a given tensor

# isort: on
sum_double_op = call
"""The seed tutorial's name for the op's public call."""

__version__: str = _C.__version__
__all__ = ["__version__", NAME, "cmake_dir", "get_include", "library_path", "sum_double_op"]
