#!/usr/bin/env bash
# Error reasons are typed (docs/step-engine.md#error-reasons): lib/ branches
# on an error's reason through a predicate (kube::is_conflict,
# kube::is_already_exists, etcd::is_compacted, ...) or a named constant
# (etcd::reason::k..., kube::kReason...), never by comparing it with a string
# literal, whose typo would silently never match. Fails naming file:line for
# a `reason == "..."` / `"..." != ...reason` comparison, and for a search of
# an error's text for a word a reason already names (`one_line().find(`).
#
# Usage: reasons_test.sh [DIR]   (default: lib). Needs SOURCE_ROOT, or runs
# from the repository.
set -euo pipefail
root=${SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
dir=${1:-lib}

bad=0
# reason (a member, a variable, a call) compared with a literal, either side.
pattern='(reason(\(\))?[[:space:]]*[!=]=[[:space:]]*"|"[[:space:]]*[!=]=[[:space:]]*[A-Za-z_][A-Za-z0-9_.>()-]*reason\b)'
while IFS= read -r hit; do
  echo "reasons: $hit: compare the reason through a predicate or a named constant (docs/step-engine.md#error-reasons)" >&2
  bad=1
done < <(grep -rnE --include='*.cc' --include='*.h' "$pattern" "$dir" || true)
# The text of an error searched for what its reason says: etcd's
# "compacted" is reason::kCompacted (etcd::is_compacted).
while IFS= read -r hit; do
  echo "reasons: $hit: the error's text searched for a reason's word; use etcd::is_compacted (docs/step-engine.md#error-reasons)" >&2
  bad=1
done < <(grep -rnE --include='*.cc' --include='*.h' 'one_line\(\)\.find\("compacted"' "$dir" || true)
exit $bad
