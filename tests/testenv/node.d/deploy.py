#!/usr/bin/env python3
"""Deploys an operator on the node from its own manifests, as a user would:
the legacy operator (etcd.aenix.io/v1alpha1) from its kustomize config/
(`kubectl kustomize config/default`), the v1alpha2 operator from its Helm
chart (rendered by chartrender). Prints the manifests it applies with -n.

usage: deploy.py legacy   --src TARBALL --image REF --kubectl K --pki DIR [--replicas N] [-n | --delete]
       deploy.py v1alpha2 --src TARBALL --image REF --kubectl K --render R [--replicas N]
                          [--release NAME] [--namespace NS] [--watch-namespace LIST] [-n | --delete]

What differs from the upstream manifests, and why (docs/node-world.md):
- CustomResourceDefinitions are left out: the environment installs the
  shared, unmodified copies (and the legacy ones carry a cert-manager
  conversion-webhook patch that nothing serves in v1alpha1-only clusters);
- cert-manager's Certificate and Issuer are left out: the webhook serving
  certificate is made by openssl (the environment's CA), put in the Secret
  the Certificate names, and its CA patched into the webhook configurations;
- the legacy kube-rbac-proxy sidecar is left out: its image is not built
  here; metrics are not served (the operator serves them on loopback only);
- the v1alpha2 chart is rendered with its kube-rbac-proxy off and its CRDs
  off, for the same reasons.

The two installs share four RBAC names when the chart's release is called
etcd-operator (the names tools default to): ClusterRole
etcd-operator-manager-role, ClusterRoleBinding
etcd-operator-manager-rolebinding, Role etcd-operator-leader-election-role
and RoleBinding etcd-operator-leader-election-rolebinding (in
etcd-operator-system). Whichever is applied last takes them over, and the
other operator loses its permissions: retire the legacy install (--delete)
before the chart is installed.
"""
import argparse
import base64
import os
import subprocess
import sys
import tarfile
import tempfile

import yaml


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"deploy: {' '.join(cmd[:3])} failed: {r.stderr.strip()}")
    return r.stdout


def unpack(src, into, member_filter):
    with tarfile.open(src) as t:
        members = [m for m in t.getmembers() if member_filter(m.name)]
        # Only regular files and directories of the snapshot (Debian 12's
        # Python predates tarfile's extraction filters).
        members = [m for m in members if (m.isfile() or m.isdir()) and not m.name.startswith("/")
                   and ".." not in m.name.split("/")]
        t.extractall(into, members=members)
    top = os.listdir(into)
    return os.path.join(into, top[0])


def webhook_cert(pki, service, namespace, out):
    """A serving certificate for SERVICE.NAMESPACE.svc, signed by the env CA."""
    host = f"{service}.{namespace}.svc"
    key, csr, crt, ext = (os.path.join(out, n) for n in ("tls.key", "tls.csr", "tls.crt", "ext"))
    with open(ext, "w") as f:
        f.write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                f"extendedKeyUsage=serverAuth\nsubjectAltName=DNS:{host},DNS:{host}.cluster.local\n")
    run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-sha256", "-keyout", key, "-out", csr,
         "-subj", f"/CN={host}"])
    run(["openssl", "x509", "-req", "-in", csr, "-CA", os.path.join(pki, "ca.crt"),
         "-CAkey", os.path.join(pki, "ca.key"), "-CAcreateserial", "-days", "365", "-sha256",
         "-extfile", ext, "-out", crt])
    return {n: open(os.path.join(out if n != "ca.crt" else pki, n), "rb").read()
            for n in ("tls.crt", "tls.key", "ca.crt")}


def legacy(a, work):
    root = unpack(a.src, work, lambda n: "/config/" in n or n.endswith("/config"))
    docs = [d for d in yaml.safe_load_all(run([a.kubectl, "kustomize", os.path.join(root, "config", "default")])) if d]
    out, secret_name, svc = [], None, None
    for d in docs:
        kind = d["kind"]
        if kind in ("CustomResourceDefinition", "Certificate", "Issuer"):
            if kind == "Certificate":
                secret_name = d["spec"]["secretName"]
            continue
        if kind == "Deployment":
            spec = d["spec"]["template"]["spec"]
            spec["containers"] = [c for c in spec["containers"] if c["name"] != "kube-rbac-proxy"]
            for c in spec["containers"]:
                if c["name"] == "manager":
                    c["image"] = a.image
                    c["imagePullPolicy"] = "IfNotPresent"
            d["spec"]["replicas"] = a.replicas
        if kind == "Service" and any(p.get("targetPort") == 9443 for p in d["spec"].get("ports", [])):
            svc = d["metadata"]
        out.append(d)
    if not secret_name or not svc:
        sys.exit("deploy: the legacy manifests have no webhook Certificate or Service")
    cert = webhook_cert(a.pki, svc["name"], svc["namespace"], work)
    for d in out:
        if d["kind"] in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"):
            (d["metadata"].get("annotations") or {}).pop("cert-manager.io/inject-ca-from", None)
            for w in d["webhooks"]:
                w["clientConfig"]["caBundle"] = base64.b64encode(cert["ca.crt"]).decode()
    out.insert(1, {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
                   "metadata": {"name": secret_name, "namespace": svc["namespace"]},
                   "data": {k: base64.b64encode(v).decode() for k, v in cert.items()}})
    return out


def v1alpha2(a, work):
    root = unpack(a.src, work, lambda n: "/charts/" in n)
    chart = os.path.join(root, "charts", "etcd-operator")
    repo, tag = a.image.rsplit(":", 1)
    args = [a.render, chart, "--release", a.release, "--namespace", a.namespace,
            "--set", "crds.enabled=false", "--set", "kubeRbacProxy.enabled=false",
            "--set", f"image.repository={repo}", "--set", f"image.tag={tag}",
            "--set", f"replicaCount={a.replicas}"]
    docs = [d for d in yaml.safe_load_all(run(args)) if d]
    for d in docs:
        if d["kind"] == "Deployment" and a.watch_namespace:
            for c in d["spec"]["template"]["spec"]["containers"]:
                if c["name"] == "manager":
                    c.setdefault("env", []).append({"name": "WATCH_NAMESPACE", "value": a.watch_namespace})
    return docs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("which", choices=["legacy", "v1alpha2"])
    p.add_argument("--src", required=True)
    p.add_argument("--image", required=True)
    p.add_argument("--kubectl", required=True)
    p.add_argument("--pki")
    p.add_argument("--render")
    p.add_argument("--replicas", type=int, default=1)
    p.add_argument("--release", default="etcd-operator")
    p.add_argument("--namespace", default="etcd-operator-system")
    p.add_argument("--watch-namespace", default="")
    p.add_argument("-n", dest="dry", action="store_true")
    p.add_argument("--delete", action="store_true",
                   help="remove what deploying applied (the namespace stays)")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as work:
        docs = legacy(a, work) if a.which == "legacy" else v1alpha2(a, work)
    if a.delete:
        docs = [d for d in docs if d["kind"] != "Namespace"]
        text = yaml.safe_dump_all(docs, sort_keys=False)
        sys.stdout.write(run([a.kubectl, "delete", "--ignore-not-found", "--wait=true", "-f", "-"], input=text))
        return
    text = yaml.safe_dump_all(docs, sort_keys=False)
    if a.dry:
        sys.stdout.write(text)
        return
    sys.stdout.write(run([a.kubectl, "apply", "--server-side", "--force-conflicts", "-f", "-"], input=text))


if __name__ == "__main__":
    main()
