"""Where the wheel keeps what C++ consumers build against and load (the pybind11 ``get_include``
style)."""

from pathlib import Path

from . import _C

# Where the wheel's files are: beside the compiled module, which an editable install keeps in its
# build directory (with the headers, libraries and CMake files), apart from the Python sources.
_PACKAGE = Path(_C.__file__).resolve().parent


def get_include() -> str:
    """The include directory for ``<sum_double/sum_double.h>`` and ``<sum_double/op.h>``."""
    return str(_PACKAGE / "include")


def cmake_dir() -> str:
    """The directory of ``SumDoubleConfig.cmake``, for ``-DSumDouble_DIR=...``.

    A scikit-build-core build that lists sum-double in ``build-system.requires`` needs no hint:
    the ``cmake.root`` entry point tells it where to look.
    """
    return str(_PACKAGE.parent / "sum_double_cmake" / "lib" / "cmake" / "SumDouble")


def library_path() -> str:
    """The op library, ``libsum_double_ops.so``: the op's registrations without Python.

    A C++ program that loads it (links ``SumDouble::ops``, or ``dlopen``s this path) after torch
    has ``torch.ops.sum_double.add`` in its dispatcher, e.g. for an AOTInductor package
    (docs/deploying.md). In Python, ``import sum_double`` loads it.
    """
    return str(_PACKAGE / "lib" / "libsum_double_ops.so")
