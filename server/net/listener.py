"""The listening socket: accept connections and give each its session.

:func:`serve` runs a whole server until cancelled, and however it stops it says goodbye
to every connection before it closes them.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
from collections.abc import Callable
from functools import partial

import trio

from ...protocol.codec import encode
from ...protocol.errors import ErrorCode, ProtocolError
from ..config import ServerConfig
from ..hub import Hub
from ..web.gateway import Gateway, page_urls
from . import gctune
from .announce import Announcement, announce, default_name
from .ratelimit import address_group
from .session import Session

__all__ = ["SHUTDOWN_GRACE", "serve"]

log = logging.getLogger("jackal.server")

#: Longest a stopping server waits for its ``server_shutdown`` messages to be written.
SHUTDOWN_GRACE = 2.0


def _address(stream: trio.SocketStream) -> str:
    try:
        host, port = stream.socket.getpeername()[:2]
    except OSError:
        return "?"
    return f"{host}:{port}"


async def serve(config: ServerConfig, *,
                task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
                web_started: Callable[[int], None] | None = None,
                page_started: Callable[[str], None] | None = None) -> None:
    """Run a Jackal server with ``config`` until cancelled.

    It restores unfinished matches from the records directory, listens, reports the bound
    port through ``task_status.started(port)`` (tests start it on port 0) and logs
    ``listening on HOST:PORT``. Once started and restored, the garbage collector is tuned
    and what is alive is frozen (:mod:`.gctune`) when ``config.tune_gc`` says so
    (``jackal serve`` does); it is put back when the server stops. A connection over
    ``max_connections``, or over its address group's share (:func:`.share_refusal`),
    gets ``error`` ``server_full`` and is closed.

    However it stops (cancelled by its caller, by ``jackal serve`` on Ctrl-C/SIGTERM, or
    by a crash of its own) it stops accepting, sends ``server_shutdown`` to every
    connection after what is already queued for it, waits for those to be written (at
    most :data:`SHUTDOWN_GRACE` seconds), then closes everything. For that, connections
    and tables run in their own nursery, shielded from the caller's cancellation, so they
    are still alive when the accepting part has been cancelled and the hub says goodbye;
    after that (or the grace) that nursery is cancelled too.

    With ``config.web_port`` set it also serves the web page and its WebSocket
    (:mod:`..web`), whose connections go through the same admission and sessions; the
    bound web port is passed to ``web_started`` and logged as ``web page on URL``, and the
    page's address for other machines (a LAN address when listening on every address) to
    ``page_started``. With ``config.announce`` the server is announced on the LAN
    (:mod:`.announce`) once listening, and withdrawn when it stops.
    """
    hub = Hub(config)

    async def handle(stream: trio.SocketStream) -> None:
        await admit(stream, _address(stream))

    async def admit(stream: trio.abc.Stream, address: str) -> None:
        number = hub.next_number()
        if hub.closing:
            await stream.aclose()
            return
        if len(hub.sessions) >= config.max_connections:
            log.warning("connection #%d %s refused: server full", number, address)
            await _refuse(stream, "the server is full; try later")
            return
        refusal = hub.addresses.admit(address_group(address), len(hub.sessions),
                                      config.max_connections)
        if refusal is not None:
            log.warning("connection #%d %s refused: its address group holds its share (%s)",
                        number, address, refusal)
            await _refuse(stream, _WHY[refusal].format(config.max_per_address))
            return
        session = Session(stream, number, address, config, hub, hub.flusher, hub.keepalive)
        hub.connected(session)
        log.info("connection #%d from %s", number, address)
        session.deliver(hub.welcome())
        await session.run()

    # Opened first, outside any nursery, so a busy port is a plain OSError for the caller.
    listeners = await trio.open_tcp_listeners(config.port, host=config.host)
    port = int(listeners[0].socket.getsockname()[1])
    web_listeners = ([] if config.web_port is None
                     else await trio.open_tcp_listeners(config.web_port, host=config.host))
    async with trio.open_nursery() as outer:
        # Connections and tables: cancelled only by us, once they have said goodbye.
        pool_scope = trio.CancelScope(shield=True)
        pool: trio.Nursery = await outer.start(_shielded_nursery, pool_scope)
        thresholds: tuple[int, int, int] | None = None
        try:
            hub.start(pool)
            if config.tune_gc:
                thresholds = gctune.settle()
                pool.start_soon(gctune.young_passes)
            # trio.serve_listeners closes the listeners when it is cancelled.
            await outer.start(partial(trio.serve_listeners, handle, listeners,
                                      handler_nursery=pool))
            log.info("listening on %s:%d", config.host, port)
            web_port: int | None = None
            if web_listeners:
                web_port = int(web_listeners[0].socket.getsockname()[1])
                await outer.start(partial(trio.serve_listeners, Gateway(admit).handle,
                                          web_listeners, handler_nursery=pool))
                urls = page_urls(config.host, web_port)
                log.info("web page on %s%s", " or ".join(urls),
                         _LOOPBACK_ONLY if _loopback(config.host) else "")
                if web_started is not None:
                    web_started(web_port)
                if page_started is not None:
                    page_started(urls[0])
            if config.announce:
                # Not awaited: the announcement takes a second or two and the server is
                # already serving; cancelled with the accepting tasks, it says goodbye.
                outer.start_soon(announce, Announcement(
                    config.host, port, web_port, config.announce_name or default_name(),
                    password=config.password is not None), lambda: len(hub.lobby.tables))
            task_status.started(port)
            await trio.sleep_forever()
        finally:
            # The caller cancelled us (or something failed): stop accepting, say goodbye.
            outer.cancel_scope.cancel()  # the accepting task, if we are here by an error
            with trio.CancelScope(shield=True):
                await hub.shutdown(SHUTDOWN_GRACE)
            pool_scope.cancel()
            if thresholds is not None:
                gctune.unsettle(thresholds)


#: Said after the page's address when the server listens on loopback only.
_LOOPBACK_ONLY = " (this machine only: --host 0.0.0.0 serves the LAN)"


def _loopback(host: str) -> bool:
    """``host`` is a loopback address or name (reachable from this machine only)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


#: What a refused connection is told, by :func:`.ratelimit.share_refusal`'s reason.
_WHY = {
    "full": "the server is full; try later",
    "reserved": "the server is nearly full and keeps its last connections for addresses "
                "that hold none yet; try later",
    "group": "too many connections from your address (at most {}); try later",
    "share": "the server is busy and your address holds its share of the connections "
             "now; try later",
}


async def _refuse(stream: trio.abc.Stream, why: str) -> None:
    """Tell a connection we will not serve it (``server_full``), and close it."""
    error = ProtocolError(ErrorCode.SERVER_FULL, why)
    with trio.move_on_after(1.0):
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await stream.send_all(encode(error.to_message()))
    await stream.aclose()


async def _shielded_nursery(scope: trio.CancelScope, *,
                            task_status: trio.TaskStatus[trio.Nursery]) -> None:
    """A nursery that only ``scope.cancel()`` ends (``scope`` is shielded)."""
    with scope:
        async with trio.open_nursery() as nursery:
            task_status.started(nursery)
            await trio.sleep_forever()
