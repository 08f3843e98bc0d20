#!/usr/bin/env bash
# One built wheel under every torch it promises to serve: each in a fresh venv, the README's test
# command run against the installed wheel. Then the CPU-only variant of the build.
#   bash ci/wheel-matrix.sh WHEEL
# torch 2.10.0 is the oldest the stable-ABI target allows; 2.13.0+cpu has no libtorch_cuda; 2.14.1
# is the torch the wheel is built against; 2.15.0 is newer than it (the forward-compat promise).
# Torch specs can be given in TORCH_SPECS. This machine's pip config caps torch at 2.14.1 for
# convenience: venvs for newer (or PyPI-only) releases skip the config (PIP_CONFIG_FILE=/dev/null).
# Where pip does not find torch's +cpu builds by itself, TORCH_CPU_INDEX names their index.
# REQUIRE_CUDA_BUILD=1 (the release wheel) fails unless the wheel has CUDA kernels for every
# architecture pyproject.toml asks for on this platform (ci/cuda_archs.py).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
wheel=$(realpath "${1:?usage: ci/wheel-matrix.sh WHEEL}")
specs=${TORCH_SPECS:-2.10.0 2.13.0+cpu 2.14.1 2.15.0}
work=$(mktemp -d)
# A venv with a CUDA build of torch is about 5.5 GB: each goes as soon as its tests pass.
trap 'if [ $? = 0 ]; then rm -rf "$work"; else echo "kept $work for a look" >&2; fi' EXIT

quiet() { "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2); }

new_venv() {  # new_venv DIR TORCH_SPEC PACKAGES...: a fresh venv holding what the tests need
  local dir=$1 spec=$2
  shift 2
  local env=() extra=()
  case $spec in
    *+cpu) [ -n "${TORCH_CPU_INDEX:-}" ] && extra=(--extra-index-url "$TORCH_CPU_INDEX") ;;
    2.10.* | 2.11.* | 2.12.* | 2.15.* | 2.16.*) env=(PIP_CONFIG_FILE=/dev/null) ;;
  esac
  python3 -m venv "$dir"
  quiet env "${env[@]}" "$dir/bin/pip" install -q --disable-pip-version-check "${extra[@]}" \
    "torch==$spec" "$@"
}

run_tests() {  # run_tests VENV: the README's test command, from the repo root
  "$1/bin/python" -m sum_double info
  if [ "${REQUIRE_CUDA_BUILD:-0}" = 1 ]; then
    "$1/bin/python" - "$(python3 "$root/ci/cuda_archs.py")" <<'PY'
import sys
import sum_double._C as c
assert not c.cpu_only, "expected a CUDA build, got a CPU-only one"
assert c.cuda_archs == tuple(sys.argv[1].split(";")), f"archs {c.cuda_archs}"
print("    a CUDA build for", ", ".join(c.cuda_archs))
PY
  fi
  (cd "$root" && "$1/bin/python" -m pytest -q -p no:cacheprovider)
}

for spec in $specs; do
  echo "==> $(basename "$wheel") under torch $spec"
  start=$SECONDS
  venv=$work/venv-$spec
  new_venv "$venv" "$spec" "$wheel[test]"
  run_tests "$venv"
  if [ "$spec" = 2.14.1 ]; then
    # The package ships py.typed: its annotations are checked against the torch it is built with.
    echo "==> mypy (pyproject.toml [tool.mypy]) against torch $spec"
    quiet "$venv/bin/pip" install -q --disable-pip-version-check mypy==2.4.1
    (cd "$root" && "$venv/bin/mypy")
    # Linked with a static libstdc++, as some toolchains do (the op library, which holds the error
    # paths, and the module): errors must still raise.
    echo "==> the CPU-only build (SUM_DOUBLE_CUDA=OFF, static libstdc++)"
    quiet "$venv/bin/pip" install -q --disable-pip-version-check scikit-build-core pybind11 cmake ninja
    quiet "$venv/bin/pip" wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
      -Ccmake.define.SUM_DOUBLE_CUDA=OFF -Ccmake.define.SUM_DOUBLE_WERROR=ON \
      -Ccmake.define.CMAKE_MODULE_LINKER_FLAGS=-static-libstdc++ \
      -Ccmake.define.CMAKE_SHARED_LINKER_FLAGS=-static-libstdc++ -w "$work/dist-cpu" "$root"
    quiet "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --force-reinstall \
      "$work"/dist-cpu/sum_double-*.whl
    "$venv/bin/python" -c "import sum_double._C as c; assert c.cpu_only, 'not CPU-only'"
    REQUIRE_CUDA_BUILD=0 run_tests "$venv"
  fi
  rm -rf "$venv"
  echo "    torch $spec: $((SECONDS - start)) s"
done
echo "wheel matrix: all green"
