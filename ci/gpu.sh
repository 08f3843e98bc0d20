#!/usr/bin/env bash
# The whole GPU suite in one command, on a machine with a CUDA GPU and an offline Python that
# already has torch, scikit-build-core, pybind11, cmake, ninja, pytest and hypothesis: the CPU-only
# build's error for CUDA tensors; build and install from source; the whole test suite (CUDA tests
# must run, not skip); compute-sanitizer's four tools (ci/sanitize.sh); the demo; host cost (eager
# and inside compiled graphs).
# Logs go to $LOG_DIR (default: ./gpu-logs). CPU_ONLY_CHECK=0 or SANITIZER=0 skip those steps.
# WHEEL=path/to.whl tests that wheel (e.g. the release build's repaired one) instead of a source build.
set -euo pipefail
cd "$(dirname "$0")/.."
log=${LOG_DIR:-gpu-logs}
mkdir -p "$log"
python=${PYTHON:-python3}

if [ "${CPU_ONLY_CHECK:-1}" = 1 ]; then
  echo "==> CPU-only build on a GPU machine: CUDA tensors must get the clear error"
  "$python" -m pip install -q --no-build-isolation --no-deps --force-reinstall \
    -Cbuild-dir=build/cpu-only -Ccmake.define.SUM_DOUBLE_CUDA=OFF . \
    >"$log/build-cpu-only.log" 2>&1 || { tail -50 "$log/build-cpu-only.log"; exit 1; }
  "$python" -m pytest -p no:cacheprovider -q tests/test_errors.py -k cuda_tensor_on_cpu_only_build \
    2>&1 | tee "$log/pytest-cpu-only.txt"
  grep -q "1 passed" "$log/pytest-cpu-only.txt"
fi

if [ -n "${WHEEL:-}" ]; then
  echo "==> install $WHEEL into this machine's torch"
  "$python" -m pip install -q --no-deps --force-reinstall "$WHEEL"
else
  echo "==> build + install (no build isolation: no network here)"
  start=$SECONDS
  "$python" -m pip install -q --no-build-isolation --no-deps --force-reinstall . \
    >"$log/build.log" 2>&1 || { tail -50 "$log/build.log"; exit 1; }
  echo "    built in $((SECONDS - start)) s"
fi
"$python" -m sum_double info | tee "$log/info.txt"

echo "==> test suite"
"$python" -m pytest -p no:cacheprovider -rs --junitxml="$log/junit.xml" 2>&1 | tee "$log/pytest.txt"
if grep -q "need a CUDA device and a CUDA build" "$log/pytest.txt"; then
  echo "FAIL: CUDA tests were left out on a GPU machine" >&2
  exit 1
fi

if [ "${SANITIZER:-1}" = 1 ]; then
  LOG_DIR=$log PYTHON=$python bash ci/sanitize.sh
fi

echo "==> demo"
"$python" -m sum_double | tee "$log/demo.txt"
echo "==> host cost"
"$python" benchmarks/host_cost.py --compiled | tee "$log/host_cost.txt"
