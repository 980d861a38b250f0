"""Limits that stop one client from pinning memory, burning CPU or taking every connection
(issue 12 items 3-5). Real server, real sockets on port 0, small configured limits.
"""

from __future__ import annotations

import logging

import pytest
import trio
import trio.testing
from jackal.protocol.codec import encode
from jackal.protocol.errors import ProtocolError
from jackal.protocol.framing import LineBuffer
from jackal.protocol.help import help_reply
from jackal.server.config import ServerConfig
from support.client import Msg, RawClient, connect_from
from support.server import QUIET, running_server


async def first_message(client: RawClient) -> Msg:
    return await client.recv()


# --------------------------------------------------------------------------- memory


async def spam_until_dropped(client: RawClient, line: bytes) -> None:
    """Send ``line`` over and over without reading, until the server hangs up."""
    with trio.fail_after(30):
        try:
            while True:
                await client.send_raw(line * 200)
                await trio.sleep(0)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass


@pytest.mark.parametrize("hello", [False, True])
async def test_a_client_that_asks_and_never_reads_is_dropped_at_its_byte_bound(
        caplog: pytest.LogCaptureFixture, hello: bool) -> None:
    """Before hello (``help``) and after it in a lobby (``list_tables``): whatever a client
    asks for, what the server holds for it never passes ``send_buffer``."""
    config = ServerConfig(send_buffer=32 * 1024, rate_per_second=1e6, rate_burst=1e6,
                          lobby_page=20, **QUIET)
    async with running_server(config) as port:
        lobby = await RawClient.connect(port, "lobby")
        await lobby.hello()
        for number in range(20):
            await lobby.request(type="create_table", name=f"table number {number}")
        hog = await connect_from(port, "127.0.0.1", rcvbuf=4096)
        line = b'{"type":"help"}\n'
        if hello:
            await hog.send_raw(b'{"type":"hello","name":"hog"}\n')
            line = b'{"type":"list_tables"}\n'
        with caplog.at_level(logging.WARNING, logger="jackal.server"):
            await spam_until_dropped(hog, line)
            with trio.fail_after(10):
                while not any("not reading" in r.getMessage() for r in caplog.records):
                    await trio.sleep(0.01)
        assert (await lobby.request(type="ping"))["type"] == "pong"


async def test_the_lobby_comes_in_pages() -> None:
    config = ServerConfig(lobby_page=3, **QUIET)
    async with running_server(config) as port:
        client = await RawClient.connect(port, "pager")
        await client.hello()
        made = [(await client.request(type="create_table", name=f"n{n}"))["table"]
                for n in range(7)]
        first = await client.request(type="list_tables")
        assert [t["table"] for t in first["tables"]] == made[:3]
        assert first["total"] == 7 and first["next"] == 3
        second = await client.request(type="list_tables", offset=first["next"])
        assert [t["table"] for t in second["tables"]] == made[3:6] and second["next"] == 6
        last = await client.request(type="list_tables", offset=6)
        assert [t["table"] for t in last["tables"]] == made[6:] and "next" not in last
        beyond = await client.request(type="list_tables", offset=50)
        assert beyond["tables"] == [] and beyond["total"] == 7 and "next" not in beyond


async def test_big_replies_cost_more_of_the_rate_limit() -> None:
    """A request costs a token, and one more per whole KiB of its reply: ``help`` (over
    2 KiB) costs three or more, so a burst worth ten helps answers ten, not more."""
    per_help = 1 + len(encode(help_reply())) // 1024
    assert per_help >= 3
    config = ServerConfig(rate_per_second=0.001, rate_burst=10 * per_help, flood_limit=1000,
                          **QUIET)
    async with running_server(config) as port:
        client = await RawClient.connect(port, "asker")
        await client.send_raw(b'{"type":"help"}\n' * 20)
        got = [await client.recv() for _ in range(20)]
        kinds = [m["type"] if m["type"] != "error" else m["code"] for m in got]
        assert kinds.count("help") == 10 and kinds.count("rate_limited") == 10, kinds


# --------------------------------------------------------------------------- floods


async def test_blank_lines_count_toward_flood_control(caplog: pytest.LogCaptureFixture) -> None:
    config = ServerConfig(rate_per_second=10, rate_burst=10, flood_limit=20, **QUIET)
    async with running_server(config) as port:
        flooder = await RawClient.connect(port, "flooder")
        with caplog.at_level(logging.WARNING, logger="jackal.server"):
            # Small enough to arrive in one read: the server closes having read it all,
            # so its last word is not lost to a reset.
            await flooder.send_raw(b"\n" * 2000)
            got = await flooder.eof()
        assert got and got[-1]["code"] == "rate_limited", got[-3:]
        assert len(got) < 10  # refusals of blank lines are summed up, not one per line
        assert any("flooding, closed" in r.getMessage() for r in caplog.records)


async def test_a_few_blank_lines_are_fine() -> None:
    async with running_server(ServerConfig(**QUIET)) as port:
        client = await RawClient.connect(port, "keepalive")
        for _ in range(5):
            await client.send_raw(b"\n\r\n  \n")
        assert (await client.request(type="ping"))["type"] == "pong"


# --------------------------------------------------------------------------- addresses


async def test_one_address_cannot_take_every_connection() -> None:
    config = ServerConfig(max_per_address=3, **QUIET)
    async with running_server(config) as port:
        held = [await connect_from(port, "127.0.0.1") for _ in range(3)]
        for client in held:
            assert (await first_message(client))["type"] == "welcome"
        extra = await connect_from(port, "127.0.0.1")
        refused = await extra.eof()
        assert [m.get("code") for m in refused] == ["server_full"], refused
        other = await connect_from(port, "127.0.0.2")
        assert (await first_message(other))["type"] == "welcome"
        await held[0].aclose()
        with trio.fail_after(10):
            while True:  # the freed place is given back once the server saw the close
                again = await connect_from(port, "127.0.0.1")
                if (await first_message(again))["type"] == "welcome":
                    break
                await trio.sleep(0.05)


async def test_wrong_passwords_are_throttled_per_address(
        bot_clock: trio.testing.MockClock) -> None:  # noqa: ARG001  (its clock drives the test)
    config = ServerConfig(password="sesame", password_guesses_per_minute=1,
                          password_guess_burst=2, **QUIET)
    async with running_server(config) as port:
        answers = []
        for _ in range(2):  # a new connection for each guess does not help
            guesser = await connect_from(port, "127.0.0.1")
            await guesser.recv()
            reply = await guesser.request(type="hello", name="g", password="wrong")
            answers.append(reply.get("code"))
        assert answers == ["bad_password", "bad_password"]
        guesser = await connect_from(port, "127.0.0.1")
        await guesser.recv()
        # Throttled: not even the right password is checked now.
        reply = await guesser.request(type="hello", name="g", password="sesame")
        assert reply["code"] == "rate_limited" and reply["retry_after"] > 0
        elsewhere = await connect_from(port, "127.0.0.2")
        await elsewhere.recv()
        assert (await elsewhere.request(type="hello", name="e", password="sesame")
                )["type"] == "hello_ok"
        await trio.sleep(reply["retry_after"])
        assert (await guesser.request(type="hello", name="g", password="sesame")
                )["type"] == "hello_ok"


def test_the_line_buffer_counts_blank_lines_for_the_rate_limit() -> None:
    buffer = LineBuffer(max_line=10)
    assert buffer.feed(b"\n" * 65536) == [] and buffer.blank_lines == 65536
    assert buffer.feed(b' \r\n{"a":1}\n\n') == [b'{"a":1}'] and buffer.blank_lines == 65538
    with pytest.raises(ProtocolError):  # whitespace is no way around the line cap either
        buffer.feed(b"\n" + b" " * 20)
