#!/usr/bin/env python3
"""bench/delay-proxy.py: a TCP proxy on loopback that holds every byte for a fixed time in each direction — a slow
link's round trip where netem is not allowed (it needs root in the network namespace and the sch_netem module).
Bytes are delayed, not throttled: what arrives at time t leaves at t + delay, so a pipelined client keeps its
advantage, as on a long link. Prints its port on stdout once listening, then runs until killed.

    delay-proxy.py --delay-ms 25 --target-port PORT
"""
import argparse
import asyncio
import collections
import socket
import sys
import time


async def pump(reader, writer, delay):
    """Copies reader to writer, each chunk leaving `delay` seconds after it arrived."""
    queue = collections.deque()
    arrived = asyncio.Event()

    async def receive():
        while True:
            data = await reader.read(1 << 16)
            queue.append((time.monotonic() + delay, data))
            arrived.set()
            if not data:
                return

    async def send():
        while True:
            while not queue:
                arrived.clear()
                await arrived.wait()
            due, data = queue.popleft()
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            writer.write(data)
            await writer.drain()

    receiving = asyncio.ensure_future(receive())
    try:
        await send()
    except (ConnectionError, OSError):
        pass
    receiving.cancel()


async def serve(client_reader, client_writer, target_port, delay):
    try:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
    except OSError:
        client_writer.close()
        return
    for writer in (client_writer, server_writer):
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    await asyncio.gather(
        pump(client_reader, server_writer, delay), pump(server_reader, client_writer, delay), return_exceptions=True)
    for writer in (client_writer, server_writer):
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay-ms", type=float, required=True, help="added in each direction")
    parser.add_argument("--target-port", type=int, required=True)
    args = parser.parse_args()
    delay = args.delay_ms / 1000
    server = await asyncio.start_server(
        lambda r, w: serve(r, w, args.target_port, delay), "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    sys.stdout.close()
    async with server:
        await server.serve_forever()


asyncio.run(main())
