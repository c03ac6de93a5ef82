#!/usr/bin/env bash
# The repository documents itself: no file tracked by git cites a document
# that is not in it. Fails, naming file:line, on
#   - the names of the outside specification files (decisions.md,
#     adoption.md, admin.md, cli.md, legacy-layout.md) not under docs/;
#   - a path into the outside specification (shared/spec, /work/shared);
#     ../shared/upstream and ../shared/crds stay allowed: the test
#     environment reads the operator's sources and CRDs from there;
#   - a *.md path or link that resolves to no file of the repository, or a
#     docs/*.md#anchor whose page has no such heading or <a id>;
#   - in comments (C++ //, /* */; # in scripts, meson, YAML; Python
#     docstrings; JSON "description" values; all of Markdown): rule numbers
#     such as D13 or E9, and section signs (§4).
# The rules themselves live in docs/rules.md and the design pages.
#
# Usage: citations_test.sh [FILE...]   (default: every file git tracks,
# except this script). Needs SOURCE_ROOT, or runs from the repository.
set -euo pipefail
root=${SOURCE_ROOT:-$(git rev-parse --show-toplevel)}
cd "$root"
exec python3 - "$@" <<'PY'
import os, re, subprocess, sys

SELF = "tests/docs/citations_test.sh"

# User-visible strings (help text, test names) that still cite an outside
# document: code lines, left to a code change. Each entry is
# (path, exact text on the line); an entry that no longer matches fails,
# so the list only shrinks.
ALLOWED = [
    # (path, exact text): a user-visible line that must keep citing; none today.
]

SPEC_NAMES = re.compile(r"(?<![\w./-])(decisions|adoption|admin|cli|legacy-layout)\.md\b")
SPEC_PATH = re.compile(r"shared/spec\b|/work/shared\b|\.\./shared/(?!upstream\b|crds\b)[\w./-]+")
MD_PATH = re.compile(r"(?<![\w./#-])((?:\.{0,2}/)?(?:[\w.-]+/)*[\w.-]*\w\.md)(#[\w-]+)?\b")
RULE_NO = re.compile(r"(?<![\w-])[DE][0-9]{1,2}(?![\w])|§\s*[0-9][0-9.]*")

C_LIKE = (".cc", ".h", ".c", ".cpp", ".proto", ".go")
HASH = (".sh", ".py", ".build", ".yaml", ".yml", ".txt", ".zsh", ".toml", ".cfg", ".in")


def tracked():
    r = subprocess.run(["git", "ls-files", "-z"], capture_output=True)
    if r.returncode != 0:
        sys.exit("FAIL: not a git checkout (the check reads `git ls-files`): " + r.stderr.decode().strip())
    out = r.stdout
    return [p for p in out.decode().split("\0") if p and p != SELF]


def read(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", "replace").split("\n")


def c_comments(lines):
    """Yields (line number, comment text) for // and /* */ comments."""
    in_block = False
    raw_end = None
    for n, line in enumerate(lines, 1):
        i, out = 0, []
        while i < len(line):
            if raw_end is not None:
                j = line.find(raw_end, i)
                if j < 0:
                    i = len(line)
                    break
                i, raw_end = j + len(raw_end), None
                continue
            if in_block:
                j = line.find("*/", i)
                out.append(line[i:] if j < 0 else line[i:j])
                if j < 0:
                    break
                i, in_block = j + 2, False
                continue
            ch = line[i]
            if line.startswith("//", i):
                out.append(line[i + 2:])
                break
            if line.startswith("/*", i):
                in_block, i = True, i + 2
                continue
            m = re.match(r'R"([^(\s]{0,16})\(', line[i:])
            if m and (i == 0 or not (line[i - 1].isalnum() or line[i - 1] == "_")):
                raw_end, i = ")" + m.group(1) + '"', i + m.end()
                continue
            if ch in "\"'":
                j = i + 1
                while j < len(line) and line[j] != ch:
                    j += 2 if line[j] == "\\" else 1
                i = j + 1
                continue
            i += 1
        if out:
            yield n, " ".join(out)


def hash_comments(lines, python):
    doc = False
    for n, line in enumerate(lines, 1):
        if python and line.count('"""') % 2 == 1:
            yield n, line
            doc = not doc
            continue
        if doc:
            yield n, line
            continue
        quote = None
        for i, ch in enumerate(line):
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
                yield n, line[i + 1:]
                break


def comments(path, lines):
    base = os.path.basename(path)
    if path.endswith(".md"):
        return list(enumerate(lines, 1))
    if path.endswith(C_LIKE):
        return list(c_comments(lines))
    if path.endswith(".json"):
        return [(n, l) for n, l in enumerate(lines, 1) if re.match(r'\s*"description"\s*:', l)]
    first = lines[0] if lines else ""
    if path.endswith(HASH) or base in ("meson.build", "rules") or first.startswith("#!"):
        return list(hash_comments(lines, path.endswith(".py") or "python" in first))
    return []


def slug(heading):
    s = re.sub(r"[`*_]|<[^>]+>", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


anchors_of = {}


def anchors(path):
    if path not in anchors_of:
        found, seen = set(), {}
        for line in read(path) or []:
            m = re.match(r"#{1,6}\s+(.*)", line)
            if m:
                s = slug(m.group(1))
                k = seen.get(s, 0)
                seen[s] = k + 1
                found.add(s if k == 0 else f"{s}-{k}")
            found.update(re.findall(r'<a\s+(?:id|name)="([^"]+)"', line))
        anchors_of[path] = found
    return anchors_of[path]


def resolve(path, target):
    for base in (os.path.dirname(path), ""):
        p = os.path.normpath(os.path.join(base, target))
        if os.path.isfile(p):
            return p
    return None


files = sys.argv[1:] or tracked()
problems, links, used = [], 0, set()
for path in files:
    lines = read(path)
    if lines is None:
        continue
    found = []
    for n, line in enumerate(lines, 1):
        for m in SPEC_NAMES.finditer(line):
            found.append((n, f"names the outside document {m.group(0)}", line))
        for m in SPEC_PATH.finditer(line):
            found.append((n, f"points into the outside specification ({m.group(0)})", line))
        for m in MD_PATH.finditer(line):
            target, anchor = m.group(1), m.group(2)
            if re.search(r"\w+://\S*$", line[: m.start()]) or target.lstrip("-").startswith("/"):
                continue  # part of a URL, or an absolute path (a file the programs write)
            if line.startswith("](", m.end()):
                continue  # a link's text; its target is checked
            links += 1
            p = resolve(path, target)
            if p is None:
                if not SPEC_NAMES.search(target):
                    found.append((n, f"{target} is not a file of the repository", line))
            elif anchor and p.endswith(".md") and anchor[1:] not in anchors(p):
                found.append((n, f"{p} has no heading or anchor {anchor}", line))
    for n, text in comments(path, lines):
        for m in RULE_NO.finditer(text):
            found.append((n, f"cites the outside rule number {m.group(0)}", lines[n - 1]))
    for n, why, line in found:
        allowed = [a for a in ALLOWED if a[0] == path and a[1] in line]
        if allowed:
            used.update(allowed)
            continue
        problems.append(f"{path}:{n}: {why}: {line.strip()[:160]}")

if not sys.argv[1:]:
    for a in ALLOWED:
        if a not in used:
            problems.append(f"{a[0]}: allowed citation no longer found, drop it from {SELF}: {a[1]}")

for p in sorted(set(problems)):
    print("FAIL:", p)
print(f"{len(files)} files, {links} .md references checked, {len(set(problems))} problems")
sys.exit(1 if problems else 0)
PY
