# The guest side of ci/aarch64.sh, which sources it: the arm64 CPython and libraries of the host's
# own release unpacked into a sysroot through a private APT state (the system's is left alone),
# and the aarch64 site-packages that the host's pip installs for that Python (aarch64_pip).
# Uses ci/aarch64.sh's $cache, $sysroot, $site, $out and $work; sets $pyver.

# /proc/cpuinfo's features of the emulated CPU, Neoverse-N1 (QEMU_CPU in ci/aarch64.sh).
neoverse_n1_features="fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs"

apt_sources() {  # the arm64 half of the host's own release, whose libc and libstdc++ the cross
  # compiler was built against
  local id codename
  # shellcheck source=/dev/null # the host's
  read -r id codename < <(. /etc/os-release && echo "$ID $VERSION_CODENAME")
  case $id in
    debian)
      printf '%s\n' "Types: deb" "URIs: http://deb.debian.org/debian" \
        "Suites: $codename $codename-updates" "Components: main" \
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" "" \
        "Types: deb" "URIs: http://deb.debian.org/debian-security" \
        "Suites: $codename-security" "Components: main" \
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
      ;;
    ubuntu)
      printf '%s\n' "Types: deb" "URIs: http://ports.ubuntu.com/ubuntu-ports" \
        "Suites: $codename $codename-updates $codename-security" "Components: main" \
        "Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg"
      ;;
    *)
      echo "no arm64 archive known for $id: this step needs a Debian or Ubuntu host" >&2
      return 1
      ;;
  esac
}

make_sysroot() {
  local apt=$cache/apt sources python packages=(libstdc++6 libgomp1)
  # Keyed by the archive and the packages: a change to either rebuilds it.
  sources=$(apt_sources && echo "# python3 libpython3-dev ${packages[*]}")
  if [ "$(cat "$sysroot/.sources" 2>/dev/null)" = "$sources" ]; then
    echo "    cached: $sysroot"
  else
    rm -rf "$sysroot" "$apt"
    mkdir -p "$apt/state/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d"
    : >"$apt/state/status"
    apt_sources >"$apt/sources.list.d/arm64.sources"
    # apt's download user (_apt) cannot write into this user's cache.
    printf '%s\n' 'APT::Architecture "arm64";' 'APT::Architectures { "arm64"; };' \
      'APT::Sandbox::User "root";' \
      "Dir::State \"$apt/state\";" "Dir::State::status \"$apt/state/status\";" \
      "Dir::Cache \"$apt/cache\";" 'Dir::Etc::sourcelist "/dev/null";' \
      "Dir::Etc::sourceparts \"$apt/sources.list.d\";" >"$apt/apt.conf"
    APT_CONFIG=$apt/apt.conf apt-get update -qq
    # The release's own python3, whichever minor version that is.
    python=$(APT_CONFIG=$apt/apt.conf apt-cache depends python3 |
      awk 'match($0, /python3\.[0-9]+$/) && !found { found = substr($0, RSTART) } END { print found }')
    logged "$out/apt-sysroot.log" env APT_CONFIG="$apt/apt.conf" apt-get install -y \
      --no-install-recommends --download-only "$python" "lib$python-dev" "${packages[@]}"
    mkdir -p "$sysroot.new"
    for deb in "$apt"/cache/archives/*.deb; do dpkg-deb -x "$deb" "$sysroot.new"; done
    echo "${python#python}" >"$sysroot.new/.python-version"
    dpkg-deb -f "$apt"/cache/archives/libc6_*.deb Version | cut -d- -f1 >"$sysroot.new/.glibc-version"
    echo "$sources" >"$sysroot.new/.sources"
    mv "$sysroot.new" "$sysroot"
  fi
  # qemu shows the host's x86 /proc/cpuinfo, on which torch's CPU detection crashes; it looks up
  # every path in QEMU_LD_PREFIX first, so the emulated processes read this one. Likewise the
  # MIDR_EL1 that oneDNN's xbyak reads from sysfs, else it says so on every `import torch`.
  local cpu id
  mkdir -p "$sysroot/proc"
  for ((cpu = 0; cpu < $(nproc); cpu++)); do
    printf '%s\t: %s\n' processor "$cpu" BogoMIPS 50.00 Features "$neoverse_n1_features" \
      "CPU implementer" 0x41 "CPU architecture" 8 "CPU variant" 0x3 "CPU part" 0xd0c \
      "CPU revision" 1
    echo
    id=$sysroot/sys/devices/system/cpu/cpu$cpu/regs/identification
    mkdir -p "$id"
    echo 0x00000000413fd0c1 >"$id/midr_el1"
  done >"$sysroot/proc/cpuinfo"
  pyver=$(cat "$sysroot/.python-version")
  echo "    Python $pyver, glibc $(cat "$sysroot/.glibc-version"), $(du -sh "$sysroot" | cut -f1)"
}

aarch64_pip() {  # aarch64_pip ARGS...: the host's pip, installing for the sysroot's Python
  local glibc minor platforms=()
  glibc=$(cat "$sysroot/.glibc-version")
  for ((minor = 17; minor <= ${glibc#2.}; minor++)); do
    platforms+=(--platform "manylinux_2_${minor}_aarch64")
  done
  quiet "$work/tools/bin/pip" install -q --disable-pip-version-check --only-binary=:all: \
    "${platforms[@]}" --platform manylinux2014_aarch64 --platform linux_aarch64 \
    --python-version "$pyver" --implementation cp --abi "cp${pyver/./}" "$@"
}

site_packages() {
  local requirements stamp
  # The build requirements and the test extras, as pyproject.toml names them; pip to build with.
  requirements=$(python3 - <<'PY'
import tomllib
with open("pyproject.toml", "rb") as f:
    project = tomllib.load(f)
print("\n".join(["pip", *project["build-system"]["requires"],
                 *project["project"]["optional-dependencies"]["test"]]))
PY
  )
  stamp=$(printf '%s\n' "$requirements" "for Python $pyver")
  if [ "$(cat "$site/.stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "    cached: $site"
  else
    rm -rf "$site" "$site.new"
    # shellcheck disable=SC2086 # one requirement per line, none with a space
    aarch64_pip --target "$site.new" $requirements
    echo "$stamp" >"$site.new/.stamp"
    mv "$site.new" "$site"
  fi
  echo "    torch $(sed -n 's/^Version: //p' "$site"/torch-*.dist-info/METADATA), $(du -sh "$site" | cut -f1)"
}
