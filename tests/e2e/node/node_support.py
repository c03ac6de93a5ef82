"""Helpers of the e2e tests on the real node (tests/testenv/up --node): the
legacy operator makes the clusters, the kubelet runs their Pods, the
v1alpha2 operator runs as a Deployment. Each helper drives what a user
drives: kubectl, the programs, the operators' own manifests."""
import json
import os
import subprocess
import sys
import threading
import time

ENV = {}
# The legacy operator's Deployment (its install's name) and this project's
# least-privilege roles.
LEGACY_DEPLOYMENT = "etcd-operator-controller-manager"
RBAC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "packaging", "rbac")


def load_env():
    path = os.environ.get("TESTENV_ENV_FILE")
    if not path or not os.path.exists(path):
        fail("no test environment: set TESTENV_ENV_FILE to the env file of tests/testenv/up --node")
    out = subprocess.run(["bash", "-c", f". '{path}' && env -0"], capture_output=True, check=True).stdout
    for kv in out.split(b"\0"):
        if b"=" in kv:
            k, v = kv.decode().split("=", 1)
            ENV[k] = v
    if ENV.get("TESTENV_WORLD") != "node":
        fail(f"{path} is an environment without a node (start one with tests/testenv/up --node)")
    os.environ.update({k: v for k, v in ENV.items() if k.startswith("TESTENV_") or k == "KUBECONFIG"})


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Checks:
    """A test's checks: each failed one is logged and kept, so one run of a
    long journey reports all that failed; done() fails the test with them."""

    def __init__(self):
        self.failures = []

    def __call__(self, ok, msg):
        if not ok:
            self.failures.append(msg)
            log(f"CHECK FAILED: {msg}")

    def done(self):
        if self.failures:
            fail(f"{len(self.failures)} check(s) failed:\n- " + "\n- ".join(self.failures))


def run(cmd, check=True, input=None, env=None, timeout=600):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(cmd, capture_output=True, text=True, input=input, env=e, timeout=timeout)
    if check and r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}")
    return r


def kubectl(*args, check=True, input=None):
    return run([ENV["TESTENV_KUBECTL"], *args], check=check, input=input).stdout


def get_json(*args):
    """kubectl get ARGS as JSON."""
    return json.loads(kubectl("get", *args, "-o", "json"))


def program(name):
    return os.path.join(os.environ["BUILD_ROOT"], "tools", name, name)


def wait_until(what, pred, timeout=180, interval=1.0):
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(interval)
    fail(f"timed out after {timeout} s waiting for {what}")


def tools(*args):
    return os.path.join(ENV["TESTENV_TOOLS"], *args)


def deploy_legacy_operator(commit, replicas=1):
    run([tools("deploy-operator"), "legacy", "--commit", commit, "--replicas", str(replicas)],
        env={"TESTENV_DIR": ENV["TESTENV_DIR"]})


def delete_new_operator():
    run([tools("deploy-operator"), "v1alpha2", "--delete"], env={"TESTENV_DIR": ENV["TESTENV_DIR"]})


def delete_legacy_operator(commit):
    run([tools("deploy-operator"), "legacy", "--commit", commit, "--delete"],
        env={"TESTENV_DIR": ENV["TESTENV_DIR"]})


def deploy_new_operator(replicas=1):
    run([tools("deploy-operator"), "v1alpha2", "--replicas", str(replicas)],
        env={"TESTENV_DIR": ENV["TESTENV_DIR"]})


def scale(deployment, replicas, ns="etcd-operator-system"):
    kubectl("-n", ns, "scale", "deployment", deployment, f"--replicas={replicas}")
    if replicas == 0:
        wait_until(f"the Pods of {deployment} to be gone", lambda: not pods_of(ns, deployment))


def pods_of(ns, deployment):
    """The Pods of a Deployment by owner (ReplicaSet, then Deployment): the
    legacy and the v1alpha2 operators' Pods share the label
    control-plane=controller-manager, so a selector would mix them."""
    uid = get_json("-n", ns, "deployment", deployment)["metadata"]["uid"]
    rs = {r["metadata"]["uid"] for r in get_json("-n", ns, "replicasets")["items"]
          if any(o["uid"] == uid for o in r["metadata"].get("ownerReferences") or [])}
    return [p["metadata"]["name"] for p in get_json("-n", ns, "pods")["items"]
            if any(o["uid"] in rs for o in p["metadata"].get("ownerReferences") or [])]


class Namespace:
    def __init__(self, name):
        self.name = name
        if kubectl("get", "namespace", name, "--ignore-not-found", "-o", "name").strip():
            # Left by an earlier run in this environment: its EtcdMembers keep
            # the v1alpha2 operator's finalizer after that run deleted the
            # operator, which would hold the namespace Terminating for ever.
            for kind in ("etcdmembers.etcd-operator.cozystack.io", "etcdclusters.etcd-operator.cozystack.io"):
                for obj in kubectl("-n", name, "get", kind, "-o", "name").split():
                    kubectl("-n", name, "patch", obj, "--type", "merge", "-p", '{"metadata":{"finalizers":null}}',
                            check=False)
        kubectl("delete", "namespace", name, "--ignore-not-found", "--wait=true", "--timeout=120s")
        kubectl("create", "namespace", name)

    def delete(self):
        kubectl("delete", "namespace", self.name, "--wait=false")


def legacy_cluster(ns, name, replicas=3, version="3.5.21", tls=False, auth=False, storage="1Gi", pdb=False,
                   empty_dir=False):
    """A legacy EtcdCluster made by the real legacy operator, Ready."""
    args = [tools("legacy-cluster"), "--name", name, "--namespace", ns, "--replicas", str(replicas),
            "--version", version, "--storage", storage]
    args += ["--tls"] if tls else []
    args += ["--auth"] if auth else []
    args += ["--pdb"] if pdb else []
    args += ["--empty-dir"] if empty_dir else []
    run(args)


def container_state(ns):
    """Per Pod: uid, and per container its id and restart count, as the
    kubelet reports them."""
    out = {}
    for p in get_json("-n", ns, "pods")["items"]:
        out[p["metadata"]["name"]] = {
            "uid": p["metadata"]["uid"],
            "containers": {c["name"]: (c.get("containerID"), c.get("restartCount"))
                           for c in (p.get("status") or {}).get("containerStatuses") or []}}
    return out


class Writer:
    """A tenant's client in a Pod: puts /w/<i> = <i> through the client
    Service's DNS name every 100 ms with the cluster's client certificate
    until told to stop, then lists the keys it finds. A failed put is logged
    as "fail <i> <start> <end> <HH:MM:SS> <error> dns: <answer then>", start
    and end read from /proc/uptime (the host's, see uptime_to_time)."""

    def __init__(self, ns, cluster, tls=True):
        self.ns, self.name = ns, f"{cluster}-writer"
        scheme = "https" if tls else "http"
        flags = "--cacert /pki/ca.crt --cert /pki/tls.crt --key /pki/tls.key" if tls else ""
        ep = f"{scheme}://{cluster}.{ns}.svc:2379"
        script = (f"E='etcdctl --endpoints {ep} {flags} --command-timeout 3s --dial-timeout 2s'; i=0; "
                  "while [ ! -e /tmp/stop ]; do i=$((i+1)); "
                  f"read t0 _ </proc/uptime; if $E put /w/$i $i >/dev/null 2>/tmp/err; then echo ok $i; "
                  f"else read t1 _ </proc/uptime; echo fail $i $t0 $t1 $(date +%T) $(grep -o \'\"error\":\"[^\"]*\"\' /tmp/err | tail -n 1) $(grep -v level /tmp/err | tail -n 1) dns: $(nslookup {cluster}.{ns}.svc.cluster.local 2>&1 | sed -n \'s/^Address: *//p\' | tr \'\\n\' \' \'); fi; "
                  "sleep 0.1; done; "
                  "for t in 1 2 3 4 5 6 7 8 9 10; do if $E get --prefix /w/ --keys-only > /tmp/keys; then break; fi; sleep 2; done; "
                  "sed -n 's|^/w/|key |p' /tmp/keys; echo done")
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": self.name, "namespace": ns},
               "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
                        "containers": [{"name": "writer", "image": f"testenv.local/etcd-tools:v{ENV_ETCD35}",
                                        "command": ["sh", "-c", script],
                                        "volumeMounts": [{"name": "pki", "mountPath": "/pki"}] if tls else []}],
                        "volumes": [{"name": "pki", "secret": {"secretName": f"{cluster}-client-tls"}}] if tls else []}}
        kubectl("apply", "-f", "-", input=json.dumps(pod))
        wait_until("the writer Pod running",
                   lambda: get_json("-n", ns, "pod", self.name)["status"].get("phase") == "Running", timeout=60)
        wait_until("the writer's first put", lambda: "ok " in kubectl("-n", ns, "logs", self.name), timeout=60)

    def stop(self):
        kubectl("-n", self.ns, "exec", self.name, "--", "touch", "/tmp/stop")
        wait_until("the writer to list its keys",
                   lambda: get_json("-n", self.ns, "pod", self.name)["status"].get("phase") in ("Succeeded", "Failed"),
                   timeout=60)
        lines = kubectl("-n", self.ns, "logs", self.name).splitlines()
        ok = {int(line.split()[1]) for line in lines if line.startswith("ok ")}
        failed = [line for line in lines if line.startswith("fail ")]
        keys = {int(line.split()[1]) for line in lines if line.startswith("key ")}
        return ok, failed, keys, "done" in lines


def uptime_to_time(uptime):
    """A /proc/uptime reading (a Pod's is the host's) as a time.time() value."""
    with open("/proc/uptime") as f:
        now_up = float(f.read().split()[0])
    return time.time() - now_up + float(uptime)


class NameWatch:
    """What the cluster DNS can answer for Service `name` while it runs: the
    Service's and its EndpointSlices' watch events, put in the store's own
    order (resourceVersion) across the two streams. A headless Service
    answers with its slices' addresses, none when it has no slice with an
    endpoint; a ClusterIP Service with its address."""

    def __init__(self, ns, name):
        self.ns, self.name, self.events, self.procs = ns, name, [], []
        for kind in ("services", "endpointslices"):
            p = subprocess.Popen([ENV["TESTENV_KUBECTL"], "-n", ns, "get", kind, "--watch",
                                  "--output-watch-events", "-o", "json"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            self.procs.append(p)
            threading.Thread(target=self._read, args=(kind, p), daemon=True).start()
        time.sleep(1)  # each stream's initial ADDED events

    def _read(self, kind, p):
        dec, buf = json.JSONDecoder(), ""
        for line in p.stdout:
            buf += line
            try:
                ev, _ = dec.raw_decode(buf.strip())
            except ValueError:
                continue
            buf = ""
            self.events.append((time.time(), kind, ev["type"], ev["object"]))

    def stop(self):
        """(windows without a Service in ms by arrival time, states of a
        headless Service without addresses): what a lookup between the
        events would have found."""
        time.sleep(2)
        for p in self.procs:
            p.terminate()
        def rv(e):
            return int(e[3]["metadata"].get("resourceVersion") or 0)
        service, slices, gone_since, gaps, empty = None, {}, None, [], []
        for t, kind, typ, obj in sorted(self.events, key=rv):
            md = obj["metadata"]
            if kind == "services" and md["name"] == self.name:
                service = None if typ == "DELETED" else obj
                if service is None and gone_since is None:
                    gone_since = t
                elif service is not None and gone_since is not None:
                    gaps.append(round((t - gone_since) * 1000))
                    gone_since = None
            elif kind == "endpointslices" and (md.get("labels") or {}).get("kubernetes.io/service-name") == self.name:
                if typ == "DELETED":
                    slices.pop(md["name"], None)
                else:
                    slices[md["name"]] = obj
            if (service is not None and service["spec"].get("clusterIP") == "None"
                    and not any(s.get("endpoints") for s in slices.values())):
                empty.append(f"{typ} {kind}/{md['name']} rv {md.get('resourceVersion')}")
        return gaps, empty


ENV_ETCD35 = "3.5.21"
