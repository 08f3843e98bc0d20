#!/usr/bin/env bash
# compute-sanitizer's four tools over the CUDA tests, checking sum_double's own kernels (torch's
# are not ours to fix). Needs a GPU, compute-sanitizer on PATH and the package installed.
# Logs and a summary line per tool go to $LOG_DIR (default: ./gpu-logs). Exits non-zero on any
# error. SANITIZER_TOOLS picks a subset (default: all four).
set -euo pipefail
cd "$(dirname "$0")/.."
log=${LOG_DIR:-gpu-logs}
mkdir -p "$log"
python=${PYTHON:-python3}
status=0
for tool in ${SANITIZER_TOOLS:-memcheck racecheck initcheck synccheck}; do
  echo "==> compute-sanitizer --tool $tool"
  # No caching allocator: every tensor is its own cudaMalloc, so memcheck sees exact bounds. Left
  # out: CUDA graphs (capture needs the caching allocator), the out-of-memory test (its cudaMalloc
  # fails on purpose, which the sanitizer counts as an error) and torch.compile (inductor's own
  # kernels, minutes of compiling under the sanitizer, and no launch path of ours that the eager
  # tests miss).
  if PYTORCH_NO_CUDA_MEMORY_CACHING=1 SUM_DOUBLE_HYPOTHESIS_PROFILE=sanitizer \
    compute-sanitizer --tool "$tool" --kernel-name kns=add_kernel --error-exitcode 99 \
    --print-limit 20 "$python" -m pytest -p no:cacheprovider -q -m "cuda and not large" \
    -k "not graph and not reduce_overhead and not out_of_memory and not compile" \
    tests/test_op.py tests/test_autograd.py tests/test_cuda.py >"$log/sanitizer-$tool.txt" 2>&1; then
    :
  else
    status=1
  fi
  grep -E "ERROR SUMMARY|passed|failed" "$log/sanitizer-$tool.txt" | tail -2 || true
done
exit $status
