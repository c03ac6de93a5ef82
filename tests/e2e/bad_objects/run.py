#!/usr/bin/env python3
"""Runs tests/e2e/bad_objects/cases.tsv against a real test environment.

Each case lays one malformed object or annotation out on the apiserver (a
hand-edited adoption facts annotation, a Secret without its key or with
text where PEM belongs, a Pod without its label, a legacy podTemplate of
the wrong shape), runs one command, and checks: the exit code of the case's
ErrorKind, the fragment naming the object and the field, one `error:` line
at most, no crash (abort, stack trace) and that the command did not write
the object; then it puts the object back (docs/rules.md#typed-reads).
The exit-code table is the programs' own (`__exit-codes`), as in
tests/e2e/bad_input/run.py, whose helpers this reuses.
"""
import base64
import json
import os
import re
import shlex
import sys
import time

sys.path.insert(0, os.path.join(os.environ["SOURCE_ROOT"], "tests", "e2e", "bad_input"))
import run as common  # noqa: E402  (tests/e2e/bad_input/run.py)

HERE = os.path.join(common.SRC, "tests", "e2e", "bad_objects")
LEGACY = os.path.join(common.SRC, "tests", "e2e", "bad_input", "legacy", "quota.json")
fail = common.fail
kubectl = common.kubectl


def cases():
    for n, line in enumerate(open(os.path.join(HERE, "cases.tsv")), 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) not in (7, 8):
            sys.exit(f"cases.tsv:{n}: {len(cols)} columns, want 7 or 8")
        yield cols + ["stderr"] * (8 - len(cols))


class Fixture:
    def __init__(self):
        pid = os.getpid()
        self.ns = f"bad-objects-{pid}"
        common.sh([os.path.join(common.ENV["TESTENV_TOOLS"], "native-fixture"), "up", "--name", "etcd",
                   "--namespace", self.ns, "--members", "1", "--version", "3.6", "--tls", "--auth"])
        self.member = json.loads(kubectl("-n", self.ns, "get", "etcdmembers", "-o", "json").stdout)["items"][0][
            "metadata"]["name"]
        # verify looks at adopted clusters only: this one is said to be adopted.
        kubectl("-n", self.ns, "annotate", "etcdcluster", "etcd", "cli.etcd-operator.cozystack.io/adopted-from=0")
        self.lns = f"bad-objects-legacy-{pid}"
        kubectl("create", "namespace", self.lns)
        kubectl("-n", self.lns, "create", "-f", LEGACY)

    def expand(self, text):
        return text.replace("{NS}", self.ns).replace("{LNS}", self.lns).replace("{MEMBER}", self.member)

    def target(self, target):
        """kubectl words naming the object of a case's target."""
        if target == "facts":
            return ["-n", self.ns, "etcdclusters.etcd-operator.cozystack.io", "etcd"]
        if target == "legacy":
            return ["-n", self.lns, "etcdclusters.etcd.aenix.io", "etcd"]
        if target == "pod":
            return ["-n", self.ns, "pod", self.member]
        if target.startswith("secret:"):
            return ["-n", self.ns, "secret", target.split(":", 1)[1]]
        sys.exit(f"cases.tsv: unknown target {target}")

    def get(self, words):
        return json.loads(kubectl("get", *words[2:], "-n", words[1], "-o", "json").stdout)

    def change(self, target, change):
        words = self.target(target)
        if target == "facts":
            value = re.sub(r"\{PAD:(\d+)\}", lambda m: "x" * int(m.group(1)), change)
            patch = {"metadata": {"annotations": {"cli.etcd-operator.cozystack.io/adoption": value}}}
            kubectl("patch", *words[2:], "-n", words[1], "--type", "merge", "--patch-file", "/dev/stdin",
                    stdin=json.dumps(patch))
        elif change.startswith("label:"):
            kubectl("label", *words[2:], "-n", words[1], change.split(":", 1)[1])
        else:
            patch = re.sub(r"\{B64:([^}]*)\}", lambda m: base64.b64encode(m.group(1).encode()).decode(), change)
            kubectl("patch", *words[2:], "-n", words[1], "--type", "merge", "-p", patch)

    def restore(self, words, saved):
        obj = json.loads(json.dumps(saved))
        for k in ("resourceVersion", "managedFields", "creationTimestamp", "generation"):
            obj["metadata"].pop(k, None)
        kubectl("replace", "-f", "-", stdin=json.dumps(obj))

    def close(self):
        common.sh([os.path.join(common.ENV["TESTENV_TOOLS"], "native-fixture"), "down", "--name", "etcd",
                   "--namespace", self.ns], check=False)
        for ns in (self.ns, self.lns):
            kubectl("delete", "namespace", ns, "--wait=false", check=False)


def run_one(fx, codes, case, target, change, program, args, kind, fragment, stream):
    words = fx.target(target)
    saved = fx.get(words)
    fx.change(target, change)
    changed = fx.get(words)["metadata"]["resourceVersion"]
    argv = [common.PROGRAMS[program]] + [fx.expand(a) for a in shlex.split(args)]
    started = time.monotonic()
    r = common.sh(argv, check=False, env=dict(common.ENV, NO_COLOR="1"))
    errors = [l for l in r.stderr.splitlines() if l.startswith("error:")]
    print(f"{case}: exit {r.returncode} in {time.monotonic() - started:.1f}s: "
          f"{errors[0][:200] if errors else '(no error line)'}", flush=True)
    after = fx.get(words)["metadata"]["resourceVersion"]
    fx.restore(words, saved)
    fragment = fx.expand(fragment)
    text = r.stdout if stream == "stdout" else r.stderr
    for bad in ("terminate called", "Aborted", "what():", "internal error", "Traceback", "Segmentation"):
        if bad in r.stderr:
            fail(case, f"a crash on stderr: {bad}: {r.stderr.strip()[-300:]}")
    if r.returncode != codes[kind]:
        fail(case, f"exit {r.returncode}, want {codes[kind]} ({kind}); stderr: {r.stderr.strip()[-400:]}")
    if fragment not in text:
        fail(case, f"{stream} lacks {fragment!r}: {text.strip()[-400:]}")
    if len(errors) > 1:
        fail(case, f"{len(errors)} error lines: {errors}")
    if stream == "stderr" and not errors:
        fail(case, "no `error:` line on stderr")
    if after != changed:
        fail(case, f"the command wrote the {target} object it was given")


def main():
    codes = common.exit_codes()
    rows = list(cases())
    if len(rows) < 20:
        fail("cases.tsv", f"{len(rows)} cases; the table must hold at least 20")
    if len({r[0] for r in rows}) != len(rows):
        fail("cases.tsv", "case ids repeat")
    fx = Fixture()
    try:
        for case, target, change, program, args, kind, fragment, stream in rows:
            if kind not in codes:
                fail(case, f"unknown kind {kind}")
                continue
            run_one(fx, codes, case, target, change, program, args, kind, fragment, stream)
    finally:
        fx.close()
    print(f"{len(rows)} cases, {len(common.failures)} failures")
    for f in common.failures:
        print("FAILED:", f)
    return 1 if common.failures else 0


if __name__ == "__main__":
    sys.exit(main())
