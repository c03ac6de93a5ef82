# Sourced by adopt.sh and growth.sh after lib.sh and bench_env: legacy
# clusters laid out by the fixture, adopted by this suite or by the
# reference Go etcd-migrate (tests/testenv/build operator), and what the
# audit log counts. Needs `audit` set to the environment's audit log.
fixture() { # NS NAME ARGS...
    local n=$1 c=$2; shift 2
    "$bench_root/tests/testenv/legacy-fixture" up --name "$c" --namespace "$n" --operator-namespace "$n-op" \
        --dir "$TESTENV_DIR/fixtures/$n.$c" "$@" >"$bench_tmp/fixture.$n.$c.log" 2>&1 ||
        { cat "$bench_tmp/fixture.$n.$c.log" >&2; return 1; }
}
unfixture() { "$bench_root/tests/testenv/legacy-fixture" down --dir "$TESTENV_DIR/fixtures/$1.$2"; }
adopt() { # NS ARGS...
    local n=$1; shift
    "$etcd_migrate" adopt -n "$n" --connect direct --legacy-controller "$n-op/etcd-operator-controller-manager" \
        --new-controller "$n-op/etcd-operator" "$@"
}
# Requests of etcd-operator-cli in the audit log after byte OFFSET.
requests_since() {
    tail -c +$(($1 + 1)) "$audit" | jq -r 'select(.userAgent // "" | startswith("etcd-operator-cli")) | .auditID' | sort -u | wc -l
}

reference=${TESTENV_OPERATOR_BIN:-}/etcd-migrate
[ -x "$reference" ] || reference="$("$bench_root/tests/testenv/build" operator | awk '{print $2}')/etcd-migrate"
ref_adopt() { # NS ARGS...: the reference, with the same coordinates
    local n=$1; shift
    "$reference" -k "$KUBECONFIG" -n "$n" --legacy-controller "$n-op/etcd-operator-controller-manager" \
        --new-controller "$n-op/etcd-operator" "$@"
}
# Every legacy cluster of NS adopted: an EtcdCluster of the new API each, and
# every pod controlled by an EtcdMember.
all_adopted() { # NS COUNT
    local clusters pods
    clusters=$("$TESTENV_KUBECTL" -n "$1" get etcdclusters.etcd-operator.cozystack.io -o json | jq '.items | length')
    pods=$("$TESTENV_KUBECTL" -n "$1" get pods -o json |
        jq '[.items[] | select(any(.metadata.ownerReferences[]?; .controller and .kind == "EtcdMember"))] | length')
    [ "$clusters" = "$2" ] && [ "$pods" -ge "$2" ]
}
# Seconds from T0 until no StatefulSet is left in NS.
statefulsets_gone_after() { # NS T0
    while [ "$("$TESTENV_KUBECTL" -n "$1" get statefulsets -o name | wc -l)" != 0 ]; do sleep 0.2; done
    echo "$(date +%s.%N) - $2" | bc -l
}
now() { date +%s.%N; }

# A fleet of COUNT legacy clusters f0..f<COUNT-1> in NS (fixture ARGS each,
# default one member), set up 4 at a time, and taken down. Each fleet is set
# up just before its run and taken down right after: an adopted fleet's
# legacy EtcdClusters stay Terminating while the legacy webhooks exist, and
# the garbage collector retries them (a GET and a PATCH each, several a
# second), which would load the apiserver under the next fleet's run. The
# clusters share the namespace; f0, made once the others are, registers the
# legacy webhooks (made beside another cluster's create, they refused it:
# their Service had no endpoints yet).
fleet_up() { # NS COUNT [ARGS...]
    local n=$1 count=$2 i
    shift 2
    local args=("$@")
    ((${#args[@]})) || args=(--replicas 1)
    for i in $(seq 1 $((count - 1))); do on_exit "unfixture $n f$i"; echo "$i"; done |
        xargs -r -P 4 -L 1 bash -c "$(declare -f fixture); bench_root='$bench_root' bench_tmp='$bench_tmp' TESTENV_DIR='$TESTENV_DIR' \
        fixture '$n' f\$0 ${args[*]} --skip-webhooks"
    on_exit "unfixture $n f0"
    fixture "$n" f0 "${args[@]}"
}
fleet_down() { # NS COUNT, once its figures are taken
    seq 0 $(($2 - 1)) | xargs -P 4 -I{} "$bench_root/tests/testenv/legacy-fixture" down --dir "$TESTENV_DIR/fixtures/$1.f{}" >/dev/null 2>&1 || true
    while "$TESTENV_KUBECTL" get namespace "$1" "$1-op" >/dev/null 2>&1; do sleep 0.5; done
}
