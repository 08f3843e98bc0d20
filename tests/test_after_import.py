"""call_after_import (_after_import.py), on a module of the test's own: the hook that registers the
op with DTensor and inductor when, and only when, someone imports them."""

import importlib
import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sum_double._after_import import call_after_import


@pytest.fixture
def module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[str]:
    """The name of a module not yet imported, found on sys.path; the import system's state is
    restored afterwards."""
    name = "probe_" + re.sub(r"\W", "_", request.node.name)
    (tmp_path / f"{name}.py").write_text("RAN = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    yield name
    sys.modules.pop(name, None)


def test_then_runs_once_right_after_the_module_and_the_hook_goes(module: str) -> None:
    seen = []
    call_after_import(module, lambda: seen.append(sys.modules[module].RAN))
    hooks = len(sys.meta_path)
    assert seen == []
    importlib.import_module(module)
    assert seen == [True]  # after the module's body, which it can use
    assert len(sys.meta_path) == hooks - 1
    importlib.reload(sys.modules[module])
    assert seen == [True]


def test_then_runs_at_once_where_the_module_is_loaded(module: str) -> None:
    importlib.import_module(module)
    seen = []
    call_after_import(module, lambda: seen.append(True))
    assert seen == [True]


def test_finding_the_module_without_importing_it_calls_nothing(module: str) -> None:
    seen = []
    call_after_import(module, lambda: seen.append(True))
    assert importlib.util.find_spec(module) is not None
    assert seen == []
    importlib.import_module(module)
    assert seen == [True]


def test_the_module_keeps_what_its_own_loader_gives(module: str) -> None:
    call_after_import(module, lambda: None)
    loaded = importlib.import_module(module)
    # What the module's loader is asked for beyond running it (source, file name) is answered by
    # the loader the import system found, not lost to the hook's.
    assert loaded.__loader__.get_source(module) == "RAN = True\n"
    assert Path(loaded.__loader__.get_filename(module)).name == f"{module}.py"


def _fails() -> None:
    raise TypeError("a renamed keyword")


def test_a_failing_then_is_a_warning_and_the_module_still_imports(module: str) -> None:
    call_after_import(module, _fails)
    with pytest.warns(UserWarning, match=f"could not register with {module}: TypeError"):
        loaded = importlib.import_module(module)
    assert loaded.RAN


def test_a_failing_then_for_a_loaded_module_is_a_warning() -> None:
    with pytest.warns(UserWarning, match="could not register with torch: TypeError"):
        call_after_import("torch", _fails)


def test_a_module_nobody_has_leaves_the_import_error_as_it_was(module: str) -> None:
    missing = module + "_missing"
    seen = []
    call_after_import(missing, lambda: seen.append(True))
    with pytest.raises(ModuleNotFoundError, match=missing):
        importlib.import_module(missing)
    assert seen == []
