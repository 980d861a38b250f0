"""A fake server for the client tests: the server end of one connection."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import trio

WELCOME = {"type": "welcome", "protocol": 1, "server": "fake", "version": "0", "hint": "help"}


Script = Callable[["Peer"], Awaitable[None]]


class Peer:
    """The server end of one connection: reads JSON lines, writes JSON lines."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    async def send(self, obj: dict[str, Any]) -> None:
        await self.stream.send_all(json.dumps(obj).encode() + b"\n")

    async def receive(self) -> dict[str, Any]:
        while b"\n" not in self.buffer:
            data = await self.stream.receive_some(4096)
            if not data:
                raise EOFError
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        result: dict[str, Any] = json.loads(line)
        return result


async def start_fake(nursery: trio.Nursery, script: Script,
                     welcome: dict[str, Any] | None = None) -> int:
    """Listen on 127.0.0.1 port 0 and run ``script`` for each connection; return the port.
    Each connection is greeted with ``welcome`` (default :data:`WELCOME`)."""

    async def handler(stream: trio.SocketStream) -> None:
        peer = Peer(stream)
        await peer.send(welcome or WELCOME)
        try:
            await script(peer)
        except (EOFError, trio.BrokenResourceError):
            pass
        finally:
            await stream.aclose()

    listeners = await nursery.start(partial(trio.serve_tcp, handler, 0, host="127.0.0.1"))
    port: int = listeners[0].socket.getsockname()[1]
    return port


async def seat_client(peer: Peer, hello: dict[str, Any], state: bytes) -> None:
    """Play the server while ``jackal bot`` takes its seat: greet it, create table t1, add
    its bots, seat it at S (token "secret") with ``state`` as the join's snapshot, and
    take its ``ready``."""
    await peer.send({"type": "hello_ok", "name": "me", "id": hello["id"]})
    while True:
        msg = await peer.receive()
        reply: dict[str, Any] = {"type": "ok", "request": msg["type"], "id": msg["id"]}
        if msg["type"] == "create_table":
            reply = {"type": "table_created", "table": "t1", "name": "t1", "id": msg["id"]}
        elif msg["type"] == "join":
            reply = {"type": "joined", "table": "t1", "seat": "S", "token": "secret",
                     "id": msg["id"]}
        await peer.send(reply)
        if msg["type"] == "join":
            await peer.stream.send_all(state)
        if msg["type"] == "ready":
            return


@asynccontextmanager
async def fake_server(script: Script) -> AsyncIterator[tuple[trio.Nursery, int]]:
    """A scripted server for the duration of the block, which must end within 5 s.

    Yields the nursery it runs in (for connections that run their tasks there) and its
    port; the server is cancelled when the block ends.
    """
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            port = await start_fake(nursery, script)
            yield nursery, port
            nursery.cancel_scope.cancel()
