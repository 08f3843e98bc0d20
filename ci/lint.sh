#!/usr/bin/env bash
# Style gate: ruff (lint + format) for Python, clang-format for C++/CUDA, relative links in the
# Markdown (ci/check_links.py), then the workflows (ci/lint-workflows.sh). Installs its own tools.
# mypy runs in ci/wheel-matrix.sh, beside torch.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${SUM_DOUBLE_LINT_VENV:-}" ]; then
  tools=$SUM_DOUBLE_LINT_VENV
else
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  tools=$scratch/lint-venv
fi
python3 -m venv "$tools"
"$tools/bin/pip" install -q --disable-pip-version-check ruff==0.17.6 clang-format==23.1.5 \
  2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)

echo "==> ruff check / ruff format --check"
"$tools/bin/ruff" check .
"$tools/bin/ruff" format --check .
echo "==> clang-format --dry-run --Werror"
git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' | xargs "$tools/bin/clang-format" --dry-run --Werror
echo "==> Markdown links"
"$tools/bin/python" ci/check_links.py
bash ci/lint-workflows.sh
echo "lint: clean"
