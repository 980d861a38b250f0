"""A WebSocket client for tests (wsproto on trio), written apart from the server's side:
:class:`WsLines` turns its text frames into lines, so :class:`~support.client.RawClient`
speaks the protocol over ``/ws`` exactly as over TCP, and raw frames can be sent too."""

from __future__ import annotations

import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Event,
    Ping,
    RejectConnection,
    RejectData,
    Request,
    TextMessage,
)

from support.client import RawClient


class Refused(Exception):
    """The server answered the handshake with an HTTP status instead of 101."""

    def __init__(self, status: int) -> None:
        super().__init__(f"handshake refused: HTTP {status}")
        self.status = status


class WsLines(trio.abc.Stream):
    """An open client WebSocket as a stream of lines: each text frame received is a line,
    each line sent is a text frame. ``close_code`` is the server's close frame's code."""

    def __init__(self, sock: trio.SocketStream, ws: WSConnection) -> None:
        self.sock = sock
        self.ws = ws
        self.close_code: int | None = None
        self._buf = bytearray()

    @classmethod
    async def open(cls, port: int, origin: str | None = "same", host: str = "127.0.0.1",
                   local: str | None = None) -> WsLines:
        """``local`` (e.g. ``"127.0.0.2"``): come from that address of the loopback."""
        sock = await trio.open_tcp_stream(host, port, local_address=local)
        ws = WSConnection(ConnectionType.CLIENT)
        headers = [] if origin is None else [
            (b"origin", (f"http://{host}:{port}" if origin == "same" else origin).encode())]
        await sock.send_all(ws.send(Request(host=f"{host}:{port}", target="/ws",
                                            extra_headers=headers)))
        while True:
            data = await sock.receive_some(65536)
            ws.receive_data(data or None)
            for event in ws.events():
                if isinstance(event, AcceptConnection):
                    return cls(sock, ws)
                if isinstance(event, RejectConnection | RejectData):
                    await sock.aclose()
                    raise Refused(getattr(event, "status_code", 0))

    async def send_event(self, event: Event) -> None:
        await self.sock.send_all(self.ws.send(event))

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        for line in bytes(data).splitlines():
            await self.send_event(TextMessage(data=line.decode()))

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        # Events first: the server's first frames may have come with its handshake answer.
        while not await self._take_events():
            if self.close_code is not None:
                return b""
            data = await self.sock.receive_some(65536)
            self.ws.receive_data(data or None)
        size = max_bytes or len(self._buf)
        chunk = bytes(self._buf[:size])
        del self._buf[:size]
        return chunk

    async def _take_events(self) -> bool:
        """Turn the frames received so far into lines; True if there are lines to read."""
        if not self._buf:
            for event in self.ws.events():
                if isinstance(event, TextMessage):
                    assert event.message_finished  # the server sends small whole frames
                    self._buf += event.data.encode() + b"\n"
                elif isinstance(event, BytesMessage):
                    raise AssertionError("the server sent a binary frame")
                elif isinstance(event, Ping):
                    await self.send_event(event.response())
                elif isinstance(event, CloseConnection):
                    self.close_code = event.code
        return bool(self._buf)

    async def wait_send_all_might_not_block(self) -> None:
        await self.sock.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        await self.sock.aclose()


async def ws_client(port: int, name: str = "", origin: str | None = "same") -> RawClient:
    """A :class:`RawClient` over a new WebSocket to ``port``, its welcome read."""
    client = RawClient(await WsLines.open(port, origin), name)  # type: ignore[arg-type]
    await client.expect("welcome")
    return client
