#!/usr/bin/env python3
"""`etcd-migrate adopt --apply --backup-mode job` on the real node: the
operator's snapshot agent runs as the Job the tool creates.

The real legacy operator (v0.4.2) makes two 3-member TLS + auth clusters, one
per namespace; the v1alpha2 operator's Deployment is installed at 0 replicas
(the agent's image is its container's). In the first namespace the failures
the README promises to catch at once are made one by one: a missing
credentials Secret, a missing PVC (both refused before auth is touched), and
an agent image that cannot start (a tag that was never imported: the Job's
Pod is stuck in an image pull error). Each ends within seconds with one
line, leaves auth on, no Job and nothing adopted. Then the adoption runs with
the snapshot written to S3 through the Service testenv-s3 (credentials
Secret in the namespace), and in the second namespace to a PVC. Each time the
object or file is a valid snapshot (etcdutl snapshot status) whose sha256 is
the one the tool recorded from the agent's result line, and the cluster is
adopted only after the Job completed.

usage: backup_job_test.py
"""
import base64
import hashlib
import json
import os
import re
import shutil
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import node_support as ns_  # noqa: E402
from node_support import ENV, LEGACY_DEPLOYMENT, RBAC, fail, get_json, kubectl, log, run  # noqa: E402

COMMIT = "v0.4.2"
JOB = "etcd-migration-snapshot"
BUCKET = "adopt-job"
FAST = 30  # seconds a promised early failure may take, at most


def auth_enabled(ns, cluster="etcd"):
    """etcd's own answer, from the host, to a member's Pod IP with the
    cluster's client certificate (CN root)."""
    pods = [p for p in get_json("-n", ns, "pods")["items"]
            if re.fullmatch(cluster + r"-\d+", p["metadata"]["name"]) and (p.get("status") or {}).get("podIP")]
    if not pods:
        fail(f"no member Pod of {ns}/{cluster} with an IP")
    secret = get_json("-n", ns, "secret", f"{cluster}-client-tls")["data"]
    d = os.path.join(ENV["TESTENV_DIR"], "backup-job-pki-" + ns)
    os.makedirs(d, exist_ok=True)
    for k in ("tls.crt", "tls.key", "ca.crt"):
        with open(os.path.join(d, k), "wb") as f:
            f.write(base64.b64decode(secret[k]))
    r = run([os.path.join(ENV["TESTENV_ETCD_35"], "etcdctl"), "--endpoints",
             f"https://{pods[0]['status']['podIP']}:2379", "--cert", f"{d}/tls.crt", "--key", f"{d}/tls.key",
             "--insecure-skip-tls-verify", "--dial-timeout", "5s", "auth", "status"], check=False)
    if "Authentication Status: true" in r.stdout:
        return True
    if "Authentication Status: false" in r.stdout:
        return False
    fail(f"etcdctl auth status on {ns}/{cluster}: {r.stdout} {r.stderr}")


def adopted(ns):
    return bool(get_json("-n", ns, "etcdclusters.etcd-operator.cozystack.io")["items"])


def least_privilege_kubeconfig(ns):
    """A kubeconfig of a ServiceAccount bound to exactly the ClusterRole of
    packaging/rbac/etcd-migrate-apply.yaml."""
    kubectl("apply", "-f", os.path.join(RBAC, "etcd-migrate-apply.yaml"))
    kubectl("-n", ns, "create", "serviceaccount", "adopter")
    kubectl("delete", "clusterrolebinding", f"{ns}-adopter", "--ignore-not-found")
    kubectl("create", "clusterrolebinding", f"{ns}-adopter", "--clusterrole", "etcd-operator-cli:etcd-migrate-apply",
            "--serviceaccount", f"{ns}:adopter")
    token = kubectl("-n", ns, "create", "token", "adopter", "--duration", "10m").strip()
    path = os.path.join(ENV["TESTENV_DIR"], f"{ns}-adopter.kubeconfig")
    with open(path, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "Config", "current-context": "adopter",
                   "clusters": [{"name": "env", "cluster": {"server": ENV["TESTENV_APISERVER"],
                                                           "certificate-authority": ENV["TESTENV_CA"]}}],
                   "users": [{"name": "adopter", "user": {"token": token}}],
                   "contexts": [{"name": "adopter", "context": {"cluster": "env", "user": "adopter"}}]}, f)
    os.chmod(path, 0o600)
    return path


def adopt(ns, *flags, kubeconfig=None):
    t = time.time()
    r = run([ns_.program("etcd-migrate"), "adopt", "-n", ns, "--apply", "--yes", "--backup-mode", "job",
             "--backup-timeout", "3m", *flags], check=False, env={"KUBECONFIG": kubeconfig} if kubeconfig else None)
    took = time.time() - t
    log(f"adopt -n {ns} {' '.join(flags)}: exit {r.returncode} in {took:.1f} s")
    return r, took


def snapshot_facts(path):
    """etcdutl's verdict on the file and its sha256."""
    st = run([os.path.join(ENV["TESTENV_ETCD_35"], "etcdutl"), "snapshot", "status", path, "-w", "json"],
             check=False)
    data = open(path, "rb").read()
    return st, hashlib.sha256(data).hexdigest(), len(data)


def main():
    ns_.load_env()
    t0 = time.time()
    check = ns_.Checks()

    # Two legacy clusters as users have them, made at once by the real legacy operator.
    ns_.delete_new_operator()
    ns_.deploy_legacy_operator(COMMIT, replicas=1)
    s3ns, pvcns = ns_.Namespace("bj-s3"), ns_.Namespace("bj-pvc")
    errors = []

    def make(ns):
        try:
            ns_.legacy_cluster(ns, "etcd", replicas=3, version="3.5.21", tls=True, auth=True)
        except SystemExit:
            errors.append(ns)
    threads = [threading.Thread(target=make, args=(n.name,)) for n in (s3ns, pvcns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        fail(f"the legacy operator did not make the clusters of {errors}")
    log(f"legacy clusters Ready after {time.time() - t0:.0f} s")
    ns_.scale(LEGACY_DEPLOYMENT, 0)
    # The new operator installed, not running: the adoption needs both down,
    # and the agent's image is taken from its Deployment.
    ns_.deploy_new_operator(replicas=0)
    image = get_json("-n", "etcd-operator-system", "deployment", "etcd-operator")["spec"]["template"]["spec"][
        "containers"][0]["image"]
    check(auth_enabled(s3ns.name) and auth_enabled(pvcns.name), "auth is not on in a legacy cluster to begin with")

    s3 = ["--backup-s3-endpoint", ENV["TESTENV_NODE_S3_ENDPOINT"], "--backup-s3-bucket", BUCKET,
          "--backup-s3-key", "migrations", "--backup-s3-force-path-style", "--backup-s3-credentials-secret",
          "s3-credentials"]

    def unchanged(ns, what):
        check(auth_enabled(ns), f"{what}: auth is off afterwards")
        check(not adopted(ns), f"{what}: an EtcdCluster of the new API was created")
        sts = get_json("-n", ns, "statefulsets")["items"]
        check(len(sts) == 1, f"{what}: the legacy StatefulSet is gone")
        check(not get_json("-n", ns, "jobs")["items"], f"{what}: a Job was left behind")

    def one_line_failure(r, took, what, code, needle):
        lines = [x for x in (r.stdout + r.stderr).splitlines() if needle in x]
        check(r.returncode == code, f"{what}: exit {r.returncode}, {code} wanted\n{r.stdout}\n{r.stderr}")
        check(took < FAST, f"{what}: took {took:.0f} s, at most {FAST} wanted")
        check(len(lines) >= 1,
              f"{what}: no one line with {needle!r}:\n{r.stdout}\n{r.stderr}")

    # 1. No credentials Secret: refused before anything changes.
    r, took = adopt(s3ns.name, *s3)
    one_line_failure(r, took, "missing credentials Secret", 3, f'secret "{s3ns.name}/s3-credentials": does not exist')
    unchanged(s3ns.name, "missing credentials Secret")

    # 2. No PVC: likewise.
    r, took = adopt(s3ns.name, "--backup-pvc-claim", "backups")
    one_line_failure(r, took, "missing PVC", 3, f'persistentvolumeclaim "{s3ns.name}/backups": does not exist')
    unchanged(s3ns.name, "missing PVC")

    # 3. An agent image that cannot start: a tag never imported into the node.
    kubectl("-n", s3ns.name, "create", "secret", "generic", "s3-credentials",
            f"--from-literal=AWS_ACCESS_KEY_ID={ENV['TESTENV_S3_ACCESS_KEY']}",
            f"--from-literal=AWS_SECRET_ACCESS_KEY={ENV['TESTENV_S3_SECRET_KEY']}")
    bad_image = image.rsplit(":", 1)[0] + ":not-imported"
    r, took = adopt(s3ns.name, *s3, "--agent-image", bad_image)
    one_line_failure(r, took, "an agent image that cannot start", 1, "cannot start")
    check(re.search(r"ErrImagePull|ImagePullBackOff", r.stdout + r.stderr),
          f"the image pull error is not named:\n{r.stdout}\n{r.stderr}")
    check("re-enabled" in r.stdout + r.stderr, f"the run did not say auth was re-enabled:\n{r.stdout}\n{r.stderr}")
    ns_.wait_until("the failed Job to be removed", lambda: not get_json("-n", s3ns.name, "jobs")["items"], timeout=60)
    unchanged(s3ns.name, "an agent image that cannot start")

    # 4. S3 through the Service, with the new operator's image. (An object of
    # an earlier run's cluster would be refused: the agent replaces only its own.)
    shutil.rmtree(os.path.join(ENV["TESTENV_S3_DIR"], BUCKET), ignore_errors=True)
    os.makedirs(os.path.join(ENV["TESTENV_S3_DIR"], BUCKET))
    r, took = adopt(s3ns.name, *s3, "-o", "json")
    if r.returncode != 0:
        fail(f"adopt with a Job to S3: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
    check_backup(check, r, s3ns.name,
                 os.path.join(ENV["TESTENV_S3_DIR"], BUCKET, "migrations", f"{s3ns.name}-etcd-migration.db"),
                 f"s3://{BUCKET}/migrations/{s3ns.name}-etcd-migration.db")

    # 5. A PVC, in the other namespace.
    kubectl("apply", "-f", "-", input=json.dumps(
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "backups", "namespace": pvcns.name},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}))
    # This one as a user bound to packaging/rbac/etcd-migrate-apply.yaml only.
    r, took = adopt(pvcns.name, "--backup-pvc-claim", "backups", "--backup-pvc-subpath", "adoption", "-o", "json",
                    kubeconfig=least_privilege_kubeconfig(pvcns.name))
    if r.returncode != 0:
        fail(f"adopt with a Job to a PVC: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
    pv = get_json("-n", pvcns.name, "pvc", "backups")["spec"]["volumeName"]
    host_dir = get_json("pv", pv)["spec"]["hostPath"]["path"]
    check_backup(check, r, pvcns.name, os.path.join(host_dir, "adoption", f"{pvcns.name}-etcd-migration.db"),
                 f"{pvcns.name}-etcd-migration.db")

    log(f"took {time.time() - t0:.0f} s")
    check.done()
    kubectl("delete", "clusterrolebinding", f"{pvcns.name}-adopter", "--ignore-not-found")
    for n in (s3ns, pvcns):
        n.delete()
    print("PASS")


def check_backup(check, r, ns, path, uri_tail):
    """The Job's artefact is a valid snapshot, its sha256 the one the tool
    recorded, and the cluster was adopted after the Job completed."""
    doc = json.loads(r.stdout)
    text = json.dumps(doc)
    check(os.path.exists(path), f"{ns}: no snapshot at {path}")
    if not os.path.exists(path):
        return
    st, sha, size = snapshot_facts(path)
    check(st.returncode == 0 and json.loads(st.stdout or "{}").get("totalKey", 0) > 0,
          f"{ns}: etcdutl snapshot status {path}: exit {st.returncode} {st.stdout} {st.stderr}")
    check(sha in text, f"{ns}: the tool did not record the file's sha256 {sha}: {text}")
    check(str(size) in text, f"{ns}: the tool did not record the file's size {size}: {text}")
    check(uri_tail in text, f"{ns}: the tool did not record where the snapshot is ({uri_tail}): {text}")
    check(adopted(ns), f"{ns}: no EtcdCluster of the new API after the adoption")
    # The agent's Pod finished before the new EtcdCluster was created.
    job = get_json("-n", ns, "job", JOB)
    done = (job.get("status") or {}).get("completionTime", "")
    created = get_json("-n", ns, "etcdclusters.etcd-operator.cozystack.io", "etcd")["metadata"]["creationTimestamp"]
    check(done and done <= created, f"{ns}: the Job completed at {done}, the EtcdCluster was created at {created}")


if __name__ == "__main__":
    main()
