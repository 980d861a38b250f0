"""Hostile messages over the WebSocket get the verdicts the sans-IO protocol gives the same
lines over TCP: the real WebSocketStream and Session, over an in-memory stream, with each
message cut into random continuation frames (hypothesis)."""

from __future__ import annotations

import contextlib
import itertools
import json

import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jackal.protocol import ProtocolError, ServerConnection
from jackal.protocol.requests import Hello
from jackal.server.config import ServerConfig
from jackal.server.hub import Hub
from jackal.server.net.session import Session
from jackal.server.web.wsstream import WebSocketStream
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Request, TextMessage

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


async def _through_websocket(lines: list[str], cuts: list[int], max_line: int) -> list[str]:
    config = ServerConfig(max_line=max_line, rate_burst=10_000, ping_interval=10_000,
                          hello_timeout=10_000)
    hub = Hub(config)
    client_ws, server_ws = _handshake()
    near, far = trio.testing.memory_stream_pair()
    session = Session(WebSocketStream(far, server_ws), 1, "fuzz", config, hub, hub.flusher,
                      hub.keepalive)
    hub.connected(session)
    codes: list[str] = []
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
                # A last ping: its pong says every message before it was answered (a
                # client's close frame would drop the replies still to come).
                await near.send_all(client_ws.send(TextMessage(data=_LAST)))
            answered = False
            while not answered and (data := await near.receive_some(1 << 16)):
                client_ws.receive_data(bytes(data))
                for event in client_ws.events():
                    if isinstance(event, TextMessage):
                        msg = json.loads(event.data)
                        if msg["type"] == "error":
                            codes.append(msg["code"])
                        answered = answered or msg.get("id") == "last"
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await near.send_all(client_ws.send(CloseConnection(code=1000)))
            nursery.cancel_scope.cancel()
    return codes


_LAYER = {"bad_json", "unknown_type", "hello_first", "line_too_long", "invalid_message"}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages, max_size=8), st.lists(st.integers(0, 3000), max_size=4),
       st.sampled_from([300, 65536]))
def test_websocket_messages_get_the_verdicts_of_tcp_lines(
        lines: list[str], cuts: list[int], max_line: int) -> None:
    expected = _sans_io(lines, max_line)
    got = trio.run(_through_websocket, lines, cuts, max_line)
    assert [code for code in got if code in _LAYER] == [c for c in expected if c in _LAYER]
