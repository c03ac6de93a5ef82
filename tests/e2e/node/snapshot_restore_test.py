#!/usr/bin/env python3
"""What runs inside the operator's containers, on the real node: a snapshot
through the operator's Job and a restore through its init containers.

The v1alpha2 operator (a Deployment from its chart) makes a 3-member cluster
of etcd VERSION; a client Pod writes keys. `kubectl-etcd snapshot save
--via-cr --pvc` creates an EtcdSnapshot; the operator's Job runs its
snapshot agent (the operator image) on the node and the tool reports the
snapshot Complete; `snapshot list` shows it. For 3.6.11 also a snapshot
the agent cannot store (an S3 bucket that does not exist): the operator
marks it Failed once the Job gives up, and the tool exits 1 with one line
naming the snapshot, the agent's last words and the Job to read.
`kubectl-etcd restore --pvc` creates a new EtcdCluster
with spec.bootstrap.restore; the operator's init containers (install-tools,
then restore with the etcd image's etcdutl) run on the node, the cluster
comes up, and its keys, values and revision equal the snapshot's. A
snapshot file with one byte flipped is refused before any object is made.

usage: snapshot_restore_test.py VERSION     (3.5.21 or 3.6.11)
"""
import base64
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import node_support as ns_  # noqa: E402
from node_support import fail, get_json, kubectl, log, run  # noqa: E402

KEYS = 200


def cluster_ready(ns, name, replicas):
    c = get_json("-n", ns, "etcdclusters.etcd-operator.cozystack.io", name)
    st = c.get("status") or {}
    conds = {x["type"]: x.get("reason") for x in st.get("conditions") or []}
    return st.get("readyMembers") == replicas and conds.get("Available") == "QuorumHealthy"


def etcdctl_pod(ns, name, script):
    """Runs a shell script with etcdctl in a Pod; returns its output."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
           "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
                    "containers": [{"name": "c", "image": f"testenv.local/etcd-tools:v{ns_.ENV_ETCD35}",
                                    "command": ["sh", "-c", script]}]}}
    kubectl("apply", "-f", "-", input=json.dumps(pod))
    phase = ns_.wait_until(f"Pod {name} to finish",
                           lambda: get_json("-n", ns, "pod", name)["status"].get("phase") in ("Succeeded", "Failed")
                           and get_json("-n", ns, "pod", name)["status"]["phase"], timeout=120)
    out = kubectl("-n", ns, "logs", name)
    if phase != "Succeeded":
        fail(f"Pod {name} failed: {out}")
    return out


def dump(ns, cluster, pod):
    """Every key and value of the cluster, and its revision."""
    out = etcdctl_pod(ns, pod, f"etcdctl --endpoints http://{cluster}-client.{ns}.svc:2379 "
                               "get --prefix '' -w json")
    doc = json.loads(out)
    kvs = {base64.b64decode(kv["key"]).decode(): base64.b64decode(kv.get("value", "")).decode()
           for kv in doc.get("kvs") or []}
    return kvs, int(doc["header"]["revision"])


# The failing snapshot Job costs the Job's back-off (about 70 s): one version.
FAILING_VERSION = "3.6.11"


def main():
    version = sys.argv[1] if len(sys.argv) > 1 else "3.6.11"
    ns_.load_env()
    t0 = time.time()
    ns = ns_.Namespace("snap-" + version.replace(".", ""))
    check = ns_.Checks()

    ns_.delete_legacy_operator("v0.4.2")
    ns_.deploy_new_operator(replicas=1)
    kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "etcd-operator.cozystack.io/v1alpha2", "kind": "EtcdCluster",
         "metadata": {"name": "etcd", "namespace": ns.name},
         "spec": {"replicas": 3, "version": version, "storage": {"size": "1Gi"}}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "backups", "namespace": ns.name},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}))
    ns_.wait_until("the operator's cluster Ready", lambda: cluster_ready(ns.name, "etcd", 3), timeout=240)
    log(f"cluster of etcd {version} Ready after {time.time() - t0:.0f} s")
    etcdctl_pod(ns.name, "writer", f"for i in $(seq 1 {KEYS}); do etcdctl --endpoints "
                                   f"http://etcd-client.{ns.name}.svc:2379 put /k/$i v$i >/dev/null || exit 1; done")
    before, rev = dump(ns.name, "etcd", "dump-before")
    check(len(before) == KEYS, f"{len(before)} keys written, {KEYS} wanted")

    # The snapshot, through the operator's Job on the node.
    t1 = time.time()
    snap = run([ns_.program("kubectl-etcd"), "snapshot", "save", "-n", ns.name, "-c", "etcd", "--via-cr",
                "--pvc", "backups", "--name", "snap", "-o", "json"], check=False)
    log(f"snapshot save --via-cr exit {snap.returncode} in {time.time() - t1:.1f} s")
    if snap.returncode != 0:
        fail(f"snapshot save --via-cr: {snap.stdout} {snap.stderr}")
    es = get_json("-n", ns.name, "etcdsnapshots", "snap")
    check(es["status"].get("phase") == "Complete", f"EtcdSnapshot phase {es['status'].get('phase')}")
    artifact = es["status"].get("artifact") or {}
    uri, checksum = artifact.get("uri", ""), artifact.get("checksum", "")
    check(uri.endswith("/snap.db"), f"EtcdSnapshot artifact uri {uri}")
    check(checksum.startswith("sha256:"), f"EtcdSnapshot artifact checksum {checksum}")
    # What the user reads from the tool: the URI, size and sha256 the agent recorded.
    for what in (uri, checksum.removeprefix("sha256:"), str(artifact.get("sizeBytes"))):
        check(what and what in snap.stdout, f"the tool did not report {what!r}: {snap.stdout}")
    job = get_json("-n", ns.name, "jobs")["items"]
    check(len(job) == 1 and (job[0].get("status") or {}).get("succeeded") == 1,
          f"the operator's snapshot Job did not succeed on the node: {[j.get('status') for j in job]}")
    listed = run([ns_.program("kubectl-etcd"), "snapshot", "list", "-n", ns.name, "-c", "etcd", "-o", "json"])
    rows = {r["name"]: r for r in json.loads(listed.stdout)}
    check(set(rows) == {"snap"} and rows["snap"]["phase"] == "Complete" and rows["snap"]["uri"] == uri,
          f"snapshot list: {listed.stdout}")

    if version == FAILING_VERSION:
        # A snapshot the agent cannot store (a bucket that does not exist):
        # the Job's pods fail, the operator marks the EtcdSnapshot Failed
        # once the Job gives up, and the user reads why in one line.
        kubectl("-n", ns.name, "create", "secret", "generic", "s3-credentials",
                f"--from-literal=AWS_ACCESS_KEY_ID={ns_.ENV['TESTENV_S3_ACCESS_KEY']}",
                f"--from-literal=AWS_SECRET_ACCESS_KEY={ns_.ENV['TESTENV_S3_SECRET_KEY']}")
        t3 = time.time()
        bad = run([ns_.program("kubectl-etcd"), "snapshot", "save", "-n", ns.name, "-c", "etcd", "--via-cr",
                   "--name", "nobucket", "--s3-endpoint", ns_.ENV["TESTENV_NODE_S3_ENDPOINT"],
                   "--s3-bucket", "no-such-bucket", "--s3-secret", "s3-credentials", "--s3-force-path-style"],
                  check=False)
        log(f"snapshot save --via-cr to a missing bucket: exit {bad.returncode} in {time.time() - t3:.0f} s: "
            f"{bad.stderr.strip().splitlines()[-1:]}")
        errors = [ln for ln in bad.stderr.splitlines() if ln.startswith("error:")]
        check(bad.returncode == 1, f"a failed snapshot Job: exit {bad.returncode}, 1 wanted: {bad.stderr}")
        check(len(errors) == 1 and "nobucket" in errors[0] and "its agent said:" in errors[0]
              and "logs job/nobucket-snapshot" in errors[0],
              f"a failed snapshot Job: the error names neither the snapshot, the agent's words nor the Job: {errors}")
        failed = get_json("-n", ns.name, "etcdsnapshots", "nobucket")["status"]
        check(failed.get("phase") == "Failed", f"EtcdSnapshot nobucket: {failed}")
        for secret in (ns_.ENV["TESTENV_S3_SECRET_KEY"],):
            check(secret not in bad.stdout + bad.stderr, "the S3 secret key was printed")

    # The restore, through the operator's init containers on the node.
    t2 = time.time()
    r = run([ns_.program("kubectl-etcd"), "restore", "-n", ns.name, "restored", "--version", version,
             "--pvc", "backups", "--pvc-path", "snap.db"], check=False)
    if r.returncode != 0:
        fail(f"restore: exit {r.returncode}: {r.stdout} {r.stderr}")
    ns_.wait_until("the restored cluster Ready", lambda: cluster_ready(ns.name, "restored", 3), timeout=300)
    log(f"restored cluster Ready {time.time() - t2:.0f} s after the restore command")
    seed = [p for p in get_json("-n", ns.name, "pods")["items"]
            if p["metadata"]["name"].startswith("restored-")
            and [c["name"] for c in p["spec"].get("initContainers") or []] == ["install-tools", "restore"]]
    check(len(seed) == 1, f"no member ran the operator's init containers install-tools, restore: "
                          f"{[p['metadata']['name'] for p in seed]}")
    for p in seed:
        states = {c["name"]: (c.get("state") or {}).get("terminated", {}).get("exitCode")
                  for c in p["status"].get("initContainerStatuses") or []}
        check(states == {"install-tools": 0, "restore": 0}, f"init containers of {p['metadata']['name']}: {states}")
    after, rev_after = dump(ns.name, "restored", "dump-after")
    check(after == before, f"restored keys differ: {len(after)} keys, "
                           f"{len(set(after.items()) ^ set(before.items()))} differing")
    check(rev_after == rev, f"restored revision {rev_after}, snapshot's {rev}")

    # A snapshot file with one byte flipped is refused before anything is made.
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "etcd.db")
        run([ns_.program("kubectl-etcd"), "snapshot", "save", "-n", ns.name, "-c", "etcd", f])
        data = bytearray(open(f, "rb").read())
        data[len(data) // 2] ^= 0xFF
        open(f, "wb").write(bytes(data))
        bad = run([ns_.program("kubectl-etcd"), "restore", "-n", ns.name, "corrupt", "--version", version,
                   "--file", f, "--s3-endpoint", ns_.ENV["TESTENV_S3_ENDPOINT"], "--s3-bucket", "nobucket",
                   "--s3-secret", "nosecret"], check=False)
        check(bad.returncode == 1 and len(bad.stderr.strip().splitlines()) >= 1,
              f"a corrupted snapshot: exit {bad.returncode}: {bad.stderr}")
        made = [c["metadata"]["name"] for c in
                get_json("-n", ns.name, "etcdclusters.etcd-operator.cozystack.io")["items"]]
        check("corrupt" not in made, "the corrupted snapshot's restore created an EtcdCluster")

    log(f"took {time.time() - t0:.0f} s")
    check.done()
    ns.delete()
    print("PASS")


if __name__ == "__main__":
    main()
