#!/usr/bin/env python3
"""The programs as in-cluster Jobs on the real node, the way a CI pipeline
or an in-cluster migration runs them: this project's image
(tests/testenv/project-image), a ServiceAccount per Job bound to exactly the
least-privilege roles of packaging/rbac/, the in-cluster configuration (the
ServiceAccount's token and CA, KUBERNETES_SERVICE_HOST), and `--connect
direct` to the members' Pod IPs. The Job's exit code and log are what this
test judges.

The real legacy operator (v0.4.2) makes a 3-member TLS + auth cluster; the
v1alpha2 operator is installed at 0 replicas. As Jobs: `etcd-migrate adopt`
plans (etcd-migrate-plan), then adopts with `--apply --yes` and a safety
backup streamed to S3 through the Service testenv-s3 (etcd-migrate-apply);
`kubectl-etcd health`, `status -o json` and `snapshot save` to a PVC mounted
in the Job (kubectl-etcd-view) run against the adopted cluster. A copy of
the view role without `list` on pods gives a one-line error naming the verb
and the object, exit 7 (docs/exit-codes.md).

usage: in_cluster_test.py
"""
import json
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import node_support as ns_  # noqa: E402
from node_support import ENV, LEGACY_DEPLOYMENT, RBAC, fail, get_json, kubectl, log, run  # noqa: E402

COMMIT = "v0.4.2"
IMAGE = "etcd-operator-cli:test"
BUCKET = "in-cluster"


def rbac_docs(name):
    """The objects of packaging/rbac/NAME.yaml, applied as they are."""
    path = os.path.join(RBAC, name + ".yaml")
    kubectl("apply", "-f", path)
    text, items, dec = kubectl("create", "--dry-run=client", "-o", "json", "-f", path), [], json.JSONDecoder()
    pos = 0
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            break
        doc, pos = dec.raw_decode(text, pos)
        items.extend(doc.get("items", [doc]))
    return {"apiVersion": "v1", "kind": "List", "items": items}


def bind(tool_ns, sa, roles):
    """A ServiceAccount bound cluster-wide to each ClusterRole and in their
    own namespace to each Role of the given role files, exactly those."""
    items = [{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": sa, "namespace": tool_ns}}]
    subject = [{"kind": "ServiceAccount", "name": sa, "namespace": tool_ns}]
    for doc in roles:
        for r in doc.get("items", [doc]):
            if r["kind"] == "ClusterRole":
                items.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                              "metadata": {"name": f"{tool_ns}-{sa}-{r['metadata']['name'].split(':')[-1]}"},
                              "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                          "name": r["metadata"]["name"]}, "subjects": subject})
            elif r["kind"] == "Role":
                items.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                              "metadata": {"name": f"{tool_ns}-{sa}", "namespace": r["metadata"]["namespace"]},
                              "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                          "name": r["metadata"]["name"]}, "subjects": subject})
    kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return [i for i in items if i["kind"].endswith("Binding")]


def job(tool_ns, name, sa, program, args, volumes=None, env=None):
    """Runs PROGRAM ARGS as a Job under the ServiceAccount; returns (exit
    code, log, seconds)."""
    t = time.time()
    container = {"name": "tool", "image": IMAGE, "imagePullPolicy": "Never", "command": [f"/usr/bin/{program}"],
                 "args": args, "env": env or [],
                 "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                     "capabilities": {"drop": ["ALL"]}}}
    spec = {"serviceAccountName": sa, "restartPolicy": "Never",
            "securityContext": {"runAsNonRoot": True, "runAsUser": 65532, "fsGroup": 65532},
            "containers": [container]}
    if volumes:
        spec["volumes"] = [v for v, _ in volumes]
        container["volumeMounts"] = [m for _, m in volumes]
    kubectl("apply", "-f", "-", input=json.dumps(
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": tool_ns},
         "spec": {"backoffLimit": 0, "template": {"spec": spec}}}))

    def finished():
        pods = get_json("-n", tool_ns, "pods", "-l", f"batch.kubernetes.io/job-name={name}")["items"]
        for p in pods:
            for cs in (p.get("status") or {}).get("containerStatuses") or []:
                term = (cs.get("state") or {}).get("terminated")
                if term:
                    return p["metadata"]["name"], term["exitCode"]
                waiting = (cs.get("state") or {}).get("waiting") or {}
                if waiting.get("reason") in ("ErrImageNeverPull", "CreateContainerConfigError", "ErrImagePull"):
                    fail(f"the Job {name} cannot start: {waiting}")
        return None
    pod, code = ns_.wait_until(f"the Job {name} to finish", finished, timeout=240, interval=0.5)
    out = kubectl("-n", tool_ns, "logs", pod)
    took = time.time() - t
    log(f"Job {name}: {program} {' '.join(args)}: exit {code} in {took:.1f} s")
    return code, out, took


def main():
    ns_.load_env()
    t0 = time.time()
    check = ns_.Checks()

    # The image under test, into the node.
    t = time.time()
    run([ns_.tools("project-image"), os.environ["BUILD_ROOT"]])
    log(f"project image imported in {time.time() - t:.0f} s")

    ns_.delete_new_operator()
    ns_.deploy_legacy_operator(COMMIT, replicas=1)
    ns, tools = ns_.Namespace("ic-etcd"), ns_.Namespace("ic-tools")
    ns_.legacy_cluster(ns.name, "etcd", replicas=3, version="3.5.21", tls=True, auth=True)
    log(f"legacy cluster Ready after {time.time() - t0:.0f} s")
    ns_.scale(LEGACY_DEPLOYMENT, 0)
    ns_.deploy_new_operator(replicas=0)

    plan_role, apply_role, view_role = (rbac_docs(n) for n in
                                        ("etcd-migrate-plan", "etcd-migrate-apply", "kubectl-etcd-view"))
    bindings = []
    bindings += bind(tools.name, "planner", [plan_role])
    bindings += bind(tools.name, "adopter", [apply_role])
    bindings += bind(tools.name, "viewer", [view_role])

    # 1. The plan, read-only.
    code, out, _ = job(tools.name, "plan", "planner", "etcd-migrate",
                       ["adopt", "-n", ns.name, "--connect", "direct", "-o", "json"])
    check(code == 0, f"adopt (plan) in a Job: exit {code}\n{out}")
    plan = parse_json(check, out, "adopt (plan)")
    check(re.search(r'"action":\s*"adopt"', json.dumps(plan), re.I),
          f"the plan does not adopt {ns.name}/etcd: {out}")
    check(not get_json("-n", ns.name, "etcdclusters.etcd-operator.cozystack.io")["items"],
          "the plan created an EtcdCluster")

    # 2. The adoption, with a safety backup streamed to S3 through the Service.
    # (An object of an earlier run's cluster of the same name would be refused.)
    shutil.rmtree(os.path.join(ENV["TESTENV_S3_DIR"], BUCKET), ignore_errors=True)
    os.makedirs(os.path.join(ENV["TESTENV_S3_DIR"], BUCKET))
    kubectl("-n", ns.name, "create", "secret", "generic", "s3-credentials",
            f"--from-literal=AWS_ACCESS_KEY_ID={ENV['TESTENV_S3_ACCESS_KEY']}",
            f"--from-literal=AWS_SECRET_ACCESS_KEY={ENV['TESTENV_S3_SECRET_KEY']}")
    code, out, _ = job(tools.name, "adopt", "adopter", "etcd-migrate",
                       ["adopt", "-n", ns.name, "--connect", "direct", "--apply", "--yes",
                        "--backup-s3-endpoint", ENV["TESTENV_NODE_S3_ENDPOINT"], "--backup-s3-bucket", BUCKET,
                        "--backup-s3-force-path-style", "--backup-s3-credentials-secret", "s3-credentials",
                        "-o", "json"])
    check(code == 0, f"adopt --apply in a Job: exit {code}\n{out}")
    parse_json(check, out, "adopt --apply")
    obj = os.path.join(ENV["TESTENV_S3_DIR"], BUCKET, f"{ns.name}-etcd-migration.db")
    check(os.path.exists(obj), f"no safety backup at {obj}")
    if os.path.exists(obj):
        st = run([os.path.join(ENV["TESTENV_ETCD_35"], "etcdutl"), "snapshot", "status", obj, "-w", "json"],
                 check=False)
        check(st.returncode == 0, f"etcdutl snapshot status of the S3 object: {st.stdout} {st.stderr}")
    check(bool(get_json("-n", ns.name, "etcdclusters.etcd-operator.cozystack.io")["items"]),
          "no EtcdCluster of the new API after the adoption")

    # 3. kubectl-etcd against the adopted cluster, once the new operator
    # (the legacy install retired first: they share RBAC names) runs it.
    ns_.delete_legacy_operator(COMMIT)
    ns_.deploy_new_operator(replicas=1)
    ns_.wait_until("the operator to report the adopted cluster healthy", lambda: converged(ns.name), timeout=240)
    log(f"the new operator reports the cluster healthy after {time.time() - t0:.0f} s")
    base = ["-n", ns.name, "-c", "etcd", "--connect", "direct"]
    code, out, _ = job(tools.name, "health", "viewer", "kubectl-etcd", ["health", *base])
    check(code == 0, f"health in a Job: exit {code}\n{out}")
    code, out, _ = job(tools.name, "status", "viewer", "kubectl-etcd", ["status", *base, "-o", "json"])
    check(code == 0, f"status -o json in a Job: exit {code}\n{out}")
    status = parse_json(check, out, "status -o json")
    ips = {p["status"]["podIP"] for p in get_json("-n", ns.name, "pods")["items"]
           if re.fullmatch(r"etcd-\d+", p["metadata"]["name"])}
    text = json.dumps(status)
    check(len(ips) == 3 and all(ip in text for ip in ips),
          f"status did not reach the members at their Pod IPs {sorted(ips)}: {text}")
    kubectl("apply", "-f", "-", input=json.dumps(
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "snapshots", "namespace": tools.name},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}))
    code, out, _ = job(tools.name, "snapshot", "viewer", "kubectl-etcd",
                       ["snapshot", "save", *base, "/snapshots/etcd.db"],
                       volumes=[({"name": "snapshots", "persistentVolumeClaim": {"claimName": "snapshots"}},
                                 {"name": "snapshots", "mountPath": "/snapshots"})])
    check(code == 0, f"snapshot save in a Job: exit {code}\n{out}")
    pv = get_json("-n", tools.name, "pvc", "snapshots")["spec"]["volumeName"]
    snap = os.path.join(get_json("pv", pv)["spec"]["hostPath"]["path"], "etcd.db")
    st = run([os.path.join(ENV["TESTENV_ETCD_35"], "etcdutl"), "snapshot", "status", snap, "-w", "json"],
             check=False)
    check(st.returncode == 0 and json.loads(st.stdout or "{}").get("totalKey", 0) > 0,
          f"etcdutl snapshot status of the PVC's file: {st.stdout} {st.stderr}")

    # 4. A role without one verb: one line naming the verb and the object, exit 7.
    cut = json.loads(json.dumps(view_role))
    items = cut.get("items", [cut])
    for r in items:
        r["metadata"]["name"] = r["metadata"]["name"].replace("kubectl-etcd-view", "kubectl-etcd-view-nolist")
        r["metadata"].pop("resourceVersion", None)
        if r["kind"] == "ClusterRole":
            for rule in r["rules"]:
                if rule.get("resources") == ["pods"]:
                    rule["verbs"] = [v for v in rule["verbs"] if v != "list"]
    kubectl("apply", "-f", "-", input=json.dumps(cut))
    bindings += bind(tools.name, "narrow", [cut])
    code, out, _ = job(tools.name, "denied", "narrow", "kubectl-etcd", ["health", *base])
    errors = [x for x in out.splitlines() if x.startswith("error")]
    check(code == 7, f"health without list pods: exit {code}, 7 wanted\n{out}")
    check(len(errors) == 1 and "list" in errors[0] and "pods" in errors[0] and ns.name in errors[0],
          f"health without list pods: not one line naming the verb and the object:\n{out}")

    log(f"took {time.time() - t0:.0f} s")
    check.done()
    for b in bindings:
        if b["kind"] == "ClusterRoleBinding":
            kubectl("delete", "clusterrolebinding", b["metadata"]["name"], "--ignore-not-found")
        else:
            kubectl("-n", b["metadata"]["namespace"], "delete", "rolebinding", b["metadata"]["name"],
                    "--ignore-not-found")
    for r in items:
        if r["kind"] == "ClusterRole":
            kubectl("delete", "clusterrole", r["metadata"]["name"], "--ignore-not-found")
    ns.delete()
    tools.delete()
    print("PASS")


def converged(ns):
    c = get_json("-n", ns, "etcdclusters.etcd-operator.cozystack.io", "etcd")
    st = c.get("status") or {}
    conds = {x["type"]: x.get("reason") for x in st.get("conditions") or []}
    return st.get("readyMembers") == 3 and conds.get("Available") == "QuorumHealthy"


def parse_json(check, out, what):
    """The one JSON document of a program's output (its stderr lines, which
    the log mixes in, are not JSON)."""
    start = out.find("{")
    try:
        return json.JSONDecoder().raw_decode(out[start:])[0] if start >= 0 else {}
    except json.JSONDecodeError as e:
        check(False, f"{what}: no JSON document in the log ({e}):\n{out}")
        return {}


if __name__ == "__main__":
    main()
