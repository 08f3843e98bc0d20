"""The op's two names in the dispatcher, each with every kernel the op library registers.

``torch.ops.sum_double.<NAME>`` is what callers, Dynamo's and FX's graphs and export's programs
name; its autograd is Python (``_autograd.py``). ``_<NAME>`` is the same kernels with no autograd
kernel (the op library registers both: ``src/ops/op_definition.h``): what the public call and the
op's autograd call once autograd is dealt with, so compiled graphs, traced there, run no Python.
"""

import torch

from ._definition import NAME

QUALNAME = f"{__package__}.{NAME}"  # how messages name the op: sum_double.add
OP_PACKET = getattr(torch.ops.sum_double, NAME)  # as callers name it, and overrides and traces see
OP = OP_PACKET.default
BELOW_AUTOGRAD = getattr(torch.ops.sum_double, f"_{NAME}").default
OPS = (OP, BELOW_AUTOGRAD)  # what the fake kernel, vmap and sharding rules are registered for
