#!/usr/bin/env bash
# The build of what users install outside Debian: the krew archive
# (packaging/krew/archive.sh), the container image
# (packaging/container/Containerfile) and with it the in-cluster Job recipe
# (packaging/container/adopt-job.yaml). Release optimisation, no tests, and
# -Dstatic_grpc=true: gRPC, Protobuf, Abseil, upb, re2 and c-ares linked from
# Debian's .a files (OpenSSL and zlib stay shared), which makes start-up
# faster than etcdctl's (bench/startup.sh). The Debian package links
# Debian's shared libraries by policy and is built by packaging/debian/rules.
#
#   packaging/release-build.sh BUILDDIR [MESON-SETUP-ARGS...]   # e.g. --prefix=/usr
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BUILDDIR [MESON-SETUP-ARGS...]" >&2; exit 128; }
dir=$1; shift
src=$(cd "$(dirname "$0")/.." && pwd)
opts=(-Dbuildtype=release -Dstatic_grpc=true -Dtests=false -Dtest_seams=false)
if [ -f "$dir/build.ninja" ]; then
  meson configure "$dir" "${opts[@]}" "$@" >/dev/null
else
  meson setup "$dir" "$src" "${opts[@]}" "$@"
fi
ninja -C "$dir"
