#!/usr/bin/env bash
# The tool's H200 results in benchmarks/results/, in one GPU-machine call: the bench sweep with
# JSON and plot, the special cases, host cost (eager and in compiled graphs), compiled training.
# Install the package first (ci/gpu.sh does), and matplotlib for the plot. Writes to $OUT_DIR
# (default: benchmarks/results).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT_DIR:-benchmarks/results}
mkdir -p "$out"
python=${PYTHON:-python3}
"$python" benchmarks/bench.py --json "$out/bench-h200.json" --plot "$out/bench-h200.png" \
  | tee "$out/bench-h200.txt"
"$python" benchmarks/cases.py | tee "$out/cases-h200.txt"
"$python" benchmarks/host_cost.py --compiled | tee "$out/host-cost-h200.txt"
for dtype in bfloat16 float32; do
  "$python" benchmarks/compiled_training.py --dtype "$dtype" --control
done | tee "$out/compiled-training-h200.txt"
