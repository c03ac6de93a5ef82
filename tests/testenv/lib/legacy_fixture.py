#!/usr/bin/env python3
"""Lays out a legacy (etcd.aenix.io/v1alpha1) EtcdCluster in the test
apiserver exactly as the legacy operator leaves it, backed by a real etcd
cluster on loopback IPs. It is the repository's description of that
layout (docs/rules.md#legacy-operator-layout). Run through tests/testenv/legacy-fixture.
"""

import argparse
import base64
import copy
import contextlib
import datetime
import fcntl
import hashlib
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GROUP = "etcd.aenix.io"
CR_API = GROUP + "/v1alpha1"
DEFAULT_IMAGE = "quay.io/coreos/etcd:v3.5.12"
# etcd version run by the fixture -> the image tag written into the CR.
IMAGE_FOR = {"3.4": "quay.io/coreos/etcd:v3.4.23",
             "3.5": "quay.io/coreos/etcd:v3.5.21",
             "3.6": "quay.io/coreos/etcd:v3.6.11"}
NS_LABEL = "kubernetes.io/metadata.name"
MADE_BY = "testenv.etcd-operator-cli/created-by"


def log(msg):
    print("legacy-fixture: " + msg, file=sys.stderr, flush=True)


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class KubectlError(Exception):
    pass


def kubectl(*args, data=None, check=True):
    cmd = [os.environ["TESTENV_KUBECTL"], *args]
    p = subprocess.run(cmd, input=None if data is None else json.dumps(data),
                       capture_output=True, text=True)
    if check and p.returncode != 0:
        raise KubectlError(f"kubectl {' '.join(args)}: {p.stderr.strip()}")
    return p


# --render-only: the objects the fixture would create, defaulted by the
# apiserver (a server-side dry run), are collected here instead of created,
# with the statuses it would write; tests compare them with what the real
# legacy operator makes (tests/e2e/node/fixture_test.py).
RENDERED = None


def create(objs):
    """Creates objects (kubectl create, so no last-applied annotation);
    returns the stored objects."""
    dry = ["--dry-run=server"] if RENDERED is not None else []
    out = kubectl("create", *dry, "-o", "json", "-f", "-",
                  data={"apiVersion": "v1", "kind": "List", "items": objs}).stdout
    # kubectl prints one JSON document per created object.
    dec, items, i = json.JSONDecoder(), [], 0
    while i < len(out):
        if out[i].isspace():
            i += 1
            continue
        doc, i = dec.raw_decode(out, i)
        items.extend(doc["items"] if doc.get("kind") == "List" else [doc])
    if RENDERED is not None:
        RENDERED.extend(items)
    return items


def get(kind, name, ns=None):
    a = ["get", kind, name, "-o", "json", "--ignore-not-found"]
    if ns:
        a += ["-n", ns]
    out = kubectl(*a).stdout.strip()
    return json.loads(out) if out else None


def ensure(obj):
    """Creates obj unless an object of that kind and name exists; returns
    (object, created). An object still Terminating (a namespace the last
    fixture using it deleted a moment ago) is waited for and created again."""
    ns = obj["metadata"].get("namespace")
    kind = obj["kind"] + "." + obj["apiVersion"].split("/")[0] if "/" in obj["apiVersion"] else obj["kind"]
    cur = get(kind, obj["metadata"]["name"], ns)
    deadline = time.time() + 180
    while cur and cur["metadata"].get("deletionTimestamp"):
        if time.time() > deadline:
            raise SystemExit(f"legacy-fixture: {kind} {obj['metadata']['name']} is still Terminating after 180 s")
        time.sleep(0.5)
        cur = get(kind, obj["metadata"]["name"], ns)
    if cur:
        return cur, False
    try:
        return create([obj])[0], True
    except KubectlError as e:
        if "AlreadyExists" in str(e) or "already exists" in str(e):
            return get(obj["kind"], obj["metadata"]["name"], ns), False
        raise


def patch_status(kind, name, ns, status):
    if RENDERED is not None:
        singular = kind.split(".")[0].rstrip("s").lower()
        for o in RENDERED:
            if o["kind"].lower() == singular and o["metadata"]["name"] == name:
                o.setdefault("status", {}).update(status)
        return
    kubectl("patch", kind, name, "-n", ns, "--subresource=status", "--type=merge",
            "-p", json.dumps({"status": status}))


def b64(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def quantity_bytes(q):
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50,
             "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15}
    for u in sorted(units, key=len, reverse=True):
        if q.endswith(u):
            return int(float(q[:-len(u)]) * units[u])
    return int(float(q))


def load_template(path):
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        import yaml  # Debian python3-yaml; only needed for YAML templates
        return yaml.safe_load(text)


# --- strategic merge of the CR's podTemplate.spec onto the base pod spec ---
MERGE_KEYS = {"containers": "name", "initContainers": "name", "volumes": "name",
              "env": "name", "volumeMounts": "mountPath", "ports": "containerPort",
              "imagePullSecrets": "name", "hostAliases": "ip"}


def smp(base, patch):
    if not isinstance(base, dict) or not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(base)
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        elif k in MERGE_KEYS and isinstance(v, list) and isinstance(out.get(k), list):
            key = MERGE_KEYS[k]
            merged = copy.deepcopy(out[k])
            for item in v:
                for i, cur in enumerate(merged):
                    if isinstance(item, dict) and cur.get(key) == item.get(key):
                        merged[i] = smp(cur, item)
                        break
                else:
                    merged.append(copy.deepcopy(item))
            out[k] = merged
        elif isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = smp(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


class Fixture:
    def __init__(self, a):
        self.a = a
        self.c = a.name
        self.ns = a.namespace
        self.n = a.replicas
        self.hl = a.headless_service or f"{self.c}-headless"
        self.cs = a.client_service or self.c
        self.claim = a.claim_name or "data"
        self.tls = a.tls
        self.proto = "https://" if a.tls else "http://"
        self.labels = {"app.kubernetes.io/name": "etcd",
                       "app.kubernetes.io/instance": self.c,
                       "app.kubernetes.io/managed-by": "etcd-operator"}
        self.legacy_ns, self.legacy_name = split_coord(a.legacy_controller, a.operator_namespace,
                                                       "etcd-operator-controller-manager")
        self.new_ns, self.new_name = split_coord(a.new_controller, a.operator_namespace,
                                                 "etcd-operator")
        prefix = self.legacy_name[:-len("-controller-manager")] \
            if self.legacy_name.endswith("-controller-manager") else self.legacy_name
        self.webhook_service = f"{prefix}-webhook-service"
        cfg_prefix = prefix if self.legacy_ns == "etcd-operator-system" else f"{self.legacy_ns}-{prefix}"
        self.mutating = f"{cfg_prefix}-mutating-webhook-configuration"
        self.validating = f"{cfg_prefix}-validating-webhook-configuration"
        self.cert_name = f"{prefix}-serving-cert"
        self.dir = a.dir or os.path.join(os.environ["TESTENV_DIR"], "fixtures", f"{self.ns}.{self.c}")
        self.etcd_dir = os.path.join(self.dir, "etcd")
        self.members = [f"{self.c}-{i}" for i in range(self.n)]
        self.template = load_template(a.pod_template) if a.pod_template else None
        self.options = dict(kv.split("=", 1) if "=" in kv else (kv, "") for kv in a.option)
        self.version = a.version or "3.5"
        self.created = []  # shared objects this fixture created
        self.refs = []     # shared objects this fixture uses: [kind, name, namespace]

    # --- the CR ---------------------------------------------------------
    def cr_spec(self):
        a = self.a
        spec = {"replicas": self.n}
        # --spec-option: in the CR only, as after an edit the legacy operator
        # has not rolled out yet (etcd itself would refuse a bad value).
        spec_only = dict(kv.split("=", 1) if "=" in kv else (kv, "") for kv in a.spec_option)
        if self.options or spec_only:
            spec["options"] = {**self.options, **spec_only}
        tmpl = copy.deepcopy(self.template) if self.template else None
        if a.version:
            # The etcd version is the image tag: say which one really runs.
            tmpl = tmpl or {"metadata": {}, "spec": {}}
            cs = tmpl.setdefault("spec", {}).get("containers") or []
            etcd = next((c for c in cs if c.get("name") == "etcd"), None)
            if etcd is None:
                cs.insert(0, {"name": "etcd", "image": IMAGE_FOR[self.version]})
            elif "image" not in etcd:
                etcd["image"] = IMAGE_FOR[self.version]
            tmpl["spec"]["containers"] = cs
        if tmpl is None:
            tmpl = {"metadata": {}, "spec": {"containers": None}}
        tmpl.setdefault("metadata", {})
        tmpl.setdefault("spec", {}).setdefault("containers", None)
        spec["podTemplate"] = tmpl
        svc_spec = self.client_service_spec_extra()
        if a.client_service or svc_spec:
            spec["serviceTemplate"] = {"metadata": {"name": self.cs} if a.client_service else {},
                                       "spec": svc_spec}
        if a.headless_service:
            spec["headlessServiceTemplate"] = {"metadata": {"name": self.hl}}
        if a.pdb:
            spec["podDisruptionBudgetTemplate"] = {}
        if a.empty_dir:
            ed = {"sizeLimit": a.empty_dir_size} if a.empty_dir_size else {}
            spec["storage"] = {"emptyDir": ed,
                               "volumeClaimTemplate": {"metadata": {}, "spec": {"resources": {}},
                                                       "status": {}}}
        else:
            spec["storage"] = {"volumeClaimTemplate": {
                "metadata": {"name": a.claim_name} if a.claim_name else {},
                "spec": {"accessModes": ["ReadWriteOnce"],
                         "resources": {"requests": {"storage": a.storage}}},
                "status": {}}}
        if a.tls:
            spec["security"] = {"enableAuth": bool(a.auth), "tls": {
                "peerTrustedCASecret": f"{self.c}-ca-tls",
                "peerSecret": f"{self.c}-peer-tls",
                "serverTrustedCASecret": f"{self.c}-ca-tls",
                "serverSecret": f"{self.c}-server-tls",
                "clientTrustedCASecret": f"{self.c}-ca-tls",
                "clientSecret": f"{self.c}-client-tls"}}
        return spec

    def client_service_spec_extra(self):
        """What serviceTemplate.spec adds to the client Service (--client-service-*)."""
        a, extra = self.a, {}
        if a.client_service_type:
            extra["type"] = a.client_service_type
        if a.client_service_class:
            extra["loadBalancerClass"] = a.client_service_class
        if a.client_service_external_ip:
            extra["externalIPs"] = list(a.client_service_external_ip)
        if a.client_service_port:
            extra["ports"] = [{"name": n, "port": int(p), "targetPort": int(p), "protocol": "TCP"}
                              for n, p in (kv.split("=", 1) for kv in a.client_service_port)]
        return extra

    def client_service_spec(self, labels):
        # The legacy operator's client Service with serviceTemplate.spec
        # strategic-merged onto it (ports by port number).
        ports = [{"name": "client", "port": 2379, "targetPort": 2379, "protocol": "TCP"}]
        if self.a.legacy_commit != "v0.4.2":
            # Added after v0.4.2 (commit 6537618 and later).
            ports.append({"name": "metrics", "port": 2381, "targetPort": 2381, "protocol": "TCP"})
        spec = {"type": "ClusterIP", "ports": ports, "selector": dict(labels)}
        extra = self.client_service_spec_extra()
        ports = extra.pop("ports", [])
        spec.update(extra)
        for p in ports:
            spec["ports"] = [q for q in spec["ports"] if q["port"] != p["port"]] + [p]
        return spec

    def quota(self):
        if self.options.get("quota-backend-bytes"):
            return None
        if self.a.empty_dir:
            size = self.a.empty_dir_size
        else:
            size = self.a.storage
        if not size:
            return None
        q = quantity_bytes(size) * 95 // 100
        return q if q > 0 else None

    def extra_flags(self):
        flags = [f"--{k}={v}" if v != "" else f"--{k}" for k, v in self.options.items()]
        q = self.quota()
        if q:
            flags.append(f"--quota-backend-bytes={q}")
        return sorted(flags)

    # --- the StatefulSet's pod template ---------------------------------
    def pod_template(self):
        hl, p = self.hl, self.proto
        args = ["--name=$(POD_NAME)",
                "--listen-metrics-urls=http://0.0.0.0:2381",
                "--listen-peer-urls=https://0.0.0.0:2380",
                f"--listen-client-urls={p}0.0.0.0:2379",
                f"--initial-advertise-peer-urls=https://$(POD_NAME).{hl}.$(POD_NAMESPACE).svc:2380",
                "--data-dir=/var/run/etcd/default.etcd",
                f"--advertise-client-urls={p}$(POD_NAME).{hl}.$(POD_NAMESPACE).svc:2379"]
        mounts = [{"name": "data", "mountPath": "/var/run/etcd"}]
        if self.a.empty_dir:
            vols = [{"name": "data", "emptyDir": ({"sizeLimit": self.a.empty_dir_size}
                                                  if self.a.empty_dir_size else {})}]
        else:
            vols = [{"name": "data", "persistentVolumeClaim": {"claimName": self.claim}}]
        if self.tls:
            args += ["--peer-trusted-ca-file=/etc/etcd/pki/peer/ca/ca.crt",
                     "--peer-cert-file=/etc/etcd/pki/peer/cert/tls.crt",
                     "--peer-key-file=/etc/etcd/pki/peer/cert/tls.key",
                     "--peer-client-cert-auth",
                     "--cert-file=/etc/etcd/pki/server/cert/tls.crt",
                     "--key-file=/etc/etcd/pki/server/cert/tls.key",
                     "--trusted-ca-file=/etc/etcd/pki/client/ca/ca.crt",
                     "--client-cert-auth"]
            for name, secret, path in (
                    ("peer-trusted-ca-certificate", f"{self.c}-ca-tls", "/etc/etcd/pki/peer/ca"),
                    ("peer-certificate", f"{self.c}-peer-tls", "/etc/etcd/pki/peer/cert"),
                    ("server-certificate", f"{self.c}-server-tls", "/etc/etcd/pki/server/cert"),
                    ("client-trusted-ca-certificate", f"{self.c}-ca-tls", "/etc/etcd/pki/client/ca")):
                vols.append({"name": name, "secret": {"secretName": secret}})
                mounts.append({"name": name, "mountPath": path, "readOnly": True})
        else:
            args.append("--peer-auto-tls")
        args += ["--auto-compaction-retention=5m", "--snapshot-count=10000"]
        args += self.extra_flags()

        def probe(path):
            return {"httpGet": {"path": path, "port": 2381}, "periodSeconds": 5}
        etcd = {"name": "etcd", "image": DEFAULT_IMAGE, "command": ["etcd"], "args": args,
                "env": [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                        {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}],
                "envFrom": [{"configMapRef": {"name": f"{self.c}-cluster-state"}}],
                "ports": [{"name": "peer", "containerPort": 2380},
                          {"name": "client", "containerPort": 2379}],
                "volumeMounts": mounts,
                "startupProbe": probe("/readyz?serializable=false"),
                "livenessProbe": probe("/livez"),
                "readinessProbe": probe("/readyz")}
        spec = {"containers": [etcd], "volumes": vols}
        tmpl = self.cr_spec()["podTemplate"]
        user_spec = {k: v for k, v in (tmpl.get("spec") or {}).items() if v is not None}
        spec = smp(spec, user_spec)
        md = tmpl.get("metadata") or {}
        labels = dict(self.labels)
        labels.update(md.get("labels") or {})
        meta = {"labels": labels}
        if md.get("annotations"):
            meta["annotations"] = dict(md["annotations"])
        return {"metadata": meta, "spec": spec}

    def owner(self, obj, controller=True):
        return {"apiVersion": obj["apiVersion"], "kind": obj["kind"],
                "name": obj["metadata"]["name"], "uid": obj["metadata"]["uid"],
                "controller": controller, "blockOwnerDeletion": True}

    # --- steps ------------------------------------------------------------
    def start_etcd(self):
        a = self.a
        cmd = [os.path.join(HERE, "etcd-cluster"), "up", "--dir", self.etcd_dir,
               "--version", self.version, "--names", ",".join(self.members),
               "--peer-dns", f"%s.{self.hl}.{self.ns}.svc",
               "--token", f"{self.c}-{self.ns}", "--data-subdir", "default.etcd"]
        # Names the new operator and clients use for the same members.
        hosts = [f"%s.{self.c}.{self.ns}.svc", f"{self.cs}.{self.ns}.svc", f"{self.c}.{self.ns}.svc"]
        for h in dict.fromkeys(hosts):
            if h != f"%s.{self.hl}.{self.ns}.svc":
                cmd += ["--host", h]
        if a.tls:
            cmd.append("--tls")
            # --exact-sans: only today's members' names, as certificates made
            # by hand for a fixed set of pods often are (no wildcard).
            wild = [] if a.exact_sans else [f"*.{self.hl}.{self.ns}.svc", f"*.{self.c}.{self.ns}.svc"]
            for s in dict.fromkeys(wild + [f"%s.{self.c}.{self.ns}.svc",
                                           f"{self.cs}.{self.ns}.svc", f"{self.c}.{self.ns}.svc",
                                           f"{self.cs}.{self.ns}.svc.cluster.local"]):
                cmd += ["--san", s]
        else:
            cmd.append("--peer-auto-tls")
        if a.auth:
            cmd.append("--auth")
        cmd += ["--arg", "--auto-compaction-retention=5m", "--arg", "--snapshot-count=10000"]
        for f in self.extra_flags():
            cmd += ["--arg", f]
        log("starting etcd " + self.version + " members " + ",".join(self.members))
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL)
        if p.returncode != 0:
            raise SystemExit("legacy-fixture: etcd-cluster up failed")
        with open(os.path.join(self.etcd_dir, "cluster.json")) as f:
            self.cluster = json.load(f)
        self.ips = {m["name"]: m["ip"] for m in self.cluster["members"]}

    def share(self, obj):
        """ensure() for an object other fixtures may use too: registered as
        one of its users (under the registry's lock, held by the caller)."""
        o, made = ensure(obj)
        md = obj["metadata"]
        ref = [obj["kind"].lower(), md["name"], md.get("namespace", "")]
        ref_add(ref_key(*ref), ref_user(self.dir), made)
        self.refs.append(ref)
        if made:
            self.created.append(ref)
        return o, made

    def operator(self):
        for ns in dict.fromkeys([self.legacy_ns, self.new_ns]):
            self.share({"apiVersion": "v1", "kind": "Namespace", "metadata": {
                "name": ns, "annotations": {MADE_BY: "legacy-fixture"}}})
        sel = {"control-plane": "controller-manager"}
        legacy = {"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {"name": self.legacy_name, "namespace": self.legacy_ns,
                               "labels": dict(sel)},
                  "spec": {"replicas": 0, "selector": {"matchLabels": sel},
                           "template": {"metadata": {"labels": dict(sel)}, "spec": {"containers": [
                               {"name": "manager", "image": "aenix-io/etcd-operator:v0.4.2",
                                "command": ["/manager"],
                                "env": [{"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {
                                    "fieldPath": "metadata.namespace"}}},
                                        {"name": "OPERATOR_IMAGE", "value": "aenix-io/etcd-operator:v0.4.2"}],
                                "ports": [{"name": "webhook-server", "containerPort": 9443}]},
                               {"name": "kube-rbac-proxy", "image": "brancz/kube-rbac-proxy:v0.16.0",
                                "args": ["--secure-listen-address=0.0.0.0:8443",
                                         "--upstream=http://127.0.0.1:8080/"]}]}}}}
        nsel = {"app.kubernetes.io/name": "etcd-operator", "app.kubernetes.io/component": "controller"}
        new = {"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": self.new_name, "namespace": self.new_ns, "labels": dict(nsel)},
               "spec": {"replicas": 0, "selector": {"matchLabels": nsel},
                        "template": {"metadata": {"labels": dict(nsel)}, "spec": {"containers": [
                            {"name": "manager", "image": self.a.new_image}]}}}}
        svc = {"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": self.webhook_service, "namespace": self.legacy_ns},
               "spec": {"ports": [{"port": 443, "targetPort": 9443, "protocol": "TCP"}],
                        "selector": dict(sel)}}
        for o in (legacy, new, svc):
            self.share(o)

    def namespace(self):
        self.share({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.ns}})

    def secrets(self):
        if not self.tls:
            return []
        pki = self.cluster["pki"]

        def tls(name, crt, key, ca=True):
            d = {"tls.crt": b64(pki[crt]), "tls.key": b64(pki[key])}
            if ca:
                d["ca.crt"] = b64(pki["ca.crt"])
            return {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
                    "metadata": {"name": name, "namespace": self.ns}, "data": d}
        return [tls(f"{self.c}-ca-tls", "ca.crt", "ca.key"),
                tls(f"{self.c}-server-tls", "server.crt", "server.key"),
                tls(f"{self.c}-peer-tls", "peer.crt", "peer.key"),
                tls(f"{self.c}-client-tls", "client.crt", "client.key")]

    def render_cluster(self):
        """--render-only: what start_etcd learns, without starting etcd."""
        pki = os.path.join(self.dir, "pki")
        os.makedirs(pki, exist_ok=True)
        for n in ("ca", "server", "peer", "client"):
            for ext in ("crt", "key"):
                with open(os.path.join(pki, f"{n}.{ext}"), "w") as f:
                    f.write("rendered only\n")
        self.cluster = {"pki": {f"{n}.{e}": os.path.join(pki, f"{n}.{e}")
                                for n in ("ca", "server", "peer", "client") for e in ("crt", "key")}}
        self.ips = {m: f"127.255.0.{i + 1}" for i, m in enumerate(self.members)}

    def run(self):
        t0 = time.time()
        os.makedirs(self.dir, exist_ok=True)
        if RENDERED is not None:
            self.render_cluster()
        else:
            if os.path.exists(os.path.join(self.dir, "fixture.json")):
                raise SystemExit(f"legacy-fixture: {self.dir} already holds a fixture")
            self.start_etcd()
            self.save()
            with refs_lock():
                try:
                    self.operator()
                    self.namespace()
                finally:
                    self.save()
        # Pods need the namespace's default ServiceAccount (serviceaccount controller).
        for _ in range(300):
            if get("serviceaccount", "default", self.ns):
                break
            time.sleep(0.1)
        ts = now()

        # 4-5: Secrets and the EtcdCluster (before the webhooks exist).
        cr = {"apiVersion": CR_API, "kind": "EtcdCluster",
              "metadata": {"name": self.c, "namespace": self.ns}, "spec": self.cr_spec()}
        # --label/--annotation: the CR's own metadata, e.g. the marks of the
        # Helm release (and Flux HelmRelease) that renders it.
        for key, values in (("labels", self.a.label), ("annotations", self.a.annotation)):
            if values:
                cr["metadata"][key] = dict(kv.split("=", 1) for kv in values)
        got = create(self.secrets() + [cr])
        cr = got[-1]
        patch_status("etcdclusters." + GROUP, self.c, self.ns, {"conditions": [
            {"type": "Initialized", "status": "True", "reason": "InitializationComplete",
             "message": "Cluster managed resources created", "lastTransitionTime": ts},
            {"type": "Ready", "status": "True", "reason": "StatefulSetReady",
             "message": "Cluster StatefulSet is Ready", "lastTransitionTime": ts}]})
        own = self.owner(cr)

        # 6-10: Services, PDB, ConfigMap, StatefulSet.
        labels = self.labels
        objs = [
            {"apiVersion": "v1", "kind": "Service",
             "metadata": {"name": self.hl, "namespace": self.ns, "labels": dict(labels),
                          "ownerReferences": [own]},
             "spec": {"type": "ClusterIP", "clusterIP": "None", "publishNotReadyAddresses": True,
                      "ports": [{"name": "peer", "port": 2380, "targetPort": 2380, "protocol": "TCP"},
                                {"name": "client", "port": 2379, "targetPort": 2379, "protocol": "TCP"}],
                      "selector": dict(labels)}},
            {"apiVersion": "v1", "kind": "Service",
             "metadata": {"name": self.cs, "namespace": self.ns, "labels": dict(labels),
                          "ownerReferences": [own]},
             "spec": self.client_service_spec(labels)}]
        if self.a.pdb:
            objs.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                         "metadata": {"name": self.c, "namespace": self.ns, "ownerReferences": [own]},
                         "spec": {"minAvailable": self.n // 2 + 1,
                                  "selector": {"matchLabels": dict(labels)},
                                  "unhealthyPodEvictionPolicy": "IfHealthyBudget"}})
        peers = ",".join(f"{m}=https://{m}.{self.hl}.{self.ns}.svc:2380" for m in self.members)
        objs.append({"apiVersion": "v1", "kind": "ConfigMap",
                     "metadata": {"name": f"{self.c}-cluster-state", "namespace": self.ns,
                                  "ownerReferences": [own]},
                     "data": {"ETCD_INITIAL_CLUSTER": peers,
                              "ETCD_INITIAL_CLUSTER_TOKEN": f"{self.c}-{self.ns}",
                              "ETCD_INITIAL_CLUSTER_STATE": self.a.cluster_state}})
        tmpl = self.pod_template()
        vct = []
        if not self.a.empty_dir:
            t = self.cr_spec()["storage"]["volumeClaimTemplate"]
            md = {"name": self.claim}
            for k in ("labels", "annotations"):
                if t["metadata"].get(k):
                    md[k] = t["metadata"][k]
            vct = [{"metadata": md, "spec": copy.deepcopy(t["spec"])}]
        sts = {"apiVersion": "apps/v1", "kind": "StatefulSet",
               "metadata": {"name": self.c, "namespace": self.ns, "ownerReferences": [own]},
               "spec": {"replicas": self.n, "serviceName": self.hl,
                        "podManagementPolicy": "Parallel",
                        "selector": {"matchLabels": dict(labels)},
                        "template": tmpl, "volumeClaimTemplates": vct}}
        objs.append(sts)
        got = create(objs)
        sts = got[-1]
        if self.a.pdb:
            # What the disruption controller writes for n healthy members.
            need = self.n // 2 + 1
            patch_status("poddisruptionbudget", self.c, self.ns, {
                "observedGeneration": 1, "currentHealthy": self.n, "desiredHealthy": need,
                "disruptionsAllowed": self.n - need, "expectedPods": self.n,
                "conditions": [{"type": "DisruptionAllowed", "status": "True" if self.n > need else "False",
                                "reason": "SufficientPods" if self.n > need else "InsufficientPods",
                                "message": "", "observedGeneration": 1, "lastTransitionTime": now()}]})
        if self.a.client_service_ingress:
            # What a cloud's load-balancer controller writes once it has an address.
            patch_status("service", self.cs, self.ns, {"loadBalancer": {"ingress": [
                {"ip": ip} for ip in self.a.client_service_ingress]}})
        h = hashlib.sha256(json.dumps(sts["spec"]["template"], sort_keys=True).encode()).hexdigest()
        # A revision hash looks like a short hex/alnum string.
        rev_hash = h[:10]
        rev = f"{self.c}-{rev_hash}"
        patch_status("statefulset", self.c, self.ns, {
            "observedGeneration": 1, "replicas": self.n, "readyReplicas": self.n,
            "currentReplicas": self.n, "updatedReplicas": self.n, "availableReplicas": self.n,
            "currentRevision": rev, "updateRevision": rev, "collisionCount": 0})
        sown = self.owner(sts)

        # 11-13: ControllerRevision, PVCs, Pods.
        objs = [{"apiVersion": "apps/v1", "kind": "ControllerRevision",
                 "metadata": {"name": rev, "namespace": self.ns, "ownerReferences": [sown],
                              "labels": {**tmpl["metadata"]["labels"],
                                         "controller.kubernetes.io/hash": rev_hash}},
                 "revision": 1,
                 # The StatefulSet controller records the template as stored,
                 # with the apiserver's defaults.
                 "data": {"spec": {"template": {**copy.deepcopy(sts["spec"]["template"]),
                                                "$patch": "replace"}}}}]
        for i, m in enumerate(self.members):
            if vct:
                objs.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                             "metadata": {"name": f"{self.claim}-{m}", "namespace": self.ns,
                                          "labels": {**(vct[0]["metadata"].get("labels") or {}), **labels},
                                          **({"annotations": vct[0]["metadata"]["annotations"]}
                                             if vct[0]["metadata"].get("annotations") else {})},
                             "spec": copy.deepcopy(vct[0]["spec"])})
            spec = copy.deepcopy(tmpl["spec"])
            spec["hostname"] = m
            spec["subdomain"] = self.hl
            spec["nodeName"] = self.a.node
            for v in spec.get("volumes", []):
                if v["name"] == self.claim and "persistentVolumeClaim" in v:
                    v["persistentVolumeClaim"]["claimName"] = f"{self.claim}-{m}"
            md = {"name": m, "generateName": f"{self.c}-", "namespace": self.ns, "ownerReferences": [sown],
                  "labels": {**tmpl["metadata"]["labels"], "controller-revision-hash": rev,
                             "statefulset.kubernetes.io/pod-name": m,
                             "apps.kubernetes.io/pod-index": str(i)}}
            if tmpl["metadata"].get("annotations"):
                md["annotations"] = dict(tmpl["metadata"]["annotations"])
            objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec})
        got = create(objs)
        ts = now()
        for o in got:
            if o["kind"] == "PersistentVolumeClaim":
                patch_status("persistentvolumeclaim", o["metadata"]["name"], self.ns, {
                    "phase": "Bound", "accessModes": o["spec"].get("accessModes", []),
                    "capacity": {"storage": o["spec"]["resources"]["requests"]["storage"]}})
            elif o["kind"] == "Pod":
                m = o["metadata"]["name"]
                ip = self.ips[m]
                statuses = []
                for c in o["spec"]["containers"]:
                    cid = hashlib.sha256((o["metadata"]["uid"] + c["name"]).encode()).hexdigest()
                    statuses.append({
                        "name": c["name"], "ready": True, "started": True, "restartCount": 0,
                        "image": c["image"], "imageID": c["image"] + "@sha256:" + "0" * 64,
                        "containerID": "containerd://" + cid,
                        "state": {"running": {"startedAt": ts}}})
                cond = [{"type": t, "status": "True", "lastTransitionTime": ts}
                        for t in ("PodReadyToStartContainers", "Initialized", "Ready",
                                  "ContainersReady", "PodScheduled")]
                patch_status("pod", m, self.ns, {
                    "phase": "Running", "conditions": cond,
                    "hostIP": "127.0.0.1", "hostIPs": [{"ip": "127.0.0.1"}],
                    "podIP": ip, "podIPs": [{"ip": ip}], "startTime": ts,
                    "containerStatuses": statuses})

        if RENDERED is not None:
            with open(self.a.render_only, "w") as f:
                json.dump(RENDERED, f, indent=1)
            log(f"fixture {self.ns}/{self.c} rendered to {self.a.render_only} ({len(RENDERED)} objects)")
            return

        # 15: the legacy webhooks, after the CR, failing closed.
        if not self.a.skip_webhooks:
            self.webhooks()
        self.save(done=True)
        log(f"fixture {self.ns}/{self.c} ready in {time.time() - t0:.1f} s "
            f"(members {', '.join(f'{m}={self.ips[m]}' for m in self.members)}); dir {self.dir}")

    def webhook(self, kind, name, hook, path):
        ca = b64(os.environ["TESTENV_CA"])
        return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
                "metadata": {"name": name, "annotations": {
                    "cert-manager.io/inject-ca-from": f"{self.legacy_ns}/{self.cert_name}"}},
                "webhooks": [{
                    "name": hook, "admissionReviewVersions": ["v1"], "sideEffects": "None",
                    "failurePolicy": "Fail",
                    "clientConfig": {"caBundle": ca, "service": {
                        "name": self.webhook_service, "namespace": self.legacy_ns,
                        "path": path, "port": 443}},
                    "rules": [{"apiGroups": [GROUP], "apiVersions": ["v1alpha1"],
                               "operations": ["CREATE", "UPDATE"], "resources": ["etcdclusters"]}],
                    "namespaceSelector": {"matchExpressions": [
                        {"key": NS_LABEL, "operator": "In", "values": [self.ns]}]}}]}

    def webhooks(self):
        for kind, name, hook, path in (
                ("MutatingWebhookConfiguration", self.mutating, "metcdcluster.kb.io",
                 "/mutate-etcd-aenix-io-v1alpha1-etcdcluster"),
                ("ValidatingWebhookConfiguration", self.validating, "vetcdcluster.kb.io",
                 "/validate-etcd-aenix-io-v1alpha1-etcdcluster")):
            update_selector(kind, name, self.ns, add=self.webhook(kind, name, hook, path))

    def save(self, done=False):
        with open(os.path.join(self.dir, "fixture.json"), "w") as f:
            json.dump({"name": self.c, "namespace": self.ns, "replicas": self.n,
                       "headlessService": self.hl, "clientService": self.cs,
                       "members": [{"name": m, "ip": self.ips.get(m),
                                    "dns": f"{m}.{self.hl}.{self.ns}.svc"} for m in self.members]
                       if hasattr(self, "ips") else [],
                       "etcdDir": self.etcd_dir, "version": self.version,
                       "tls": self.tls, "auth": bool(self.a.auth),
                       "legacyController": f"{self.legacy_ns}/{self.legacy_name}",
                       "newController": f"{self.new_ns}/{self.new_name}",
                       "webhooks": [self.mutating, self.validating],
                       "created": self.created, "refs": self.refs, "complete": done}, f, indent=2)
        with open(os.path.join(self.dir, "fixture.env"), "w") as f:
            f.write("# legacy fixture written by tests/testenv/legacy-fixture. Source this file.\n")
            for k, v in (("FIXTURE_DIR", self.dir), ("FIXTURE_NAME", self.c),
                         ("FIXTURE_NAMESPACE", self.ns), ("FIXTURE_HEADLESS", self.hl),
                         ("FIXTURE_CLIENT_SERVICE", self.cs),
                         ("FIXTURE_LEGACY_CONTROLLER", f"{self.legacy_ns}/{self.legacy_name}"),
                         ("FIXTURE_NEW_CONTROLLER", f"{self.new_ns}/{self.new_name}"),
                         ("FIXTURE_ETCD_ENV", os.path.join(self.etcd_dir, "cluster.env"))):
                f.write(f"export {k}='{v}'\n")


def update_selector(kind, name, ns, add=None):
    """Adds ns to (add given) or removes it from the namespaceSelector of a
    webhook configuration shared by fixtures with the same operator
    coordinates; creates it / deletes it when it holds no namespace. Retries
    on a write conflict. Returns whether the configuration still exists."""
    for _ in range(20):
        cur = get(kind, name)
        if cur is None:
            if add is None:
                return False
            try:
                create([add])
                return True
            except KubectlError as e:
                if "already exists" in str(e):
                    continue
                raise
        left = False
        for w in cur["webhooks"]:
            exprs = (w.get("namespaceSelector") or {}).get("matchExpressions") or []
            for e in exprs:
                if e.get("key") == NS_LABEL and e.get("operator") == "In":
                    vals = [v for v in e["values"] if v != ns]
                    if add is not None:
                        vals.append(ns)
                    e["values"] = vals
                    left = left or bool(vals)
        try:
            if not left:
                kubectl("delete", kind, name, "--ignore-not-found", "--wait=false")
            else:
                kubectl("replace", "-f", "-", data=cur)
            return left
        except KubectlError as e:
            if "conflict" in str(e).lower() or "modified" in str(e):
                time.sleep(0.2)
                continue
            raise
    raise SystemExit(f"legacy-fixture: could not update {kind} {name}")


# --- shared objects, reference-counted --------------------------------------
# Fixtures share the operator namespaces, Deployments and webhook Service of
# their operator coordinates, and may share their own namespace (a fleet).
# Each fixture registers as a user of every shared object it needs; `down`
# deletes an object only when its last user goes and a fixture created it.
# The registry lives in the environment ($TESTENV_DIR/fixture-refs), guarded
# by one lock, so an `up` and a `down` of the same coordinates never race.

def refs_dir():
    return os.path.join(os.environ["TESTENV_DIR"], "fixture-refs")


@contextlib.contextmanager
def refs_lock():
    os.makedirs(refs_dir(), exist_ok=True)
    with open(os.path.join(refs_dir(), ".lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def ref_key(kind, name, ns):
    return f"{kind}.{ns or '-'}.{name}"


def ref_user(fixture_dir):
    return os.path.abspath(fixture_dir).strip("/").replace("/", "_")


def ref_add(key, user, created):
    d = os.path.join(refs_dir(), key)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, user), "w").close()
    if created:
        open(os.path.join(d, ".created"), "w").close()


def ref_drop(key, user):
    """Unregisters user; returns True when it was the last user of an object
    a fixture created (the caller deletes it)."""
    d = os.path.join(refs_dir(), key)
    with contextlib.suppress(FileNotFoundError):
        os.remove(os.path.join(d, user))
    if not os.path.isdir(d):
        return False
    if any(not n.startswith(".") for n in os.listdir(d)):
        return False
    created = os.path.exists(os.path.join(d, ".created"))
    subprocess.run(["rm", "-rf", d])
    return created


def split_coord(value, default_ns, default_name):
    if value and "/" in value:
        ns, name = value.split("/", 1)
        return ns, name
    return default_ns, value or default_name


def down(a):
    d = a.dir or os.path.join(os.environ["TESTENV_DIR"], "fixtures", f"{a.namespace}.{a.name}")
    path = os.path.join(d, "fixture.json")
    if not os.path.exists(path):
        log(f"no fixture in {d}")
        return
    with open(path) as f:
        fx = json.load(f)
    ns = fx["namespace"]
    # The webhook configurations count their namespaces in their selectors.
    for kind, name in zip(("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"),
                          fx["webhooks"]):
        update_selector(kind, name, ns)
    subprocess.run([os.path.join(HERE, "etcd-cluster"), "down", "--dir", fx["etcdDir"]],
                   stdout=subprocess.DEVNULL)
    # Only what this fixture created or shares with nobody any more goes:
    # objects first, namespaces last.
    with refs_lock():
        todo = [r for r in fx.get("refs", []) if ref_drop(ref_key(*r), ref_user(d))]
        for kind, name, ons in sorted(todo, key=lambda r: r[0] == "namespace"):
            a2 = ["delete", kind, name, "--ignore-not-found", "--wait=false"]
            if ons:
                a2 += ["-n", ons]
            kubectl(*a2, check=False)
    subprocess.run(["rm", "-rf", d])
    log(f"fixture {ns}/{fx['name']} removed")


def main():
    p = argparse.ArgumentParser(prog="legacy-fixture")
    sub = p.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up")
    up.add_argument("--name", required=True)
    up.add_argument("--namespace", required=True)
    up.add_argument("--replicas", type=int, default=3)
    up.add_argument("--version", choices=["3.4", "3.5", "3.6"])
    up.add_argument("--tls", action="store_true")
    up.add_argument("--auth", action="store_true")
    up.add_argument("--exact-sans", action="store_true",
                    help="with --tls: certificates list only the members' own names, no wildcard")
    up.add_argument("--empty-dir", action="store_true")
    up.add_argument("--empty-dir-size", default="")
    up.add_argument("--storage", default="4Gi")
    up.add_argument("--claim-name", default="",
                    help="volumeClaimTemplate metadata.name (PVCs <claim>-<c>-<i>)")
    up.add_argument("--option", action="append", default=[])
    up.add_argument("--spec-option", action="append", default=[],
                    help="k=v written into spec.options only, not passed to etcd")
    up.add_argument("--pod-template")
    up.add_argument("--client-service")
    up.add_argument("--client-service-type", choices=["ClusterIP", "NodePort", "LoadBalancer"],
                    help="serviceTemplate.spec.type of the client Service")
    up.add_argument("--client-service-class", help="serviceTemplate.spec.loadBalancerClass")
    up.add_argument("--client-service-port", action="append", default=[],
                    help="NAME=PORT: one more client Service port (serviceTemplate.spec.ports)")
    up.add_argument("--client-service-external-ip", action="append", default=[],
                    help="serviceTemplate.spec.externalIPs")
    up.add_argument("--client-service-ingress", action="append", default=[],
                    help="IP written into the client Service's status.loadBalancer.ingress")
    up.add_argument("--label", action="append", default=[], help="K=V on the legacy EtcdCluster")
    up.add_argument("--annotation", action="append", default=[], help="K=V on the legacy EtcdCluster")
    up.add_argument("--headless-service")
    up.add_argument("--pdb", action="store_true")
    up.add_argument("--cluster-state", choices=["existing", "new"], default="existing")
    up.add_argument("--operator-namespace", default="etcd-operator-system")
    up.add_argument("--legacy-controller")
    up.add_argument("--new-controller")
    up.add_argument("--new-image", default="cozystack/etcd-operator:v0.5.0")
    up.add_argument("--skip-webhooks", action="store_true",
                    help="do not register the namespace with the legacy webhooks (for a fixture "
                         "created before another one of the same namespace that does)")
    up.add_argument("--node", default="testenv-node",
                    help="spec.nodeName of the pods: the Node whose agent port-forwards to them")
    up.add_argument("--dir")
    up.add_argument("--legacy-commit", choices=["v0.4.2", "6537618"], default="6537618",
                    help="the legacy operator whose layout to lay out: v0.4.2's client Service has "
                         "no metrics port")
    up.add_argument("--render-only", metavar="FILE",
                    help="write the objects it would create (server-side dry run, with their "
                         "statuses) to FILE as JSON; nothing is created or started")
    dn = sub.add_parser("down")
    dn.add_argument("--name")
    dn.add_argument("--namespace")
    dn.add_argument("--dir")
    a = p.parse_args()
    if a.cmd == "up":
        if a.auth and not a.tls:
            p.error("--auth needs --tls (the legacy webhook requires clientSecret and serverSecret)")
        if a.render_only:
            global RENDERED
            RENDERED = []
            Fixture(a).run()
            return
        Fixture(a).run()
        d = a.dir or os.path.join(os.environ["TESTENV_DIR"], "fixtures", f"{a.namespace}.{a.name}")
        with open(os.path.join(d, "fixture.env")) as f:
            sys.stdout.write(f.read())
    else:
        if not a.dir and not (a.name and a.namespace):
            p.error("down needs --dir or --name and --namespace")
        down(a)


if __name__ == "__main__":
    try:
        main()
    except KubectlError as e:
        sys.exit(f"legacy-fixture: {e}")
