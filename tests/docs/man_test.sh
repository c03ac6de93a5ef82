#!/usr/bin/env bash
# The man pages: each page the build wrote renders with groff -ww (every
# warning on) without a single warning, and with man -l; each program writes
# exactly the pages meson installs (man/meson.build), so a new command
# cannot go without one; and every flag that `PROGRAM COMMAND --help` shows
# is on that command's page (the pages and --help come from one tree).
set -euo pipefail
: "${BUILD_ROOT:?}" "${KUBECTL_ETCD:?}" "${ETCD_MIGRATE:?}"
mandir="$BUILD_ROOT/man"
fails=0
fail() { printf 'FAIL: %s\n' "$*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Rendered as plain ASCII on very long lines, so a flag is never hyphenated.
render() { groff -man -Tascii -rLL=400n -P-c -P-b -P-o -P-u "$1" 2>/dev/null; }

pages=0
for page in "$mandir"/*.1; do
  pages=$((pages + 1))
  warnings=$(groff -ww -man -Tutf8 -z "$page" 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "$(basename "$page"): groff warns: $warnings"
  out=$(MANWIDTH=80 man -l "$page" 2>&1 >/dev/null) || fail "$(basename "$page"): man -l failed: $out"
  [ -z "$out" ] || fail "$(basename "$page"): man -l warns: $out"
done
[ "$pages" -ge 2 ] || fail "only $pages pages in $mandir"

for prog in "$KUBECTL_ETCD" "$ETCD_MIGRATE"; do
  name=$(basename "$prog")
  mkdir "$tmp/$name"
  "$prog" __man "$tmp/$name"
  for page in "$tmp/$name"/*.1; do
    [ -f "$mandir/$(basename "$page")" ] ||
      fail "$name writes $(basename "$page"), which man/meson.build does not install: add it there"
    cmp -s "$page" "$mandir/$(basename "$page")" || fail "$(basename "$page") differs from the built one"
  done
  for page in "$mandir/$name"*.1; do
    [ -f "$tmp/$name/$(basename "$page")" ] || fail "$(basename "$page") is installed but $name no longer writes it"
  done

  # The commands --help lists, and for each the flags its --help lists.
  commands=$("$prog" --help | awk '/^Subcommands:/{on=1; next} on && /^  [a-z]/{print $1}')
  [ -n "$commands" ] || fail "$name --help lists no commands"
  root_text=$(render "$mandir/$name.1")
  for c in $commands; do
    grep -q -- "$c" <<<"$root_text" || fail "$name.1 does not list the command $c"
    page="$mandir/$name-$c.1"
    [ -f "$page" ] || { fail "no page $name-$c.1"; continue; }
    text=$(render "$page")
    help=$("$prog" "$c" --help)
    for flag in $(grep -oE -- '(^|[ ,])--[a-z][a-z0-9-]*' <<<"$help" | tr -d ' ,' | sort -u); do
      grep -q -- "$flag" <<<"$text" || fail "$name-$c.1 lacks $flag, which '$name $c --help' shows"
    done
    subs=$(awk '/^Subcommands:/{on=1; next} on && /^  [a-z]/{print $1}' <<<"$help")
    for s in $subs; do
      grep -q -- "$c $s" <<<"$text" || fail "$name-$c.1 lacks the section of '$c $s'"
      for flag in $(grep -oE -- '(^|[ ,])--[a-z][a-z0-9-]*' <<<"$("$prog" "$c" "$s" --help)" | tr -d ' ,' | sort -u); do
        grep -q -- "$flag" <<<"$text" || fail "$name-$c.1 lacks $flag of '$c $s'"
      done
    done
  done
done

# The exit codes of docs/exit-codes.md are in every page.
for page in "$mandir"/*.1; do
  grep -q "128 usage error" <<<"$(render "$page")" || fail "$(basename "$page") has no exit codes"
done

echo "man pages: $pages checked, $fails failures"
[ "$fails" -eq 0 ]
