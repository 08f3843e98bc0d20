#!/usr/bin/env bash
# The template's size at each REV (default HEAD): what a copy of it carries. Tracked files, lines
# by part, and the largest files; the measurement output in benchmarks/results/ is left out.
#   bash benchmarks/experiments/template_size.sh [REV...]
set -euo pipefail
cd "$(dirname "$0")/../.."
for rev in "${@:-HEAD}"; do
  files=$(git ls-tree -r --name-only "$rev" | grep -v '^benchmarks/results/')
  pick() { grep -E "$1" <<<"$files" | grep -vE "${2:-^$}" || true; }
  lines() { local f sum=0; for f in $(pick "$@"); do sum=$((sum + $(git show "$rev:$f" | wc -l))); done; echo "$sum"; }
  largest() { local f; for f in $(pick "$@"); do echo "$(git show "$rev:$f" | wc -l) $f"; done | sort -rn | head -1; }
  echo "$(git rev-parse --short "$rev"): $(wc -l <<<"$files") files"
  printf '  %-38s %s\n' \
    "C++ and CUDA (src cpu cuda include)" "$(lines '^(src|cpu|cuda|include)/.*\.(cpp|h|cu|cuh|in)$')" \
    "Python package (src/sum_double*)" "$(lines '^src/sum_double.*\.py$')" \
    "CMake (root and cmake/)" "$(lines '^(CMakeLists\.txt|cmake/)')" \
    "  of which the root CMakeLists.txt" "$(git show "$rev:CMakeLists.txt" | wc -l)" \
    "CI scripts (ci/, .ci/)" "$(lines '^(ci|\.ci)/')" \
    "Markdown" "$(lines '\.md$')" \
    "largest shipped source" "$(largest '^(src|cpu|cuda|include|cmake)/')" \
    "largest test" "$(largest '^tests/')" \
    "largest file but Markdown" "$(largest '.' '\.md$')"
done
