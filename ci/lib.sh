# What the CI scripts share, written once. Each resolves its path arguments, then sources it:
#     source "$(dirname "$0")/lib.sh"
# which moves to the repository root and sets $root.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)

# ---- This machine's pip configuration, the one quirk: it names local package indexes that may
# be absent (pip warns about each on every call) and serves torch from local disk, capped at 2.14.1.

quiet() {  # quiet CMD...: CMD without those warnings
  "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
}

pip_install() {  # pip_install VENV ARGS...: pip install into VENV, quietly
  quiet "$1/bin/pip" install -q --disable-pip-version-check "${@:2}"
}

new_venv() {  # new_venv DIR TORCH_SPEC PACKAGES...: a fresh venv with torch==TORCH_SPEC in it
  local dir=$1 spec=$2 env=() extra=() link
  shift 2
  # torch's +cpu builds live on an index of their own, which pip does not search by itself.
  if [[ $spec == *+cpu && -n ${TORCH_CPU_INDEX:-} ]]; then
    extra=(--extra-index-url "$TORCH_CPU_INDEX")
  fi
  # Any torch but the two on local disk comes from the index, past the config's cap.
  case $spec in
    2.13.0+cpu | 2.14.1) ;;
    *) env=(PIP_CONFIG_FILE=/dev/null) ;;
  esac
  python3 -m venv "$dir"
  # uv puts torch in (some GB of wheels, unpacked once into its cache) in seconds, where pip takes
  # a minute or more for every venv; pip installs the rest, as a user would.
  if [ ${#env[@]} = 0 ]; then  # uv reads no pip configuration: the local wheels it names
    for link in $(python3 -m pip config get global.find-links 2>/dev/null || true); do
      extra+=(--find-links "$link")
    done
  fi
  env "${env[@]}" "$(uv_path)" pip install -q --python "$dir/bin/python" "${extra[@]}" \
    "torch==$spec"
  quiet env "${env[@]}" "$dir/bin/pip" install -q --disable-pip-version-check "${extra[@]}" \
    "torch==$spec" "$@"
}

UV_VERSION=0.13.9  # pinned, as every tool CI runs
uv_path() {  # the pinned uv, installed on first use where the machine keeps caches
  local dir=${XDG_CACHE_HOME:-$HOME/.cache}/sum-double-ci/uv-$UV_VERSION
  if [ ! -x "$dir/bin/uv" ]; then
    python3 -m venv "$dir" && pip_install "$dir" "uv==$UV_VERSION" >&2
  fi
  echo "$dir/bin/uv"
}

as_root() {  # as_root CMD...: CMD as root (sudo where this user is not)
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# ---- Steps, logs, the scratch directory.

step_times=()
keep_time() {  # keep_time NAME SECONDS: a line of report_steps' table
  step_times+=("$(printf '%-58s %4d s' "$1" "$2")")
}
step() {  # step NAME CMD...: print NAME, run CMD, print its time and keep it for report_steps
  local name=$1 start=$SECONDS
  shift
  echo "==> $name"
  "$@"
  keep_time "$name" $((SECONDS - start))
  echo "    $((SECONDS - start)) s"
}

report_steps() {  # report_steps WHAT: each step's time, then WHAT's total
  echo "==> step times"
  printf '    %s\n' "${step_times[@]}"
  echo "$1: all green in $SECONDS s"
}

# CMD runs in a condition, where `set -e` stops nothing: a program, or a function of one command.
logged() {  # logged LOG CMD...: CMD's output into LOG, whose tail is shown if CMD fails
  local log=$1
  shift
  "$@" >"$log" 2>&1 || {
    tail -n 60 "$log" >&2
    return 1
  }
}

# A scratch directory in $work, removed when the script succeeds and kept for a look when it fails.
# A script with more to undo defines on_exit, which runs first (given the exit status).
scratch() {
  work=$(mktemp -d)
  trap '_finish $?' EXIT
}
_finish() {
  local status=$1
  if declare -F on_exit >/dev/null; then on_exit "$status" || status=1; fi
  if [ "$status" = 0 ]; then rm -rf "$work"; else echo "kept $work for a look" >&2; fi
  exit "$status"
}

cmake_build() {  # cmake_build VENV SOURCE BUILD CMAKE_ARGS...: configure with Ninja and build,
  # with the venv's cmake and ninja (its Python only says where packages are)
  local venv=$1 source=$2 build=$3
  shift 3
  PATH=$venv/bin:$PATH logged "$build.configure.log" cmake -S "$source" -B "$build" -G Ninja "$@"
  PATH=$venv/bin:$PATH cmake --build "$build"
}

tracked_copy() {  # tracked_copy FROM TO: the files git tracks in FROM, as a fresh git repo in TO
  mkdir -p "$2"
  git -C "$1" ls-files -z | tar -C "$1" --null -T - -cf - | tar -C "$2" -xf -
  git -C "$2" init -q && git -C "$2" add -A
}
