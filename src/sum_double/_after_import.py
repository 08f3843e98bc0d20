"""Run a function once a module has been imported, by whoever imports it.

The package registers the op with parts of torch that take seconds to import (DTensor, inductor),
which most users never load; importing them from ``import sum_double`` would make every import
that much slower, and torch has no hook to run code after a module's import.
"""

import importlib.abc
import sys
import warnings
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any


def call_after_import(name: str, then: Callable[[], None]) -> None:
    """Call ``then`` now if module ``name`` is loaded, else right after it is. An error in ``then``
    is a warning: what it registers is optional, and the import is someone else's."""
    if name in sys.modules:
        _call(name, then)
    else:
        sys.meta_path.insert(0, _AfterImport(name, then))


def _call(name: str, then: Callable[[], None]) -> None:
    try:
        then()
    except Exception as e:  # any error: the module itself imported fine
        warnings.warn(f"sum_double could not register with {name}: {e!r}", stacklevel=2)


class _ThenCall(importlib.abc.Loader):
    """The module's own loader, then ``then``: what the module registers exists once it has run.
    Anything else asked of it is the real loader's."""

    def __init__(self, loader: importlib.abc.Loader, finder: "_AfterImport") -> None:
        self._loader, self._finder = loader, finder

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        # Only now: a spec found by importlib.util.find_spec alone is never executed.
        if self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)
        _call(self._finder.name, self._finder.then)

    def __getattr__(self, name: str) -> Any:  # get_data, get_resource_reader, ...
        if name == "_loader":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self._loader, name)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: gives the spec that the finders after it find for the module a loader
    that calls ``then`` after the module runs."""

    def __init__(self, name: str, then: Callable[[], None]) -> None:
        self.name, self.then = name, then

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != self.name:
            return None
        for finder in sys.meta_path[sys.meta_path.index(self) + 1 :]:
            find_spec = getattr(finder, "find_spec", None)  # legacy finders have none
            spec = find_spec(fullname, path, target) if find_spec else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None:
            spec.loader = _ThenCall(spec.loader, self)
        return spec
