"""A table driven in-process, its messages delivered to fake peers."""

from __future__ import annotations

from typing import Any

from jackal.game.seats import SEATS, Seat
from jackal.protocol.messages import ServerMessage
from jackal.server.table import Table
from jackal.server.table_options import TableOptions

from support.peer import Peer


def deliver_all(out: list[tuple[Any, ServerMessage]]) -> None:
    """Hand each message of an outbox to its peer, as the hub would."""
    for peer, msg in out:
        peer.deliver(msg)


def table_of_peers(**options: Any) -> tuple[Table, dict[Seat, Peer], list[Any]]:
    """Four humans seated and ready at a table with ``options``; the match started."""
    records: list[Any] = []
    table = Table("t1", TableOptions(name="lan", target=1000, seed=4, **options),
                  recorder=records.append)
    peers = {seat: Peer(seat.value) for seat in SEATS}
    for seat, peer in peers.items():
        deliver_all(table.join(peer, peer.name, seat)[1])
    for peer in peers.values():
        deliver_all(table.ready(peer, now=0.0))
    assert table.status == "playing"
    return table, peers, records
