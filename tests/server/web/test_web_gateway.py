"""jackal serve --web: the page's files with their security headers, and the protocol over
a real WebSocket (/ws, wsproto on trio, port 0): a whole deal against three bots, the same
errors and limits as TCP, and an Origin check; the page's own script playing a deal (run
by Node). The server runs in-process; each test takes a second or two."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from contextlib import AbstractAsyncContextManager
from importlib import resources
from pathlib import Path
from typing import Any, cast

import h11
import pytest
import trio
from jackal.server.config import ServerConfig
from jackal.server.net.listener import serve
from jackal.server.web import gateway
from support.client import RawClient, greeted, play_out
from support.leaks import check_no_leaks
from support.server import ServerProcess, running_web_server
from support.wsclient import Refused, WsLines, ws_client
from wsproto.events import BytesMessage, TextMessage

#: Runs the page's script in Node against a server (test_the_page_plays_a_deal...).
HARNESS = Path(__file__).with_name("page_harness.mjs")


def web_server(**settings: object) -> AbstractAsyncContextManager[tuple[int, int]]:
    """A real server with its web port, both on free ports: ``(tcp, web)``."""
    config = ServerConfig(port=0, web_port=0, **settings)  # type: ignore[arg-type]
    return running_web_server(config)


async def http_get(port: int, target: str, method: str = "GET"
                   ) -> tuple[int, dict[bytes, bytes], bytes]:
    """One request over a fresh connection: status, headers (lower-case names), body."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = h11.Connection(h11.CLIENT)
    await stream.send_all(conn.send(h11.Request(method=method, target=target, headers=[
        (b"host", f"127.0.0.1:{port}".encode())])) + (conn.send(h11.EndOfMessage()) or b""))
    status, headers, body = 0, {}, b""
    with trio.fail_after(10):
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(await stream.receive_some(65536))
            elif isinstance(event, h11.Response):
                status, headers = event.status_code, dict(event.headers)
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                break
    await stream.aclose()
    return status, headers, body


async def test_the_page_is_served_with_a_strict_policy() -> None:
    async with web_server() as (_, web):
        status, headers, page = await http_get(web, "/")
        assert status == 200 and headers[b"content-type"].startswith(b"text/html")
        policy = headers[b"content-security-policy"].decode()
        assert "default-src 'self'" in policy and "connect-src 'self'" in policy
        assert "unsafe-inline" not in policy and b"set-cookie" not in headers
        assert headers[b"x-content-type-options"] == b"nosniff"
        # The page's code comes from its own files: no inline script, nothing from elsewhere.
        assert b'<script type="module" src="/app.js"></script>' in page
        assert page.count(b"<script") == 1 and b"http" not in page.replace(b"http-equiv", b"")
        status, headers, script = await http_get(web, "/app.js")
        assert status == 200 and headers[b"content-type"].startswith(b"text/javascript")
        assert script and b"innerHTML" not in script
        # Every module the page imports is served the same way, and none writes HTML.
        reached, todo = {"app.js"}, [script]
        while todo:
            for module in re.findall(rb'from "\./([\w-]+\.js)"', todo.pop()):
                if module.decode() in reached:
                    continue
                reached.add(module.decode())
                status, headers, code = await http_get(web, "/" + module.decode())
                assert status == 200
                assert headers[b"content-type"].startswith(b"text/javascript")
                assert b"innerHTML" not in code and b"outerHTML" not in code
                assert b"insertAdjacentHTML" not in code and b"document.write" not in code
                todo.append(code)
        static = resources.files("jackal.server.web").joinpath("static")
        assert reached == {f.name for f in static.iterdir() if f.name.endswith(".js")}
        assert (await http_get(web, "/favicon.svg"))[1][b"content-type"] == b"image/svg+xml"
        assert (await http_get(web, "/../pyproject.toml"))[0] == 404
        assert (await http_get(web, "/nothing"))[0] == 404
        assert (await http_get(web, "/", "POST"))[0] == 405
        assert (await http_get(web, "/ws"))[0] == 426  # not an upgrade


async def test_a_whole_deal_through_the_websocket() -> None:
    async with web_server(bot_floor_seconds=0.0, bot_pause_seconds=0.0) as (_, web):
        player = await ws_client(web, "wendy")
        await player.hello()
        table = (await player.request(type="create_table", name="web", target=1, seed=7)
                 )["table"]
        await player.join(table, "S")
        for seat in "NEW":
            assert (await player.request(type="add_bot", table=table, seat=seat)
                    )["type"] == "ok"
        await player.request(type="ready")
        await play_out(player, lambda m: m["type"] == "deal_ended")
        plays = [m for m in player.log if m["type"] == "played"]
        assert len(plays) == 32 and {m["seat"] for m in plays} == set("NESW")
        # The browser's seat sees what a TCP seat sees: nothing of another hand.
        seed = next(m for m in player.log if m["type"] == "table_created").get("seed", 7)
        assert check_no_leaks(player.log, "S", seed) > 32


async def test_bad_input_gets_the_errors_tcp_gets_and_hurts_nobody_else() -> None:
    async with web_server(max_line=4096) as (tcp, web):
        bystander = await greeted(tcp, "tessa")
        lines = await WsLines.open(web)
        client = RawClient(lines, "wes")  # type: ignore[arg-type]
        await client.expect("welcome")
        await lines.send_event(TextMessage(data='{"type": "hello", '))
        assert (await client.expect("error"))["code"] == "bad_json"
        # A newline inside a frame is whitespace in JSON, as over TCP: still one message.
        await lines.send_event(TextMessage(data='{"type":\n"ping","id":1}'))
        assert (await client.expect("pong"))["id"] == 1
        await lines.send_event(BytesMessage(data=b'{"type":"ping"}'))
        assert (await client.expect("error"))["code"] == "bad_json"  # text frames only
        await lines.send_event(TextMessage(data=json.dumps(
            {"type": "hello", "name": "x" * 8000})))
        assert (await client.expect("error"))["code"] == "line_too_long"
        await client.eof()
        assert lines.close_code == 1000
        assert (await bystander.request(type="ping"))["type"] == "pong"


async def test_the_websocket_takes_only_the_page_s_origin() -> None:
    async with web_server() as (_, web):
        for origin in ("http://evil.example", f"http://localhost:{web}", None):
            with pytest.raises(Refused) as refused:
                await WsLines.open(web, origin)
            assert refused.value.status == 403
        assert (await (await ws_client(web)).request(type="ping"))["type"] == "pong"


async def test_websockets_count_with_tcp_in_the_address_s_share() -> None:
    async with web_server(max_per_address=2) as (tcp, web):
        held = [await greeted(tcp, "t"), await ws_client(web)]
        third = await WsLines.open(web)
        refused = RawClient(third, "w3")  # type: ignore[arg-type]
        assert (await refused.expect("error"))["code"] == "server_full"
        await refused.eof()
        assert (await held[1].request(type="ping"))["type"] == "pong"


async def test_a_dropped_websocket_reclaims_its_seat_with_its_token() -> None:
    async with web_server(bot_floor_seconds=0.0, bot_pause_seconds=0.0) as (_, web):
        player = await ws_client(web, "rita")
        await player.hello()
        table = (await player.request(type="create_table", name="back"))["table"]
        await player.join(table, "S")
        token = player.token
        await player.aclose()  # the phone lost its network
        again = await ws_client(web, "rita")
        reply = await again.request(type="hello", name="rita", token=token)
        assert (reply["type"], reply.get("table"), reply.get("seat")) == ("hello_ok", table, "S")
        assert (await again.wait_type("table_state"))["you"] == "S"


async def test_a_stopping_server_says_goodbye_over_the_websocket() -> None:
    async with web_server() as (_tcp, web):
        lines = await WsLines.open(web)
        client = RawClient(lines, "s")  # type: ignore[arg-type]
        await client.expect("welcome")
    # The server has stopped (the block's end cancels it).
    with trio.fail_after(10):
        got = await client.eof()
    assert [m["type"] for m in got] == ["server_shutdown"] and lines.close_code == 1000


async def test_a_websocket_that_stops_reading_is_dropped_after_whole_frames(
        caplog: pytest.LogCaptureFixture) -> None:
    # The transport writes a WebSocket's frames itself: a reader it drops still gets
    # whole frames (wsproto would close 1002 on a cut one), the reason, and a close frame.
    config = {"send_buffer": 4096, "rate_per_second": 1e6, "rate_burst": 1e6}
    async with web_server(**config) as (tcp, web):
        bystander = await greeted(tcp, "bo")
        lines = await WsLines.open(web)
        hog = RawClient(lines, "hog")  # type: ignore[arg-type]
        await hog.expect("welcome")
        await hog.hello()
        # Read in one go, these ask for more replies than the queue holds at once.
        await lines.sock.send_all(b"".join(
            lines.ws.send(TextMessage(data='{"type":"help"}')) for _ in range(50)))
        with trio.fail_after(10):
            while not any("not reading" in r.getMessage() for r in caplog.records):
                await trio.sleep(0.01)
        got = await hog.eof()
        assert got[-1]["type"] == "error" and got[-1]["code"] == "slow_reader", got[-1]
        assert all(m["type"] == "help" for m in got[:-1]) and lines.close_code == 1000
        assert (await bystander.request(type="ping"))["type"] == "pong"


async def test_requests_held_open_are_capped_per_address() -> None:
    async with web_server() as (_, web):
        idle = [await trio.open_tcp_stream("127.0.0.1", web)
                for _ in range(gateway.MAX_PENDING_PER_GROUP)]
        for stream in idle:
            await stream.send_all(b"GET / HTTP/1.1\r\n")  # and never the rest
        extra = await trio.open_tcp_stream("127.0.0.1", web)
        with trio.fail_after(10):
            assert await extra.receive_some(100) == b""  # closed at once, nothing read
        for stream in idle:
            await stream.aclose()
        # Served again once the server has seen them go (it may take a moment to).
        with trio.fail_after(10):
            while True:
                try:
                    if (await http_get(web, "/style.css"))[0] == 200:
                        break
                except (trio.BrokenResourceError, h11.RemoteProtocolError):
                    pass
                await trio.sleep(0.01)


def _node_with_websocket() -> str | None:
    node = shutil.which("node")
    if node is None:
        return None
    probe = subprocess.run([node, "--experimental-websocket", "-e",
                            "process.exit(typeof WebSocket === 'function' ? 0 : 1)"],
                           capture_output=True, check=False)
    return node if probe.returncode == 0 else None


def _page(node: str, web: int, name: str, mode: str, *extra: str) -> list[str]:
    """The command line that runs the page's script (by page_harness.mjs) in ``mode``."""
    app = resources.files("jackal.server.web").joinpath("static", "app.js")
    return [node, "--experimental-websocket", "--no-warnings", str(HARNESS), str(app),
            str(web), name, mode, *extra]


def _last(out: bytes) -> dict[str, Any]:
    """The last line the page printed: what it showed at the end."""
    return cast(dict[str, Any], json.loads(out.decode().strip().splitlines()[-1]))


@pytest.mark.subprocess
@pytest.mark.parametrize("mode", ["solo", "drop"])
async def test_the_page_plays_a_deal_against_three_bots(mode: str) -> None:
    # The page's own script, run by Node with a stand-in for the DOM (not a browser: the
    # layout and the real DOM are for the browser tests), against a real server.
    node = _node_with_websocket()
    if node is None:
        pytest.skip("needs Node with a WebSocket (20.10+)")
    # The dropping page's server has a password: asked for it once, the page keeps it
    # (in memory) for its reconnect.
    password = "sesame" if mode == "drop" else None
    async with web_server(bot_floor_seconds=0.0, bot_pause_seconds=0.0, hints=True,
                          password=password) as (_, web):
        command = _page(node, web, "pia", mode, *([password] if password else []))
        with trio.fail_after(60):
            done = await trio.run_process(command, capture_stdout=True, capture_stderr=True,
                                          check=False)
    assert done.returncode == 0, (done.stdout, done.stderr)
    result = _last(done.stdout)
    assert result["rows"] == [8, 8, 8, 8] and result["taps"] >= 8 and result["token"]
    # Target 1: the first deal ends the match, and the page offers a rematch.
    assert (result["status"], result["you"], result["rematch"]) == ("over", "S", True)
    summary = str(result["summary"])
    assert "Deal 1" in summary and "penalty" in summary and "information cost" in summary
    assert "Dealt hands" in summary and "best:" in summary
    assert str(result["score"]).startswith("NS ") and "to 1" in str(result["score"])
    # Every played card shows its meaning, as the server explains it.
    meanings = result["meanings"]
    assert isinstance(meanings, list) and len(meanings) == 32 and all(meanings)
    # After a drop the page came back on a second connection and reclaimed its seat.
    assert result["sockets"] == (2 if mode == "drop" else 1)
    # It took a hint on its first turn and played the card the hint named.
    assert re.fullmatch(r"[2-9TJQKA][SHDC]", str(result["hint"]))
    assert "The expert bot would play" in str(result["hintText"])
    # Its question about an opponent's card got the bot's answer; its chat was closed
    # while the deal was played (partners talk only through their cards).
    assert any(line.startswith(("E answers", "W answers")) for line in result["log"])
    assert "You asked" in str(result["questions"]) and result["chatClosed"] is True


@pytest.mark.subprocess
async def test_a_friend_joins_by_the_invitation_link_chats_and_answers_a_question(
        tmp_path: Path) -> None:
    # One page creates a private table (bots at N and W) and shows the link of E; a second
    # page opens that link, sits at E, reads the host's chat line (as text: the markup in
    # it stays text) and says ready; both play the deal through, the host asking E about
    # a card and the friend answering in the page.
    node = _node_with_websocket()
    if node is None:
        pytest.skip("needs Node with a WebSocket (20.10+)")
    async with web_server(bot_floor_seconds=0.0, bot_pause_seconds=0.0) as (_, web):
        with trio.fail_after(60):
            with (tmp_path / "host.out").open("wb") as out:
                proc = await trio.lowlevel.open_process(
                    _page(node, web, "hana", "host"), stdout=out, stderr=subprocess.DEVNULL)
            try:
                while b"\n" not in (first := (tmp_path / "host.out").read_bytes()):
                    await trio.sleep(0.02)
                link = str(json.loads(first.partition(b"\n")[0])["link"])
                assert re.fullmatch(rf"http://127\.0\.0\.1:{web}/#join/t\d+/E/[\w%-]+", link)
                guest = await trio.run_process(_page(node, web, "gus", "guest", link),
                                               capture_stdout=True, capture_stderr=True,
                                               check=False)
                assert await proc.wait() == 0
            finally:
                proc.kill()
    rest = (tmp_path / "host.out").read_bytes()
    assert guest.returncode == 0, (guest.stdout, guest.stderr)
    seen_by_host, seen_by_guest = _last(rest), _last(guest.stdout)
    assert (seen_by_host["you"], seen_by_guest["you"]) == ("S", "E")
    assert seen_by_host["rows"] == seen_by_guest["rows"] == [8, 8, 8, 8]
    assert seen_by_guest["chat"] == ["hana (S): hello <b>east</b>"]
    assert seen_by_host["summary"] == seen_by_guest["summary"]
    # The question went to the friend, whose answer came back to the host alone; the
    # summary shows both to everyone once the deal is over.
    assert seen_by_guest["answered"] == 1
    assert 'E answers "what does it say?": a pair of them' in seen_by_host["log"]
    assert ": what does it say? \u2014 a pair of them" in str(seen_by_guest["summary"])


@pytest.mark.subprocess
async def test_jackal_serve_web_logs_the_page_s_address(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, "--web", "0", "--quiet", records=False)
    try:
        with trio.fail_after(30):
            while not (found := re.search(r"web page on http://127\.0\.0\.1:(\d+)/",
                                          server.log())):
                await trio.sleep(0.05)
        status, headers, _ = await http_get(int(found[1]), "/")
        assert status == 200 and b"content-security-policy" in headers
    finally:
        assert server.stop() == 0


async def _raw_status(port: int, request: bytes) -> bytes:
    """The status line the web port answers ``request`` (raw bytes) with."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(request)
    answer = b""
    with trio.fail_after(10):
        while b"\r\n" not in answer and (data := await stream.receive_some(4096)):
            answer += data
    await stream.aclose()
    return answer.partition(b"\r\n")[0]


async def test_broken_requests_get_400_and_the_port_serves_on() -> None:
    async with web_server() as (_, web):
        host = f"127.0.0.1:{web}".encode()
        no_key = (b"GET /ws HTTP/1.1\r\nHost: " + host + b"\r\nUpgrade: websocket\r\n"
                  b"Connection: Upgrade\r\nOrigin: http://" + host + b"\r\n\r\n")
        assert await _raw_status(web, no_key) == b"HTTP/1.1 400 "
        assert await _raw_status(web, b"NOT HTTP AT ALL\r\n\r\n") == b"HTTP/1.1 400 "
        assert await _raw_status(web, b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 4000
                                 ) == b"HTTP/1.1 400 "  # headers past 16 KiB
        assert (await http_get(web, "/"))[0] == 200


async def test_a_browser_seat_and_a_terminal_seat_share_a_table() -> None:
    # One person over TCP, one over the WebSocket, two bots: the same deal, the same
    # public events in the same order, and neither sees a card of another hand.
    async with web_server(bot_floor_seconds=0.0, bot_pause_seconds=0.0) as (tcp, web):
        host = await greeted(tcp, "terry")
        table = (await host.request(type="create_table", name="mixed", seed=11, target=1)
                 )["table"]
        await host.join(table, "N")
        browser = await ws_client(web, "bea")
        await browser.hello()
        await browser.join(table, "S")
        for seat in "EW":
            await host.request(type="add_bot", table=table, seat=seat)
        for player in (host, browser):
            await player.request(type="ready")
        async with trio.open_nursery() as nursery:
            for player in (host, browser):
                nursery.start_soon(play_out, player, lambda m: m["type"] == "deal_ended")

        def public(log: list[dict[str, object]]) -> list[tuple[object, ...]]:
            return [(m["seat"], m["card"]) for m in log if m["type"] == "played"]
        assert len(public(browser.log)) == 32 and public(browser.log) == public(host.log)
        assert check_no_leaks(host.log, "N", 11) and check_no_leaks(browser.log, "S", 11)


async def test_a_frame_that_breaks_the_websocket_protocol_closes_with_its_code() -> None:
    async with web_server() as (_, web):
        lines = await WsLines.open(web)
        client = RawClient(lines, "u")  # type: ignore[arg-type]
        await client.expect("welcome")
        # A text frame whose payload is not UTF-8 (built by hand: wsproto would not send
        # it): FIN and opcode 1, masked, two bytes, a zero mask.
        await lines.sock.send_all(b"\x81\x82\x00\x00\x00\x00\xff\xfe")
        await client.eof()
        assert lines.close_code == 1007


@pytest.mark.subprocess
async def test_the_page_watches_a_table_and_talks_to_its_spectators() -> None:
    # Four bots play; the page watches from the lobby: it sees the cards, holds no hand,
    # and its chat line goes to the table's spectators.
    node = _node_with_websocket()
    if node is None:
        pytest.skip("needs Node with a WebSocket (20.10+)")
    async with web_server(bot_floor_seconds=0.05, bot_pause_seconds=0.0) as (_, web):
        creator = await ws_client(web, "otto")
        await creator.hello()
        table = (await creator.request(type="create_table", name="bots"))["table"]
        for seat in "NESW":
            await creator.request(type="add_bot", table=table, seat=seat)
        # A second table with one bot and three free seats: the lobby shows both.
        other = (await creator.request(type="create_table", name="open"))["table"]
        await creator.request(type="add_bot", table=other, seat="E")
        with trio.fail_after(60):
            done = await trio.run_process(_page(node, web, "vera", "watch"),
                                          capture_stdout=True, capture_stderr=True,
                                          check=False)
    assert done.returncode == 0, (done.stdout, done.stderr)
    result = _last(done.stdout)
    assert (result["you"], result["hand"], result["ready"]) == (None, False, False)
    assert result["chat"] == ["[watching] vera: nice play"]
    assert result["lobby"] == {
        table: {"kinds": ["bot"] * 4, "join": []},
        other: {"kinds": ["empty", "bot", "empty", "empty"],
                "join": [f"{other}/N", f"{other}/S", f"{other}/W"]}}
    assert result["watched"] == table


@pytest.mark.subprocess
async def test_the_page_reclaims_its_seat_after_a_server_restart(tmp_path: Path) -> None:
    # The page plays three cards, the server stops (its records kept) and starts again on
    # the same ports from those records: the page reconnects by itself, reclaims its seat
    # with its stored token and finishes the deal.
    node = _node_with_websocket()
    if node is None:
        pytest.skip("needs Node with a WebSocket (20.10+)")
    settings = {"bot_floor_seconds": 0.0, "bot_pause_seconds": 0.0, "records_dir": tmp_path}
    async with web_server(**settings) as (tcp, web):
        with (tmp_path / "page.out").open("wb") as out:
            proc = await trio.lowlevel.open_process(
                _page(node, web, "remy", "pause"), stdout=out, stderr=subprocess.DEVNULL,
                stdin=subprocess.PIPE)
        try:
            with trio.fail_after(30):
                while b"paused" not in (tmp_path / "page.out").read_bytes():
                    await trio.sleep(0.02)
        except BaseException:
            proc.kill()
            raise
    try:
        config = ServerConfig(port=tcp, web_port=web, **settings)  # type: ignore[arg-type]
        async with trio.open_nursery() as nursery:
            await nursery.start(lambda task_status: serve(config, task_status=task_status))
            assert proc.stdin is not None
            await proc.stdin.send_all(b"go on\n")
            with trio.fail_after(60):
                assert await proc.wait() == 0
            nursery.cancel_scope.cancel()
    finally:
        proc.kill()
    result = _last((tmp_path / "page.out").read_bytes())
    assert result["rows"] == [8, 8, 8, 8] and result["you"] == "S"
    assert result["sockets"] >= 2 and "Deal 1" in str(result["summary"])
