#!/usr/bin/env python3
"""Creates a legacy etcd.aenix.io/v1alpha1 EtcdCluster for the real legacy
operator to make on the node (tests/testenv/up --node), as a user writes
one: the etcd image of the version, a volume claim template, and with --tls
a CA and server, peer and client (CN=root) certificates in the Secrets the
operator takes (made by openssl here, test-only). Waits until the operator
reports the cluster Ready and its StatefulSet has every replica ready.

usage: legacy_cluster.py --kubectl K --name C --namespace NS [--replicas N]
                         [--version 3.5.21] [--tls] [--auth] [--storage 1Gi] [--pdb] [--empty-dir]
"""
import argparse
import base64
import json
import subprocess
import sys
import tempfile
import time


def run(cmd, input=None):
    r = subprocess.run(cmd, capture_output=True, text=True, input=input)
    if r.returncode != 0:
        sys.exit(f"legacy-cluster: {' '.join(cmd[:4])} failed: {r.stderr.strip()}")
    return r.stdout


def pki(workdir, cluster, ns):
    def ssl(*args):
        run(["openssl", *args])
    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "365", "-subj", f"/CN={cluster}-ca",
        "-keyout", f"{workdir}/ca.key", "-out", f"{workdir}/ca.crt")
    # Every name a member is reached by: its Pod under the legacy headless
    # Service and under the name the new operator gives members, the client
    # Services, and loopback for port-forwarded clients.
    sans = ",".join([f"DNS:*.{cluster}-headless.{ns}.svc", f"DNS:*.{cluster}-headless.{ns}.svc.cluster.local",
                     f"DNS:*.{cluster}.{ns}.svc", f"DNS:{cluster}.{ns}.svc",
                     f"DNS:{cluster}.{ns}.svc.cluster.local", f"DNS:{cluster}-client.{ns}.svc",
                     "DNS:localhost", "IP:127.0.0.1"])
    for name, cn, eku, san in (("server", "etcd-server", "serverAuth,clientAuth", sans),
                               ("peer", "etcd-peer", "serverAuth,clientAuth", sans),
                               ("client", "root", "clientAuth", None)):
        with open(f"{workdir}/{name}.ext", "w") as f:
            f.write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                    f"extendedKeyUsage={eku}\n" + (f"subjectAltName={san}\n" if san else ""))
        ssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={cn}", "-keyout", f"{workdir}/{name}.key",
            "-out", f"{workdir}/{name}.csr")
        ssl("x509", "-req", "-in", f"{workdir}/{name}.csr", "-CA", f"{workdir}/ca.crt", "-CAkey",
            f"{workdir}/ca.key", "-CAcreateserial", "-days", "365", "-extfile", f"{workdir}/{name}.ext",
            "-out", f"{workdir}/{name}.crt")

    def b64(name):
        with open(f"{workdir}/{name}", "rb") as f:
            return base64.b64encode(f.read()).decode()

    return [{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
             "metadata": {"name": sname, "namespace": ns},
             "data": {"tls.crt": b64(crt), "tls.key": b64(key), "ca.crt": b64("ca.crt")}}
            for sname, crt, key in ((f"{cluster}-ca-tls", "ca.crt", "ca.key"),
                                    (f"{cluster}-server-tls", "server.crt", "server.key"),
                                    (f"{cluster}-peer-tls", "peer.crt", "peer.key"),
                                    (f"{cluster}-client-tls", "client.crt", "client.key"))]


def main():
    p = argparse.ArgumentParser(prog="legacy-cluster")
    p.add_argument("--kubectl", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--namespace", required=True)
    p.add_argument("--replicas", type=int, default=3)
    p.add_argument("--version", default="3.5.21")
    p.add_argument("--tls", action="store_true")
    p.add_argument("--auth", action="store_true")
    p.add_argument("--storage", default="1Gi")
    p.add_argument("--empty-dir", action="store_true", help="spec.storage.emptyDir: {} instead of a claim template")
    p.add_argument("--pdb", action="store_true", help="spec.podDisruptionBudgetTemplate: {} (a PDB of the quorum)")
    p.add_argument("--timeout", type=int, default=240)
    a = p.parse_args()
    k, c, ns = a.kubectl, a.name, a.namespace
    if subprocess.run([k, "get", "namespace", ns], capture_output=True).returncode != 0:
        run([k, "create", "namespace", ns])
    spec = {"replicas": a.replicas,
            "podTemplate": {"spec": {"containers": [{"name": "etcd", "image": f"quay.io/coreos/etcd:v{a.version}"}]}},
            "storage": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"],
                                                          "resources": {"requests": {"storage": a.storage}}}}}}
    if a.pdb:
        spec["podDisruptionBudgetTemplate"] = {}
    if a.empty_dir:
        spec["storage"] = {"emptyDir": {}}
    objs = []
    if a.tls:
        with tempfile.TemporaryDirectory() as d:
            objs += pki(d, c, ns)
        spec["security"] = {"enableAuth": a.auth, "tls": {
            "peerTrustedCASecret": f"{c}-ca-tls", "peerSecret": f"{c}-peer-tls",
            "serverTrustedCASecret": f"{c}-ca-tls", "serverSecret": f"{c}-server-tls",
            "clientTrustedCASecret": f"{c}-ca-tls", "clientSecret": f"{c}-client-tls"}}
    elif a.auth:
        sys.exit("legacy-cluster: --auth needs --tls (the legacy operator enables auth with the client certificate)")
    objs.append({"apiVersion": "etcd.aenix.io/v1alpha1", "kind": "EtcdCluster",
                 "metadata": {"name": c, "namespace": ns}, "spec": spec})
    run([k, "apply", "-f", "-"], input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))

    end = time.time() + a.timeout
    while time.time() < end:
        cr = json.loads(run([k, "-n", ns, "get", "etcdclusters.etcd.aenix.io", c, "-o", "json"]))
        conds = {x["type"]: x.get("status") for x in (cr.get("status") or {}).get("conditions") or []}
        sts = subprocess.run([k, "-n", ns, "get", "statefulset", c, "-o", "json"], capture_output=True, text=True)
        ready = json.loads(sts.stdout).get("status", {}).get("readyReplicas") if sts.returncode == 0 else None
        if conds.get("Ready") == "True" and ready == a.replicas:
            print(f"legacy-cluster: {ns}/{c} Ready: {a.replicas} members, etcd {a.version}"
                  f"{', TLS' if a.tls else ''}{' and auth' if a.auth else ''}", file=sys.stderr)
            return
        time.sleep(1)
    sys.exit(f"legacy-cluster: {ns}/{c} not Ready after {a.timeout} s "
             f"(kubectl -n {ns} describe etcdclusters.etcd.aenix.io {c}; kubectl -n {ns} get pods)")


if __name__ == "__main__":
    main()
