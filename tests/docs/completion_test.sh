#!/usr/bin/env bash
# e2e: shell completion in real shells against the test apiserver. The
# scripts the build generated (build/completions) are loaded into bash (with
# Debian's bash-completion, COMP_WORDS as readline would split the line),
# zsh (an interactive zsh on a pseudo-terminal, Tab pressed, see
# zsh_complete.zsh) and fish (`complete -C`), and each must offer:
# subcommands and flags from the command table, fixed flag values, and live
# names asked through `__complete`: kubeconfig contexts, EtcdClusters,
# EtcdMembers and member pods of a cluster, EtcdSnapshots, for both programs.
# Objects are created in the test's own namespace (no operator, no etcd: the
# completion only lists them).
set -euo pipefail
: "${TESTENV_ENV_FILE:?an environment is needed (tests/testenv/up)}" "${BUILD_ROOT:?}" "${SOURCE_ROOT:?}"
# shellcheck disable=SC1090
. "$TESTENV_ENV_FILE"
here="$SOURCE_ROOT/tests/docs"
comp="$BUILD_ROOT/completions"
export PATH="$(dirname "$KUBECTL_ETCD"):$(dirname "$ETCD_MIGRATE"):$PATH"
fails=0
checks=0
fail() { printf 'FAIL: %s\n' "$*"; fails=$((fails + 1)); }
ns=compl-$$-$RANDOM
tmp=$(mktemp -d)
cleanup() {
  "$TESTENV_KUBECTL" delete namespace "$ns" --wait=false >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
k() { "$TESTENV_KUBECTL" "$@"; }

k create namespace "$ns" >/dev/null
objs="$tmp/objs.yaml"
{
  for c in alpha beta; do
    cat <<YAML
---
apiVersion: etcd-operator.cozystack.io/v1alpha2
kind: EtcdCluster
metadata: {name: $c, namespace: $ns}
spec: {replicas: 2, version: "3.6.11", storage: {size: 1Gi}}
YAML
    for i in 0 1; do
      cat <<YAML
---
apiVersion: etcd-operator.cozystack.io/v1alpha2
kind: EtcdMember
metadata:
  name: $c-$i
  namespace: $ns
  labels: {etcd-operator.cozystack.io/cluster: $c}
spec: {clusterName: $c, clusterToken: t, initialCluster: "$c-0=https://$c-0:2380", storage: {size: 1Gi}, version: "3.6.11"}
---
apiVersion: v1
kind: Pod
metadata:
  name: $c-$i
  namespace: $ns
  labels: {etcd-operator.cozystack.io/cluster: $c}
spec: {containers: [{name: etcd, image: etcd}]}
YAML
    done
  done
  cat <<YAML
---
apiVersion: etcd-operator.cozystack.io/v1alpha2
kind: EtcdSnapshot
metadata: {name: alpha-nightly, namespace: $ns}
spec: {clusterRef: {name: alpha}, destination: {pvc: {claimName: backups}}}
YAML
} >"$objs"
k apply -f "$objs" >/dev/null

# A kubeconfig with a second context (same user and server).
kc="$tmp/kubeconfig"
cp "$KUBECONFIG" "$kc"
KUBECONFIG="$kc" k config set-context other-ctx --cluster "$(KUBECONFIG="$kc" k config view -o jsonpath='{.contexts[0].context.cluster}')" \
  --user "$(KUBECONFIG="$kc" k config view -o jsonpath='{.contexts[0].context.user}')" --namespace "$ns" >/dev/null
export KUBECONFIG="$kc"

bash_complete() {
  bash --norc --noprofile -c '
    . /usr/share/bash-completion/bash_completion
    . "$1"
    line=$2
    COMP_LINE=$line
    COMP_POINT=${#line}
    # As readline splits: on blanks, and "=" (COMP_WORDBREAKS) is a word of its own.
    read -ra COMP_WORDS <<<"${line//=/ = }"
    [[ $line == *" " || $line == *"=" ]] && COMP_WORDS+=("")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    fn=$(complete -p "${COMP_WORDS[0]}" | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
    "$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' _ "$comp/${1%% *}" "$1" | sed '/^$/d' | sort
}
zsh_complete() { timeout 30 zsh -f "$here/zsh_complete.zsh" "$comp" "$1" | sort -u; }
fish_complete() {
  fish --no-config -c "source ${comp}/${1%% *}.fish; complete -C '$1'" | cut -f1 | sort
}

# expect LINE WORD...: every shell offers exactly WORDS (sorted), for LINE.
expect() {
  local line=$1; shift
  local want got shell
  local w bash_want=()
  want=$(printf '%s\n' "$@" | sort)
  # bash completes the part after "=" (a word break of readline).
  for w in "$@"; do [[ $line == *=* ]] && bash_want+=("${w#*=}") || bash_want+=("$w"); done
  for shell in bash zsh fish; do
    [ "$shell" = bash ] && want=$(printf '%s\n' "${bash_want[@]}" | sort)
    [ "$shell" = zsh ] && want=$(printf '%s\n' "$@" | sort)
    checks=$((checks + 1))
    got=$("${shell}_complete" "$line" 2>&1 || true)
    if [ "$got" != "$want" ]; then
      fail "$shell: '$line' offers [$(echo $got)], want [$(echo $want)]"
    fi
  done
}

# The command table.
expect "kubectl-etcd he" health
expect "kubectl-etcd snapshot " list save status
expect "kubectl-etcd alarm " disarm list
expect "kubectl-etcd mo" move-leader
expect "kubectl-etcd ce" certs
expect "kubectl-etcd rep" report
expect "etcd-migrate ad" adopt
expect "etcd-migrate " adopt verify version
# Flags and fixed values.
expect "kubectl-etcd health --con" --connect --context
expect "kubectl-etcd health --connect " auto direct port-forward
expect "kubectl-etcd status -o " json table wide yaml
expect "etcd-migrate adopt -o " json table text wide yaml
expect "kubectl-etcd alarm disarm --alarm " CORRUPT NOSPACE
# Live names from the kubeconfig and the apiserver.
expect "kubectl-etcd health --context " "$(k config current-context)" other-ctx
expect "kubectl-etcd health -n $ns --cluster " alpha beta
expect "kubectl-etcd certs -n $ns -c " alpha beta
expect "kubectl-etcd report -n $ns --cluster " alpha beta
expect "kubectl-etcd health --context other-ctx -c " alpha beta
expect "kubectl-etcd defrag -n $ns -c alpha --member " alpha-0 alpha-1
expect "kubectl-etcd status -n $ns -c beta -p " beta-0 beta-1
expect "kubectl-etcd move-leader -n $ns -c alpha al" alpha-0 alpha-1
expect "kubectl-etcd snapshot status -n $ns " alpha-nightly
expect "kubectl-etcd health -n $ns --cluster=b" --cluster=beta
expect "etcd-migrate verify -n $ns " alpha beta
expect "kubectl-etcd health -n ${ns:0:9}" "$ns"
# Hidden commands stay hidden.
expect "kubectl-etcd __" 

# kubectl's own completion of `kubectl etcd ...` through kubectl_complete-etcd.
mkdir "$tmp/bin"
cp "$comp/kubectl_complete-etcd" "$tmp/bin/"
chmod +x "$tmp/bin/kubectl_complete-etcd"
kubectl_says() { PATH="$tmp/bin:$PATH" "$TESTENV_KUBECTL" __complete "$@" 2>/dev/null | grep -v '^:' | cut -f1 | sort; }
checks=$((checks + 1))
got=$(kubectl_says etcd snapshot "")
[ "$got" = "$(printf '%s\n' list save status)" ] || fail "kubectl __complete etcd snapshot '': [$(echo $got)]"
checks=$((checks + 1))
got=$(kubectl_says etcd health -n "$ns" -c "")
[ "$got" = "$(printf '%s\n' alpha beta)" ] || fail "kubectl __complete etcd health -n NS -c '': [$(echo $got)]"

echo "completion: $checks checks, $fails failures"
[ "$fails" -eq 0 ]
