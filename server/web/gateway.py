"""The web port: one HTTP request per connection, either a file of the page or ``/ws``.

h11 reads the request; a file of ``static/`` is answered with a strict Content-Security-
Policy; ``/ws`` from the page's own origin becomes a WebSocket (wsproto) that is handed,
as a stream of lines, to the same admission and session as a TCP connection.
"""

from __future__ import annotations

import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable
from importlib import resources

import h11
import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request
from wsproto.utilities import RemoteProtocolError as BadHandshake

from ..net.ratelimit import address_group
from .wsstream import WebSocketStream

__all__ = ["CSP", "Gateway", "page_urls"]

log = logging.getLogger("jackal.server")

#: Only the page's own files run, load and connect: no inline script or style, nothing
#: from elsewhere, no framing by another site, no form posted anywhere.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'none'")
_TYPES = {"html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
          "css": "text/css; charset=utf-8", "svg": "image/svg+xml"}
#: Seconds a connection has to send its request (a slow one holds a slot meanwhile).
REQUEST_SECONDS = 10.0
#: Requests being read at once, in all and per address group: a page loads in three.
MAX_PENDING = 256
MAX_PENDING_PER_GROUP = 16
_MAX_REQUEST = 16384

Admit = Callable[[trio.abc.Stream, str], Awaitable[None]]


def _load_static() -> dict[bytes, tuple[bytes, bytes]]:
    """Every file of the page by its path: (content type, bytes). Read once, at start."""
    files: dict[bytes, tuple[bytes, bytes]] = {}
    for entry in resources.files(__package__).joinpath("static").iterdir():
        kind = _TYPES.get(entry.name.rpartition(".")[2])
        if kind is not None and entry.is_file():
            files[b"/" + entry.name.encode()] = (kind.encode(), entry.read_bytes())
    files[b"/"] = files[b"/index.html"]
    return files


class Gateway:
    """Serves the web port's connections; ``admit`` takes each WebSocket from there."""

    def __init__(self, admit: Admit) -> None:
        self._admit = admit
        self._files = _load_static()
        self._pending: dict[str, int] = {}

    async def handle(self, sock: trio.SocketStream) -> None:
        address = _address(sock)
        group = address_group(address)
        held = self._pending.get(group, 0)
        if sum(self._pending.values()) >= MAX_PENDING or held >= MAX_PENDING_PER_GROUP:
            await sock.aclose()
            return
        self._pending[group] = held + 1
        try:
            websocket = await self._request(sock, address)
            if websocket is None:
                await _linger(sock)
        except Exception:
            # A bug in answering one request must not take the server down.
            log.exception("web %s: the request failed", address)
            websocket = None
        finally:
            left = self._pending[group] - 1
            if left:
                self._pending[group] = left
            else:
                del self._pending[group]
        if websocket is None:
            await sock.aclose()
        else:
            await self._admit(websocket, address)

    async def _request(self, sock: trio.SocketStream, address: str) -> WebSocketStream | None:
        """Read one request and answer it; the WebSocket if it became one."""
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=_MAX_REQUEST)
        raw = bytearray()
        try:
            with trio.move_on_after(REQUEST_SECONDS):
                event: object = h11.NEED_DATA
                while event is h11.NEED_DATA:
                    data = await sock.receive_some(_MAX_REQUEST)
                    raw += data
                    conn.receive_data(bytes(data))
                    event = conn.next_event()
                if isinstance(event, h11.Request):
                    return await self._answer(sock, conn, event, bytes(raw), address)
        except h11.RemoteProtocolError:
            await _send(sock, conn, 400, b"a malformed request\n")
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        return None

    async def _answer(self, sock: trio.SocketStream, conn: h11.Connection,
                      request: h11.Request, raw: bytes, address: str
                      ) -> WebSocketStream | None:
        path = request.target.partition(b"?")[0]
        headers = {name.lower(): value for name, value in request.headers}
        if path == b"/ws":
            if b"websocket" not in headers.get(b"upgrade", b"").lower():
                await _send(sock, conn, 426, b"/ws is a WebSocket\n")
                return None
            host, origin = headers.get(b"host"), headers.get(b"origin")
            if host is None or origin is None or origin.lower() != b"http://" + host.lower():
                log.warning("web %s: WebSocket from another origin (%r) refused",
                            address, origin)
                await _send(sock, conn, 403, b"only the page of this server may connect\n")
                return None
            return await _accept(sock, raw, address)
        if request.method not in (b"GET", b"HEAD"):
            await _send(sock, conn, 405, b"only GET\n")
            return None
        found = self._files.get(path)
        if found is None:
            await _send(sock, conn, 404, b"no such file\n")
            return None
        kind, body = found
        await _send(sock, conn, 200, body, kind, head=request.method == b"HEAD")
        return None


async def _accept(sock: trio.SocketStream, raw: bytes, address: str) -> WebSocketStream | None:
    """Finish the WebSocket handshake of the request in ``raw`` (wsproto reads it again)."""
    ws = WSConnection(ConnectionType.SERVER)
    try:
        ws.receive_data(raw)
        request = next((e for e in ws.events() if isinstance(e, Request)), None)
    except BadHandshake as exc:
        log.info("web %s: bad WebSocket handshake: %s", address, exc)
        request = None
    if request is None:
        conn = h11.Connection(h11.SERVER)
        conn.receive_data(raw)
        conn.next_event()
        await _send(sock, conn, 400, b"a malformed WebSocket handshake\n")
        return None
    await sock.send_all(ws.send(AcceptConnection()))
    return WebSocketStream(sock, ws)


async def _send(sock: trio.SocketStream, conn: h11.Connection, status: int, body: bytes,
                kind: bytes = b"text/plain; charset=utf-8", *, head: bool = False) -> None:
    """One whole response, then the connection is done (one request per connection)."""
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode()),
               (b"content-security-policy", CSP.encode()),
               (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
               (b"cache-control", b"no-cache"), (b"connection", b"close")]
    try:
        data = conn.send(h11.Response(status_code=status, headers=headers)) or b""
        if not head:
            data += conn.send(h11.Data(data=body)) or b""
        data += conn.send(h11.EndOfMessage()) or b""
    except h11.LocalProtocolError:
        return  # h11 cannot answer in this state: just close
    try:
        with trio.move_on_after(REQUEST_SECONDS):
            await sock.send_all(data)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def _linger(sock: trio.SocketStream) -> None:
    """Close our side, then read (and drop) what the client still sends, a little while:
    closing a socket with unread bytes resets it, and a reset can destroy the answer before
    the client has read it (a request refused for being too big is one such)."""
    with trio.move_on_after(1.0), contextlib.suppress(trio.BrokenResourceError,
                                                      trio.ClosedResourceError, OSError):
        await sock.send_eof()
        for _ in range(8):
            if not await sock.receive_some(_MAX_REQUEST):
                break


def _address(sock: trio.SocketStream) -> str:
    try:
        host, port = sock.socket.getpeername()[:2]
    except OSError:
        return "?"
    return f"{host}:{port}"


def page_urls(host: str, port: int) -> list[str]:
    """Where to open the page: the address listened on, or, when that is every address
    (``0.0.0.0``, ``::``), this machine's address on the LAN (found by asking the routing
    table which source address it would use; nothing is sent)."""
    if host not in ("", "0.0.0.0", "::"):
        shown = f"[{host}]" if ":" in host else host
        return [f"http://{shown}:{port}/"]
    urls = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routed like the LAN, never used
            urls.append(f"http://{probe.getsockname()[0]}:{port}/")
        except OSError:
            pass
    urls.append(f"http://{socket.gethostname()}:{port}/")
    return urls
