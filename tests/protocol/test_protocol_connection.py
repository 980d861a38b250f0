"""ServerConnection and ClientConnection joined by a fake link, h11 style."""

from __future__ import annotations

import subprocess
import sys

import pytest
from jackal.protocol import (
    ClientConnection,
    ConnState,
    ErrorCode,
    ProtocolError,
    RemoteProtocolError,
    ServerConnection,
)
from jackal.protocol.errors import LocalProtocolError
from jackal.protocol.messages import PROTOCOL_VERSION, Error, HelloOk, ServerPong, Welcome
from jackal.protocol.requests import Hello, Help, Join, Ping, Pong, Ready
from jackal.protocol.state import ANY_MESSAGE, TRANSITIONS, Move, Refusal, Role


def _drain(conn: ServerConnection) -> list[object]:
    """Every message or error the connection has ready, in order."""
    out: list[object] = []
    while True:
        try:
            msg = conn.next_message()
        except ProtocolError as exc:
            out.append(exc)
            if exc.fatal:
                return out
            continue
        if msg is None:
            return out
        out.append(msg)


def test_hello_first_rule() -> None:
    server = ServerConnection()
    client = ClientConnection()
    assert server.state is ConnState.AWAIT_HELLO and not server.hello_done
    for msg in (Help(id=1), Ping(id=2), Join(table="t1", id=3), Pong(), Ready(id="r")):
        server.receive_data(client.send(msg))
    got = _drain(server)
    # help, ping and pong pass before hello (docs/PROTOCOL.md, "The life of a connection").
    assert [got[0], got[1], got[3]] == [Help(id=1), Ping(id=2), Pong()]
    errors = [got[2], got[4]]
    assert all(isinstance(e, RemoteProtocolError) and e.code is ErrorCode.HELLO_FIRST
               and not e.fatal for e in errors)
    assert [e.id for e in errors if isinstance(e, ProtocolError)] == [3, "r"]

    # A hello is handed over but only counts once the server accepts it.
    server.receive_data(client.send(Hello(name="bob", password="wrong")))
    server.receive_data(client.send(Join(table="t1")))
    assert server.next_message() == Hello(name="bob", password="wrong")
    with pytest.raises(ProtocolError):
        server.next_message()  # refused hello: still hello_first
    server.receive_data(client.send(Hello(name="bob")))
    assert isinstance(server.next_message(), Hello)
    server.accept_hello("bob")
    assert server.hello_done and server.name == "bob" and server.state is ConnState.OPEN
    server.receive_data(client.send(Join(table="t1", seat="S")))
    assert server.next_message() == Join(table="t1", seat="S")
    assert server.next_message() is None

    # A second hello is the peer's mistake; accepting one twice would be ours.
    server.receive_data(client.send(Hello(name="again", id=9)))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_message()
    assert info.value.code is ErrorCode.NOT_ALLOWED and info.value.id == 9
    with pytest.raises(LocalProtocolError):
        server.accept_hello("bob")


def test_every_state_is_in_the_table_and_closed_is_final() -> None:
    for role, states in TRANSITIONS.items():
        assert states[ConnState.CLOSED] == {}, role
        for state, triggers in states.items():
            if state is not ConnState.CLOSED:
                assert triggers.get(Move.CLOSE) is ConnState.CLOSED, (role, state)
            if state in (ConnState.AWAIT_HELLO, ConnState.AWAIT_WELCOME, ConnState.OPEN):
                assert ANY_MESSAGE in triggers, (role, state)
    assert isinstance(TRANSITIONS[Role.SERVER][ConnState.AWAIT_HELLO][ANY_MESSAGE], Refusal)


def test_closed_connection_refuses_our_sends() -> None:
    server = ServerConnection()
    server.close()
    server.close()  # idempotent
    with pytest.raises(LocalProtocolError):
        server.send(ServerPong())
    client = ClientConnection()
    client.close()
    with pytest.raises(LocalProtocolError):
        client.send(Ping())


def test_bad_lines_do_not_stop_the_stream() -> None:
    server = ServerConnection()
    server.receive_data(b'{"type":"hello","name":"a"}\nnot json\n{"type":"x","id":4}\n')
    server.receive_data(b'{"type":"ping","id":5}\n')
    got = _drain(server)
    assert isinstance(got[0], Hello)
    assert isinstance(got[1], ProtocolError) and got[1].code is ErrorCode.BAD_JSON
    assert isinstance(got[2], ProtocolError) and got[2].code is ErrorCode.UNKNOWN_TYPE
    assert got[2].id == 4
    assert got[3] == Ping(id=5)


def test_overflow_is_fatal_after_earlier_lines() -> None:
    # The good lines before an over-long one, in the same chunk, are handed out (and so
    # answered) first; then line_too_long, and the connection must close.
    server = ServerConnection(max_line=100)
    server.receive_data(b'{"type":"ping","id":1}\n{"type":"help"}\n' + b"[" * 150)
    got = _drain(server)
    assert got[:2] == [Ping(id=1), Help()]
    fatal = got[2]
    assert isinstance(fatal, RemoteProtocolError) and fatal.code is ErrorCode.LINE_TOO_LONG
    assert fatal.fatal and server.state is ConnState.MUST_CLOSE
    assert server.pending == 0
    server.receive_data(b'{"type":"ping"}\n')  # ignored from now on
    assert server.next_message() is None
    reply = server.send_error(fatal)
    assert b'"code":"line_too_long"' in reply
    assert server.state.name == "CLOSED"  # (by name: mypy still sees MUST_CLOSE here)


def test_ten_megabyte_line_is_refused_without_buffering_it() -> None:
    server = ServerConnection()
    for _ in range(10 * 1024 // 64):  # 10 MiB in 64 KiB chunks, no newline
        server.receive_data(b"a" * 65536)
        assert server.pending <= 65536
    with pytest.raises(RemoteProtocolError) as info:
        server.next_message()
    assert info.value.code is ErrorCode.LINE_TOO_LONG


def test_eof_delivers_the_last_line_and_is_reported() -> None:
    server = ServerConnection()
    server.receive_data(b'{"type":"help"}')
    assert server.next_message() is None
    server.receive_data(b"")
    assert server.peer_closed
    assert server.next_message() == Help()
    assert server.next_message() is None


def test_fatal_send_error_closes() -> None:
    server = ServerConnection()
    data = server.send_error(ProtocolError(ErrorCode.RATE_LIMITED, "flood", fatal=True))
    assert data.startswith(b'{"type":"error"') and server.state is ConnState.CLOSED
    server.receive_data(b'{"type":"help"}\n')
    assert server.next_message() is None


def test_client_side_decodes_server_lines_in_chunks() -> None:
    server = ServerConnection()
    client = ClientConnection()
    stream = b"".join([
        server.send(Welcome(protocol=PROTOCOL_VERSION, server="jackal", version="0.1",
                            hint='send {"type":"help"}')),
        server.send(HelloOk(name="ann", id=1)),
        server.send(ServerPong(id="p")),
        server.send_error(ProtocolError(ErrorCode.NOT_SEATED, "sit first", id=2)),
    ])
    got = []
    for i in range(0, len(stream), 7):
        client.receive_data(stream[i:i + 7])
        while (msg := client.next_message()) is not None:
            got.append(msg)
    assert isinstance(got[0], Welcome) and client.welcome == got[0]
    assert got[1:] == [HelloOk(name="ann", id=1), ServerPong(id="p"),
                       Error(code=ErrorCode.NOT_SEATED, message="sit first", id=2)]
    client.receive_data(b"garbage\n")
    with pytest.raises(ProtocolError):
        client.next_message()
    client.receive_data(b"")
    assert client.peer_closed and client.next_message() is None


@pytest.mark.subprocess
def test_protocol_package_never_imports_trio() -> None:
    code = ("import sys, jackal.protocol, jackal.protocol.help, jackal.protocol.schema; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "{'trio', 'prompt_toolkit', 'asyncio'}); print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
