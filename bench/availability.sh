#!/usr/bin/env bash
# What a tenant's clients see while the programs work (issue 40): a client
# putting 200 new keys a second (TLS, and auth where the cluster has it, as a
# tenant's kube-apiserver would) runs through each operation of
# bench/availability.cc, then through a quiet stretch as long on the same
# cluster:
#   - `etcd-migrate adopt --apply` of a 3-member TLS + auth etcd 3.6 legacy
#     cluster, then the real operator's take-over;
#   - on a 3-member TLS cluster of the real operator, each on the leader:
#     `member add --wait`, `member remove --wait`, `member replace
#     --break-glass --stop-operator`, `member roll`.
# Per operation: puts failed, p50/p99/max latency (ms, counted from when
# each put was due) and the cores busy beside the quiet stretch's, keys
# acknowledged but lost and keys applied twice. Targets: adoption and take-over 0 failed puts and
# p99 within 2x the quiet one; member operations at most one leader
# election's worth of failed puts (200: etcd's default election timeout of
# 1 s at this rate; 0 is the aim, the leadership moves first); no key lost
# or applied twice anywhere.
#
#   bench/availability.sh   # TESTENV_ENV_FILE, or an environment of its own
. "$(dirname "$0")/lib.sh"
bench_env
ninja -C "$BENCH_BUILD" bench/bench-availability >/dev/null
prog="$BENCH_BUILD/bench/bench-availability"
echo "availability: 200 puts/s through each operation and through a quiet stretch as long; load $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
SOURCE_ROOT=$bench_root BUILD_ROOT=$BENCH_BUILD ETCD_MIGRATE=$etcd_migrate KUBECTL_ETCD=$kubectl_etcd \
    "$prog" --no-intro --no-version >"$bench_tmp/out" 2>&1 || rc=$?
grep '^AVAIL ' "$bench_tmp/out" | sed 's/^AVAIL //' >"$bench_tmp/lines"
if [ "$rc" != 0 ]; then
    grep -v '^AVAIL ' "$bench_tmp/out" | tail -30
    echo "availability: the operations did not all complete (exit $rc)"
    bench_missed=1
fi
printf '  %-42s %6s %6s %6s %8s %8s %8s %6s   %s\n' operation took puts failed p50 p99 max cores "quiet: p50 p99 max, cores; lost, applied twice"
while read -r line; do
    jq -r '"  \(.what | .[0:42] | . + " " * (42 - length)) \(.took | . * 10 | round / 10 | tostring | " " * (5 - length) + .)s \(.during.sent | tostring | " " * (6 - length) + .) \(.during.failed | tostring | " " * (6 - length) + .) \(.during.p50 | round | tostring | " " * (6 - length) + .)ms \(.during.p99 | round | tostring | " " * (6 - length) + .)ms \(.during.max | round | tostring | " " * (6 - length) + .)ms \(.during.coresBusy * 100 | round / 100 | tostring | " " * (6 - length) + .)   \(.quiet.p50 | round)/\(.quiet.p99 | round)/\(.quiet.max | round) ms, \(.quiet.coresBusy * 100 | round / 100); lost \(.during.lost + .quiet.lost), twice \(.during.duplicated + .quiet.duplicated)\(if .during.errors | length > 0 then "; e.g. " + .during.errors[0] else "" end)"' <<<"$line"
done <"$bench_tmp/lines"
summary=""
while read -r line; do
    what=$(jq -r .what <<<"$line")
    failed=$(jq .during.failed <<<"$line")
    lost=$(jq '.during.lost + .quiet.lost' <<<"$line")
    twice=$(jq '.during.duplicated + .quiet.duplicated' <<<"$line")
    case "$what" in
    etcd-migrate*|*take-over*)
        check "$what: failed puts" "$failed" "<=" 0
        check "$what: p99 over the quiet p99" "$(jq '.during.p99 / ([.quiet.p99, 0.001] | max) | . * 100 | round / 100' <<<"$line")" "<=" 2
        ;;
    *) check "$what: failed puts" "$failed" "<=" 200 ;;
    esac
    check "$what: keys lost" "$lost" "<=" 0
    check "$what: keys applied twice" "$twice" "<=" 0
    summary="$summary${summary:+; }$what: $failed failed, p99 $(jq '.during.p99 | round' <<<"$line") ms (quiet $(jq '.quiet.p99 | round' <<<"$line"))"
done <"$bench_tmp/lines"
[ -n "$summary" ] || summary="no operation measured"
verdict availability "$summary"
