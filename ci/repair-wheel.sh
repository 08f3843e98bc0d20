#!/usr/bin/env bash
# auditwheel repair with the release's only exclusion: torch's libraries, which the torch that the
# wheel depends on provides at run time. cudart is linked statically, so nothing else may be
# grafted in: a repaired wheel that carries a library of its own fails here.
#   bash ci/repair-wheel.sh WHEEL DEST_DIR      (cibuildwheel's repair-wheel-command)
set -euo pipefail
wheel=$1
dest=$2
before=$(ls "$dest" 2>/dev/null || true)
auditwheel repair --exclude 'libtorch*.so' --exclude 'libc10*.so' -w "$dest" "$wheel"
repaired=$(comm -13 <(echo "$before") <(ls "$dest"))
grafted=$(python3 -m zipfile -l "$dest/$repaired" | grep -o '^sum_double\.libs/[^ ]*' || true)
if [ -n "$grafted" ]; then
  echo "auditwheel grafted libraries into $repaired; only torch's may be left out:" >&2
  echo "$grafted" >&2
  exit 1
fi
echo "repaired: $repaired (nothing grafted)"
