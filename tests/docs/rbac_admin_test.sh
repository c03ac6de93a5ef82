#!/usr/bin/env bash
# e2e: kubectl-etcd's roles of packaging/rbac/ beyond the direct reads of
# rbac_test.sh, each run as a user (a client certificate minted from the test
# apiserver's CA) bound only to its role, with RoleBindings in the cluster's
# namespace (where the fixture's operator coordinates are too), against a
# native TLS+auth cluster whose new pods the pod runner starts:
#   - kubectl-etcd-view: status and health over --connect port-forward;
#   - kubectl-etcd-snapshot-cr (with view): snapshot save --via-cr creates the
#     EtcdSnapshot and reports the verdict (the test plays the operator's
#     snapshot controller: none runs here);
#   - kubectl-etcd-report (with view): report writes its bundle; without
#     `list secrets` it writes nothing (the bundle could not be cleaned);
#   - kubectl-etcd-defrag-cr (with view): defrag --via-cr creates the
#     EtcdDefrag and reports the verdict (the test plays the controller),
#     and deletes one that nothing picks up;
#   - kubectl-etcd-restore (alone): restore creates the new EtcdCluster from
#     a PVC source;
#   - kubectl-etcd-break-glass (with view): member add --no-promote, promote
#     and remove --scale-down with --break-glass --skip-operator-check, then
#     add with --stop-operator (the operator's Deployment scaled and restored).
# Each time a copy of the role with one permission less fails with exit 7, a
# one-line error naming the verb and the resource, and changes nothing.
set -euo pipefail
: "${TESTENV_ENV_FILE:?an environment is needed (tests/testenv/up)}" "${SOURCE_ROOT:?}" "${KUBECTL_ETCD:?}"
# shellcheck disable=SC1090
. "$TESTENV_ENV_FILE"
testenv="$SOURCE_ROOT/tests/testenv"
rbac="$SOURCE_ROOT/packaging/rbac"
id=$$-$RANDOM
ns=rbac-adm-$id
tmp=$(mktemp -d)
# shellcheck source=tests/docs/rbac_lib.sh
. "$SOURCE_ROOT/tests/docs/rbac_lib.sh"
cleanup() {
  jobs -p | xargs -r kill 2>/dev/null || true
  "$testenv/native-fixture" down --dir "$tmp/native" >/dev/null 2>&1 || true
  k delete clusterrole -l "rbac-test=$id" --wait=false >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

"$testenv/native-fixture" up --name etcd --namespace "$ns" --members 1 --version 3.6 --tls --auth --pod-runner \
  --dir "$tmp/native" >"$tmp/native.log" 2>&1 &
native_pid=$!

R=etcd-operator-cli
view=$(user "view-$id")
view_minus=$(user "view-minus-$id")
snap=$(user "snap-$id")
snap_minus=$(user "snap-minus-$id")
rep=$(user "rep-$id")
rep_minus=$(user "rep-minus-$id")
dfr=$(user "dfr-$id")
dfr_minus=$(user "dfr-minus-$id")
rst=$(user "rst-$id")
rst_minus=$(user "rst-minus-$id")
bg=$(user "bg-$id")
bg_minus=$(user "bg-minus-$id")
role "$rbac/kubectl-etcd-view.yaml" ClusterRole "$R:kubectl-etcd-view" "view-$id"
role "$rbac/kubectl-etcd-view.yaml" ClusterRole "$R:kubectl-etcd-view" "view-minus-$id" pods/portforward create
role "$rbac/kubectl-etcd-snapshot-cr.yaml" ClusterRole "$R:kubectl-etcd-snapshot-cr" "snap-$id"
role "$rbac/kubectl-etcd-snapshot-cr.yaml" ClusterRole "$R:kubectl-etcd-snapshot-cr" "snap-minus-$id" etcdsnapshots create
role "$rbac/kubectl-etcd-report.yaml" ClusterRole "$R:kubectl-etcd-report" "rep-$id"
role "$rbac/kubectl-etcd-report.yaml" ClusterRole "$R:kubectl-etcd-report" "rep-minus-$id" secrets list
role "$rbac/kubectl-etcd-defrag-cr.yaml" ClusterRole "$R:kubectl-etcd-defrag-cr" "dfr-$id"
role "$rbac/kubectl-etcd-defrag-cr.yaml" ClusterRole "$R:kubectl-etcd-defrag-cr" "dfr-minus-$id" etcddefrags create
role "$rbac/kubectl-etcd-restore.yaml" ClusterRole "$R:kubectl-etcd-restore" "rst-$id"
role "$rbac/kubectl-etcd-restore.yaml" ClusterRole "$R:kubectl-etcd-restore" "rst-minus-$id" etcdclusters create
role "$rbac/kubectl-etcd-break-glass.yaml" ClusterRole "$R:kubectl-etcd-break-glass" "bg-$id"
role "$rbac/kubectl-etcd-break-glass.yaml" ClusterRole "$R:kubectl-etcd-break-glass" "bg-minus-$id" etcdclusters patch

wait "$native_pid" || { cat "$tmp/native.log"; exit 1; }
etcd_dir=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["etcdDir"])' "$tmp/native/fixture.json")
# The fixture's operator runs in the cluster's namespace (--operator NS/etcd-operator).
ROLE_NAMESPACE=$ns role "$rbac/kubectl-etcd-view.yaml" Role "$R:kubectl-etcd-operator-state" "op-state-$id"
bind ClusterRole "view-$id" "view-$id" "$ns"
bind Role "op-state-$id" "view-$id" "$ns"
bind ClusterRole "view-minus-$id" "view-minus-$id" "$ns"
bind Role "op-state-$id" "view-minus-$id" "$ns"
for u in snap snap-minus rep rep-minus dfr dfr-minus bg bg-minus; do
  bind ClusterRole "view-$id" "$u-$id" "$ns"
  bind Role "op-state-$id" "$u-$id" "$ns"
  bind ClusterRole "$u-$id" "$u-$id" "$ns"
done
for u in rst rst-minus; do
  bind ClusterRole "$u-$id" "$u-$id" "$ns"
done

ke() { "$KUBECTL_ETCD" "$@" -n "$ns" -c etcd --operator "$ns/etcd-operator"; }
# etcd's own view, as root: "<voters> <learners>".
etcd_members() {
  "$testenv/etcd-cluster" ctl --dir "$etcd_dir" -- member list -w json |
    python3 -c 'import json,sys; m=json.load(sys.stdin)["members"]; l=sum(1 for x in m if x.get("isLearner")); print(len(m)-l, l)'
}
replicas() { k get etcdclusters.etcd-operator.cozystack.io etcd -n "$ns" -o jsonpath='{.spec.replicas}/{.status.observed.replicas}'; }
json_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
# via_cr LABEL RESOURCE NAME STATUS COMMAND...: runs COMMAND (a --via-cr run
# that creates the object RESOURCE/NAME and waits for it) in the background,
# plays the operator's controller by writing STATUS once the object exists,
# and wants exit 0; the output stays in $tmp/NAME.out and $tmp/NAME.err.
via_cr() {
  local label=$1 resource=$2 name=$3 status=$4 pid
  shift 4
  ( set +e; "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; echo $? >"$tmp/$name.rc" ) &
  pid=$!
  for _ in $(seq 1 300); do
    k get "$resource" "$name" -n "$ns" >/dev/null 2>&1 && break
    sleep 0.1
  done
  k patch "$resource" "$name" -n "$ns" --subresource=status --type=merge -p "$status" >/dev/null ||
    fail "$label: no $resource $name to complete"
  wait "$pid" || true
  checks=$((checks + 1))
  [ "$(cat "$tmp/$name.rc")" = 0 ] || fail "$label: exit $(cat "$tmp/$name.rc"), want 0: $(cat "$tmp/$name.err")"
}

# --- kubectl-etcd-view over port-forward: the admin's exit code, and 0.
for cmd in status health; do
  set +e; ke "$cmd" --connect port-forward >/dev/null 2>&1; admin_rc=$?; set -e
  same "admin: kubectl-etcd $cmd --connect port-forward" "$admin_rc" 0
  check "view: kubectl-etcd $cmd --connect port-forward" "$admin_rc" env KUBECONFIG="$view" \
    "$KUBECTL_ETCD" "$cmd" -n "$ns" -c etcd --operator "$ns/etcd-operator" --connect port-forward
done
denied "view minus create pods/portforward: status" create pods/portforward \
  env KUBECONFIG="$view_minus" "$KUBECTL_ETCD" status -n "$ns" -c etcd --operator "$ns/etcd-operator" \
  --connect port-forward

# --- kubectl-etcd-snapshot-cr: the EtcdSnapshot created by the user; the
# test writes the terminal status the operator's controller would.
snapshots=etcdsnapshots.etcd-operator.cozystack.io
via_cr "snap: snapshot save --via-cr" "$snapshots" s1 '{"status":{"phase":"Complete",
  "artifact":{"uri":"file:///snapshot/data/s1.db","sizeBytes":20512,"checksum":"sha256:ab"},
  "conditions":[{"type":"Ready","status":"True","reason":"SnapshotStored","message":"stored",
  "lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' \
  env KUBECONFIG="$snap" "$KUBECTL_ETCD" snapshot save --via-cr --name s1 --pvc backups -o json --timeout 60s \
  -n "$ns" -c etcd --operator "$ns/etcd-operator" --connect direct
same "snap: the verdict" "$(json_field "$tmp/s1.out" phase 2>/dev/null)" Complete
same "snap: the EtcdSnapshot's cluster" \
  "$(k get "$snapshots" s1 -n "$ns" -o jsonpath='{.spec.clusterRef.name}/{.spec.destination.pvc.claimName}')" etcd/backups
denied "snapshot-cr minus create etcdsnapshots: snapshot save --via-cr" create etcdsnapshots \
  env KUBECONFIG="$snap_minus" "$KUBECTL_ETCD" snapshot save --via-cr --name s2 --pvc backups --timeout 10s \
  -n "$ns" -c etcd --operator "$ns/etcd-operator" --connect direct
same "snapshot-cr minus: nothing created" "$(k get "$snapshots" -n "$ns" -o name | tr '\n' ' ')" \
  "etcdsnapshot.etcd-operator.cozystack.io/s1 "

# --- kubectl-etcd-report: the bundle as the user; one permission less and
# nothing is written.
check "report: report --file" 0 env KUBECONFIG="$rep" "$KUBECTL_ETCD" report --file "$tmp/bundle.tar.gz" \
  -n "$ns" -c etcd --operator "$ns/etcd-operator" --connect direct
same "report: the bundle's summary" \
  "$(tar -xzOf "$tmp/bundle.tar.gz" --wildcards '*/summary.json' | python3 -c 'import json,sys; print(json.load(sys.stdin)["complete"])')" \
  True
denied "report minus list secrets: report" list secrets \
  env KUBECONFIG="$rep_minus" "$KUBECTL_ETCD" report --file "$tmp/bundle-minus.tar.gz" \
  -n "$ns" -c etcd --operator "$ns/etcd-operator" --connect direct
same "report minus: nothing written" "$(ls "$tmp" | grep -c '^bundle-minus' || true)" 0

# --- kubectl-etcd-defrag-cr: the EtcdDefrag created by the user; the test
# writes the terminal status the operator's controller would.
defrags=etcddefrags.etcd-operator.cozystack.io
via_cr "defrag-cr: defrag --via-cr" "$defrags" d1 '{"status":{"phase":"Complete","defragmented":0,"members":[]}}' \
  env KUBECONFIG="$dfr" "$KUBECTL_ETCD" defrag --via-cr --name d1 -o json --timeout 60s \
  -n "$ns" -c etcd --operator "$ns/etcd-operator" --connect direct
same "defrag-cr: the EtcdDefrag's cluster" "$(k get "$defrags" d1 -n "$ns" -o jsonpath='{.spec.clusterRef.name}')" etcd
# Nothing writes a status (no controller here): refused, and the role may delete it again.
check "defrag-cr: defrag --via-cr that nothing picks up" 3 env KUBECONFIG="$dfr" "$KUBECTL_ETCD" defrag --via-cr \
  --name d3 --timeout 3s -n "$ns" -c etcd --operator "$ns/etcd-operator" --connect direct
grep -q "the EtcdDefrag was deleted" "$tmp/err" || fail "defrag-cr: no deletion said: $(cat "$tmp/err")"
denied "defrag-cr minus create etcddefrags: defrag --via-cr" create etcddefrags \
  env KUBECONFIG="$dfr_minus" "$KUBECTL_ETCD" defrag --via-cr --name d2 --timeout 10s \
  -n "$ns" -c etcd --operator "$ns/etcd-operator" --connect direct
same "defrag-cr minus: nothing created" "$(k get "$defrags" -n "$ns" -o name | tr '\n' ' ')" \
  "etcddefrag.etcd-operator.cozystack.io/d1 "

# --- kubectl-etcd-restore: a new EtcdCluster from a file in an existing
# claim (restore reads the claim, never its content).
k apply -n "$ns" -f - >/dev/null <<'YAML'
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: restore-src
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
YAML
check "restore: restore --pvc" 0 env KUBECONFIG="$rst" "$KUBECTL_ETCD" restore restored --version 3.6.11 \
  --replicas 1 --pvc restore-src --pvc-path etcd/s1.db -n "$ns"
same "restore: the new EtcdCluster's source" \
  "$(k get etcdclusters.etcd-operator.cozystack.io restored -n "$ns" \
    -o jsonpath='{.spec.bootstrap.restore.source.pvc.claimName}/{.spec.bootstrap.restore.source.pvc.subPath}')" \
  restore-src/etcd/s1.db
denied "restore minus create etcdclusters: restore" create etcdclusters \
  env KUBECONFIG="$rst_minus" "$KUBECTL_ETCD" restore restored2 --version 3.6.11 --replicas 1 \
  --pvc restore-src --pvc-path etcd/s1.db -n "$ns"
same "restore minus: nothing created" \
  "$(k get etcdclusters.etcd-operator.cozystack.io restored2 -n "$ns" --ignore-not-found -o name)" ""
# The restored cluster is not part of what follows (no operator runs here).
k delete etcdclusters.etcd-operator.cozystack.io restored -n "$ns" --wait=false >/dev/null

# --- kubectl-etcd-break-glass: the surgery as the user.
bgm() {
  local kc=$1; shift
  env KUBECONFIG="$kc" "$KUBECTL_ETCD" member "$@" -n "$ns" -c etcd --operator "$ns/etcd-operator" \
    --connect direct --timeout 120s
}
glass=(--break-glass --skip-operator-check --yes)
check "break-glass: member add --no-promote" 0 bgm "$bg" add --no-promote -o json "${glass[@]}"
m2=$(json_field "$tmp/out" member 2>/dev/null || echo no-member)
[ "$m2" != no-member ] || fail "break-glass: member add printed no member: $(cat "$tmp/out")"
same "break-glass: etcd after add --no-promote (voters learners)" "$(etcd_members)" "1 1"
same "break-glass: replicas after add" "$(replicas)" 2/2
check "break-glass: member promote" 0 bgm "$bg" promote "$m2" "${glass[@]}"
same "break-glass: etcd after promote" "$(etcd_members)" "2 0"
same "break-glass: isVoter and role label after promote" \
  "$(k get etcdmember "$m2" -n "$ns" -o jsonpath='{.status.isVoter}')/$(k get pod "$m2" -n "$ns" \
    -o jsonpath='{.metadata.labels.etcd-operator\.cozystack\.io/role}')" true/voter
check "break-glass: member remove --scale-down" 0 bgm "$bg" remove "$m2" --scale-down "${glass[@]}"
same "break-glass: etcd after remove" "$(etcd_members)" "1 0"
same "break-glass: replicas after remove" "$(replicas)" 1/1
same "break-glass: the EtcdMember is gone" "$(k get etcdmember "$m2" -n "$ns" --ignore-not-found -o name)" ""

denied "break-glass minus patch etcdclusters: member add" patch etcdclusters \
  bgm "$bg_minus" add "${glass[@]}"
same "break-glass minus: etcd unchanged" "$(etcd_members)" "1 0"
same "break-glass minus: replicas unchanged" "$(replicas)" 1/1
same "break-glass minus: no new EtcdMember" "$(k get etcdmembers -n "$ns" -o name | wc -l)" 1

# --stop-operator: the operator (1 replica, its Lease about to expire) is
# scaled to 0 for the surgery and its replicas restored afterwards.
k scale deployment etcd-operator -n "$ns" --replicas=1 >/dev/null
k patch lease aa20b3a9.etcd-operator.cozystack.io -n "$ns" --type=merge -p '{"spec":{"leaseDurationSeconds":1}}' \
  >/dev/null
check "break-glass: member add --stop-operator" 0 bgm "$bg" add --break-glass --stop-operator --yes -o json
same "break-glass: etcd after add --stop-operator" "$(etcd_members)" "2 0"
same "break-glass: the operator's replicas restored" \
  "$(k get deployment etcd-operator -n "$ns" -o jsonpath='{.spec.replicas}')" 1

echo "rbac-admin: $checks checks, $fails failures"
[ "$fails" -eq 0 ]
