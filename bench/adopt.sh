#!/usr/bin/env bash
# Adoption's Kubernetes API traffic and its fleet concurrency (issue 14):
#   1. one 3-member TLS+auth etcd 3.6 legacy cluster: the plan (dry-run) and
#      then `adopt --apply --backup-dir`, each request counted from the
#      apiserver's audit log (user agent etcd-operator-cli: discovery,
#      server-side dry-runs and polls included); TCP connections to the
#      apiserver counted by strace, TLS handshakes by the distinct client
#      randoms libcurl logs to SSLKEYLOGFILE (a temporary file, deleted).
#      Targets: <= 60 requests, handshakes <= connections.
#   2. two fleets of BENCH_FLEET (default 32) one-member legacy clusters:
#      `adopt --apply --skip-backup --concurrency 1` of one and
#      `--concurrency 8` of the other. Target: 8 at least 5x faster.
# Needs an environment started with TESTENV_AUDIT=1; without TESTENV_ENV_FILE
# it starts one of its own so.
#
#   bench/adopt.sh                       # BENCH_FLEET=0 skips the fleet
export TESTENV_AUDIT=1
. "$(dirname "$0")/lib.sh"
bench_env
audit=${TESTENV_AUDIT_LOG:?the environment has no audit log: start it with TESTENV_AUDIT=1}
fleet=${BENCH_FLEET:-32}
ns=bench-adopt-$$
fixture() { # NS NAME ARGS...
    local n=$1 c=$2; shift 2
    "$bench_root/tests/testenv/legacy-fixture" up --name "$c" --namespace "$n" --operator-namespace "$n-op" \
        --dir "$TESTENV_DIR/fixtures/$n.$c" "$@" >"$bench_tmp/fixture.$n.$c.log" 2>&1 ||
        { cat "$bench_tmp/fixture.$n.$c.log" >&2; return 1; }
}
unfixture() { "$bench_root/tests/testenv/legacy-fixture" down --dir "$TESTENV_DIR/fixtures/$1.$2"; }
adopt() { # NS ARGS...
    local n=$1; shift
    "$etcd_migrate" adopt -n "$n" --connect direct --legacy-controller "$n-op/etcd-operator-controller-manager" \
        --new-controller "$n-op/etcd-operator" "$@"
}
# Requests of etcd-operator-cli in the audit log after byte OFFSET.
requests_since() {
    tail -c +$(($1 + 1)) "$audit" | jq -r 'select(.userAgent // "" | startswith("etcd-operator-cli")) | .auditID' | sort -u | wc -l
}

echo "adoption, one 3-member TLS+auth etcd 3.6 legacy cluster, load $(cut -d' ' -f1-3 /proc/loadavg)"
fixture "$ns" etcd --version 3.6 --tls --auth
on_exit "unfixture $ns etcd"
off=$(stat -c %s "$audit")
adopt "$ns" -o json >/dev/null 2>"$bench_tmp/plan.err" || true
plan_requests=$(requests_since "$off")
echo "  the plan (dry-run):                 $plan_requests requests"
off=$(stat -c %s "$audit")
port=${TESTENV_APISERVER##*:}
mkdir "$bench_tmp/backup"
rc=0
SSLKEYLOGFILE="$bench_tmp/keys" strace -f -qq -e trace=connect -o "$bench_tmp/strace" \
    "$etcd_migrate" adopt -n "$ns" --connect direct --legacy-controller "$ns-op/etcd-operator-controller-manager" \
    --new-controller "$ns-op/etcd-operator" --apply --yes --backup-dir "$bench_tmp/backup" -o json \
    >"$bench_tmp/apply.json" 2>"$bench_tmp/apply.err" || rc=$?
[ "$rc" = 0 ] || { echo "adopt --apply exited $rc:"; cat "$bench_tmp/apply.err"; exit 1; }
jq -e '.result.clusters[0].outcome == "Adopted"' "$bench_tmp/apply.json" >/dev/null
apply_requests=$(requests_since "$off")
connections=$(grep -c "htons($port), sin_addr=inet_addr(\"127.0.0.1\")" "$bench_tmp/strace" || true)
handshakes=$(awk '{print $2}' "$bench_tmp/keys" | sort -u | wc -l)
rm -f "$bench_tmp/keys"
echo "  adopt --apply --backup-dir:         $apply_requests requests (the plan included), $connections TCP connections to the apiserver, $handshakes TLS handshakes"
echo "  by verb and resource (audit log):"
tail -c +$((off + 1)) "$audit" | jq -r 'select(.userAgent // "" | startswith("etcd-operator-cli")) |
    "\(.verb) \(.objectRef.resource // .requestURI)\(if .objectRef.subresource then "/" + .objectRef.subresource else "" end)"' |
    sort | uniq -c | sort -rn | sed 's/^/    /'
check "requests of one adoption" "$apply_requests" "<=" 60
check "TLS handshakes vs TCP connections" "$handshakes" "<=" "$connections"
summary="$apply_requests requests (target <= 60), $handshakes handshakes / $connections connections"

if ((fleet > 0)); then
    echo "fleet: 2 x $fleet one-member etcd 3.5 legacy clusters, adopt --apply --skip-backup"
    for side in c1 c8; do
        # Clusters share the namespace; the last one registers the legacy
        # webhooks (as tests/e2e/migrate/adopt_fleet_test.cc does).
        for i in $(seq 0 $((fleet - 1))); do
            if ((i == 0)); then echo "$i"; else echo "$i --skip-webhooks"; fi
        done | tac | xargs -P 4 -L 1 bash -c "$(declare -f fixture); bench_root='$bench_root' bench_tmp='$bench_tmp' TESTENV_DIR='$TESTENV_DIR' \
            fixture '$ns-$side' f\$0 --replicas 1 \$1"
        for i in $(seq 0 $((fleet - 1))); do on_exit "unfixture $ns-$side f$i"; done
    done
    t0=$(date +%s.%N); adopt "$ns-c1" --apply --yes --skip-backup --concurrency 1 -o json >"$bench_tmp/c1.json" 2>"$bench_tmp/c1.err" || true; t1=$(date +%s.%N)
    t2=$(date +%s.%N); adopt "$ns-c8" --apply --yes --skip-backup --concurrency 8 -o json >"$bench_tmp/c8.json" 2>"$bench_tmp/c8.err" || true; t3=$(date +%s.%N)
    for side in c1 c8; do
        n=$(jq '[.result.clusters[] | select(.outcome == "Adopted")] | length' "$bench_tmp/$side.json" 2>/dev/null || echo 0)
        [ "$n" = "$fleet" ] || { echo "$side: $n of $fleet adopted"; tail -5 "$bench_tmp/$side.err"; exit 1; }
    done
    s1=$(echo "$t1 - $t0" | bc -l); s8=$(echo "$t3 - $t2" | bc -l)
    printf '  --concurrency 1: %6.1f s   --concurrency 8: %6.1f s\n' "$s1" "$s8"
    speedup=$(ratio "$s1" "$s8")
    check "fleet speed-up of --concurrency 8 over 1" "$speedup" ">=" 5
    summary="$summary, fleet of $fleet: speed-up $speedup (target >= 5)"
fi
verdict adopt "$summary"
