#!/usr/bin/env bash
# Everything behind benchmarks/NOTES.md and benchmarks/results/, in one GPU-machine call:
# kernel variants (standalone CUDA), the full bench sweep with JSON and plot, the special cases,
# host cost. Build and install first (ci/gpu.sh does). Output goes to $OUT_DIR (default: .).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT_DIR:-.}
python=${PYTHON:-python3}
nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Icuda benchmarks/kernel_variants.cu -o "$out/variants"
"$out/variants" | tee "$out/variants.txt"
"$python" -m sum_double bench --json "$out/h200.json" --plot "$out/h200.png" | tee "$out/bench.txt"
"$python" benchmarks/cases.py | tee "$out/cases.txt"
"$python" benchmarks/host_cost.py | tee "$out/host_cost.txt"
