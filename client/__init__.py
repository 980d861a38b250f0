"""Everything a Jackal client needs: the connection, the seat session, the bot runner.

- :mod:`.connection` -- :class:`Connection` (one trio TCP connection: requests matched to
  replies by id, pushed events, automatic ``pong``) and the client errors.
- :mod:`.session` -- :class:`SeatSession` (a seat kept across dropped connections).
- :mod:`.mirror` -- :class:`TableMirror` (the client's copy of the table).
- :mod:`.botrunner` -- :func:`play_match`, what ``jackal bot`` runs.
- :mod:`.exec_host` -- :func:`play_exec_match`, what ``jackal bot --exec`` runs: any
  program as a seat, one ``your_turn`` line in and one card line out per move.
- :mod:`.tui` and :mod:`.embedded` -- the terminal client ``jackal play``.
"""

from __future__ import annotations

from .botrunner import BotResult, play_match
from .connection import (
    ClientError,
    Connection,
    ConnectionLost,
    RequestTimeout,
    ServerError,
    open_connection,
    parse_address,
)
from .mirror import SeatView, TableMirror
from .session import Backoff, SeatSession, SessionLost, Status

__all__ = [
    "Backoff",
    "BotResult",
    "ClientError",
    "Connection",
    "ConnectionLost",
    "RequestTimeout",
    "SeatSession",
    "SeatView",
    "ServerError",
    "SessionLost",
    "Status",
    "TableMirror",
    "open_connection",
    "parse_address",
    "play_match",
]
