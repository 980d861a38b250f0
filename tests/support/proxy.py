"""A TCP proxy for tests that can cut the network between a client and the server.

``CuttableProxy(port)`` listens on 127.0.0.1 (port 0: a free one) and forwards every
connection to ``127.0.0.1:port``. :meth:`CuttableProxy.cut` plays a Wi-Fi blip: every
link through it is reset at once and, until :meth:`CuttableProxy.restore`, new
connections are accepted and dropped straight away (so a client's reconnect attempts
fail, as they would with the network down). ``cut(silent=True)`` plays the nastier
kind of blip: nothing is closed, bytes simply stop flowing in both directions (a
half-open link that only a keepalive notices); ``restore`` then drops those links.
:meth:`CuttableProxy.blip` resets every link but lets new connections through at once,
and ``cut_after = b"..."`` cuts every link just after the first client-to-server chunk
containing those bytes has reached the server, before any reply can come back (a
request whose answer is lost). ``target`` may be changed to send new connections to
another port (a server restarted elsewhere). ``rewrite = (real, forged)`` plays a hostile
server: every ``real`` the server sends reaches the client as ``forged``, and every
``forged`` the client sends reaches the server as ``real`` (whole lines are rewritten).

Run it in a nursery: ``proxy = CuttableProxy(port); await nursery.start(proxy.run)``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import trio

__all__ = ["CuttableProxy", "ProxyThread"]


class CuttableProxy:
    """See the module docstring."""

    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self.down = False
        #: How many connections came in, and how many times the links were cut.
        self.accepted = 0
        self.cuts = 0
        #: See the module docstring: bytes after whose delivery to the server every link
        #: is cut (once; it is reset to None then).
        self.cut_after: bytes | None = None
        #: See the module docstring: (what the server says, what the client hears).
        self.rewrite: tuple[bytes, bytes] | None = None
        self._links: set[trio.CancelScope] = set()
        self._flowing = trio.Event()
        self._flowing.set()

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self._handle, listeners)

    def cut(self, *, silent: bool = False) -> None:
        """Break the network: reset every link (or, ``silent``, freeze them)."""
        self.down = True
        self.cuts += 1
        if silent:
            self._flowing = trio.Event()
        else:
            self._reset_links()

    def blip(self) -> None:
        """Reset every link; new connections go through straight away."""
        self.cut()
        self.restore()

    def restore(self) -> None:
        """The network is back: new connections go through again."""
        if not self._flowing.is_set():
            # Frozen links stay dead, as after a real half-open spell.
            self._reset_links()
            self._flowing.set()
        self.down = False

    def _reset_links(self) -> None:
        for scope in list(self._links):
            scope.cancel()

    async def _handle(self, client: trio.SocketStream) -> None:
        self.accepted += 1
        try:
            if self.down:
                raise OSError("the network is down")
            server = await trio.open_tcp_stream(*self.target)
        except BaseException as exc:  # unreachable, or cancelled while connecting
            with trio.CancelScope(shield=True):
                await _reset(client)
            if isinstance(exc, OSError):
                return
            raise
        try:
            with trio.CancelScope() as scope:
                self._links.add(scope)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._pump, client, server, nursery.cancel_scope, True)
                    nursery.start_soon(self._pump, server, client, nursery.cancel_scope, False)
        finally:
            self._links.discard(scope)
            with trio.CancelScope(shield=True):
                await _reset(client)
                await _reset(server)

    async def _pump(self, source: trio.SocketStream, sink: trio.SocketStream,
                    both: trio.CancelScope, upstream: bool) -> None:
        pending = b""
        try:
            while True:
                data = await source.receive_some(65536)
                await self._flowing.wait()  # a silent cut holds the bytes back
                if not data:
                    break
                if self.rewrite is not None:
                    real, forged = self.rewrite if not upstream else self.rewrite[::-1]
                    lines, newline, pending = (pending + data).rpartition(b"\n")
                    if not newline:  # no whole line yet: all of it is in pending
                        continue
                    data = (lines + b"\n").replace(real, forged)
                await sink.send_all(data)
                if upstream and self.cut_after is not None and self.cut_after in data:
                    # At once: a reply needs several more scheduling rounds (the server
                    # reads, answers, and the other pump reads) before it could be relayed.
                    self.cut_after = None
                    self.blip()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        both.cancel()  # one side gone: close the other too, as a router would


async def _reset(stream: trio.SocketStream) -> None:
    """Close with a reset (SO_LINGER 0), as a link that died would look to the peer."""
    import socket
    import struct

    with contextlib.suppress(OSError):
        stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(Exception):
        await trio.aclose_forcefully(stream)


class ProxyThread:
    """A :class:`CuttableProxy` in a thread of its own (with its own trio run), for tests
    that block while they poll a terminal: ``with ProxyThread(port) as proxy: ...``."""

    def __init__(self, target_port: int, *, rewrite: tuple[bytes, bytes] | None = None
                 ) -> None:
        import threading

        self.proxy = CuttableProxy(target_port)
        self.proxy.rewrite = rewrite
        self._token: trio.lowlevel.TrioToken | None = None
        self._stop: trio.Event | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        self._stop = trio.Event()
        async with trio.open_nursery() as nursery:
            await nursery.start(self.proxy.run)
            self._started.set()
            await self._stop.wait()
            nursery.cancel_scope.cancel()

    @property
    def port(self) -> int:
        return self.proxy.port

    def _call(self, fn: Callable[[], None]) -> None:
        trio.from_thread.run_sync(fn, trio_token=self._token)

    def cut(self, *, silent: bool = False) -> None:
        self._call(lambda: self.proxy.cut(silent=silent))

    def restore(self) -> None:
        self._call(self.proxy.restore)

    def __enter__(self) -> ProxyThread:
        self._thread.start()
        if not self._started.wait(30):
            raise RuntimeError("the proxy did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._stop is not None:
            stop = self._stop
            self._call(stop.set)
        self._thread.join(30)
