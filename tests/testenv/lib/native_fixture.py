#!/usr/bin/env python3
"""Lays out a native (etcd-operator.cozystack.io/v1alpha2) EtcdCluster in the
test apiserver as the etcd operator leaves a converged cluster
(docs/operator-contract.md), backed by a real etcd cluster on loopback IPs whose member names
are the pod names and whose URLs are the operator's member DNS names. Run
through tests/testenv/native-fixture.
"""

import argparse
import base64
import datetime
import hashlib
import json
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GROUP = "etcd-operator.cozystack.io"
API = GROUP + "/v1alpha2"
LABEL_CLUSTER = GROUP + "/cluster"
LABEL_ROLE = GROUP + "/role"
FINALIZER = GROUP + "/member-cleanup"
IMAGE_REPO = "quay.io/coreos/etcd"
DEFAULT_VERSION = {"3.4": "3.4.23", "3.5": "3.5.21", "3.6": "3.6.11"}
# The apiserver's generateName alphabet (k8s.io/apimachinery/pkg/util/rand).
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


def log(msg):
    print("native-fixture: " + msg, file=sys.stderr, flush=True)


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class KubectlError(Exception):
    pass


def kubectl(*args, data=None, check=True):
    cmd = [os.environ["TESTENV_KUBECTL"], *args]
    p = subprocess.run(cmd, input=None if data is None else json.dumps(data),
                       capture_output=True, text=True)
    if check and p.returncode != 0:
        raise KubectlError(f"kubectl {' '.join(args[:3])}: {p.stderr.strip()}")
    return p


def create(objs):
    out = kubectl("create", "-o", "json", "-f", "-",
                  data={"apiVersion": "v1", "kind": "List", "items": objs}).stdout
    dec, items, i = json.JSONDecoder(), [], 0
    while i < len(out):
        if out[i].isspace():
            i += 1
            continue
        doc, i = dec.raw_decode(out, i)
        items.extend(doc["items"] if doc.get("kind") == "List" else [doc])
    return items


def patch_status(kind, name, ns, status):
    kubectl("patch", kind, name, "-n", ns, "--subresource=status", "--type=merge",
            "-p", json.dumps({"status": status}))


def b64(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def cond(type_, status, reason, message, ts, gen=1):
    return {"type": type_, "status": status, "reason": reason, "message": message,
            "lastTransitionTime": ts, "observedGeneration": gen}


class Fixture:
    def __init__(self, a):
        self.a = a
        self.c = a.name
        self.ns = a.namespace
        self.n = a.members
        self.version = a.version
        self.tls = a.tls
        self.auth = a.auth
        self.cs = "https" if a.tls else "http"
        self.ps = "https" if a.tls else "http"
        self.dir = a.dir or os.path.join(os.environ["TESTENV_DIR"], "fixtures", f"native.{self.ns}.{self.c}")
        self.etcd_dir = os.path.join(self.dir, "etcd")
        rnd = random.SystemRandom()
        names = set()
        while len(names) < self.n:
            names.add(self.c + "-" + "".join(rnd.choice(ALPHANUMS) for _ in range(5)))
        self.members = sorted(names)
        self.password = "".join(rnd.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(24))
        self.server_secret = f"{self.c}-server-tls"
        self.peer_secret = f"{self.c}-peer-tls"
        self.client_secret = f"{self.c}-operator-client-tls"
        self.root_secret = f"{self.c}-root-credentials"

    def cluster_labels(self):
        return {"app.kubernetes.io/name": "etcd", "app.kubernetes.io/instance": self.c,
                "app.kubernetes.io/managed-by": "etcd-operator", LABEL_CLUSTER: self.c}

    def member_labels(self, m):
        return {**self.cluster_labels(), "app.kubernetes.io/component": m}

    def dns(self, m):
        return f"{m}.{self.c}.{self.ns}.svc"

    def ctl(self, *args):
        p = subprocess.run([os.path.join(HERE, "etcd-cluster"), "ctl", "--dir", self.etcd_dir, "--", *args],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"native-fixture: etcdctl {' '.join(args)}: {p.stderr.strip()}")
        return p.stdout

    @staticmethod
    def owner(obj):
        return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": obj["metadata"]["name"],
                "uid": obj["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}

    # --- the real etcd -----------------------------------------------------
    def start_etcd(self, token):
        cmd = [os.path.join(HERE, "etcd-cluster"), "up", "--dir", self.etcd_dir,
               "--version", self.version, "--names", ",".join(self.members),
               "--peer-dns", f"%s.{self.c}.{self.ns}.svc", "--token", token,
               "--host", f"{self.c}-client.{self.ns}.svc", "--host", f"{self.c}.{self.ns}.svc"]
        if self.tls:
            cmd += ["--tls", "--san", f"*.{self.c}.{self.ns}.svc", "--san", f"{self.c}-client.{self.ns}.svc"]
        if self.a.quota_backend_bytes:
            cmd += ["--quota-backend-bytes", str(self.a.quota_backend_bytes)]
        log(f"starting etcd {self.version} members {','.join(self.members)}")
        if subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode != 0:
            raise SystemExit("native-fixture: etcd-cluster up failed")
        with open(os.path.join(self.etcd_dir, "cluster.json")) as f:
            self.cluster = json.load(f)
        self.ips = {m["name"]: m["ip"] for m in self.cluster["members"]}
        pki = os.path.join(self.etcd_dir, "pki")
        if self.tls:
            # The operator's client identity: not CN root, so that with auth on
            # only the root password (not the certificate) grants access.
            subprocess.run(["bash", "-c", f'. "{HERE}/lib/pki.sh"; pki_cert "$1" ca operator-client '
                            '"/CN=etcd-operator-client" client', "pki", pki], check=True)
        if self.auth:
            # As the operator does (docs/rules.md#operator-auth-enable): root with the
            # Secret's password, role root, auth enable.
            self.ctl("user", "add", f"root:{self.password}")
            self.ctl("user", "grant-role", "root", "root")
            self.ctl("auth", "enable")
        lst = json.loads(self.ctl("member", "list", "-w", "json"))
        self.cluster_id = "%016x" % lst["header"]["cluster_id"]
        self.ids = {m["name"]: "%016x" % m["ID"] for m in lst["members"]}
        st = json.loads(self.ctl("endpoint", "status", "-w", "json"))
        self.full_version = st[0]["Status"]["version"]

    # --- objects -------------------------------------------------------------
    def secrets(self):
        out = []
        if self.tls:
            pki = os.path.join(self.etcd_dir, "pki")

            def tls(name, crt):
                return {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
                        "metadata": {"name": name, "namespace": self.ns},
                        "data": {"tls.crt": b64(f"{pki}/{crt}.crt"), "tls.key": b64(f"{pki}/{crt}.key"),
                                 "ca.crt": b64(f"{pki}/ca.crt")}}
            out += [tls(self.server_secret, "server"), tls(self.peer_secret, "peer"),
                    tls(self.client_secret, "operator-client")]
        if self.auth:
            out.append({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/basic-auth",
                        "metadata": {"name": self.root_secret, "namespace": self.ns},
                        "stringData": {"username": "root", "password": self.password}})
        return out

    def cluster_spec(self):
        spec = {"replicas": self.n, "version": self.full_version, "storage": {"size": "1Gi"},
                "progressDeadlineSeconds": 600}
        if self.tls:
            spec["tls"] = {"client": {"serverSecretRef": {"name": self.server_secret},
                                      "operatorClientSecretRef": {"name": self.client_secret}},
                           "peer": {"secretRef": {"name": self.peer_secret}}}
        if self.auth:
            spec["auth"] = {"enabled": True, "rootCredentialsSecretRef": {"name": self.root_secret}}
        if self.a.quota_backend_bytes:
            spec["options"] = {"quotaBackendBytes": self.a.quota_backend_bytes}
        return spec

    def member_tls(self):
        if not self.tls:
            return None
        return {"clientServerSecretRef": {"name": self.server_secret}, "clientMTLS": True,
                "peerSecretRef": {"name": self.peer_secret}}

    def initial_cluster(self):
        return ",".join(sorted(f"{m}={self.ps}://{self.dns(m)}:2380" for m in self.members))

    def pod(self, m, owner, bootstrap):
        cs, ps = self.cs, self.ps
        cmd = ["etcd", f"--name={m}", "--data-dir=/var/lib/etcd",
               f"--listen-peer-urls={ps}://0.0.0.0:2380", f"--listen-client-urls={cs}://0.0.0.0:2379",
               f"--advertise-client-urls={cs}://{self.dns(m)}:2379",
               f"--initial-advertise-peer-urls={ps}://{self.dns(m)}:2380",
               f"--initial-cluster={self.initial_cluster()}", f"--initial-cluster-token={self.token}",
               f"--initial-cluster-state={'new' if bootstrap else 'existing'}",
               "--listen-metrics-urls=http://0.0.0.0:2381"]
        if self.a.quota_backend_bytes:
            cmd.append(f"--quota-backend-bytes={self.a.quota_backend_bytes}")
        mounts = [{"name": "data", "mountPath": "/var/lib/etcd"}]
        vols = [{"name": "data", "persistentVolumeClaim": {"claimName": f"data-{m}"}}]
        if self.tls:
            cmd += ["--cert-file=/etc/etcd/tls/client/tls.crt", "--key-file=/etc/etcd/tls/client/tls.key",
                    "--client-cert-auth=true", "--trusted-ca-file=/etc/etcd/tls/client/ca.crt",
                    "--peer-cert-file=/etc/etcd/tls/peer/tls.crt", "--peer-key-file=/etc/etcd/tls/peer/tls.key",
                    "--peer-trusted-ca-file=/etc/etcd/tls/peer/ca.crt", "--peer-client-cert-auth=true"]
            mounts += [{"name": "tls-client", "mountPath": "/etc/etcd/tls/client", "readOnly": True},
                       {"name": "tls-peer", "mountPath": "/etc/etcd/tls/peer", "readOnly": True}]
            vols += [{"name": "tls-client", "secret": {"secretName": self.server_secret}},
                     {"name": "tls-peer", "secret": {"secretName": self.peer_secret}}]
        labels = self.member_labels(m)
        labels[LABEL_ROLE] = "voter"
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": m, "namespace": self.ns, "labels": labels, "ownerReferences": [owner]},
                "spec": {"hostname": m, "subdomain": self.c, "automountServiceAccountToken": False,
                         "nodeName": self.a.node,
                         "securityContext": {"runAsNonRoot": True, "runAsUser": 65532, "runAsGroup": 65532,
                                             "fsGroup": 65532, "seccompProfile": {"type": "RuntimeDefault"}},
                         "containers": [{
                             "name": "etcd", "image": f"{IMAGE_REPO}:v{self.full_version}", "command": cmd,
                             "securityContext": {"allowPrivilegeEscalation": False,
                                                 "capabilities": {"drop": ["ALL"]}},
                             "ports": [{"name": "client", "containerPort": 2379},
                                       {"name": "peer", "containerPort": 2380},
                                       {"name": "metrics", "containerPort": 2381}],
                             "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                             "livenessProbe": {"tcpSocket": {"port": 2380}, "initialDelaySeconds": 15,
                                               "periodSeconds": 10, "failureThreshold": 3},
                             "readinessProbe": {"httpGet": {"path": "/health", "port": 2381},
                                                "initialDelaySeconds": 5, "periodSeconds": 5,
                                                "failureThreshold": 3},
                             "volumeMounts": mounts}],
                         "volumes": vols}}

    def run(self):
        t0 = time.time()
        os.makedirs(self.dir, exist_ok=True)
        if os.path.exists(os.path.join(self.dir, "fixture.json")):
            raise SystemExit(f"native-fixture: {self.dir} already holds a fixture")
        kubectl("create", "namespace", self.ns)
        self.save()
        for _ in range(300):
            if kubectl("get", "serviceaccount", "default", "-n", self.ns, check=False).returncode == 0:
                break
            time.sleep(0.1)
        # The EtcdCluster first: its UID is part of the cluster token.
        # tls and auth are immutable (CEL): the full spec goes in at once,
        # the exact version once etcd runs.
        self.full_version = DEFAULT_VERSION[self.version]
        cr = create([{"apiVersion": API, "kind": "EtcdCluster",
                      "metadata": {"name": self.c, "namespace": self.ns}, "spec": self.cluster_spec()}])[0]
        self.token = f"{self.ns}-{self.c}-{cr['metadata']['uid']}"
        self.start_etcd(self.token)
        self.save()
        if self.secrets():
            create(self.secrets())
        cr = json.loads(kubectl("patch", "etcdclusters." + GROUP, self.c, "-n", self.ns, "--type=merge", "-o", "json",
                                "-p", json.dumps({"spec": {"version": self.full_version}})).stdout)
        ts = now()
        observed = {"replicas": self.n, "version": self.full_version, "storage": {"size": "1Gi"}}
        if self.a.quota_backend_bytes:
            observed["options"] = {"quotaBackendBytes": self.a.quota_backend_bytes}
        gen = cr["metadata"].get("generation", 1)
        patch_status("etcdclusters." + GROUP, self.c, self.ns, {
            "clusterToken": self.token, "clusterID": self.cluster_id, "observed": observed,
            "authEnabled": bool(self.auth), "readyMembers": self.n,
            "selector": f"{LABEL_CLUSTER}={self.c}", "brokenMembers": 0,
            "conditions": [cond("Available", "True", "QuorumHealthy", "all members ready", ts, gen),
                           cond("Progressing", "False", "Reconciled", "cluster reconciled", ts, gen),
                           cond("Degraded", "False", "QuorumHealthy", "all members ready", ts, gen)]})
        own = self.owner(cr)
        sel = {LABEL_CLUSTER: self.c}
        svcs = [{"apiVersion": "v1", "kind": "Service",
                 "metadata": {"name": self.c, "namespace": self.ns, "labels": self.cluster_labels(),
                              "ownerReferences": [own]},
                 "spec": {"clusterIP": "None", "publishNotReadyAddresses": True, "selector": sel,
                          "ports": [{"name": "client", "port": 2379, "targetPort": 2379},
                                    {"name": "peer", "port": 2380, "targetPort": 2380}]}},
                {"apiVersion": "v1", "kind": "Service",
                 "metadata": {"name": f"{self.c}-client", "namespace": self.ns,
                              "labels": self.cluster_labels(), "ownerReferences": [own]},
                 "spec": {"selector": sel, "ports": [{"name": "client", "port": 2379, "targetPort": 2379}]}}]
        members = []
        for i, m in enumerate(self.members):
            spec = {"clusterName": self.c, "version": self.full_version, "storage": {"size": "1Gi"},
                    "initialCluster": self.initial_cluster(), "clusterToken": self.token,
                    "bootstrap": i == 0, "replicas": 1}
            if self.member_tls():
                spec["tls"] = self.member_tls()
            members.append({"apiVersion": API, "kind": "EtcdMember",
                            "metadata": {"name": m, "namespace": self.ns, "labels": self.member_labels(m),
                                         "finalizers": [FINALIZER], "ownerReferences": [own]},
                            "spec": spec})
        got = create(svcs + members)
        objs = []
        mown = {}
        for o in got:
            if o["kind"] != "EtcdMember":
                continue
            m = o["metadata"]["name"]
            mown[m] = self.owner(o)
            objs.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                         "metadata": {"name": f"data-{m}", "namespace": self.ns, "labels": self.member_labels(m),
                                      "ownerReferences": [mown[m]]},
                         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})
            objs.append(self.pod(m, mown[m], self.members.index(m) == 0))
        got = create(objs)
        ts = now()
        pod_uid = {}
        for o in got:
            name = o["metadata"]["name"]
            if o["kind"] == "PersistentVolumeClaim":
                patch_status("persistentvolumeclaim", name, self.ns, {
                    "phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}})
                continue
            pod_uid[name] = o["metadata"]["uid"]
            ip = self.ips[name]
            cid = hashlib.sha256((o["metadata"]["uid"] + "etcd").encode()).hexdigest()
            image = o["spec"]["containers"][0]["image"]
            patch_status("pod", name, self.ns, {
                "phase": "Running",
                "conditions": [{"type": t, "status": "True", "lastTransitionTime": ts}
                               for t in ("PodReadyToStartContainers", "Initialized", "Ready",
                                         "ContainersReady", "PodScheduled")],
                "hostIP": "127.0.0.1", "hostIPs": [{"ip": "127.0.0.1"}], "podIP": ip, "podIPs": [{"ip": ip}],
                "startTime": ts,
                "containerStatuses": [{"name": "etcd", "ready": True, "started": True, "restartCount": 0,
                                       "image": image, "imageID": image + "@sha256:" + "0" * 64,
                                       "containerID": "containerd://" + cid,
                                       "state": {"running": {"startedAt": ts}}}]})
        for m in self.members:
            patch_status("etcdmembers." + GROUP, m, self.ns, {
                "memberID": self.ids[m], "podName": m, "podUID": pod_uid[m], "pvcName": f"data-{m}",
                "isVoter": True, "replicas": 1,
                "selector": f"{LABEL_CLUSTER}={self.c},app.kubernetes.io/component={m}",
                "version": self.full_version,
                "conditions": [cond("Ready", "True", "PodReady", "etcd member is ready", ts),
                               cond("VersionDrifted", "False", "VersionMatched", "version matches", ts)]})
        self.operator()
        if self.a.pod_runner:
            # Stands in for the kubelet for pods created from now on (member add).
            subprocess.run([os.path.join(HERE, "pod-runner"), "start", "--namespace", self.ns,
                            "--dir", os.path.join(self.dir, "pod-runner")], check=True)
        self.save(done=True)
        log(f"fixture {self.ns}/{self.c} ready in {time.time() - t0:.1f} s "
            f"(members {', '.join(f'{m}={self.ips[m]}' for m in self.members)}); dir {self.dir}")

    def operator(self):
        """The operator's coordinates in the fixture's own namespace (tests
        pass --operator <ns>/etcd-operator; parallel fixtures never share
        them): a Deployment at 0 replicas and, unless --operator-inactive,
        its leader Lease held for a day, so the operator counts as active."""
        sel = {"app.kubernetes.io/name": "etcd-operator"}
        objs = [{"apiVersion": "apps/v1", "kind": "Deployment",
                 "metadata": {"name": "etcd-operator", "namespace": self.ns, "labels": dict(sel)},
                 "spec": {"replicas": 0, "selector": {"matchLabels": sel},
                          "template": {"metadata": {"labels": dict(sel)}, "spec": {"containers": [
                              {"name": "manager", "image": "ghcr.io/cozystack/etcd-operator:v0.5.0"}]}}}}]
        if not self.a.operator_inactive:
            ts = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
            objs.append({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                         "metadata": {"name": "aa20b3a9." + GROUP, "namespace": self.ns},
                         "spec": {"holderIdentity": "native-fixture", "leaseDurationSeconds": 86400,
                                  "acquireTime": ts, "renewTime": ts}})
        create(objs)

    def save(self, done=False):
        ips = getattr(self, "ips", {})
        ids = getattr(self, "ids", {})
        with open(os.path.join(self.dir, "fixture.json"), "w") as f:
            json.dump({"name": self.c, "namespace": self.ns, "members": [
                {"name": m, "ip": ips.get(m), "dns": self.dns(m), "id": ids.get(m)} for m in self.members],
                "etcdDir": self.etcd_dir, "version": self.version, "tls": self.tls, "auth": self.auth,
                "clusterID": getattr(self, "cluster_id", None), "complete": done}, f, indent=2)
        with open(os.path.join(self.dir, "fixture.env"), "w") as f:
            f.write("# native fixture written by tests/testenv/native-fixture. Source this file.\n")
            for k, v in (("FIXTURE_DIR", self.dir), ("FIXTURE_NAME", self.c), ("FIXTURE_NAMESPACE", self.ns),
                         ("FIXTURE_MEMBERS", ",".join(self.members)),
                         ("FIXTURE_ETCD_ENV", os.path.join(self.etcd_dir, "cluster.env"))):
                f.write(f"export {k}='{v}'\n")


def down(a):
    d = a.dir or os.path.join(os.environ["TESTENV_DIR"], "fixtures", f"native.{a.namespace}.{a.name}")
    path = os.path.join(d, "fixture.json")
    if not os.path.exists(path):
        log(f"no fixture in {d}")
        return
    with open(path) as f:
        fx = json.load(f)
    ns = fx["namespace"]
    if os.path.isdir(os.path.join(d, "pod-runner")):
        subprocess.run([os.path.join(HERE, "pod-runner"), "stop", "--dir", os.path.join(d, "pod-runner")])
    subprocess.run([os.path.join(HERE, "etcd-cluster"), "down", "--dir", fx["etcdDir"]], stdout=subprocess.DEVNULL)
    # No operator runs the member finalizer: strip it, or the namespace
    # would never finish terminating.
    out = kubectl("get", "etcdmembers." + GROUP, "-n", ns, "-o", "name", check=False).stdout.split()
    for name in out:
        kubectl("patch", name, "-n", ns, "--type=merge", "-p", '{"metadata":{"finalizers":null}}', check=False)
    kubectl("delete", "namespace", ns, "--ignore-not-found", "--wait=false", check=False)
    subprocess.run(["rm", "-rf", d])
    log(f"fixture {ns}/{fx['name']} removed")


def main():
    p = argparse.ArgumentParser(prog="native-fixture")
    sub = p.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up")
    up.add_argument("--name", required=True)
    up.add_argument("--namespace", required=True)
    up.add_argument("--members", type=int, default=3, choices=[1, 3, 5])
    up.add_argument("--version", choices=["3.4", "3.5", "3.6"], default="3.6")
    up.add_argument("--tls", action="store_true")
    up.add_argument("--auth", action="store_true")
    up.add_argument("--quota-backend-bytes", type=int, default=0)
    up.add_argument("--operator-inactive", action="store_true")
    up.add_argument("--node", default="testenv-node",
                    help="spec.nodeName of the pods: the Node whose agent port-forwards to them")
    up.add_argument("--pod-runner", action="store_true")
    up.add_argument("--dir")
    dn = sub.add_parser("down")
    dn.add_argument("--name")
    dn.add_argument("--namespace")
    dn.add_argument("--dir")
    a = p.parse_args()
    if a.cmd == "up":
        if a.auth and not a.tls:
            p.error("--auth needs --tls (CEL: auth requires spec.tls.client)")
        fx = Fixture(a)
        fx.run()
        with open(os.path.join(fx.dir, "fixture.env")) as f:
            sys.stdout.write(f.read())
    else:
        if not a.dir and not (a.name and a.namespace):
            p.error("down needs --dir or --name and --namespace")
        down(a)


if __name__ == "__main__":
    try:
        main()
    except KubectlError as e:
        sys.exit(f"native-fixture: {e}")
