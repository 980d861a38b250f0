"""Everything a Jackal client needs: :class:`Connection` (one TCP connection, made by
:func:`connect` in your nursery or :func:`open_connection`) and the client errors,
:class:`SeatSession` (a seat kept across dropped connections), :class:`TableMirror` (the
client's copy of the table), :func:`play_match` (``jackal bot``), :func:`play_exec_match`
(``jackal bot --exec``); :mod:`.tui` is ``jackal play``."""

from __future__ import annotations

from .botrunner import BotResult, play_match
from .connection import (
    ClientError,
    Connection,
    ConnectionLost,
    RequestTimeout,
    ServerError,
    connect,
    open_connection,
    parse_address,
)
from .mirror import SeatView, TableMirror
from .session import Backoff, SeatSession, SessionLost, SessionStatus

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
    "SessionStatus",
    "TableMirror",
    "connect",
    "open_connection",
    "parse_address",
    "play_match",
]
