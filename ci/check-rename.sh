#!/usr/bin/env bash
# The rename recipe (docs/make-it-your-own.md) done for real on a copy of this checkout, made into
# the second op, then checked with real pip: the copy must build, pass its own tests, and share no
# name with us.
#   1. the tracked files copied to a scratch git repo, renamed by its own ci/rename.py to
#      mul_double; no form of our name may be left in it, and a second run must refuse; our
#      records must be gone from it (results, experiments, NOTES' findings, the CHANGELOG's
#      history), with no link to them left dangling
#   2. the second op: ci/second-op.patch applied with git apply, as the guide's two commands do,
#      making it mul_double.mul(a, b) = a * b; the patch is what a copier writes for an op of
#      their own, so its lines (git apply --numstat: added + deleted) are bounded: 200 in all, 80
#      under tests/
#   3. its wheel built with pip (CPU-only, warnings as errors: the CUDA build is the same recipe)
#      in a fresh venv with torch 2.14.1; its ruff check and format; its whole test suite, from
#      its root, against it; the names it installs (ci/check_rename.py alone); its examples:
#      downstream-cpp (not isolated) and downstream-python with their tests, plain-cmake against
#      its CMake package
#   4. our WHEEL beside it in that venv: both imported in one process, both ops called
#   5. self-test: a copy renamed but for the dispatcher namespace, the rename a hand edit most
#      easily gets wrong, must fail the checks of steps 1, 3 and 4
#   bash ci/check-rename.sh WHEEL
set -euo pipefail
wheel=$(realpath "${1:?usage: ci/check-rename.sh WHEEL}")
source "$(dirname "$0")/lib.sh"
old=sum_double
new=mul_double  # the name ci/second-op.patch is written for
max_lines=200 max_test_lines=80
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
second_op() {  # the guide's second command, and the patch's size by folder, within bounds
  (cd "$copy" && git apply ci/second-op.patch)
  git apply --numstat ci/second-op.patch | awk -v max="$max_lines" -v max_tests="$max_test_lines" '
    { n = $1 + $2; split($3, part, "/"); by[part[1]] += n; total += n; if ($3 ~ /^tests\//) tests += n }
    END {
      for (folder in by) printf "    %-10s %4d\n", folder, by[folder]
      printf "    %-10s %4d (at most %d; tests/: %d, at most %d)\n", "all", total, max, tests, max_tests
      exit !(total <= max && tests <= max_tests)
    }' || { echo "FAIL: ci/second-op.patch is over its bounds" >&2; return 1; }
}
fresh_venv() {  # torch 2.14.1, the one the copy builds against, and the tools to build it and
  # its examples (downstream-python's backend: hatchling), and to lint it
  new_venv "$venv" 2.14.1 scikit-build-core pybind11 cmake ninja hatchling ruff==0.17.6
}
build_copy() {
  # Not isolated: the rename touches no build requirement (ci/downstream.sh builds in isolation),
  # and an isolated build would install torch a second time, some minutes of CI.
  build "$copy" "$work/dist" --no-build-isolation
  pip_install "$venv" "$(ls "$work"/dist/*.whl)[test]"
}
lint_copy() {
  (cd "$copy" && "$venv/bin/ruff" check -q . && "$venv/bin/ruff" format -q --check .)
}
test_copy() {
  (cd "$copy" && "$venv/bin/python" -m pytest -q -p no:cacheprovider)
}
examples() {  # its examples against its wheel, built in this venv (CPU-only, like it)
  local example dir
  quiet "$venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation \
    "$copy/examples/downstream-cpp[test]" "$copy/examples/downstream-python[test]"
  for example in downstream-cpp downstream-python; do
    (cd "$copy/examples/$example" && "$venv/bin/python" -m pytest -q -p no:cacheprovider)
  done
  # The package's directory is named after it: -DMulDouble_DIR=... for mul_double.
  dir=$("$venv/bin/python" -m "$new" --cmakedir)
  cmake_build "$venv" "$copy/examples/plain-cmake" "$work/plain-cmake" \
    -D"$(basename "$dir")_DIR=$dir" >/dev/null
  "$venv/bin/ctest" --test-dir "$work/plain-cmake" --output-on-failure | tail -n 1
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
step "ci/second-op.patch applied: mul_double.mul(a, b) = a * b" second_op
step "a fresh venv with torch 2.14.1" fresh_venv
step "its wheel (CPU-only), installed" build_copy
step "its ruff check and format" lint_copy
step "its test suite against that wheel" test_copy
step "the names it installs" "$venv/bin/python" ci/check_rename.py alone "$old" "$new"
step "its examples against that wheel" examples
step "beside $(basename "$wheel") in one process" side_by_side
step "self-test: a rename that forgot the dispatcher namespace" self_test
report_steps rename
