#!/usr/bin/env bash
# Deployment without Python, as examples/cpp-deploy documents it, against the wheel CI built, on
# the CPU with torch 2.13.0+cpu (the CUDA torch wheel's CMake config wants a full CUDA toolkit):
#   1. export_model.py: export a model that calls sum_double.add, AOTInductor-compile it, save
#      its inputs and eager outputs
#   2. build run_model with CMake: find_package(Torch) from the torch wheel, find_package(SumDouble)
#   3. run_model (linked with SumDouble::ops): the package's outputs bit-identical to eager
#      Python, and a direct dispatcher call through <sum_double/op.h>
#   4. run_model_without_ops: exits 2 with <sum_double/op.h>'s message, which says what to load
# Linked with --as-needed whatever the toolchain's default, which SumDouble::ops must survive.
#   bash ci/deploy.sh WHEEL
set -euo pipefail
cd "$(dirname "$0")/.."
wheel=$(realpath "${1:?usage: ci/deploy.sh WHEEL}")
work=$(mktemp -d)
trap 'if [ $? = 0 ]; then rm -rf "$work"; else echo "kept $work for a look" >&2; fi' EXIT

quiet() { "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2); }
timings=()
step() {  # step NAME CMD...: run it, print and keep its time
  local name=$1 start=$SECONDS
  shift
  echo "==> $name"
  "$@"
  timings+=("$(printf '%-22s %4d s' "$name" $((SECONDS - start)))")
  echo "    $((SECONDS - start)) s"
}

venv() {
  local extra=()
  [ -n "${TORCH_CPU_INDEX:-}" ] && extra=(--extra-index-url "$TORCH_CPU_INDEX")
  python3 -m venv "$work/venv"
  quiet "$work/venv/bin/pip" install --disable-pip-version-check -q "${extra[@]}" \
    torch==2.13.0+cpu numpy "$wheel" cmake ninja
}
export_model() {
  "$work/venv/bin/python" examples/cpp-deploy/export_model.py "$work/model"
}
build() {
  local py=$work/venv/bin/python log=$work/configure.log
  if ! PATH=$work/venv/bin:$PATH cmake -S examples/cpp-deploy -B "$work/build" -G Ninja \
    -DCMAKE_PREFIX_PATH="$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)')" \
    -DSumDouble_DIR="$("$py" -m sum_double --cmakedir)" -DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed \
    >"$log" 2>&1; then
    cat "$log"
    return 1
  fi
  PATH=$work/venv/bin:$PATH cmake --build "$work/build"
}
run_linked() {
  "$work/build/run_model" "$work/model/model-cpu.pt2" "$work/model/io-cpu.pt"
}
run_without_ops() {
  local status=0 out=$work/without-ops.txt
  "$work/build/run_model_without_ops" "$work/model/model-cpu.pt2" "$work/model/io-cpu.pt" \
    >"$out" 2>&1 || status=$?
  cat "$out"
  if [ "$status" != 2 ] || ! grep -q "in C++, link SumDouble::ops or dlopen the library" "$out"; then
    echo "FAIL: without the op library, expected exit status 2 and what to load; got $status" >&2
    return 1
  fi
}

start=$SECONDS
step "venv (torch 2.13+cpu)" venv
step "export + AOTI compile" export_model
step "build run_model" build
step "run_model" run_linked
step "run_model_without_ops" run_without_ops
echo "==> step times"
printf '    %s\n' "${timings[@]}"
echo "deploy: all green in $((SECONDS - start)) s"
