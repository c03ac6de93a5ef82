#!/usr/bin/env python3
"""Writes a one-layer container image as a docker-save archive, the form
`ctr images import` takes, so the node runs images built from local files
with no registry.

usage: image.py OUT.tar NAME:TAG [--user U] [--entrypoint JSON] [--env K=V]...
                [--workdir D] FILE=DEST[:MODE] ... [DIR/=DEST/]

FILE=DEST copies a file (following symbolic links), DEST/ ending in a slash
makes an empty directory, and @busybox=DIR installs busybox's applets in DIR
as links to DIR/busybox.
"""
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile


def add_dir(tar, path, mode=0o755):
    path = path.strip("/")
    parts = path.split("/")
    for i in range(1, len(parts) + 1):
        p = "/".join(parts[:i])
        if p in tar.seen:
            continue
        tar.seen.add(p)
        ti = tarfile.TarInfo(p + "/")
        ti.type = tarfile.DIRTYPE
        ti.mode = 0o1777 if p == "tmp" else mode
        tar.addfile(ti)


def add_file(tar, src, dest, mode=None):
    dest = dest.strip("/")
    add_dir(tar, os.path.dirname(dest)) if "/" in dest else None
    with open(src, "rb") as f:
        data = f.read()
    ti = tarfile.TarInfo(dest)
    ti.size = len(data)
    ti.mode = mode if mode is not None else (os.stat(src).st_mode & 0o777)
    tar.seen.add(dest)
    tar.addfile(ti, io.BytesIO(data))


def add_link(tar, dest, target):
    dest = dest.strip("/")
    if dest in tar.seen:
        return
    ti = tarfile.TarInfo(dest)
    ti.type = tarfile.SYMTYPE
    ti.linkname = target
    tar.seen.add(dest)
    tar.addfile(ti)


def main():
    args = sys.argv[1:]
    out, ref = args[0], args[1]
    cfg = {"Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]}
    layer = io.BytesIO()
    tar = tarfile.open(fileobj=layer, mode="w", format=tarfile.GNU_FORMAT)
    tar.seen = set()
    for d in ("tmp", "etc", "var/run", "run"):
        add_dir(tar, d)
    # Files every image of a Pod expects; the kubelet bind-mounts its own
    # hosts and resolv.conf over these.
    for name, text in (("etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"),
                       ("etc/group", "root:x:0:\nnonroot:x:65532:\n"),
                       ("etc/hosts", "127.0.0.1 localhost\n"),
                       ("etc/resolv.conf", ""),
                       ("etc/nsswitch.conf", "hosts: files dns\n")):
        ti = tarfile.TarInfo(name)
        ti.size = len(text)
        ti.mode = 0o644
        tar.seen.add(name)
        tar.addfile(ti, io.BytesIO(text.encode()))
    i = 2
    while i < len(args):
        a = args[i]
        if a == "--user":
            cfg["User"] = args[i + 1]; i += 2; continue
        if a == "--entrypoint":
            cfg["Entrypoint"] = json.loads(args[i + 1]); i += 2; continue
        if a == "--cmd":
            cfg["Cmd"] = json.loads(args[i + 1]); i += 2; continue
        if a == "--env":
            cfg["Env"].append(args[i + 1]); i += 2; continue
        if a == "--workdir":
            cfg["WorkingDir"] = args[i + 1]; i += 2; continue
        src, dest = a.split("=", 1)
        if src == "@busybox":
            add_file(tar, "/bin/busybox", dest.rstrip("/") + "/busybox", 0o755)
            applets = subprocess.run(["/bin/busybox", "--list"], capture_output=True,
                                     text=True, check=True).stdout.split()
            for ap in applets:
                add_link(tar, dest.rstrip("/") + "/" + ap, "busybox")
        elif dest.endswith("/") and src.endswith("/"):
            add_dir(tar, dest)
        else:
            mode = None
            if ":" in dest:
                dest, m = dest.rsplit(":", 1)
                mode = int(m, 8)
            add_file(tar, src, dest, mode)
        i += 1
    tar.close()
    layer_bytes = layer.getvalue()
    diff_id = hashlib.sha256(layer_bytes).hexdigest()
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": cfg,
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + diff_id]},
        "history": [{"created_by": "tests/testenv/node.d/image.py"}],
    }
    config_bytes = json.dumps(config, sort_keys=True).encode()
    config_id = hashlib.sha256(config_bytes).hexdigest()
    manifest = [{"Config": config_id + ".json", "RepoTags": [ref],
                 "Layers": [diff_id + "/layer.tar"]}]
    with tarfile.open(out, "w") as o:
        for name, data in ((config_id + ".json", config_bytes),
                           (diff_id + "/layer.tar", layer_bytes),
                           ("manifest.json", json.dumps(manifest).encode())):
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mode = 0o644
            o.addfile(ti, io.BytesIO(data))


if __name__ == "__main__":
    main()
