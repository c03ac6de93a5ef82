#!/usr/bin/env bash
# Installs every build and test dependency of etcd-operator-cli from Debian's
# packages, idempotently: nothing is downloaded when all is present. Runs as
# root, or through sudo. Also checks the Go toolchain that builds the test
# servers (kube-apiserver, etcd 3.5/3.6) from the Go module proxy.
set -euo pipefail

packages=(
  # build
  g++ meson ninja-build pkg-config cmake
  # build: a second build (and the package build of docs-deb) compiles only what changed
  ccache
  protobuf-compiler protobuf-compiler-grpc libgrpc++-dev libprotobuf-dev
  libcli11-dev libyaml-cpp-dev libcurl4-openssl-dev libssl-dev zlib1g-dev nlohmann-json3-dev doctest-dev
  # tests: etcd 3.4 server and client, certificates, scripts
  etcd-server etcd-client openssl curl python3 util-linux procps iproute2 git ca-certificates
  # benchmarks
  hyperfine time
  # tests: the real node (tests/testenv/node): container runtime, CNI plugins,
  # and busybox for the images it builds locally
  containerd runc containernetworking-plugins busybox-static iptables nftables conntrack
  # tests: YAML pod templates of the legacy fixture
  python3-yaml
  # tests: HPACK, to read the method of each gRPC call the lost-answer proxy forwards
  python3-hpack
  # tests: the sanitizer build and the fuzz targets (libFuzzer: docs/fuzzing.md)
  clang libclang-rt-14-dev
  # tests: man pages, completion in real shells, the Debian package
  groff-base man-db bash-completion zsh fish dpkg-dev debhelper
)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Debian's etcd-server would start a system etcd on 127.0.0.1:2379; the tests
  # start their own, so keep package scripts from starting services.
  policy_created=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    as_root sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d'
    policy_created=1
  fi
  as_root apt-get update -q
  as_root apt-get install -y -q --no-install-recommends "${missing[@]}"
  if [ -n "$policy_created" ]; then as_root rm -f /usr/sbin/policy-rc.d; fi
else
  echo "install-deps: all Debian packages present" >&2
fi

# A system etcd started by the package (where services do start) would hold
# 127.0.0.1:2379; the test environment never uses it.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet etcd 2>/dev/null; then
  as_root systemctl disable --now etcd >/dev/null 2>&1 || true
fi

# The test servers are built with Go from the Go module proxy; Debian's golang
# is too old for Kubernetes 1.36, so a newer Go must already be on the machine.
go_bin=$(command -v go || true)
[ -n "$go_bin" ] || { [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go; }
if [ -z "$go_bin" ]; then
  echo "install-deps: error: no Go toolchain found; the test servers need Go >= 1.24 (put it on PATH or in /usr/local/go)" >&2
  exit 1
fi
go_version=$("$go_bin" env GOVERSION 2>/dev/null || true)
minor=$(printf '%s' "$go_version" | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
if [ -z "$minor" ] || [ "$minor" -lt 24 ]; then
  echo "install-deps: error: $go_bin is ${go_version:-unknown}; the test servers need Go >= 1.24" >&2
  exit 1
fi
echo "install-deps: go toolchain $go_version ($go_bin)" >&2
