#!/usr/bin/env bash
# The suite under CPython 3.13 and 3.14, which this Debian 12 machine does not have: Debian
# forky's python3.13 and python3.14 (with -dev, -venv) and g++ in a forky root made by mmdebstrap;
# in it, per Python, a venv with torch 2.14.1 (the index's cp313/cp314 wheels, CUDA builds that
# bring some GB of nvidia-* wheels), the wheel built by pip from a tracked copy of the repository
# (forky's GCC, warnings as errors) and installed with its test extra, and the README's test
# command (`python -m pytest`) run from the copy's root.
# CPU-only (SUM_DOUBLE_CUDA=OFF): no GPU here runs CUDA code, and the release runners build and
# test the CUDA wheel under every CPython (docs/releasing.md).
#   bash ci/cpython.sh [PYTHON...]      (default: 3.13 3.14)
# Needs root or sudo (mmdebstrap, chroot, mounts). /proc and a /dev/shm are mounted into the root
# for the run and unmounted on exit, whatever the exit. Cached between runs in
# ${XDG_CACHE_HOME:-~/.cache}/sum-double-ci/: the root, keyed by its suite, mirror and packages (a
# change builds a new one; delete it for newer forky packages), and uv's cache inside it (carried
# into a new root), so a second run downloads no package. SUM_DOUBLE_DEBIAN_MIRROR: another mirror.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
pythons=${*:-3.13 3.14}
scratch

suite=forky
mirror=${SUM_DOUBLE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=g++,python3.13,python3.13-dev,python3.13-venv,python3.14,python3.14-dev,python3.14-venv
# The mirror's forky Release file reads as expired; without this, apt stops.
aptopt='Acquire::Check-Valid-Until "false"'
cache=${XDG_CACHE_HOME:-$HOME/.cache}/sum-double-ci
key=$(printf '%s\n' "$suite" "$mirror" "$packages" "$aptopt" | sha256sum | cut -c1-12)
rootfs=$cache/$suite-$key
uv_cache=/var/cache/uv  # inside the root: uv hardlinks from it into the venvs there
run=/tmp/ci.$$          # this run's venvs, copy and temporary files, inside the root
mounted=()

on_exit() {  # lib.sh's scratch runs it first on exit
  local i status=$1
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do as_root umount "${mounted[i]}" || status=1; done
  if [ "$status" = 0 ]; then as_root rm -rf "$rootfs$run"; else echo "kept $rootfs$run" >&2; fi
  return "$status"
}
mkdir -p "$cache"
exec 9>"$cache/$suite.lock"  # one run at a time per cache
flock 9

in_root() {  # in_root DIR CMD...: CMD in the root, from DIR, with none of the host's environment
  # (its PIP_* name local wheel folders and a pip config the root does not have)
  as_root chroot "$rootfs" /usr/bin/env -i -C "$1" HOME=/root PATH=/usr/local/bin:/usr/bin:/bin \
    LANG=C.UTF-8 TMPDIR="$run/tmp" SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    UV_CACHE_DIR="$uv_cache" UV_NO_PROGRESS=1 "${@:2}"
}

make_root() {
  if [ -d "$rootfs" ]; then  # made whole, then moved into place
    echo "    cached: $rootfs"
    return
  fi
  if ! command -v mmdebstrap >/dev/null; then
    as_root apt-get update -qq
    logged "$work/apt-host.log" as_root env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y --no-install-recommends mmdebstrap
  fi
  as_root rm -rf "$rootfs.new"
  logged "$work/mmdebstrap.log" as_root mmdebstrap --variant=apt --aptopt="$aptopt" \
    --include="$packages" "$suite" "$rootfs.new" "$mirror"
  # uv's cache goes from the root it was in to the new one; older roots go.
  local old
  for old in "$cache/$suite"-*; do
    if [ ! -d "$old" ] || [ "$old" = "$rootfs.new" ]; then continue; fi
    if [ -d "$old$uv_cache" ] && [ ! -d "$rootfs.new$uv_cache" ]; then
      as_root mv "$old$uv_cache" "$rootfs.new$uv_cache"
    fi
    as_root rm -rf "$old"
  done
  as_root mv "$rootfs.new" "$rootfs"
  echo "    built: $rootfs ($(du -sh --exclude="${uv_cache#/}" "$rootfs" | cut -f1))"
}

enter_root() {  # what the root takes from the host each run, and the mounts
  as_root rm -rf "$rootfs"/tmp/ci.*  # a failed run's leftovers
  # pip and uv in the root reach the index only through the host's CA bundle (in_root names it
  # in SSL_CERT_FILE for uv, whose own roots do not have this network's CA).
  as_root cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  as_root cp /etc/resolv.conf /etc/hosts "$rootfs/etc/"
  as_root install -D -m 755 "$(uv_path)" "$rootfs/usr/local/bin/uv"
  as_root install -d -m 1777 "$rootfs$run/tmp"
  as_root mkdir -p "$rootfs$uv_cache"
  # mmdebstrap, as root, made /dev's nodes. A /dev/shm of the run's own (POSIX shared memory and
  # semaphores: multiprocessing's, torch's), so none of it stays in the cached root.
  as_root mount -t proc proc "$rootfs/proc" && mounted+=("$rootfs/proc")
  as_root mount -t tmpfs -o mode=1777 shm "$rootfs/dev/shm" && mounted+=("$rootfs/dev/shm")
  as_root chroot "$rootfs" uv --version
  as_root install -d -o "$(id -u)" "$rootfs$run/src"
  tracked_copy "$root" "$rootfs$run/src"
}

venv_with_torch() {  # venv_with_torch PY: a venv of the root's pythonPY, torch 2.14.1 in it
  in_root / "python$1" -m venv "$run/venv-$1"
  logged "$work/torch-$1.log" in_root / uv pip install --python "$run/venv-$1/bin/python" \
    torch==2.14.1
  grep -E '^ \+ (torch|nvidia-cudnn)' "$work/torch-$1.log" | sed 's/^ +/   /'
}

build_wheel() {  # build_wheel PY: the CPU-only wheel, built by pip as a user would, installed
  logged "$work/build-deps-$1.log" in_root / uv pip install --python "$run/venv-$1/bin/python" \
    scikit-build-core pybind11 cmake ninja
  logged "$work/build-$1.log" in_root "$run/src" "$run/venv-$1/bin/pip" wheel -q \
    --disable-pip-version-check --no-deps --no-build-isolation \
    -Ccmake.define.SUM_DOUBLE_CUDA=OFF -Ccmake.define.SUM_DOUBLE_WERROR=ON -w "$run/dist-$1" .
  local wheel
  wheel=$(cd "$rootfs$run/dist-$1" && ls sum_double-*.whl)
  echo "    $wheel"
  logged "$work/install-$1.log" in_root / uv pip install --python "$run/venv-$1/bin/python" \
    "$run/dist-$1/${wheel}[test]"
}

run_suite() {  # run_suite PY: the README's test command, from the copy's root
  in_root / "$run/venv-$1/bin/python" -m sum_double info
  in_root / "$run/venv-$1/bin/python" -c \
    'import sum_double._C as c; assert c.cpu_only, "expected a CPU-only build"'
  in_root "$run/src" "$run/venv-$1/bin/python" -m pytest -q -p no:cacheprovider
}

step "the $suite root (mmdebstrap, or the cache's)" make_root
step "into the root: CA bundle, uv, mounts, a tracked copy" enter_root
for py in $pythons; do
  step "CPython $py: a venv, torch 2.14.1" venv_with_torch "$py"
  step "CPython $py: the CPU-only wheel, installed with [test]" build_wheel "$py"
  step "CPython $py: python -m pytest" run_suite "$py"
  as_root rm -rf "$rootfs$run/venv-$py"  # hardlinks into uv's cache: quick to remove
done
report_steps "cpython $pythons"
