"""`benchmarks/bench.py` runs end to end (tiny sizes), so it cannot rot between releases; the
compiled-training benchmark's two models differ in the op alone. The scripts read the op's name
and twin from the package, as this file does from tests/support.py and tests/reference.py, so a
copy made into another op runs both unchanged.

It asserts what the script reports, never how fast anything is: speed lives in benchmarks.
"""

import argparse
import importlib.util
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from reference import TWIN, TWIN_NAME
from support import BELOW_NAME, QUALNAME, REFUSED_DEVICES, op

# A script of the repository, not of the wheel: imported from its file, as importlib's docs show.
_benchmarks = Path(__file__).parents[1] / "benchmarks"
_spec = importlib.util.spec_from_file_location("bench", _benchmarks / "bench.py")
bench = importlib.util.module_from_spec(_spec)
sys.modules["bench"] = bench
# bench.py imports the files beside it (report.py, timing.py, workload.py), which running it puts on
# sys.path and loading it from its file does not: so the folder goes there for this import only.
sys.path.insert(0, str(_benchmarks))
try:
    _spec.loader.exec_module(bench)
    timing = importlib.import_module("timing")
    workload = importlib.import_module("workload")
    compiled_training = importlib.import_module("compiled_training")
finally:
    sys.path.remove(str(_benchmarks))


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def test_bench_writes_table_and_json(
    device: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json = tmp_path / "bench.json"
    argv = [
        "--device",
        device,
        "--dtypes",
        "float32",
        "bfloat16",
        "--sizes",
        "1024",
        "5000",
        "--reps",
        "3",
        "--json",
        str(out_json),
    ]
    assert bench.main(argv) == 0

    table = capsys.readouterr().out
    assert "sum_double" in table
    assert TWIN_NAME in table
    records = json.loads(out_json.read_text())
    assert [(r["dtype"], r["n"]) for r in records] == [
        ("float32", 1024),
        ("float32", 5000),
        ("bfloat16", 1024),
        ("bfloat16", 5000),
    ]
    for r in records:
        assert r["ours_us"] > 0
        assert r["twin_us"] > 0
        assert r["speedup"] == pytest.approx(r["twin_us"] / r["ours_us"])
        assert r["torch"]
        assert r["sum_double"]
        assert r["device"]
        assert (r["read_write_gb_s"] is None) == (device == "cpu")


def test_plot_without_matplotlib_says_how_to_get_it_before_measuring(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Hidden, so the error path runs whether or not matplotlib is here (it is no test dependency).
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--device", "cpu", "--plot", "never.png"])
    assert exit_info.value.code == 2
    assert "pip install matplotlib" in capsys.readouterr().err


def test_help_explains_every_case_and_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for name, words in bench.CASES.items():
        assert f"  {name:<11} {words}\n" in text
    assert "(see above)" not in text
    parser = bench.argument_parser()
    for action in parser._actions:  # argparse lists its arguments nowhere public
        assert action.help, action.dest
        if action.default not in (None, argparse.SUPPRESS):
            assert "(default: " in action.help, action.dest
    assert "--device {cpu,cuda,cuda:N}" in text


@pytest.mark.parametrize(
    ("device", "problem"),
    [
        *REFUSED_DEVICES,
        pytest.param("cuda:", "--device cuda:: expected cpu, cuda or cuda:N"),
        pytest.param("cuda:x", "--device cuda:x: expected cpu, cuda or cuda:N"),
    ],
)
def test_device_is_checked_before_measuring(
    device: str, problem: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The check is python -m sum_double's (tests/test_package.py has its every rule): one line of
    # error and status 2, argparse's way, before anything is measured.
    monkeypatch.setattr(bench, "run", None)  # measuring would raise a TypeError, not exit 2
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--device", device])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1
    assert err.endswith(f"\npython benchmarks/bench.py: error: {problem}\n")


def test_datasheet_lookup_prefers_the_specific_name() -> None:
    # The lookup takes the first key found in the device name, so a key that contains another
    # (GH200 contains H200) must come before it.
    names = list(workload.DATASHEET_BYTES_PER_S)
    for i, general in enumerate(names):
        for specific in names[i + 1 :]:
            assert general not in specific, f"{specific!r} must come before {general!r}"


def test_cpu_timing_never_hands_a_call_the_set_the_call_before_it_read() -> None:
    # Two ops reading one set back to back: the second finds it in cache and looks faster
    # (benchmarks/NOTES.md, "CPU bench method").
    calls: list[tuple[str, int]] = []
    fns = [lambda i: calls.append(("ours", i)), lambda i: calls.append(("ref", i))]
    timing.cpu_seconds(fns, sets=5, reps=6)
    timed = calls[6:]  # after the warm-up: 3 sets x 2 fns
    assert len(timed) == 12
    sets_read = [i for _, i in timed]
    assert all(x != y for x, y in itertools.pairwise(sets_read))
    # Each op goes first in half of the rounds.
    firsts = [timed[k][0] for k in range(0, len(timed), 2)]
    assert firsts.count("ours") == firsts.count("ref") == 3


def test_compiled_training_models_differ_in_the_op_alone() -> None:
    # The benchmark's comparison is fair only if its models share every weight and compute the
    # same: eagerly, where the op is its twin bit for bit, their outputs are equal.
    models = compiled_training.make_models(
        {TWIN_NAME: TWIN, QUALNAME: op},
        layers=2,
        width=64,
        dtype=torch.float32,
        device=torch.device("cpu"),
    )
    ref, ours = (model._orig_mod for model in models.values())  # the modules torch.compile wraps
    assert [b.combine for b in ref] == [TWIN] * 2
    assert [b.combine for b in ours] == [op] * 2
    for (name, w), (_, w_ours) in zip(
        ref.state_dict().items(), ours.state_dict().items(), strict=True
    ):
        assert torch.equal(w, w_ours), name
    x = torch.randn(2, 8, 64)
    assert torch.equal(ref(x), ours(x))


@pytest.mark.usefixtures("no_compile_caches")
def test_compiled_trainings_unfused_model_calls_the_op() -> None:
    # Else its unfused model would quietly be a copy of the fused one.
    from torch._inductor.utils import run_and_get_code

    compiled = torch.compile(op, backend=compiled_training.unfused_inductor)
    _, code = run_and_get_code(compiled, torch.randn(3), torch.randn(3))
    assert any(f"{BELOW_NAME}.default(" in source for source in code), code
    assert "SUM_DOUBLE_INDUCTOR_FUSION" not in os.environ  # as it was before


def test_compiled_trainings_turns_put_each_model_in_each_place_equally_often() -> None:
    # Else a model that always runs in the middle reads slower than the same graph elsewhere.
    for names in (["a", "b", "c"], ["a", "b", "c", "d"]):
        orders = compiled_training.turn_orders(names)
        for place in range(len(names)):
            assert sorted(order[place] for order in orders) == sorted(names * 2)


@pytest.mark.usefixtures("no_compile_caches")
def test_compiled_trainings_control_is_compiled_separately() -> None:
    # Else Dynamo hands the control the first twin model's compiled code, and the control
    # says nothing of two graphs compiled apart, as the fused model's is.
    from torch._dynamo.utils import counters

    shape = (1, 64, torch.float32, torch.device("cpu"))
    models = compiled_training.make_models({TWIN_NAME: TWIN}, *shape)
    models.update(
        compiled_training.make_models({"control": TWIN}, *shape, compiled_training.inductor_again)
    )
    torch._dynamo.reset()  # no code compiled by an earlier test to reuse
    counters.clear()
    for model in models.values():
        model(torch.randn(2, 8, 64))
    assert counters["stats"]["unique_graphs"] == 2


def test_host_cost_runs() -> None:
    # host_cost.py reads the package's routes by their internal names: a tiny run of it, so that a
    # change there cannot leave it broken unseen.
    script = str(_benchmarks / "host_cost.py")
    args = [sys.executable, script, "--device", "cpu", "--calls", "20", "--rounds", "1"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "public route" in proc.stdout
