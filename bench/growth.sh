#!/usr/bin/env bash
# How adoption's cost grows with the fleet (issue 40): fleets of
# BENCH_GROWTH_SIZES (default "8 32 128") one-member legacy clusters, then
# BENCH_GROWTH_TLS (default 16) three-member TLS + auth etcd 3.6 clusters,
# each adopted `--apply --skip-backup --concurrency BENCH_CONCURRENCY`
# (default 8) in a fresh environment of its own (TESTENV_AUDIT=1; a
# TESTENV_ENV_FILE is not used: a fleet's apiserver starts empty). Per
# fleet: the wall time, this program's requests (audit log), CPU
# milliseconds and peak RSS (/usr/bin/time), and the CPU seconds the
# apiserver, its store etcd and the fleet's etcd members spent meanwhile
# (/proc/PID/stat). The reference Go etcd-migrate adopts a fleet of
# BENCH_GROWTH_REF (default 32; 0 skips it) in the same way, after ours.
# Then a fleet of BENCH_GROWTH_APF (default 32; 0 skips it) is adopted by
# an identity that the apiserver's priority and fairness limits to one
# concurrency share, rejecting what exceeds it (bench/apf.sh): the run must
# see 429 answers, wait them out and adopt every cluster.
# Then, unless BENCH_GROWTH_INSTRUCTIONS=0 (or valgrind is missing), each
# one-member fleet again in a fresh environment under callgrind: the
# instructions this program executes, which do not depend on how busy the
# cores are (CPU time does: this machine has no hardware counters for perf).
# Targets, smallest fleet against largest: requests and CPU per cluster the
# same within 10% (instructions too), peak RSS growing by less than 1 MiB
# per cluster; wall time of the largest over the one before it at most 1.1 x
# their size ratio (128 over 32: 4.4); the reference at least 40x slower.
#
#   bench/growth.sh
#   BENCH_GROWTH_SIZES="8 32" BENCH_GROWTH_TLS=0 BENCH_GROWTH_REF=0 bench/growth.sh   # a short run
export TESTENV_AUDIT=1
unset TESTENV_ENV_FILE
. "$(dirname "$0")/lib.sh"
read -r -a sizes <<<"${BENCH_GROWTH_SIZES:-8 32 128}"
tls_fleet=${BENCH_GROWTH_TLS:-16}
ref_fleet=${BENCH_GROWTH_REF:-32}
apf_fleet=${BENCH_GROWTH_APF:-32}
conc=${BENCH_CONCURRENCY:-8}
instructions=${BENCH_GROWTH_INSTRUCTIONS:-1}
command -v valgrind >/dev/null || instructions=0
((${#sizes[@]} >= 2)) || { echo "growth: BENCH_GROWTH_SIZES needs two fleet sizes at least" >&2; exit 2; }

# CPU seconds (user + system) of the processes whose pid files are given.
cpu_of() {
    local t=0 f p
    for f in "$@"; do
        [ -f "$f" ] || continue
        p=$(<"$f")
        [ -r "/proc/$p/stat" ] || continue
        # Fields 14 and 15 (utime, stime), counted after the ") " that ends
        # the command name (which may hold spaces).
        t=$(( t + $(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12 + $13}') ))
    done
    awk -v t="$t" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", t / hz}'
}
member_pids() { # NS COUNT: the pid files of the fleet's etcd members
    local i d
    for i in $(seq 0 $(($2 - 1))); do
        d=$(jq -r .etcdDir "$TESTENV_DIR/fixtures/$1.f$i/fixture.json")
        ls "$d"/pids/*.pid 2>/dev/null || true
    done
}
fresh_env() { # NAME: a new environment; the last one goes first
    [ -z "${env_dir:-}" ] || "$bench_root/tests/testenv/down" "$env_dir" >/dev/null 2>&1 || true
    env_dir="$bench_tmp/env-$1"
    "$bench_root/tests/testenv/up" "$env_dir" >/dev/null 2>"$bench_tmp/up-$1.log" || { cat "$bench_tmp/up-$1.log"; exit 1; }
    on_exit "'$bench_root/tests/testenv/down' '$env_dir'"
    export TESTENV_ENV_FILE="$env_dir/env"
    # shellcheck disable=SC1090
    . "$TESTENV_ENV_FILE"
    export TESTENV_DIR TESTENV_ENV_FILE KUBECONFIG
    audit=${TESTENV_AUDIT_LOG:?the environment has no audit log}
}

# One fleet: measure NAME COUNT [FIXTURE ARGS...]; sets the row's figures
# in R_* and prints the row.
measure() {
    local name=$1 count=$2
    shift 2
    fresh_env "$name"
    # shellcheck source=bench/fleet.sh
    . "$bench_here/fleet.sh"
    local n="bench-growth-$name"
    fleet_up "$n" "$count" "$@"
    local members api_pid="$TESTENV_DIR/pids/kube-apiserver.pid" store_pid="$TESTENV_DIR/pids/etcd.pid"
    mapfile -t members < <(member_pids "$n" "$count")
    local api0 store0 m0 api1 store1 m1 off rc=0
    api0=$(cpu_of "$api_pid"); store0=$(cpu_of "$store_pid"); m0=$(cpu_of "${members[@]}")
    off=$(stat -c %s "$audit")
    local kubeconfig=$KUBECONFIG
    if [ -n "${MEASURE_APF:-}" ]; then
        # shellcheck source=bench/apf.sh
        . "$bench_here/apf.sh"
        kubeconfig="$bench_tmp/$name.kubeconfig"
        apf_kubeconfig bench-apf "$kubeconfig"
        off=$(stat -c %s "$audit")
    fi
    cpu_mark
    KUBECONFIG=$kubeconfig /usr/bin/time -f '%e %U %S %M' -o "$bench_tmp/$name.time" \
        "$etcd_migrate" adopt -n "$n" --connect direct --legacy-controller "$n-op/etcd-operator-controller-manager" \
        --new-controller "$n-op/etcd-operator" --apply --yes --skip-backup --concurrency "$conc" -o json \
        >"$bench_tmp/$name.json" 2>"$bench_tmp/$name.err" || rc=$?
    local busy
    busy=$(cpu_busy)
    api1=$(cpu_of "$api_pid"); store1=$(cpu_of "$store_pid"); m1=$(cpu_of "${members[@]}")
    local adopted
    adopted=$(jq '[.result.clusters[] | select(.outcome == "Adopted")] | length' "$bench_tmp/$name.json" 2>/dev/null || echo 0)
    [ "$rc" = 0 ] && [ "$adopted" = "$count" ] ||
        { echo "$name: exit $rc, $adopted of $count adopted:"; tail -5 "$bench_tmp/$name.err"; exit 1; }
    R_REQ=$(requests_since "$off")
    R_429=0
    [ -z "${MEASURE_APF:-}" ] || R_429=$(rejected_since "$off")
    read -r R_WALL user sys rss_kib <"$bench_tmp/$name.time"
    R_CPU_MS=$(awk -v u="$user" -v s="$sys" -v c="$count" 'BEGIN {printf "%.1f", (u + s) * 1000 / c}')
    R_RSS=$(awk -v k="$rss_kib" 'BEGIN {printf "%.1f", k / 1024}')
    R_REQ_PER=$(awk -v r="$R_REQ" -v c="$count" 'BEGIN {printf "%.2f", r / c}')
    [ -z "${MEASURE_APF:-}" ] || printf '  %-16s answered 429 %d times\n' "$name" "$R_429"
    printf '  %-16s %7.2f s  %6d requests (%6.2f a cluster)  our CPU %6.1f ms a cluster  peak RSS %6.1f MiB  apiserver %6.2f s  store etcd %5.2f s  members %6.2f s  cores busy %s\n' \
        "$name" "$R_WALL" "$R_REQ" "$R_REQ_PER" "$R_CPU_MS" "$R_RSS" \
        "$(echo "$api1 - $api0" | bc -l)" "$(echo "$store1 - $store0" | bc -l)" "$(echo "$m1 - $m0" | bc -l)" "$busy"
    echo "    by verb and resource:" \
        "$(tail -c +$((off + 1)) "$audit" | jq -r 'select(.userAgent // "" | startswith("etcd-operator-cli")) |
           "\(.verb) \(.objectRef.resource // "-")\(if .objectRef.subresource then "/" + .objectRef.subresource else "" end)"' |
           sort | uniq -c | sort -rn | awk '{printf "%s %s %s; ", $1, $2, $3}')"
    fleet_down "$n" "$count"
}

# One fleet under callgrind: instructions NAME COUNT; sets R_IR (millions of
# instructions a cluster) and R_IR_TOTAL (millions) and prints the row.
instructions() {
    local name=$1 count=$2
    fresh_env "$name"
    # shellcheck source=bench/fleet.sh
    . "$bench_here/fleet.sh"
    local n="bench-growth-$name" rc=0 adopted
    fleet_up "$n" "$count"
    valgrind --tool=callgrind --callgrind-out-file="$bench_tmp/$name.cg" -q \
        "$etcd_migrate" adopt -n "$n" --connect direct --legacy-controller "$n-op/etcd-operator-controller-manager" \
        --new-controller "$n-op/etcd-operator" --apply --yes --skip-backup --concurrency "$conc" -o json \
        >"$bench_tmp/$name.json" 2>"$bench_tmp/$name.err" || rc=$?
    adopted=$(jq '[.result.clusters[] | select(.outcome == "Adopted")] | length' "$bench_tmp/$name.json" 2>/dev/null || echo 0)
    [ "$rc" = 0 ] && [ "$adopted" = "$count" ] ||
        { echo "$name: exit $rc, $adopted of $count adopted:"; tail -5 "$bench_tmp/$name.err"; exit 1; }
    R_IR_TOTAL=$(awk '/^totals:/ {printf "%.1f", $2 / 1e6}' "$bench_tmp/$name.cg")
    R_IR=$(awk -v t="$R_IR_TOTAL" -v c="$count" 'BEGIN {printf "%.1f", t / c}')
    printf '  %-16s %9.1f M instructions (%6.1f M a cluster)\n' "$name" "$R_IR_TOTAL" "$R_IR"
    fleet_down "$n" "$count"
}

echo "growth: fleets of ${sizes[*]} one-member legacy clusters, then $tls_fleet three-member TLS + auth ones," \
     "--concurrency $conc, each in a fresh environment; load $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A req cpu rss wall
for s in "${sizes[@]}"; do
    measure "fleet-$s" "$s"
    req[$s]=$R_REQ_PER; cpu[$s]=$R_CPU_MS; rss[$s]=$R_RSS; wall[$s]=$R_WALL
done
if ((tls_fleet > 0)); then
    measure "tls-auth-$tls_fleet" "$tls_fleet" --replicas 3 --version 3.6 --tls --auth
fi
if ((apf_fleet > 0)); then
    [ -n "${wall[$apf_fleet]:-}" ] || { echo "growth: BENCH_GROWTH_APF=$apf_fleet is not one of the sizes" >&2; exit 2; }
    # measure exits unless every cluster was adopted.
    MEASURE_APF=1 measure "apf-429-$apf_fleet" "$apf_fleet"
    check "answers 429 waited out, fleet of $apf_fleet under APF (every cluster adopted)" "$R_429" ">=" 1
    apf_summary="; under APF 429 ($R_429 answers): $apf_fleet adopted in $R_WALL s ($(ratio "$R_WALL" "${wall[$apf_fleet]}")x)"
fi
declare -A ir ir_total
if ((instructions)); then
    echo "instructions (callgrind), the one-member fleets again:"
    for s in "${sizes[@]}"; do
        instructions "cg-fleet-$s" "$s"
        ir[$s]=$R_IR; ir_total[$s]=$R_IR_TOTAL
    done
fi
small=${sizes[0]}; big=${sizes[-1]}; before=${sizes[-2]}
if ((instructions)); then
    # The straight line through the smallest and largest: what a cluster
    # adds, and what the run costs whatever the fleet.
    awk -v a="${ir_total[$small]}" -v b="${ir_total[$big]}" -v m="$small" -v n="$big" \
        'BEGIN {c = (b - a) / (n - m); printf "  instructions: %.1f M a cluster more, %.1f M for the run itself\n", c, a - m * c}'
    check "instructions a cluster, $big over $small" "$(ratio "${ir[$big]}" "${ir[$small]}")" "<=" 1.10
fi
check "requests a cluster, $big over $small" "$(ratio "${req[$big]}" "${req[$small]}")" "<=" 1.10
check "requests a cluster, $big over $small" "$(ratio "${req[$big]}" "${req[$small]}")" ">=" 0.90
check "our CPU a cluster, $big over $small" "$(ratio "${cpu[$big]}" "${cpu[$small]}")" "<=" 1.10
check "our CPU a cluster, $big over $small" "$(ratio "${cpu[$big]}" "${cpu[$small]}")" ">=" 0.90
check "peak RSS growth a cluster (MiB), $small to $big" \
    "$(awk -v a="${rss[$small]}" -v b="${rss[$big]}" -v n=$((big - small)) 'BEGIN {printf "%.3f", (b - a) / n}')" "<" 1
check "wall time, $big over $before" "$(ratio "${wall[$big]}" "${wall[$before]}")" "<=" \
    "$(awk -v a="$big" -v b="$before" 'BEGIN {printf "%.2f", 1.1 * a / b}')"
summary="fleets ${sizes[*]}${apf_summary:-}: wall $(for s in "${sizes[@]}"; do printf '%s s ' "${wall[$s]}"; done)- requests a cluster $(for s in "${sizes[@]}"; do printf '%s ' "${req[$s]}"; done)- our CPU ms a cluster $(for s in "${sizes[@]}"; do printf '%s ' "${cpu[$s]}"; done)- peak RSS MiB $(for s in "${sizes[@]}"; do printf '%s ' "${rss[$s]}"; done)"
((instructions == 0)) || summary="$summary- M instructions a cluster $(for s in "${sizes[@]}"; do printf '%s ' "${ir[$s]}"; done)"

if ((ref_fleet > 0)); then
    [ -n "${wall[$ref_fleet]:-}" ] || { echo "growth: BENCH_GROWTH_REF=$ref_fleet is not one of the sizes" >&2; exit 2; }
    fresh_env "reference-$ref_fleet"
    . "$bench_here/fleet.sh"
    n="bench-growth-ref"
    fleet_up "$n" "$ref_fleet"
    t0=$(now); rc=0; ref_adopt "$n" --apply --yes --skip-backup >"$bench_tmp/ref.out" 2>&1 || rc=$?; t1=$(now)
    [ "$rc" = 0 ] && all_adopted "$n" "$ref_fleet" || { echo "the reference's fleet adoption failed ($rc):"; tail -5 "$bench_tmp/ref.out"; exit 1; }
    sr=$(echo "$t1 - $t0" | bc -l)
    printf '  %-16s %7.2f s  (the reference, sequential by design)\n' "reference-$ref_fleet" "$sr"
    check "the reference over ours, fleet of $ref_fleet" "$(ratio "$sr" "${wall[$ref_fleet]}")" ">=" 40
    summary="$summary; reference on $ref_fleet: $(printf %.1f "$sr") s ($(ratio "$sr" "${wall[$ref_fleet]}")x)"
    fleet_down "$n" "$ref_fleet"
fi
verdict growth "$summary"
