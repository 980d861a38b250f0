"""The bot-timing measurement, shared by bench/bot_timing.py and
tests/server/test_bot_timing.py: spectators that time each bot move of a four-expert
table against the number of distinct ranks the moving bot held."""

from __future__ import annotations

import json
import math
import socket
import threading
import time
from typing import Any

from jackal.game.cards import Card, parse_card
from jackal.game.deal import Deal
from jackal.game.match import deal_seed
from jackal.game.seats import Seat

__all__ = ["STAGGER", "Sample", "correlation", "watch"]

#: Seconds between the start of one watched table and the next, as a tournament's
#: tables start: their first plays (the expert's slowest decisions) do not all queue for
#: the server's threads in the same instant.
STAGGER = 1.0

#: (distinct ranks the moving bot held, its ``turn`` -> ``played`` seconds)
Sample = tuple[int, float]


class LineClient:
    """A blocking line-protocol client: greets, then sends requests and reads lines (the
    tests set tables up with it too)."""

    def __init__(self, port: int, name: str = "host", timeout: float = 30.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.reader = self.sock.makefile("rb")
        self.ids = 0
        self.reader.readline()  # welcome
        self.request({"type": "hello", "name": name})

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send ``msg`` with a fresh id; return its reply (raise on an error reply)."""
        self.ids += 1
        self.sock.sendall(json.dumps({**msg, "id": self.ids}).encode() + b"\n")
        while True:
            reply: dict[str, Any] = json.loads(self.reader.readline())
            if reply.get("type") == "ping":
                self.sock.sendall(b'{"type":"pong"}\n')
            elif reply.get("id") == self.ids:
                if reply["type"] == "error":
                    raise RuntimeError(f"{msg['type']} refused: {reply}")
                return reply

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


def watch(port: int, seed: int, samples: list[Sample], wanted: int,
          lock: threading.Lock) -> None:
    """Spectate a new four-expert table dealt from ``seed``; append a sample per bot move
    until ``samples`` holds ``wanted`` (or the server closes)."""
    client = LineClient(port, name=f"watch{seed}")
    try:
        table = client.request({"type": "create_table", "seed": seed, "target": 1_000_000})
        table_id = table["table"]
        client.request({"type": "spectate", "table": table_id})
        for seat in "NESW":
            client.request({"type": "add_bot", "table": table_id, "seat": seat,
                            "strategy": "expert"})
        hands: dict[Seat, set[Card]] = {}
        turn_at: tuple[Seat, float] | None = None
        while True:
            line = client.reader.readline()
            now = time.perf_counter()
            if not line:
                return
            msg = json.loads(line)
            kind = msg.get("type")
            if kind == "ping":
                client.sock.sendall(b'{"type":"pong"}\n')
            elif kind == "deal_started":
                deal = Deal.from_seed(deal_seed(seed, msg["deal"]), Seat(msg["dealer"]))
                hands = {seat: set(deal.dealt_hand(seat)) for seat in Seat}
                turn_at = None
            elif kind == "turn":
                turn_at = (Seat(msg["seat"]), now)
            elif kind == "played":
                seat, card = Seat(msg["seat"]), parse_card(msg["card"])
                if turn_at is not None and turn_at[0] is seat:
                    ranks = len({held.rank for held in hands[seat]})
                    with lock:
                        if len(samples) >= wanted:
                            return
                        samples.append((ranks, now - turn_at[1]))
                hands[seat].discard(card)
                turn_at = None
    finally:
        client.close()


def correlation(pairs: list[Sample]) -> float:
    """Pearson's r between the ranks and the seconds."""
    xs = [float(x) for x, _ in pairs]
    ys = [y for _, y in pairs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy)
