# Sourced by growth.sh after fleet.sh: a kubeconfig whose requests the
# apiserver's priority and fairness squeezes into a priority level of one
# concurrency share that lends and borrows nothing and rejects instead of
# queueing, so that requests beyond its seats are answered 429 at once. A
# level's seats are the server's concurrency limit shared out by nominal
# shares (one share of the default levels' 245 still makes 3 seats), so a
# ballast level no flow uses holds 10000 shares: one seat is left. For an
# environment of the bench's own: the other levels shrink as well. The
# environment's admin is in system:masters, which APF exempts; this
# identity is a ServiceAccount bound to cluster-admin instead.
apf_kubeconfig() { # NAME OUT: writes the kubeconfig to OUT
    local name=$1 out=$2
    "$TESTENV_KUBECTL" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ServiceAccount
metadata: {name: $name, namespace: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: $name}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: $name, namespace: default}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: $name}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 1
    lendablePercent: 0
    borrowingLimitPercent: 0
    limitResponse: {type: Reject}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: $name-ballast}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 10000
    lendablePercent: 0
    limitResponse: {type: Reject}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: $name}
spec:
  priorityLevelConfiguration: {name: $name}
  matchingPrecedence: 100
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: ServiceAccount, serviceAccount: {name: $name, namespace: default}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"]}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
EOF
    local token
    token=$("$TESTENV_KUBECTL" -n default create token "$name" --duration 2h)
    "$TESTENV_KUBECTL" config view --raw --minify >"$out"
    KUBECONFIG=$out "$TESTENV_KUBECTL" config set-credentials apf-user --token "$token" >/dev/null
    KUBECONFIG=$out "$TESTENV_KUBECTL" config set-context --current --user apf-user >/dev/null
}
# Priority and fairness's 429 answers to etcd-operator-cli in the audit log
# after byte OFFSET; not those of a resource whose watch cache is still
# filling ("storage is (re)initializing"), which a fresh apiserver gives the
# first list of each custom resource.
rejected_since() {
    tail -c +$(($1 + 1)) "$audit" |
        jq -r 'select((.userAgent // "" | startswith("etcd-operator-cli")) and .responseStatus.code == 429
                      and (.responseStatus.message // "" | test("initializing") | not)) | .auditID' |
        sort -u | wc -l
}
