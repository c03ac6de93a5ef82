"""What the testenv's stand-ins (pod runner, operator supervisor) share: a
minimal client of the environment's apiserver as its admin, and log lines."""

import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.request


def logger(prefix):
    def log(msg):
        print(time.strftime("%H:%M:%S ") + prefix + ": " + msg, file=sys.stderr, flush=True)
    return log


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Api:
    def __init__(self):
        self.base = os.environ["TESTENV_APISERVER"]
        ctx = ssl.create_default_context(cafile=os.environ["TESTENV_CA"])
        ctx.load_cert_chain(os.environ["TESTENV_ADMIN_CERT"], os.environ["TESTENV_ADMIN_KEY"])
        self.ctx = ctx

    def call(self, method, path, body=None, ctype="application/json"):
        """(HTTP status, parsed body or None); never raises on an HTTP error."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", ctype)
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=10) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, None
