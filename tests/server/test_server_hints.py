"""Hints over the wire: ``hint`` at a real server on port 0, read as raw protocol lines.

Where the table allows hints, the seat to move gets the expert's card and its reasons
(and nobody else does), and everyone at the table is told once per turn that the seat
took one; everywhere else the request is refused with a stable code and changes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import CallJackal
from jackal.game.cards import Card
from jackal.game.seats import SEATS, Seat
from jackal.protocol.errors import ProtocolError
from jackal.protocol.messages import HintReply, HintTaken
from jackal.server.bots import BotPool
from jackal.server.config import ServerConfig
from jackal.server.hints import HintDesk
from jackal.server.records.events import HintEvent, RecordError, read_record
from jackal.server.records.replay import replay
from jackal.server.snapshot import bot_view
from jackal.server.table import Table
from jackal.server.table_options import TableOptions
from support.client import (
    RawClient,
    alone_with_bots,
    greeted,
    new_table,
    open_table,
    seat_four,
    start_deal,
)
from support.leaks import cards_named
from support.peer import Peer
from support.proxy import CuttableProxy
from support.records import lines, record_match, rewrite
from support.server import ServerProcess, running_server


async def _quiet(client: RawClient) -> list[str]:
    """The types of what reaches ``client`` before the answer to a ping of its own."""
    got = await client.recv_until(lambda m: m["type"] == "pong")
    return [m["type"] for m in got[:-1]]


async def test_a_table_without_hints_refuses_them_and_says_so() -> None:
    async with running_server() as port:
        lobby, human, table = await alone_with_bots(port, "S", "ann", seed=3)
        listed = (await lobby.request(type="list_tables"))["tables"]
        assert [t["hints"] for t in listed if t["table"] == table] == [False]
        state = await human.request(type="sync")
        assert state["hints"] is False
        await human.recv_until(lambda m: m["type"] == "your_turn"
                               or (m["type"] == "turn" and m["seat"] == "S"), timeout=30)
        refused = await human.request(type="hint")
        assert refused["type"] == "error" and refused["code"] == "hints_off"


async def test_the_hint_goes_to_the_asker_and_the_notice_to_everyone() -> None:
    async with running_server() as port:
        lobby, table = await open_table(port, seed=21, hints=True)
        watcher = await greeted(port, "watcher")
        assert (await watcher.request(type="spectate", table=table))["hints"] is True
        seats = await seat_four(port, table)
        early = await seats[0].request(type="hint")
        assert early["code"] == "no_deal"
        await start_deal(seats)
        first = (await seats[0].wait_type("turn"))["seat"]
        mover = next(c for c in seats if c.seat == first)
        other = next(c for c in seats if c.seat != first)
        hand = mover.hand

        hint = await mover.request(type="hint")
        assert hint["type"] == "hint", hint
        assert (hint["seat"], hint["deal"], hint["play"]) == (first, 1, 1)
        assert hint["card"] in hand and hint["strategy"] == "expert"
        assert hint["card"] in hint["text"] and "1st card" in hint["text"]
        assert hint["meaning"]["kind"] in ("promise", "none")
        # Its words name the asker's own cards only.
        assert cards_named(json.dumps(hint).encode()) <= {str(Card.parse(c)) for c in hand}

        for client in [*seats, watcher]:
            notice = await client.wait_type("hint_taken")
            assert notice == {"type": "hint_taken", "seat": first, "deal": 1, "play": 1}
        for client in [*seats, watcher]:
            if client is not mover:
                assert not any(m["type"] == "hint" for m in client.log)

        # Asking again on the same turn: the same answer, and nobody is told again.
        again = await mover.request(type="hint")
        assert {k: v for k, v in again.items() if k != "id"} == \
            {k: v for k, v in hint.items() if k != "id"}
        for client in [*seats, watcher]:
            await client.send(type="ping", id="p")
            assert "hint_taken" not in await _quiet(client)

        assert (await other.request(type="hint"))["code"] == "not_your_turn"
        assert (await watcher.request(type="hint"))["code"] == "not_seated"
        assert (await lobby.request(type="hint"))["code"] == "not_seated"
        played = await mover.request(type="play", card=hint["card"])
        assert played["type"] == "played" and played["card"] == hint["card"]


async def test_the_server_default_allows_hints_unless_the_table_says_no() -> None:
    async with running_server(ServerConfig(port=0, hints=True)) as port:
        lobby = await greeted(port, "lobby")
        on = await new_table(lobby)
        off = await new_table(lobby, hints=False)
        listed = {t["table"]: t["hints"] for t in
                  (await lobby.request(type="list_tables"))["tables"]}
        assert listed == {on: True, off: False}


async def test_a_restart_keeps_whether_a_table_allows_hints(tmp_path: Path) -> None:
    config = ServerConfig(port=0, records_dir=tmp_path)
    async with running_server(config) as port:
        lobby = await greeted(port, "lobby")
        on = await new_table(lobby, hints=True)
        off = await new_table(lobby)
    async with running_server(ServerConfig(port=0, records_dir=tmp_path)) as port:
        lobby = await greeted(port, "lobby")
        listed = {t["table"]: t["hints"] for t in
                  (await lobby.request(type="list_tables"))["tables"]}
        assert listed == {on: True, off: False}


def table_in_play() -> tuple[Table, dict[Seat, Peer], Peer, Seat]:
    """A table of four seated peers and a spectator, with the first deal started; the
    last item is the seat to move. The table hands its messages back in outboxes (see
    ``delivered_nothing``)."""
    table = Table("t1", TableOptions(name="desk", target=300, seed=4, hints=True))
    peers = {seat: Peer(seat.value) for seat in SEATS}
    for seat, peer in peers.items():
        table.join(peer, seat.value, seat)
    watcher = Peer("watcher")
    table.spectators[watcher] = None
    for peer in peers.values():
        table.ready(peer, now=0.0)
    deal = table.match.deal
    assert deal is not None and deal.turn is not None
    return table, peers, watcher, deal.turn


def delivered_nothing(peers: dict[Seat, Peer], watcher: Peer) -> bool:
    """Whether the table kept to outboxes: it never delivered to a peer itself."""
    return not any(peer.got for peer in [*peers.values(), watcher])


async def test_requests_made_while_the_hint_is_worked_out_share_it() -> None:
    table, peers, watcher, seat = table_in_play()
    desk = HintDesk(BotPool(1, 10.0))
    assert desk.request(table, peers[seat], "a") == ([], seat)
    assert desk.request(table, peers[seat], "b") == ([], None)  # waits for the first
    out = await desk.work(table, seat)
    replies = [(peer, msg) for peer, msg in out if isinstance(msg, HintReply)]
    assert [(peer, msg.id) for peer, msg in replies] == [(peers[seat], "a"), (peers[seat], "b")]
    notices = [peer for peer, msg in out if isinstance(msg, HintTaken)]
    assert len(notices) == 5 and set(notices) == {*peers.values(), watcher}
    later, work = desk.request(table, peers[seat], "c")
    assert work is None and [(peer, msg.id) for peer, msg in later] == [  # type: ignore[union-attr]
        (peers[seat], "c")]
    assert delivered_nothing(peers, watcher)


async def test_a_turn_that_passes_before_the_hint_is_ready_gets_not_your_turn() -> None:
    table, peers, watcher, seat = table_in_play()
    desk = HintDesk(BotPool(1, 10.0))
    desk.request(table, peers[seat], 1)
    hand = bot_view(table, seat).hand
    table.play(peers[seat], hand[0], now=1.0)  # played without waiting
    out = await desk.work(table, seat)
    assert [(peer, type(msg).__name__, getattr(msg, "code", None)) for peer, msg in out] \
        == [(peers[seat], "Error", "not_your_turn")]
    # Nobody was told; asking now is refused: it is the next seat's turn.
    with pytest.raises(ProtocolError) as refused:
        desk.request(table, peers[seat], 2)
    assert refused.value.code == "not_your_turn"
    assert delivered_nothing(peers, watcher)


async def test_a_hint_taken_is_recorded_restored_and_replayed(
        tmp_path: Path, call_jackal: CallJackal) -> None:
    """The record gets a ``hint`` line (seat, deal, play; no card) when the notice goes
    out; a restart restores the match past it and ``jackal replay`` shows it."""
    async with running_server(ServerConfig(port=0, records_dir=tmp_path)) as port:
        _, human, table = await alone_with_bots(port, "S", "ann", seed=3, hints=True)
        await human.wait_type("your_turn", timeout=30)
        hint = await human.request(type="hint")
        assert hint["type"] == "hint", hint
        notice = await human.wait_type("hint_taken")
        played = await human.request(type="play", card=hint["card"])
        assert played["type"] == "played"
    [path] = tmp_path.glob("*.jsonl")
    events = lines(path)
    hints = [e for e in events if e["event"] == "hint"]
    assert [(e["seat"], e["deal"], e["play"]) for e in hints] == [
        (notice["seat"], notice["deal"], notice["play"])] == [("S", 1, hint["play"])]
    assert "card" not in hints[0]
    # Written before the play it was asked for.
    at = events.index(hints[0])
    assert events[at + 1]["event"] == "play" and events[at + 1]["seat"] == "S"

    async with running_server(ServerConfig(port=0, records_dir=tmp_path)) as port:
        back = await RawClient.connect(port, "ann")
        ok = await back.hello(token=human.token)
        assert ok["table"] == table and ok["seat"] == "S"
        state = await back.wait_type("table_state")
        assert state["status"] == "playing" and state["hints"] is True
        assert hint["card"] in state["rows"]["S"]

    shown = call_jackal("replay", str(path))
    assert shown.returncode == 0, shown.stderr
    made = sum(1 for e in events[:at] if e["event"] == "play")
    assert (f"  S took a hint for its card {hint['play']} of 8 (play {made + 1} of 32)"
            in shown.stdout.splitlines())
    assert hint["card"] not in shown.stdout.split("took a hint")[1].splitlines()[0]


@pytest.mark.parametrize(("change", "why"), [
    ({"play": 9}, "play"),
    ({"card": "7H"}, "card"),
    ({"seat": "X"}, "seat"),
])
def test_a_malformed_hint_line_is_refused(
        tmp_path: Path, change: dict[str, Any], why: str) -> None:
    made = record_match(tmp_path, seed=5, target=300,
                        until=lambda t: t.match.deal is not None
                        and t.match.deal.plays_made == 3)
    deal = made.table.match.deal
    assert deal is not None and deal.turn is not None
    play = len(deal.row(deal.turn)) + 1
    good = {"event": "hint", "time": 1.0, "seat": deal.turn.value, "deal": 1, "play": play}
    rewrite(made.path, [*lines(made.path), good])
    assert list(replay(read_record(made.path).events))[-1].event == HintEvent(
        seat=deal.turn, deal=1, play=play, time=1.0)
    rewrite(made.path, [*lines(made.path)[:-1], {**good, **change}])
    with pytest.raises(RecordError, match=why):
        read_record(made.path)


def test_a_hint_line_off_its_seats_turn_does_not_replay(tmp_path: Path) -> None:
    made = record_match(tmp_path, seed=5, target=300,
                        until=lambda t: t.match.deal is not None
                        and t.match.deal.plays_made == 3)
    deal = made.table.match.deal
    assert deal is not None and deal.turn is not None
    other = next(seat for seat in SEATS if seat is not deal.turn)
    rewrite(made.path, [*lines(made.path), {"event": "hint", "seat": other.value, "deal": 1,
                                            "play": len(deal.row(other)) + 1}])
    with pytest.raises(RecordError, match="not its turn"):
        list(replay(read_record(made.path).events))


async def test_a_hint_whose_answer_the_network_lost_is_given_again_after_the_reclaim() -> None:
    """The asker's link dies just after its ``hint`` reached the server, before the answer
    could come back (a real cut, through the TCP proxy). The table is still told once;
    back on a new connection with its token, the player asks again and gets the hint of
    that same turn, and nobody is told a second time."""
    async with running_server() as port, trio.open_nursery() as nursery:
        proxy = CuttableProxy(port)
        through: int = await nursery.start(proxy.run)
        lobby, table = await open_table(port, seed=5, hints=True)
        watcher = await greeted(port, "watcher")
        await watcher.request(type="spectate", table=table)
        human = await RawClient.connect(through, "ann")
        await human.hello()
        await human.join(table, "S")
        for other in ("N", "E", "W"):
            await lobby.request(type="add_bot", table=table, seat=other)
        await start_deal([human])
        await human.recv_until(lambda m: m["type"] == "your_turn", timeout=30)

        proxy.cut_after = b'"lost"'
        await human.send(id="lost", type="hint")
        notice = await watcher.recv_until(lambda m: m["type"] == "hint_taken", timeout=30)
        assert notice[-1]["seat"] == "S"
        heard: list[str] = []
        with pytest.raises((EOFError, trio.BrokenResourceError)):
            while True:  # until the reset reaches the client: the answer never arrives
                heard.append((await human.recv())["type"])
        assert "hint" not in heard

        proxy.cut_after = None
        proxy.restore()
        back = await RawClient.connect(through, "ann")
        await back.hello(token=human.token)
        turn = await back.recv_until(lambda m: m["type"] == "your_turn", timeout=10)
        again = await back.request(type="hint")
        assert again["type"] == "hint" and again["seat"] == "S", again
        assert again["card"] in turn[-1]["hand"]
        assert (again["deal"], again["play"]) == (notice[-1]["deal"], notice[-1]["play"])
        await watcher.send(type="ping", id="p")
        assert "hint_taken" not in await _quiet(watcher)
        nursery.cancel_scope.cancel()


@pytest.mark.subprocess
async def test_a_hint_asked_again_after_a_sigkill_is_answered_and_not_announced_again(
        tmp_path: Path) -> None:
    """A player takes a hint, the server is SIGKILLed before they play, and started again
    on the same records. Back with the token, the player asks again on the same turn: the
    answer comes (for that turn, a card of the hand), but the table, a spectator included,
    is not told a second time, and the record keeps one ``hint`` line for the turn."""
    server = await trio.to_thread.run_sync(ServerProcess, tmp_path, "--hints")
    try:
        _, human, table = await alone_with_bots(server.port, "S", "ann", seed=3)
        await human.wait_type("your_turn", timeout=30)
        first = await human.request(type="hint")
        assert first["type"] == "hint", first
        await human.wait_type("hint_taken")
        server.kill()
        port = await trio.to_thread.run_sync(server.start)
        back = await RawClient.connect(port, "ann")
        ok = await back.hello(token=human.token)
        assert ok["table"] == table and ok["seat"] == "S", ok
        turn = await back.recv_until(lambda m: m["type"] == "your_turn", timeout=10)
        watcher = await greeted(port, "watcher")
        await watcher.request(type="spectate", table=table)
        again = await back.request(type="hint")
        assert again["type"] == "hint", again
        assert (again["deal"], again["play"]) == (first["deal"], first["play"])
        assert again["card"] in turn[-1]["hand"]
        for client in (back, watcher):
            await client.send(type="ping", id="p")
            assert "hint_taken" not in await _quiet(client)
        # The turn goes on as usual: the card is played and recorded after the one hint.
        played = await back.request(type="play", card=again["card"])
        assert played["type"] == "played", played
    finally:
        server.stop()
    [path] = server.records.glob("*.jsonl")
    events = lines(path)
    assert [(e["seat"], e["deal"], e["play"]) for e in events if e["event"] == "hint"] == [
        ("S", first["deal"], first["play"])]
    assert [e["event"] for e in events].count("restored") == 1
