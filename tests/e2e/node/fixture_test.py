#!/usr/bin/env python3
"""The legacy fixture (tests/testenv/legacy-fixture), which lays out the
legacy clusters of every test in the process world, against the real legacy
operator: the same EtcdCluster (3 members, TLS, auth, a PDB) is made by the
operator in one namespace and rendered by the fixture (a server-side dry run
of every object it would create, with the statuses it would write) for
another; the objects are compared field by field. Every difference must be
listed, with its reason, in fixture_differences.txt beside this file (a
shell pattern per line), and every listed pattern must still match one (a
pattern marked "~" may not: a difference that depends on timing): the list
is the fixture's known distance from the real thing.

usage: fixture_test.py LEGACY_COMMIT [SHAPE]
  SHAPE: tls-auth (3 members, TLS, auth, a PDB, a claim template; the
  default) or plain-emptydir (3 members, no TLS, emptyDir storage)
"""
import fnmatch
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import node_support as ns_  # noqa: E402
from node_support import fail, get_json, kubectl, log, run  # noqa: E402

# Kinds the operator or the controllers it drives make; Secrets are the
# user's (here: the test's) in both worlds.
KINDS = ["EtcdCluster", "Service", "ConfigMap", "PodDisruptionBudget", "StatefulSet",
         "ControllerRevision", "PersistentVolumeClaim", "Pod"]
RESOURCE = {"EtcdCluster": "etcdclusters.etcd.aenix.io", "Service": "services", "ConfigMap": "configmaps",
            "PodDisruptionBudget": "poddisruptionbudgets", "StatefulSet": "statefulsets",
            "ControllerRevision": "controllerrevisions", "PersistentVolumeClaim": "persistentvolumeclaims",
            "Pod": "pods"}
# Values of the moment, never compared: identities, times, addresses, and
# what belongs to the machine the objects run on rather than to their shape.
VOLATILE = re.compile(
    r"(^|\.)(uid|resourceVersion|creationTimestamp|generation|managedFields|lastTransitionTime|startedAt|"
    r"startTime|lastProbeTime|clusterIP|clusterIPs|podIP|podIPs|hostIP|hostIPs|containerID|imageID|"
    r"observedGeneration|lastUpdateTime|finishedAt|allocatedResources|resources\.limits|"
    r"volumeName|lastTerminationState|user|stopSignal|volumeMounts\[kube-api-access-[a-z0-9]+\]\.[a-zA-Z]+|"
    # The test's own kubectl apply of the EtcdCluster.
    r"annotations\.kubectl\.kubernetes\.io/last-applied-configuration)$")
KEYED = ("name", "type", "containerPort", "mountPath")
# Each shape: the real cluster's legacy-cluster options, the fixture's flags.
SHAPES = {"tls-auth": ({"tls": True, "auth": True, "pdb": True}, ["--tls", "--auth", "--pdb"]),
          "plain-emptydir": ({"empty_dir": True}, ["--empty-dir"])}
POD_STATUS = re.compile(r"^status\.(phase|conditions\[[A-Za-z]+\]\.(type|status)|"
                        r"containerStatuses\[[a-z-]+\]\.(name|ready|started|restartCount|image|state\.[a-z]+))$")


def flatten(v, path, out):
    if isinstance(v, dict):
        for k, x in v.items():
            flatten(x, f"{path}.{k}" if path else k, out)
    elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        for i, x in enumerate(v):
            key = next((str(x[k]) for k in KEYED if k in x), str(i))
            flatten(x, f"{path}[{key}]", out)
    else:
        out[path] = v
    return out


def normalize(o, ns):
    text = json.dumps(o).replace(ns, "NS")
    # Names made of a hash (ControllerRevision, its labels and the STS's
    # revisions, the service-account token volume) compare as one name.
    text = re.sub(r"etcd-[0-9a-f]{8,10}\b", "etcd-REV", text)
    text = re.sub(r"kube-api-access-[a-z0-9]{5}", "kube-api-access-XXXXX", text)
    o = json.loads(text)
    flat = flatten(o, "", {})
    if o["kind"] == "Pod":
        # Of a Pod's status, what a client reads (the rest is the kubelet's
        # account of the node: mounts, cgroup limits, QoS).
        flat = {k: v for k, v in flat.items() if not k.startswith("status.") or POD_STATUS.match(k)}
    return {k: v for k, v in flat.items() if not VOLATILE.search(k)}


def by_key(objs, ns):
    out = {}
    for o in objs:
        if o["kind"] not in KINDS or o["metadata"]["name"] == "kube-root-ca.crt":
            continue  # the root-ca-cert-publisher's, in every namespace
        name = re.sub(r"etcd-[0-9a-f]{8,10}$", "etcd-REV", o["metadata"]["name"])
        out[f"{o['kind']}/{name}"] = normalize(o, ns)
    return out


def main():
    commit = sys.argv[1] if len(sys.argv) > 1 else "v0.4.2"
    shape = sys.argv[2] if len(sys.argv) > 2 else "tls-auth"
    if shape not in SHAPES:
        fail(f"unknown shape {shape} (one of {', '.join(SHAPES)})")
    real_kw, fixture_args = SHAPES[shape]
    ns_.load_env()
    real_ns, fix_ns = ns_.Namespace("fixture-real"), ns_.Namespace("fixture-rendered")
    ns_.delete_new_operator()
    ns_.deploy_legacy_operator(commit, replicas=1)
    ns_.legacy_cluster(real_ns.name, "etcd", replicas=3, version="3.5.21", **real_kw)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "fixture.json")
        run([ns_.tools("legacy-fixture"), "up", "--name", "etcd", "--namespace", fix_ns.name,
             "--legacy-commit", commit, *fixture_args, "--version", "3.5", "--storage", "1Gi",
             "--node", ns_.ENV["TESTENV_NODE"], "--dir", os.path.join(d, "fx"), "--render-only", out])
        rendered = json.load(open(out))
    real = []
    for kind in KINDS:
        real += get_json("-n", real_ns.name, RESOURCE[kind])["items"]
    a, b = by_key(rendered, fix_ns.name), by_key(real, real_ns.name)

    found = set()
    for key in sorted(set(a) | set(b)):
        if key not in a:
            found.add(f"{key} (only made by the operator)")
            continue
        if key not in b:
            found.add(f"{key} (only made by the fixture)")
            continue
        for path in sorted(set(a[key]) | set(b[key])):
            if a[key].get(path) != b[key].get(path):
                found.add(f"{key} {path}")
    listed, optional = {}, set()
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixture_differences.txt")) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            what, _, why = line.partition(" | ")
            what = what.strip()
            if what.startswith("~ "):
                what = what[2:]
                optional.add(what)
            listed[what] = why.strip()
    explained = {k for k in found if any(fnmatch.fnmatchcase(k, p) for p in listed)}
    unexplained = sorted(found - explained)
    # A listed difference of objects this shape does not have is not gone.
    present = set(a) | set(b)
    gone = sorted(p for p in listed if p not in optional
                  and any(fnmatch.fnmatchcase(k, p.split(" ")[0]) for k in present)
                  and not any(fnmatch.fnmatchcase(k, p) for k in found))

    def show(key):
        k, _, path = key.partition(" ")
        if k in a and k in b and path in a[k] or (k in b and path in b[k]):
            return f"{key}: fixture {json.dumps(a.get(k, {}).get(path))}, operator {json.dumps(b.get(k, {}).get(path))}"
        return key
    log(f"{len(found)} differences, {len(explained)} of them listed with their reason")
    for key in sorted(explained):
        log(f"  known: {key}")
    msgs = []
    if unexplained:
        msgs.append("differences not in fixture_differences.txt (fix the fixture, or list them with why):\n  "
                    + "\n  ".join(show(k) for k in unexplained))
    if gone:
        msgs.append("listed differences no longer seen (remove them from fixture_differences.txt):\n  "
                    + "\n  ".join(gone))
    if msgs:
        fail("\n".join(msgs))
    ns_.delete_legacy_operator(commit)
    real_ns.delete()
    fix_ns.delete()
    print("PASS")


if __name__ == "__main__":
    main()
