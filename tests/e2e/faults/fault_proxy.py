#!/usr/bin/env python3
"""A reverse proxy in front of the environment's apiserver that answers
errors for a while (docs/server-faults.md). Plain HTTP on 127.0.0.1 (a free
port, written to PORTFILE); every request is forwarded with the admin client
certificate and its answer streamed back (watches included).

Once AFTER_WRITES writes (POST, PUT, PATCH, DELETE; server-side dry-runs do
not count) went through with a 2xx answer, each PHASE "STATUS:SECONDS" in turn answers STATUS to every request
for SECONDS (429 with Retry-After: 1, as an apiserver's priority and
fairness does), then requests pass again. Every request is logged to LOG as
"pass|fault STATUS METHOD PATH".

A lost answer instead: AFTER_WRITES "lose:N" forwards the Nth mutating
request (POST, PUT, PATCH, DELETE; server-side dry-runs do not count,
whatever their answer), lets the apiserver apply it and reads its whole
answer, then cuts the client's connection without a byte of it: the write
happened, the client cannot know. Logged as "lost STATUS METHOD PATH"; every
mutating request as "write N METHOD PATH" before it is forwarded.

usage: fault_proxy.py PORTFILE LOG UPSTREAM CA CERT KEY AFTER_WRITES|lose:N PHASE..."""
import http.client
import http.server
import json
import os
import socket
import ssl
import sys
import threading
import time
import urllib.parse

portfile, logfile, upstream, ca, cert, key, after_writes = sys.argv[1:8]
lose_mode = after_writes.startswith("lose:")
lose = int(after_writes.split(":", 1)[1]) if lose_mode else 0  # 0: number the writes, lose none
after_writes = 0 if lose_mode else int(after_writes)
requests = 0  # mutating requests seen (lose mode)
phases = [(int(s), float(t)) for s, t in (p.split(":") for p in sys.argv[8:])]
up = urllib.parse.urlsplit(upstream)
ctx = ssl.create_default_context(cafile=ca)
ctx.load_cert_chain(cert, key)
lock = threading.Lock()
writes = 0
fault_start = None  # when the first phase began
log = open(logfile, "a", buffering=1)


def current_fault():
    """The status to answer now, or None."""
    with lock:
        if fault_start is None:
            return None
        t = time.monotonic() - fault_start
    for status, seconds in phases:
        if t < seconds:
            return status
        t -= seconds
    return None


def count_write(method, path, status):
    global writes, fault_start
    # A server-side dry-run (the plan's validation) changes nothing: not a write.
    if "dryRun=" in path:
        return
    if method in ("POST", "PUT", "PATCH", "DELETE") and 200 <= status < 300:
        with lock:
            writes += 1
            if not lose_mode and writes >= after_writes and fault_start is None:
                fault_start = time.monotonic()


REASONS = {429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply_fault(self, status):
        body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                           "message": "injected by the test's fault proxy",
                           "reason": REASONS.get(status, "InternalError"), "code": status}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if status == 429:
            self.send_header("Retry-After", "1")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def numbered(self):
        """The number of this mutating request (lose mode), else 0."""
        global requests
        if not lose_mode or self.command not in ("POST", "PUT", "PATCH", "DELETE") or "dryRun=" in self.path:
            return 0
        with lock:
            requests += 1
            n = requests
        log.write(f"write {n} {self.command} {self.path}\n")
        return n

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        n = self.numbered()
        fault = current_fault()
        if fault is not None:
            log.write(f"fault {fault} {self.command} {self.path}\n")
            self.reply_fault(fault)
            return
        conn = http.client.HTTPSConnection(up.hostname, up.port, context=ctx, timeout=300)
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() in ("content-type", "accept", "user-agent")}
        conn.request(self.command, self.path, body=body, headers=headers)
        resp = conn.getresponse()
        if lose_mode and n != 0 and n == lose:
            # Applied upstream, answer read and dropped: the client sees the
            # connection close before any byte of it.
            resp.read()
            conn.close()
            log.write(f"lost {resp.status} {self.command} {self.path}\n")
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        log.write(f"pass {resp.status} {self.command} {self.path}\n")
        count_write(self.command, self.path, resp.status)
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() in ("content-type", "retry-after"):
                self.send_header(k, v)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        while True:
            chunk = resp.read1(65536)
            if not chunk:
                break
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        conn.close()

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = forward


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(portfile + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(portfile + ".tmp", portfile)
server.serve_forever()
