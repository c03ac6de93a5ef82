#!/usr/bin/env python3
"""The operator stand-in: does for the operator's Deployment the least that a
Deployment controller, a ReplicaSet controller and a kubelet would, so that
the real etcd operator (the v1alpha2 `manager` built by `build operator`)
runs as it runs in a cluster. Run through tests/testenv/operator (see
README.md).

Each poll it reads the Deployment and:
- spec.replicas >= 1 and no operator running: creates one Pod object for it
  (the template's labels and containers, bound to the test Node), then runs
  the template's `manager` container as a process: its args and env (values
  and metadata.namespace field refs), `--kubeconfig` of the environment (the
  admin identity), the probe address moved to a free loopback port and
  metrics off (a pod has its own network namespace; this host does not).
  The process runs in a private mount namespace whose
  /var/run/secrets/kubernetes.io/serviceaccount/namespace names the
  Deployment's namespace, as the kubelet's service-account volume does: that
  is where controller-runtime finds the namespace of its leader-election
  Lease, so `--leader-elect` works unchanged;
- the process answers /readyz: the Pod becomes Running/Ready and the
  Deployment's status says one ready replica;
- the process exits on its own: restarted after a back-off, restartCount
  counted in the Pod's status, as a kubelet restarts a container;
- the template of the manager container changes (args, env, image): the
  process and its Pod are replaced (a rollout of one replica);
- spec.replicas is 0, or the Deployment is gone: SIGTERM (SIGKILL after
  30 s), the Pod deleted, the Deployment's status at zero replicas.
Only one replica is ever run: the operator elects one leader anyway.
"""

import argparse
import hashlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from apiserver import Api, logger, now

SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


log = logger("operator")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def deployment_object(ns, name, image, watch, replicas):
    """The Deployment as the operator's chart renders it, in short."""
    labels = {"app.kubernetes.io/name": "etcd-operator", "app.kubernetes.io/component": "controller"}
    env = [{"name": "OPERATOR_IMAGE", "value": image},
           {"name": "ETCD_IMAGE_REPOSITORY", "value": "quay.io/coreos/etcd"},
           {"name": "WATCH_NAMESPACE", "value": watch}]
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns, "labels": dict(labels)},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": dict(labels)}, "spec": {
                         "serviceAccountName": "etcd-operator",
                         "containers": [{
                             "name": "manager", "image": image, "command": ["/manager"],
                             "args": ["--leader-elect", "--health-probe-bind-address=:8081",
                                      "--metrics-bind-address=:8443"],
                             "env": env}]}}}}


def manager_container(dep):
    for c in (((dep.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers") or []:
        if c.get("name") == "manager":
            return c
    return None


def config_hash(c):
    keep = {k: c.get(k) for k in ("image", "command", "args", "env")}
    return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:10]


class Supervisor:
    def __init__(self, a):
        self.ns, self.name = a.deployment.split("/", 1)
        self.dir = os.path.abspath(a.dir)
        self.a = a
        self.api = Api()
        self.manager = os.path.join(os.environ["TESTENV_OPERATOR_BIN"], "manager")
        self.proc = None        # the running operator
        self.pod = None         # name of its Pod object
        self.hash = None        # config_hash of what runs
        self.probe = None       # its readyz address
        self.ready = False
        self.restarts = 0
        self.next_start = 0.0   # restart back-off
        self.status_sent = None
        self.stop = False

    # --- the Deployment ------------------------------------------------------
    def dep_path(self, sub=""):
        return f"/apis/apps/v1/namespaces/{self.ns}/deployments/{self.name}{sub}"

    def ensure(self):
        """Creates the namespace and the Deployment when absent; an existing
        Deployment (a fixture's) gets the chart's manager container, as a
        `helm upgrade` would, unless --keep-template."""
        self.api.call("POST", "/api/v1/namespaces",
                      {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.ns}})
        st, dep = self.api.call("GET", self.dep_path())
        want = deployment_object(self.ns, self.name, self.a.image, self.a.watch_namespace, self.a.replicas)
        if st == 404:
            st, _ = self.api.call("POST", f"/apis/apps/v1/namespaces/{self.ns}/deployments", want)
            if st not in (200, 201):
                raise SystemExit(f"operator: cannot create Deployment {self.ns}/{self.name} ({st})")
            log(f"created Deployment {self.ns}/{self.name} (replicas {self.a.replicas})")
            return
        if st != 200:
            raise SystemExit(f"operator: cannot read Deployment {self.ns}/{self.name} ({st})")
        patch = {"spec": {"replicas": self.a.replicas}}
        if not self.a.keep_template:
            # A JSON merge patch replaces the container list: the template's
            # labels and selector stay (the selector is immutable).
            image = self.a.image if self.a.image_given else (manager_container(dep) or {}).get("image", self.a.image)
            c = want["spec"]["template"]["spec"]["containers"][0]
            c["image"] = image
            c["env"][0]["value"] = image
            patch["spec"]["template"] = {"spec": {"containers": [c]}}
        st, _ = self.api.call("PATCH", self.dep_path(), patch, "application/merge-patch+json")
        if st != 200:
            raise SystemExit(f"operator: cannot patch Deployment {self.ns}/{self.name} ({st})")
        log(f"Deployment {self.ns}/{self.name} set to the chart's manager container (replicas {self.a.replicas})")

    def write_status(self, dep, ready):
        running = 1 if self.proc is not None else 0
        gen = dep["metadata"].get("generation", 1)
        want = (gen, running, ready)
        if self.status_sent == want:
            return
        ts = now()
        status = {"observedGeneration": gen, "replicas": running or None, "updatedReplicas": running or None,
                  "readyReplicas": 1 if ready else None, "availableReplicas": 1 if ready else None,
                  "unavailableReplicas": 1 if (running and not ready) else None,
                  "conditions": [{"type": "Available", "status": "True" if ready or not running else "False",
                                  "reason": "MinimumReplicasAvailable" if ready or not running
                                  else "MinimumReplicasUnavailable",
                                  "message": "Deployment has minimum availability." if ready or not running
                                  else "Deployment does not have minimum availability.",
                                  "lastUpdateTime": ts, "lastTransitionTime": ts}]}
        st, _ = self.api.call("PATCH", self.dep_path("/status"), {"status": status}, "application/merge-patch+json")
        if st == 200:
            self.status_sent = want

    # --- the Pod and the process ----------------------------------------------
    def pod_path(self, name=""):
        return f"/api/v1/namespaces/{self.ns}/pods" + (f"/{name}" if name else "")

    def create_pod(self, dep, h):
        tmpl = dep["spec"]["template"]
        suffix = "".join(random.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
        name = f"{self.name}-{h[:10]}-{suffix}"
        labels = dict((tmpl.get("metadata") or {}).get("labels") or {})
        labels["pod-template-hash"] = h[:10]
        spec = json.loads(json.dumps(tmpl["spec"]))
        spec["nodeName"] = self.a.node
        # No such ServiceAccount is needed: it runs as admin. The apiserver
        # copies serviceAccountName into the deprecated serviceAccount field of
        # a stored template, so both go (either one alone names a missing
        # account and the Pod is refused with 403).
        spec.pop("serviceAccountName", None)
        spec.pop("serviceAccount", None)
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": self.ns, "labels": labels},
               "spec": spec}
        st, made = self.api.call("POST", self.pod_path(), pod)
        if st not in (200, 201):
            raise RuntimeError(f"creating Pod {name} answered {st}")
        self.pod = name
        self.pod_uid = made["metadata"]["uid"]
        self.started_at = now()

    def pod_status(self, ready):
        if not self.pod:
            return
        ts = now()
        conds = [{"type": t, "status": "True" if ready or t in ("PodScheduled", "Initialized") else "False",
                  "lastTransitionTime": ts} for t in ("PodScheduled", "Initialized", "ContainersReady", "Ready")]
        status = {"phase": "Running", "conditions": conds, "hostIP": "127.0.0.1", "podIP": "127.0.0.1",
                  "startTime": self.started_at,
                  "containerStatuses": [{"name": "manager", "ready": ready, "started": True,
                                         "restartCount": self.restarts, "image": self.image, "imageID": self.image,
                                         "containerID": f"operator-supervisor://{self.pod_uid}",
                                         "state": {"running": {"startedAt": self.started_at}}}]}
        self.api.call("PATCH", self.pod_path(self.pod) + "/status", {"metadata": {"uid": self.pod_uid},
                                                                     "status": status},
                      "application/merge-patch+json")

    def delete_pod(self):
        if not self.pod:
            return
        self.api.call("DELETE", self.pod_path(self.pod), {"kind": "DeleteOptions", "apiVersion": "v1",
                                                          "gracePeriodSeconds": 0,
                                                          "preconditions": {"uid": self.pod_uid}})
        self.pod = None

    def command(self, c):
        self.probe = f"127.0.0.1:{free_port()}"
        args = [self.manager, f"--kubeconfig={os.environ['KUBECONFIG']}"]
        for arg in c.get("args") or []:
            if arg.startswith("--health-probe-bind-address"):
                continue
            if arg.startswith("--metrics-bind-address"):
                continue
            if arg.startswith("--kubeconfig"):
                continue
            args.append(arg)
        args += [f"--health-probe-bind-address={self.probe}", "--metrics-bind-address=0"]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/root")}
        for e in c.get("env") or []:
            if "value" in e:
                env[e["name"]] = e["value"]
            elif ((e.get("valueFrom") or {}).get("fieldRef") or {}).get("fieldPath") == "metadata.namespace":
                env[e["name"]] = self.ns
        return args, env

    def start(self, dep, c, h):
        if not self.pod:  # a restart keeps its Pod, as a kubelet restarts a container
            self.create_pod(dep, h)
        args, env = self.command(c)
        self.image = c.get("image", "")
        # The service-account namespace file, in a mount namespace of its own:
        # tmpfs over /var/run/secrets when it exists, else over /run (the
        # operator needs nothing else there).
        script = ('set -e; t=/run; [ -d /run/secrets ] && t=/run/secrets; '
                  'mount -t tmpfs -o size=1m tmpfs "$t"; mkdir -p "$1"; printf %s "$2" > "$1/namespace"; '
                  'shift 2; exec "$@"')
        full = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", SA_DIR, self.ns] + args
        logf = open(os.path.join(self.dir, "logs", "manager.log"), "ab")
        logf.write(f"--- {now()} start: {' '.join(args)}\n".encode())
        logf.flush()
        self.proc = subprocess.Popen(full, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=env, start_new_session=True)
        logf.close()
        with open(os.path.join(self.dir, "manager.pid"), "w") as f:
            f.write(f"{self.proc.pid}\n")
        self.hash = h
        self.ready = False
        self.pod_status(False)
        log(f"operator started (pid {self.proc.pid}, Pod {self.pod}, probe {self.probe})")

    def kill(self, reason):
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGTERM)
                    self.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                    self.proc.wait()
                except ProcessLookupError:
                    pass
            log(f"operator stopped ({reason}), exit {self.proc.returncode}")
            self.proc = None
        try:
            os.remove(os.path.join(self.dir, "manager.pid"))
        except FileNotFoundError:
            pass
        self.delete_pod()
        self.ready = False

    def readyz(self):
        try:
            with urllib.request.urlopen(f"http://{self.probe}/readyz", timeout=2) as r:
                return r.status == 200
        except Exception:
            return False

    # --- the loop ----------------------------------------------------------------
    def poll(self):
        st, dep = self.api.call("GET", self.dep_path())
        if st == 404:
            if self.proc is not None or self.pod:
                self.kill("Deployment deleted")
            self.status_sent = None
            return
        if st != 200:
            return
        replicas = (dep.get("spec") or {}).get("replicas", 1)
        c = manager_container(dep)
        want = replicas >= 1 and c is not None and dep["metadata"].get("deletionTimestamp") is None
        h = config_hash(c) if c else None
        if self.proc is not None and (not want or h != self.hash):
            self.kill("replicas 0" if not want else "template changed")
            self.restarts = 0
        if self.proc is not None and self.proc.poll() is not None:
            code = self.proc.returncode
            self.proc = None
            self.restarts += 1
            self.next_start = time.time() + min(10 * self.restarts, 60)
            log(f"operator exited with {code}; restart {self.restarts} after back-off")
            self.ready = False
            self.pod_status(False)
        if want and self.proc is None and time.time() >= self.next_start:
            self.start(dep, c, h)
        ready = self.proc is not None and self.readyz()
        if ready != self.ready:
            self.ready = ready
            self.pod_status(ready)
            log(f"operator ready={ready}")
        self.write_status(dep, ready)

    def run(self):
        os.makedirs(os.path.join(self.dir, "logs"), exist_ok=True)
        self.ensure()
        with open(os.path.join(self.dir, "ensured"), "w") as f:
            f.write(now() + "\n")
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "stop", True))
        signal.signal(signal.SIGINT, lambda *_: setattr(self, "stop", True))
        log(f"supervising Deployment {self.ns}/{self.name}")
        while not self.stop:
            try:
                self.poll()
            except Exception as e:  # noqa: BLE001 - keep supervising, say why
                log(f"poll: {e}")
            time.sleep(0.5)
        self.kill("supervisor stopped")
        st, dep = self.api.call("GET", self.dep_path())
        if st == 200:
            self.status_sent = None
            self.write_status(dep, False)


def main():
    p = argparse.ArgumentParser(prog="operator")
    p.add_argument("--dir", required=True)
    p.add_argument("--deployment", default="etcd-operator-system/etcd-operator")
    p.add_argument("--replicas", type=int, default=1)
    p.add_argument("--watch-namespace", default="")
    p.add_argument("--image", default="cozystack/etcd-operator:v0.5.0")
    p.add_argument("--keep-template", action="store_true")
    p.add_argument("--node", default="testenv-node")
    a = p.parse_args()
    a.image_given = "--image" in sys.argv
    if "/" not in a.deployment:
        p.error("--deployment takes NAMESPACE/NAME")
    Supervisor(a).run()


if __name__ == "__main__":
    main()
