# Shared helpers of the testenv scripts (sourced, not run).
# shellcheck shell=bash

KUBE_VERSION=1.36.3
ETCD35_VERSION=3.5.21
ETCD36_VERSION=3.6.11
VERSITYGW_VERSION=1.8.0
# The v1alpha2 operator and the Go reference tools, from the source snapshot
# beside the repository (the commit its CRDs come from).
OPERATOR_COMMIT=a371f0c
# The legacy operator (etcd.aenix.io/v1alpha1): its last release and a later
# main whose client Service adds a metrics port.
LEGACY_COMMITS=(v0.4.2 6537618)
COREDNS_VERSION=1.14.7
PROCESS_MODULES=(kube etcd35 etcd36 s3 nodeagent operator)
NODE_MODULES=(kubenode coredns chartrender legacy042 legacy6537618)
BUILD_RECIPE=1
TESTENV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TESTENV_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/etcd-operator-cli/testenv"
# Machine-wide state shared by environments running side by side (IP
# registry, hosts-file lock).
TESTENV_STATE=/tmp/etcd-operator-cli-testenv

log() { printf 'testenv: %s\n' "$*" >&2; }
die() { printf 'testenv: error: %s\n' "$*" >&2; exit 1; }

module_version() {
    case "$1" in
    kube) echo "v$KUBE_VERSION" ;;
    etcd35) echo "v$ETCD35_VERSION" ;;
    etcd36) echo "v$ETCD36_VERSION" ;;
    s3) echo "v$VERSITYGW_VERSION" ;;
    nodeagent) echo "v$KUBE_VERSION" ;;
    operator) echo "$OPERATOR_COMMIT" ;;
    kubenode) echo "v$KUBE_VERSION" ;;
    coredns) echo "v$COREDNS_VERSION" ;;
    chartrender) echo "v1" ;;
    legacy042) echo "v0.4.2" ;;
    legacy6537618) echo "6537618" ;;
    esac
}

# module_src MOD: the directory under go/ a module builds from (kubenode
# shares the kube module: one go.mod, one dependency set).
module_src() {
    case "$1" in
    kubenode) echo kube ;;
    *) echo "$1" ;;
    esac
}

# module_tarball MOD: the upstream snapshot a module builds from, if any.
module_tarball() {
    local d=${TESTENV_UPSTREAM:-$TESTENV_ROOT/../../../shared/upstream}
    case "$1" in
    operator) echo "$d/cozystack-etcd-operator-$OPERATOR_COMMIT.tar.gz" ;;
    legacy042) echo "$d/aenix-etcd-operator-v0.4.2.tar.gz" ;;
    legacy6537618) echo "$d/aenix-etcd-operator-6537618.tar.gz" ;;
    *) return 1 ;;
    esac
}

# operator_tarball: the upstream source snapshot the operator module builds
# from (TESTENV_UPSTREAM overrides the directory that holds it).
operator_tarball() {
    local d=${TESTENV_UPSTREAM:-$TESTENV_ROOT/../../../shared/upstream}
    echo "$d/cozystack-etcd-operator-$OPERATOR_COMMIT.tar.gz"
}

# module_key MOD: cache key = module, version, hash of go.mod, go.sum and sources.
module_key() {
    local src="$TESTENV_ROOT/go/$(module_src "$1")" h tarball
    if tarball=$(module_tarball "$1"); then
        # Its sources are the tarball: the key covers its bytes.
        h=$(sha256sum <"$tarball" | cut -c1-16)
    else
        h=$(cd "$src" && find . -name '*.go' -o -name go.mod -o -name go.sum | LC_ALL=C sort |
            xargs sha256sum | sha256sum | cut -c1-16)
    fi
    # The build recipe (ldflags, flags) is part of the key too: bump
    # BUILD_RECIPE when build changes what it produces.
    h=$(printf '%s %s' "$h" "$BUILD_RECIPE" | sha256sum | cut -c1-16)
    echo "$1-$(module_version "$1")-$h"
}

# bin_dir MOD: the cached bin dir, or nothing if not built yet.
bin_dir() {
    local d="$TESTENV_CACHE/$(module_key "$1")/bin"
    [[ -f "$d/.complete" ]] && echo "$d"
}

# need_bin_dir MOD: the bin dir, building it if needed.
need_bin_dir() {
    local d
    d=$(bin_dir "$1") || true
    if [[ -z "$d" ]]; then
        "$TESTENV_ROOT/build" "$1" >/dev/null || die "build of $1 failed"
        d=$(bin_dir "$1")
    fi
    echo "$d"
}

# free_port: an unused TCP port on 127.0.0.1 (the kernel picks it).
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_for SECONDS DESC CMD...: poll CMD until it succeeds.
wait_for() {
    local t=$1 desc=$2; shift 2
    local end=$((SECONDS + t))
    until "$@" >/dev/null 2>&1; do
        (( SECONDS < end )) || { log "timed out after ${t}s waiting for $desc"; return 1; }
        sleep 0.2
    done
}
