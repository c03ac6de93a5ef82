#!/usr/bin/env python3
"""The pod runner: stands in for the kubelet for the etcd pods of test
clusters in one namespace, and for nothing else. Run through
tests/testenv/pod-runner (see README.md).

Each poll it lists the namespace's pods that carry the operator's cluster
label and:
- a pod with no status yet (phase empty or Pending) and no deletionTimestamp:
  binds it to the test Node, gives it a loopback IP (never the one the last
  pod of that name had, as a CNI would not) with a hosts entry for
  its member DNS name, writes the Secrets it mounts to files, starts the
  container's own etcd command line with only the paths and 0.0.0.0 listen
  addresses mapped (data dir per PVC, TLS files, the pod's IP), and once
  etcd answers /health patches the status (Running, Ready, podIP); a pod it
  cannot start (an API call failing, a Secret not there yet, an image it has
  no etcd for) is tried again every 2 s, as a kubelet does, and a status
  patch that did not land is sent again;
- a pod it runs whose etcd exited: status Ready=False (as a kubelet reports a
  dead container before restarting it; the runner does not restart it);
- a pod it runs with a deletionTimestamp: stops etcd, then deletes the pod
  with grace 0 and its UID as precondition, as a kubelet finalizes a
  deletion (docs/rules.md#test-environment-controllers);
- a pod it runs that is gone: stops etcd.
Pods it did not start (a fixture's, whose status was written once) are left
alone.
"""

import argparse
import base64
import os
import signal
import subprocess
import time
import urllib.request

from apiserver import Api, logger, now

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABEL_CLUSTER = "etcd-operator.cozystack.io/cluster"
VOLUME_ROOT = "/var/lib/etcd"


log = logger("pod-runner")


def sh(script, *args):
    """Runs a function of the testenv bash libraries (IP registry, hosts)."""
    p = subprocess.run(["bash", "-c", f'. "{HERE}/lib/common.sh"; . "{HERE}/lib/hosts.sh"; {script}', "sh", *args],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{script}: {p.stderr.strip()}")
    return p.stdout.strip()


class Runner:
    def __init__(self, a):
        self.ns = a.namespace
        self.node = a.node
        self.dir = os.path.abspath(a.dir)
        self.api = Api()
        self.procs = {}   # pod name -> {"uid", "proc", "ip", "ready", "dir"}
        self.stop = False
        # pod UID -> (why it could not start, when to try again): a kubelet
        # retries a Pod it cannot start (an API call timing out under load,
        # a Secret not there yet), and so does this runner, every 2 s.
        self.failed = {}
        self.last_ip = {}  # pod name -> the IP its last Pod had

    # --- the test Node -------------------------------------------------------
    def ensure_node(self):
        st, _ = self.api.call("GET", f"/api/v1/nodes/{self.node}")
        if st == 200:
            return
        self.api.call("POST", "/api/v1/nodes", {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": self.node, "labels": {"kubernetes.io/hostname": self.node}}})

    # --- one pod ---------------------------------------------------------------
    def etcd_bin(self, image):
        tag = image.rsplit(":", 1)[-1].lstrip("v")
        mm = ".".join(tag.split(".")[:2])
        var = {"3.4": "TESTENV_ETCD_34", "3.5": "TESTENV_ETCD_35", "3.6": "TESTENV_ETCD_36"}.get(mm)
        if not var or not os.environ.get(var):
            raise RuntimeError(f"no etcd for image {image}")
        return os.path.join(os.environ[var], "etcd")

    def secret_files(self, pod, pdir):
        """mount path -> local dir holding the Secret's keys as files."""
        vols = {v["name"]: v for v in pod["spec"].get("volumes", [])}
        out = {}
        for m in pod["spec"]["containers"][0].get("volumeMounts", []):
            v = vols.get(m["name"], {})
            if "secret" not in v:
                continue
            name = v["secret"]["secretName"]
            st, sec = self.api.call("GET", f"/api/v1/namespaces/{self.ns}/secrets/{name}")
            if st != 200:
                raise RuntimeError(f"secret {name} missing")
            d = os.path.join(pdir, "secrets", m["name"])
            os.makedirs(d, exist_ok=True)
            for k, val in (sec.get("data") or {}).items():
                with open(os.path.join(d, k), "wb") as f:
                    f.write(base64.b64decode(val))
            os.chmod(d, 0o700)
            out[m["mountPath"]] = d
        return out

    def data_dir(self, pod):
        for v in pod["spec"].get("volumes", []):
            if v["name"] == "data" and "persistentVolumeClaim" in v:
                return os.path.join(self.dir, "pvcs", v["persistentVolumeClaim"]["claimName"])
        return os.path.join(self.dir, "emptydir", pod["metadata"]["uid"])

    def start(self, pod):
        name, uid = pod["metadata"]["name"], pod["metadata"]["uid"]
        pdir = os.path.join(self.dir, "pods", name)
        os.makedirs(pdir, exist_ok=True)
        c = pod["spec"]["containers"][0]
        # Bind to the test Node first: from now on a delete is graceful and
        # waits for this runner, as with a kubelet.
        if not pod["spec"].get("nodeName"):
            st, _ = self.api.call("POST", f"/api/v1/namespaces/{self.ns}/pods/{name}/binding", {
                "apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "uid": uid},
                "target": {"apiVersion": "v1", "kind": "Node", "name": self.node}})
            # 409: bound already, by an attempt whose answer was lost.
            if st not in (200, 201, 409):
                raise RuntimeError(f"binding answered {st}")
        # A Pod made again under the same name gets another IP, as a CNI
        # gives it: clients must find a member by its Pod, not remember its IP.
        ip = sh('ip_alloc "$1" 1 "$2"', pdir, self.last_ip.get(name, ""))
        self.last_ip[name] = ip
        hostname = pod["spec"].get("hostname", name)
        sub = pod["spec"].get("subdomain")
        if sub:
            sh('hosts_add "$1" "$2 $3"', pdir, ip, f"{hostname}.{sub}.{self.ns}.svc")
        mounts = self.secret_files(pod, pdir)
        data = self.data_dir(pod)
        os.makedirs(data, exist_ok=True)
        args = []
        for arg in (c.get("command") or []) + (c.get("args") or []):
            for path, local in mounts.items():
                arg = arg.replace(path + "/", local + "/")
            if arg.startswith("--data-dir="):
                arg = "--data-dir=" + data + arg[len("--data-dir=") + len(VOLUME_ROOT):]
            arg = arg.replace("://0.0.0.0:", f"://{ip}:")
            args.append(arg)
        if args and args[0] == "etcd":
            args[0] = self.etcd_bin(c["image"])
        logf = open(os.path.join(pdir, "etcd.log"), "ab")
        proc = subprocess.Popen(args, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        logf.close()
        with open(os.path.join(pdir, "etcd.pid"), "w") as f:
            f.write(f"{proc.pid}\n")  # tests pause a member's etcd by this pid
        self.procs[name] = {"uid": uid, "proc": proc, "ip": ip, "ready": False, "dir": pdir,
                            "image": c["image"], "started": now()}
        log(f"pod {name}: etcd pid {proc.pid} on {ip}")

    def healthy(self, ip):
        try:
            with urllib.request.urlopen(f"http://{ip}:2381/health", timeout=2) as r:
                return r.status == 200
        except Exception:
            return False

    def patch_status(self, name, uid, ready, ip, image, started):
        ts = now()
        conds = [{"type": t, "status": "True" if (ready or t in ("PodScheduled", "Initialized",
                                                                 "PodReadyToStartContainers")) else "False",
                  "lastTransitionTime": ts} for t in ("PodReadyToStartContainers", "Initialized", "Ready",
                                                      "ContainersReady", "PodScheduled")]
        status = {"phase": "Running", "conditions": conds, "hostIP": "127.0.0.1",
                  "hostIPs": [{"ip": "127.0.0.1"}], "podIP": ip, "podIPs": [{"ip": ip}], "startTime": started,
                  "containerStatuses": [{"name": "etcd", "ready": ready, "started": ready, "restartCount": 0,
                                         "image": image, "imageID": image,
                                         "containerID": "pod-runner://" + uid,
                                         "state": {"running": {"startedAt": started}} if ready else
                                         {"terminated": {"exitCode": 1, "reason": "Error"}}}]}
        st, _ = self.api.call("PATCH", f"/api/v1/namespaces/{self.ns}/pods/{name}/status",
                              {"metadata": {"uid": uid}, "status": status}, "application/merge-patch+json")
        return st == 200

    def kill(self, name):
        p = self.procs.pop(name, None)
        if not p:
            return
        if p["proc"].poll() is None:
            try:
                os.killpg(p["proc"].pid, signal.SIGTERM)
                p["proc"].wait(timeout=10)
            except Exception:
                try:
                    os.killpg(p["proc"].pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p["proc"].wait()
        sh('hosts_remove "$1"; ip_release_owner "$1"', p["dir"])
        subprocess.run(["rm", "-rf", os.path.join(p["dir"], "secrets")])
        log(f"pod {name}: etcd stopped")

    # --- the loop ----------------------------------------------------------------
    def poll(self):
        st, lst = self.api.call("GET", f"/api/v1/namespaces/{self.ns}/pods?labelSelector={LABEL_CLUSTER}")
        if st != 200:
            return
        seen = {}
        for pod in lst.get("items", []):
            name, uid = pod["metadata"]["name"], pod["metadata"]["uid"]
            seen[name] = uid
            mine = self.procs.get(name)
            if mine and mine["uid"] != uid:
                self.kill(name)  # a new pod with the old name
                mine = None
            if pod["metadata"].get("deletionTimestamp"):
                if mine or pod["spec"].get("nodeName") == self.node:
                    self.kill(name)
                    self.api.call("DELETE", f"/api/v1/namespaces/{self.ns}/pods/{name}",
                                  {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
                                   "preconditions": {"uid": uid}})
                    log(f"pod {name}: deletion finalized")
                continue
            if mine is None:
                phase = (pod.get("status") or {}).get("phase", "")
                why, retry_at = self.failed.get(uid, ("", 0.0))
                if phase in ("", "Pending") and time.monotonic() >= retry_at:
                    try:
                        self.start(pod)
                        self.failed.pop(uid, None)
                    except Exception as e:  # noqa: BLE001 - report, leave the pod Pending, try again
                        # What an attempt allocated goes, so that retries leak no IPs.
                        pdir = os.path.join(self.dir, "pods", name)
                        try:
                            sh('hosts_remove "$1"; ip_release_owner "$1"', pdir)
                        except Exception:  # noqa: BLE001 - the next attempt allocates anew
                            pass
                        if str(e) != why:
                            log(f"pod {name}: cannot start: {e}")
                        self.failed[uid] = (str(e), time.monotonic() + 2)
                continue
            alive = mine["proc"].poll() is None
            ready = alive and self.healthy(mine["ip"])
            if ready != mine["ready"] or (not alive and not mine.get("dead")):
                # Remembered only once written: a patch that timed out is sent again next poll.
                if self.patch_status(name, uid, ready, mine["ip"], mine["image"], mine["started"]):
                    mine["ready"] = ready
                    mine["dead"] = not alive
                    log(f"pod {name}: ready={ready}")
        for name in list(self.procs):
            if name not in seen:
                self.kill(name)

    def run(self):
        os.makedirs(self.dir, exist_ok=True)
        self.ensure_node()
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "stop", True))
        signal.signal(signal.SIGINT, lambda *_: setattr(self, "stop", True))
        log(f"running pods of namespace {self.ns} on node {self.node}")
        while not self.stop:
            try:
                self.poll()
            except Exception as e:  # noqa: BLE001 - keep running, say why
                log(f"poll: {e}")
            time.sleep(0.3)
        for name in list(self.procs):
            self.kill(name)


def main():
    p = argparse.ArgumentParser(prog="pod-runner")
    p.add_argument("--namespace", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--node", default="testenv-node")
    Runner(p.parse_args()).run()


if __name__ == "__main__":
    main()
