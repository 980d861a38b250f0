"""Hostile messages over the WebSocket get the verdicts the sans-IO protocol gives the same
lines over TCP: the real WebSocketStream and Session, over an in-memory stream or a real
socket pair (where the transport writes the frames itself), with each message cut into
random continuation frames and pings between them (hypothesis); and random bytes in
place of frames end in a close frame, never in an exception."""

from __future__ import annotations

import contextlib
import itertools
import json
import logging

import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jackal.protocol import ProtocolError, ServerConnection
from jackal.protocol.requests import Hello
from jackal.server.config import ServerConfig
from jackal.server.hub import Hub
from jackal.server.net.session import Session
from jackal.server.web.wsstream import WebSocketStream, text_frame
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Ping, Pong, Request, TextMessage

_GOOD = ['{"type":"hello","name":"fuzz"}', '{"type":"ping","id":7}', '{"type":"help"}',
         '{"type":"list_tables"}', '{"type":"play","card":"7H"}', '{"type":"ready"}']
messages = st.one_of(
    st.sampled_from(_GOOD),
    st.text(max_size=60).map(lambda t: t.replace("\n", "")),
    st.tuples(st.sampled_from(_GOOD), st.integers(0, 40)).map(lambda g: g[0][:g[1]]),
    st.integers(1, 2000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 900).map(lambda n: '{"type":"hello","name":"' + "x" * n + '"}'),
    st.just(""),
)


_LAST = '{"type":"ping","id":"last"}'


def _sans_io(lines: list[str], max_line: int) -> list[str]:
    """The error codes the protocol layer gives these lines over TCP, in order."""
    conn = ServerConnection(max_line=max_line)
    codes: list[str] = []
    for chunk in [b"".join(line.encode() + b"\n" for line in [*lines, _LAST]), b""]:
        conn.receive_data(chunk)
        while True:
            try:
                msg = conn.next_message()
            except ProtocolError as exc:
                codes.append(str(exc.code))
                if exc.fatal:
                    return codes
                continue
            if msg is None:
                break
            if isinstance(msg, Hello) and msg.token is None and msg.protocol in (None, 1):
                conn.accept_hello(msg.name)
    return codes


def _handshake() -> tuple[WSConnection, WSConnection]:
    """A client and a server WebSocket, the handshake done between them without I/O."""
    client, server = WSConnection(ConnectionType.CLIENT), WSConnection(ConnectionType.SERVER)
    server.receive_data(client.send(Request(host="fuzz", target="/ws")))
    assert any(isinstance(e, Request) for e in server.events())
    client.receive_data(server.send(AcceptConnection()))
    assert any(isinstance(e, AcceptConnection) for e in client.events())
    return client, server


def _streams(kind: str) -> tuple[trio.abc.Stream, trio.abc.Stream]:
    """The client's end and the server's: in memory, or a real socket pair (then the
    server's transport writes the frames straight to its socket)."""
    if kind == "memory":
        return trio.testing.memory_stream_pair()
    near, far = trio.socket.socketpair()
    return trio.SocketStream(near), trio.SocketStream(far)


def _websocket_session(config: ServerConfig, kind: str
                       ) -> tuple[Hub, WSConnection, trio.abc.Stream, Session]:
    """A hub with one WebSocket session over a stream pair of ``kind``, its handshake
    done: the hub, the client's end of the WebSocket and of the stream, the session."""
    hub = Hub(config)
    client_ws, server_ws = _handshake()
    near, far = _streams(kind)
    session = Session(WebSocketStream(far, server_ws), 1, "fuzz", config, hub, hub.flusher,
                      hub.keepalive)
    hub.connected(session)
    return hub, client_ws, near, session


async def _through_websocket(lines: list[str], cuts: list[int], max_line: int,
                             kind: str = "memory", pings: int = 0) -> tuple[list[str], int]:
    """The error codes the server answered, and how many pings it answered (in order)."""
    config = ServerConfig(max_line=max_line, rate_burst=10_000, ping_interval=10_000,
                          hello_timeout=10_000)
    hub, client_ws, near, session = _websocket_session(config, kind)
    codes: list[str] = []
    sent: list[bytes] = []
    pongs: list[bytes] = []
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            hub.start(nursery)
            nursery.start_soon(session.run)
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                for line in lines:
                    # One message, in as many frames as the cuts make of it.
                    points = sorted({c % (len(line) + 1) for c in cuts} | {0, len(line)})
                    parts = [line[a:b] for a, b in itertools.pairwise(points)]
                    for i, part in enumerate(parts or [""]):
                        await near.send_all(client_ws.send(TextMessage(
                            data=part, message_finished=i == max(0, len(parts) - 1))))
                        if len(sent) < pings:  # a ping between two frames of a message
                            sent.append(b"p%d" % len(sent))
                            await near.send_all(client_ws.send(Ping(payload=sent[-1])))
                # A last ping: its pong says every message before it was answered (a
                # client's close frame would drop the replies still to come).
                await near.send_all(client_ws.send(TextMessage(data=_LAST)))
            answered = False
            # A socket closed with our frames unread resets: its end, like a close.
            with contextlib.suppress(trio.BrokenResourceError):
                while not answered and (data := await near.receive_some(1 << 16)):
                    client_ws.receive_data(bytes(data))
                    for event in client_ws.events():
                        if isinstance(event, TextMessage):
                            msg = json.loads(event.data)
                            if msg["type"] == "error":
                                codes.append(msg["code"])
                            answered = answered or msg.get("id") == "last"
                        elif isinstance(event, Pong):
                            pongs.append(bytes(event.payload))
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await near.send_all(client_ws.send(CloseConnection(code=1000)))
            nursery.cancel_scope.cancel()
    # Every ping before the last message was answered, in order, if that message was.
    assert pongs == sent[:len(pongs)] and (not answered or len(pongs) == len(sent)), pongs
    return codes, len(pongs)


_LAYER = {"bad_json", "unknown_type", "hello_first", "line_too_long", "invalid_message"}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages, max_size=8), st.lists(st.integers(0, 3000), max_size=4),
       st.sampled_from([300, 65536]), st.sampled_from(["memory", "socket"]),
       st.integers(0, 3))
def test_websocket_messages_get_the_verdicts_of_tcp_lines(
        lines: list[str], cuts: list[int], max_line: int, kind: str, pings: int) -> None:
    expected = _sans_io(lines, max_line)
    got, _ = trio.run(_through_websocket, lines, cuts, max_line, kind, pings)
    assert [code for code in got if code in _LAYER] == [c for c in expected if c in _LAYER]


def test_pings_between_the_frames_of_a_message_are_answered_over_a_socket() -> None:
    # The pongs go out through the transport's own writes, between whole frames.
    message = '{"type":"ping","id":"mid"}'  # three frames, a ping after each
    codes, pongs = trio.run(_through_websocket, [message], [3, 9], 65536, "socket", 3)
    assert codes == [] and pongs == 3


async def _garbage(data: bytes, kind: str) -> int | None:
    """Send ``data`` after the handshake, in place of frames; the close code the server
    ends with (None if it did not close), with a bystander's session unhurt."""
    config = ServerConfig(rate_burst=10_000, ping_interval=10_000, hello_timeout=10_000)
    hub, client_ws, near, session = _websocket_session(config, kind)
    closed: int | None = None
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            hub.start(nursery)
            nursery.start_soon(session.run)
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await near.send_all(data)
                await near.send_all(client_ws.send(TextMessage(data='{"type":"help"}')))
            with trio.move_on_after(2):  # a frame left unfinished just waits for the rest
                while closed is None and (got := await near.receive_some(1 << 16)):
                    client_ws.receive_data(bytes(got))
                    for event in client_ws.events():
                        if isinstance(event, CloseConnection):
                            closed = event.code
            nursery.cancel_scope.cancel()
    return closed


class _Failures(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(min_size=1, max_size=64),
                 # A frame head of any opcode and flags, masked or not, then bytes.
                 st.tuples(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=40))
                 .map(lambda g: bytes([g[0], g[1]]) + g[2])),
       st.sampled_from(["memory", "socket"]))
def test_random_bytes_for_frames_end_in_a_close_frame_not_an_exception(
        data: bytes, kind: str) -> None:
    failures = _Failures()
    logger = logging.getLogger("jackal.server")
    logger.addHandler(failures)
    try:
        code = trio.run(_garbage, data, kind)
    finally:
        logger.removeHandler(failures)
    assert not failures.records, [r.getMessage() for r in failures.records]
    # Broken framing closes with its reason; a valid frame (the odd random one is) or an
    # unfinished one leaves the connection open or closes it normally.
    assert code in (None, 1000, 1002, 1007, 1009), code


@given(st.one_of(st.text(max_size=200), st.integers(120, 70000).map(lambda n: "é" * (n // 2))))
@settings(max_examples=60, deadline=None)
def test_a_line_is_framed_as_wsproto_frames_it_and_read_back_whole(text: str) -> None:
    # Lengths across the 7-bit, 16-bit and 64-bit size forms; the frame is what wsproto
    # would make of the same text, and a client reads the line back from it.
    line = text.encode()
    client, server = _handshake()
    frame = text_frame(line)
    assert frame == server.send(TextMessage(data=text))
    client.receive_data(frame)
    got = "".join(event.data for event in client.events() if isinstance(event, TextMessage))
    assert got == text
