#!/usr/bin/env bash
# The release build outside a container: what cibuildwheel does in the manylinux one, on any Linux
# machine with Python, a C++ compiler and apt-get. The CUDA toolkit is the pinned CUDA 12.4 that
# ci/cuda12-toolkit.sh unpacks (cached) and a system one is hidden, so the recipe is proven here as
# it runs there. Then the CUDA 13 toolkit from the package index builds the same sdist, as a source
# build would.
#   bash ci/release-build.sh OUTDIR          (PYTHON=python3.12 ... builds for that Python)
# OUTDIR/sdist: the sdist, checked; OUTDIR/dist: the wheel built from it; OUTDIR/wheelhouse: that
# wheel repaired by auditwheel, checked for binary hygiene, the stable ABI (torch-abi-audit), device
# code and metadata. Then a second build of the same commit from another directory must give a
# byte-identical wheel.
set -euo pipefail
mkdir -p "${1:?usage: ci/release-build.sh OUTDIR}"
out=$(cd "$1" && pwd)
source "$(dirname "$0")/lib.sh"
# Reproducible: file times in the sdist and the wheel come from the commit.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
export SOURCE_DATE_EPOCH

tools() {
  "${PYTHON:-python3}" -m venv "$out/tools"
  pip_install "$out/tools" -r ci/release-tools.txt
}

make_sdist() {
  rm -rf "$out/sdist"
  logged "$out/sdist.log" python -m build --sdist -o "$out/sdist" .
  sdist=$(ls "$out"/sdist/sum_double-*.tar.gz)
  python ci/check_sdist.py "$sdist"
}

# cuobjdump for CUDA 13's binaries: on the package index from CUDA 13.2 on; it reads 13.0's.
cuobjdump13_pin=nvidia-cuda-cuobjdump==13.2.51

cuda_toolkit() {
  cudacxx=$(bash ci/cuda12-toolkit.sh)
  toolkit=$(dirname "$(dirname "${cudacxx#CUDACXX=}")")
  # Whatever CUDA this machine has stays out of sight: PATH loses every directory with an nvcc,
  # and the variables that point CMake at a toolkit are unset. CUDACXX names the pinned nvcc.
  if [ -x /usr/bin/nvcc ]; then
    echo "nvcc is in /usr/bin (a distribution's CUDA package): it cannot be hidden from PATH" \
      "without the compiler. Remove that package, or build in a container." >&2
    return 1
  fi
  hidden_path=$(tr : '\n' <<<"$PATH" | while read -r dir; do
    [ -x "$dir/nvcc" ] || echo "$dir"
  done | paste -sd:)
}

build_wheel() {  # build_wheel SOURCE DEST LOG [TOOLKIT]: the release's wheel build, with the
  # pinned toolkit or TOOLKIT (a directory with bin/nvcc)
  local with=${4:-$toolkit}
  logged "$3" env -u CUDA_HOME -u CUDA_PATH -u CUDAToolkit_ROOT -u CUDAARCHS PATH="$hidden_path" \
    CUDACXX="$with/bin/nvcc" pip wheel --no-deps --disable-pip-version-check -v -w "$2" \
    -Ccmake.define.SUM_DOUBLE_CUDA=ON -Ccmake.define.SUM_DOUBLE_WERROR=ON "$1"
  grep "sum_double: CUDA" "$3"
  grep -q "sum_double: CUDA .* toolkit $with/bin," "$3" || { echo "not $with" >&2; return 1; }
}

device_code() {  # device_code WHEEL NVCC CUOBJDUMP: the op library holds machine code and PTX for
  # exactly the architectures cmake/CudaArchitectures.cmake derives from NVCC
  local unpacked
  unpacked=$(mktemp -d)
  python -m zipfile -e "$1" "$unpacked"
  python ci/cuda_archs.py --nvcc "$2" --check "$unpacked/sum_double/lib/libsum_double_ops.so" \
    --cuobjdump "$3"
  rm -rf "$unpacked"
}

wheel_from_sdist() {
  rm -rf "$out/dist"
  build_wheel "$sdist" "$out/dist" "$out/wheel.log"
  wheel=$(ls "$out"/dist/sum_double-*.whl)
  echo "    $(basename "$wheel"): $(du -k "$wheel" | cut -f1) KiB"
}

repair() {
  auditwheel show "$wheel"
  rm -rf "$out/wheelhouse"
  bash ci/repair-wheel.sh "$wheel" "$out/wheelhouse" 2>"$out/repair.log"
  repaired=$(ls "$out"/wheelhouse/sum_double-*.whl)
  python ci/check_binary.py "$repaired" --forbid "$root" --forbid "$out"
  # torch-abi-audit --check torch: every binary on torch STABLE, its min torch the stated target
  python ci/check_abi_audit.py "$repaired"
  device_code "$repaired" "$toolkit/bin/nvcc" "$toolkit/bin/cuobjdump"
  # What ci/wheel-matrix.sh asks the installed wheel to report; written out here as well, so that
  # an edit of cmake/CudaArchitectures.cmake that changes the release's list cannot pass unseen.
  python ci/cuda_archs.py --nvcc "$toolkit/bin/nvcc" >"$out/cuda-archs.txt"
  [ "$(cat "$out/cuda-archs.txt")" = "70-real;75-real;80-real;86-real;89-real;90" ] ||
    { echo "the release's list changed: $(cat "$out/cuda-archs.txt")" >&2; return 1; }
}

metadata() {
  twine check --strict "$sdist" "$repaired"
  check-wheel-contents "$repaired"
  validate-pyproject pyproject.toml
  local expected="cp310 cp311 cp312 cp313 cp314 cp314t" arch ids want
  for arch in x86_64 aarch64; do
    ids=$(cibuildwheel --print-build-identifiers --platform linux --archs "$arch" | paste -sd' ')
    want=$(for py in $expected; do printf '%s ' "$py-manylinux_$arch"; done)
    [ "$ids " = "$want" ] || { echo "cibuildwheel would build: $ids; expected: $want" >&2; return 1; }
    echo "    $arch: $ids"
  done
}

reproducible() {
  rm -rf "$out/rebuild"
  build_wheel "$root" "$out/rebuild" "$out/rebuild.log" >/dev/null
  rebuilt=$(ls "$out"/rebuild/sum_double-*.whl)
  sha256sum "$wheel" "$rebuilt"
  cmp -s "$wheel" "$rebuilt" && return
  echo "the two builds differ:" >&2
  python - "$wheel" "$rebuilt" <<'PY' >&2
import sys, zipfile
a, b = (zipfile.ZipFile(p) for p in sys.argv[1:])
for info in a.infolist():
    other = b.getinfo(info.filename)
    if a.read(info) != b.read(other) or info.date_time != other.date_time:
        print("   ", info.filename)
PY
  return 1
}

cuda13() {  # CUDA 13 from the package index builds the sdist for every architecture it can; and
  # its SumDouble::cuda, whose static runtime is 13.0's, is refused by an older toolkit, in words
  local cuda13=$out/cuda13/nvidia/cu13 unpacked=$out/cuda13-wheel consumer=$out/consumer log
  PYTHON=python bash ci/cuda-toolkit.sh "$out/cuda13" >/dev/null
  pip_install "$out/tools" --target "$out/cuobjdump13" "$cuobjdump13_pin"
  rm -rf "$out/dist-cuda13" "$unpacked" "$consumer"
  build_wheel "$sdist" "$out/dist-cuda13" "$out/wheel-cuda13.log" "$cuda13"
  device_code "$out"/dist-cuda13/sum_double-*.whl "$cuda13/bin/nvcc" \
    "$out/cuobjdump13/nvidia/cu13/bin/cuobjdump"
  python -m zipfile -e "$out"/dist-cuda13/sum_double-*.whl "$unpacked"
  mkdir "$consumer"
  printf '%s\n' "cmake_minimum_required(VERSION 3.26)" "project(consumer LANGUAGES CXX)" \
    "find_package(SumDouble CONFIG REQUIRED COMPONENTS cuda)" >"$consumer/CMakeLists.txt"
  log=$out/consumer-cuda12.log
  if cmake -S "$consumer" -B "$consumer/build12" -DCUDAToolkit_ROOT="$toolkit" \
    -DSumDouble_DIR="$unpacked/sum_double_cmake/lib/cmake/SumDouble" >"$log" 2>&1; then
    echo "the CUDA 13 build's SumDouble::cuda was accepted with CUDA 12.4's toolkit" >&2
    return 1
  fi
  grep -A3 "SumDouble::cuda was compiled" "$log" | sed 's/^/    /' ||
    { echo "refused, but not for the toolkit's age:" >&2; tail -n 30 "$log" >&2; return 1; }
  logged "$out/consumer-cuda13.log" cmake -S "$consumer" -B "$consumer/build13" \
    -DCUDAToolkit_ROOT="$cuda13" -DSumDouble_DIR="$unpacked/sum_double_cmake/lib/cmake/SumDouble"
  echo "    accepted with CUDA 13.0's toolkit"
}

step "release tools (ci/release-tools.txt)" tools
export PATH="$out/tools/bin:$PATH"
step "sdist, and what it holds" make_sdist
step "CUDA 12.4 toolkit (ci/cuda12-toolkit.sh)" cuda_toolkit
step "wheel from the sdist, with the pinned toolkit only" wheel_from_sdist
step "repair (torch left out), hygiene, ABI audit, device code" repair
step "metadata: twine, wheel contents, pyproject, cibuildwheel" metadata
step "reproducible: the checkout's build gives the same bytes" reproducible
step "CUDA 13 from the package index: the sdist's source build" cuda13
report_steps "release build ($(basename "$repaired"))"
