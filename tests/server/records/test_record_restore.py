"""Restoring from damaged records: corrupt files, torn final writes, duplicate table ids,
fields that are the wrong type. Each class is tested sans-IO through ``restore_tables``
and, where a player would notice, against a running server."""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from jackal.game.seats import Seat
from jackal.protocol.messages import MatchEnded, Ok, TableState
from jackal.server.config import ServerConfig
from jackal.server.records.events import RecordError, TableEvent, read_record
from jackal.server.records.files import RecordFile
from jackal.server.records.replay import replay
from jackal.server.records.restore import restore_tables
from jackal.server.table import Table
from jackal.server.table_options import TableOptions
from jackal.server.tokens import hash_invite
from support.client import RawClient
from support.peer import Peer
from support.records import FAST, Recorded, lines, record_match, rewrite
from support.server import running_server

Event = dict[str, Any]


def _mid_deal(directory: Path, table_id: str = "t1", seed: int = 5) -> Recorded:
    """A match 10 plays into its first deal, far from its target."""
    return record_match(directory, table_id=table_id, seed=seed, target=300,
                        until=lambda t: t.match.deal is not None and t.match.deal.plays_made == 10)


def _first(events: list[Event], kind: str) -> Event:
    return next(event for event in events if event["event"] == kind)


def _corrupt(name: str) -> Callable[[Path], None]:
    """Damage ``path`` (a mid-deal record) in the way ``name`` says."""

    def edit(path: Path) -> None:
        events = lines(path)
        raw = path.read_bytes().splitlines(keepends=True)
        if name == "deal seed changed":
            _first(events, "deal")["seed"] += 1
        elif name == "play before any deal":  # was an AssertionError
            events.remove(_first(events, "deal"))
        elif name == "deal dealer garbled":
            _first(events, "deal")["dealer"] = "X"
        elif name == "illegal play":
            plays = [e for e in events if e["event"] == "play"]
            plays[3]["card"] = plays[0]["card"]
        elif name == "wrong row index":
            _first(events, "play")["index"] = 2
        elif name == "token_hash not a string":
            next(e for e in events if e["event"] == "seat" and e["kind"] == "human"
                 )["token_hash"] = 5
        elif name == "index as a string":
            _first(events, "play")["index"] = "1"
        elif name == "unknown event":
            events.insert(3, {"event": "teleport"})
        elif name == "unknown field":
            _first(events, "play")["extra"] = 1
        elif name == "no table line first":
            events = events[1:]
        elif name in TABLE_DAMAGE:
            TABLE_DAMAGE[name](events[0])
        elif name in TEXT_DAMAGE:
            TEXT_DAMAGE[name](events)
        if name in ("target Infinity", "target huge", "deeply nested", "bad UTF-8",
                    "line cut short mid-file", "not JSON", "empty file"):
            if name == "target Infinity":  # was an OverflowError
                raw[0] = raw[0].replace(b'"target":300', b'"target":Infinity')
            elif name == "target huge":
                raw[0] = raw[0].replace(b'"target":300', b'"target":' + b"9" * 400)
            elif name == "deeply nested":  # was a RecursionError
                raw.insert(4, b'{"event":"seat","seat":"N","kind":"human","name":'
                           + b"[" * 200_000 + b"]" * 200_000 + b"}\n")
            elif name == "bad UTF-8":
                raw[4] = raw[4].replace(b'"p', b'"\xff\xfe')
            elif name == "line cut short mid-file":
                raw[5] = raw[5][: len(raw[5]) // 2] + b"\n"
            elif name == "not JSON":
                raw[5] = b"\x00\x00 garbage\n"
            elif name == "empty file":
                raw = []
            path.write_bytes(b"".join(raw))
        else:
            rewrite(path, events)

    return edit


#: Malformed options in the first line (the ``table`` event, ``TableOptions`` on disk).
TABLE_DAMAGE: dict[str, Callable[[Event], None]] = {
    "options: invites not an object": lambda table: table.update(invites=["N"]),
    "options: invites name a seat X": lambda table: table.update(invites={"X": "0" * 64}),
    "options: an invite not a hash": lambda table: table.update(
        invites={seat.value: "code" for seat in Seat}),
    "options: hold_seconds negative": lambda table: table.update(hold_seconds=-1),
    "options: turn_seconds zero": lambda table: table.update(turn_seconds=0),
    "options: creator too long": lambda table: table.update(creator="x" * 33),
    "options: bot_takeover missing": lambda table: table.pop("bot_takeover"),
    "options: an unknown option": lambda table: table.update(colour="red"),
    "options: seed a string": lambda table: table.update(seed="5"),
}

def _seat_named(name: str) -> Callable[[list[Event]], None]:
    def edit(events: list[Event]) -> None:
        next(e for e in events if e["event"] == "seat" and e["kind"] == "human")["name"] = name
    return edit


def _said(line: Event) -> Callable[[list[Event]], None]:
    def edit(events: list[Event]) -> None:
        events.insert(len(events) - 1, {"event": "chat", "channel": "table", **line})
    return edit


#: Text a client could not have sent, in a record that is otherwise sound (issue 30
#: item 11): a server must not restore it and show it in its lobby or its tables.
TEXT_DAMAGE: dict[str, Callable[[list[Event]], None]] = {
    "text: ESC in the table's name": lambda events: events[0].update(name="\x1b]0;pwned\x07"),
    "text: ESC in the creator's name": lambda events: events[0].update(creator="a\x1b[2J"),
    "text: an invisible mark in the table's name": lambda events: events[0].update(
        name="t\u034f"),
    "text: a table name too wide": lambda events: events[0].update(name="Ｗ" * 20),
    "text: ESC in a seat's name": _seat_named("pN\x1b[2J"),
    "text: a Hangul filler as a seat's name": _seat_named("\u3164"),
    "text: a bidi control in a chat line": _said({"name": "pN", "text": "evil\u202egnp",
                                                  "seat": "N"}),
    "text: C1 CSI in a chat line's name": _said({"name": "a\x9b2J", "text": "hi"}),
}

CORRUPTIONS = [*TABLE_DAMAGE, *TEXT_DAMAGE, "deal seed changed", "play before any deal",
               "deal dealer garbled",
               "illegal play", "wrong row index", "token_hash not a string",
               "index as a string", "unknown event", "unknown field", "no table line first",
               "target Infinity", "target huge", "deeply nested", "bad UTF-8",
               "line cut short mid-file", "not JSON", "empty file"]


@pytest.mark.parametrize("damage", CORRUPTIONS)
def test_a_corrupt_record_is_moved_aside_and_the_others_restored(
        tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture) -> None:
    bad = _mid_deal(tmp_path, "t1", seed=5)
    good = _mid_deal(tmp_path, "t2", seed=6)
    _corrupt(damage)(bad.path)
    with pytest.raises(RecordError):
        for _ in replay(read_record(bad.path, text_rules=True).events):
            pass
    caplog.set_level(logging.INFO, "jackal.server")
    restored = restore_tables(tmp_path, now=0.0)
    for _, record in restored:
        record.close()
    assert [table.id for table, _ in restored] == ["t2"]
    assert restored[0][0].match.deal is not None
    assert restored[0][0].match.deal.plays_made == 10
    about = [r for r in caplog.records if bad.path.name in r.getMessage()]
    assert len(about) == 1 and about[0].levelno == logging.ERROR, about
    assert "moved aside" in about[0].getMessage()
    assert not bad.path.exists()
    assert bad.path.with_name(bad.path.name + ".corrupt").exists()
    assert good.path.exists()
    # A second start finds nothing new to complain about.
    caplog.clear()
    for _, record in restore_tables(tmp_path, now=0.0):
        record.close()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_torn_last_line_is_cut_off_before_appending(tmp_path: Path) -> None:
    made = _mid_deal(tmp_path)
    with made.path.open("ab") as handle:
        handle.write(b'{"event":"play","seat":"N","ca')
    [(table, record)] = restore_tables(tmp_path, now=0.0)
    record.close()
    assert table.match.deal is not None and table.match.deal.plays_made == 10
    events = lines(made.path)  # every line whole again: the fragment is gone
    assert events[-1]["event"] == "restored"
    assert read_record(made.path).torn_bytes == 0


def _drop_last(path: Path, *kinds: str) -> None:
    events = lines(path)
    for kind in reversed(kinds):
        assert events[-1]["event"] == kind, events[-1]
        events.pop()
    rewrite(path, events)


def test_a_lost_match_end_line_restores_a_finished_match(tmp_path: Path) -> None:
    made = record_match(tmp_path, seed=11, target=1)
    assert made.table.status == "over"
    _drop_last(made.path, "match_end")
    [(table, record)] = restore_tables(tmp_path, now=0.0)
    record.close()
    assert table.status == "over" and table.match.winner is made.table.match.winner
    events = lines(made.path)
    assert [e["event"] for e in events[-2:]] == ["restored", "match_end"]
    # The player comes back and sees the end; "ready" is answered, not an internal error.
    peer = Peer()
    seat = table.seating.find_token(_hash(made.tokens[Seat.N]))
    assert seat is Seat.N
    out = table.reclaim(peer, seat)
    sent = [msg for who, msg in out if who is peer]
    assert isinstance(sent[0], TableState) and sent[0].status == "over"
    assert isinstance(sent[1], MatchEnded)
    assert sent[1].scores == {t.value: s for t, s in made.table.match.scores.items()}
    assert [type(msg) for _, msg in table.ready(peer)] == [Ok]
    # A restart now leaves the finished record alone.
    assert restore_tables(tmp_path, now=0.0) == []


def test_a_lost_result_line_is_scored_on_restore(tmp_path: Path) -> None:
    made = record_match(tmp_path, seed=11, target=1)
    original = lines(made.path)
    _drop_last(made.path, "result", "match_end")
    [(table, record)] = restore_tables(tmp_path, now=0.0)
    record.close()
    assert table.status == "over" and table.match.scores == made.table.match.scores
    assert table.last_deal is not None and table.last_deal.is_over
    events = lines(made.path)
    assert [e["event"] for e in events[-3:]] == ["restored", "result", "match_end"]
    # The implied result is the one the table had written.
    assert {k: v for k, v in events[-2].items() if k != "time"} == {
        k: v for k, v in _first(original[::-1], "result").items() if k != "time"}


def test_a_lost_result_between_deals_restores_between_deals(tmp_path: Path) -> None:
    made = record_match(tmp_path, seed=3, target=10_000,
                        until=lambda t: t.status == "between_deals")
    _drop_last(made.path, "result")
    [(table, record)] = restore_tables(tmp_path, now=50.0)
    record.close()
    assert table.status == "between_deals" and table.match.deal_number == 1
    assert table.match.scores == made.table.match.scores
    assert table.clock.between_deadline == 50.0 + table.options.between_deals_seconds


def test_duplicate_table_ids_are_made_unique(tmp_path: Path,
                                            caplog: pytest.LogCaptureFixture) -> None:
    first = _mid_deal(tmp_path, "t1")
    copy = first.path.with_name("zz-operator-copy.jsonl")
    shutil.copy(first.path, copy)
    caplog.set_level(logging.WARNING, "jackal.server")
    restored = restore_tables(tmp_path, now=0.0)
    assert sorted(table.id for table, _ in restored) == ["t1", "t1-2"]
    assert any("restored as t1-2" in r.getMessage() for r in caplog.records)
    for _, record in restored:
        record.close()
    # The new id is kept: the next restart gives each record the id it had.
    last = lines(copy)[-1]
    assert last["event"] == "restored" and last["table"] == "t1-2"
    again = restore_tables(tmp_path, now=0.0)
    for _, record in again:
        record.close()
    assert sorted(table.id for table, _ in again) == ["t1", "t1-2"]


def _hash(token: str) -> str:
    from jackal.server.tokens import hash_token

    return hash_token(token)


# ---------------------------------------------------------------------- a running server


async def test_players_reclaim_a_match_whose_end_was_lost(tmp_path: Path) -> None:
    made = record_match(tmp_path, seed=11, target=1)
    _drop_last(made.path, "result", "match_end")
    async with running_server(ServerConfig(records_dir=tmp_path, **FAST)) as port:
        for seat, token in made.tokens.items():
            client = await RawClient.connect(port, f"p{seat}")
            ok = await client.hello(token=token)
            assert ok["table"] == "t1" and ok["seat"] == seat.value
            state = await client.wait_type("table_state")
            assert state["status"] == "over"
            ended = await client.wait_type("match_ended")
            assert ended["scores"] == {t.value: s for t, s in made.table.match.scores.items()}
            assert (await client.request(type="ready"))["type"] == "ok"
            assert (await client.request(type="leave"))["type"] == "ok"
        # Everyone has seen the end and gone: the table goes too.
        lobby = await RawClient.connect(port, "lobby")
        await lobby.hello()
        with trio.fail_after(5):
            while (await lobby.request(type="list_tables"))["tables"]:
                await trio.sleep(0.01)


async def test_a_wrong_token_hash_type_does_not_break_hello(tmp_path: Path) -> None:
    good = _mid_deal(tmp_path, "t1", seed=5)
    bad = _mid_deal(tmp_path, "t2", seed=6)
    _corrupt("token_hash not a string")(bad.path)
    async with running_server(ServerConfig(records_dir=tmp_path, **FAST)) as port:
        stranger = await RawClient.connect(port, "x")
        reply = await stranger.request(type="hello", name="x", token="not-a-seat-token")
        assert reply["code"] == "bad_token"
        player = await RawClient.connect(port, "pN")
        ok = await player.hello(token=good.tokens[Seat.N])
        assert ok["table"] == "t1"


async def test_a_record_is_closed_only_by_its_own_table(tmp_path: Path) -> None:
    """Two unfinished records of table t1: one idles out, the other plays to the end."""
    idle = record_match(tmp_path, table_id="t1", humans=(), until=lambda _t: True)
    rewrite(idle.path, lines(idle.path)[:3])  # header and conventions: an empty table
    busy = record_match(tmp_path, table_id="t1", humans=(), seed=8, target=40,
                        until=lambda t: t.status == "playing")
    config = ServerConfig(records_dir=tmp_path, idle_table_seconds=0.05,
                          between_deals_seconds=0.0, **FAST)
    async with running_server(config) as port:
        lobby = await RawClient.connect(port, "lobby")
        await lobby.hello()
        with trio.fail_after(30):
            while (await lobby.request(type="list_tables"))["tables"]:
                await trio.sleep(0.02)
    idle_events, busy_events = lines(idle.path), lines(busy.path)
    assert idle_events[-1]["event"] == "closed"
    assert busy_events[-1]["event"] == "match_end"
    assert not any(e["event"] == "closed" for e in busy_events)
    plays = sum(e["event"] == "play" for e in busy_events)
    assert plays == 32 * sum(e["event"] == "result" for e in busy_events)
    assert json.dumps(busy_events)  # the whole file is readable lines


def test_an_unreadable_record_is_logged_and_left_alone(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    good = _mid_deal(tmp_path, "t1")
    odd = tmp_path / "a-folder.jsonl"
    odd.mkdir()
    caplog.set_level(logging.INFO, "jackal.server")
    restored = restore_tables(tmp_path, now=0.0)
    for _, record in restored:
        record.close()
    assert [table.id for table, _ in restored] == ["t1"] and good.path.exists()
    about = [r.getMessage() for r in caplog.records if odd.name in r.getMessage()]
    assert len(about) == 1 and "cannot read" in about[0] and odd.is_dir()


def test_every_table_option_comes_back_from_the_record(tmp_path: Path) -> None:
    # Not one default: an option the record's first line dropped would come back changed.
    options = TableOptions(name="evening", target=77, seed=5, bot_takeover=False,
                           hold_seconds=12.0, between_deals_seconds=3.0,
                           takeover_strategy="greedy", turn_seconds=40.0, seeded=True,
                           hints=True, creator="ann", allow_spectators=False,
                           invites={seat: str(n) * 64 for n, seat in enumerate(Seat)})
    record = RecordFile.create(tmp_path, "t9", None, None)
    Table("t9", options, recorder=record).record_header()
    record.close()
    [(table, again)] = restore_tables(tmp_path, 0.0)
    assert table.options == options and table.options.invites is not options.invites
    again.close()


#: A record as the server wrote it before ``TableOptions`` was a msgspec Struct (a dataclass
#: then): a private table with every option off its default, ann at N, five plays into deal
#: 1. ``ANN`` is ann's seat token.
BEFORE_STRUCT = Path(__file__).parent / "data" / "private-t7.jsonl"
ANN = "hFTABrhABLAa_MNWovCMmtuS7-ZdmJalgtWxvapi-bE"
BEFORE_OPTIONS = TableOptions(name="evening", target=77, seed=5, bot_takeover=False,
                              hold_seconds=12.0, between_deals_seconds=3.0,
                              takeover_strategy="greedy", turn_seconds=40.0, seeded=True,
                              hints=True, creator="ann", allow_spectators=False,
                              invites={seat: hash_invite(f"code-{seat.value}") for seat in Seat})


def test_the_first_line_is_written_as_before(tmp_path: Path) -> None:
    # The same fields and values on disk (the order of keys in the object is free).
    before = json.loads(BEFORE_STRUCT.read_bytes().splitlines()[0])
    record = RecordFile.create(tmp_path, "t7")
    Table("t7", BEFORE_OPTIONS, recorder=record).record_header()
    record.close()
    now = lines(record.path)[0]
    assert {**now, "time": None} == {**before, "time": None}
    assert isinstance(read_record(record.path).events[0], TableEvent)


async def test_a_record_written_before_the_struct_restores_and_plays_on(tmp_path: Path) -> None:
    path = tmp_path / "t7.jsonl"
    shutil.copyfile(BEFORE_STRUCT, path)
    [(table, record)] = restore_tables(tmp_path, now=0.0)
    record.close()
    assert table.options == BEFORE_OPTIONS
    deal = table.match.deal
    assert deal is not None and deal.plays_made == 5 and deal.turn is Seat.N
    card = str(deal.legal_plays()[0])
    async with running_server(ServerConfig(records_dir=tmp_path, **FAST)) as port:
        ann = await RawClient.connect(port, "ann")
        ok = await ann.hello(token=ANN)
        assert (ok["table"], ok["seat"]) == ("t7", "N")
        state = await ann.wait_type("table_state")
        assert (state["name"], state["target"], state["turn_seconds"], state["seeded"],
                state["hints"]) == ("evening", 77, 40.0, True, True)
        assert [len(state["rows"][seat]) for seat in "NESW"] == [1, 1, 1, 2]
        turn = await ann.wait_type("your_turn")
        assert turn["play"] == 2 and card in turn["hand"]
        reply = await ann.request(type="play", card=card)
        assert (reply["type"], reply["seat"], reply["card"]) == ("played", "N", card), reply
    # Appended to the same file after the restore: ann's play (the bots may play on).
    events = lines(path)
    kinds = [e["event"] for e in events]
    assert kinds.count("restored") == 2  # restored above, and by the server
    after = events[len(kinds) - kinds[::-1].index("restored")]
    assert (after["event"], after["seat"], after["card"], after["by"]) == (
        "play", "N", card, "player")


async def test_a_record_with_an_escape_in_a_name_is_not_served(tmp_path: Path) -> None:
    """A tampered record whose table and seat names hold ESC: the server moves it aside
    and its lobby lists the sound one alone, with no raw ESC in any line it sends."""
    bad = _mid_deal(tmp_path, "t1", seed=5)
    _mid_deal(tmp_path, "t2", seed=6)
    events = lines(bad.path)
    TEXT_DAMAGE["text: ESC in the table's name"](events)
    _seat_named("\x1b[2J")(events)
    rewrite(bad.path, events)
    async with running_server(ServerConfig(records_dir=tmp_path)) as port:
        viewer = await RawClient.connect(port, "viewer", "127.0.0.2")
        await viewer.hello()
        reply = await viewer.request(type="list_tables")
        assert [line["table"] for line in reply["tables"]] == ["t2"], reply
        refused = await viewer.request(type="spectate", table="t1")
        assert refused.get("code") == "no_such_table", refused
        assert not any(b"\x1b" in line or b"\\u001b" in line for line in viewer.lines)
    assert bad.path.with_name(bad.path.name + ".corrupt").exists()
