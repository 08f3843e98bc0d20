"""Where the wheel keeps what C++ consumers build against and load (the pybind11 ``get_include``
style).

It imports no torch and loads no binary, so ``python -m sum_double --cmakedir`` can answer from
here before ``__init__`` imports torch (``_cli.py``).
"""

from importlib.util import find_spec
from pathlib import Path


def _package_dir() -> Path:
    """Where the wheel's files are: beside the compiled module, which an editable install may keep
    apart from the Python sources. find_spec locates the module without loading it (loading it
    loads the op library, which needs torch)."""
    spec = find_spec(f"{__package__}._C")
    if spec is None or spec.origin is None:
        raise ImportError(f"{__package__}._C, the compiled module, is missing: reinstall the wheel")
    return Path(spec.origin).resolve().parent


def get_include() -> str:
    """The include directory for ``<sum_double/sum_double.h>`` and ``<sum_double/op.h>``."""
    return str(_package_dir() / "include")


def cmake_dir() -> str:
    """The directory of ``SumDoubleConfig.cmake``, for ``-DSumDouble_DIR=...``.

    A scikit-build-core build that lists sum-double in ``build-system.requires`` needs no hint:
    the ``cmake.root`` entry point tells it where to look.
    """
    return str(_package_dir().parent / "sum_double_cmake" / "lib" / "cmake" / "SumDouble")


def library_path() -> str:
    """The op library, ``libsum_double_ops.so``: the op's registrations without Python.

    A C++ program that loads it (links ``SumDouble::ops``, or ``dlopen``s this path) after torch
    has ``torch.ops.sum_double.add`` in its dispatcher, e.g. for an AOTInductor package
    (docs/deploying.md). In Python, ``import sum_double`` loads it.
    """
    return str(_package_dir() / "lib" / "libsum_double_ops.so")
