#!/usr/bin/env bash
# The wheel as downstream projects use it, in fresh venvs with real pip, the wheel found through
# --find-links; each example runs its own tests.
#   1. examples/downstream-cpp with build isolation: its build finds SumDouble through the
#      cmake.root entry point alone; then examples/downstream-python beside it in the same venv
#   2. examples/downstream-cpp without build isolation, against torch 2.13.0+cpu's headers
#   3. examples/plain-cmake: -DSumDouble_DIR=$(python -m sum_double --cmakedir), no torch in it,
#      its CUDA demo linked with the runtime of the CUDA 12.4 toolkit the release uses
#      (ci/cuda12-toolkit.sh) and of CUDA 13.0 (ci/cuda-toolkit.sh)
#   bash ci/downstream.sh WHEEL
# The isolated build installs the newest torch allowed, a CUDA build of some GB, into pip's build
# environment: that step takes the longest. Where pip does not find torch's +cpu builds by
# itself, TORCH_CPU_INDEX names their index.
set -euo pipefail
wheel=$(realpath "${1:?usage: ci/downstream.sh WHEEL}")
source "$(dirname "$0")/lib.sh"
scratch
# The wheel alone in its folder: pip's build environment finds no other sum-double there.
mkdir "$work/wheels"
cp "$wheel" "$work/wheels/"
# Nothing may point CMake at SumDouble but the entry point.
unset SumDouble_DIR SumDouble_ROOT CMAKE_PREFIX_PATH CMAKE_ARGS SKBUILD_CMAKE_ARGS SKBUILD_CMAKE_DEFINE

# pip finds the wheel there (on the command line: the variable would replace a configured
# --find-links, and pip hands the option on to isolated build environments too).
links=(--find-links "$work/wheels")
venv() {  # venv PACKAGES...: torch 2.13.0+cpu (small, no libtorch_cuda), the wheel, PACKAGES
  new_venv "$work/venv" 2.13.0+cpu "${links[@]}" "$wheel" "$@"
}
build_cpp() {  # build_cpp SUMDOUBLE_DIR_REGEX PIP_ARGS...: install it, check where CMake looked
  local venv=$work/venv where=$1 log=$work/build-cpp.log
  shift
  logged "$log" quiet "$venv/bin/pip" install --disable-pip-version-check -v "${links[@]}" "$@" \
    "$root/examples/downstream-cpp[test]"
  grep -E "downstream_demo: |warning:" "$log" || true
  if grep -q "warning:" "$log"; then
    echo "FAIL: the build warned" >&2
    return 1
  fi
  if ! grep -q -E -- "-- downstream_demo: SumDouble 0\.1\.0 at $where$" "$log"; then
    echo "FAIL: CMake did not find SumDouble at $where" >&2
    return 1
  fi
  "$venv/bin/python" -c "import downstream_demo._C as c; print('    CUDA launcher:', c.with_cuda)"
}
run_pytest() {  # run_pytest VENV DIR: an example's tests, with its pyproject.toml's settings
  (cd "$2" && "$1/bin/python" -m pytest -q -p no:cacheprovider)
}
isolated() {
  venv
  build_cpp "/[^ ]*pip-build-env-[^ ]*/site-packages/sum_double_cmake/lib/cmake/SumDouble"
  run_pytest "$work/venv" examples/downstream-cpp
}
python_example() {  # beside downstream-demo, as two packages built on sum-double would be
  pip_install "$work/venv" "${links[@]}" "examples/downstream-python[test]"
  run_pytest "$work/venv" examples/downstream-python
}
not_isolated() {
  rm -rf "$work/venv"
  venv scikit-build-core pybind11 cmake ninja
  build_cpp "$work/venv/lib/python3[.0-9]+/site-packages/sum_double_cmake/lib/cmake/SumDouble" \
    --no-build-isolation
  run_pytest "$work/venv" examples/downstream-cpp
}
plain_cmake() {  # plain_cmake NAME TOOLKIT: built with that CUDA toolkit; the venv's Python only
  # says where SumDouble is
  local dir build=$work/plain-cmake-$1
  dir=$("$work/venv/bin/python" -m sum_double --cmakedir)
  cmake_build "$work/venv" examples/plain-cmake "$build" -DSumDouble_DIR="$dir" \
    -DCUDAToolkit_ROOT="$2"
  if "$work/venv/bin/python" -c "import sum_double._C as c; assert not c.cpu_only" 2>/dev/null &&
    [ ! -x "$build/add_cuda_demo" ]; then
    echo "FAIL: the wheel has CUDA kernels, but the CUDA demo was not built with $2" >&2
    return 1
  fi
  "$work/venv/bin/ctest" --test-dir "$build" --output-on-failure
}
plain_cmake_12() {
  local cudacxx
  cudacxx=$(bash ci/cuda12-toolkit.sh)
  plain_cmake cuda12 "$(dirname "$(dirname "${cudacxx#CUDACXX=}")")"
}
plain_cmake_13() {
  PYTHON=$work/venv/bin/python bash ci/cuda-toolkit.sh "$work/cuda13" >/dev/null
  plain_cmake cuda13 "$work/cuda13/nvidia/cu13"
}

step "downstream-cpp, isolated" isolated
step "downstream-python" python_example
step "downstream-cpp, not isolated" not_isolated
step "plain-cmake, CUDA 12.4 toolkit" plain_cmake_12
step "plain-cmake, CUDA 13.0 toolkit" plain_cmake_13
report_steps downstream
