"""Who holds a tournament seat: a ``cmd:`` program connects to a loopback port the
director owns (:class:`SeatRelay`), which pipes the bytes both ways to the real server
and notes each ``joined`` reply on the way back (:class:`JoinLog`), unaltered; the
director's :class:`SeatGuard` matches the table's ``player_joined`` against these logs,
so it knows which connections are its programs', whatever name they give.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Mapping

import msgspec
import trio

from ..game.errors import ErrorCode
from ..game.seats import SEATS, Seat

log = logging.getLogger("jackal.tournament")

__all__ = ["CLAIM_SECONDS", "JoinLog", "SeatGuard", "SeatRelay", "SeatTaken", "taken_how"]

#: How long a seat's ``joined`` may take to reach the director through the seat's own
#: connection after the table says the seat is taken (milliseconds, unless the machine
#: is very busy); past it, someone else holds the seat.
CLAIM_SECONDS = 10.0

#: Read size of each direction; the server's lines are far shorter.
_CHUNK = 65536
#: A partial line longer than this is not scanned further (the server never sends one).
_MAX_LINE = 1 << 20
#: The refusal a scanned line may carry, as it stands in the line's bytes.
_SEAT_TAKEN = f'"{ErrorCode.SEAT_TAKEN}"'.encode()


class _Seen(msgspec.Struct):
    """The fields of a server line the relay cares about (the rest is ignored)."""

    type: str = ""
    seat: str | None = None
    code: ErrorCode | None = None


_decode = msgspec.json.Decoder(_Seen).decode


class JoinLog:
    """The seats that the director's own connections for one seat were told they sit at
    (``joined``), in order, and whether such a join was refused as ``seat_taken``."""

    def __init__(self) -> None:
        self.seats: list[Seat] = []
        self.refused = False
        #: How many connections that came this way and were told ``joined`` are open.
        self.holders = 0
        #: Set when a join is refused as ``seat_taken`` while such a connection is open:
        #: two connections that came this way wanted the seat, only one is the program.
        #: (A program that lost its connection and joins again is refused too, but then
        #: nobody holds it through here.)
        self.contested = trio.Event()
        self._changed = trio.Event()

    def joined(self, seat: Seat) -> None:
        self.seats.append(seat)
        self._wake()

    def refuse(self) -> None:
        self.refused = True
        if self.holders:
            self.contested.set()
        self._wake()

    def count(self, seat: Seat) -> int:
        return self.seats.count(seat)

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def wait_for(self, seat: Seat, times: int, grace: float) -> bool:
        """Whether ``seat`` was joined ``times`` times here, waiting up to ``grace``
        seconds (the reply may still be on its way) unless a join was refused."""
        with trio.move_on_after(grace):
            while self.count(seat) < times and not self.refused:
                await self._changed.wait()
        return self.count(seat) >= times


async def taken_how(seat: Seat, times: int, logs: Mapping[Seat, JoinLog],
                    names: Mapping[Seat, str], grace: float = CLAIM_SECONDS) -> str | None:
    """The table said ``seat`` was taken for the ``times``-th time: None if our own
    connection for it was told ``joined`` that often (after the first, this waits on,
    for a second connection through the same relay to be refused the seat), else how it
    was taken, for the fault."""
    joins = logs[seat]
    if await joins.wait_for(seat, times, grace):
        if times > 1:
            return None
        await joins.contested.wait()
        return ("through its own relay by another connection than its program's (whose "
                "join was refused: seat taken)")
    through = [f"{other.value} ({names[other]})" for other, log in logs.items()
               if other is not seat and log.count(seat)]
    return ("through the connection of seat " + ", ".join(through) if through
            else "by a connection the tournament did not make for it")


class SeatTaken(Exception):
    """A program's seat is held by someone else than its program: the table fails."""


class SeatGuard:
    """The director's check of one table's program seats (``names``: their entries):
    each ``player_joined`` of a person must be matched by a ``joined`` in that seat's
    :class:`JoinLog` (:func:`taken_how`); a bot only where the director asked for one."""

    def __init__(self, table: str, names: Mapping[Seat, str]) -> None:
        self.table, self.names = table, dict(names)
        self.logs = {seat: JoinLog() for seat in SEATS}
        self.bots_asked: set[Seat] = set()
        self._claims = dict.fromkeys(SEATS, 0)
        self._nursery: trio.Nursery | None = None
        self._scope = trio.CancelScope()

    async def run(self, *, task_status: trio.TaskStatus[None]) -> None:
        """Where the checks wait, until :meth:`stop`."""
        with self._scope:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                task_status.started()
                await trio.sleep_forever()

    def stop(self) -> None:
        self._scope.cancel()

    def claimed(self, seat: Seat, kind: str) -> None:
        """The table says someone (a ``human`` or a ``bot``) took ``seat``."""
        if seat not in self.names:
            return  # a built-in entry's seat: the director filled it before anyone could
        if kind == "bot":
            if seat not in self.bots_asked:
                self._stolen(seat, "by a bot the tournament did not ask for")
            return
        self._claims[seat] += 1
        assert self._nursery is not None, "run() first"
        self._nursery.start_soon(self._check, seat, self._claims[seat])

    async def _check(self, seat: Seat, times: int) -> None:
        names = {each: self.names.get(each, "built-in") for each in SEATS}
        how = await taken_how(seat, times, self.logs, names)
        if how is not None:
            self._stolen(seat, how)

    def _stolen(self, seat: Seat, how: str) -> None:
        name = self.names[seat]
        log.warning("table %s seat %s (%s): taken %s", self.table, seat, name, how)
        raise SeatTaken(f"seat {seat.value} ({name}) was taken {how}; its invitation code "
                        "reached someone else, so the table is not scored")


class SeatRelay:
    """A loopback listener for one seat's program: each connection it accepts is piped
    to ``host``:``port``; :meth:`close` ends them all (once the table is over)."""

    def __init__(self, host: str, port: int, log: JoinLog) -> None:
        self.host, self.server_port, self.log = host, port, log
        self.port = 0
        self._scope = trio.CancelScope()

    async def serve(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                    ) -> None:
        """Listen on 127.0.0.1 (:attr:`port` once started) until :meth:`close`."""
        with self._scope:
            listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
            self.port = listeners[0].socket.getsockname()[1]
            task_status.started()
            await trio.serve_listeners(self._pipe, listeners)

    def close(self) -> None:
        self._scope.cancel()

    async def _pipe(self, client: trio.SocketStream) -> None:
        async with client:
            try:
                server = await trio.open_tcp_stream(self.host, self.server_port)
            except OSError:
                return  # the program sees its connection closed, as the server's refusal
            # Either side's end ends both at once, as a direct connection's would: the
            # server must see a killed program gone now, not half-open.
            held = [False]  # whether this connection was told joined
            try:
                async with server, trio.open_nursery() as nursery:
                    nursery.start_soon(_then_cancel, _upstream(client, server), nursery)
                    await self._downstream(server, client, held)
                    nursery.cancel_scope.cancel()
            finally:
                self.log.holders -= held[0]

    async def _downstream(self, server: trio.SocketStream, client: trio.SocketStream,
                          held: list[bool]) -> None:
        """Server to program: each chunk is scanned before it is passed on, so whatever
        the program does after reading a ``joined`` comes after the log has it."""
        partial = b""
        try:
            while chunk := await server.receive_some(_CHUNK):
                data = partial + chunk if partial else chunk
                if b'"joined"' in data or _SEAT_TAKEN in data:
                    self._scan(data, held)
                end = data.rfind(b"\n")
                partial = data[end + 1:]
                if len(partial) > _MAX_LINE:
                    partial = b""
                await client.send_all(chunk)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    def _scan(self, data: bytes, held: list[bool]) -> None:
        lines = data.split(b"\n")
        for line in lines[:-1]:  # the last is partial (or empty): scanned when complete
            if b'"joined"' not in line and _SEAT_TAKEN not in line:
                continue
            try:
                seen = _decode(line)
                seat = Seat(seen.seat or "") if seen.type == "joined" else None
            except (msgspec.DecodeError, ValueError):
                continue  # not a line of the protocol: the server's, not ours to judge
            if seat is not None:
                self.log.holders += not held[0]
                held[0] = True
                self.log.joined(seat)
            elif seen.type == "error" and seen.code is ErrorCode.SEAT_TAKEN:
                self.log.refuse()


async def _upstream(client: trio.SocketStream, server: trio.SocketStream) -> None:
    """Program to server, as it is."""
    try:
        while chunk := await client.receive_some(_CHUNK):
            await server.send_all(chunk)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def _then_cancel(work: Awaitable[None], nursery: trio.Nursery) -> None:
    await work
    nursery.cancel_scope.cancel()

