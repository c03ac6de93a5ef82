#!/usr/bin/env bash
# The krew archive kubectl-etcd-linux-amd64.tar.gz that packaging/krew/etcd.yaml
# names: kubectl-etcd as packaging/release-build.sh builds it (release,
# -Dstatic_grpc=true) and LICENSE. Prints the archive's path and sha256 (the
# release fills both into the manifest).
#
#   packaging/krew/archive.sh OUTDIR [BUILDDIR]     # BUILDDIR default: build-release
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [BUILDDIR]" >&2; exit 128; }
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
build=${2:-$src/build-release}
[ -f "$src/LICENSE" ] || { echo "error: $src/LICENSE is missing: the krew manifest ships it; add it first" >&2; exit 1; }
"$src/packaging/release-build.sh" "$build"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp "$build/tools/kubectl-etcd/kubectl-etcd" "$src/LICENSE" "$stage/"
mkdir -p "$out"
tar -C "$stage" -czf "$out/kubectl-etcd-linux-amd64.tar.gz" kubectl-etcd LICENSE
sha256sum "$out/kubectl-etcd-linux-amd64.tar.gz"
