"""Helpers of the e2e tests on the real node (tests/testenv/up --node): the
legacy operator makes the clusters, the kubelet runs their Pods, the
v1alpha2 operator runs as a Deployment. Each helper drives what a user
drives: kubectl, the programs, the operators' own manifests."""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

ENV = {}


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
        kubectl("delete", "namespace", name, "--ignore-not-found", "--wait=true", "--timeout=120s")
        kubectl("create", "namespace", name)

    def delete(self):
        kubectl("delete", "namespace", self.name, "--wait=false")


def pki(workdir, cluster, ns):
    """A CA and server, peer and client (CN=root) certificates for a legacy
    cluster's members, as Secrets of the shape the legacy operator takes."""
    def ssl(*args):
        run(["openssl", *args])
    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "365", "-subj", f"/CN={cluster}-ca",
        "-keyout", f"{workdir}/ca.key", "-out", f"{workdir}/ca.crt")
    sans = ",".join([f"DNS:*.{cluster}-headless.{ns}.svc", f"DNS:*.{cluster}-headless.{ns}.svc.cluster.local",
                     f"DNS:*.{cluster}.{ns}.svc", f"DNS:{cluster}.{ns}.svc",
                     f"DNS:{cluster}.{ns}.svc.cluster.local", f"DNS:{cluster}-client.{ns}.svc",
                     "DNS:localhost", "IP:127.0.0.1"])
    for name, cn, eku, san in (("server", "etcd-server", "serverAuth,clientAuth", sans),
                               ("peer", "etcd-peer", "serverAuth,clientAuth", sans),
                               ("client", "root", "clientAuth", None)):
        with open(f"{workdir}/{name}.ext", "w") as f:
            f.write(f"basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                    f"extendedKeyUsage={eku}\n" + (f"subjectAltName={san}\n" if san else ""))
        ssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={cn}", "-keyout", f"{workdir}/{name}.key",
            "-out", f"{workdir}/{name}.csr")
        ssl("x509", "-req", "-in", f"{workdir}/{name}.csr", "-CA", f"{workdir}/ca.crt", "-CAkey",
            f"{workdir}/ca.key", "-CAcreateserial", "-days", "365", "-extfile", f"{workdir}/{name}.ext",
            "-out", f"{workdir}/{name}.crt")

    def b64(name):
        return base64.b64encode(open(f"{workdir}/{name}", "rb").read()).decode()

    secrets = []
    for sname, crt, key in ((f"{cluster}-ca-tls", "ca.crt", "ca.key"), (f"{cluster}-server-tls", "server.crt", "server.key"),
                            (f"{cluster}-peer-tls", "peer.crt", "peer.key"), (f"{cluster}-client-tls", "client.crt", "client.key")):
        secrets.append({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
                        "metadata": {"name": sname, "namespace": ns},
                        "data": {"tls.crt": b64(crt), "tls.key": b64(key), "ca.crt": b64("ca.crt")}})
    return secrets


def legacy_cluster(ns, name, replicas=3, version="3.5.21", tls=False, auth=False, storage="1Gi"):
    """A legacy EtcdCluster made by the real legacy operator; returns once its
    StatefulSet is ready and the operator reports the cluster Ready."""
    objs = []
    spec = {"replicas": replicas,
            "podTemplate": {"spec": {"containers": [{"name": "etcd", "image": f"quay.io/coreos/etcd:v{version}"}]}},
            "storage": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"],
                                                          "resources": {"requests": {"storage": storage}}}}}}
    if tls:
        with tempfile.TemporaryDirectory() as d:
            objs += pki(d, name, ns)
        spec["security"] = {"enableAuth": auth, "tls": {
            "peerTrustedCASecret": f"{name}-ca-tls", "peerSecret": f"{name}-peer-tls",
            "serverTrustedCASecret": f"{name}-ca-tls", "serverSecret": f"{name}-server-tls",
            "clientTrustedCASecret": f"{name}-ca-tls", "clientSecret": f"{name}-client-tls"}}
    objs.append({"apiVersion": "etcd.aenix.io/v1alpha1", "kind": "EtcdCluster",
                 "metadata": {"name": name, "namespace": ns}, "spec": spec})
    kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))

    def ready():
        c = get_json("-n", ns, "etcdclusters.etcd.aenix.io", name)
        conds = {x["type"]: x for x in (c.get("status") or {}).get("conditions") or []}
        sts = get_json("-n", ns, "statefulsets")["items"]
        return (conds.get("Ready", {}).get("status") == "True" and sts
                and sts[0].get("status", {}).get("readyReplicas") == replicas)
    wait_until(f"legacy EtcdCluster {ns}/{name} Ready with {replicas} ready Pods", ready, timeout=240)


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
    until told to stop, then lists the keys it finds."""

    def __init__(self, ns, cluster, tls=True):
        self.ns, self.name = ns, f"{cluster}-writer"
        scheme = "https" if tls else "http"
        flags = "--cacert /pki/ca.crt --cert /pki/tls.crt --key /pki/tls.key" if tls else ""
        ep = f"{scheme}://{cluster}.{ns}.svc:2379"
        script = (f"E='etcdctl --endpoints {ep} {flags} --command-timeout 3s --dial-timeout 2s'; i=0; "
                  "while [ ! -e /tmp/stop ]; do i=$((i+1)); "
                  "if $E put /w/$i $i >/dev/null 2>/tmp/err; then echo ok $i; else echo fail $i $(date +%T) $(grep -o \'\"error\":\"[^\"]*\"\' /tmp/err | tail -n 1) $(grep -v level /tmp/err | tail -n 1); fi; "
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


ENV_ETCD35 = "3.5.21"
