#!/usr/bin/env bash
# e2e: the least-privilege roles of packaging/rbac/. Each program runs as a
# user (a client certificate minted from the test apiserver's CA) bound only
# to its role, against real clusters:
#   - kubectl-etcd-view: health, status, check, member list, alarm list,
#     snapshot save and list on a native cluster (TLS + auth) exit as they do
#     for the admin;
#   - etcd-migrate-plan: the plan of a legacy cluster (TLS + auth) exits 0;
#   - etcd-migrate-apply: adopt --apply and verify exit 0.
# Then a copy of a role with one permission less, bound to another user,
# fails with exit 7 and a one-line error naming the verb and the resource.
set -euo pipefail
: "${TESTENV_ENV_FILE:?an environment is needed (tests/testenv/up)}" "${SOURCE_ROOT:?}" "${KUBECTL_ETCD:?}" "${ETCD_MIGRATE:?}"
# shellcheck disable=SC1090
. "$TESTENV_ENV_FILE"
testenv="$SOURCE_ROOT/tests/testenv"
rbac="$SOURCE_ROOT/packaging/rbac"
id=$$-$RANDOM
ns=rbac-$id
legacy_ns=rbac-legacy-$id
tmp=$(mktemp -d)
# shellcheck source=tests/docs/rbac_lib.sh
. "$SOURCE_ROOT/tests/docs/rbac_lib.sh"
cleanup() {
  "$testenv/native-fixture" down --dir "$tmp/native" >/dev/null 2>&1 || true
  "$testenv/legacy-fixture" down --dir "$tmp/legacy" >/dev/null 2>&1 || true
  k delete clusterrolebinding,clusterrole -l "rbac-test=$id" --wait=false >/dev/null 2>&1 || true
  k delete rolebinding,role -n etcd-operator-system -l "rbac-test=$id" --wait=false >/dev/null 2>&1 || true
  k delete namespace "$ns" "$legacy_ns" "$legacy_ns-op" --wait=false >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# The clusters, in parallel with the users and roles.
"$testenv/native-fixture" up --name etcd --namespace "$ns" --members 1 --tls --auth --dir "$tmp/native" \
  >"$tmp/native.log" 2>&1 &
native_pid=$!
"$testenv/legacy-fixture" up --name old --namespace "$legacy_ns" --operator-namespace "$legacy_ns-op" --replicas 1 \
  --tls --auth --dir "$tmp/legacy" >"$tmp/legacy.log" 2>&1 &
legacy_pid=$!

R=etcd-operator-cli
view=$(user "view-$id")
view_minus=$(user "view-minus-$id")
plan=$(user "plan-$id")
plan_minus=$(user "plan-minus-$id")
apply=$(user "apply-$id")
role "$rbac/kubectl-etcd-view.yaml" ClusterRole "$R:kubectl-etcd-view" "view-$id"
role "$rbac/kubectl-etcd-view.yaml" ClusterRole "$R:kubectl-etcd-view" "view-minus-$id" etcdmembers list
role "$rbac/etcd-migrate-plan.yaml" ClusterRole "$R:etcd-migrate-plan" "plan-$id"
role "$rbac/etcd-migrate-plan.yaml" ClusterRole "$R:etcd-migrate-plan" "plan-minus-$id" etcdclusters list
role "$rbac/etcd-migrate-apply.yaml" ClusterRole "$R:etcd-migrate-apply" "apply-$id"
bind ClusterRole "view-$id" "view-$id"
bind ClusterRole "view-minus-$id" "view-minus-$id"
bind ClusterRole "plan-$id" "plan-$id"
bind ClusterRole "plan-minus-$id" "plan-minus-$id"
bind ClusterRole "apply-$id" "apply-$id"
# The operator-state Role lives in the operator's namespace (shared: never deleted).
k create namespace etcd-operator-system --dry-run=client -o yaml | k apply -f - >/dev/null
role "$rbac/kubectl-etcd-view.yaml" Role "$R:kubectl-etcd-operator-state" "op-state-$id"
bind Role "op-state-$id" "view-$id" etcd-operator-system

wait "$native_pid" || { cat "$tmp/native.log"; exit 1; }
wait "$legacy_pid" || { cat "$tmp/legacy.log"; exit 1; }

# kubectl-etcd as the view user: the same exit code as the admin's, never 7.
ke() { "$KUBECTL_ETCD" "$@" -n "$ns" -c etcd --connect direct; }
for cmd in "health" "status" "check" "member list" "alarm list"; do
  # shellcheck disable=SC2086
  set +e; KUBECONFIG="$KUBECONFIG" ke $cmd >/dev/null 2>&1; admin_rc=$?; set -e
  [ "$admin_rc" != 7 ] || fail "admin: kubectl-etcd $cmd exits 7"
  # shellcheck disable=SC2086
  check "view: kubectl-etcd $cmd" "$admin_rc" env KUBECONFIG="$view" "$KUBECTL_ETCD" $cmd -n "$ns" -c etcd --connect direct
done
check "view: kubectl-etcd snapshot save" 0 env KUBECONFIG="$view" "$KUBECTL_ETCD" snapshot save -n "$ns" -c etcd \
  --connect direct "$tmp/etcd.db"
check "view: kubectl-etcd snapshot list" 0 env KUBECONFIG="$view" "$KUBECTL_ETCD" snapshot list -n "$ns"
denied "view minus list etcdmembers: member list" list etcdmembers \
  env KUBECONFIG="$view_minus" "$KUBECTL_ETCD" member list -n "$ns" -c etcd --connect direct

# etcd-migrate: plan, plan with one permission less, apply, verify.
legacy_ctl=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["legacyController"])' "$tmp/legacy/fixture.json")
new_ctl=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["newController"])' "$tmp/legacy/fixture.json")
adopt=(adopt -n "$legacy_ns" --connect direct --legacy-controller "$legacy_ctl" --new-controller "$new_ctl")
check "plan: etcd-migrate adopt" 0 env KUBECONFIG="$plan" "$ETCD_MIGRATE" "${adopt[@]}"
denied "plan minus list etcdclusters: etcd-migrate adopt" list etcdclusters \
  env KUBECONFIG="$plan_minus" "$ETCD_MIGRATE" "${adopt[@]}"
check "apply: etcd-migrate adopt --apply" 0 \
  env KUBECONFIG="$apply" "$ETCD_MIGRATE" "${adopt[@]}" --apply --yes --backup-dir "$tmp"
check "apply: etcd-migrate verify" 0 env KUBECONFIG="$apply" "$ETCD_MIGRATE" verify -n "$legacy_ns" --connect direct
# The adopted cluster is an operator cluster: kubectl-etcd-view reads it too.
set +e; "$KUBECTL_ETCD" status -n "$legacy_ns" -c old --connect direct >/dev/null 2>&1; admin_rc=$?; set -e
check "view: kubectl-etcd status of the adopted cluster" "$admin_rc" \
  env KUBECONFIG="$view" "$KUBECTL_ETCD" status -n "$legacy_ns" -c old --connect direct
[ "$admin_rc" = 0 ] || fail "admin: kubectl-etcd status of the adopted cluster exits $admin_rc"

echo "rbac: $checks checks, $fails failures"
[ "$fails" -eq 0 ]
