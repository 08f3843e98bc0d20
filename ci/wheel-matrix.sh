#!/usr/bin/env bash
# One built wheel under every torch it promises to serve: each in a fresh venv, the README's test
# command run against the installed wheel. Then the CPU-only variant of the build.
#   bash ci/wheel-matrix.sh WHEEL
# torch 2.10.0 is the oldest the stable-ABI target allows; 2.13.0+cpu has no libtorch_cuda; 2.14.1
# is the torch the wheel is built against; 2.15.0 is newer than it (the forward-compat promise).
# Torch specs can be given in TORCH_SPECS; where pip does not find torch's +cpu builds by itself,
# TORCH_CPU_INDEX names their index.
# REQUIRE_CUDA_ARCHS=LIST (the release wheel) fails unless the wheel is a CUDA build that reports
# carrying exactly those architectures (ci/release-build.sh writes the list it checked the binary
# against).
set -euo pipefail
wheel=$(realpath "${1:?usage: ci/wheel-matrix.sh WHEEL}")
source "$(dirname "$0")/lib.sh"
specs=${TORCH_SPECS:-2.10.0 2.13.0+cpu 2.14.1 2.15.0}
scratch

run_tests() {  # run_tests VENV [TEST PATH...]: the README's test command, from the repo root
  "$1/bin/python" -m sum_double info
  if [ -n "${REQUIRE_CUDA_ARCHS:-}" ]; then
    "$1/bin/python" - "$REQUIRE_CUDA_ARCHS" <<'PY'
import sys
import sum_double._C as c
assert not c.cpu_only, "expected a CUDA build, got a CPU-only one"
assert c.cuda_archs == tuple(sys.argv[1].split(";")), f"archs {c.cuda_archs}"
print("    a CUDA build for", ", ".join(c.cuda_archs))
PY
  fi
  (cd "$root" && "$1/bin/python" -m pytest -q -p no:cacheprovider "${@:2}")
}

mypy() {  # the package ships py.typed: its annotations, against the torch it is built with
  pip_install "$1" mypy==2.4.1
  (cd "$root" && "$1/bin/mypy")
}
cpu_only_static() {  # the CPU-only build, its op library (which holds the error paths) and
  # module linked with a static libstdc++, as some toolchains do: errors must still raise. The
  # tests of the op's errors and of the package; the kernels are the ones the full runs tested.
  pip_install "$1" scikit-build-core pybind11 cmake ninja
  quiet "$1/bin/pip" wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
    -Ccmake.define.SUM_DOUBLE_CUDA=OFF -Ccmake.define.SUM_DOUBLE_WERROR=ON \
    -Ccmake.define.CMAKE_MODULE_LINKER_FLAGS=-static-libstdc++ \
    -Ccmake.define.CMAKE_SHARED_LINKER_FLAGS=-static-libstdc++ -w "$work/dist-cpu" "$root"
  pip_install "$1" --no-deps --force-reinstall "$work"/dist-cpu/sum_double-*.whl
  "$1/bin/python" -c "import sum_double._C as c; assert c.cpu_only, 'not CPU-only'"
  REQUIRE_CUDA_ARCHS="" run_tests "$1" tests/test_errors.py tests/test_package.py
}

under_torch() {  # under_torch SPEC: the wheel in a fresh venv with that torch, the tests run
  new_venv "$work/venv-$1" "$1" "$wheel[test]"
  run_tests "$work/venv-$1"
}

for spec in $specs; do
  venv=$work/venv-$spec
  step "$(basename "$wheel") under torch $spec" under_torch "$spec"
  if [ "$spec" = 2.14.1 ]; then
    step "mypy (pyproject.toml [tool.mypy]), torch $spec" mypy "$venv"
    step "the CPU-only build, static libstdc++" cpu_only_static "$venv"
  fi
  rm -rf "$venv"  # a venv with a CUDA build of torch is about 5.5 GB
done
report_steps "wheel matrix"
