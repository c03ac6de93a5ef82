#!/usr/bin/env bash
# lib/kube connection reuse: 100 GETs of one ConfigMap, sequentially and over
# 4 threads; prints requests, new connections (each one TLS handshake) and
# HTTP/2 use, and fails when there is more than one connection per thread.
#
# usage: bench/kube_connections.sh ENV_FILE [BUILD_DIR] [N] [THREADS]
#   ENV_FILE: written by tests/testenv/up; BUILD_DIR (default build) holds lib/libetcdopcli.a
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
env_file=${1:?usage: $0 ENV_FILE [BUILD_DIR] [N] [THREADS]}
build=${2:-$root/build}
n=${3:-100}
threads=${4:-4}
. "$env_file"

out=$(mktemp -d /tmp/kube-bench.XXXXXX)
trap 'rm -rf "$out"; "$TESTENV_KUBECTL" delete namespace "$ns" --wait=false >/dev/null 2>&1 || true' EXIT
ns=kube-bench-$$
"$TESTENV_KUBECTL" create namespace "$ns" >/dev/null
"$TESTENV_KUBECTL" -n "$ns" create configmap bench --from-literal=k=v >/dev/null

# The bench links the library the build made; it is not part of the build
# (decisions.md E26: bench/ is not part of CI).
c++ -std=c++20 -O2 -I "$root/lib" -I "$build/lib" "$here/kube_connections.cc" "$build/lib/libetcdopcli.a" \
    $(pkg-config --libs libcurl yaml-cpp) -lpthread -o "$out/kube_connections"
"$out/kube_connections" "$KUBECONFIG" "$ns" bench "$n" "$threads"
