#!/usr/bin/env bash
# The torch-free CPU launchers (plan_add, add_cpu) under AddressSanitizer and
# UndefinedBehaviorSanitizer: the C++ test in tests/cpp/ (main.cpp says what it checks) built with
# the system g++ into one test_launchers binary and run twice, on the loops this CPU picks and on
# the baseline loops (SUM_DOUBLE_CPU_BASELINE=1, which is read at the first call only, hence two
# processes). N-d offsets, stride-0 reads and mixed element sizes are where out-of-bounds reads
# hide: the test puts every operand in a buffer exactly as large as its strides reach, so ASan
# reports a read one element past it, and compares every value with its own scalar reference. Any
# sanitizer report ends the run (-fno-sanitize-recover=all). Needs only a C++17 g++ (no torch,
# CMake or Python); CXX picks another compiler. About 45 s on a 2-core machine, most of it the
# build.
#   bash ci/sanitize-launchers.sh [--seed N] [--cases N]   (passed to the test)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
scratch
cxx=${CXX:-g++}
start=$SECONDS

echo "==> build (${cxx}, -O1, ASan + UBSan)"
flags=(-std=c++17 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all
  -fno-omit-frame-pointer -Wall -Wextra -Iinclude -Icpu)
# One compiler per file, in parallel: the build is most of the run. The launchers' sources, then
# the test's (tests/cpp/main.cpp says what each file holds).
srcs=(cpu/add_cpu.cpp cpu/add_strided.cpp cpu/add_plan.cpp
  tests/cpp/harness.cpp tests/cpp/reference.cpp tests/cpp/operands.cpp
  tests/cpp/test_values.cpp tests/cpp/test_layouts.cpp tests/cpp/test_plans.cpp
  tests/cpp/test_big.cpp tests/cpp/main.cpp)
pids=() objs=()
for src in "${srcs[@]}"; do
  objs+=("$work/$(basename "$src" .cpp).o")
  "$cxx" "${flags[@]}" -c "$src" -o "${objs[-1]}" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
"$cxx" "${flags[@]}" "${objs[@]}" -o "$work/test_launchers"
echo "    $((SECONDS - start)) s"

# A stack trace with each UBSan report (ASan prints one anyway).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
status=0
for baseline in "" 1; do
  t=$SECONDS
  echo "==> test_launchers${baseline:+ (SUM_DOUBLE_CPU_BASELINE=1)}"
  if [ -n "$baseline" ]; then
    SUM_DOUBLE_CPU_BASELINE=1 "$work/test_launchers" "$@" || status=1
  else
    (unset SUM_DOUBLE_CPU_BASELINE && "$work/test_launchers" "$@") || status=1
  fi
  echo "    $((SECONDS - t)) s"
done
echo "sanitize-launchers: $([ $status = 0 ] && echo clean || echo FAILED) in $((SECONDS - start)) s"
exit $status
