#!/usr/bin/env python3
"""The node's storage provisioner: for each PersistentVolumeClaim of the
StorageClass it serves, a hostPath PersistentVolume bound to that claim,
in a directory under ROOT that any user may write (hostPath volumes get no
fsGroup ownership change, and the operators' Pods run as non-root users);
a released volume with reclaim policy Delete is deleted with its directory.

usage: provisioner.py KUBECTL ROOT PROVISIONER_NAME
"""
import json
import os
import shutil
import subprocess
import sys
import time

kubectl, root, name = sys.argv[1], sys.argv[2], sys.argv[3]


def get(*args):
    out = subprocess.run([kubectl, "get", *args, "-o", "json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)["items"]


def log(msg):
    print(time.strftime("%H:%M:%S"), msg, flush=True)


def once():
    classes = {c["metadata"]["name"] for c in get("storageclass") if c.get("provisioner") == name}
    pvs = get("pv")
    bound = {(p["spec"].get("claimRef") or {}).get("uid") for p in pvs}
    for c in get("pvc", "-A"):
        spec, meta = c["spec"], c["metadata"]
        if spec.get("volumeName") or spec.get("storageClassName") not in classes:
            continue
        if meta["uid"] in bound or meta.get("deletionTimestamp"):
            continue
        pv_name = "pvc-" + meta["uid"]
        path = os.path.join(root, pv_name)
        os.makedirs(path, exist_ok=True)
        os.chmod(path, 0o777)
        pv = {
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": pv_name, "annotations": {"pv.kubernetes.io/provisioned-by": name}},
            "spec": {
                "capacity": {"storage": spec["resources"]["requests"]["storage"]},
                "accessModes": spec.get("accessModes") or ["ReadWriteOnce"],
                "persistentVolumeReclaimPolicy": "Delete",
                "storageClassName": spec["storageClassName"],
                "volumeMode": spec.get("volumeMode", "Filesystem"),
                "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                             "namespace": meta["namespace"], "name": meta["name"], "uid": meta["uid"]},
                "hostPath": {"path": path, "type": "Directory"},
            },
        }
        r = subprocess.run([kubectl, "create", "-f", "-"], input=json.dumps(pv), capture_output=True, text=True)
        log(f"{meta['namespace']}/{meta['name']}: {pv_name} {'created' if r.returncode == 0 else r.stderr.strip()}")
    for p in pvs:
        ann = p["metadata"].get("annotations") or {}
        if ann.get("pv.kubernetes.io/provisioned-by") != name:
            continue
        if (p.get("status") or {}).get("phase") != "Released":
            continue
        if p["spec"].get("persistentVolumeReclaimPolicy") != "Delete":
            continue
        path = p["spec"]["hostPath"]["path"]
        if os.path.dirname(path) == root:
            shutil.rmtree(path, ignore_errors=True)
        subprocess.run([kubectl, "delete", "pv", p["metadata"]["name"], "--wait=false"], capture_output=True)
        log(f"{p['metadata']['name']}: released, deleted with {path}")


while True:
    try:
        once()
    except Exception as e:  # the apiserver restarting: try again
        log(f"error: {e}")
    time.sleep(1)
