"""Line-protocol clients for the tests: :class:`RawClient` (trio) speaks the wire protocol
with a plain JSON codec and a TCP stream, so the tests see exactly the bytes a netcat
user or a third-party bot would; :class:`LineClient` is its blocking twin for tests that
drive a server process from plain (non-trio) code. Plus the steps most tests take:
greet, open a table, sit, deal."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterable
from typing import Any, Self

import msgspec
import trio
import trio.testing
from benchkit.bot_timing import LineClient as LineClient  # re-exported for the tests

Msg = dict[str, Any]
SEATS = ("N", "E", "S", "W")


class RawClient:
    """One TCP connection speaking JSON lines; keeps every message it received."""

    def __init__(self, stream: trio.SocketStream, name: str = "") -> None:
        self.stream = stream
        self.name = name
        self._buf = b""
        self.log: list[Msg] = []
        #: The same, as the raw lines that came (for checks over the bytes).
        self.lines: list[bytes] = []
        self._next_id = 0
        self.closed = False
        self.seat: str | None = None
        self.token: str | None = None
        self.hand: list[str] = []
        #: Whose turn the last turn/table_state message said it was.
        self.turn: str | None = None
        #: Answer the server's keepalive pings, as every real client must.
        self.auto_pong = True

    @classmethod
    async def connect(cls, port: int, name: str = "", local: str | None = None, *,
                      rcvbuf: int | None = None) -> Self:
        """A new connection to 127.0.0.1 whose welcome is read; ``local`` (e.g.
        ``"127.0.0.2"``) makes it come from another address of the loopback network, as
        another machine would; ``rcvbuf`` shrinks its receive buffer (a slow reader)."""
        if rcvbuf is None:
            stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=local)
        else:
            sock = trio.socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)  # before connect
            if local is not None:
                await sock.bind((local, 0))
            await sock.connect(("127.0.0.1", port))
            stream = trio.SocketStream(sock)
        client = cls(stream, name)
        await client.expect("welcome")
        return client

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def send(self, **msg: Any) -> None:
        await self.stream.send_all(json.dumps(msg).encode() + b"\n")

    async def recv(self, timeout: float = 10.0) -> Msg:
        """The next message (fails the test after ``timeout``)."""
        with trio.fail_after(timeout):
            while b"\n" not in self._buf:
                data = await self.stream.receive_some(65536)
                if not data:
                    self.closed = True
                    raise EOFError(f"{self.name}: connection closed")
                self._buf += data
            line, _, self._buf = self._buf.partition(b"\n")
        self.lines.append(line)
        msg: Msg = msgspec.json.decode(line)  # json.loads, faster: the leak audit reads a lot
        self.log.append(msg)
        if msg["type"] == "ping" and self.auto_pong:
            await self.send(type="pong")
        elif msg["type"] in ("turn", "table_state"):
            self.turn = msg["turn" if msg["type"] == "table_state" else "seat"]
        elif msg["type"] == "played":
            self.turn = None
        return msg

    async def recv_until(self, predicate: Callable[[Msg], bool], timeout: float = 10.0
                         ) -> list[Msg]:
        """Messages up to and including the first that matches (all of them)."""
        got: list[Msg] = []
        with trio.fail_after(timeout):
            while True:
                msg = await self.recv(timeout)
                got.append(msg)
                if predicate(msg):
                    return got

    async def expect(self, kind: str, timeout: float = 10.0) -> Msg:
        """The next message, which must be of type ``kind``."""
        msg = await self.recv(timeout)
        assert msg["type"] == kind, msg
        return msg

    async def wait_type(self, kind: str, timeout: float = 10.0) -> Msg:
        return (await self.recv_until(lambda m: m["type"] == kind, timeout))[-1]

    async def request(self, timeout: float = 10.0, **msg: Any) -> Msg:
        """Send ``msg`` with a fresh id; return the reply carrying that id."""
        self._next_id += 1
        rid = f"{self.name}-{self._next_id}"
        await self.send(id=rid, **msg)
        return (await self.recv_until(lambda m: m.get("id") == rid, timeout))[-1]

    async def hello(self, name: str | None = None, **extra: Any) -> Msg:
        reply = await self.request(type="hello", name=name or self.name or "x", **extra)
        assert reply["type"] == "hello_ok", reply
        return reply

    async def join(self, table: str, seat: str | None = None) -> Msg:
        fields: dict[str, Any] = {"table": table}
        if seat is not None:
            fields["seat"] = seat
        reply = await self.request(type="join", **fields)
        assert reply["type"] == "joined", reply
        self.seat, self.token = reply["seat"], reply["token"]
        state = await self.wait_type("table_state")
        assert state["you"] == self.seat, state
        return reply

    async def eof(self, timeout: float = 10.0) -> list[Msg]:
        """Read until the server closes (or resets); return what came before."""
        got: list[Msg] = []
        try:
            while True:
                got.append(await self.recv(timeout))
        except (EOFError, trio.BrokenResourceError):
            return got

    async def aclose(self) -> None:
        await self.stream.aclose()


async def new_table(client: RawClient, **options: Any) -> str:
    reply = await client.request(type="create_table", **options)
    assert reply["type"] == "table_created", reply
    return str(reply["table"])


async def greeted(port: int, name: str, local: str | None = None) -> RawClient:
    """A new connection that has said hello as ``name`` (from address ``local``)."""
    client = await RawClient.connect(port, name, local)
    await client.hello()
    return client


async def open_table(port: int, **options: Any) -> tuple[RawClient, str]:
    """A "lobby" connection and the table it created with ``options``."""
    lobby = await greeted(port, "lobby")
    return lobby, await new_table(lobby, **options)


async def sit(port: int, table: str, seat: str, name: str | None = None) -> RawClient:
    """A new connection (named ``p<seat>`` by default) seated at ``seat`` of ``table``."""
    client = await greeted(port, name or f"p{seat}")
    await client.join(table, seat)
    return client


async def seat_four(port: int, table: str) -> list[RawClient]:
    """Four new connections at N, E, S, W (in that order), not yet ready."""
    return [await sit(port, table, seat) for seat in SEATS]


async def ready_all(clients: Iterable[RawClient]) -> None:
    for client in clients:
        await client.request(type="ready")


async def start_deal(clients: list[RawClient]) -> None:
    """Everyone says ready; each client's ``hand`` is then its hand of the first deal."""
    await ready_all(clients)
    for client in clients:
        client.hand = (await client.wait_type("deal_started"))["hand"]


async def alone_with_bots(port: int, seat: str, name: str, **options: Any
                          ) -> tuple[RawClient, RawClient, str]:
    """A new table where one human (``name``, at ``seat``) plays three server bots that
    the lobby connection adds; the human is ready and holds its first hand.

    Returns ``(lobby, human, table)``.
    """
    lobby, table = await open_table(port, **options)
    human = await sit(port, table, seat, name)
    for other in SEATS:
        if other != seat:
            await lobby.request(type="add_bot", table=table, seat=other)
    await start_deal([human])
    return lobby, human, table


async def play_out(client: RawClient, until: Callable[[Msg], bool],
                   choose: Callable[[list[str]], str] = lambda hand: hand[0],
                   ready_between: bool = True, timeout: float = 60.0) -> None:
    """Play for ``client``'s seat (tracking its hand) until a message matches ``until``."""
    with trio.fail_after(timeout):
        if client.turn is not None and client.turn == client.seat:
            # Our turn was announced in a message someone else already read.
            await client.send(type="play", card=choose(client.hand))
        while True:
            msg = await client.recv(timeout)
            kind = msg["type"]
            if kind == "deal_started" or (kind == "table_state" and msg.get("hand") is not None):
                client.hand = list(msg["hand"])
            elif kind == "turn" and msg["seat"] == client.seat:
                await client.send(type="play", card=choose(client.hand))
            elif kind == "played" and msg["seat"] == client.seat:
                client.hand.remove(msg["card"])
            elif kind == "deal_ended" and ready_between:
                await client.send(type="ready")
            if until(msg):
                return


def create_table(port: int, bots: dict[str, str], **options: Any) -> str:
    """A table on the server at ``port`` with server-side ``bots`` ({seat: strategy});
    returns its id."""
    client = LineClient(port)
    try:
        table: str = client.request({"type": "create_table", **options})["table"]
        for seat, strategy in bots.items():
            client.request({"type": "add_bot", "table": table, "seat": seat,
                            "strategy": strategy})
        return table
    finally:
        client.close()


async def connect_from(port: int, source: str, *, rcvbuf: int | None = None) -> RawClient:
    """A raw client whose connection comes from ``source`` (any 127/8 address reaches the
    loopback, so the server sees different client addresses)."""
    sock = trio.socket.socket()
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    await sock.bind((source, 0))
    await sock.connect(("127.0.0.1", port))
    return RawClient(trio.SocketStream(sock), source)
