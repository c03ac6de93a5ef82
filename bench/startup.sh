#!/usr/bin/env bash
# Start-up of what users install: `kubectl-etcd version` against etcdctl
# 3.6's `etcdctl version`, whole process, interleaved. No servers. Each
# packaging route's build is measured (lib.sh's route_build):
#   - release: packaging/release-build.sh (release, -Dstatic_grpc=true), what
#     the krew archive (packaging/krew/archive.sh), the container image
#     (packaging/container/Containerfile) and with it the in-cluster Job
#     (packaging/container/adopt-job.yaml) ship. Target (issue 14): ratio <= 1.0.
#   - debian: packaging/debian/rules' configuration: Debian's shared gRPC by
#     policy. Shown beside, no target. BENCH_DEB=FILE.deb measures a built
#     package's kubectl-etcd instead.
# BENCH_COMPARE_BUILDS="DIR..." shows more builds beside (e.g. build/).
#
#   bench/startup.sh
. "$(dirname "$0")/lib.sh"
etcdctl="$(etcd36_bin)/etcdctl"
route_build release; release="$ROUTE_DIR/tools/kubectl-etcd/kubectl-etcd"
if [ -n "${BENCH_DEB:-}" ]; then
    dpkg -x "$BENCH_DEB" "$bench_tmp/deb"
    debian="$bench_tmp/deb/usr/bin/kubectl-etcd"
else
    route_build debian; debian="$ROUTE_DIR/tools/kubectl-etcd/kubectl-etcd"
fi

echo "start-up, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
side() { # NAME BINARY: one interleaved comparison, its ratio in R
    echo "  $1: $2 ($(ldd "$2" | wc -l) shared objects)"
    ROUNDS=${ROUNDS:-6} RUNS=${RUNS:-20} ab "kubectl-etcd version ($1)" "$2 version" "etcdctl version (3.6)" "$etcdctl version"
    R=$(ratio "$A_MED" "$B_MED")
    echo "  ratio ($1): $R"
}
side "krew, container image, in-cluster Job: packaging/release-build.sh" "$release"
r=$R
side "Debian package (shared libraries by policy; no target)" "$debian"
deb_r=$R
for b in ${BENCH_COMPARE_BUILDS:-}; do
    side "$b" "$(cd "$b" && pwd)/tools/kubectl-etcd/kubectl-etcd"
done
check "kubectl-etcd/etcdctl start-up, release build (krew, image, Job)" "$r" "<=" 1.0
verdict startup "ratio $r for the krew archive, image and Job build (target <= 1.0); Debian package $deb_r (no target)"
