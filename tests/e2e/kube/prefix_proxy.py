#!/usr/bin/env python3
"""A tiny reverse proxy for the path-prefix test: serves plain HTTP on
127.0.0.1 (a free port, written to PORTFILE), accepts only paths under PREFIX,
strips it, and forwards to the apiserver with the admin client certificate.
Anything outside PREFIX gets 404, so a client that drops the prefix fails.

usage: prefix_proxy.py PORTFILE PREFIX UPSTREAM CA CERT KEY"""
import http.client
import http.server
import ssl
import sys
import urllib.parse

portfile, prefix, upstream, ca, cert, key = sys.argv[1:7]
up = urllib.parse.urlsplit(upstream)
ctx = ssl.create_default_context(cafile=ca)
ctx.load_cert_chain(cert, key)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("proxy: " + (fmt % args) + "\n")

    def forward(self):
        if not self.path.startswith(prefix + "/"):
            body = b"404 page not found (path outside the prefix)\n"
            self.send_response(404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        conn = http.client.HTTPSConnection(up.hostname, up.port, context=ctx, timeout=60)
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() in ("content-type", "accept", "user-agent")}
        conn.request(self.command, self.path[len(prefix):], body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() in ("content-type", "retry-after"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        conn.close()

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = forward


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(portfile + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(portfile + ".tmp", portfile)
server.serve_forever()
