"""Jackal protocol v1, sans-IO: messages, framing, codec, connection state, errors (the wire
format is docs/PROTOCOL.md's). ``__all__`` is what the server and the client use (a test
checks each name is); tools and tests reach the rest through the submodules (:mod:`.codec`,
:mod:`.framing`, :mod:`.state`, :mod:`.schema`, :mod:`.help`)."""

from __future__ import annotations

from .codec import encode
from .connection import CLIENT_MAX_LINE, ClientConnection, ServerConnection
from .errors import ErrorCode, ProtocolError, RemoteProtocolError
from .help import help_reply
from .messages import PROTOCOL_VERSION, ServerMessage
from .requests import ClientMessage
from .state import ConnState

__all__ = [
    "CLIENT_MAX_LINE",
    "PROTOCOL_VERSION",
    "ClientConnection",
    "ClientMessage",
    "ConnState",
    "ErrorCode",
    "ProtocolError",
    "RemoteProtocolError",
    "ServerConnection",
    "ServerMessage",
    "encode",
    "help_reply",
]
