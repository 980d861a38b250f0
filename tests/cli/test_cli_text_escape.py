"""The red team's strings reach no terminal raw: ``jackal replay``, ``jackal bot``,
``jackal tournament`` and ``jackal conventions`` (the real CLI in a subprocess) print a
crafted record, a hostile server's text and a crafted card escaped."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import CallJackal, RunJackal
from jackal.game.cards import Card
from jackal.game.conventions import builtin_card, card_to_json
from jackal.game.seats import SEATS, Seat, Team
from jackal.protocol import encode
from jackal.protocol.messages import SeatInfo, TableState
from support.bots import run_bot
from support.fake_server import WELCOME, Peer, seat_client, start_fake
from support.records import lines, record_match, rewrite

#: Raw characters that must never reach a terminal: ESC, BEL, C1 CSI, RLO, ZWSP.
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u200b")
TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
#: What a convention card may still hold once decoded (its format refuses C0 itself).
CARD_TEXT = "evil\u202egnp\u200b\x9b2J"


def assert_escaped(*outputs: str) -> None:
    for output in outputs:
        assert not [ch for ch in RAW if ch in output], output


def _crafted_card() -> dict[str, Any]:
    card: dict[str, Any] = json.loads(card_to_json(builtin_card("beginner")))
    card.update(name=CARD_TEXT, description=f"d {CARD_TEXT}", notes=f"line\n{CARD_TEXT}")
    return card


@pytest.mark.subprocess
def test_replay_escapes_a_record_holding_them(tmp_path: Path, run_jackal: RunJackal) -> None:
    made = record_match(tmp_path, humans=tuple(SEATS))
    events = lines(made.path)
    names = iter((TITLE, CLEAR, "a\x9b2J", "evil\u202egnp"))
    for event in events:
        if event["event"] == "table":
            event["name"] = "ad\u200bmin"
        elif event["event"] == "seat":
            event["name"] = next(names)
        elif event["event"] == "conventions":
            event["card"] = _crafted_card()
    rewrite(made.path, events)
    done = run_jackal("replay", str(made.path))
    assert done.returncode == 0, done.stderr
    assert_escaped(done.stdout, done.stderr)
    assert "N \\x1b]0;pwned\\x07 (human)" in done.stdout, done.stdout
    assert "E \\x1b[2J (human)" in done.stdout
    assert "evil\\u202egnp\\u200b\\x9b2J" in done.stdout  # the card's name


def test_conventions_show_and_check_escape_a_crafted_card(tmp_path: Path,
                                                          call_jackal: CallJackal) -> None:
    path = tmp_path / "crafted.json"
    path.write_text(json.dumps(_crafted_card()), encoding="utf-8")
    words = call_jackal("conventions", "show", str(path))
    assert words.returncode == 0, words.stderr
    assert "evil\\u202egnp\\u200b\\x9b2J" in words.stdout
    as_json = call_jackal("conventions", "show", "--json", str(path))
    as_toml = call_jackal("conventions", "show", "--toml", str(path))
    assert_escaped(words.stdout, as_json.stdout, as_toml.stdout)
    # Escaped, and still the very same card when read back.
    assert json.loads(as_json.stdout)["name"] == CARD_TEXT
    assert json.loads(as_json.stdout)["notes"] == f"line\n{CARD_TEXT}"
    assert tomllib.loads(as_toml.stdout)["description"] == f"d {CARD_TEXT}"
    check = call_jackal("conventions", "check", str(path))
    assert check.returncode == 2
    assert "field 'name': must not contain a bidi control (U+202E" in check.stderr
    assert_escaped(check.stderr)


@pytest.mark.subprocess
def test_tournament_refuses_a_crafted_card_before_playing(tmp_path: Path,
                                                          run_jackal: RunJackal) -> None:
    path = tmp_path / "crafted.json"
    path.write_text(json.dumps(_crafted_card()), encoding="utf-8")
    done = run_jackal("tournament", "--entry", "a=random", "--entry", "b=random",
                      "--conventions", f"a={path}", "--boards", "1")
    assert done.returncode == 2, done.stderr
    assert "field '--conventions a.name': must not contain a bidi control" in done.stderr
    assert_escaped(done.stdout, done.stderr)


HAND = [Card.parse(text) for text in ("2H", "5S", "7D", "9C", "JH", "QS", "KD", "AC")]


def _state(status: str, card_name: str) -> bytes:
    card = builtin_card("beginner")
    crafted = type(card)(**{**{f: getattr(card, f) for f in card.__struct_fields__},
                            "name": card_name})
    return encode(TableState(
        table="t1", name=CLEAR, target=300, status=status,  # type: ignore[arg-type]
        seats=[SeatInfo(seat=seat, name=TITLE, kind="human" if seat is Seat.S else "bot",
                        connected=True, ready=False) for seat in Seat],
        conventions={Team.NS: crafted, Team.EW: crafted}, scores={Team.NS: 0, Team.EW: 0},
        deal=0, dealer=None, first=None, turn=None, rows={seat: [] for seat in Seat},
        you=Seat.S, hand=[]))


@pytest.mark.subprocess
async def test_bot_escapes_a_hostile_servers_text() -> None:
    """A server (old, or hostile) sends the strings in card names, a shutdown reason and
    the end of the match: ``jackal bot`` logs and prints them escaped."""
    connections = 0

    async def script(peer: Peer) -> None:
        nonlocal connections
        connections += 1
        hello = await peer.receive()
        if hello.get("token"):  # back after the "shutdown": end the match
            await peer.send({"type": "hello_ok", "name": "me", "table": "t1", "seat": "S",
                             "id": hello["id"]})
            await peer.stream.send_all(_state("over", CARD_TEXT))
            await peer.send({"type": "match_ended", "winner": "NS",
                             "scores": {"NS": 300, "EW": 0}})
            await trio.sleep_forever()
        await seat_client(peer, hello, _state("waiting", CARD_TEXT))
        crafted = {**json.loads(card_to_json(builtin_card("beginner"))), "name": CARD_TEXT}
        await peer.send({"type": "conventions_changed", "team": "EW", "card": crafted})
        await peer.send({"type": "question", "question": "q1", "seat": "S",
                         "asker": "E", "text": TITLE + CLEAR})
        await peer.send({"type": "server_shutdown", "reason": TITLE + CLEAR})

    async with trio.open_nursery() as nursery:
        port = await start_fake(nursery, script, {**WELCOME, "features": ["your_turn"]})
        done = await run_bot("--server", f"127.0.0.1:{port}", "--strategy", "random",
                             "--name", "me", timeout=60)
        nursery.cancel_scope.cancel()
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 0, err
    assert connections == 2, err
    assert_escaped(out, err)
    assert "server shutdown: \\x1b]0;pwned\\x07\\x1b[2J" in err, err
    assert "EW evil\\u202egnp\\u200b\\x9b2J" in err, err
