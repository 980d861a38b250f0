"""The listening socket: accept connections and give each its session.

:func:`serve` runs a whole server until cancelled, and however it stops it says goodbye
to every connection before it closes them.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from functools import partial

import trio

from ...protocol.codec import encode
from ...protocol.errors import ErrorCode, ProtocolError
from ..config import ServerConfig
from ..hub import Hub
from ..web.gateway import Gateway, page_urls
from . import gctune
from .announce import Announcement, announce, default_name, loopback_host
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
    """Run a Jackal server with ``config`` until cancelled: restore unfinished matches
    from the records directory, listen, report the bound port through
    ``task_status.started(port)`` (tests start it on port 0) and log ``listening on
    HOST:PORT``; with ``config.tune_gc`` (``jackal serve``) the collector is tuned once
    started and put back when the server stops (:mod:`.gctune`).

    However it stops (cancelled, Ctrl-C/SIGTERM in ``jackal serve``, or a crash) it stops
    accepting, sends ``server_shutdown`` to every connection after what is queued for it,
    waits at most :data:`SHUTDOWN_GRACE` seconds for those to be written, then closes
    everything: connections and tables run in a nursery of their own, shielded from the
    caller's cancellation, which is cancelled only after the hub's goodbye.

    ``config.web_port``: the page and its WebSocket too (:mod:`..web`), through the same
    admission (``web_started`` gets the port, ``page_started`` the page's address for
    other machines); ``config.announce``: announced on the LAN (:mod:`.announce`).
    """
    hub = Hub(config)
    admit = partial(_admit, hub)
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
            await outer.start(partial(trio.serve_listeners, partial(_accepted, admit),
                                      listeners, handler_nursery=pool))
            log.info("listening on %s:%d", config.host, port)
            web_port = None
            if web_listeners:
                web_port, urls = await _serve_web(outer, pool, admit, web_listeners,
                                                  config.host)
                if web_started is not None:
                    web_started(web_port)
                if page_started is not None:
                    page_started(urls[0])
            if config.announce:
                _announce(outer, hub, port, web_port)
            task_status.started(port)
            await trio.sleep_forever()
        finally:
            outer.cancel_scope.cancel()  # stop accepting (still on if we failed), then goodbye
            with trio.CancelScope(shield=True):
                await hub.shutdown(SHUTDOWN_GRACE)
            pool_scope.cancel()
            if thresholds is not None:
                gctune.unsettle(thresholds)


#: Said after the page's address when the server listens on loopback only.
_LOOPBACK_ONLY = " (this machine only: --host 0.0.0.0 serves the LAN)"


def _announce(nursery: trio.Nursery, hub: Hub, port: int, web_port: int | None) -> None:
    """Announce the server on the LAN. Not awaited: the announcement takes a second or
    two and the server already serves; cancelled with the accepting tasks, it says
    goodbye."""
    config = hub.config
    nursery.start_soon(announce, Announcement(
        config.host, port, web_port, config.announce_name or default_name(),
        password=config.password is not None), lambda: len(hub.lobby.tables))


async def _accepted(admit: Callable[[trio.abc.Stream, str], Awaitable[None]],
                    stream: trio.SocketStream) -> None:
    await admit(stream, _address(stream))


async def _admit(hub: Hub, stream: trio.abc.Stream, address: str) -> None:
    """Take one connection (TCP, or a WebSocket the gateway hands over) as a Session, or
    refuse it: the server is closing, or over ``max_connections``, or its address group
    holds its share (:func:`.share_refusal`); a refused one gets ``server_full``."""
    config = hub.config
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


async def _serve_web(outer: trio.Nursery, pool: trio.Nursery,
                     admit: Callable[[trio.abc.Stream, str], Awaitable[None]],
                     listeners: list[trio.SocketListener], host: str
                     ) -> tuple[int, list[str]]:
    """Serve the page and its WebSocket on ``listeners`` (accepting in ``outer``, the
    connections in ``pool``); log the page's addresses; return the bound port and those
    addresses (the LAN's first)."""
    port = int(listeners[0].socket.getsockname()[1])
    await outer.start(partial(trio.serve_listeners, Gateway(admit).handle, listeners,
                              handler_nursery=pool))
    urls = page_urls(host, port)
    log.info("web page on %s%s", " or ".join(urls),
             _LOOPBACK_ONLY if loopback_host(host) else "")
    return port, urls


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
