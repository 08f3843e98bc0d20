#!/usr/bin/env bash
# Build the wheel once, with build isolation (what `pip install .` does), then install that same
# file into fresh venvs with two torch releases and run the README's test command in each; then
# build the CPU-only variant and test it too; last, configure one build dir twice. Needs only
# python3, a C++ compiler and, for the CUDA kernels, nvcc on PATH. A GPU is not needed: CUDA tests
# skip without one.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if [ -n "${SUM_DOUBLE_CI_DIR:-}" ]; then
  work=$SUM_DOUBLE_CI_DIR  # kept afterwards, for a look at the venvs and logs
else
  work=$(mktemp -d)
  # Two venvs with torch: about 7 GB, removed after a green run; kept after a failure.
  trap 'if [ $? = 0 ]; then rm -rf "$work"; else echo "kept $work for a look" >&2; fi' EXIT
fi
mkdir -p "$work"
echo "==> working in $work"

# This machine's pip config names local indexes that may be absent; their warnings are noise.
quiet_pip() { "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2); }

new_venv() {  # new_venv DIR PACKAGES...: a fresh venv holding exactly what the test run needs
  local dir=$1
  shift
  python3 -m venv "$dir"
  quiet_pip "$dir/bin/pip" install -q --disable-pip-version-check "$@"
}

run_tests() {  # run_tests VENV: the README's test command, from the repo root
  (cd "$root" && "$1/bin/python" -m sum_double info && "$1/bin/python" -m pytest)
}

echo "==> [1/5] build the wheel with build isolation (pip wheel .)"
start=$SECONDS
quiet_pip python3 -m pip wheel -q --disable-pip-version-check --no-deps -w "$work/dist" "$root"
wheel=$(ls "$work"/dist/sum_double-*.whl)
echo "    built $(basename "$wheel") in $((SECONDS - start)) s"

echo "==> [2/5] that wheel under torch 2.14.1 (CUDA build of torch, no GPU here)"
new_venv "$work/venv-torch2.14" "torch==2.14.1" "$wheel[test]"
run_tests "$work/venv-torch2.14"

echo "==> [3/5] the same wheel under torch 2.13.0+cpu (CPU-only build of torch: no libtorch_cuda)"
new_venv "$work/venv-torch2.13" "torch==2.13.0+cpu" "$wheel[test]"
"$work/venv-torch2.13/bin/python" -c \
  "import torch; assert torch.version.cuda is None, torch.__version__"
run_tests "$work/venv-torch2.13"

# Linked with a static libstdc++, as some toolchains do by default: error paths must still raise.
echo "==> [4/5] the CPU-only build (SUM_DOUBLE_CUDA=OFF, static libstdc++), under torch 2.13.0"
quiet_pip "$work/venv-torch2.14/bin/pip" install -q --disable-pip-version-check \
  scikit-build-core pybind11 cmake ninja
quiet_pip "$work/venv-torch2.14/bin/pip" wheel -q --disable-pip-version-check --no-deps \
  --no-build-isolation -Ccmake.define.SUM_DOUBLE_CUDA=OFF \
  -Ccmake.define.CMAKE_MODULE_LINKER_FLAGS=-static-libstdc++ -w "$work/dist-cpu" "$root"
quiet_pip "$work/venv-torch2.13/bin/pip" install -q --disable-pip-version-check --no-deps \
  --force-reinstall "$work"/dist-cpu/sum_double-*.whl
"$work/venv-torch2.13/bin/python" -c "import sum_double._C as c; assert c.cpu_only, 'not CPU-only'"
run_tests "$work/venv-torch2.13"

# A rebuild in the same build dir (pyproject's build-dir) reconfigures over a filled cache; it
# once fell back to the compiler's sm_75-only default there.
echo "==> [5/5] configure one build dir twice: the default CUDA architectures must survive"
if command -v nvcc >/dev/null; then
  bin=$work/venv-torch2.14/bin
  rm -rf "$work/reconfigure"
  for i in 1 2; do
    PATH="$bin:$PATH" cmake -S "$root" -B "$work/reconfigure" -G Ninja \
      -DPython_EXECUTABLE="$bin/python" -Dpybind11_DIR="$("$bin/python" -m pybind11 --cmakedir)" \
      >"$work/configure-$i.log"
    grep "sum_double: CUDA .*archs 75-real;80-real;86-real;89-real;90" "$work/configure-$i.log"
  done
else
  echo "    no nvcc: nothing to check"
fi
echo "wheel matrix: all green"
