#!/bin/bash
# Builds timer.cpp with this tree's op layer (and, given OTHER_SOURCE_TREE, that tree's too, as
# sum_double_other::add) against the torch of `python` and runs it; then timer.py, which with
# another tree compares both op layers loaded as plain libraries. Needs sum_double installed.
#     bash benchmarks/experiments/op_layer_cost/run.sh [OTHER_SOURCE_TREE] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$here/../../.." && pwd)
other=${1:-}
torch=$(${PYTHON:-python} -c "import os, torch; print(os.path.dirname(torch.__file__))")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The op layer's own flags (CMakeLists.txt): the stable ABI at the 2.10 target, hidden symbols.
stable=(-O3 -DNDEBUG -std=c++17 -fPIC -fvisibility=hidden -DTORCH_TARGET_VERSION=0x20a000000000000
        -isystem "$torch/include")
layer=(src/ops/add_op.cpp src/ops/layout.cpp src/ops/names.cpp src/ops/reject_unsupported.cpp src/ops/cpu_impl.cpp cpu/add_cpu.cpp cpu/add_strided.cpp cpu/add_plan.cpp)
for f in "${layer[@]}"; do
  g++ "${stable[@]}" -I"$tree/include" -c "$tree/$f" -o "$out/this_$(basename "$f").o" &
done
if [[ -n $other ]]; then
  # Every `sum_double` token (namespaces, the library name) becomes sum_double_other or _this;
  # strings, and so the messages and include paths, stay as they are.
  for name in this other; do
    src=$tree
    [[ $name == other ]] && src=$other
    g++ "${stable[@]}" -Dsum_double=sum_double_$name -I"$src/include" -shared \
      "${layer[@]/#/$src/}" -o "$out/$name.so" -L"$torch/lib" -ltorch_cpu -lc10 &
  done
  for f in "${layer[@]}"; do
    g++ "${stable[@]}" -Dsum_double=sum_double_other -I"$other/include" -c "$other/$f" \
      -o "$out/other_$(basename "$f").o" &
  done
fi
g++ "${stable[@]}" -I"$tree/include" -I"$tree/src/ops" -c "$here/parts.cpp" -o "$out/parts.o" &
g++ -O3 -DNDEBUG -std=c++20 -isystem "$torch/include" \
  -isystem "$torch/include/torch/csrc/api/include" -c "$here/timer.cpp" -o "$out/timer.o" &
wait
g++ -o "$out/timer" "$out"/*.o -L"$torch/lib" -ltorch_cpu -lc10 -Wl,-rpath,"$torch/lib" -ldl
"$out/timer" "${2:-31}"
if [[ -n $other ]]; then
  ${PYTHON:-python} "$here/timer.py" --libs "$out/this.so" "$out/other.so"
else
  ${PYTHON:-python} "$here/timer.py"
fi
