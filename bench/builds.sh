#!/usr/bin/env bash
# The builds users get, side by side in one run (issue 40): the release
# route (the krew archive, the container image, the in-cluster Job), the
# Debian package's configuration and the README's source build (`meson
# setup` with no option), each built as lib.sh's route_build builds it.
#   1. `member list -o json` on a 3-member TLS etcd 3.6 cluster, the three
#      builds and `etcdctl member list -w json` interleaved (ROUNDS rounds of
#      hyperfine, RUNS runs each, the order rotated every round): median wall
#      time and the mean CPU (user + system) a run.
#   2. Where the CPU goes: `perf stat` task-clock of `version` (start-up
#      only: loading, relocating, static initialisers) and of `member list`
#      for each build, the dynamic loader's own count of its start-up time
#      (LD_DEBUG=statistics), the number of shared objects.
#   3. A fleet of BENCH_FLEET (default 32) one-member legacy clusters adopted
#      `--apply --skip-backup --concurrency 8` by each build in turn, each
#      fleet made just before its run (fleet.sh): wall time and CPU seconds.
# Target (the release build's, as bench/README.md's table has it): member
# list at most 1.0 of etcdctl. The other builds are shown beside it.
# BENCH_DEFAULT_BUILD=DIR takes a debugoptimized build already made (e.g.
# the test build, whose -Dtest_seams=true changes only the programs' step
# hooks) as the source build, instead of making one more.
#
#   bench/builds.sh             # TESTENV_ENV_FILE, or an environment of its own
. "$(dirname "$0")/lib.sh"
names=(release debian default)
declare -A dir
for b in "${names[@]}"; do
    if [ "$b" = default ] && [ -n "${BENCH_DEFAULT_BUILD:-}" ]; then
        dir[$b]=$(cd "$BENCH_DEFAULT_BUILD" && pwd)
        ninja -C "${dir[$b]}" tools/kubectl-etcd/kubectl-etcd tools/etcd-migrate/etcd-migrate >/dev/null
        continue
    fi
    route_build "$b"
    dir[$b]=$ROUTE_DIR
done
bench_env
bench_etcd "$bench_tmp/etcd" --version 3.6 --members 3 --tls
eps=$ETCD_IP_ENDPOINTS
tls="--cacert $ETCD_CACERT --cert $ETCD_CERT --key $ETCD_KEY"
echo "builds side by side, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for b in "${names[@]}"; do
    k="${dir[$b]}/tools/kubectl-etcd/kubectl-etcd"
    "$k" member list -o json --endpoints "$eps" $tls | jq -e '(.members // .) | length == 3' >/dev/null
    printf '  %-8s %s (%d shared objects, buildtype %s)\n' "$b" "${dir[$b]}" "$(ldd "$k" | wc -l)" \
        "$(meson introspect --buildoptions "${dir[$b]}" | jq -r '.[] | select(.name == "buildtype") | .value')"
done

# 1. member list, the four commands interleaved.
cmds=()
for b in "${names[@]}"; do cmds+=("${dir[$b]}/tools/kubectl-etcd/kubectl-etcd member list -o json --endpoints $eps $tls"); done
cmds+=("$ETCD_BIN/etcdctl member list -w json --endpoints $eps $tls")
labels=("${names[@]}" etcdctl)
rounds=${ROUNDS:-6} runs=${RUNS:-15}
for i in "${!labels[@]}"; do : >"$bench_tmp/wall.$i"; : >"$bench_tmp/cpu.$i"; done
for ((r = 0; r < rounds; r++)); do
    order=()
    for i in "${!labels[@]}"; do order+=($(((i + r) % ${#labels[@]}))); done
    args=()
    for i in "${order[@]}"; do args+=("${cmds[$i]}"); done
    hyperfine -N -w 1 -r "$runs" --export-json "$bench_tmp/hf.json" "${args[@]}" >/dev/null 2>&1
    for j in "${!order[@]}"; do
        i=${order[$j]}
        jq -r ".results[$j].times[]" "$bench_tmp/hf.json" >>"$bench_tmp/wall.$i"
        jq -r ".results[$j] | .user + .system" "$bench_tmp/hf.json" >>"$bench_tmp/cpu.$i"
    done
done
echo "member list -o json, 3-member TLS etcd 3.6: $rounds rounds of $runs runs, medians"
declare -A wall cpu
for i in "${!labels[@]}"; do
    wall[${labels[$i]}]=$(median "$bench_tmp/wall.$i")
    cpu[${labels[$i]}]=$(median "$bench_tmp/cpu.$i")
done
for l in "${labels[@]}"; do
    printf '  %-8s wall %6.1f ms (%s of etcdctl)  CPU %6.1f ms a run\n' "$l" "$(echo "${wall[$l]} * 1000" | bc -l)" \
        "$(ratio "${wall[$l]}" "${wall[etcdctl]}")" "$(echo "${cpu[$l]} * 1000" | bc -l)"
done

# 2. Where the CPU goes.
echo "CPU of one run (perf stat, 20 runs each: task-clock, its user and system parts, page faults) and the loader's own count"
# Prints "MS USER_MS SYS_MS FAULTS" for CMD...
cost() {
    perf stat -x, -e task-clock,user_time,system_time,page-faults -r 20 "$@" 2>&1 >/dev/null |
        awk -F, '$3 ~ /^task-clock/ {t = $1} $3 ~ /^user_time/ {u = $1 / 1e6} $3 ~ /^system_time/ {y = $1 / 1e6}
                 $3 ~ /^page-faults/ {f = $1} END {printf "%.1f %.1f %.1f %d", t, u, y, f}'
}
show() { # LABEL WHAT MS USER SYS FAULTS
    printf '  %-8s %-12s %5.1f ms (user %4.1f, system %4.1f)  %5d page faults\n' "$@"
}
for b in "${names[@]}"; do
    k="${dir[$b]}/tools/kubectl-etcd/kubectl-etcd"
    read -r vt vu vs vf <<<"$(cost "$k" version)"
    read -r mt mu ms mf <<<"$(cost "$k" member list -o json --endpoints "$eps" $tls)"
    ld=$(LD_DEBUG=statistics "$k" version 2>&1 >/dev/null | awk '/total startup time in dynamic loader/ {print $(NF-1), $NF; exit}')
    reloc=$(LD_DEBUG=statistics "$k" version 2>&1 >/dev/null | awk '/number of relocations:/ {print $NF; exit}')
    show "$b" version "$vt" "$vu" "$vs" "$vf"
    show "" "member list" "$mt" "$mu" "$ms" "$mf"
    printf '  %-8s %-12s %5.1f ms beyond start-up; the loader: %s, %s relocations\n' "" "" "$(echo "$mt - $vt" | bc -l)" \
        "${ld:-?}" "${reloc:-?}"
done
read -r vt vu vs vf <<<"$(cost "$ETCD_BIN/etcdctl" version)"
read -r mt mu ms mf <<<"$(cost "$ETCD_BIN/etcdctl" member list -w json --endpoints "$eps" $tls)"
show etcdctl version "$vt" "$vu" "$vs" "$vf"
show "" "member list" "$mt" "$mu" "$ms" "$mf"

# 3. A fleet for each build.
fleet=${BENCH_FLEET:-32}
if ((fleet > 0)); then
    # shellcheck source=bench/fleet.sh
    . "$bench_here/fleet.sh"
    echo "fleets of $fleet one-member legacy clusters, --apply --skip-backup --concurrency 8, load $(cut -d' ' -f1-3 /proc/loadavg)"
    for b in "${names[@]}"; do
        n="bench-builds-$b-$$"
        fleet_up "$n" "$fleet"
        /usr/bin/time -f '%e %U %S' -o "$bench_tmp/fleet.$b" "${dir[$b]}/tools/etcd-migrate/etcd-migrate" adopt -n "$n" \
            --connect direct --legacy-controller "$n-op/etcd-operator-controller-manager" --new-controller "$n-op/etcd-operator" \
            --apply --yes --skip-backup --concurrency 8 -o json >"$bench_tmp/fleet.$b.json" 2>"$bench_tmp/fleet.$b.err" ||
            { echo "$b: the fleet's adoption failed"; tail -5 "$bench_tmp/fleet.$b.err"; exit 1; }
        got=$(jq '[.result.clusters[] | select(.outcome == "Adopted")] | length' "$bench_tmp/fleet.$b.json")
        [ "$got" = "$fleet" ] || { echo "$b: $got of $fleet adopted"; exit 1; }
        read -r s u y <"$bench_tmp/fleet.$b"
        printf '  %-8s %6.2f s wall, %5.2f s CPU (%4.1f ms a cluster)\n' "$b" "$s" "$(echo "$u + $y" | bc -l)" \
            "$(echo "($u + $y) * 1000 / $fleet" | bc -l)"
        fleet_down "$n" "$fleet"
    done
fi

r=$(ratio "${wall[release]}" "${wall[etcdctl]}")
check "kubectl-etcd/etcdctl member list, release build" "$r" "<=" 1.0
verdict builds "member list of etcdctl: release $r (target <= 1.0), Debian $(ratio "${wall[debian]}" "${wall[etcdctl]}"), default $(ratio "${wall[default]}" "${wall[etcdctl]}")"
