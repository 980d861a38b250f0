"""A hostile server floods a client with huge events: the client's queues are bounded in
bytes, so ``jackal bot --exec`` (the real CLI in a subprocess) stays small, drops the
connection and comes back from a snapshot (the seat reclaimed with its token)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import trio
from jackal.client.connection import MAX_EVENT_BYTES, connect
from jackal.client.lobby_link import LobbyLink
from jackal.game.cards import Card
from jackal.game.conventions import builtin_card
from jackal.game.seats import Seat, Team
from jackal.protocol import encode
from jackal.protocol.messages import SeatInfo, TableState, YourTurn
from support.bots import BOT
from support.fake_server import WELCOME, Peer, seat_client, start_fake

#: The red team's flood: 2,000 events without an id, each a 1 MB line (a player's name).
FLOOD_EVENTS = 2000
FLOOD_LINE = (b'{"type":"player_joined","seat":"N","kind":"bot","name":"'
              + b"x" * 1_000_000 + b'"}\n')
RSS_LIMIT_KB = 100 * 1024

HAND = [Card.parse(text) for text in ("2H", "5S", "7D", "9C", "JH", "QS", "KD", "AC")]
PROGRAM = """\
import json, os, sys, time
# Answer each your_turn with the first card of the hand, but only once the flag exists:
# until then the host waits for us, as it would for a program that thinks long.
for line in sys.stdin:
    hand = json.loads(line)["hand"]
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.01)
    print(hand[0], flush=True)
"""


def _state(status: str) -> bytes:
    card = builtin_card("beginner")
    playing = status == "playing"
    return encode(TableState(
        table="t1", name="flood", target=300, status=status,  # type: ignore[arg-type]
        seats=[SeatInfo(seat=seat, name="me" if seat is Seat.S else "bot",
                        kind="human" if seat is Seat.S else "bot", connected=True,
                        ready=True) for seat in Seat],
        conventions={Team.NS: card, Team.EW: card}, scores={Team.NS: 0, Team.EW: 0},
        deal=1, dealer=Seat.E, first=Seat.S, turn=Seat.S if playing else None,
        rows={seat: [] for seat in Seat}, you=Seat.S, hand=HAND if playing else []))


def _peak_rss_kb(pid: int) -> int:
    """The process's peak resident set so far (VmHWM), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


@pytest.mark.subprocess
async def test_a_flooding_server_cannot_grow_jackal_bot_exec(tmp_path: Path) -> None:
    flag = tmp_path / "answer-now"
    (tmp_path / "slow.py").write_text(PROGRAM)
    seen: dict[str, Any] = {"sent": 0, "connections": 0}
    pid: list[int] = []

    async def answer_requests(peer: Peer) -> None:
        """Refuse whatever else the client asks (its late play): the match is over."""
        while True:
            msg = await peer.receive()
            if "id" in msg:
                await peer.send({"type": "error", "code": "no_deal", "message": "over",
                                 "id": msg["id"]})

    async def script(peer: Peer) -> None:
        seen["connections"] += 1
        hello = await peer.receive()
        if hello.get("token"):
            # The client came back with its seat's token: measure what the flood cost it,
            # then end the match from a snapshot.
            seen["peak_kb"] = _peak_rss_kb(pid[0])
            flag.touch()
            await peer.send({"type": "hello_ok", "name": "me", "table": "t1", "seat": "S",
                             "id": hello["id"]})
            await peer.stream.send_all(_state("over"))
            await peer.send({"type": "match_ended", "winner": "NS",
                             "scores": {"NS": 300, "EW": 0}})
            await answer_requests(peer)
            return
        await seat_client(peer, hello, _state("playing"))
        await peer.stream.send_all(encode(YourTurn(
            seat=Seat.S, deal=1, play=1, dealer=Seat.E, first=Seat.S, hand=HAND, rows=[],
            conventions={Team.NS: "beginner", Team.EW: "beginner"},
            scores={Team.NS: 0, Team.EW: 0}, target=300)))
        # The program holds its answer, so the bot's events pile up while we flood.
        await _flood(peer, seen)
        # Either way this connection ends; a client that never dropped it reconnects now.

    async with trio.open_nursery() as nursery:
        port = await start_fake(nursery, script,
                                {**WELCOME, "features": ["your_turn", "sync"]})
        out, err = tmp_path / "out", tmp_path / "err"
        with out.open("wb") as stdout, err.open("wb") as stderr:
            proc = await trio.lowlevel.open_process(
                [*BOT, "--server", f"127.0.0.1:{port}", "--move-seconds", "60",
                 "--exec", f"{sys.executable} {tmp_path / 'slow.py'} {flag}"],
                stdout=stdout, stderr=stderr)
            pid.append(proc.pid)
            with trio.fail_after(120):
                await proc.wait()
        nursery.cancel_scope.cancel()
    log = err.read_text()
    assert proc.returncode == 0, log
    assert "match over at table t1" in out.read_text(), log
    print(f"peak RSS {seen['peak_kb'] / 1024:.1f} MiB after {seen['sent']} flood events")
    assert seen["connections"] == 2, log
    assert seen["peak_kb"] < RSS_LIMIT_KB, seen
    # It dropped the flood early, saying why, instead of reading it all.
    assert seen["sent"] < FLOOD_EVENTS, seen
    assert "bytes of unread events" in log, log


async def _flood(peer: Peer, seen: dict[str, Any]) -> None:
    """Send the flood until the client drops the connection (or it is all sent)."""
    try:
        for _ in range(FLOOD_EVENTS):
            await peer.stream.send_all(FLOOD_LINE)
            seen["sent"] += 1
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def test_a_connection_whose_events_are_not_read_drops_a_flood() -> None:
    seen = {"sent": 0}

    async def script(peer: Peer) -> None:
        await _flood(peer, seen)

    async with trio.open_nursery() as nursery:
        port = await start_fake(nursery, script)
        conn = await connect(nursery, "127.0.0.1", port)
        with trio.fail_after(30):
            while not conn.closed:
                await trio.sleep(0.01)
        assert conn.lost_reason is not None
        assert f"more than {MAX_EVENT_BYTES} bytes of unread events" in conn.lost_reason
        assert seen["sent"] < 20, seen
        nursery.cancel_scope.cancel()


async def test_the_lobby_link_drops_a_flood_and_comes_back() -> None:
    seen = {"sent": 0}
    statuses: list[tuple[str, str]] = []

    async def script(peer: Peer) -> None:
        hello = await peer.receive()
        await peer.send({"type": "hello_ok", "name": "me", "id": hello["id"]})
        if seen["sent"] == 0:
            await _flood(peer, seen)
        else:
            await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        port = await start_fake(nursery, script)
        link = LobbyLink("127.0.0.1", port, name="me",
                         on_status=lambda status, detail, _: statuses.append((status, detail)))
        await nursery.start(link.run)
        with trio.fail_after(30):  # nobody reads link.events(): the owner is busy
            while link.connections < 2:
                await trio.sleep(0.01)
        assert seen["sent"] < 20, seen
        assert any(status == "reconnecting" and "bytes of unread events" in detail
                   for status, detail in statuses), statuses
        nursery.cancel_scope.cancel()
