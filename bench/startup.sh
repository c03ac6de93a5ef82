#!/usr/bin/env bash
# Start-up: `kubectl-etcd version` against etcdctl 3.6's `etcdctl version`,
# whole process, interleaved. Target: ratio <= 1.0 (issue 14). No servers.
# BENCH_COMPARE_BUILDS="DIR..." shows other builds' kubectl-etcd beside it
# (e.g. one configured with and one without -Dstatic_grpc=true).
#
#   bench/startup.sh                      # judges build/
#   BENCH_BUILD=build-static bench/startup.sh
. "$(dirname "$0")/lib.sh"
etcdctl="$(etcd36_bin)/etcdctl"
echo "start-up, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  $kubectl_etcd: $(ldd "$kubectl_etcd" | wc -l) shared objects"
ROUNDS=${ROUNDS:-6} RUNS=${RUNS:-20} ab "kubectl-etcd version" "$kubectl_etcd version" \
    "etcdctl version (3.6)" "$etcdctl version"
r=$(ratio "$A_MED" "$B_MED")
for b in ${BENCH_COMPARE_BUILDS:-}; do
    other="$(cd "$b" && pwd)/tools/kubectl-etcd/kubectl-etcd"
    echo "  for comparison, $other ($(ldd "$other" | wc -l) shared objects):"
    ROUNDS=${ROUNDS:-6} RUNS=${RUNS:-20} ab "kubectl-etcd version ($b)" "$other version" \
        "etcdctl version (3.6)" "$etcdctl version"
    echo "  ratio ($b): $(ratio "$A_MED" "$B_MED")"
done
check "kubectl-etcd/etcdctl start-up" "$r" "<=" 1.0
verdict startup "ratio $r (target <= 1.0)"
