#!/usr/bin/env bash
# Install the pinned CUDA toolkit wheels (ci/cuda-toolkit.txt) into PREFIX and print the one
# setting CMake needs: CUDACXX, from which it finds the headers and static cudart beside nvcc.
#   bash ci/cuda-toolkit.sh /opt/cuda-wheels   ->   CUDACXX=/opt/cuda-wheels/nvidia/cu13/bin/nvcc
# CUDA_TARGET=aarch64 cross-compiles (ci/aarch64.sh): the compiler for this host, the runtime
# (headers, cudart_static, cudadevrt) for aarch64.
set -euo pipefail
mkdir -p "${1:?usage: ci/cuda-toolkit.sh PREFIX}"
prefix=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
python=${PYTHON:-python3}
quiet "$python" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps \
  --target "$prefix" -r ci/cuda-toolkit.txt
cuda=$prefix/nvidia/cu13
if [ -n "${CUDA_TARGET:-}" ]; then
  quiet "$python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform "manylinux_2_17_$CUDA_TARGET" -d "$prefix/target-wheels" \
    "$(grep '^nvidia-cuda-runtime==' ci/cuda-toolkit.txt)"
  "$python" -m zipfile -e "$prefix"/target-wheels/nvidia_cuda_runtime-*.whl "$prefix"
fi
# The wheels lay out a runtime, not a toolkit: nvcc.profile links from lib64 (they install lib/),
# and CMake's FindCUDAToolkit wants the unversioned libcudart.so a system toolkit has.
ln -sfn lib "$cuda/lib64"
ln -sfn libcudart.so.13 "$cuda/lib/libcudart.so"
"$cuda/bin/nvcc" --version | tail -n 2 >&2
echo "CUDACXX=$cuda/bin/nvcc"
