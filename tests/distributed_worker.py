"""One rank of the two-process DTensor checks that tests/test_distributed.py starts.

Not collected by pytest: that module's fixture runs two of these,

    RANK=r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=p python distributed_worker.py DEVICE OUT

with DEVICE cpu (gloo) or cuda (NCCL, rank r on cuda:r). Every case runs in turn and appends one
JSON line to OUT as it ends, {"case": name, "error": traceback or null}, so a hang still leaves
what ran before it. Each case does all of its collectives before its first assertion, so that a
failure on one rank cannot leave the other waiting in a collective.
"""

import json
import os
import sys
import traceback
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh

from distributed_cases import BROADCAST_CASES, MIXED_DTYPE_CASES, OUT_CASES, PLACEMENT_CASES
from distributed_training import check_fsdp2_step, check_tensor_parallel_block

# Every case by name, in the order the ranks run and report them: the DTensor case tables
# (distributed_cases.py), then the training checks (distributed_training.py).
CASES = {
    **PLACEMENT_CASES,
    **MIXED_DTYPE_CASES,
    **BROADCAST_CASES,
    **OUT_CASES,
    "fsdp2_step": check_fsdp2_step,
    "tensor_parallel_block": check_tensor_parallel_block,
}


def main(device: str, out_path: str) -> None:
    rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    # A collective that waits this long has lost its peer: fail rather than hang. A third of the
    # job's own limit (test_distributed.py), which emulated ranks raise.
    timeout = timedelta(seconds=int(os.environ.get("SUM_DOUBLE_RANKS_TIMEOUT_S", "180")) // 3)
    if device == "cuda":
        torch.cuda.set_device(rank)
        dist.init_process_group("nccl", timeout=timeout, device_id=torch.device("cuda", rank))
    else:
        dist.init_process_group("gloo", timeout=timeout)
    try:
        mesh = init_device_mesh(device, (world_size,))
        with open(out_path, "a") as out:
            for name, case in CASES.items():
                try:
                    case(mesh)
                    error = None
                except Exception:
                    error = traceback.format_exc()
                out.write(json.dumps({"case": name, "error": error}) + "\n")
                out.flush()
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main(*sys.argv[1:])
