#!/usr/bin/env bash
# `kubectl-etcd health` against `etcdctl endpoint health --cluster` (3.6) on a
# 5-member TLS etcd 3.6 cluster with one member stopped (SIGTERM), then with
# it paused instead (SIGSTOP: connections accepted, nothing answered), both
# with --dial-timeout 2s, whole process, interleaved. Targets (issue 14), in
# each case: ratio <= 1.0, and the median under 1.5x the dial timeout (3 s).
#
#   bench/health.sh             # TESTENV_ENV_FILE, or an environment of its own
. "$(dirname "$0")/lib.sh"
bench_env
bench_etcd "$bench_tmp/etcd" --version 3.6 --members 5 --tls
ec() { "$bench_root/tests/testenv/etcd-cluster" "$1" --dir "$bench_tmp/etcd" --member member-4 >/dev/null 2>&1; }
eps=$ETCD_IP_ENDPOINTS
dial=2
tls=(--cacert "$ETCD_CACERT" --cert "$ETCD_CERT" --key "$ETCD_KEY")
k=("$kubectl_etcd" health -o json --endpoints "$eps" "${tls[@]}" --dial-timeout ${dial}s)
e=("$ETCD_BIN/etcdctl" endpoint health --cluster -w json --endpoints "$eps" "${tls[@]}" --dial-timeout ${dial}s)
summary=""
scenario() { # stopped|paused
    echo "health, 5-member TLS etcd 3.6, member-4 $1, --dial-timeout ${dial}s, load $(cut -d' ' -f1-3 /proc/loadavg)"
    # Both must really report the member that does not answer (exit 1) and the four others.
    local rc=0
    "${k[@]}" >"$bench_tmp/k.json" 2>&1 || rc=$?
    [ "$rc" = 1 ] || { echo "kubectl-etcd health exited $rc, want 1:"; cat "$bench_tmp/k.json"; exit 1; }
    rc=0; "${e[@]}" >"$bench_tmp/e.json" 2>/dev/null || rc=$?
    [ "$rc" = 1 ] || { echo "etcdctl endpoint health exited $rc, want 1"; exit 1; }
    [ "$(jq '[.[] | select(.health)] | length' "$bench_tmp/e.json")" = 4 ] || { echo "etcdctl: not 4 healthy"; exit 1; }
    ROUNDS=${ROUNDS:-4} RUNS=${RUNS:-3} ab "kubectl-etcd health" "${k[*]}" "etcdctl endpoint health --cluster" "${e[*]}"
    local r; r=$(ratio "$A_MED" "$B_MED")
    check "kubectl-etcd/etcdctl health, member $1" "$r" "<=" 1.0
    check "kubectl-etcd health median (s), member $1, vs 1.5x dial timeout" "$(printf %.2f "$A_MED")" "<" "$(echo "$dial * 1.5" | bc)"
    summary="$summary${summary:+; }$1: ratio $r (target <= 1.0), $(printf %.2f "$A_MED") s (target < $(echo "$dial * 1.5" | bc) s)"
}
ec stop
scenario stopped
# A member that accepts connections but never answers (SIGSTOP).
ec start
sleep 2
ec pause
on_exit "'$bench_root/tests/testenv/etcd-cluster' resume --dir '$bench_tmp/etcd' --member member-4"
scenario paused
verdict health "$summary"
