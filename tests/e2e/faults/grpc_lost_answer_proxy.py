#!/usr/bin/python3
"""An HTTP/2 (gRPC) proxy in front of etcd members that loses the answer to
one chosen call (docs/server-faults.md#lost-answers-to-etcds-writes).

    grpc_lost_answer_proxy.py --log FILE [--lose PATH[,PATH...] --nth N]
                              [--tls CERT KEY CA CLIENT_CERT CLIENT_KEY]
                              UPSTREAM_HOST:PORT...

With --tls it ends the client's TLS with CERT and KEY (the members' own
server certificate, so the client's check of the member's name passes) and
dials each upstream over TLS with the client certificate CLIENT_CERT (the
identity the client had), verifying it against CA; both sides speak h2.

For each upstream it listens on a free loopback address 127.2.x.y with the
upstream's port, and writes `listen LISTEN UPSTREAM` to the log, then
`ready`. It reads the frames the client sends, decodes each request's
headers with HPACK to find its :path, and counts the calls whose path is in
--lose, across all upstreams; every such call is logged as
`call K PATH UPSTREAM`. Call number N is forwarded like the others, and etcd
applies it; when the first frame of its answer comes back, the proxy closes
both connections instead of passing it on (`cut K PATH`): the write is done,
and the client sees the connection drop. Every later call passes. With
--nth 0 nothing is lost, the calls are only counted (the writes of an
uninterrupted run); without --lose every call is counted.
"""
import argparse
import asyncio
import random
import socket
import ssl
import sys

try:
    import hpack
except ImportError:
    sys.exit("grpc_lost_answer_proxy: python3-hpack is missing (bash packaging/install-deps.sh)")

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HEADERS, CONTINUATION = 0x1, 0x9
END_HEADERS, PADDED, PRIORITY = 0x4, 0x8, 0x20


class State:
    def __init__(self, log, lose, nth):
        self.log = log
        self.lose = lose
        self.nth = nth
        self.calls = 0
        self.done = False

    def write(self, line):
        self.log.write(line + "\n")
        self.log.flush()


def frames(buf):
    """Splits whole frames off the front of buf: (frames, rest)."""
    out = []
    while len(buf) >= 9:
        length = int.from_bytes(buf[0:3], "big")
        if len(buf) < 9 + length:
            break
        out.append(bytes(buf[: 9 + length]))
        del buf[: 9 + length]
    return out


def header_fragment(frame):
    ftype, flags = frame[3], frame[4]
    payload = frame[9:]
    if ftype == HEADERS:
        pad = 0
        if flags & PADDED:
            pad = payload[0]
            payload = payload[1:]
        if flags & PRIORITY:
            payload = payload[5:]
        if pad:
            payload = payload[:-pad]
    return payload


async def pump_requests(state, upstream, reader, writer, doomed, cut):
    """Client to etcd: forwards every byte, noting the stream of the lost call."""
    decoder = hpack.Decoder()
    buf = bytearray()
    preface = False
    block, block_stream = b"", 0
    while not cut.is_set():
        data = await reader.read(65536)
        if not data:
            break
        buf += data
        if not preface:
            if len(buf) < len(PREFACE):
                continue
            preface = True
            writer.write(bytes(buf[: len(PREFACE)]))
            del buf[: len(PREFACE)]
        for f in frames(buf):
            ftype, flags = f[3], f[4]
            stream = int.from_bytes(f[5:9], "big") & 0x7FFFFFFF
            if ftype in (HEADERS, CONTINUATION):
                if ftype == HEADERS:
                    block, block_stream = b"", stream
                block += header_fragment(f)
                if flags & END_HEADERS:
                    headers = dict(decoder.decode(block, raw=False))
                    path = headers.get(":path", "")
                    if path in state.lose or (not state.lose and path):
                        state.calls += 1
                        state.write("call %d %s %s" % (state.calls, path, upstream))
                        if state.lose and not state.done and state.calls == state.nth:
                            state.done = True
                            doomed[block_stream] = (state.calls, path)
            writer.write(f)
        await writer.drain()
    cut.set()


async def pump_answers(state, reader, writer, doomed, cut):
    """etcd to client: forwards whole frames until the lost call's answer."""
    buf = bytearray()
    while not cut.is_set():
        data = await reader.read(65536)
        if not data:
            break
        buf += data
        for f in frames(buf):
            stream = int.from_bytes(f[5:9], "big") & 0x7FFFFFFF
            if stream in doomed:
                k, path = doomed[stream]
                state.write("cut %d %s" % (k, path))
                cut.set()
                return
            writer.write(f)
        await writer.drain()
    cut.set()


def serve(state, upstream, upstream_tls):
    host, port = upstream.rsplit(":", 1)

    async def handle(creader, cwriter):
        try:
            ureader, uwriter = await asyncio.open_connection(host, int(port), ssl=upstream_tls)
        except OSError as e:
            state.write("upstream %s: %s" % (upstream, e))
            cwriter.close()
            return
        doomed, cut = {}, asyncio.Event()
        tasks = [
            asyncio.ensure_future(pump_requests(state, upstream, creader, uwriter, doomed, cut)),
            asyncio.ensure_future(pump_answers(state, ureader, cwriter, doomed, cut)),
        ]
        await cut.wait()
        for t in tasks:
            t.cancel()
        # An abort, not a close: the client sees the connection reset, as
        # when a proxy or a node drops it.
        for w in (cwriter, uwriter):
            w.transport.abort()

    return handle


def free_address(port):
    for _ in range(200):
        ip = "127.2.%d.%d" % (random.randint(0, 255), random.randint(1, 254))
        s = socket.socket()
        try:
            s.bind((ip, port))
            s.close()
            return ip
        except OSError:
            s.close()
    sys.exit("grpc_lost_answer_proxy: no free loopback address for port %d" % port)


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--lose", default="")
    ap.add_argument("--nth", type=int, default=1)
    ap.add_argument("--tls", nargs=5, metavar=("CERT", "KEY", "CA", "CLIENT_CERT", "CLIENT_KEY"))
    ap.add_argument("upstreams", nargs="+")
    a = ap.parse_args()
    state = State(open(a.log, "a"), set(p for p in a.lose.split(",") if p), a.nth)
    server_tls = upstream_tls = None
    if a.tls:
        cert, key, ca, client_cert, client_key = a.tls
        server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_tls.load_cert_chain(cert, key)
        server_tls.set_alpn_protocols(["h2"])
        upstream_tls = ssl.create_default_context(cafile=ca)
        upstream_tls.load_cert_chain(client_cert, client_key)
        # Dialled by address; the member's certificate names it by DNS name.
        upstream_tls.check_hostname = False
        upstream_tls.set_alpn_protocols(["h2"])
    servers = []
    for up in a.upstreams:
        port = int(up.rsplit(":", 1)[1])
        ip = free_address(port)
        servers.append(await asyncio.start_server(serve(state, up, upstream_tls), ip, port, ssl=server_tls))
        state.write("listen %s:%d %s" % (ip, port, up))
    state.write("ready")
    await asyncio.gather(*(s.serve_forever() for s in servers))


if __name__ == "__main__":
    asyncio.run(main())
