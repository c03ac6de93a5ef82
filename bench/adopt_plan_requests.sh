#!/usr/bin/env bash
# Kubernetes API requests of one `etcd-migrate adopt` dry-run of a 3-member
# TLS+auth legacy cluster, counted from the program's own -v request log
# (discovery, lists, Secret reads and server-side dry-runs included), against
# the budget of issue 14 (<= 60 for a whole adoption). Prints the ratio last;
# exits 1 when the budget is missed.
#
#   bench/adopt_plan_requests.sh            # starts and stops its own environment
#   TESTENV_ENV_FILE=/tmp/env/env bench/adopt_plan_requests.sh   # reuses one
set -euo pipefail
cd "$(dirname "$0")/.."
budget=60
own=""
if [ -z "${TESTENV_ENV_FILE:-}" ]; then
  own=$(mktemp -d /tmp/bench-adopt.XXXXXX)
  tests/testenv/up "$own" >/dev/null
  export TESTENV_ENV_FILE="$own/env"
fi
. "$TESTENV_ENV_FILE"
ns=bench-adopt-$$
fx="$TESTENV_DIR/fixtures/$ns.etcd"
cleanup() {
  tests/testenv/legacy-fixture down --dir "$fx" >/dev/null 2>&1 || true
  "$TESTENV_KUBECTL" delete ns "$ns" --wait=false >/dev/null 2>&1 || true
  [ -n "$own" ] && tests/testenv/down "$own" >/dev/null 2>&1 || true
}
trap cleanup EXIT
"$TESTENV_KUBECTL" create ns "$ns" >/dev/null
tests/testenv/legacy-fixture up --name etcd --namespace "$ns" --version 3.6 --tls --auth \
  --operator-namespace "$ns-op" --dir "$fx" >/dev/null 2>&1
log=$(mktemp)
build/tools/etcd-migrate/etcd-migrate adopt -n "$ns" --connect direct -o json -v \
  --legacy-controller "$ns-op/etcd-operator-controller-manager" --new-controller "$ns-op/etcd-operator" \
  >/dev/null 2>"$log" || true
n=$(grep -cE '^(GET|POST|PUT|PATCH|DELETE) /' "$log" || true)
summary=$(grep 'kubernetes API:' "$log" || true)
rm -f "$log"
echo "dry-run of one 3-member cluster: $n requests ($summary)"
awk -v n="$n" -v b="$budget" 'BEGIN { printf "ratio to the budget of %d: %.2f\n", b, n / b; exit (n <= b ? 0 : 1) }'
