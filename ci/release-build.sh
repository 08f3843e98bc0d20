#!/usr/bin/env bash
# The release build outside a container: what cibuildwheel does in the manylinux one, on any Linux
# machine with Python and a C++ compiler. A CUDA toolkit is not needed (it comes from the package
# index) and a system one is hidden, so the recipe is proven here as it runs there.
#   bash ci/release-build.sh OUTDIR          (PYTHON=python3.12 ... builds for that Python)
# OUTDIR/sdist: the sdist, checked; OUTDIR/dist: the wheel built from it; OUTDIR/wheelhouse: that
# wheel repaired by auditwheel, checked for binary hygiene and metadata. Then a second build of the
# same commit from another directory must give a byte-identical wheel.
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

cuda_toolkit() {
  cudacxx=$(PYTHON=python bash ci/cuda-toolkit.sh "$out/cuda")
  # The aarch64 release builds install the same pins: they must exist for that platform too.
  quiet pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform manylinux_2_17_aarch64 -d "$out/cuda-aarch64" -r ci/cuda-toolkit.txt
  echo "    aarch64: $(ls "$out/cuda-aarch64" | wc -l) of $(grep -c '==' ci/cuda-toolkit.txt) pinned wheels found"
  # Whatever CUDA this machine has stays out of sight: PATH loses every directory with an nvcc,
  # and the variables that point CMake at a toolkit are unset. CUDACXX names the wheels' nvcc.
  if [ -x /usr/bin/nvcc ]; then
    echo "nvcc is in /usr/bin (a distribution's CUDA package): it cannot be hidden from PATH" \
      "without the compiler. Remove that package, or build in a container." >&2
    return 1
  fi
  hidden_path=$(tr : '\n' <<<"$PATH" | while read -r dir; do
    [ -x "$dir/nvcc" ] || echo "$dir"
  done | paste -sd:)
}

build_wheel() {  # build_wheel SOURCE DEST LOG: the release's wheel build
  logged "$3" env -u CUDA_HOME -u CUDA_PATH -u CUDAToolkit_ROOT -u CUDAARCHS PATH="$hidden_path" \
    "$cudacxx" pip wheel --no-deps --disable-pip-version-check -v -w "$2" \
    -Ccmake.define.SUM_DOUBLE_CUDA=ON -Ccmake.define.SUM_DOUBLE_WERROR=ON "$1"
  grep "sum_double: CUDA" "$3"
  grep -q "sum_double: CUDA .* toolkit $out/cuda/" "$3" || { echo "not the wheels' toolkit" >&2; return 1; }
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

step "release tools (ci/release-tools.txt)" tools
export PATH="$out/tools/bin:$PATH"
step "sdist, and what it holds" make_sdist
step "CUDA toolkit from the package index (ci/cuda-toolkit.txt)" cuda_toolkit
step "wheel from the sdist, with the wheels' toolkit only" wheel_from_sdist
step "auditwheel repair (torch's libraries left out), hygiene" repair
step "metadata: twine, wheel contents, pyproject, cibuildwheel" metadata
step "reproducible: the checkout's build gives the same bytes" reproducible
report_steps "release build ($(basename "$repaired"))"
