#!/usr/bin/env bash
# The CUDA toolkit release wheels are built with: NVIDIA's CUDA 12.4.1 from Debian trixie's non-free
# archive (ci/cuda12-toolkit.txt pins each package and its sha256), downloaded with apt-get into a
# private APT state and laid out in DIR as NVIDIA lays out a toolkit (bin/, include/, lib64/,
# nvvm/). Nothing is installed into the system. Prints the one setting CMake needs:
#   bash ci/cuda12-toolkit.sh [DIR]      ->   CUDACXX=DIR/bin/nvcc
# DIR defaults to the cache, SUM_DOUBLE_CUDA12_CACHE (~/.cache/sum-double/cuda12), where the
# downloaded packages are kept too: a tree made there from the same pins is used as it is.
# CUDA_TARGET=aarch64 (or x86_64) cross-compiles: the compiler for this machine, the runtime
# (lib64/: cudart_static, cudadevrt) for the target.
# Needs apt-get, dpkg and Debian's archive keyring (Ubuntu: apt-get install debian-archive-keyring).
set -euo pipefail
pins=$(cd "$(dirname "$0")" && pwd)/cuda12-toolkit.txt
cache=${SUM_DOUBLE_CUDA12_CACHE:-$HOME/.cache/sum-double/cuda12}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

fail() {  # fail WHAT: say what failed and how to retry, then stop
  echo "ci/cuda12-toolkit.sh: $1" >&2
  echo "  Nothing half-made is used: run the script again to retry." >&2
  exit 1
}

debian_arch() {  # debian_arch MACHINE: Debian's name for a processor (x86_64 -> amd64)
  case $1 in
    x86_64 | amd64) echo amd64 ;;
    aarch64 | arm64) echo arm64 ;;
    *) fail "no CUDA 12 toolkit is pinned for $1 (ci/cuda12-toolkit.txt has amd64 and arm64)" ;;
  esac
}
host=$(debian_arch "$(uname -m)")
target=$(debian_arch "${CUDA_TARGET:-$host}")
triplet=$([ "$target" = amd64 ] && echo x86_64-linux-gnu || echo aarch64-linux-gnu)
dir=${1:-$cache/toolkit-$host-$target}
mkdir -p "$cache/debs" "$(dirname "$dir")"
dir=$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir")

# What this tree is made of (the pins and this script): a tree whose stamp differs is made again.
stamp="$(cat "$pins" "$0" | sha256sum | cut -d' ' -f1) host=$host target=$target"
made_before() {
  [ "$(cat "$dir/.pins" 2>/dev/null)" = "$stamp" ] || return 1
  echo "    CUDA 12 toolkit made before from the same pins: $dir" >&2
  echo "CUDACXX=$dir/bin/nvcc"
}
made_before && exit 0
# Only a tree this script made is ever replaced: DIR may be a path the caller got wrong.
if [ -e "$dir" ] && [ ! -f "$dir/.made-by-cuda12-toolkit" ]; then
  fail "$dir exists and is not a toolkit this script made: give another DIR, or remove it"
fi

# One run at a time per cache (the packages, the APT state); a second waits, then finds the
# first's tree.
exec 9>"$cache/lock"
flock 9
made_before && exit 0

pinned() {  # pinned PACKAGE ARCH: "version sha256" of that package in the pins
  awk -v p="$1" -v a="$2" '$1 == p && $3 == a {print $2, $4}' "$pins"
}

apt_state=$cache/apt
apt_opts=(-o "Dir::Etc::SourceList=$apt_state/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$apt_state/lists" -o Dir::State::Status=/dev/null
  -o "Dir::Cache=$apt_state/cache" -o "APT::Architectures=$host,$target"
  -o APT::Sandbox::User=root -o Debug::NoLocking=1)
updated=""
apt_update() {  # trixie's package lists, read into the private state once per run
  [ -z "$updated" ] || return 0
  [ -r "$keyring" ] || fail "no $keyring, which checks Debian's archive: install debian-archive-keyring"
  mkdir -p "$apt_state/lists/partial" "$apt_state/cache/archives/partial"
  echo "deb [signed-by=$keyring] http://deb.debian.org/debian trixie main non-free" \
    >"$apt_state/sources.list"
  apt-get "${apt_opts[@]}" -qq update >&2 || fail "apt-get update of Debian trixie's lists failed (above)"
  updated=1
}

fetch() {  # fetch PACKAGE ARCH: the pinned .deb, checked, in the cache; sets $deb to its path
  # (in this shell, not a subshell: fail must stop the script, and apt_update run once)
  local pkg=$1 arch=$2 version sum got
  read -r version sum <<<"$(pinned "$pkg" "$arch")"
  [ -n "$sum" ] || fail "$pkg for $arch is not pinned in ci/cuda12-toolkit.txt"
  deb=$cache/debs/${pkg}_${version}_$arch.deb
  if [ ! -f "$deb" ] || ! sha256sum --status -c <<<"$sum  $deb"; then
    apt_update
    rm -f "$deb"
    echo "    downloading $pkg $version ($arch)" >&2
    (cd "$cache/debs" && apt-get "${apt_opts[@]}" -qq download "$pkg:$arch=$version") >&2 ||
      fail "apt-get could not download $pkg $version ($arch) from Debian trixie. If the archive no \
longer has that version (it keeps only its current one), pin the new one in ci/cuda12-toolkit.txt."
    got=$(sha256sum "$deb" | cut -d' ' -f1)
    if [ "$got" != "$sum" ]; then
      rm -f "$deb"
      fail "$pkg $version ($arch) has sha256 $got, but ci/cuda12-toolkit.txt pins $sum: it was \
deleted, not used. A broken download passes on a retry; a changed package needs a look first."
    fi
  fi
}

# Everything is unpacked into a staging directory in the cache, which becomes DIR only when
# complete (moved, or copied where DIR is on another file system).
stage=$(mktemp -d "$cache/partial.XXXXXX")
chmod 755 "$stage"
trap 'rm -rf "$stage"' EXIT
unpack() {  # unpack DEB [MEMBER...]: the package's files (only MEMBERs, if given) into $stage/deb
  mkdir -p "$stage/deb"
  dpkg-deb --fsys-tarfile "$1" | tar -x -C "$stage/deb" "${@:2}" ||
    fail "unpacking $(basename "$1") failed"
}

echo "    CUDA 12 toolkit into $dir (compiler: $host, runtime: $target)" >&2
fetch nvidia-cuda-toolkit "$host"
unpack "$deb" ./usr/bin ./usr/lib/nvidia-cuda-toolkit/bin \
  ./usr/lib/nvidia-cuda-toolkit/libdevice ./usr/include/nvvm.h \
  ./usr/share/doc/nvidia-cuda-toolkit/copyright
lib=./usr/lib/$triplet
# Of the 930 MB of libraries and headers, what a CUDA runtime build needs: headers, the static
# runtime, and the stub libcuda.so that CMake's FindCUDAToolkit looks for.
fetch nvidia-cuda-dev "$target"
unpack "$deb" ./usr/include "$lib/libcudart_static.a" \
  "$lib/libcudadevrt.a" "$lib/libculibos.a" "$lib/stubs/libcuda.so"
# The shared runtime: FindCUDAToolkit wants a libcudart.so even when the static one is linked.
fetch libcudart12 "$target"
unpack "$deb" "$lib"
# libcu++ (<cuda/std/...>, <nv/target>), which cuda_fp16.h includes: Debian packages it apart.
fetch libcu++-dev all
unpack "$deb" ./usr/include

# NVIDIA's layout, so that nvcc, CMake and a downstream CUDAToolkit_ROOT find everything.
from=$stage/deb
mkdir -p "$stage/bin" "$stage/lib64/stubs" "$stage/nvvm"
for tool in nvcc cicc crt; do mv "$from/usr/lib/nvidia-cuda-toolkit/bin/$tool" "$stage/bin/"; done
for tool in bin2c cudafe++ cuobjdump fatbinary nvdisasm nvlink nvprune ptxas; do
  mv "$from/usr/bin/$tool" "$stage/bin/"
done
mv "$from/usr/lib/nvidia-cuda-toolkit/libdevice" "$stage/nvvm/libdevice"
mv "$from/usr/include" "$stage/include"
mv "$from/$lib"/lib*.a "$from/$lib"/libcudart.so.* "$stage/lib64/"
mv "$from/$lib/stubs/libcuda.so" "$stage/lib64/stubs/"
ln -s libcudart.so.12 "$stage/lib64/libcudart.so"
mv "$from/usr/share/doc/nvidia-cuda-toolkit/copyright" "$stage/copyright"
# Debian's profile points at /usr; this one at the tree, wherever it is moved. Without Debian's
# gcc/g++ wrappers (left behind), nvcc takes the host compiler from PATH or -ccbin.
cat >"$stage/bin/nvcc.profile" <<'EOF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
PATH            += $(_HERE_):
INCLUDES        += "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64/stubs" "-L$(TOP)/lib64"
EOF
# The versions, where NVIDIA's toolkits keep them: the build reads the runtime's for its SBOM.
version_of() { pinned "$1" "$2" | sed 's/~.*//'; }
cat >"$stage/version.json" <<EOF
{
  "cuda": {"name": "CUDA SDK", "version": "12.4.1"},
  "cuda_cudart": {"name": "CUDA Runtime (cudart)", "version": "$(version_of libcudart12 "$target")"},
  "cuda_nvcc": {"name": "CUDA NVCC", "version": "$(version_of nvidia-cuda-toolkit "$host")"}
}
EOF
rm -rf "$from"
"$stage/bin/nvcc" --version | tail -n 2 >&2 || fail "the unpacked nvcc does not run on this machine"
touch "$stage/.made-by-cuda12-toolkit"
rm -rf "$dir"
mv "$stage" "$dir"  # within one file system a rename; across two, mv copies, then removes
echo "$stamp" >"$dir/.pins"  # last: a tree without it is made again
echo "CUDACXX=$dir/bin/nvcc"
