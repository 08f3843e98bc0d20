"""``python -m sum_double``: runs what the command line asks for.

The flags, the help and the device check are in ``_cli.py``, which answers --help and the paths
before torch is imported (``__init__.py``); the demo is ``_demo.py``; ``info`` is ``_info.py``.
"""

import sys

import torch

from sum_double import _C, _cli, _demo, _info


def main(argv: list[str] | None = None) -> int:
    parser = _cli.parser()
    args = parser.parse_args(argv)
    path = _cli.path_asked(args)
    if path is not None:
        print(path)
        return 0
    if args.command == "info":
        return _info.info()
    if args.device is None:
        cuda = torch.cuda.is_available() and not _C.cpu_only
        args.device = "cuda" if cuda else "cpu"
    problem = _cli.device_problem(args.device)
    if problem is not None:
        parser.error(problem)
    return _demo.demo(torch.device(args.device))


if __name__ == "__main__":
    sys.exit(main())
