"""Jackal protocol v1, sans-IO: messages, framing, codec, connection state, errors.

Nothing here does I/O or imports trio; the server and clients feed bytes in and write
the bytes they are handed. See docs/PROTOCOL.md for the wire format.

``__all__`` is what the server and the client use (a test checks that each name is);
tools and tests reach the rest through the submodules: :mod:`.codec` (decoding one line,
the message type tables), :mod:`.framing` (the capped line buffer), :mod:`.state` (the
transition table), :mod:`.schema` (JSON Schema), :mod:`.help` (the ``help`` entries).
"""

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
