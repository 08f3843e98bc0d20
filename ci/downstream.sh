#!/usr/bin/env bash
# The wheel as downstream projects use it, in fresh venvs with real pip, the wheel found through
# --find-links; each example runs its own tests.
#   1. examples/downstream-cpp with build isolation: its build finds SumDouble through the
#      cmake.root entry point alone; then examples/downstream-python beside it in the same venv
#   2. examples/downstream-cpp without build isolation, against torch 2.13.0+cpu's headers
#   3. examples/plain-cmake: -DSumDouble_DIR=$(python -m sum_double --cmakedir), no torch in it
#   bash ci/downstream.sh WHEEL
# The isolated build installs the newest torch allowed, a CUDA build of some GB, into pip's build
# environment: that step takes the longest. Where pip does not find torch's +cpu builds by
# itself, TORCH_CPU_INDEX names their index.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
wheel=$(realpath "${1:?usage: ci/downstream.sh WHEEL}")
work=$(mktemp -d)
trap 'if [ $? = 0 ]; then rm -rf "$work"; else echo "kept $work for a look" >&2; fi' EXIT
# The wheel alone in its folder: pip's build environment finds no other sum-double there.
mkdir "$work/wheels"
cp "$wheel" "$work/wheels/"
# Nothing may point CMake at SumDouble but the entry point.
unset SumDouble_DIR SumDouble_ROOT CMAKE_PREFIX_PATH CMAKE_ARGS SKBUILD_CMAKE_ARGS SKBUILD_CMAKE_DEFINE

quiet() { "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2); }
pip_install() {  # pip_install VENV ARGS...
  local venv=$1
  shift
  quiet "$venv/bin/pip" install --disable-pip-version-check --find-links "$work/wheels" "$@"
}
new_venv() {  # new_venv DIR PACKAGES...: torch 2.13.0+cpu (small, no libtorch_cuda), the wheel
  local extra=()
  [ -n "${TORCH_CPU_INDEX:-}" ] && extra=(--extra-index-url "$TORCH_CPU_INDEX")
  python3 -m venv "$1"
  pip_install "$1" -q "${extra[@]}" torch==2.13.0+cpu "$wheel" "${@:2}"
}
build_cpp() {  # build_cpp VENV SUMDOUBLE_DIR_REGEX PIP_ARGS...: install it, check where CMake looked
  local venv=$1 where=$2 log=$work/build-cpp.log
  shift 2
  if ! pip_install "$venv" -v "$@" "$root/examples/downstream-cpp[test]" >"$log" 2>&1; then
    tail -n 60 "$log"
    return 1
  fi
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
timings=()
step() {  # step NAME CMD...: run it, print and keep its time
  local name=$1 start=$SECONDS
  shift
  echo "==> $name"
  "$@"
  timings+=("$(printf '%-28s %4d s' "$name" $((SECONDS - start)))")
  echo "    $((SECONDS - start)) s"
}

isolated() {
  new_venv "$work/venv"
  build_cpp "$work/venv" "/[^ ]*pip-build-env-[^ ]*/site-packages/sum_double_cmake/lib/cmake/SumDouble"
  run_pytest "$work/venv" examples/downstream-cpp
}
python_example() {  # beside downstream-demo, as two packages built on sum-double would be
  pip_install "$work/venv" -q "examples/downstream-python[test]"
  run_pytest "$work/venv" examples/downstream-python
}
not_isolated() {
  rm -rf "$work/venv"
  new_venv "$work/venv" scikit-build-core pybind11 cmake ninja
  build_cpp "$work/venv" "$work/venv/lib/python3[.0-9]+/site-packages/sum_double_cmake/lib/cmake/SumDouble" \
    --no-build-isolation
  run_pytest "$work/venv" examples/downstream-cpp
}
plain_cmake() {  # with the venv's cmake and ninja; its Python only says where SumDouble is
  local dir
  dir=$("$work/venv/bin/python" -m sum_double --cmakedir)
  PATH=$work/venv/bin:$PATH cmake -S examples/plain-cmake -B "$work/plain-cmake" -G Ninja \
    -DSumDouble_DIR="$dir" >"$work/plain-cmake.log" || { cat "$work/plain-cmake.log"; return 1; }
  PATH=$work/venv/bin:$PATH cmake --build "$work/plain-cmake"
  PATH=$work/venv/bin:$PATH ctest --test-dir "$work/plain-cmake" --output-on-failure
}

start=$SECONDS
step "downstream-cpp, isolated" isolated
step "downstream-python" python_example
step "downstream-cpp, not isolated" not_isolated
step "plain-cmake" plain_cmake
echo "==> step times"
printf '    %s\n' "${timings[@]}"
echo "downstream: all green in $((SECONDS - start)) s"
