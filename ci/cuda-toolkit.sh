#!/usr/bin/env bash
# Install the pinned CUDA toolkit wheels (ci/cuda-toolkit.txt) into PREFIX and print the one
# setting CMake needs: CUDACXX, from which it finds the headers and static cudart beside nvcc.
#   bash ci/cuda-toolkit.sh /opt/cuda-wheels   ->   CUDACXX=/opt/cuda-wheels/nvidia/cu13/bin/nvcc
# CUDA_TARGET=aarch64 cross-compiles (ci/aarch64.sh): the compiler for this host, the runtime
# (headers, cudart_static, cudadevrt) for aarch64.
set -euo pipefail
prefix=${1:?usage: ci/cuda-toolkit.sh PREFIX}
python=${PYTHON:-python3}
"$python" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps \
  --target "$prefix" -r "$(dirname "$0")/cuda-toolkit.txt" 2> >(grep -v "is ignored: it is neither" >&2)
root=$prefix/nvidia/cu13
if [ -n "${CUDA_TARGET:-}" ]; then
  "$python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform "manylinux_2_17_$CUDA_TARGET" -d "$prefix/target-wheels" \
    "$(grep '^nvidia-cuda-runtime==' "$(dirname "$0")/cuda-toolkit.txt")" \
    2> >(grep -v "is ignored: it is neither" >&2)
  "$python" -m zipfile -e "$prefix"/target-wheels/nvidia_cuda_runtime-*.whl "$prefix"
fi
# The wheels lay out a runtime, not a toolkit: nvcc.profile links from lib64 (they install lib/),
# and CMake's FindCUDAToolkit wants the unversioned libcudart.so a system toolkit has.
ln -sfn lib "$root/lib64"
ln -sfn libcudart.so.13 "$root/lib/libcudart.so"
"$root/bin/nvcc" --version | tail -n 2 >&2
echo "CUDACXX=$root/bin/nvcc"
