#!/usr/bin/env bash
# e2e: the test environment itself. Against a running environment
# (TESTENV_ENV_FILE = its env file) or, if unset, one it brings up and tears
# down. Uses its own namespaces and etcd clusters, so it runs in parallel
# with other tests against one shared apiserver.
#
# Checks: the apiserver reports v1.36.3; legacy fixtures with etcd 3.4, 3.5
# and 3.6 (plain, TLS, TLS+auth) list their pods through label selectors with
# the built kubectl; a key is written and read on every member of each; the
# legacy webhooks refuse an UPDATE of a legacy EtcdCluster at once; the
# garbage collector deletes a dependent after its owner (background) and
# strips the reference on an Orphan delete; the S3 server stores and returns
# an object under a correctly signed request and refuses a wrong secret;
# fixtures sharing operator coordinates count their users: a `down` removes
# only what no other fixture uses, and an `up` waits for a namespace still
# terminating.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
testenv="$root/tests/testenv"
fails=0
say() { printf '== %s\n' "$*"; }
ok() { printf '   ok: %s\n' "$*"; }
fail() { printf '   FAIL: %s\n' "$*"; fails=$((fails + 1)); }

own_env=""
cleanup() {
    local rc=$?
    for f in "${fixtures[@]}"; do
        "$testenv/legacy-fixture" down --dir "$f" >/dev/null 2>&1 || true
    done
    [[ -n "$own_env" ]] && "$testenv/down" "$own_env" >/dev/null 2>&1 || true
    exit $rc
}
fixtures=()
trap cleanup EXIT

if [[ -z "${TESTENV_ENV_FILE:-}" ]]; then
    own_env=$(mktemp -d /tmp/etcd-operator-cli-e2e.XXXXXX)
    say "no TESTENV_ENV_FILE: bringing up an environment in $own_env"
    "$testenv/up" "$own_env" >/dev/null
    export TESTENV_ENV_FILE="$own_env/env"
fi
# shellcheck disable=SC1090
. "$TESTENV_ENV_FILE"
k() { "$TESTENV_KUBECTL" "$@"; }
sfx="$(date +%s | tail -c 5)$$"

say "apiserver version"
v=$(k version -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["serverVersion"]["gitVersion"])')
[[ $v == v1.36.3 ]] && ok "server gitVersion $v" || fail "server gitVersion is $v, want v1.36.3"

# One fixture per etcd version, each in its own namespace and with its own
# operator coordinates.
declare -A variant=([3.4]="--tls --auth" [3.5]="" [3.6]="--tls --auth")
for ver in 3.4 3.5 3.6; do
    ns="e2e-testenv-${ver/./}-$sfx"
    d="$TESTENV_DIR/fixtures/$ns.etcd"
    fixtures+=("$d")
    say "legacy fixture etcd $ver ${variant[$ver]:-plain} in $ns"
    # shellcheck disable=SC2086
    "$testenv/legacy-fixture" up --name etcd --namespace "$ns" --replicas 3 --version "$ver" \
        ${variant[$ver]} --pdb --operator-namespace "$ns-operator" --dir "$d" >/dev/null

    sel=app.kubernetes.io/name=etcd,app.kubernetes.io/instance=etcd,app.kubernetes.io/managed-by=etcd-operator
    out=$(k -n "$ns" get pods -l "$sel" \
        -o 'jsonpath={range .items[*]}{.metadata.name} {.status.phase} {.status.podIP}{"\n"}{end}')
    n=$(grep -c Running <<<"$out" || true)
    [[ $n -eq 3 ]] && ok "3 Running pods by label selector" || fail "pods by selector: $out"
    . "$d/etcd/cluster.env"
    IFS=, read -r -a ips <<<"$ETCD_IPS"
    for ip in "${ips[@]}"; do
        grep -q " $ip\$" <<<"$out" || fail "no pod has podIP $ip"
    done
    ok "pod IPs are the members' loopback IPs (${ETCD_IPS})"
    n=$(k -n "$ns" get pods -l "statefulset.kubernetes.io/pod-name=etcd-1" -o name | wc -l)
    [[ $n -eq 1 ]] && ok "pod etcd-1 by statefulset.kubernetes.io/pod-name" || fail "pod-name selector gave $n pods"

    tlsargs=()
    [[ $ETCD_TLS -eq 1 ]] && tlsargs=(--cacert "$ETCD_CACERT" --cert "$ETCD_CERT" --key "$ETCD_KEY")
    IFS=, read -r -a eps <<<"$ETCD_ENDPOINTS"
    for ep in "${eps[@]}"; do
        key="/e2e/$ns/$(basename "${ep%:*}")"
        if "$ETCD_BIN/etcdctl" --endpoints "$ep" "${tlsargs[@]}" put "$key" "v-$ver" >/dev/null &&
            got=$("$ETCD_BIN/etcdctl" --endpoints "$ep" "${tlsargs[@]}" get "$key" --print-value-only) &&
            [[ $got == "v-$ver" ]]; then
            ok "put/get $key on $ep"
        else
            fail "put/get on $ep"
        fi
    done
    sv=$("$ETCD_BIN/etcdctl" --endpoints "${eps[0]}" "${tlsargs[@]}" endpoint status -w json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Status"]["version"])')
    [[ $sv == "$ver".* ]] && ok "server version $sv" || fail "server version $sv, want $ver.x"
    if [[ ${variant[$ver]} == *--auth* ]]; then
        # A password login is answered "authentication failed" with auth on
        # and "authentication is not enabled" with it off (3.4 has no
        # AuthStatus); certificate-CN calls above already passed as root.
        err=$("$ETCD_BIN/etcdctl" --endpoints "${eps[0]}" "${tlsargs[@]}" --user root:wrong get x 2>&1 || true)
        roles=$("$ETCD_BIN/etcdctl" --endpoints "${eps[0]}" "${tlsargs[@]}" user get root 2>&1 || true)
        if grep -qi 'authentication failed' <<<"$err" && grep -q 'Roles: root' <<<"$roles"; then
            ok "auth enabled, user root with role root, calls authenticated by certificate CN"
        else
            fail "auth: login answer '$err', user root: '$roles'"
        fi
    fi

    # The legacy webhooks fail closed: UPDATE refused at once, DELETE of
    # other objects and status writes pass.
    t0=$(date +%s%N)
    if err=$(k -n "$ns" annotate etcdclusters.etcd.aenix.io etcd e2e=1 2>&1); then
        fail "annotating the legacy EtcdCluster was admitted"
    elif grep -q 'no endpoints available' <<<"$err"; then
        ok "legacy EtcdCluster UPDATE refused in $((($(date +%s%N) - t0) / 1000000)) ms: no endpoints available"
    else
        fail "unexpected refusal: $err"
    fi
    ready=$(k -n "$ns" get etcdclusters.etcd.aenix.io etcd \
        -o 'jsonpath={.status.conditions[?(@.type=="Ready")].reason}')
    [[ $ready == StatefulSetReady ]] && ok "EtcdCluster Ready/StatefulSetReady" || fail "Ready reason '$ready'"
done

say "S3 server (versitygw)"
bucket="e2e-testenv-$sfx"
mkdir "$TESTENV_S3_DIR/$bucket"
s3curl() { # SECRET CURL-ARGS...: a SigV4-signed request (curl 7.88 needs x-amz-content-sha256 given)
    local secret=$1; shift
    curl -sS --aws-sigv4 "aws:amz:us-east-1:s3" -u "$TESTENV_S3_ACCESS_KEY:$secret" "$@"
}
obj=$(mktemp)
head -c 100000 /dev/urandom >"$obj"
sum=$(sha256sum "$obj" | cut -d' ' -f1)
empty=$(sha256sum </dev/null | cut -d' ' -f1)
code=$(s3curl "$TESTENV_S3_SECRET_KEY" -o /dev/null -w '%{http_code}' -H "x-amz-content-sha256: $sum" \
    -T "$obj" "$TESTENV_S3_ENDPOINT/$bucket/dir/object.bin")
[[ $code == 200 ]] && ok "signed PUT answered 200" || fail "signed PUT answered $code"
got=$(s3curl "$TESTENV_S3_SECRET_KEY" -H "x-amz-content-sha256: $empty" "$TESTENV_S3_ENDPOINT/$bucket/dir/object.bin" |
    sha256sum | cut -d' ' -f1)
[[ $got == "$sum" ]] && ok "GET returns the same bytes" || fail "GET returned other bytes"
cmp -s "$obj" "$TESTENV_S3_DIR/$bucket/dir/object.bin" && ok "stored as $bucket/dir/object.bin under TESTENV_S3_DIR" ||
    fail "object not found under TESTENV_S3_DIR"
vhost=${TESTENV_S3_ENDPOINT/127.0.0.1/$bucket.localhost}
code=$(s3curl "$TESTENV_S3_SECRET_KEY" -o /dev/null -w '%{http_code}' -H "x-amz-content-sha256: $empty" \
    "$vhost/dir/object.bin")
[[ $code == 200 ]] && ok "virtual-host style GET ($vhost) answered 200" || fail "virtual-host GET answered $code"
out=$(s3curl "wrong-$TESTENV_S3_SECRET_KEY" -w ' %{http_code}' -H "x-amz-content-sha256: $empty" \
    "$TESTENV_S3_ENDPOINT/$bucket/dir/object.bin")
[[ $out == *SignatureDoesNotMatch*" 403" ]] && ok "wrong secret refused: 403 SignatureDoesNotMatch" ||
    fail "wrong secret answered: ${out: -80}"
https=$(s3curl "$TESTENV_S3_SECRET_KEY" --cacert "$TESTENV_S3_CA" -H "x-amz-content-sha256: $empty" \
    "$TESTENV_S3_HTTPS_ENDPOINT/$bucket/dir/object.bin" | sha256sum | cut -d' ' -f1)
[[ $https == "$sum" ]] && ok "the https gateway ($TESTENV_S3_HTTPS_ENDPOINT, TESTENV_S3_CA) serves the same object" ||
    fail "the https gateway returned other bytes"
rm -rf "$obj" "${TESTENV_S3_DIR:?}/$bucket"

say "garbage collection"
ns="e2e-testenv-gc-$sfx"
k create namespace "$ns" >/dev/null
mk_owner() { k -n "$ns" create configmap "$1" -o 'jsonpath={.metadata.uid}'; }
mk_dep() { # NAME OWNER UID
    k -n "$ns" create -f - >/dev/null <<EOF
{"apiVersion": "v1", "kind": "ConfigMap",
 "metadata": {"name": "$1", "ownerReferences": [
   {"apiVersion": "v1", "kind": "ConfigMap", "name": "$2", "uid": "$3"}]}}
EOF
}
uid=$(mk_owner owner-bg)
mk_dep dep-bg owner-bg "$uid"
k -n "$ns" delete configmap owner-bg --cascade=background >/dev/null
gone=0
for _ in $(seq 1 150); do
    k -n "$ns" get configmap dep-bg >/dev/null 2>&1 || { gone=1; break; }
    sleep 0.2
done
[[ $gone -eq 1 ]] && ok "dependent deleted after its owner (background)" || fail "dependent still there 30 s after owner delete"

uid=$(mk_owner owner-orphan)
mk_dep dep-orphan owner-orphan "$uid"
k -n "$ns" delete configmap owner-orphan --cascade=orphan >/dev/null
refs=x
for _ in $(seq 1 150); do
    if ! k -n "$ns" get configmap owner-orphan >/dev/null 2>&1; then
        refs=$(k -n "$ns" get configmap dep-orphan -o 'jsonpath={.metadata.ownerReferences}')
        [[ -z $refs ]] && break
    fi
    sleep 0.2
done
if [[ -z $refs ]] && k -n "$ns" get configmap dep-orphan >/dev/null 2>&1; then
    ok "Orphan delete: dependent kept, owner reference removed"
else
    fail "Orphan delete: dependent refs '$refs'"
fi
k delete namespace "$ns" --wait=false >/dev/null

say "legacy fixtures sharing operator coordinates: down removes only what no other fixture uses"
ons="e2e-testenv-shared-$sfx-op"
fx() { # NAME: the fixture directory of namespace e2e-testenv-s<NAME>-$sfx
    printf '%s/fixtures/e2e-testenv-s%s-%s.etcd' "$TESTENV_DIR" "$1" "$sfx"
}
fx_up() { # NAME
    local d; d=$(fx "$1"); fixtures+=("$d")
    "$testenv/legacy-fixture" up --name etcd --namespace "e2e-testenv-s$1-$sfx" --replicas 1 \
        --operator-namespace "$ons" --dir "$d" >/dev/null
}
fx_down() { "$testenv/legacy-fixture" down --dir "$(fx "$1")" >/dev/null 2>&1; }
ns_phase() { k get namespace "$1" -o 'jsonpath={.status.phase}' 2>/dev/null || echo gone; }
fx_up a && fx_up b && ok "two fixtures share the operator namespace $ons" || fail "fixtures a, b up"
# As --remove-legacy-webhooks leaves it: the webhook configurations are gone,
# so they no longer tell which fixtures still use the coordinates.
k delete "mutatingwebhookconfiguration/$ons-etcd-operator-mutating-webhook-configuration" \
    "validatingwebhookconfiguration/$ons-etcd-operator-validating-webhook-configuration" >/dev/null
fx_down a
phase=$(ns_phase "$ons")
[[ $phase == Active ]] && ok "down of the first fixture keeps the shared namespace (Active)" ||
    fail "down of the first fixture left $ons $phase"
k -n "$ons" get deployment etcd-operator-controller-manager >/dev/null 2>&1 &&
    ok "... and the legacy operator Deployment in it" || fail "the shared legacy operator Deployment is gone"
fx_up c && ok "the next fixture with the same coordinates comes up at once" || fail "fixture c up"
fx_down b
fx_down c
phase=$(ns_phase "$ons")
[[ $phase != Active ]] && ok "down of the last user deletes the namespace a fixture created ($phase)" ||
    fail "$ons still Active after its last fixture went"
if fx_up d; then
    ok "a fixture coming up while that namespace terminates waits for it and makes it again"
else
    fail "fixture d up while $ons terminates"
fi
fx_down d

if [[ $fails -gt 0 ]]; then
    say "$fails check(s) failed"
    exit 1
fi
say "all checks passed"
