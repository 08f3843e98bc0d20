#!/usr/bin/env bash
# Install the pinned CUDA 13 toolkit wheels (ci/cuda-toolkit.txt) into PREFIX and print the one
# setting CMake needs: CUDACXX, from which it finds the headers and static cudart beside nvcc.
# For source builds on machines without a toolkit; release wheels use ci/cuda12-toolkit.sh.
#   bash ci/cuda-toolkit.sh /opt/cuda-wheels   ->   CUDACXX=/opt/cuda-wheels/nvidia/cu13/bin/nvcc
set -euo pipefail
mkdir -p "${1:?usage: ci/cuda-toolkit.sh PREFIX}"
prefix=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
python=${PYTHON:-python3}
quiet "$python" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps \
  --target "$prefix" -r ci/cuda-toolkit.txt
cuda=$prefix/nvidia/cu13
# The wheels lay out a runtime, not a toolkit: nvcc.profile links from lib64 (they install lib/),
# and CMake's FindCUDAToolkit wants the unversioned libcudart.so a system toolkit has.
ln -sfn lib "$cuda/lib64"
ln -sfn libcudart.so.13 "$cuda/lib/libcudart.so"
# The runtime's version where NVIDIA's toolkits keep it: the build reads it for its SBOM.
runtime=$(sed -n 's/^nvidia-cuda-runtime==//p' ci/cuda-toolkit.txt)
printf '{"cuda_cudart": {"name": "CUDA Runtime (cudart)", "version": "%s"}}\n' "$runtime" \
  >"$cuda/version.json"
"$cuda/bin/nvcc" --version | tail -n 2 >&2
echo "CUDACXX=$cuda/bin/nvcc"
