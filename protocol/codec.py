"""Encoding and decoding of single protocol lines. The happy path is one call into a msgspec
Decoder built once for the whole tagged union; only a line that fails is decoded again
(untyped) to tell which rule it broke, so a flood of good messages pays nothing for the
careful error reports. A typed decode also proves the line was valid UTF-8."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, get_args

import msgspec

from ..game.cards import DECK, Card
from ..game.errors import MalformedInput
from .errors import ErrorCode, RemoteProtocolError
from .messages import MessageId, ServerMessage
from .requests import ClientMessage
from .text import check_client_text

__all__ = [
    "CLIENT_TYPES",
    "SERVER_TYPES",
    "card_dec_hook",
    "card_enc_hook",
    "decode_client",
    "decode_server",
    "encode",
    "readable_validation_error",
]


def _tags(union: Any) -> dict[str, type[msgspec.Struct]]:
    return {cls.__struct_config__.tag: cls for cls in get_args(union)}


#: ``type`` value -> Struct class, for each direction.
CLIENT_TYPES: dict[str, type[msgspec.Struct]] = _tags(ClientMessage)
SERVER_TYPES: dict[str, type[msgspec.Struct]] = _tags(ServerMessage)

#: Card text is "7H" or "10H": two or three characters.
_CARD_MIN_LEN, _CARD_MAX_LEN = 2, 3
#: What Card.parse says of text that names no card; marks the ``bad_card`` errors.
_NOT_A_CARD = "is not a card"


#: Each card's wire text, by card number. The encoder's hook is this tuple's own
#: ``__getitem__``: msgspec calls the hook for every card (an ``int`` subclass is not one
#: of its native types), and a C-level lookup instead of a Python function is the
#: difference between ~0.4 and ~2.4 us a card, which a ``your_turn`` with 30 cards feels.
#: Cards are the only values of ours that need the hook (seats and teams are enums,
#: which msgspec encodes itself); any other object reaching it is a bug, reported as a
#: TypeError naming its type.
_CARD_TEXT: tuple[str, ...] = tuple(str(card) for card in DECK)


def _dec_hook(kind: type, obj: Any) -> Any:
    """Read a card field ("7H", "10h", "T♥"); anything else is a validation error that
    msgspec reports with the field's path."""
    if kind is Card:
        if not isinstance(obj, str):
            raise TypeError(f"Expected `str`, got `{_msgspec_kind(obj)}`")
        # Text of the wrong length is a misshapen field (invalid_message, and never
        # quoted back); two or three characters that name no card are a bad card.
        if len(obj) > _CARD_MAX_LEN:
            raise ValueError(f"Expected `str` of length <= {_CARD_MAX_LEN}")
        if len(obj) < _CARD_MIN_LEN:
            raise ValueError(f"Expected `str` of length >= {_CARD_MIN_LEN}")
        try:
            return Card.parse(obj)
        except MalformedInput as exc:
            raise ValueError(str(exc)) from None
    raise NotImplementedError(f"cannot decode {kind.__name__}")


#: Each JSON value's type: msgspec's own name for it (so readable_validation_error words
#: a card field's error as msgspec's others) and ours in an error message. ``bool``
#: comes before ``int``, its base class.
_KINDS: tuple[tuple[type, str, str], ...] = (
    (bool, "bool", "a boolean"), (int, "int", "an integer"), (float, "float", "a number"),
    (str, "str", "a string"), (list, "array", "an array"), (dict, "object", "an object"))


def _msgspec_kind(obj: object) -> str:
    return next((name for kind, name, _ in _KINDS if isinstance(obj, kind)),
                "null" if obj is None else "str")


def _json_kind(value: object) -> str:
    return next((words for kind, _, words in _KINDS if isinstance(value, kind)),
                "null" if value is None else "an object")


#: The hooks that write and read cards as the wire does, for other JSON of ours that types
#: them ``Card`` (records, arena reports, ``jackal score --json``).
card_enc_hook: Callable[[Any], Any] = _CARD_TEXT.__getitem__
card_dec_hook: Callable[[type, Any], Any] = _dec_hook

_client_decoder = msgspec.json.Decoder(ClientMessage, dec_hook=_dec_hook)
_server_decoder = msgspec.json.Decoder(ServerMessage, dec_hook=_dec_hook)
_any_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder(enc_hook=_CARD_TEXT.__getitem__)

_ID_MAX_LEN = 64
_ID_MIN_INT, _ID_MAX_INT = -(2**63), 2**63 - 1


def encode(msg: msgspec.Struct) -> bytes:
    """One message as compact JSON followed by ``\\n``: exactly what goes on the wire."""
    return _encoder.encode(msg) + b"\n"


def decode_client(line: bytes) -> ClientMessage:
    """Decode one line from a client, or raise :class:`RemoteProtocolError` saying what is wrong.

    Codes: ``bad_json`` (not UTF-8 JSON, or nested too deeply to read), ``unknown_type``,
    ``invalid_message`` (not an object, no ``type``, or a field of the wrong shape; the
    message names the field), ``bad_card`` (a card field holds text that is no card),
    ``bad_text`` (a name, question, answer or card text that :mod:`.text` refuses).
    The error carries the line's ``id`` when it could be read.
    """
    msg: ClientMessage = _decode(_client_decoder, line, CLIENT_TYPES)
    check_client_text(msg)
    return msg


def decode_server(line: bytes) -> ServerMessage:
    """Decode one line from the server (for clients); same errors as :func:`decode_client`."""
    msg: ServerMessage = _decode(_server_decoder, line, SERVER_TYPES)
    return msg


def _decode(decoder: msgspec.json.Decoder[Any], line: bytes,
            known: dict[str, type[msgspec.Struct]]) -> Any:
    try:
        return decoder.decode(line)
    except msgspec.ValidationError as exc:  # subclass of DecodeError: must come first
        raise _classify(line, exc, known) from None
    except msgspec.DecodeError as exc:
        raise RemoteProtocolError(ErrorCode.BAD_JSON, _not_json(line, exc)) from None
    except RecursionError:
        raise RemoteProtocolError(ErrorCode.BAD_JSON, "JSON nested too deeply") from None


def _classify(line: bytes, exc: msgspec.ValidationError,
              known: dict[str, type[msgspec.Struct]]) -> RemoteProtocolError:
    """Work out why a line failed typed validation (the slow path, errors only)."""
    # The typed decoder may stop at the first misfit field before it has read the rest of
    # the line, so check the whole line is JSON before blaming its shape.
    try:
        obj = _any_decoder.decode(line)
    except msgspec.DecodeError as err:
        return RemoteProtocolError(ErrorCode.BAD_JSON, _not_json(line, err))
    except RecursionError:
        return RemoteProtocolError(ErrorCode.BAD_JSON, "JSON nested too deeply")
    if not isinstance(obj, dict):
        return RemoteProtocolError(ErrorCode.INVALID_MESSAGE,
                             f"expected a JSON object, got {_json_kind(obj)}")
    msg_id = _read_id(obj)
    kind = obj.get("type")
    if kind is None:
        return RemoteProtocolError(ErrorCode.INVALID_MESSAGE, "field 'type': missing (required)",
                             id=msg_id)
    if not isinstance(kind, str):
        return RemoteProtocolError(ErrorCode.INVALID_MESSAGE,
                             f"field 'type': expected a string, got {_json_kind(kind)}",
                             id=msg_id)
    if kind not in known:
        shown = kind if len(kind) <= 40 else kind[:40] + "..."
        return RemoteProtocolError(ErrorCode.UNKNOWN_TYPE,
                             f"unknown message type {shown!r}; send {{\"type\":\"help\"}}",
                             id=msg_id)
    # A field that names no card keeps its own code (``bad_card``), as before cards
    # were typed; a convention card of the wrong shape is a bad card spec
    # (``bad_conventions``, as an unknown card name is); every other misfit field is an
    # invalid message.
    text = str(exc)
    path = _PATH_RE.search(text)
    top = re.split(r"[.\[]", path.group("path").removeprefix("."))[0] if path else ""
    if _NOT_A_CARD in text:
        code = ErrorCode.BAD_CARD
    elif (kind, top) in _CARD_SPEC_FIELDS:
        code = ErrorCode.BAD_CONVENTIONS
    else:
        code = ErrorCode.INVALID_MESSAGE
    return RemoteProtocolError(code, readable_validation_error(text, kind), id=msg_id)


#: The fields that hold a convention card (a built-in name or a whole card).
_CARD_SPEC_FIELDS = frozenset({("conventions", "card"), ("create_table", "conventions_ns"),
                               ("create_table", "conventions_ew")})


def _read_id(obj: dict[str, Any]) -> MessageId | None:
    """The ``id`` of a rejected object, if it is one the reply may echo."""
    value = obj.get("id")
    if isinstance(value, str) and len(value) <= _ID_MAX_LEN:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and (
            _ID_MIN_INT <= value <= _ID_MAX_INT):
        return value
    return None




def _not_json(line: bytes, exc: msgspec.DecodeError) -> str:
    """Where and why a line is not JSON. msgspec names the byte it stopped at, which for an
    unfinished token or trailing text is past the fault (``{"a":1} x`` said byte 9, ``tru}``
    the ``}``); Python's parser names the first byte that cannot start or continue a JSON
    text, so it places the report (errors only: the happy path never comes here)."""
    try:
        text = line.decode()
        json.loads(text)
    except json.JSONDecodeError as err:
        at = len(text[:err.pos].encode())
        near = line[at:at + 16].decode(errors="replace")
        where = f"near {near!r}" if near else "at the end of the line"
        # "Unterminated string starting at": the byte follows, so the tail goes.
        why = re.sub(r"( starting)? at$", "", err.msg)
        return f"not valid JSON at byte {at}: {why[:1].lower()}{why[1:]} ({where})"
    except (ValueError, RecursionError):  # bad UTF-8, too many digits, too deep
        pass
    return f"not valid JSON: {_short(exc)}"


def _short(exc: Exception) -> str:
    """msgspec's decode error without its prefix or its (meaningless here) path."""
    text = _PATH_RE.sub("", str(exc)).removeprefix("JSON is malformed: ")
    return text[:1].lower() + text[1:]


_TYPE_WORDS = {
    "str": "a string", "int": "an integer", "float": "a number", "bool": "a boolean",
    "array": "an array", "object": "an object", "null": "null", "bytes": "a string",
}
_PATH_RE = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_TICK_RE = re.compile(r"`([^`]*)`")


def _words(types: str) -> str:
    parts = [_TYPE_WORDS.get(p.strip(), p.strip()) for p in types.split("|")]
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def readable_validation_error(text: str, kind: str | None = None) -> str:
    """Turn msgspec's validation message into plain words that start by naming the field,
    always as ``field 'NAME': `` (the server's own errors about a field use the same
    prefix), ``kind`` being the message type when known.

    ``Expected `str`, got `int` - at `$.card``` becomes
    ``field 'card': expected a string, got an integer``; a missing or unknown field is
    ``field 'table': missing (required in join)`` and ``field 'x': unknown in join``.
    """
    where = ""
    match = _PATH_RE.search(text)
    if match:
        where = match.group("path").removeprefix(".")
        text = text[: match.start()]
    in_kind = f" in {kind}" if kind else ""
    for start, what in (("Object missing required field ", f"missing (required{in_kind})"),
                        ("Object contains unknown field ", f"unknown{in_kind}")):
        if text.startswith(start):
            name = _TICK_RE.sub(r"\1", text[len(start):])
            where = f"{where}.{name}" if where else name
            return f"field '{where}': {what}"
    text = _TICK_RE.sub(lambda m: _words(m.group(1)), text)
    text = text[:1].lower() + text[1:]
    return f"field '{where}': {text}" if where else text
