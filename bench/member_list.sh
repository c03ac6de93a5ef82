#!/usr/bin/env bash
# `kubectl-etcd member list -o json` against `etcdctl member list -w json`
# (3.6) on a 3-member TLS etcd 3.6 cluster, both given the same
# --endpoints/--cacert/--cert/--key, whole process, interleaved.
# Target: ratio <= 1.0 (issue 14).
#
#   bench/member_list.sh        # TESTENV_ENV_FILE, or an environment of its own
. "$(dirname "$0")/lib.sh"
bench_env
bench_etcd "$bench_tmp/etcd" --version 3.6 --members 3 --tls
eps=$ETCD_IP_ENDPOINTS
tls=(--cacert "$ETCD_CACERT" --cert "$ETCD_CERT" --key "$ETCD_KEY")
echo "member list -o json, 3-member TLS etcd 3.6 ($eps), load $(cut -d' ' -f1-3 /proc/loadavg)"
# Both must really list the three members.
"$kubectl_etcd" member list -o json --endpoints "$eps" "${tls[@]}" | jq -e '(.members // .) | length == 3' >/dev/null
"$ETCD_BIN/etcdctl" member list -w json --endpoints "$eps" "${tls[@]}" | jq -e '.members | length == 3' >/dev/null
ab "kubectl-etcd member list -o json" "$kubectl_etcd member list -o json --endpoints $eps ${tls[*]}" \
   "etcdctl member list -w json" "$ETCD_BIN/etcdctl member list -w json --endpoints $eps ${tls[*]}"
r=$(ratio "$A_MED" "$B_MED")
check "kubectl-etcd/etcdctl member list" "$r" "<=" 1.0
verdict member_list "ratio $r (target <= 1.0)"
