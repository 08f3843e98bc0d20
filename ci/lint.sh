#!/usr/bin/env bash
# Style gate: ruff (lint + format) for Python, clang-format for C++/CUDA, relative links in the
# Markdown (ci/check_links.py), then the workflows (ci/lint-workflows.sh). Installs its own tools.
# mypy runs in ci/wheel-matrix.sh, beside torch.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [ -n "${SUM_DOUBLE_LINT_VENV:-}" ]; then
  tools=$SUM_DOUBLE_LINT_VENV
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  tools=$tmp/lint-venv
fi
python3 -m venv "$tools"
pip_install "$tools" ruff==0.17.6 clang-format==23.1.5

echo "==> ruff check / ruff format --check"
"$tools/bin/ruff" check .
"$tools/bin/ruff" format --check .
echo "==> clang-format --dry-run --Werror"
git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' | xargs "$tools/bin/clang-format" --dry-run --Werror
echo "==> Markdown links"
"$tools/bin/python" ci/check_links.py
bash ci/lint-workflows.sh
echo "lint: clean"
