#!/usr/bin/env bash
# e2e: the manifests of packaging/ parse, and the apiserver accepts the RBAC
# roles and the in-cluster adoption Job (with its ServiceAccount, binding and
# PVC) as a server-side dry-run; the krew manifest names the binary and the
# project's version; the container recipe's runtime packages exist in Debian.
set -euo pipefail
: "${TESTENV_ENV_FILE:?an environment is needed (tests/testenv/up)}" "${SOURCE_ROOT:?}" "${BUILD_ROOT:?}"
# shellcheck disable=SC1090
. "$TESTENV_ENV_FILE"
pk="$SOURCE_ROOT/packaging"
fails=0
fail() { printf 'FAIL: %s\n' "$*"; fails=$((fails + 1)); }
ns=manifests-$$-$RANDOM
tmp=$(mktemp -d)
trap '"$TESTENV_KUBECTL" delete namespace "$ns" --wait=false >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
k() { "$TESTENV_KUBECTL" "$@"; }

version=$(meson introspect --projectinfo "$BUILD_ROOT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')

python3 - "$pk" "$version" <<'PY' || fail "a manifest does not parse or is wrong (above)"
import glob, sys, yaml
pk, version = sys.argv[1:3]
bad = 0
for path in sorted(glob.glob(pk + "/rbac/*.yaml") + glob.glob(pk + "/krew/*.yaml") + glob.glob(pk + "/container/*.yaml")):
    docs = [d for d in yaml.safe_load_all(open(path)) if d]
    if not docs:
        print("empty:", path); bad += 1
    for d in docs:
        if not d.get("apiVersion") or not d.get("kind") or not d.get("metadata", {}).get("name"):
            print("no apiVersion/kind/name:", path); bad += 1
        if d["kind"] in ("ClusterRole", "Role"):
            for r in d["rules"]:
                if "*" in r["verbs"] or "*" in r["resources"] or "*" in r.get("apiGroups", []):
                    print("wildcard in", path, d["metadata"]["name"]); bad += 1
plugin = yaml.safe_load(open(pk + "/krew/etcd.yaml"))
if plugin["kind"] != "Plugin" or plugin["metadata"]["name"] != "etcd":
    print("krew: not the Plugin etcd"); bad += 1
if plugin["spec"]["version"] != "v" + version:
    print("krew: version", plugin["spec"]["version"], "is not v" + version); bad += 1
for p in plugin["spec"]["platforms"]:
    if p["bin"] != "kubectl-etcd":
        print("krew: bin is", p["bin"]); bad += 1
sys.exit(1 if bad else 0)
PY

# The apiserver's judgement (schema, RBAC escalation rules, references).
k create namespace "$ns" >/dev/null
k create namespace etcd-operator-system --dry-run=client -o yaml | k apply -f - >/dev/null
for f in "$pk"/rbac/*.yaml; do
  out=$(k apply --dry-run=server -f "$f" 2>&1) || fail "$(basename "$f"): $out"
done
# The Job file in the test's own namespace (the Namespace object itself is
# only dry-run, so its objects are put into one that exists).
python3 - "$pk/container/adopt-job.yaml" "$ns" >"$tmp/job.yaml" <<'PY'
import sys, yaml
out = []
for d in yaml.safe_load_all(open(sys.argv[1])):
    if not d or d["kind"] == "Namespace":
        continue
    if "namespace" in d["metadata"]:
        d["metadata"]["namespace"] = sys.argv[2]
    for s in d.get("subjects", []):
        s["namespace"] = sys.argv[2]
    out.append(d)
print(yaml.safe_dump_all(out))
PY
grep -q "kind: Job" "$tmp/job.yaml" || fail "adopt-job.yaml has no Job"
out=$(k apply --dry-run=server -f "$tmp/job.yaml" 2>&1) || fail "adopt-job.yaml: $out"
# The Job runs etcd-migrate with --connect direct, and those arguments parse.
args=$(python3 -c '
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == "Job":
        print(" ".join(d["spec"]["template"]["spec"]["containers"][0]["args"]))' "$pk/container/adopt-job.yaml")
grep -q -- "--connect direct" <<<"$args" || fail "the Job does not run with --connect direct: $args"
[ "$(grep -c "adopt" <<<"$args")" = 1 ] || fail "the Job does not run adopt: $args"
# shellcheck disable=SC2086
"$ETCD_MIGRATE" $args --help >/dev/null || fail "etcd-migrate $args --help failed"

# The runtime packages the Containerfile installs exist in Debian.
pkgs=$(sed -n '/^FROM .*slim/,$p' "$pk/container/Containerfile" | sed -n '/apt-get install/,/rm -rf/p' |
  tr ' \\' '\n\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' | grep -vE '^(apt-get|install|rm|update|y|q|no-install-recommends)$' | sort -u)
[ -n "$pkgs" ] || fail "Containerfile: no runtime packages found"
for p in $pkgs; do
  apt-cache show "$p" >/dev/null 2>&1 || fail "Containerfile: no Debian package $p"
done
# ...and, with what they depend on, every library the built programs link against.
# shellcheck disable=SC2086
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
  --no-enhances $pkgs 2>/dev/null | grep -v '^ ' | sed 's/:.*//' | sort -u)
libs=$(ldd "$KUBECTL_ETCD" "$ETCD_MIGRATE" | awk '/=>/{print $3}' | sort -u)
# The image is built by packaging/release-build.sh with -Dstatic_grpc=true:
# what that option links from .a files (meson.build: pkg-config --static of
# grpc++ and protobuf, less OpenSSL, zlib and libc's) is not needed at run
# time, whatever this test's build linked.
static_names=" $(pkg-config --static --libs-only-l grpc++ protobuf | tr ' ' '\n' | sed -n 's/^-l//p' |
  grep -vxE 'ssl|crypto|z|dl|rt|m|atomic|pthread' | tr '\n' ' ') "
grep -q -- "-Dstatic_grpc=true" "$pk/release-build.sh" || fail "packaging/release-build.sh does not set -Dstatic_grpc=true"
grep -q "packaging/release-build.sh" "$pk/container/Containerfile" || fail "the Containerfile does not build with packaging/release-build.sh"
dynamic=""
for lib in $libs; do
  name=$(basename "$lib" | sed -E 's/^lib//; s/\.so(\..*)?$//')
  case "$static_names" in *" $name "*) continue ;; esac
  dynamic="$dynamic $lib"
done
libs=$dynamic
# libcurl is opened when first needed (lib/http/libcurl.h), so ldd does not list it.
# awk reads to the end: exiting early would kill ldconfig by SIGPIPE, which
# pipefail turns into this script's exit status 141.
curl_lib=$(ldconfig -p | awk '$1 == "libcurl.so.4" && !found {print $NF; found = 1}')
[ -n "$curl_lib" ] || fail "libcurl.so.4 is not installed"
libs="$libs $curl_lib"
for lib in $libs; do
  owner=$(dpkg -S "$lib" "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1 || true)
  [ -n "$owner" ] || { fail "no Debian package owns $lib"; continue; }
  grep -qx -- "$owner" <<<"$closure" ||
    fail "Containerfile: the programs need $owner ($lib), which the runtime stage does not install"
done

echo "manifests: $fails failures"
[ "$fails" -eq 0 ]
