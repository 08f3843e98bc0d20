"""The op on DTensor: placements, gradients, FSDP2 and tensor parallelism over two ranks.

The ranks are two processes running tests/distributed_worker.py (its cases: distributed_cases.py
and distributed_training.py), started once per device by a module-scoped fixture (gloo on the
CPU; NCCL on cuda:0 and cuda:1 where two GPUs are present), on the loopback interface only and
within a hard time limit. They run every case; each test here reads its case's outcome. The last
tests check when the sharding rule is registered, each in a fresh one-rank process (side by side).
"""

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from distributed_cases import BROADCAST_CASES, MIXED_DTYPE_CASES, OUT_CASES, PLACEMENT_CASES
from reference import TWIN_NAME
from support import NAME, Runs, run_side_by_side

WORKER = Path(__file__).with_name("distributed_worker.py")
WORLD_SIZE = 2
# The CPU job takes about 15 s on a 2-core machine: past this it hangs, and fails. Ranks under
# emulation (ci/aarch64.sh) get a longer limit through SUM_DOUBLE_RANKS_TIMEOUT_S.
JOB_TIMEOUT_S = int(os.environ.get("SUM_DOUBLE_RANKS_TIMEOUT_S", "180"))
# gloo and NCCL's bootstrap would otherwise use whatever address the host name resolves to.
LOOPBACK_ONLY = {"MASTER_ADDR": "127.0.0.1", "GLOO_SOCKET_IFNAME": "lo", "NCCL_SOCKET_IFNAME": "lo"}


@dataclass
class Job:
    """What the ranks reported: per rank, each case's traceback (None: it passed)."""

    outcomes: list[dict[str, str | None]]
    ends: list[str]  # per rank: its exit code, or that it was killed
    logs: list[str]  # per rank: the end of its output

    def failures(self, case: str) -> str:
        found = []
        for rank, outcomes in enumerate(self.outcomes):
            if case not in outcomes:
                found.append(
                    f"rank {rank} never reported {case} ({self.ends[rank]}); its output ends:\n"
                    f"{self.logs[rank]}"
                )
            elif outcomes[case] is not None:
                found.append(f"rank {rank}:\n{outcomes[case]}")
        return "\n".join(found)


def _free_loopback_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_ranks(device: str, out_dir: Path) -> Job:
    env = {**os.environ, **LOOPBACK_ONLY, "WORLD_SIZE": str(WORLD_SIZE)}
    env["MASTER_PORT"] = str(_free_loopback_port())
    procs = []
    for rank in range(WORLD_SIZE):
        # -W error: warnings are errors in the ranks too, as in this suite (pyproject.toml).
        results = out_dir / f"rank{rank}.jsonl"
        command = [sys.executable, "-W", "error", str(WORKER), device, str(results)]
        with open(out_dir / f"rank{rank}.log", "w") as log:
            procs.append(
                subprocess.Popen(
                    command, env={**env, "RANK": str(rank)}, stdout=log, stderr=subprocess.STDOUT
                )
            )
    deadline = time.monotonic() + JOB_TIMEOUT_S
    ends = []
    for proc in procs:
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0))
            ends.append(f"exit code {proc.returncode}")
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            ends.append(f"killed after {JOB_TIMEOUT_S} s")
    outcomes = []
    for rank in range(WORLD_SIZE):
        results = out_dir / f"rank{rank}.jsonl"
        lines = results.read_text().splitlines() if results.exists() else []
        outcomes.append({o["case"]: o["error"] for o in map(json.loads, lines)})
    logs = [(out_dir / f"rank{rank}.log").read_text()[-3000:] for rank in range(WORLD_SIZE)]
    return Job(outcomes, ends, logs)


@pytest.fixture(scope="module", params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def job(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Job:
    device = request.param
    if device == "cuda" and torch.cuda.device_count() < WORLD_SIZE:
        pytest.skip(f"needs {WORLD_SIZE} CUDA devices, found {torch.cuda.device_count()}")
    return _run_ranks(device, tmp_path_factory.mktemp(f"ranks-{device}"))


def _passed(job: Job, case: str) -> None:
    failures = job.failures(case)
    if failures:
        pytest.fail(failures, pytrace=False)


@pytest.mark.parametrize("case", PLACEMENT_CASES)
def test_placements_values_and_gradients(job: Job, case: str) -> None:
    # SHAPE-ROUTE-A+B: the output placement is the cheapest common one, the values and the
    # gradients match the reference's on the same DTensors (tests/reference.py).
    _passed(job, case)


@pytest.mark.parametrize("case", MIXED_DTYPE_CASES)
def test_mixed_dtypes(job: Job, case: str) -> None:
    # DTYPE_DTYPE-ROUTE-A+B: the placements of one dtype (but which of two shards moves), the
    # result's dtype promoted, values and gradients (cast to each input's dtype) the reference's.
    _passed(job, case)


@pytest.mark.parametrize("case", BROADCAST_CASES)
def test_broadcast(job: Job, case: str) -> None:
    # GROUP[_SHAPES]-ROUTE-A+B: bias adds and size-1 dims placed as the twin places them, values
    # and gradients (summed over the broadcast dims) the reference's on the same DTensors.
    _passed(job, case)


@pytest.mark.parametrize("case", OUT_CASES)
def test_out(job: Job, case: str) -> None:
    # out-A+B->OUT: out= into a DTensor keeps out's placement and holds the twin's values.
    _passed(job, case)


def test_fsdp2_training_step(job: Job) -> None:
    _passed(job, "fsdp2_step")


def test_tensor_parallel_block(job: Job) -> None:
    _passed(job, "tensor_parallel_block")


# Appended to some imports: the op (argv[2] names it) of two DTensors in a one-rank group (a
# FileStore, argv[1]: no port) and prints "imported" first (so that anything before it came from
# the imports), the result last.
_OP_OF_DTENSORS = """
print("imported", flush=True)
import sys
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Shard, distribute_tensor

dist.init_process_group("gloo", store=dist.FileStore(sys.argv[1], 1), rank=0, world_size=1)
a = distribute_tensor(torch.ones(4), init_device_mesh("cpu", (1,)), [Shard(0)])
try:
    result = getattr(sum_double, sys.argv[2])(a, a).placements
except NotImplementedError as e:
    result = f"NotImplementedError: {e}"
finally:
    dist.destroy_process_group()
print(result, flush=True)
"""


IMPORT_ORDERS = {
    # The usual order: the rule waits for torch.distributed.tensor (importing it costs about a
    # second, which `import sum_double` does not pay).
    "sum_double_first": (
        "import sys, sum_double\n"
        "assert 'torch.distributed.tensor' not in sys.modules, 'sum_double imported DTensor'\n"
        "import torch.distributed.tensor\n"
    ),
    "dtensor_first": "import torch.distributed.tensor, sum_double\n",
}
# As on a torch that lacks the API: plain tensors as before, no output, no warning (-W error), and
# DTensor's own error for a DTensor.
WITHOUT_REGISTER_SHARDING = (
    "import torch.distributed.tensor.experimental as experimental\n"
    "del experimental.register_sharding\n"
    "import torch, sum_double\n"
    "a = torch.randn(2)\n"
    f"assert torch.equal(sum_double.{NAME}(a, a), {TWIN_NAME}(a, a))\n"
)


@pytest.fixture(scope="module")
def rule_runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """_OP_OF_DTENSORS after each of the imports above, each in a fresh Python (where the rule is
    registered, or not, is the point), side by side; argv[1]: a FileStore of its own, argv[2]: the
    op's name.
    ci/aarch64.sh leaves out every test that reads this."""
    folder = tmp_path_factory.mktemp("rule")
    scripts = {**IMPORT_ORDERS, "without_register_sharding": WITHOUT_REGISTER_SHARDING}
    commands = {
        name: ["-W", "error", "-c", imports + _OP_OF_DTENSORS, str(folder / f"{name}.store"), NAME]
        for name, imports in scripts.items()
    }
    return run_side_by_side(commands, timeout=120, env={**os.environ, **LOOPBACK_ONLY})


def _lines(runs: Runs, name: str) -> list[str]:
    """What that run printed: "imported", gloo's lines, the result; checked to have exited 0 and
    written nothing to stderr."""
    child = runs[name].result()
    assert (child.returncode, child.stderr) == (0, ""), child.stderr
    return child.stdout.splitlines()


@pytest.mark.parametrize("order", IMPORT_ORDERS)
def test_rule_registered_whichever_is_imported_first(order: str, rule_runs: Runs) -> None:
    lines = _lines(rule_runs, order)
    assert (lines[0], lines[-1]) == ("imported", "(Shard(dim=0),)"), lines


def test_without_register_sharding_the_op_works_and_import_says_nothing(rule_runs: Runs) -> None:
    lines = _lines(rule_runs, "without_register_sharding")
    assert lines[0] == "imported", lines
    # DTensor meets the op below autograd, by that name (_ops.py).
    refused = f"NotImplementedError: Operator sum_double._{NAME}.default does not"
    assert lines[-1].startswith(refused)
