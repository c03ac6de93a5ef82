#!/usr/bin/env python3
"""Runs tests/e2e/bad_input/cases.tsv against a real test environment.

Every case must exit with the code of its ErrorKind, name the object and the
fix (the fragment), print one `error:` line at most and no stack trace, print
no secret of the environment, and change nothing in the namespaces and files
it was given. The exit codes come from the programs themselves
(`__exit-codes`), and the tables of README.md and docs/exit-codes.md must
agree with them: the three share one source of truth.

tests/e2e/bad_input/dry_run.tsv pairs an input the real run of a mutating
command refuses with the same input to its dry-run
(docs/rules.md#dry-run-checks-what-the-run-checks): both must exit with the
kind's code, print the fragment, change nothing, and the dry-run must print
the run's `error:` line when the run prints one.
"""
import base64
import json
import os
import re
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time

SRC = os.environ["SOURCE_ROOT"]
HERE = os.path.join(SRC, "tests", "e2e", "bad_input")
PROGRAMS = {"kubectl-etcd": os.environ["KUBECTL_ETCD"], "etcd-migrate": os.environ["ETCD_MIGRATE"]}
failures = []


def fail(case, why):
    failures.append(f"{case}: {why}")
    print(f"FAIL {case}: {why}", flush=True)


def load_env():
    path = os.environ.get("TESTENV_ENV_FILE")
    if not path:
        sys.exit("bad_input: no test environment: set TESTENV_ENV_FILE (tests/testenv/up DIR)")
    env = dict(os.environ)
    for line in open(path):
        m = re.match(r"export (\w+)='(.*)'$", line.strip())
        if m:
            env[m.group(1)] = m.group(2)
    return env


ENV = load_env()
KUBECTL = ENV["TESTENV_KUBECTL"]


def sh(args, stdin=None, check=True, env=None):
    r = subprocess.run(args, input=stdin, capture_output=True, text=True, env=env or ENV, timeout=300)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def kubectl(*args, stdin=None, check=True):
    return sh([KUBECTL, *args], stdin=stdin, check=check)


# --- one source of truth for the exit codes ---------------------------------

def exit_codes():
    tables = {}
    for name, path in PROGRAMS.items():
        out = sh([path, "__exit-codes"]).stdout
        tables[name] = {kind: int(code) for code, kind in (l.split() for l in out.splitlines())}
    if tables["kubectl-etcd"] != tables["etcd-migrate"]:
        fail("exit-codes", f"the programs disagree: {tables}")
    codes = tables["kubectl-etcd"]
    # docs/exit-codes.md: | code | `Kind`, `Kind` | meaning |
    doc = {}
    for line in open(os.path.join(SRC, "docs/exit-codes.md")):
        m = re.match(r"\| (\d+) \| (`[A-Za-z]+`(?:, `[A-Za-z]+`)*) \|", line)
        if m:
            for kind in re.findall(r"`(\w+)`", m.group(2)):
                doc[kind] = int(m.group(1))
    if doc != codes:
        fail("exit-codes", f"docs/exit-codes.md's table {doc} is not the code's {codes}")
    # README.md: | code | meaning |, with "130 / 143" on one row.
    readme = set()
    section = open(os.path.join(SRC, "README.md")).read().split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        m = re.match(r"\| (\d+)(?: / (\d+))? \|", line)
        if m:
            readme.update(int(g) for g in m.groups() if g)
    if readme != set(codes.values()) | {0}:
        fail("exit-codes", f"README.md's codes {sorted(readme)} are not the code's {sorted(set(codes.values()) | {0})}")
    return codes


# --- the environment the cases point at --------------------------------------

class Setup:
    def __init__(self, tmp):
        self.tmp = tmp
        self.namespaces = []
        self.secrets = [ENV["TESTENV_S3_SECRET_KEY"]]
        self.ns = self.namespace("bad-input")
        self.nosuchns = f"bad-input-nosuch-{os.getpid()}"
        self.kubeconfigs = self.make_kubeconfigs()
        self.etcd_dir = os.path.join(tmp, "etcd")
        sh([os.path.join(ENV["TESTENV_TOOLS"], "etcd-cluster"), "up", "--dir", self.etcd_dir, "--version", "3.6",
            "--members", "1"])
        self.etcd = sh([os.path.join(ENV["TESTENV_TOOLS"], "etcd-cluster"), "endpoints", "--dir",
                        self.etcd_dir]).stdout.strip().split(",")[0]
        self.badsnap = os.path.join(tmp, "bad.db")
        with open(self.badsnap, "wb") as f:
            f.write(os.urandom(4096) + b"\0" * 32)  # 32 trailer bytes that are not its sha256
        self.specials = self.make_special_files()
        self.fix = None
        self.legacy = {}
        self.native = None
        # For the dry-run pairs: a real snapshot, the same cut short, a YAML
        # file; a bucket and the Secret restore reads.
        self.goodsnap = os.path.join(tmp, "good.db")
        sh([PROGRAMS["kubectl-etcd"], "snapshot", "save", self.goodsnap, "--endpoints", self.etcd])
        self.cutsnap = os.path.join(tmp, "cut.db")
        with open(self.goodsnap, "rb") as f, open(self.cutsnap, "wb") as out:
            out.write(f.read()[:-512])
        self.yamlfile = os.path.join(tmp, "etcdcluster.yaml")
        with open(self.yamlfile, "w") as f:
            f.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-a-snapshot\n")
        self.bucket = f"bad-input-{os.getpid()}"
        os.makedirs(os.path.join(ENV["TESTENV_S3_DIR"], self.bucket), exist_ok=True)
        kubectl("-n", self.ns, "create", "secret", "generic", "s3-creds",
                "--from-literal=AWS_ACCESS_KEY_ID=" + ENV["TESTENV_S3_ACCESS_KEY"],
                "--from-literal=AWS_SECRET_ACCESS_KEY=" + ENV["TESTENV_S3_SECRET_KEY"])

    def namespace(self, prefix):
        name = f"{prefix}-{os.getpid()}-{len(self.namespaces)}"
        kubectl("create", "namespace", name)
        self.namespaces.append(name)
        return name

    def make_kubeconfigs(self):
        server, ca = ENV["TESTENV_APISERVER"], ENV["TESTENV_CA"]
        kubectl("-n", self.ns, "create", "serviceaccount", "nobody")
        token403 = kubectl("-n", self.ns, "create", "token", "nobody").stdout.strip()
        token401 = base64.b64encode(os.urandom(24)).decode()
        self.secrets += [token403, token401]

        def kc(name, server, token, context="c"):
            path = os.path.join(self.tmp, f"kubeconfig-{name}")
            doc = {"apiVersion": "v1", "kind": "Config", "current-context": context,
                   "clusters": [{"name": "c", "cluster": {"server": server, "certificate-authority": ca}}],
                   "users": [{"name": "u", "user": {"token": token}}],
                   "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u", "namespace": self.ns}}]}
            with open(path, "w") as f:
                json.dump(doc, f)
            return path

        bad = os.path.join(self.tmp, "kubeconfig-badyaml")
        with open(bad, "w") as f:
            f.write("clusters: [unclosed\n  - : :\n")
        deploy = os.path.join(self.tmp, "kubeconfig-deployment.yaml")
        with open(deploy, "w") as f:
            f.write("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n")
        folder = os.path.join(self.tmp, "kubeconfig-dir")
        os.mkdir(folder)
        return {"BADYAML": bad, "DEPLOY": deploy, "DIR": folder,
                "NOCTX": kc("noctx", server, token401, context="gone-context"),
                "401": kc("401", server, token401), "403": kc("403", server, token403),
                "DOWN": kc("down", "https://127.0.0.1:1", token401)}

    def make_special_files(self):
        """What a program must never write through or replace
        (docs/rules.md#files-the-user-names): a device node like /dev/null
        (mknod: the environment runs as root), a FIFO, a bound unix socket, a
        directory, a symbolic link to the device, a file whose .part is a
        FIFO, and a folder where a man page's name is a device."""
        d = os.path.join(self.tmp, "special")
        os.mkdir(d)
        path = lambda name: os.path.join(d, name)
        os.mknod(path("null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        os.mkfifo(path("fifo"))
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(path("sock"))
        os.mkdir(path("dir"))
        os.symlink(path("null"), path("link-to-null"))
        os.mkfifo(path("snap.db.part"))
        os.mkdir(path("man"))
        os.mknod(path("man/kubectl-etcd-status.1"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        return {"DEV": path("null"), "FIFO": path("fifo"), "SOCK": path("sock"), "DIR": path("dir"),
                "LINK_DEV": path("link-to-null"), "PART_FIFO": path("snap.db"), "MANDIR": path("man")}

    def legacy_ns(self, name):
        if name not in self.legacy:
            ns = self.namespace(f"bad-legacy-{name}")
            kubectl("-n", ns, "create", "-f", os.path.join(HERE, "legacy", f"{name}.json"))
            self.legacy[name] = ns
        return self.legacy[name]

    def fixture(self):
        if self.fix is None:
            self.fix = self.namespace("bad-input-fix")
            sh([os.path.join(ENV["TESTENV_TOOLS"], "legacy-fixture"), "up", "--name", "etcd", "--namespace",
                self.fix, "--replicas", "1", "--version", "3.6"])
        return self.fix

    def native_cluster(self):
        """A converged one-member v1alpha2 cluster "etcd" (its operator counted active)."""
        if self.native is None:
            ns = f"bad-input-native-{os.getpid()}"
            sh([os.path.join(ENV["TESTENV_TOOLS"], "native-fixture"), "up", "--name", "etcd", "--namespace", ns,
                "--members", "1", "--version", "3.6"])
            self.namespaces.append(ns)
            info = json.loads(sh([KUBECTL, "-n", ns, "get", "etcdmembers", "-o", "json"]).stdout)
            self.native = (ns, info["items"][0]["metadata"]["name"])
        return self.native

    def expand(self, text):
        subst = {"{NS}": self.ns, "{NOSUCHNS}": self.nosuchns, "{ETCD}": self.etcd, "{TMP}": self.tmp,
                 "{BADSNAP}": self.badsnap, "{S3}": ENV["TESTENV_S3_ENDPOINT"], "{GOODSNAP}": self.goodsnap,
                 "{CUTSNAP}": self.cutsnap, "{YAMLFILE}": self.yamlfile, "{BUCKET}": self.bucket}
        subst.update({"{KC_%s}" % k: v for k, v in self.kubeconfigs.items()})
        subst.update({"{%s}" % k: v for k, v in self.specials.items()})
        for k, v in subst.items():
            text = text.replace(k, v)
        text = re.sub(r"\{LEGACY:(\w+)\}", lambda m: self.legacy_ns(m.group(1)), text)
        if "{FIX}" in text:
            text = text.replace("{FIX}", self.fixture())
        if "{NATIVE" in text:
            ns, member = self.native_cluster()
            text = text.replace("{NATIVE_MEMBER}", member).replace("{NATIVE}", ns)
        return text

    def fingerprint(self, namespaces):
        """Every object's resourceVersion in the namespaces, and the files of
        {TMP}: each one's type (a device stays a device), device number and size."""
        out = []
        kinds = ("all,configmaps,secrets,serviceaccounts,persistentvolumeclaims,poddisruptionbudgets,roles,"
                 "rolebindings,leases,etcdclusters.etcd.aenix.io,etcdclusters.etcd-operator.cozystack.io,"
                 "etcdmembers,etcdsnapshots")
        for ns in namespaces:
            items = json.loads(kubectl("-n", ns, "get", kinds, "-o", "json").stdout)["items"]
            out += sorted(f"{i['kind']}/{i['metadata']['name']}@{i['metadata']['resourceVersion']}" for i in items)
        for root, dirs, files in os.walk(self.tmp):
            if root.startswith(self.etcd_dir):
                continue
            for name in sorted(dirs + files):
                path = os.path.join(root, name)
                if path == self.etcd_dir:
                    continue
                st = os.lstat(path)
                size = 0 if stat.S_ISDIR(st.st_mode) else st.st_size  # a folder's size is the file system's
                out.append(f"{path}@{stat.S_IFMT(st.st_mode):o}:{st.st_rdev}:{size}")
        return out

    def close(self):
        sh([os.path.join(ENV["TESTENV_TOOLS"], "etcd-cluster"), "down", "--dir", self.etcd_dir], check=False)
        if self.fix:
            sh([os.path.join(ENV["TESTENV_TOOLS"], "legacy-fixture"), "down", "--name", "etcd", "--namespace",
                self.fix], check=False)
        if self.native:
            sh([os.path.join(ENV["TESTENV_TOOLS"], "native-fixture"), "down", "--name", "etcd", "--namespace",
                self.native[0]], check=False)
        shutil.rmtree(os.path.join(ENV["TESTENV_S3_DIR"], self.bucket), ignore_errors=True)
        for ns in self.namespaces:
            kubectl("delete", "namespace", ns, "--wait=false", check=False)


def cases():
    for n, line in enumerate(open(os.path.join(HERE, "cases.tsv")), 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) not in (5, 6):
            sys.exit(f"cases.tsv:{n}: {len(cols)} columns, want 5 or 6")
        yield cols + ["stderr"] * (6 - len(cols))


def dry_run_pairs():
    for n, line in enumerate(open(os.path.join(HERE, "dry_run.tsv")), 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 6:
            sys.exit(f"dry_run.tsv:{n}: {len(cols)} columns, want 6")
        yield cols


def run_case(setup, case, program, args):
    """Runs one command line; fails `case` on a crash, a secret or a change. Returns the result."""
    words = [setup.expand(a) for a in shlex.split(args)]
    # Leading NAME=VALUE words set the program's environment, as in a shell.
    case_env = {}
    while words and re.match(r"[A-Z_]+=", words[0]):
        name, value = words.pop(0).split("=", 1)
        case_env[name] = value
    argv = [PROGRAMS[program]] + words
    touched = [setup.ns] + [a for a in argv if a in setup.namespaces and a != setup.ns]
    before = setup.fingerprint(touched)
    started = time.monotonic()
    r = sh(argv, check=False, env=dict(ENV, NO_COLOR="1", AWS_ACCESS_KEY_ID=ENV["TESTENV_S3_ACCESS_KEY"],
                                       AWS_SECRET_ACCESS_KEY=ENV["TESTENV_S3_SECRET_KEY"], **case_env))
    took = time.monotonic() - started
    errors = [l for l in r.stderr.splitlines() if l.startswith("error:")]
    print(f"{case}: exit {r.returncode} in {took:.1f}s: {errors[0] if errors else '(no error line)'}", flush=True)
    for bad in ("terminate called", "Aborted", "what():", "Traceback", "panic:", "Segmentation"):
        if bad in r.stderr:
            fail(case, f"a crash on stderr: {bad}")
    for secret in setup.secrets:
        if secret and (secret in r.stdout or secret in r.stderr):
            fail(case, "a secret of the environment was printed")
    if setup.fingerprint(touched) != before:
        fail(case, "it changed objects or files")
    r.errors = errors
    return r


def check_dry_run_pairs(setup, codes):
    rows = list(dry_run_pairs())
    if len({r[0] for r in rows}) != len(rows):
        fail("dry_run.tsv", "case ids repeat")
    for case, program, real, dry, kind, fragment in rows:
        if kind not in codes:
            fail(case, f"unknown kind {kind}")
            continue
        fragment = setup.expand(fragment)
        ran = run_case(setup, case + " (run)", program, real)
        tried = run_case(setup, case + " (dry-run)", program, dry)
        for which, r in (("run", ran), ("dry-run", tried)):
            if r.returncode != codes[kind]:
                fail(case, f"{which}: exit {r.returncode}, want {codes[kind]} ({kind}); stderr: {r.stderr.strip()[-400:]}")
            if fragment not in r.stdout + r.stderr:
                fail(case, f"{which} lacks {fragment!r}: {(r.stdout + r.stderr).strip()[-400:]}")
        if ran.errors and ran.errors != tried.errors:
            fail(case, f"the dry-run's error lines {tried.errors} are not the run's {ran.errors}")
    return len(rows)


def main():
    codes = exit_codes()
    rows = list(cases())
    if len(rows) < 40:
        fail("cases.tsv", f"{len(rows)} cases; the table must hold at least 40")
    if len({r[0] for r in rows}) != len(rows):
        fail("cases.tsv", "case ids repeat")
    with tempfile.TemporaryDirectory(prefix="bad-input-") as tmp:
        setup = Setup(tmp)
        try:
            for case, program, args, kind, fragment, stream in rows:
                if kind not in codes:
                    fail(case, f"unknown kind {kind}")
                    continue
                fragment = setup.expand(fragment)
                r = run_case(setup, case, program, args)
                errors = r.errors
                text = r.stdout if stream == "stdout" else r.stderr
                if r.returncode != codes[kind]:
                    fail(case, f"exit {r.returncode}, want {codes[kind]} ({kind}); stderr: {r.stderr.strip()}")
                if fragment not in text:
                    fail(case, f"{stream} lacks {fragment!r}: {text.strip()[-400:]}")
                if len(errors) > 1:
                    fail(case, f"{len(errors)} error lines: {errors}")
                if stream == "stderr" and not errors:
                    fail(case, "no `error:` line on stderr")
            pairs = check_dry_run_pairs(setup, codes)
        finally:
            setup.close()
    print(f"{len(rows)} cases, {pairs} dry-run pairs, {len(failures)} failures")
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
