"""Record files made the way the server makes them: a real Table writing to a real
RecordFile, driven through its public methods (no sockets), for the record tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jackal.game.cards import Card
from jackal.game.seats import SEATS, Seat
from jackal.server.records.files import RecordFile
from jackal.server.table import Table
from jackal.server.table_options import TableOptions

from support.peer import Peer


@dataclass
class Recorded:
    path: Path
    table: Table
    tokens: dict[Seat, str] = field(default_factory=dict)


def first_legal(table: Table) -> Card:
    deal = table.match.deal
    assert deal is not None
    return deal.legal_plays()[0]


def record_match(directory: Path, *, table_id: str = "t1", seed: int = 5, target: int = 1,
                 humans: tuple[Seat, ...] = (Seat.N, Seat.E, Seat.S),
                 until: Callable[[Table], bool] = lambda _table: False,
                 choose: Callable[[Table], Card] = first_legal) -> Recorded:
    """Play a match at a recorded table (humans and random bots, each playing the card
    ``choose(table)`` picks for the seat on turn, by default its first legal card) until
    it is over or ``until(table)``; the file is closed afterwards."""
    record = RecordFile.create(directory, table_id)
    lobby = Peer()  # the connection that made the table, as the hub does: it adds the bots
    table = Table(table_id, TableOptions(name="recorded", target=target, seed=seed),
                  recorder=record, creator=lobby)
    table.record_header()
    peers: dict[Seat, Peer] = {}
    made = Recorded(record.path, table)
    for seat in SEATS:
        if seat in humans:
            peers[seat] = Peer()
            made.tokens[seat], _ = table.join(peers[seat], f"p{seat}", seat)
        else:
            table.add_bot(lobby, seat, "random")
    for peer in peers.values():
        table.ready(peer)
    while table.status != "over" and not until(table):
        if table.status == "between_deals":
            for peer in peers.values():
                table.ready(peer)
            continue
        deal = table.match.deal
        assert deal is not None and deal.turn is not None
        seat, card = deal.turn, choose(table)
        if seat in peers:
            table.play(peers[seat], card, 1.0)
        else:
            table.bot_play(seat, card, 1.0)
    record.close()
    return made


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def rewrite(path: Path, events: list[dict[str, Any]], tail: bytes = b"") -> None:
    """Replace the file with ``events`` (one JSON line each) and then ``tail``."""
    path.write_bytes(b"".join(json.dumps(event).encode() + b"\n" for event in events) + tail)


FAST: dict[str, Any] = dict(ping_interval=10_000.0, ping_timeout=10_000.0,
                            hello_timeout=10_000.0)
