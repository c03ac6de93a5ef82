# Sourced by the bench scripts: where things are, one test environment,
# side-by-side timing and the verdict line.
#
# Conventions (every bench/*.sh):
#   - BENCH_BUILD (default build/) is the build whose programs are measured;
#   - TESTENV_ENV_FILE names a running environment (tests/testenv/up); a script
#     that needs one and finds none starts its own (under BENCH_TMPDIR) and
#     takes it down after;
#   - both sides are measured in the same run, interleaved (this machine is
#     shared: only ratios from one run compare);
#   - the last line is the verdict: `NAME: ratio R (target ...) ok|MISSED ...`,
#     and the exit status is 1 when any target of the script is missed.
set -euo pipefail
bench_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bench_root=$(cd "$bench_here/.." && pwd)
BENCH_BUILD=$(cd "${BENCH_BUILD:-$bench_root/build}" && pwd)
kubectl_etcd="$BENCH_BUILD/tools/kubectl-etcd/kubectl-etcd"
etcd_migrate="$BENCH_BUILD/tools/etcd-migrate/etcd-migrate"
# BENCH_TMPDIR (default /tmp) holds each script's scratch directory (and the
# environment it starts), e.g. one per person on a shared machine.
mkdir -p "${BENCH_TMPDIR:=/tmp}"
bench_tmp=$(mktemp -d "$BENCH_TMPDIR/bench-$(basename "$0" .sh).XXXXXX")
bench_cleanups=()
bench_cleanup() {
    local i
    for ((i = ${#bench_cleanups[@]} - 1; i >= 0; i--)); do eval "${bench_cleanups[$i]}" >/dev/null 2>&1 || true; done
    rm -rf "$bench_tmp"
}
trap bench_cleanup EXIT
on_exit() { bench_cleanups+=("$1"); }

# The programs of a packaging route's build, built or brought up to date
# under BENCH_ROUTES_DIR (default build-routes/): route_build ROUTE sets
# ROUTE_DIR. Routes:
#   - release: packaging/release-build.sh (release, -Dstatic_grpc=true), what
#     the krew archive, the container image and with it the in-cluster Job
#     ship; BENCH_BUILD itself when that script made it (not compiled twice);
#   - debian: configured as `dh --buildsystem=meson` configures it with
#     packaging/debian/rules (its DEB_BUILD_MAINT_OPTIONS for dpkg-buildflags,
#     --buildtype=plain, its -D options): Debian's shared gRPC by policy;
#   - default: `meson setup` with no option (debugoptimized, shared gRPC),
#     what the README's source build gives.
route_build() {
    local routes=${BENCH_ROUTES_DIR:-$bench_root/build-routes} targets
    targets=(tools/kubectl-etcd/kubectl-etcd tools/etcd-migrate/etcd-migrate)
    mkdir -p "$routes"
    ROUTE_DIR="$routes/$1"
    case $1 in
    release)
        if meson introspect --buildoptions "$BENCH_BUILD" 2>/dev/null |
            jq -e 'map({(.name): .value}) | add | .static_grpc == true and .buildtype == "release"' >/dev/null; then
            ROUTE_DIR=$BENCH_BUILD
        fi
        "$bench_root/packaging/release-build.sh" "$ROUTE_DIR" >"$routes/release.log" 2>&1 ||
            { tail -20 "$routes/release.log" >&2; return 1; } ;;
    debian)
        local rules="$bench_root/packaging/debian/rules" maint dh_args
        maint=$(sed -n 's/^export DEB_BUILD_MAINT_OPTIONS *= *//p' "$rules")
        read -r -a dh_args <<<"$(sed -n 's/.*dh_auto_configure -- *//p' "$rules")"
        (
            eval "$(DEB_BUILD_MAINT_OPTIONS="$maint" dpkg-buildflags --export=sh)"
            [ -f "$ROUTE_DIR/build.ninja" ] ||
                meson setup "$ROUTE_DIR" "$bench_root" --wrap-mode=nodownload --buildtype=plain --prefix=/usr "${dh_args[@]}"
            ninja -C "$ROUTE_DIR" "${targets[@]}"
        ) >"$routes/debian.log" 2>&1 || { tail -20 "$routes/debian.log" >&2; return 1; } ;;
    default)
        (
            [ -f "$ROUTE_DIR/build.ninja" ] || meson setup "$ROUTE_DIR" "$bench_root"
            ninja -C "$ROUTE_DIR" "${targets[@]}"
        ) >"$routes/default.log" 2>&1 || { tail -20 "$routes/default.log" >&2; return 1; } ;;
    *) echo "route_build: no route $1" >&2; return 2 ;;
    esac
}

# etcd 3.6's etcdctl from the testenv cache (built by tests/testenv/build).
etcd36_bin() { "$bench_root/tests/testenv/build" etcd36 | awk '{print $2}'; }

# Sources TESTENV_ENV_FILE, or starts an environment of this script's own.
bench_env() {
    if [ -z "${TESTENV_ENV_FILE:-}" ]; then
        local d="$bench_tmp/env"
        "$bench_root/tests/testenv/up" "$d" >/dev/null
        on_exit "'$bench_root/tests/testenv/down' '$d'"
        export TESTENV_ENV_FILE="$d/env"
    fi
    # shellcheck disable=SC1090
    . "$TESTENV_ENV_FILE"
    export TESTENV_DIR TESTENV_ENV_FILE KUBECONFIG
}

# An etcd cluster of etcd-cluster's own (registered with the environment when
# one is sourced): bench_etcd DIR ARGS...; sources DIR/cluster.env.
bench_etcd() {
    local d=$1; shift
    "$bench_root/tests/testenv/etcd-cluster" up --dir "$d" "$@" >"$d.log" 2>&1 || { cat "$d.log" >&2; return 1; }
    on_exit "'$bench_root/tests/testenv/etcd-cluster' down --dir '$d'"
    # shellcheck disable=SC1091
    . "$d/cluster.env"
}

# Side by side: ab NAME_A CMD_A NAME_B CMD_B — ROUNDS (default 5) rounds of
# hyperfine, each RUNS (default 10) runs of both commands, the order swapped
# every round. Sets A_MED/B_MED (median wall seconds of all runs) and prints
# one line per side. Failing commands count (health exits 1 on purpose).
ab() {
    local na=$1 ca=$2 nb=$3 cb=$4 rounds=${ROUNDS:-5} runs=${RUNS:-10} r
    : >"$bench_tmp/ab.a"; : >"$bench_tmp/ab.b"
    for ((r = 0; r < rounds; r++)); do
        if ((r % 2 == 0)); then
            hyperfine -N -i -w 1 -r "$runs" --export-json "$bench_tmp/ab.json" "$ca" "$cb" >/dev/null 2>&1
            jq -r '.results[0].times[]' "$bench_tmp/ab.json" >>"$bench_tmp/ab.a"
            jq -r '.results[1].times[]' "$bench_tmp/ab.json" >>"$bench_tmp/ab.b"
        else
            hyperfine -N -i -w 1 -r "$runs" --export-json "$bench_tmp/ab.json" "$cb" "$ca" >/dev/null 2>&1
            jq -r '.results[1].times[]' "$bench_tmp/ab.json" >>"$bench_tmp/ab.a"
            jq -r '.results[0].times[]' "$bench_tmp/ab.json" >>"$bench_tmp/ab.b"
        fi
    done
    A_MED=$(median "$bench_tmp/ab.a")
    B_MED=$(median "$bench_tmp/ab.b")
    printf '  %-44s median %8.1f ms  (%d runs)\n' "$na" "$(echo "$A_MED * 1000" | bc -l)" "$(wc -l <"$bench_tmp/ab.a")"
    printf '  %-44s median %8.1f ms  (%d runs)\n' "$nb" "$(echo "$B_MED * 1000" | bc -l)" "$(wc -l <"$bench_tmp/ab.b")"
}

median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }

# Peak RSS in MiB of one run: rss_mib OUTFILE CMD...; the command's output
# goes to OUTFILE. Returns the command's status.
rss_mib() {
    local out=$1; shift
    local rc=0
    /usr/bin/time -f '%M' -o "$bench_tmp/rss" "$@" >"$out" 2>&1 || rc=$?
    RSS=$(awk 'END {printf "%.1f", $1 / 1024}' "$bench_tmp/rss")
    return $rc
}

# Division with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

# One target: check LABEL VALUE OP LIMIT; prints it and records a miss.
bench_missed=0
check() {
    local label=$1 v=$2 op=$3 lim=$4
    if awk -v v="$v" -v l="$lim" -v op="$op" 'BEGIN {exit !(op == "<=" ? v <= l : op == "<" ? v < l : op == ">=" ? v >= l : v > l)}'; then
        echo "  target $label: $v $op $lim ok"
    else
        echo "  target $label: $v $op $lim MISSED"
        bench_missed=1
    fi
}

# The last line: verdict NAME SUMMARY; exits 1 when a target was missed.
verdict() {
    if ((bench_missed)); then echo "$1: $2 MISSED"; exit 1; fi
    echo "$1: $2 ok"
    exit 0
}

# The machine's CPU: `cpu_mark` before, `cpu_busy` after prints how many of
# its cores were busy on average in between (/proc/stat, all processes).
cpu_mark() { read -r _ cpu_a < <(head -1 /proc/stat); }
cpu_busy() {
    local b
    read -r _ b < <(head -1 /proc/stat)
    awk -v a="$cpu_a" -v b="$b" -v n="$(nproc)" 'BEGIN {
        na = split(a, x, " "); split(b, y, " "); t = 0
        for (i = 1; i <= na; i++) t += y[i] - x[i]
        idle = (y[4] - x[4]) + (y[5] - x[5])
        printf "%.2f of %d", n * (t - idle) / t, n }'
}
