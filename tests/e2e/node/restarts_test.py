#!/usr/bin/env python3
"""Restarts and probes on the real node (docs/node-world.md#restarts).

The v1alpha2 operator (a Deployment from its chart) makes a 3-member
cluster. Then, each judged by what `health`, `status` and `check` tell a
user:

1. A member's etcd is killed inside its container (containerd kills the
   task): the kubelet starts it again; `status -o json` shows its restart
   count and the member back, `health` and `check` are clean.
2. Break-glass `member replace --stop-operator` (the operator scaled to 0
   and back by the tool, which renders the new Pod itself; `check` then
   names that one Pod, HAND_RENDERED_POD), then `member roll` of the new
   member (the operator recreates its Pod): each waits on the kubelet's
   real readiness probe of the new Pod.
3. The operator's self-heal: a directory takes the place of a member's bolt
   database and its etcd is killed; it crash-loops (the node restarts a container at most 10 s
   apart), `check` reports RESTARTING_MEMBER with the restart count, the
   operator deletes the member after 5 restarts and fills the gap with a new
   one, and `check` is clean again.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import node_support as ns_  # noqa: E402
from node_support import fail, get_json, kubectl, log, run  # noqa: E402

CLUSTER = "etcd"
ETCD_CLUSTERS = "etcdclusters.etcd-operator.cozystack.io"
ETCD_MEMBERS = "etcdmembers.etcd-operator.cozystack.io"


def cluster_ready(ns, replicas):
    st = get_json("-n", ns, ETCD_CLUSTERS, CLUSTER).get("status") or {}
    conds = {x["type"]: x.get("reason") for x in st.get("conditions") or []}
    return st.get("readyMembers") == replicas and conds.get("Available") == "QuorumHealthy"


def members(ns):
    return sorted(m["metadata"]["name"] for m in get_json("-n", ns, ETCD_MEMBERS)["items"]
                  if not m["metadata"].get("deletionTimestamp"))


def etcd_status(ns, pod):
    """The kubelet's status of a Pod's etcd container."""
    p = get_json("-n", ns, "pod", pod)
    for c in (p.get("status") or {}).get("containerStatuses") or []:
        if c["name"] == "etcd":
            return c
    return {}


def tool(*args, env=None):
    return run([ns_.program("kubectl-etcd"), *args], check=False, env=env)


def leader(ns):
    st = json.loads(tool("status", "-n", ns, "-c", CLUSTER, "-o", "json").stdout)
    return next(m["name"] for m in st["members"] if m["role"] == "leader")


def findings(ns):
    r = tool("check", "-n", ns, "-c", CLUSTER, "-o", "json")
    return r.returncode, json.loads(r.stdout or "{}").get("findings", [])


def main():
    ns_.load_env()
    t0 = time.time()
    ns = ns_.Namespace("restarts")
    check = ns_.Checks()

    def clean(what):
        # The operator writes its status a moment after a change settles.
        end = time.time() + 90
        while (v := findings(ns.name))[0] != 0:
            if time.time() > end:
                fail(f"check not clean 90 s {what}: exit {v[0]}, {v[1]}")
            time.sleep(3)
        h = tool("health", "-n", ns.name, "-c", CLUSTER)
        check(h.returncode == 0, f"health {what}: exit {h.returncode}: {h.stdout} {h.stderr}")

    ns_.delete_legacy_operator("v0.4.2")
    ns_.deploy_new_operator(replicas=1)
    kubectl("apply", "-f", "-", input=json.dumps(
        {"apiVersion": "etcd-operator.cozystack.io/v1alpha2", "kind": "EtcdCluster",
         "metadata": {"name": CLUSTER, "namespace": ns.name},
         "spec": {"replicas": 3, "version": "3.5.21", "storage": {"size": "1Gi"}}}))
    ns_.wait_until("the operator's cluster Ready", lambda: cluster_ready(ns.name, 3), timeout=240)
    log(f"cluster Ready after {time.time() - t0:.0f} s")
    clean("after bootstrap")

    # 1. etcd killed inside its container; the kubelet starts it again.
    t1 = time.time()
    victim = next(m for m in members(ns.name) if m != leader(ns.name))
    before = etcd_status(ns.name, victim)
    cid = before["containerID"].split("://", 1)[1]
    run(["ctr", "-a", ns_.ENV["TESTENV_CONTAINERD"], "-n", "k8s.io", "tasks", "kill", "-s", "KILL", cid])
    ns_.wait_until(f"the kubelet to start {victim}'s etcd again and see it Ready",
                   lambda: (s := etcd_status(ns.name, victim)).get("restartCount", 0) > before["restartCount"]
                   and s.get("ready"), timeout=120)
    st = tool("status", "-n", ns.name, "-c", CLUSTER, "-o", "json")
    check(st.returncode == 0, f"status after the kill: exit {st.returncode}: {st.stderr}")
    rows = {m["name"]: m for m in json.loads(st.stdout)["members"]}
    check(rows[victim]["restarts"] == before["restartCount"] + 1,
          f"status shows {victim} with restarts {rows[victim].get('restarts')}, "
          f"the kubelet {before['restartCount'] + 1}")
    check(rows[victim]["role"] in ("follower", "leader"), f"{victim} not back: {rows[victim]}")
    wide = tool("status", "-n", ns.name, "-c", CLUSTER, "-o", "wide").stdout
    check("RESTARTS" in wide, f"status -o wide has no RESTARTS column:\n{wide}")
    clean("after the kill")
    log(f"kill and restart: {time.time() - t1:.0f} s")

    # 2. Break-glass replace, the operator stopped and started again by the
    # tool, which renders the new member's Pod itself; then `member roll` of
    # that member, which has the operator recreate the Pod from its template.
    # Each returns only once the kubelet's readiness probe passes.
    t2 = time.time()
    replaced = next(m for m in members(ns.name) if m != leader(ns.name))
    old = set(members(ns.name))
    r = tool("member", "replace", replaced, "-n", ns.name, "-c", CLUSTER, "--break-glass", "--stop-operator",
             "--yes", "--timeout", "3m", "-o", "json")
    check(r.returncode == 0, f"member replace --break-glass: exit {r.returncode}: {r.stdout} {r.stderr}")
    now = members(ns.name)
    check(replaced not in now and len(now) == 3, f"after replace of {replaced}: members {now}")
    for m in now:
        c = etcd_status(ns.name, m)
        check(c.get("ready"), f"replace returned before {m} was Ready: {c}")
    dep = get_json("-n", "etcd-operator-system", "deployment", "etcd-operator")
    check(dep["spec"]["replicas"] == 1, f"--stop-operator left the operator at {dep['spec']['replicas']} replicas")
    log(f"member replace --break-glass --stop-operator: {time.time() - t2:.0f} s")
    new = sorted(set(now) - old)
    check(len(new) == 1, f"replace made {new}")
    # The tool returns once the operator's replicas are put back, not once
    # its Pod is Ready and leads again (docs/break-glass-design.md#operator-active);
    # until then check reports OPERATOR_INACTIVE.
    ns_.wait_until("the operator back", lambda: all(f["code"] != "OPERATOR_INACTIVE" for f in findings(ns.name)[1]),
                   timeout=120, interval=2)
    log(f"the operator active again {time.time() - t2:.0f} s after the replace began")
    # What is left to do is said by check: the one Pod the operator did not render.
    rc, fs = findings(ns.name)
    check(rc == 1 and [(f["code"], f["member"]) for f in fs] == [("HAND_RENDERED_POD", new[0])],
          f"check after the break-glass replace: exit {rc}, {fs}")

    t3 = time.time()
    rolled = new[0]
    uid = get_json("-n", ns.name, "pod", rolled)["metadata"]["uid"]
    r = tool("member", "roll", rolled, "-n", ns.name, "-c", CLUSTER, "--yes", "--timeout", "3m")
    check(r.returncode == 0, f"member roll: exit {r.returncode}: {r.stdout} {r.stderr}")
    pod = get_json("-n", ns.name, "pod", rolled)
    check(pod["metadata"]["uid"] != uid, f"{rolled}'s Pod was not recreated")
    ready = [c for c in pod["status"].get("conditions") or [] if c["type"] == "Ready"]
    check(ready and ready[0]["status"] == "True", f"roll returned before {rolled}'s Pod was Ready: {ready}")
    log(f"member roll of the hand-rendered member: {time.time() - t3:.0f} s")
    clean("after the roll")

    # 3. The operator's self-heal of a member that cannot start.
    t4 = time.time()
    sick = next(m for m in members(ns.name) if m != leader(ns.name))
    pv = get_json("-n", ns.name, "pvc", f"data-{sick}")["spec"]["volumeName"]
    root = get_json("pv", pv)["spec"]["hostPath"]["path"]
    dbs = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f == "db" and d.endswith("snap")]
    if len(dbs) != 1:
        fail(f"no single bolt database under {root}: {dbs}")
    # The running etcd keeps its open file; the one it starts next finds a
    # directory where its database was and exits, every time.
    os.rename(dbs[0], dbs[0] + ".moved-by-test")
    os.mkdir(dbs[0])
    cid = etcd_status(ns.name, sick)["containerID"].split("://", 1)[1]
    run(["ctr", "-a", ns_.ENV["TESTENV_CONTAINERD"], "-n", "k8s.io", "tasks", "kill", "-s", "KILL", cid])
    seen = {}

    def reported():
        rc, fs = findings(ns.name)
        f = next((f for f in fs if f["code"] == "RESTARTING_MEMBER" and f["member"] == sick), None)
        if f:
            seen.update(rc=rc, finding=f)
        return f
    ns_.wait_until(f"check to report {sick} restarting", reported, timeout=120, interval=2)
    f = seen["finding"]
    check(seen["rc"] == 1, f"check with a restarting member: exit {seen['rc']}")
    check(f["severity"] == "transient", f"with the operator running the finding is transient: {f}")
    check("restarted" in f["message"] and "5 times" in f["message"], f"finding message: {f['message']}")
    log(f"check while {sick} crash-loops: {f['message']}")
    ns_.wait_until(f"the operator to replace {sick}", lambda: sick not in members(ns.name), timeout=240, interval=3)
    ns_.wait_until("the gap filled", lambda: cluster_ready(ns.name, 3) and len(members(ns.name)) == 3,
                   timeout=240, interval=3)
    check(sick not in members(ns.name), f"{sick} still there")
    clean("after the self-heal")
    log(f"self-heal: {time.time() - t4:.0f} s")

    log(f"took {time.time() - t0:.0f} s")
    check.done()
    ns.delete()
    print("PASS")


if __name__ == "__main__":
    main()
