#!/usr/bin/env bash
# Small files (ARCHITECTURE.md#small-files): no source file in lib/ holds
# more than 600 lines. A unit that grows past it splits along its seams (one
# file per service, per flow, per group of steps) behind a private header,
# as lib/etcd/client_impl.h and lib/admin/member_facts.h do. Fails naming
# each file over the limit and its length.
#
# Usage: file_size_test.sh [DIR]   (default: lib). Needs SOURCE_ROOT, or
# runs from the repository.
set -euo pipefail
root=${SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
dir=${1:-lib}
limit=600

bad=0
checked=0
while IFS= read -r -d '' file; do
  checked=$((checked + 1))
  n=$(wc -l <"$file")
  if [ "$n" -gt "$limit" ]; then
    echo "file-size: $file has $n lines, over $limit: split it along its seams (ARCHITECTURE.md#small-files)" >&2
    bad=1
  fi
done < <(find "$dir" -type f \( -name '*.cc' -o -name '*.h' \) -print0)
# A search that finds nothing would pass for the wrong reason.
if [ "$checked" -eq 0 ]; then
  echo "file-size: no .cc or .h file under $dir" >&2
  exit 1
fi
exit $bad
