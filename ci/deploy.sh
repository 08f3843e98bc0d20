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
wheel=$(realpath "${1:?usage: ci/deploy.sh WHEEL}")
source "$(dirname "$0")/lib.sh"
scratch

venv() {
  new_venv "$work/venv" 2.13.0+cpu numpy "$wheel" cmake ninja
}
export_model() {
  "$work/venv/bin/python" examples/cpp-deploy/export_model.py "$work/model"
}
build() {
  local py=$work/venv/bin/python
  cmake_build "$work/venv" examples/cpp-deploy "$work/build" \
    -DCMAKE_PREFIX_PATH="$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)')" \
    -DSumDouble_DIR="$("$py" -m sum_double --cmakedir)" -DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed
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

step "venv (torch 2.13+cpu)" venv
step "export + AOTI compile" export_model
step "build run_model" build
step "run_model" run_linked
step "run_model_without_ops" run_without_ops
report_steps deploy
