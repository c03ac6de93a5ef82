#!/usr/bin/env bash
# `kubectl-etcd snapshot save` against `etcdctl snapshot save` (3.6) of one
# etcd 3.6 member's db, filled to BENCH_DB_MIB (default 1024) with 1 MiB
# values, interleaved; each run under /usr/bin/time for its peak RSS. The
# peak is taken at a quarter of the size too, to show it is flat in the db
# size. Targets (issue 14): throughput ratio >= 1.0, peak RSS <= 20 MiB, and
# the peak at full size at most 2 MiB above the one at a quarter.
#
#   bench/snapshot.sh           # TESTENV_ENV_FILE, or an environment of its own
. "$(dirname "$0")/lib.sh"
bench_env
full=${BENCH_DB_MIB:-1024}
rounds=${ROUNDS:-3}
bench_etcd "$bench_tmp/etcd" --version 3.6 --members 1 --quota-backend-bytes $((8 << 30)) \
    --arg --unsafe-no-fsync --arg --max-request-bytes=2097152
ep=${ETCD_IP_ENDPOINTS%%,*}
etcdctl="$ETCD_BIN/etcdctl"
head -c $((1 << 20)) /dev/urandom >"$bench_tmp/value"
filled=0
fill_to() { # MiB
    seq "$filled" $(($1 - 1)) | xargs -P 4 -I{} sh -c "'$etcdctl' --endpoints '$ep' put /bench/{} <'$bench_tmp/value' >/dev/null"
    filled=$1
}
db_bytes() { "$etcdctl" --endpoints "$ep" endpoint status -w json | jq '.[0].Status.dbSize'; }

save_k() { rss_mib "$bench_tmp/k.out" "$kubectl_etcd" snapshot save --endpoints "$ep" "$bench_tmp/k.db"; }
save_e() { rss_mib "$bench_tmp/e.out" "$etcdctl" --endpoints "$ep" snapshot save "$bench_tmp/e.db"; }
timed() { # VAR FN: wall seconds into VAR, the peak RSS into RSS
    local t0 t1
    # Every run starts with no dirty pages left by the fill or the run before
    # (their writeback would otherwise slow whichever side comes next).
    sync
    t0=$(date +%s.%N); "$2" || { cat "$bench_tmp"/?.out; exit 1; }; t1=$(date +%s.%N)
    printf -v "$1" '%s' "$(echo "$t1 - $t0" | bc -l)"
    rm -f "$bench_tmp/k.db" "$bench_tmp/e.db"
}

fill_to $((full / 4))
quarter=$(db_bytes)
timed _ save_k; k_rss_q=$RSS
timed _ save_e; e_rss_q=$RSS
fill_to "$full"
size=$(db_bytes)
echo "snapshot save, etcd 3.6 member $ep, db $((quarter >> 20)) MiB then $((size >> 20)) MiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$bench_tmp/k.t"; : >"$bench_tmp/e.t"; k_rss=0; e_rss=0
max() { awk -v a="$1" -v b="$2" 'BEGIN {print (a > b ? a : b)}'; }
for ((r = 0; r < rounds; r++)); do
    if ((r % 2 == 0)); then timed tk save_k; k_rss=$(max "$k_rss" "$RSS"); timed te save_e; e_rss=$(max "$e_rss" "$RSS")
    else timed te save_e; e_rss=$(max "$e_rss" "$RSS"); timed tk save_k; k_rss=$(max "$k_rss" "$RSS"); fi
    echo "$tk" >>"$bench_tmp/k.t"; echo "$te" >>"$bench_tmp/e.t"
done
tk=$(median "$bench_tmp/k.t"); te=$(median "$bench_tmp/e.t")
mbs() { awk -v b="$size" -v s="$1" 'BEGIN {printf "%.0f", b / 1e6 / s}'; }
printf '  %-30s median %6.2f s  %5s MB/s  peak RSS %5s MiB (%5s MiB at %d MiB)\n' \
    "kubectl-etcd snapshot save" "$tk" "$(mbs "$tk")" "$k_rss" "$k_rss_q" $((quarter >> 20))
printf '  %-30s median %6.2f s  %5s MB/s  peak RSS %5s MiB (%5s MiB at %d MiB)\n' \
    "etcdctl snapshot save" "$te" "$(mbs "$te")" "$e_rss" "$e_rss_q" $((quarter >> 20))
r=$(ratio "$te" "$tk")
check "throughput kubectl-etcd/etcdctl" "$r" ">=" 1.0
check "kubectl-etcd peak RSS (MiB)" "$k_rss" "<=" 20
check "kubectl-etcd peak RSS growth from $((quarter >> 20)) to $((size >> 20)) MiB (MiB)" \
    "$(awk -v a="$k_rss" -v b="$k_rss_q" 'BEGIN {printf "%.1f", a - b}')" "<=" 2
verdict snapshot "throughput ratio $r (target >= 1.0), peak RSS $k_rss MiB (target <= 20, etcdctl $e_rss)"
