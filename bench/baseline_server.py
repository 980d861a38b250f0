"""The bare trio line-broadcast server that ``server_load.py`` measures Jackal against.

It does the least a four-player table server must do on the network, and nothing else:
connections come in groups of four, and every line one member sends is relayed to all
four members. No JSON, no game, no hidden information, no records. It moves bytes the
way the Jackal server does, with the very same code (``jackal.server.net.transport``): one
task per connection reading its socket directly, and each connection's outgoing bytes
bounded and written by the server's one flusher. So the ratio of the two throughputs is the price of
everything Jackal adds on top of moving lines around, not of a different transport.

With ``--stock`` it moves bytes the stock trio way instead, as the relay issue 16 was
measured against did: a writer task per connection draining a memory channel with
``SocketStream.send_all``, and reads through ``SocketStream.receive_some``. Comparing
with both tells what Jackal's own transport saves and what everything else costs.

Wire (plain text, one line each):
- a client's first line is ``join GROUP`` (any token); when the group's fourth member
  joins, the server sends ``start`` to all four;
- every later line from a member goes, unchanged, to all four members (the sender too).

Run: ``python bench/baseline_server.py --port 0``; it prints
``listening on 127.0.0.1:PORT`` once bound, and stops cleanly on Ctrl-C / SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from collections.abc import Awaitable, Callable
from functools import partial

import trio
from jackal.server.net.transport import Flusher, SendQueue, read_some

GROUP_SIZE = 4
MAX_LINE = 65536
SEND_BUFFER = 256 * 1024
#: Lines a stock member may have queued (the stock way bounds lines, not bytes).
STOCK_QUEUE = 256


class Member:
    """One connection: its stream and its outgoing bytes (bounded, written by the flusher)."""

    stock = False

    def __init__(self, stream: trio.SocketStream, flusher: Flusher) -> None:
        self.stream = stream
        self.gone = False
        self.out = SendQueue(stream, SEND_BUFFER, flusher, self)

    def lost(self) -> None:
        """A write failed: the peer is gone."""
        self.gone = True

    def push(self, data: bytes) -> bool:
        """Queue ``data`` without waiting; False when this member stopped reading."""
        return not self.gone and self.out.push(data)


class StockMember:
    """One connection, stock trio: a bounded memory channel and a writer task."""

    stock = True

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.send_q, self.recv_q = trio.open_memory_channel[bytes](STOCK_QUEUE)

    def push(self, data: bytes) -> bool:
        """Queue ``data`` without waiting; False when this member stopped reading."""
        try:
            self.send_q.send_nowait(data)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        return True

    async def writer(self) -> None:
        """Drain the channel into the socket, joining whatever is already waiting."""
        async with self.recv_q:
            async for data in self.recv_q:
                chunks = [data]
                while True:
                    try:
                        chunks.append(self.recv_q.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                await self.stream.send_all(b"".join(chunks))


#: A member of either kind: both queue with ``push`` and never wait.
Relaying = Member | StockMember


class Groups:
    """Groups of four members, by the name in their ``join`` line."""

    def __init__(self) -> None:
        self.groups: dict[bytes, list[Relaying]] = {}

    def join(self, name: bytes, member: Relaying) -> list[Relaying]:
        group = self.groups.setdefault(name, [])
        group.append(member)
        if len(group) == GROUP_SIZE:
            for other in group:
                other.push(b"start\n")
        return group

    def leave(self, name: bytes, member: Relaying) -> None:
        group = self.groups.get(name)
        if group is not None and member in group:
            group.remove(member)
            if not group:
                del self.groups[name]


async def relay(member: Relaying, groups: Groups,
                read: Callable[[], Awaitable[bytes]]) -> None:
    """Read lines with ``read`` until the connection ends, relaying each to the group."""
    group: list[Relaying] | None = None
    name = b""
    buffer = b""
    try:
        while True:
            data = await read()
            if not data:
                break
            buffer += data
            if len(buffer) > MAX_LINE and b"\n" not in buffer:
                break
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if group is None:
                    name = line.partition(b" ")[2].strip()
                    group = groups.join(name, member)
                    continue
                out = line + b"\n"
                for other in group:
                    other.push(out)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        if group is not None:
            groups.leave(name, member)


async def handle(stream: trio.SocketStream, groups: Groups, flusher: Flusher) -> None:
    """Serve one connection until it closes, on Jackal's transport."""
    member = Member(stream, flusher)
    try:
        await relay(member, groups, partial(read_some, stream, 65536))
    finally:
        member.out.detach()
        await stream.aclose()


async def handle_stock(stream: trio.SocketStream, groups: Groups) -> None:
    """Serve one connection until it closes, the stock trio way."""
    member = StockMember(stream)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(member.writer)
            await relay(member, groups, partial(stream.receive_some, 65536))
            nursery.cancel_scope.cancel()
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        member.send_q.close()
        await stream.aclose()


async def serve(host: str, port: int, *, stock: bool = False,
                task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """Listen on ``host:port``; report the bound port through ``task_status``."""
    groups = Groups()
    flusher = Flusher()
    listeners = await trio.open_tcp_listeners(port, host=host, backlog=4096)
    bound = listeners[0].socket.getsockname()[1]

    async def handler(stream: trio.SocketStream) -> None:
        if stock:
            await handle_stock(stream, groups)
        else:
            await handle(stream, groups, flusher)

    async with trio.open_nursery() as nursery:
        if not stock:
            nursery.start_soon(flusher.run)
        task_status.started(bound)
        await trio.serve_listeners(handler, listeners)


async def _main(host: str, port: int, stock: bool) -> None:
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            bound = await nursery.start(partial(serve, host, port, stock=stock))
            print(f"listening on {host}:{bound}", flush=True)
            async for _ in signals:
                nursery.cancel_scope.cancel()
                break


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7879)
    parser.add_argument("--stock", action="store_true",
                        help="move bytes the stock trio way (a writer task per connection)")
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        trio.run(_main, args.host, args.port, args.stock)
    return 0


if __name__ == "__main__":
    sys.exit(main())
