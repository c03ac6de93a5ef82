# Helpers of the RBAC e2e tests (sourced): users with client certificates
# from the test apiserver's CA, copies of the packaged roles (optionally one
# permission less), bindings, and exit-code checks. The caller sets `id` (a
# label value marking what it created), `tmp` (a scratch directory) and
# sources the environment file first.
fails=0
checks=0
fail() { printf 'FAIL: %s\n' "$*"; fails=$((fails + 1)); }
k() { "$TESTENV_KUBECTL" "$@"; }

# user NAME: a kubeconfig for a client certificate CN=NAME signed by the env's CA.
user() {
  local name=$1
  openssl req -newkey rsa:2048 -nodes -keyout "$tmp/$name.key" -out "$tmp/$name.csr" -subj "/CN=$name" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' >"$tmp/$name.ext"
  openssl x509 -req -in "$tmp/$name.csr" -CA "$TESTENV_DIR/pki/ca.crt" -CAkey "$TESTENV_DIR/pki/ca.key" \
    -CAcreateserial -CAserial "$tmp/ca.srl" -days 1 -sha256 -extfile "$tmp/$name.ext" -out "$tmp/$name.crt" 2>/dev/null
  local kc="$tmp/$name.kubeconfig"
  k config view --raw --minify >"$kc"
  KUBECONFIG="$kc" k config set-credentials "$name" --client-certificate "$tmp/$name.crt" \
    --client-key "$tmp/$name.key" --embed-certs >/dev/null
  KUBECONFIG="$kc" k config set-context --current --user "$name" >/dev/null
  echo "$kc"
}

# role FILE KIND NAME NEWNAME [RESOURCE VERB]: applies the role NAME of FILE
# under NEWNAME (labelled for clean-up), without VERB on RESOURCE if given.
# ROLE_NAMESPACE=NS moves a namespaced Role to NS.
role() {
  python3 - "$id" "${ROLE_NAMESPACE:-}" "$@" <<'PY' | k apply -f - >/dev/null
import sys, yaml
rid, ns, path, kind, name, new = sys.argv[1:7]
drop = sys.argv[7:9]
found = False
for doc in yaml.safe_load_all(open(path)):
    if not doc or doc["kind"] != kind or doc["metadata"]["name"] != name:
        continue
    found = True
    doc["metadata"]["name"] = new
    if ns and kind == "Role":
        doc["metadata"]["namespace"] = ns
    doc["metadata"].setdefault("labels", {})["rbac-test"] = rid
    if drop:
        res, verb = drop
        rules, dropped = [], False
        for r in doc["rules"]:
            if res in r["resources"] and verb in r["verbs"]:
                dropped = True
                rest = [x for x in r["resources"] if x != res]
                if rest:
                    rules.append(dict(r, resources=rest))
                verbs = [v for v in r["verbs"] if v != verb]
                if verbs:
                    rules.append(dict(r, resources=[res], verbs=verbs))
            else:
                rules.append(r)
        if not dropped:
            sys.exit(f"{path}: {name} does not grant {verb} on {res}")
        doc["rules"] = rules
    print("---\n" + yaml.safe_dump(doc))
if not found:
    sys.exit(f"{path}: no {kind} {name}")
PY
}

# bind KIND ROLE USER [NS]: binds the (Cluster)Role ROLE to USER, cluster-wide
# or, with NS, in that namespace only (a RoleBinding).
bind() {
  local what=clusterrolebinding flag=--clusterrole nsargs=()
  [ "$1" = Role ] && flag=--role
  if [ $# -ge 4 ]; then what=rolebinding; nsargs=(-n "$4"); fi
  k create "$what" "b-$2-$3" "${nsargs[@]}" "$flag" "$2" --user "$3" --dry-run=client -o json |
    python3 -c 'import json,sys; d=json.load(sys.stdin); d["metadata"]["labels"]={"rbac-test": sys.argv[1]}; print(json.dumps(d))' "$id" |
    k apply -f - >/dev/null
}

# check LABEL RC_WANTED COMMAND...: runs, compares the exit code; the output
# stays in $tmp/out and $tmp/err.
check() {
  local label=$1 want=$2; shift 2
  checks=$((checks + 1))
  set +e
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  set -e
  [ "$rc" = "$want" ] || fail "$label: exit $rc, want $want: $(grep -v "^note:" "$tmp/err" | head -c 1500) $(head -c 1500 "$tmp/out")"
}

# denied LABEL VERB RESOURCE COMMAND...: exit 7 and one error line naming both.
denied() {
  local label=$1 verb=$2 res=$3; shift 3
  check "$label" 7 "$@"
  local errors
  errors=$(grep -c '^error:' "$tmp/err" || true)
  [ "$errors" = 1 ] || fail "$label: $errors error lines, want 1: $(cat "$tmp/err")"
  grep '^error:' "$tmp/err" | grep -q -- "$verb" || fail "$label: the error does not name the verb $verb: $(cat "$tmp/err")"
  grep '^error:' "$tmp/err" | grep -q -- "$res" || fail "$label: the error does not name $res: $(cat "$tmp/err")"
}

# same LABEL VALUE WANTED: compares a value read back from the servers.
same() {
  checks=$((checks + 1))
  [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}
