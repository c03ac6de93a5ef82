#!/usr/bin/env bash
# The layers of lib/ (ARCHITECTURE.md), bottom to top: a folder includes only
# folders of a lower rank; folders of one rank do not include each other.
# Fails naming file:line and the edge for every include that breaks this, and
# for a folder of lib/ that has no rank yet (a new folder decides its place).
set -euo pipefail
root=${SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"

declare -A rank=(
  [base]=0
  [http]=1
  [kube]=2 [etcd]=2 [output]=2
  [operator]=3
  [backup]=4
  [admin]=5
  [migrate]=6
  [cli]=7
)

bad=0
for dir in lib/*/; do
  d=$(basename "$dir")
  if [ -z "${rank[$d]+x}" ]; then
    echo "layers: lib/$d has no rank in tests/docs/layers_test.sh (and ARCHITECTURE.md): give it one" >&2
    bad=1
  fi
done

while IFS=: read -r file line text; do
  from=${file#lib/}; from=${from%%/*}
  to=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"/]+)\/.*/\1/' <<<"$text")
  [ "$to" = "$from" ] && continue
  [ -z "${rank[$to]+x}" ] && continue  # not a folder of lib/ (e.g. CLI/, nlohmann/)
  [ -z "${rank[$from]+x}" ] && continue  # reported above
  if [ "${rank[$to]}" -ge "${rank[$from]}" ]; then
    echo "layers: $file:$line: lib/$from (rank ${rank[$from]}) includes lib/$to (rank ${rank[$to]}): $text" >&2
    bad=1
  fi
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"/]+/' lib --include='*.h' --include='*.cc' --include='*.h.in' || true)

if [ "$bad" -ne 0 ]; then
  echo "layers: FAILED (move the shared piece down, or the including code up)" >&2
  exit 1
fi
echo "layers: ok ($(grep -rlE '#include' lib --include='*.h' --include='*.cc' | wc -l) files of lib/ checked)"
