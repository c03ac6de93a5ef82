#!/usr/bin/env bash
# Typed reads (docs/rules.md#typed-reads): lib/ reads JSON from outside
# (Kubernetes objects, annotations, Secrets) only through lib/base/json_at.h.
# Fails on nlohmann's throwing reads in lib/:
#   - value("key", default) on any JSON (it throws on a field of another type);
#   - get<T>() without an is_*() check on the same or one of the 5 lines before;
#   - operator[] reading "metadata", "spec", "status", "items" or "data"
#     (an object's parts; operator[] on a const object asserts on a missing key).
# typed_reads_allow.txt lists the places that read JSON the suite built
# itself, one per line: FILE<TAB>FRAGMENT<TAB>WHY; a line of FILE holding
# FRAGMENT is allowed. An entry that no longer matches fails too, so the list
# shrinks with the code.
set -euo pipefail
root=${SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
exec python3 - "$root/tests/docs/typed_reads_allow.txt" <<'PY'
import os, re, sys

allow = []
for n, line in enumerate(open(sys.argv[1]), 1):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    cols = line.split("\t")
    if len(cols) != 3 or not cols[2].strip():
        sys.exit(f"typed_reads_allow.txt:{n}: want FILE<TAB>FRAGMENT<TAB>WHY")
    allow.append([cols[0], cols[1], cols[2], 0])

value_call = re.compile(r"(\.|->)value\(\s*[^)\s]")
get_call = re.compile(r"(\.|->)get<")
checked = re.compile(r"is_(string|number|number_integer|number_unsigned|number_float|boolean|object|array)\(")
part_read = re.compile(r'\["(metadata|spec|status|items|data)"\]')
write = re.compile(r'\["(metadata|spec|status|items|data)"\](\[[^\]]*\])* *(=[^=]|\+=)|\.push_back\(|\.emplace|\.erase\(|\.update\(')

bad = []
files = 0
for dirpath, _, names in os.walk("lib"):
    for name in sorted(names):
        if not name.endswith((".cc", ".h")):
            continue
        path = os.path.join(dirpath, name)
        files += 1
        lines = open(path).read().split("\n")
        for i, text in enumerate(lines):
            code = text.split("//", 1)[0]
            problems = []
            if value_call.search(code):
                problems.append("value(key, default) throws on a field of another type: use base::string_at/int_at/... or the *_field forms")
            if get_call.search(code) and not any(checked.search(l) for l in lines[max(0, i - 5):i + 1]):
                problems.append("get<T>() without an is_*() check throws on another type: use base::json_at")
            if part_read.search(code) and not write.search(code):
                problems.append("operator[] read of an object's part: use base::find_at/object_at/array_at")
            if not problems:
                continue
            hit = next((a for a in allow if a[0] == path and a[1] in text), None)
            if hit:
                hit[3] += 1
                continue
            for p in problems:
                bad.append(f"{path}:{i + 1}: {p}: {text.strip()}")
for a in allow:
    if a[3] == 0:
        bad.append(f"typed_reads_allow.txt: {a[0]} {a[1]!r} matches nothing any more: remove the entry")
for b in bad:
    print("typed-reads:", b, file=sys.stderr)
if bad:
    print(f"typed-reads: FAILED ({len(bad)}; docs/rules.md#typed-reads)", file=sys.stderr)
    sys.exit(1)
print(f"typed-reads: ok ({files} files of lib/ checked, {len(allow)} allowed places)")
PY
