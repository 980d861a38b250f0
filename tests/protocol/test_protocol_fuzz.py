"""Property-based fuzzing of the protocol layer (issue 7, item 1), the code that runs.

The server's :class:`~jackal.server.net.session.Session` drives exactly the
:class:`ServerConnection` fuzzed here, and the client's connection the
:class:`ClientConnection`; the last property drives a real ``Session`` and hub over an
in-memory stream, so the bytes go through the running server's own path.

Promises checked: whatever bytes arrive, split wherever the network splits them, the
layer raises nothing but :class:`ProtocolError` (and the outcome does not depend on the
split); every valid message survives encode -> random chunks -> decode unchanged; and the
running server answers hostile input with the same protocol verdicts, in the same order.
Strategies for valid messages are derived from the Structs themselves through
``msgspec.inspect``, so a field added to requests.py or messages.py is fuzzed without
touching this file.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from functools import cache
from typing import Any, get_args

import msgspec
import msgspec.inspect as mi
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jackal.game.cards import DECK, Card
from jackal.game.conventions import BUILTIN_CARDS, ConventionCard
from jackal.protocol import (
    ClientConnection,
    ErrorCode,
    ProtocolError,
    ServerConnection,
    encode,
)
from jackal.protocol.codec import CLIENT_TYPES, decode_client
from jackal.protocol.framing import LineBuffer
from jackal.protocol.help import HELP_ENTRIES
from jackal.protocol.messages import ServerMessage, ServerShutdown
from jackal.protocol.requests import ClientMessage, Hello
from jackal.protocol.text import display_width
from jackal.server.config import ServerConfig
from jackal.server.hub import Hub
from jackal.server.net.session import Session

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
INT64 = (-(2**63), 2**63 - 1)

# --------------------------------------------------------------------------- strategies

json_scalars = (st.none() | st.booleans() | st.integers(*INT64)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)


_READABLE = st.characters(exclude_categories=("Cc", "Cf", "Cs", "Zl", "Zp"))


def _for_type(t: mi.Type) -> st.SearchStrategy[Any]:
    """A hypothesis strategy producing valid values of one msgspec type."""
    match t:
        case mi.NoneType():
            return st.none()
        case mi.BoolType():
            return st.booleans()
        case mi.IntType(ge=ge, le=le, gt=gt, lt=lt):
            low = ge if ge is not None else (gt + 1 if gt is not None else INT64[0])
            high = le if le is not None else (lt - 1 if lt is not None else INT64[1])
            return st.integers(low, high)
        case mi.FloatType(ge=ge, le=le, gt=gt, lt=lt):
            return st.floats(min_value=ge if ge is not None else gt,
                             max_value=le if le is not None else lt,
                             exclude_min=gt is not None, exclude_max=lt is not None,
                             allow_nan=False, allow_infinity=False)
        case mi.StrType(min_length=lo, max_length=hi):
            # Valid text is text people may read (protocol/text.py): no controls or
            # invisible characters, no wider in columns than the field is long.
            size = min(hi if hi is not None else 40, 40)
            return st.text(_READABLE, min_size=lo or 0, max_size=size).filter(
                lambda text: display_width(text) <= size)
        case mi.LiteralType(values=values):
            return st.sampled_from(values)
        case mi.UnionType(types=types):
            return st.one_of([_for_type(x) for x in types])
        case mi.ListType(item_type=item) | mi.VarTupleType(item_type=item):
            items = st.lists(_for_type(item), max_size=4)
            return items if isinstance(t, mi.ListType) else items.map(tuple)
        case mi.DictType(key_type=key, value_type=value):
            return st.dictionaries(_for_type(key), _for_type(value), max_size=4)
        case mi.AnyType():
            return json_values
        case mi.EnumType(cls=cls):  # Seat, Team
            return st.sampled_from(list(cls))
        case mi.CustomType(cls=cls) if cls is Card:
            return st.sampled_from(DECK)
        case mi.StructType(cls=cls):
            return struct_strategy(cls)
    raise NotImplementedError(f"no strategy for {t!r}")  # pragma: no cover


@cache
def struct_strategy(cls: type[msgspec.Struct]) -> st.SearchStrategy[Any]:
    """Instances of ``cls`` with random valid fields (optional ones sometimes left out)."""
    if cls is ConventionCard:
        # A card is validated as a whole (eight rules, sane offsets): use the real ones.
        return st.sampled_from(sorted(BUILTIN_CARDS.values(), key=lambda c: c.name))
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    required = {f.name: _for_type(f.type) for f in info.fields if f.required}
    optional = {f.name: _for_type(f.type) for f in info.fields if not f.required}
    return st.fixed_dictionaries(required, optional=optional).map(lambda kw: cls(**kw))


client_messages = st.one_of([struct_strategy(c) for c in get_args(ClientMessage)])
server_messages = st.one_of([struct_strategy(c) for c in get_args(ServerMessage)])


def _json_line(value: Any) -> bytes:
    return json.dumps(value).encode()


# Lines that look like messages but may be wrong anywhere: a known (or unknown) type with
# random fields, random JSON, truncated or corrupted encodings of valid messages.
shaped_objects = st.builds(
    lambda kind, fields: {"type": kind, **fields},
    st.sampled_from([*CLIENT_TYPES, "welcome", "nope", ""]) | st.text(max_size=10),
    st.dictionaries(st.sampled_from(["id", "card", "table", "seat", "name", "index",
                                     "target", "token", "text", "x"]), json_values,
                    max_size=4))
hostile_lines = st.one_of(
    client_messages.map(lambda m: encode(m).rstrip(b"\n")),
    shaped_objects.map(_json_line),
    json_values.map(_json_line),
    st.binary(max_size=80).map(lambda b: b.replace(b"\n", b"")),
    st.tuples(client_messages, st.integers(0, 200)).map(
        lambda mi_: encode(mi_[0])[: mi_[1]].rstrip(b"\n")),
    st.integers(1, 3000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(1, 3000).map(lambda n: b'{"type":"hello","name":' + b"[" * n),
    st.integers(20, 400).map(lambda n: b'{"type":"create_table","target":' + b"9" * n + b"}"),
)


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    # No empty chunks: receive_data(b"") means end of stream.
    return [data[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def _run_server(chunks: list[bytes], *, max_line: int = 65536) -> list[object]:
    """Feed chunks to a ServerConnection, accepting each hello as the hub does (no
    password, no seats to reclaim: any hello of protocol 1 without a token); record
    what comes out."""
    conn = ServerConnection(max_line=max_line)
    out: list[object] = []
    for chunk in [*chunks, b""]:
        conn.receive_data(chunk)
        while True:
            try:
                msg = conn.next_message()
            except ProtocolError as exc:
                out.append((exc.code, exc.id, exc.fatal))
                if exc.fatal:
                    return out
                continue
            if msg is None:
                break
            if isinstance(msg, Hello) and msg.protocol in (None, 1) and msg.token is None:
                conn.accept_hello(msg.name)
            out.append(msg)
    return out


# --------------------------------------------------------------------------- properties


@FUZZ
@given(st.binary(max_size=3000), st.lists(st.integers(0, 3000), max_size=12))
def test_random_bytes_only_ever_raise_protocol_error(data: bytes, cuts: list[int]) -> None:
    result = _run_server(_chunks(data, cuts), max_line=512)
    assert all(isinstance(x, (msgspec.Struct, tuple)) for x in result)
    buf = LineBuffer(max_line=512)
    try:
        for chunk in _chunks(data, cuts):
            for line in buf.feed(chunk):
                try:
                    decode_client(line)
                except ProtocolError as exc:
                    assert not exc.fatal
    except ProtocolError as exc:
        assert exc.code is ErrorCode.LINE_TOO_LONG and exc.fatal


@pytest.mark.slow
@FUZZ
@given(st.lists(hostile_lines, max_size=12), st.lists(st.integers(0, 100_000), max_size=20),
       st.sampled_from([b"\n", b"\r\n"]), st.sampled_from([300, 65536]))
def test_hostile_lines_are_answered_the_same_however_split(
        lines: list[bytes], cuts: list[int], sep: bytes, max_line: int) -> None:
    data = b"".join(line + sep for line in lines)
    whole = _run_server([data], max_line=max_line)
    assert _run_server(_chunks(data, cuts), max_line=max_line) == whole
    byte_by_byte = _run_server([data[i:i + 1] for i in range(min(len(data), 4000))]
                               if len(data) <= 4000 else [data], max_line=max_line)
    assert byte_by_byte == whole
    for item in whole:
        if isinstance(item, tuple):
            code, _id, fatal = item
            # What decoding can refuse (protocol/codec.py: a card field holding no card, a
            # convention card of the wrong shape), and what a connection before hello is.
            assert code in {ErrorCode.BAD_JSON, ErrorCode.INVALID_MESSAGE,
                            ErrorCode.UNKNOWN_TYPE, ErrorCode.HELLO_FIRST, ErrorCode.NOT_ALLOWED,
                            ErrorCode.BAD_TEXT, ErrorCode.BAD_CARD, ErrorCode.BAD_CONVENTIONS,
                            ErrorCode.LINE_TOO_LONG}
            assert fatal == (code is ErrorCode.LINE_TOO_LONG)


@pytest.mark.slow
@FUZZ
@given(st.lists(client_messages.filter(lambda m: not isinstance(m, Hello)), min_size=1,
                max_size=8),
       st.lists(st.integers(0, 10_000), max_size=10))
def test_client_messages_round_trip_through_random_chunks(
        msgs: list[Any], cuts: list[int]) -> None:
    data = b"".join(encode(m) for m in msgs)
    conn = ServerConnection()
    conn.accept_hello("fuzz")  # the hello rules (first, and only once) are tested elsewhere
    got: list[Any] = []
    for chunk in _chunks(data, cuts):
        conn.receive_data(chunk)
        while (msg := conn.next_message()) is not None:
            got.append(msg)
    assert got == msgs


@pytest.mark.slow
@FUZZ
@given(st.lists(server_messages, min_size=1, max_size=8),
       st.lists(st.integers(0, 10_000), max_size=10))
def test_server_messages_round_trip_through_random_chunks(
        msgs: list[Any], cuts: list[int]) -> None:
    data = b"".join(encode(m) for m in msgs)
    conn = ClientConnection()
    got: list[Any] = []
    for chunk in _chunks(data, cuts):
        conn.receive_data(chunk)
        while (msg := conn.next_message()) is not None:
            got.append(msg)
    # server_shutdown is the server's last word: the client's state machine reads no more.
    ends = [i for i, m in enumerate(msgs) if isinstance(m, ServerShutdown)]
    assert got == (msgs[: ends[0] + 1] if ends else msgs)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 200_000), st.sampled_from([b"[", b'{"a":', b'{"type":"hello","x":[']))
def test_deep_nesting_is_a_protocol_error(depth: int, opener: bytes) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_client(opener * depth)
    assert not info.value.fatal


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(CLIENT_TYPES)), st.integers(20, 5000), st.booleans())
def test_huge_numbers_in_any_field(kind: str, digits: int, negative: bool) -> None:
    number = (b"-" if negative else b"") + b"9" * digits
    info = mi.type_info(CLIENT_TYPES[kind])
    assert isinstance(info, mi.StructType)
    for field in ["id", *(f.name for f in info.fields)]:
        line = b'{"type":"' + kind.encode() + b'","' + field.encode() + b'":' + number + b"}"
        with pytest.raises(ProtocolError) as err:
            decode_client(line)
        assert err.value.code in {ErrorCode.INVALID_MESSAGE, ErrorCode.BAD_JSON,
                                  ErrorCode.BAD_CONVENTIONS}


# --------------------------------------------------------------------------- the server


#: Verdicts only the protocol layer gives (the hub never answers with these codes), so the
#: running server's replies can be compared with the sans-IO run line for line.
_LAYER_CODES = {ErrorCode.BAD_JSON, ErrorCode.UNKNOWN_TYPE, ErrorCode.HELLO_FIRST,
                ErrorCode.LINE_TOO_LONG}


async def _through_a_session(chunks: list[bytes], max_line: int) -> list[str]:
    """Send chunks to a real Session and hub over an in-memory stream, then half-close;
    return the codes of every ``error`` the server wrote, in order."""
    config = ServerConfig(max_line=max_line, rate_burst=10_000, ping_interval=10_000,
                          hello_timeout=10_000)
    hub = Hub(config)
    client, server = trio.testing.memory_stream_pair()
    session = Session(server, 1, "fuzz", config, hub, hub.flusher, hub.keepalive)
    hub.connected(session)
    received = bytearray()
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            hub.start(nursery)
            nursery.start_soon(session.run)
            # After line_too_long the server closes its side: what is left is not sent.
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                for chunk in chunks:
                    await client.send_all(chunk)
                await client.send_eof()
            while data := await client.receive_some(1 << 16):
                received += data
            nursery.cancel_scope.cancel()
    return [msg["code"] for msg in map(json.loads, received.splitlines())
            if msg["type"] == "error"]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(hostile_lines, max_size=8), st.lists(st.integers(0, 100_000), max_size=8),
       st.sampled_from([300, 65536]))
def test_the_running_session_gives_the_same_verdicts(
        lines: list[bytes], cuts: list[int], max_line: int) -> None:
    data = b"".join(line + b"\n" for line in lines)
    expected = [str(item[0]) for item in _run_server([data], max_line=max_line)
                if isinstance(item, tuple) and item[0] in _LAYER_CODES]
    got = trio.run(_through_a_session, _chunks(data, cuts), max_line)
    assert [code for code in got if code in _LAYER_CODES] == expected
    if expected and expected[-1] == "line_too_long":
        assert got[-1] == "line_too_long"  # and nothing was answered after it


# --------------------------------------------------------------------------- every field


def _fields() -> list[tuple[str, str]]:
    out = []
    for kind, cls in sorted(CLIENT_TYPES.items()):
        out += [(kind, field.name) for field in msgspec.structs.fields(cls)]
    return out


@pytest.mark.parametrize(("kind", "field"), _fields())
def test_wrong_type_in_every_field_names_that_field(kind: str, field: str) -> None:
    cls = CLIENT_TYPES[kind]
    ftype = next(f.type for f in msgspec.structs.fields(cls) if f.name == field)
    seen = 0
    for value in [True, 12345, 1.5, "x" * 70, [1], {"k": 1}, "", -1]:
        try:
            msgspec.convert(value, type=ftype)
            continue  # this value is acceptable here
        except msgspec.ValidationError:
            pass
        seen += 1
        # Start from a valid message (the help example) so only this field is wrong.
        base = json.loads(next(e.example for e in HELP_ENTRIES if e.type == kind))
        line = json.dumps({**base, "id": "w", field: value}).encode()
        with pytest.raises(ProtocolError) as info:
            decode_client(line)
        # A convention card of the wrong shape is a bad card, as an unknown name is.
        card_spec = field in ("card", "conventions_ns", "conventions_ew") and kind != "play"
        assert info.value.code is (ErrorCode.BAD_CONVENTIONS if card_spec
                                   else ErrorCode.INVALID_MESSAGE)
        assert f"'{field}'" in info.value.message or f"'{field}." in info.value.message
        assert info.value.id == ("w" if field != "id" else None)
    assert seen >= 3, f"{kind}.{field} accepts nearly anything?"
