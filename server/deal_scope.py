"""What a deal being played closes to the addresses seated in it: every write the lobby
shows (``lobby_closed``) and chat where others read it, so no seat writes on the lobby for
its partner to read. :func:`deal_hosts` names those addresses; :func:`lobby_line` is a
table's lobby line without what they change meanwhile. Rules: docs/PROTOCOL.md."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable

from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import TableInfo
from . import views
from .seating import Peer
from .snapshot import table_snapshot
from .table import Table

__all__ = ["check_chat_open", "check_lobby_open", "deal_hosts", "listing", "lobby_line"]

#: How the hub knows a peer's address group (None: unknown).
PeerHost = Callable[[Peer], "str | None"]


def deal_hosts(tables: Iterable[Table]) -> frozenset[str]:
    """The address groups of every person seated (connected or held) at one of
    ``tables`` whose deal is being played."""
    return frozenset(slot.host for table in tables if table.status == "playing"
                     for slot in table.seats.values()
                     if slot.kind == "human" and slot.host is not None)


def check_lobby_open(tables: Iterable[Table], host: str, what: str) -> None:
    """Refuse ``what`` (a lobby write: ``create_table``, ``add_bot``, ``join``, leaving a
    seat) from address group ``host`` while a person of it is seated at a deal being
    played: a table's name, a seat's name, a seat filled or emptied would be a line
    written on the lobby, which that person's partner reads."""
    if host in deal_hosts(tables):
        raise ProtocolError(ErrorCode.LOBBY_CLOSED,
                            f"no {what} while a seat of your address plays a deal: what the "
                            f"lobby shows could reach a partner (the lobby opens when the "
                            f"deal ends)")


def check_chat_open(tables: Iterable[Table], at: Table | None, host: str) -> None:
    """Refuse a chat line from a connection of address group ``host`` that holds no seat,
    at table ``at`` (None: in the lobby). Lobby chat reaches everyone in the lobby, so any
    deal of the address closes it; a spectator's line reaches that table's spectators,
    so only a deal at that table does: a deal at another table keeps nobody from
    chatting while watching (one address may be a whole club)."""
    if host in deal_hosts(tables if at is None else (at,)):
        where = "at this table" if at is not None else "on this server"
        raise ProtocolError(ErrorCode.CHAT_CLOSED,
                            f"your address holds a seat at a deal being played {where}: no "
                            f"chat from it here until the deal ends")


def lobby_line(table: Table, hosts: frozenset[str], peer_host: PeerHost) -> TableInfo:
    """``table``'s lobby line as it may be shown while ``hosts`` play deals: a seat whose
    player's address is one of them shows as there even while it is away, and their
    connections are not counted among the spectators. So a seat (or a second window of
    its address) cannot signal by dropping, reclaiming or watching; what was hidden shows
    once the deal ends, when it can tell a partner nothing about that deal."""
    info = views.table_info(table_snapshot(table, full=False))
    if not hosts:
        return info
    for seat, slot in table.seats.items():
        if slot.kind == "human" and slot.host in hosts and info.kinds[seat] == "held":
            info.kinds[seat] = "human"
    hidden = sum(1 for peer in table.spectators if peer_host(peer) in hosts)
    info.spectators -= hidden
    return info


def listing(tables: dict[str, Table], offset: int, limit: int, peer_host: PeerHost
            ) -> list[TableInfo]:
    """One page of the lobby from ``offset`` (tables in the order they were created),
    each line as :func:`lobby_line` shows it."""
    hosts = deal_hosts(tables.values())
    return [lobby_line(table, hosts, peer_host)
            for table in itertools.islice(tables.values(), offset, offset + limit)]
