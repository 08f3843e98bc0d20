"""The rule that makes add_via_sum_double work: sum_double is imported before the first call."""

import subprocess
import sys

# Loads downstream_demo's library alone, as torch.ops.load_library would in any program: the
# package's __init__ (which imports sum_double first) does not run.
SCRIPT = """
import importlib.machinery, importlib.util, sys
from pathlib import Path
import torch
package = Path(importlib.util.find_spec("downstream_demo").submodule_search_locations[0])
torch.ops.load_library(package / ("_C" + importlib.machinery.EXTENSION_SUFFIXES[0]))
assert "sum_double" not in sys.modules, "sum_double was imported"
a = torch.ones(3)
try:
    torch.ops.downstream_demo.add_via_sum_double(a, a)
except RuntimeError as e:
    print("without:", e)
import sum_double
out = torch.ops.downstream_demo.add_via_sum_double(a, a)
print("with:", torch.equal(out, sum_double.sum_double_op(a, a)))  # the seed's name for the op
"""


def test_calls_before_import_sum_double_say_to_import_it() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("without: sum_double::add is not registered"), proc.stdout
    assert "In Python, `import sum_double` first; in C++, link SumDouble::ops" in proc.stdout
    # Then the same call works: what was missing is the import, nothing else.
    assert proc.stdout.endswith("\nwith: True\n"), proc.stdout
