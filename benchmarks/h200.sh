#!/usr/bin/env bash
# Every file in benchmarks/results/, in one GPU-machine call: kernel variants (standalone CUDA),
# the bench sweep with JSON and plot, the special cases, host cost. Install the package first
# (ci/gpu.sh does), and matplotlib for the plot. Writes to $OUT_DIR (default: benchmarks/results).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT_DIR:-benchmarks/results}
mkdir -p "$out"
python=${PYTHON:-python3}
bin=$(mktemp -d)/kernel_variants
nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Icuda benchmarks/experiments/kernel_variants.cu -o "$bin"
"$bin" | tee "$out/kernel-variants-h200.txt"
"$python" benchmarks/bench.py --json "$out/bench-h200.json" --plot "$out/bench-h200.png" \
  | tee "$out/bench-h200.txt"
"$python" benchmarks/cases.py | tee "$out/cases-h200.txt"
"$python" benchmarks/host_cost.py | tee "$out/host-cost-h200.txt"
