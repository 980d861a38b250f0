"""The listening socket: accept connections and give each its session.

``serve(config)`` restores unfinished matches from the records directory, listens,
reports the bound port through ``task_status.started(port)`` (tests start it on port
0), logs ``listening on HOST:PORT``, and runs until cancelled. On cancellation it
stops accepting, sends ``server_shutdown`` to every connection and closes them.
A connection over ``max_connections`` gets ``error`` ``server_full`` and is closed.
"""

from __future__ import annotations

import contextlib
import logging

import trio

from ..protocol.codec import encode
from ..protocol.errors import ErrorCode, ProtocolError
from .config import ServerConfig
from .hub import Hub
from .session import Session

__all__ = ["serve"]

log = logging.getLogger("jackal.server")


def _address(stream: trio.SocketStream) -> str:
    try:
        host, port = stream.socket.getpeername()[:2]
    except OSError:
        return "?"
    return f"{host}:{port}"


async def serve(config: ServerConfig, *,
                task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """Run a Jackal server with ``config`` until cancelled."""
    hub = Hub(config)

    async def handle(stream: trio.SocketStream) -> None:
        number = hub.next_number()
        address = _address(stream)
        if hub.closing:
            await stream.aclose()
            return
        if len(hub.sessions) >= config.max_connections:
            log.warning("connection #%d %s refused: server full", number, address)
            error = ProtocolError(ErrorCode.SERVER_FULL, "the server is full; try later")
            with trio.move_on_after(1.0):
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await stream.send_all(encode(error.to_message()))
            await stream.aclose()
            return
        session = Session(hub, stream, number, address)
        hub.sessions[session] = None
        log.info("connection #%d from %s", number, address)
        session.deliver(hub.welcome())
        await session.run()

    try:
        async with trio.open_nursery() as nursery:
            hub.start(nursery)
            listeners = await trio.open_tcp_listeners(config.port, host=config.host)
            sockname = listeners[0].socket.getsockname()
            port = int(sockname[1])
            await nursery.start(trio.serve_listeners, handle, listeners)
            log.info("listening on %s:%d", config.host, port)
            task_status.started(port)
    finally:
        hub.shutdown()
