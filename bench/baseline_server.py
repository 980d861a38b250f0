"""The bare trio line-broadcast server that ``server_load.py`` measures Jackal against.

It does the least a four-player table server must do on the network, and nothing else:
connections come in groups of four, and every line one member sends is relayed to all
four members. No JSON, no game, no hidden information, no records. It moves bytes the
way the Jackal server does, with the very same code (``jackal.server.transport``): one
task per connection reading its socket directly, and each connection's outgoing bytes
bounded and written by the server's one flusher. So the ratio of the two throughputs is the price of
everything Jackal adds on top of moving lines around, not of a different transport.

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

import trio
from jackal.server.transport import Flusher, Outgoing, read_some

GROUP_SIZE = 4
MAX_LINE = 65536
SEND_BUFFER = 256 * 1024


class Member:
    """One connection: its stream and its outgoing bytes (bounded, written by the flusher)."""

    def __init__(self, stream: trio.SocketStream, flusher: Flusher) -> None:
        self.stream = stream
        self.gone = False
        self.out = Outgoing(stream, SEND_BUFFER, flusher, self)

    def lost(self) -> None:
        """A write failed: the peer is gone."""
        self.gone = True

    def push(self, data: bytes) -> bool:
        """Queue ``data`` without waiting; False when this member stopped reading."""
        return not self.gone and self.out.push(data)


class Groups:
    """Groups of four members, by the name in their ``join`` line."""

    def __init__(self) -> None:
        self.groups: dict[bytes, list[Member]] = {}

    def join(self, name: bytes, member: Member) -> list[Member]:
        group = self.groups.setdefault(name, [])
        group.append(member)
        if len(group) == GROUP_SIZE:
            for other in group:
                other.push(b"start\n")
        return group

    def leave(self, name: bytes, member: Member) -> None:
        group = self.groups.get(name)
        if group is not None and member in group:
            group.remove(member)
            if not group:
                del self.groups[name]


async def handle(stream: trio.SocketStream, groups: Groups, flusher: Flusher) -> None:
    """Serve one connection until it closes."""
    member = Member(stream, flusher)
    group: list[Member] | None = None
    name = b""
    buffer = b""
    try:
        while True:
            data = await read_some(stream, 65536)
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
        member.out.detach()
        await stream.aclose()


async def serve(host: str, port: int, *,
                task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """Listen on ``host:port``; report the bound port through ``task_status``."""
    groups = Groups()
    flusher = Flusher()
    listeners = await trio.open_tcp_listeners(port, host=host, backlog=4096)
    bound = listeners[0].socket.getsockname()[1]

    async def handler(stream: trio.SocketStream) -> None:
        await handle(stream, groups, flusher)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(flusher.run)
        task_status.started(bound)
        await trio.serve_listeners(handler, listeners)


async def _main(host: str, port: int) -> None:
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            bound = await nursery.start(serve, host, port)
            print(f"listening on {host}:{bound}", flush=True)
            async for _ in signals:
                nursery.cancel_scope.cancel()
                break


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7879)
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        trio.run(_main, args.host, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
