#!/usr/bin/env bash
# Adoption's Kubernetes API traffic, its fleet concurrency, and the reference
# Go etcd-migrate (tests/testenv/build operator) side by side (issues 14, 27):
#   1. one 3-member TLS+auth etcd 3.6 legacy cluster: the plan (dry-run) and
#      then `adopt --apply --backup-dir`, each request counted from the
#      apiserver's audit log (user agent etcd-operator-cli: discovery,
#      server-side dry-runs and polls included); TCP connections to the
#      apiserver counted by strace, TLS handshakes by the distinct client
#      randoms libcurl logs to SSLKEYLOGFILE (a temporary file, deleted).
#      Targets: <= 60 requests, handshakes <= connections.
#   2. two more such clusters, one adopted by this suite and one by the
#      reference, both `--apply --yes --skip-backup` (the reference's backup
#      needs a kubelet to run its Job): wall times side by side (no target).
#   3. three fleets of BENCH_FLEET (default 32) one-member legacy clusters,
#      `--apply --skip-backup`: this suite's `--concurrency 1` and
#      `--concurrency 8`, and the reference (sequential by design). Targets:
#      8 at least 5x faster than 1, and at least 10x faster than the
#      reference. Beside it, the time until the garbage collector has let
#      the last StatefulSet go (this suite does not wait for it,
#      docs/adoption-reown.md; the reference does, 2 s polls).
# Needs an environment started with TESTENV_AUDIT=1; without TESTENV_ENV_FILE
# it starts one of its own so.
#
#   bench/adopt.sh                       # BENCH_FLEET=0 skips the fleets
export TESTENV_AUDIT=1
. "$(dirname "$0")/lib.sh"
bench_env
audit=${TESTENV_AUDIT_LOG:?the environment has no audit log: start it with TESTENV_AUDIT=1}
fleet=${BENCH_FLEET:-32}
ns=bench-adopt-$$
. "$(dirname "$0")/fleet.sh"

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


echo "one 3-member TLS+auth etcd 3.6 cluster each, adopt --apply --skip-backup: this suite, then the reference ($reference)"
for side in ours ref; do
    fixture "$ns-tls-$side" etcd --version 3.6 --tls --auth
    on_exit "unfixture $ns-tls-$side etcd"
done
t0=$(now); rc=0; adopt "$ns-tls-ours" --apply --yes --skip-backup >"$bench_tmp/tls-ours.out" 2>&1 || rc=$?; t1=$(now)
[ "$rc" = 0 ] && all_adopted "$ns-tls-ours" 1 || { echo "this suite's adoption failed ($rc):"; tail -5 "$bench_tmp/tls-ours.out"; exit 1; }
t2=$(now); rc=0; ref_adopt "$ns-tls-ref" --apply --yes --skip-backup >"$bench_tmp/tls-ref.out" 2>&1 || rc=$?; t3=$(now)
[ "$rc" = 0 ] && all_adopted "$ns-tls-ref" 1 || { echo "the reference's adoption failed ($rc):"; tail -5 "$bench_tmp/tls-ref.out"; exit 1; }
tls_ours=$(echo "$t1 - $t0" | bc -l); tls_ref=$(echo "$t3 - $t2" | bc -l)
printf '  this suite: %6.2f s   the reference: %6.2f s   (reference / this suite: %s)\n' "$tls_ours" "$tls_ref" "$(ratio "$tls_ref" "$tls_ours")"
summary="$summary; 3-member TLS+auth: $(printf %.1f "$tls_ours") s, reference $(printf %.1f "$tls_ref") s"

if ((fleet > 0)); then
    # The clusters above are measured: down before the fleets, for the same
    # reason as each fleet below.
    for n in "$ns" "$ns-tls-ours" "$ns-tls-ref"; do
        unfixture "$n" etcd >/dev/null 2>&1 || true
        while "$TESTENV_KUBECTL" get namespace "$n" "$n-op" >/dev/null 2>&1; do sleep 0.5; done
    done
    echo "fleets: 3 x $fleet one-member etcd 3.5 legacy clusters, --apply --skip-backup, load $(cut -d' ' -f1-3 /proc/loadavg)"
    # Each fleet set up just before its run and taken down right after (fleet.sh).
    fleet_up "$ns-c1" "$fleet"
    cpu_mark; t0=$(now); adopt "$ns-c1" --apply --yes --skip-backup --concurrency 1 -o json >"$bench_tmp/c1.json" 2>"$bench_tmp/c1.err" || true; t1=$(now); b1=$(cpu_busy)
    g1=$(statefulsets_gone_after "$ns-c1" "$t0")
    fleet_down "$ns-c1" "$fleet"
    fleet_up "$ns-c8" "$fleet"
    cpu_mark; t2=$(now); adopt "$ns-c8" --apply --yes --skip-backup --concurrency 8 -o json >"$bench_tmp/c8.json" 2>"$bench_tmp/c8.err" || true; t3=$(now); b8=$(cpu_busy)
    g8=$(statefulsets_gone_after "$ns-c8" "$t2")
    fleet_down "$ns-c8" "$fleet"
    fleet_up "$ns-ref" "$fleet"
    t4=$(now); rc=0; ref_adopt "$ns-ref" --apply --yes --skip-backup >"$bench_tmp/ref.out" 2>&1 || rc=$?; t5=$(now)
    [ "$rc" = 0 ] && all_adopted "$ns-ref" "$fleet" || { echo "the reference's fleet adoption failed ($rc):"; tail -5 "$bench_tmp/ref.out"; exit 1; }
    fleet_down "$ns-ref" "$fleet"
    for side in c1 c8; do
        n=$(jq '[.result.clusters[] | select(.outcome == "Adopted")] | length' "$bench_tmp/$side.json" 2>/dev/null || echo 0)
        [ "$n" = "$fleet" ] || { echo "$side: $n of $fleet adopted"; tail -5 "$bench_tmp/$side.err"; exit 1; }
    done
    s1=$(echo "$t1 - $t0" | bc -l); s8=$(echo "$t3 - $t2" | bc -l); sr=$(echo "$t5 - $t4" | bc -l)
    printf '  --concurrency 1: %6.1f s (StatefulSets gone after %.1f s; cores busy: %s)\n' "$s1" "$g1" "$b1"
    printf '  --concurrency 8: %6.1f s (StatefulSets gone after %.1f s; cores busy: %s)\n' "$s8" "$g8" "$b8"
    printf '  the reference:   %6.1f s (it waits for each StatefulSet)\n' "$sr"
    speedup=$(ratio "$s1" "$s8")
    vs_ref=$(ratio "$sr" "$s8")
    check "fleet speed-up of --concurrency 8 over 1" "$speedup" ">=" 5
    check "fleet speed-up of --concurrency 8 over the reference" "$vs_ref" ">=" 10
    summary="$summary; fleet of $fleet: c1 $(printf %.1f "$s1") s, c8 $(printf %.1f "$s8") s, reference $(printf %.1f "$sr") s: speed-up $speedup (target >= 5), vs reference $vs_ref (target >= 10; c1 vs reference $(ratio "$sr" "$s1"))"
fi
verdict adopt "$summary"
