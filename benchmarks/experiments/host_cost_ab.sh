#!/usr/bin/env bash
# Host cost of this tree against another, the trees taking turns (a machine's own speed swings
# between minutes, so only ratios measured side by side compare): each tree is built into a
# directory of its own, then `host_cost.py` runs ROUNDS times for each, alternating.
#     bash benchmarks/experiments/host_cost_ab.sh OTHER_SOURCE_TREE [ROUNDS] [host_cost.py options]
# e.g. `git archive <commit> | tar -x -C /tmp/before &&
#       bash benchmarks/experiments/host_cost_ab.sh /tmp/before`.
# Needs the build requirements installed (the builds run without isolation). On a GPU machine
# CUDAARCHS=90-real (say) keeps the builds short; without one,
# PIP_CONFIG_SETTINGS=cmake.define.SUM_DOUBLE_CUDA=OFF builds them CPU-only.
set -euo pipefail
cd "$(dirname "$0")/../.."
other=$(cd "$1" && pwd)
rounds=${2:-5}
shift $(($# < 2 ? $# : 2))
python=${PYTHON:-python3}
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
for tree in this other; do
  src=.
  [ $tree = other ] && src=$other
  echo "==> building $tree ($src)"
  (cd "$src" && "$python" -m pip install -q --no-build-isolation --no-deps --target "$site/$tree" .)
done
for ((round = 1; round <= rounds; round++)); do
  for tree in other this; do
    echo "== round $round, $tree tree"
    PYTHONPATH=$site/$tree "$python" benchmarks/host_cost.py --rounds 11 "$@" | sed -n 2,4p
  done
done
