#!/usr/bin/env bash
# aarch64 on an x86_64 machine, before any release builds it on an ARM runner: the module
# cross-compiled from the release's sources and CMake (warnings as errors) and the suite run on it
# under qemu-user; the CUDA build cross-compiled and its machine code checked (no GPU runs it here).
#   1. host tools from apt: the aarch64 cross compiler, qemu-user-static; qemu registered with
#      binfmt_misc for the run (tests start sys.executable in subprocesses), unregistered on exit
#   2. a sysroot: the arm64 CPython and libraries of the host's own release, through a private APT
#      state (the system's is left alone), and an ARM /proc/cpuinfo for the emulated processes
#   3. the aarch64 site-packages (torch 2.14.1, the build requirements, the test extras) installed
#      by the host's pip; the index's aarch64 torch is the CUDA build, with 3 GB of nvidia-* wheels
#      (steps 2 and 3 are ci/aarch64-guest.sh's functions)
#   4. the CPU-only wheel, built by the emulated pip with scikit-build-core; ci/check_binary.py
#   5. the suite (`python -m pytest`) under emulation, on the NEON loops: every test passes but
#      the CUDA ones, which must be all that skips; left out, the tests that start fresh Pythons
#      to check what no CPU changes (test_suite says which)
#   6. beside the suite, which keeps about one core busy: the CUDA wheel (the release's CUDA 12.4,
#      CUDA_TARGET=aarch64 ci/cuda12-toolkit.sh: this machine's nvcc with the cross compiler as
#      its host compiler, the aarch64 cudart_static), ci/check_binary.py, cuobjdump on its op
#      library against the architectures that nvcc gives aarch64 (ci/cuda_archs.py), and the
#      wheel imported under emulation
#   bash ci/aarch64.sh [OUTDIR]      (OUTDIR keeps the wheels and logs; default: a temporary dir)
# The wheels need the sysroot's glibc, newer than manylinux_2_28's: test artifacts, never release
# wheels (docs/releasing.md). Cached between runs on one machine in SUM_DOUBLE_AARCH64_CACHE
# (default ~/.cache/sum-double-aarch64): pip's downloads, the sysroot, the aarch64 site-packages.
set -euo pipefail
out=""
if [ -n "${1:-}" ]; then  # before lib.sh moves to the root
  mkdir -p "$1"
  out=$(cd "$1" && pwd)
fi
source "$(dirname "$0")/lib.sh"
scratch
out=${out:-$work/out}
mkdir -p "$out"
cache=${SUM_DOUBLE_AARCH64_CACHE:-$HOME/.cache/sum-double-aarch64}
mkdir -p "$cache"
export PIP_CACHE_DIR=${PIP_CACHE_DIR:-$cache/pip}
sysroot=$cache/sysroot site=$cache/site
binfmt=/proc/sys/fs/binfmt_misc
registered="" beside="" installed=""
# The emulated CPU: Neoverse-N1 (Graviton2, Ampere Altra). qemu's default, "max", has SVE, and
# GCC 12 crashes compiling the SVE headers of torch's inductor.
export QEMU_CPU=neoverse-n1 QEMU_LD_PREFIX=$sysroot

on_exit() {  # lib.sh's scratch runs it first on exit
  # The job beside the suite runs under qemu too: it ends before the registration does.
  [ -z "$beside" ] || wait "$beside" || true
  [ -z "$registered" ] || echo -1 | as_root tee "$binfmt/qemu-aarch64" >/dev/null
}
# One run at a time per cache: another would rebuild it under this one, or unregister qemu mid-run.
exec 9>"$cache/lock"
flock 9
emulated() {  # emulated CMD...: the sysroot's Python under qemu, with the aarch64 site-packages
  # and the wheel install_wheel installed last
  PYTHONPATH=$installed:$site "$sysroot/usr/bin/python$pyver" "$@"
}

source "$root/ci/aarch64-guest.sh"

host_tools() {
  local want=(g++-aarch64-linux-gnu qemu-user-static)
  if [ "$(dpkg-query -W -f='${db:Status-Status} ' "${want[@]}" 2>/dev/null)" = "installed installed " ]; then
    echo "    installed already: ${want[*]}"
  else
    as_root apt-get update -qq
    logged "$out/apt-host.log" as_root env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y --no-install-recommends "${want[@]}"
  fi
  aarch64-linux-gnu-g++ --version | sed -n 1p
  qemu-aarch64-static --version | sed -n 1p
  [ -e "$binfmt/register" ] || as_root mount -t binfmt_misc binfmt_misc "$binfmt"
  if [ -e "$binfmt/qemu-aarch64" ]; then
    echo "    qemu-aarch64 is registered with binfmt_misc already: left as it is"
  else
    grep -v '^#' /usr/lib/binfmt.d/qemu-aarch64.conf | as_root tee "$binfmt/register" >/dev/null
    registered=1
    echo "    qemu-aarch64 registered with binfmt_misc until this script exits"
  fi
  python3 -m venv "$work/tools"
  pip_install "$work/tools" cmake ninja "$(grep '^pyelftools==' ci/release-tools.txt)"
}

build_wheel() {  # build_wheel NAME CONFIG_SETTINGS...: a wheel of the checkout, as the release
  # builds it but for aarch64
  local name=$1
  shift
  rm -rf "${out:?}/$name"
  # CMP0190 NEW: FindPython asks the (emulated) interpreter for its include dir and extension
  # suffix when cross-compiling, else the module is a bare _C.so. Too late in a toolchain file.
  PATH=$work/tools/bin:$PATH SUM_DOUBLE_AARCH64_SYSROOT=$sysroot logged "$out/build-$name.log" \
    emulated -m pip wheel --no-deps --no-build-isolation --disable-pip-version-check -v \
    -w "$out/$name" -Cbuild-dir="$work/build-$name" \
    -Ccmake.define.CMAKE_TOOLCHAIN_FILE="$root/ci/aarch64-toolchain.cmake" \
    -Ccmake.define.CMAKE_POLICY_DEFAULT_CMP0190=NEW \
    -Ccmake.define.SUM_DOUBLE_WERROR=ON "$@" "$root"
  grep -E "sum_double: (CUDA|torch|building)" "$out/build-$name.log" | sed 's/^/    /'
  wheel=$(ls "$out/$name"/sum_double-*.whl)
  echo "    $(basename "$wheel"): $(du -k "$wheel" | cut -f1) KiB"
  "$work/tools/bin/python" ci/check_binary.py "$wheel" --forbid "$root" --forbid "$work" \
    --forbid "$cache"
}

install_wheel() {  # install_wheel NAME WHEEL: into a directory of its own
  installed=$work/installed-$1
  aarch64_pip --no-deps --target "$installed" "$2"
}

cpu_wheel() {
  build_wheel cpu -Ccmake.define.SUM_DOUBLE_CUDA=OFF
  install_wheel cpu "$wheel"
}

test_suite() {
  local log=$out/pytest.log status=0 others
  # inductor compiles C++ for the machine it runs on: the cross compiler, aimed at the emulated
  # CPU, and the sysroot's Python headers where inductor names the guest's.
  cat >"$work/cxx" <<EOF
#!/usr/bin/env bash
args=()
for arg in "\$@"; do
  case \$arg in
    -march=native) args+=(-mcpu=neoverse-n1) ;;
    -I/usr/include/*) args+=("-I$sysroot\${arg#-I}") ;;
    *) args+=("\$arg") ;;
  esac
done
exec aarch64-linux-gnu-g++ -idirafter "$sysroot/usr/include" "\${args[@]}"
EOF
  chmod +x "$work/cxx"
  # Left out: the tests that start fresh Pythons only to check what no CPU changes (the CLI's
  # output, the DTensor rule's import order, the op library's loading rules): each pays an
  # emulated `import torch`, together more than half the suite's time. ci/wheel-matrix.sh and the
  # ARM runner run them. Of the loading rules, the library registering the op alone stays.
  local left_out="test_cli or test_old_torch_is_refused or test_rule_registered_whichever"
  left_out+=" or test_without_register_sharding or test_loading_it_twice"
  left_out+=" or test_a_copy_of_the_library_elsewhere or test_a_saved_program_loads"
  left_out+=" or test_without_the_import_the_error_names"
  CXX=$work/cxx SUM_DOUBLE_HYPOTHESIS_PROFILE=emulated SUM_DOUBLE_RANKS_TIMEOUT_S=900 \
    emulated -m pytest -p no:cacheprovider \
    -q -ra --durations=20 -k "not ($left_out)" >"$log" 2>&1 || status=$?
  grep -E "^(FAILED|ERROR)" "$log" || true
  tail -n 1 "$log"
  # Skipped, grouped by reason: only the CUDA tests may skip.
  sed -n 's/^SKIPPED \[\([0-9]*\)\] [^:]*:[0-9]*: /\1 /p' "$log" |
    awk '{n = $1; $1 = ""; count[$0] += n} END {for (r in count) printf "    %4d skipped:%s\n", count[r], r}'
  others=$(grep '^SKIPPED' "$log" | grep -cv "CUDA device" || true)
  [ "$others" = 0 ] || { echo "FAIL: $others skip lines that are not CUDA tests" >&2; status=1; }
  return $status
}

cuda_wheel() {
  local cudacxx module archs
  cudacxx=$(CUDA_TARGET=aarch64 bash ci/cuda12-toolkit.sh)
  cudacxx=${cudacxx#CUDACXX=}
  CUDACXX=$cudacxx build_wheel cuda -Ccmake.define.SUM_DOUBLE_CUDA=ON
  archs=$(PATH=$work/tools/bin:$PATH python3 ci/cuda_archs.py --nvcc "$cudacxx" --machine aarch64)
  [ "$archs" = "80-real;90" ] || { echo "FAIL: the aarch64 release list changed: $archs" >&2; return 1; }
  grep -q "sum_double: CUDA .*archs $archs$" "$out/build-cuda.log" ||
    { echo "FAIL: not built for the aarch64 list of $cudacxx, $archs" >&2; return 1; }
  mkdir "$work/cuda-module"
  python3 -m zipfile -e "$wheel" "$work/cuda-module"
  module=$work/cuda-module/sum_double/lib/libsum_double_ops.so
  PATH=$work/tools/bin:$PATH python3 ci/cuda_archs.py --nvcc "$cudacxx" --machine aarch64 \
    --check "$module" --cuobjdump "$(dirname "$cudacxx")/cuobjdump"
  # It loads on aarch64 without a GPU: the static cudart asks the driver nothing at load time.
  install_wheel cuda "$wheel"
  emulated -m sum_double info | sed 's/^/    /'
}

beside_the_suite() {  # the installed CPU wheel's facts, then the CUDA wheel: while the emulated
  # suite runs, mostly on one core
  local start=$SECONDS
  emulated -m sum_double info | sed 's/^/    /'
  emulated -c "import sum_double; assert sum_double._C.cpu_isa() == 'aarch64', 'not the NEON loops'"
  cuda_wheel
  echo $((SECONDS - start)) >"$work/beside.seconds"
}

step "host tools (apt, binfmt, pip)" host_tools
step "sysroot (arm64 Python, private APT)" make_sysroot
step "aarch64 site-packages (torch)" site_packages
step "CPU-only wheel, check_binary" cpu_wheel
beside_the_suite >"$out/beside.log" 2>&1 &
beside=$!
step "test suite under qemu" test_suite
echo "==> beside the suite: info, cpu_isa(); CUDA wheel, check_binary, cuobjdump, info"
wait_start=$SECONDS
status=0
wait "$beside" || status=$?
beside=""
cat "$out/beside.log"
[ $status = 0 ]
keep_time "CUDA wheel etc., beside the suite" "$(cat "$work/beside.seconds")"
keep_time "  of which after the suite" $((SECONDS - wait_start))
report_steps aarch64
