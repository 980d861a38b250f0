"""JSON Schema of every protocol message, generated from the msgspec Structs themselves."""

from __future__ import annotations

from typing import Any, get_args

import msgspec

from ..game.cards import Card
from .messages import PROTOCOL_VERSION, ServerMessage
from .requests import ClientMessage

__all__ = ["json_schema"]

_REF_PREFIX = "#/$defs/"


def _schema_hook(kind: type) -> dict[str, Any]:
    """Cards are typed ``Card`` in Python and travel as text such as "7H"."""
    if kind is Card:
        return {"type": "string", "minLength": 2, "maxLength": 3,
                "description": "a card: rank A 2-9 T J Q K (or 10), then suit S H D C"}
    raise NotImplementedError(f"no schema for {kind.__name__}")


def json_schema() -> dict[str, Any]:
    """One JSON Schema document: ``{"client": ..., "server": ...}`` plus shared ``$defs``.

    ``client`` and ``server`` each accept exactly one line's object from that side
    (an ``anyOf`` over the message types, discriminated by ``type``); both point into
    the shared ``$defs``, where each Struct appears under its class name.
    """
    client_types = get_args(ClientMessage)
    server_types = get_args(ServerMessage)
    (client, server), defs = msgspec.json.schema_components(
        [ClientMessage, ServerMessage], schema_hook=_schema_hook,
        ref_template=_REF_PREFIX + "{name}")
    # The class docstring speaks to Python readers; a schema reader gets the promise.
    defs["ErrorCode"]["description"] = (
        "The stable code of an error (docs/PROTOCOL.md, 'Error codes'): these are this "
        "version's; later versions may add codes, never rename one.")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Jackal protocol v{PROTOCOL_VERSION}",
        "description": "One JSON object per line. 'client' is what a client may send, "
                       "'server' what the server sends.",
        "protocol": PROTOCOL_VERSION,
        "client": client,
        "server": server,
        "client_types": sorted(t.__struct_config__.tag for t in client_types),
        "server_types": sorted(t.__struct_config__.tag for t in server_types),
        "$defs": defs,
    }
