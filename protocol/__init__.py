"""Jackal protocol v1, sans-IO: messages, framing, codec, connection state, errors.

Nothing here does I/O or imports trio; the server and clients feed bytes in and write
the bytes they are handed. See docs/PROTOCOL.md for the wire format.
"""

from __future__ import annotations

from .codec import (
    CLIENT_TYPES,
    SERVER_TYPES,
    decode_client,
    decode_server,
    encode,
    readable_validation_error,
)
from .connection import CLIENT_MAX_LINE, ClientConnection, ConnState, ServerConnection
from .errors import ErrorCode, ProtocolError
from .framing import DEFAULT_MAX_LINE, LineBuffer
from .help import HELP_ENTRIES, help_reply
from .messages import PROTOCOL_VERSION, ClientMessage, ServerMessage
from .schema import json_schema

__all__ = [
    "CLIENT_MAX_LINE",
    "CLIENT_TYPES",
    "DEFAULT_MAX_LINE",
    "HELP_ENTRIES",
    "PROTOCOL_VERSION",
    "SERVER_TYPES",
    "ClientConnection",
    "ClientMessage",
    "ConnState",
    "ErrorCode",
    "LineBuffer",
    "ProtocolError",
    "ServerConnection",
    "ServerMessage",
    "decode_client",
    "decode_server",
    "encode",
    "help_reply",
    "json_schema",
    "readable_validation_error",
]
