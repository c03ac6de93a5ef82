#!/usr/bin/env python3
"""A TCP relay from an address Pods can route to (the node's bridge) to a
server on loopback: the apiserver (the `kubernetes` Service's endpoint) and
the S3 server (the Service `testenv-s3`). TLS passes through untouched.

usage: relay.py LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT
"""
import asyncio
import sys


async def pipe(r, w):
    try:
        while data := await r.read(65536):
            w.write(data)
            await w.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        try:
            w.close()
        except Exception:
            pass


async def handle(cr, cw):
    try:
        tr, tw = await asyncio.open_connection(sys.argv[3], int(sys.argv[4]))
    except OSError:
        cw.close()
        return
    await asyncio.gather(pipe(cr, tw), pipe(tr, cw))


async def main():
    server = await asyncio.start_server(handle, sys.argv[1], int(sys.argv[2]))
    async with server:
        await server.serve_forever()


asyncio.run(main())
