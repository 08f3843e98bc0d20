#!/usr/bin/env bash
# The rename recipe (docs/make-it-your-own.md) done for real on a copy of this checkout, then
# checked with real pip: the copy must build, pass its own tests, and share no name with us.
#   1. the tracked files copied to a scratch git repo, renamed by its own ci/rename.py to NEW
#      (default mul_double); no form of our name may be left in it, and a second run must refuse;
#      our records must be gone from it (results, experiments, NOTES' findings, the CHANGELOG's
#      history), with no link to them left dangling
#   2. its wheel built with pip (CPU-only: the CUDA build is the same recipe) in a fresh venv with
#      torch 2.14.1; its test suite, from its root, against it; the names it installs
#      (ci/check_rename.py alone); its examples/plain-cmake against its CMake package
#   3. our WHEEL beside it in that venv: both imported in one process, both ops called
#   4. self-test: a copy renamed but for the dispatcher namespace, the rename a hand edit most
#      easily gets wrong, must fail the checks of steps 1, 2 and 3
#   5. the second op: ci/second-op.patch applied to another copy renamed to mul_double, as
#      docs/make-it-your-own.md's two commands do; its lines by folder (git apply --numstat)
#   bash ci/check-rename.sh WHEEL [NEW_SNAKE]
set -euo pipefail
wheel=$(realpath "${1:?usage: ci/check-rename.sh WHEEL [NEW_SNAKE]}")
source "$(dirname "$0")/lib.sh"
old=sum_double
new=${2:-mul_double}
scratch
copy=$work/copy venv=$work/venv

expect_failure() {  # expect_failure WHAT CMD...: CMD must fail; its output, indented, says why
  if "${@:2}" >"$work/expected.log" 2>&1; then
    cat "$work/expected.log"
    echo "FAIL: $1 passed on a broken rename" >&2
    return 1
  fi
  { grep FAIL "$work/expected.log" || tail -n 4 "$work/expected.log"; } | sed 's/^/      | /'
  echo "    ok: $1 fails"
}
build() {  # build SRC DEST PIP_ARGS...: the CPU-only wheel, warnings as errors
  quiet "$venv/bin/pip" wheel -q --disable-pip-version-check --no-deps -w "$2" "${@:3}" \
    "-Ccmake.define.${new^^}_CUDA=OFF" "-Ccmake.define.${new^^}_WERROR=ON" "$1"
}

rename() {
  tracked_copy "$root" "$copy"
  (cd "$copy" && python3 ci/rename.py "$new")
  (cd "$copy" && python3 ci/rename.py --leftovers "$old")
  expect_failure "a second rename" bash -c "cd '$copy' && python3 ci/rename.py '$new'"
}
no_records() {  # rename.py's RECORDS: dropped, and check_links passes in the copy
  local dir heads
  for dir in benchmarks/results benchmarks/experiments; do
    if [ -e "$copy/$dir" ]; then
      echo "FAIL: $dir/ is still in the copy" >&2
      return 1
    fi
  done
  heads=$(grep -c '^#' "$copy/benchmarks/NOTES.md") || true
  if [ "$heads" != 1 ] || [ "$(wc -l <"$copy/benchmarks/NOTES.md")" -gt 8 ]; then
    echo "FAIL: benchmarks/NOTES.md is not a stub (a title and a paragraph):" >&2
    grep -n '^#' "$copy/benchmarks/NOTES.md" | head -n 5 >&2
    return 1
  fi
  heads=$(grep '^##' "$copy/CHANGELOG.md") || true
  if [ "$heads" != "## [Unreleased]" ] || [ "$(tail -n 1 "$copy/CHANGELOG.md")" != "$heads" ]; then
    echo "FAIL: CHANGELOG.md keeps more than its header and an empty [Unreleased]:" >&2
    echo "$heads" | head -n 5 >&2
    return 1
  fi
  (cd "$copy" && python3 ci/check_links.py)
}
fresh_venv() {  # torch 2.14.1, the one the copy builds against, and the tools to build it
  new_venv "$venv" 2.14.1 scikit-build-core pybind11 cmake ninja
}
build_copy() {
  # Not isolated: the rename touches no build requirement (ci/downstream.sh builds in isolation),
  # and an isolated build would install torch a second time, some minutes of CI.
  build "$copy" "$work/dist" --no-build-isolation
  pip_install "$venv" "$(ls "$work"/dist/*.whl)[test]"
}
test_copy() {
  (cd "$copy" && "$venv/bin/python" -m pytest -q -p no:cacheprovider)
}
plain_cmake() {  # the CMake package from plain C++, as the copy's README says to use it
  local dir
  dir=$("$venv/bin/python" -m "$new" --cmakedir)
  # The package's directory is named after it: -DMulDouble_DIR=... for mul_double.
  cmake_build "$venv" "$copy/examples/plain-cmake" "$work/plain-cmake" \
    -D"$(basename "$dir")_DIR=$dir" >/dev/null
  "$venv/bin/ctest" --test-dir "$work/plain-cmake" --output-on-failure | tail -n 1
}
second_op() {  # the patch's own header says what it holds and what is still to do
  local second=$work/second-op
  tracked_copy "$root" "$second"
  (cd "$second" && python3 ci/rename.py mul_double >/dev/null && git apply ci/second-op.patch)
  git apply --numstat ci/second-op.patch | awk '
    { n = $1 + $2; split($3, part, "/"); by[part[1]] += n; total += n }
    END { for (folder in by) printf "    %-10s %4d\n", folder, by[folder]; printf "    all %9d\n", total }'
}
side_by_side() {
  pip_install "$venv" --no-deps "$wheel"
  "$venv/bin/python" ci/check_rename.py both "$old" "$new"
}
self_test() {
  local broken=$work/broken
  tracked_copy "$copy" "$broken"
  python3 ci/check_rename.py forget-namespace "$old" "$new" "$broken"
  expect_failure "rename.py --leftovers" \
    bash -c "cd '$broken' && python3 ci/rename.py --leftovers $old"
  build "$broken" "$work/dist-broken" --no-build-isolation
  pip_install "$venv" --no-deps --force-reinstall "$work"/dist-broken/*.whl
  expect_failure "check_rename.py both" "$venv/bin/python" ci/check_rename.py both "$old" "$new"
  "$venv/bin/pip" uninstall -q -y "$old"  # alone: the broken copy by itself
  expect_failure "check_rename.py alone" "$venv/bin/python" ci/check_rename.py alone "$old" "$new"
}

step "rename a copy to $new" rename
step "our records dropped from it, no link dangling" no_records
step "a fresh venv with torch 2.14.1" fresh_venv
step "its wheel (CPU-only), installed" build_copy
step "its test suite against that wheel" test_copy
step "the names it installs" "$venv/bin/python" ci/check_rename.py alone "$old" "$new"
step "plain-cmake against its CMake package" plain_cmake
step "beside $(basename "$wheel") in one process" side_by_side
step "self-test: a rename that forgot the dispatcher namespace" self_test
step "the second op: ci/second-op.patch on a copy renamed to mul_double" second_op
report_steps rename
