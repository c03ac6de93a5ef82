#!/usr/bin/env bash
# The Debian package: packaging/debian/ is put at the root of a copy of the
# source tree (build directories and .git left out), dpkg-buildpackage builds
# the binary package there, dpkg -x unpacks it into a scratch root, and both
# programs run from it (version, --help), with their man pages and shell
# completions where Debian's man and shells look. The package build compiles
# the programs afresh (no tests): this is the slow test of the suite.
set -euo pipefail
: "${SOURCE_ROOT:?}" "${BUILD_ROOT:?}"
fails=0
fail() { printf 'FAIL: %s\n' "$*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src="$tmp/etcd-operator-cli"
mkdir "$src"
tar -C "$SOURCE_ROOT" --exclude=./.git --exclude='./build*' --exclude=./debian -cf - . | tar -C "$src" -xf -
cp -r "$src/packaging/debian" "$src/debian"

version=$(meson introspect --projectinfo "$BUILD_ROOT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
deb_version=$(cd "$src" && dpkg-parsechangelog -S Version)
[ "${deb_version%-*}" = "$version" ] || fail "debian/changelog says $deb_version, meson.build $version"

# debhelper gives the build a HOME of its own, so meson's ccache would start
# empty each time: it is pointed at the user's cache, with the copy's random
# path made relative, and a second run compiles only what changed.
if command -v ccache >/dev/null; then
  CCACHE_DIR=${CCACHE_DIR:-$(ccache -k cache_dir)}
  export CCACHE_DIR CCACHE_BASEDIR="$tmp"
fi
# -O1 without debug information: the test checks what the package holds, not
# its speed, and this halves the compile time of a test that runs beside others.
(cd "$src" && DEB_BUILD_OPTIONS="parallel=2 nocheck" DEB_CXXFLAGS_SET="-O1" \
  dpkg-buildpackage -us -uc -b >"$tmp/build.log" 2>&1) ||
  { tail -40 "$tmp/build.log"; fail "dpkg-buildpackage failed"; exit 1; }
deb=$(ls "$tmp"/etcd-operator-cli_*.deb)
root="$tmp/root"
dpkg -x "$deb" "$root"

dpkg-deb -f "$deb" Depends | grep -q "libgrpc++" || fail "the package does not depend on libgrpc++: $(dpkg-deb -f "$deb" Depends)"
# libcurl is opened at run time, not linked: the dependency is written by hand.
dpkg-deb -f "$deb" Depends | grep -q "libcurl4" || fail "the package does not depend on libcurl4: $(dpkg-deb -f "$deb" Depends)"
for prog in etcd-migrate kubectl-etcd; do
  bin="$root/usr/bin/$prog"
  [ -x "$bin" ] || { fail "no /usr/bin/$prog in the package"; continue; }
  out=$("$bin" version) || fail "$prog version failed"
  grep -q "$version" <<<"$out" || fail "$prog version says '$out', want $version"
  "$bin" --help | grep -q "Exit codes" || fail "$prog --help has no exit codes"
  page="$root/usr/share/man/man1/$prog.1.gz"
  [ -f "$page" ] || fail "no man page $prog.1.gz"
  text=$(MANWIDTH=80 man -l "$page" 2>&1) || fail "man -l $prog.1.gz failed"
  grep -q "EXIT STATUS" <<<"$text" || fail "$prog.1 has no EXIT STATUS"
  [ -f "$root/usr/share/bash-completion/completions/$prog" ] || fail "no bash completion for $prog"
  [ -f "$root/usr/share/zsh/vendor-completions/_$prog" ] || fail "no zsh completion for $prog"
  [ -f "$root/usr/share/fish/vendor_completions.d/$prog.fish" ] || fail "no fish completion for $prog"
done
# A release holds no crash-test seam (meson_options.txt, -Dtest_seams).
BINARIES="$root/usr/bin/etcd-migrate $root/usr/bin/kubectl-etcd" "$(dirname "$0")/test_seams_test.sh" ||
  fail "the packaged programs hold a test seam"
[ -f "$root/usr/share/man/man1/kubectl-etcd-snapshot.1.gz" ] || fail "no page kubectl-etcd-snapshot.1.gz"
[ -f "$root/usr/share/man/man1/etcd-migrate-adopt.1.gz" ] || fail "no page etcd-migrate-adopt.1.gz"
[ -x "$root/usr/bin/kubectl_complete-etcd" ] || fail "no executable /usr/bin/kubectl_complete-etcd (kubectl's plugin completion)"
# The completion from the package answers from the packaged program.
PATH="$root/usr/bin:$PATH" "$root/usr/bin/kubectl-etcd" __complete snap | grep -q '^snapshot' ||
  fail "the packaged kubectl-etcd does not complete 'snap'"

echo "deb: $fails failures"
[ "$fails" -eq 0 ]
