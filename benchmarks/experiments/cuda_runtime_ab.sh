#!/usr/bin/env bash
# Kernel time and host cost of this tree built with two CUDA toolkits, the builds taking turns in
# one run (a machine's own speed swings between minutes): each build goes into a directory of its
# own, then bench.py (kernel time, against torch.add in the same process) and host_cost.py run
# ROUNDS times for each, alternating; benchmarks/experiments/cuda_runtime_ab.py compares the
# medians.
#     bash benchmarks/experiments/cuda_runtime_ab.sh NVCC_A NVCC_B OUTDIR [ROUNDS]
# e.g. NVCC_A=.cuda12/bin/nvcc (the release's CUDA 12.4, ci/cuda12-toolkit.sh) against the
# machine's CUDA 13 nvcc. Needs a GPU and the build requirements installed (no build isolation).
# OPS_A=libsum_double_ops.so: build a's op library (all of its CUDA code) is that file, built
# elsewhere from the same commit, for a toolkit that cannot build on this machine.
set -euo pipefail
declare -A nvcc=([a]="$(realpath "$1")" [b]="$(realpath "$2")")
mkdir -p "$3"
out=$(realpath "$3")
[ -z "${OPS_A:-}" ] || OPS_A=$(realpath "$OPS_A")
cd "$(dirname "$0")/../.."
rounds=${4:-3}
python=${PYTHON:-python3}
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
for build in a b; do
  echo "==> building with ${nvcc[$build]}"
  CUDACXX=${nvcc[$build]} "$python" -m pip install -q --no-build-isolation --no-deps \
    --target "$site/$build" -Cbuild-dir="build/ab-$build" .
  if [ $build = a ] && [ -n "${OPS_A:-}" ]; then
    cp "$OPS_A" "$site/a/sum_double/lib/libsum_double_ops.so"
  fi
  PYTHONPATH=$site/$build "$python" -m sum_double info | grep -E "kernels|CUDA runtime"
done
for ((round = 1; round <= rounds; round++)); do
  for build in a b; do
    echo "== round $round, build $build"
    PYTHONPATH=$site/$build "$python" benchmarks/bench.py --dtypes float16 bfloat16 float32 float64 \
      --sizes $((2 ** 24)) $((2 ** 28)) --cases same mixed bias transposed \
      --json "$out/bench-$build-$round.json" >"$out/bench-$build-$round.txt"
    PYTHONPATH=$site/$build "$python" benchmarks/host_cost.py --rounds 11 \
      >"$out/host-cost-$build-$round.txt"
  done
done
"$python" benchmarks/experiments/cuda_runtime_ab.py "$out" "${nvcc[a]}" "${nvcc[b]}"
