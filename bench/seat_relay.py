"""What a tournament's seat relay (jackal.arena.relay) adds to a cmd: program's lines.

    .venv/bin/python bench/seat_relay.py [--lines 3000] [--rounds 2]

Round trips of one protocol-sized line to an echo server on loopback, straight and
through a SeatRelay (which scans each line for ``joined``), alternating, so both see the
same load. Prints JSON: the microseconds per round trip of each, per round.
"""

from __future__ import annotations

import argparse
import json
import socket
import time
from functools import partial

import trio
from jackal.arena.relay import JoinLog, SeatRelay

LINE = (b'{"type":"your_turn","table":"t1","seat":"E","hand":["7H","8H","9H","TH","JH",'
        b'"QH","KH","AH","2S","3S"],"play":1,"deadline":10.0}\n')


def _round_trips(port: int, lines: int) -> float:
    """Microseconds per line sent and read back, from a plain blocking client."""
    with socket.create_connection(("127.0.0.1", port)) as link:
        link.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = link.makefile("rb")
        start = time.perf_counter()
        for _ in range(lines):
            link.sendall(LINE)
            reader.readline()
        return (time.perf_counter() - start) / lines * 1e6


async def _measure(lines: int, rounds: int) -> dict[str, list[float]]:
    async def echo(stream: trio.SocketStream) -> None:
        async for chunk in stream:
            await stream.send_all(chunk)

    figures: dict[str, list[float]] = {"direct_us": [], "relay_us": []}
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, echo, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        relay = SeatRelay("127.0.0.1", port, JoinLog())
        await nursery.start(relay.serve)
        for _ in range(rounds):
            for key, target in (("direct_us", port), ("relay_us", relay.port)):
                figure = await trio.to_thread.run_sync(_round_trips, target, lines)
                figures[key].append(round(figure, 1))
        relay.close()
        nursery.cancel_scope.cancel()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(json.dumps({"lines": args.lines, **trio.run(_measure, args.lines, args.rounds)}))


if __name__ == "__main__":
    main()
