"""decode_client / decode_server / encode: good lines, and every way a line can be bad."""

from __future__ import annotations

import json

import pytest
from jackal.game.cards import Card
from jackal.game.seats import Seat
from jackal.protocol import ErrorCode, ProtocolError, encode
from jackal.protocol.codec import (
    CLIENT_TYPES,
    SERVER_TYPES,
    decode_client,
    decode_server,
    readable_validation_error,
)
from jackal.protocol.messages import Error, Played, ServerPing, Turn
from jackal.protocol.requests import CreateTable, Hello, Join, Ping, Play


def _error(line: bytes) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        decode_client(line)
    assert not info.value.fatal  # a bad line never closes the connection by itself
    return info.value


def test_decodes_each_kind_of_client_message() -> None:
    assert decode_client(b'{"type":"hello","name":"alice"}') == Hello(name="alice")
    assert decode_client(b' {"card":"7H","type":"play","id":"p-1"} ') == Play(
        card=Card.parse("7H"), id="p-1")
    assert decode_client(b'{"type":"join","table":"t1","seat":"W","id":7}') == Join(
        table="t1", seat=Seat.W, id=7)
    assert decode_client(b'{"type":"ping"}') == Ping()


def test_server_and_client_ping_are_different_types() -> None:
    assert isinstance(decode_server(b'{"type":"ping"}'), ServerPing)
    assert isinstance(decode_client(b'{"type":"ping"}'), Ping)


def test_encode_is_one_compact_line_without_defaults() -> None:
    data = encode(Played(seat=Seat.N, card=Card.parse("TS"), index=3, id=5))
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert b" " not in data
    assert json.loads(data) == {"type": "played", "seat": "N", "card": "TS", "index": 3,
                                "id": 5}
    # Events pushed by the server carry no id at all, not "id": null.
    assert json.loads(encode(Turn(seat=Seat.E))) == {"type": "turn", "seat": "E"}


@pytest.mark.parametrize("line", [
    b"\xff\xfe",
    b'{"type":"hello","name":"\xc3\x28"}',  # invalid UTF-8 inside a string
    b'{"type":"nope","x":"\xff"}',  # bad UTF-8 after a field the typed decoder rejects
    b"{type: hello}",
    b'{"type":"hello"',
    b'{"type":"hello"} {"type":"help"}',
    b'{"type":"hello","name":"a\x00b"}',
    b"[" * 100_000,  # deeper than msgspec will go
    b'{"type":"hello","x":' + b"[" * 5000 + b"]" * 5000 + b"}",
    b'{"type":"create_table","target":1e999}',
])
def test_bad_json(line: bytes) -> None:
    assert _error(line).code is ErrorCode.BAD_JSON


@pytest.mark.parametrize(("line", "words"), [
    (b"[1,2]", "expected a JSON object, got an array"),
    (b'"hello"', "expected a JSON object, got a string"),
    (b"42", "expected a JSON object, got an integer"),
    (b"null", "got null"),
    (b'{"name":"alice"}', "field 'type': missing (required)"),
    (b'{"type":7}', "field 'type': expected a string, got an integer"),
    (b'{"type":"play","card":5}', "field 'card': expected a string, got an integer"),
    (b'{"type":"play"}', "field 'card': missing (required in play)"),
    (b'{"type":"play","card":"7H","extra":1}', "field 'extra': unknown in play"),
    (b'{"type":"play","card":"7H77"}', "field 'card': expected a string of length <= 3"),
    (b'{"type":"join","table":"t1","seat":"Q"}', "field 'seat'"),
    (b'{"type":"create_table","target":' + b"9" * 500 + b"}", "field 'target'"),
    (b'{"type":"create_table","target":0}', "field 'target': expected an integer >= 1"),
    (b'{"type":"hello","protocol":1.5}', "field 'protocol': expected an integer or null"),
    (b'{"type":"ping","id":true}', "field 'id'"),
    (b'{"type":"ping","id":' + b"1" * 40 + b"}", "field 'id'"),
    (b'{"type":"ping","id":"' + b"x" * 65 + b'"}', "field 'id'"),
    (b'{"type":"hello","name":' + b"[" * 50 + b"]" * 50 + b"}",
     "field 'name': expected a string, got an array"),
])
def test_invalid_message_names_the_problem(line: bytes, words: str) -> None:
    exc = _error(line)
    assert exc.code is ErrorCode.INVALID_MESSAGE
    assert words in exc.message


def test_unknown_type() -> None:
    exc = _error(b'{"type":"teleport","id":"q"}')
    assert exc.code is ErrorCode.UNKNOWN_TYPE
    assert "teleport" in exc.message and exc.id == "q"
    # A server-only type is unknown coming from a client.
    assert _error(b'{"type":"deal_started"}').code is ErrorCode.UNKNOWN_TYPE
    # A giant type name is not echoed in full.
    assert len(_error(b'{"type":"' + b"t" * 5000 + b'"}').message) < 200


@pytest.mark.parametrize(("line", "expected"), [
    (b'{"type":"play","card":5,"id":9}', 9),
    (b'{"id":"abc","type":"play","card":[]}', "abc"),
    (b'{"type":"warp","id":-3}', -3),
    (b'{"type":"play","id":true}', None),  # not a valid id: nothing to echo
    (b'{"type":"play","id":1.5}', None),
    (b'{"type":"play","id":' + b"9" * 30 + b"}", None),
    (b'{"type":"play","id":"' + b"x" * 65 + b'"}', None),
    (b'{"type":"play","id":3', None),  # not JSON: the id cannot be trusted
])
def test_error_carries_the_id_when_readable(line: bytes, expected: object) -> None:
    assert _error(line).id == expected


def test_error_becomes_an_error_message() -> None:
    exc = _error(b'{"type":"play","card":5,"id":"r1"}')
    msg = exc.to_message()
    assert isinstance(msg, Error)
    wire = json.loads(encode(msg))
    assert wire["type"] == "error" and wire["code"] == "invalid_message"
    assert wire["id"] == "r1" and "card" in wire["message"]


def test_decode_server_errors() -> None:
    with pytest.raises(ProtocolError) as info:
        decode_server(b'{"type":"play","card":"7H"}')
    assert info.value.code is ErrorCode.UNKNOWN_TYPE
    with pytest.raises(ProtocolError) as info:
        decode_server(b'{"type":"turn","seat":"X"}')
    assert info.value.code is ErrorCode.INVALID_MESSAGE
    with pytest.raises(ProtocolError) as info:
        decode_server(b"\x80")
    assert info.value.code is ErrorCode.BAD_JSON


def test_type_tables_cover_both_unions() -> None:
    assert {"hello", "play", "answer", "pong"} <= set(CLIENT_TYPES)
    assert {"welcome", "error", "deal_ended", "pong", "ping"} <= set(SERVER_TYPES)
    assert CLIENT_TYPES["create_table"] is CreateTable


def test_readable_validation_error_words() -> None:
    assert readable_validation_error("Expected `str`, got `int` - at `$.card`") == (
        "field 'card': expected a string, got an integer")
    nested = "Object missing required field `plays` - at `$.card`"
    assert readable_validation_error(nested) == "field 'card.plays': missing (required)"
    assert readable_validation_error("Object contains unknown field `x`", "join") == (
        "field 'x': unknown in join")


def test_error_codes_are_stable_strings() -> None:
    needed = {"bad_json", "invalid_message", "unknown_type", "hello_first", "line_too_long",
              "rate_limited", "no_such_table", "seat_taken", "not_seated", "not_your_turn",
              "not_in_hand", "no_deal", "bad_token", "internal", "bad_password",
              "already_seated", "bad_card", "not_allowed", "no_such_question", "server_full",
              "timeout"}
    assert needed <= {code.value for code in ErrorCode}
    # Text from an untyped caller is looked up; text that is no code is refused at run
    # time as the type checker refuses it: the server never sends an undocumented code.
    exc = ProtocolError("rate_limited", "slow down", id=1)  # type: ignore[arg-type]
    assert exc.code is ErrorCode.RATE_LIMITED
    with pytest.raises(ValueError, match="custom_code"):
        ProtocolError("custom_code", "x")  # type: ignore[arg-type]


@pytest.mark.parametrize(("line", "words"), [
    # msgspec said byte 9 (the byte after the first token of the trailing text) and, for
    # an unfinished literal, the byte after it: the report names where it goes wrong.
    (b'{"type":"help"} junk', "at byte 16: extra data (near 'junk')"),
    (b'{"type":"hello","name":"x","client":tru}', "at byte 36: expecting value (near 'tru}')"),
    (b'{"type":"hello" "name":"x"}', "at byte 16: expecting ',' delimiter"),
    (b'{"type":"hello","name":"\xc3\xa9" x}', "at byte 28:"),  # bytes, not characters
    (b'{"type":"hello","name":"x', "at byte 23: unterminated string"),
    (b'{"type":"hello"', "at the end of the line"),
])
def test_bad_json_names_where_the_json_goes_wrong(line: bytes, words: str) -> None:
    error = _error(line)
    assert error.code is ErrorCode.BAD_JSON
    assert words in error.message, error.message
