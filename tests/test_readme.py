"""The README's Python examples run as written, with or without a GPU."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", README.read_text(encoding="utf-8"), re.M | re.S)


def test_the_readme_has_python_examples() -> None:
    assert BLOCKS, f"no ```python block found in {README}"


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_a_readme_example_runs(code: str) -> None:
    exec(compile(code, str(README), "exec"), {"__name__": "readme"})
