"""The terminal client (real ``jackal play`` in tmux, 80x24) and names it must not draw
raw: a record holding the red team's names (escape sequences, C1, bidi and zero-width
characters, a 32-character fullwidth name) is no longer restored by the server, which
checks a record's text as the wire's, so the client is told its seat is gone."""

from __future__ import annotations

from pathlib import Path

import pytest
from jackal.client.seat_store import SeatStore
from jackal.game.seats import SEATS, Seat
from support.records import lines, record_match, rewrite
from support.server import JACKAL, ServerProcess
from support.tmux import TMUX, Tmux

pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed"),
              pytest.mark.subprocess, pytest.mark.tmux]

WIDE = "Ｗ" * 32
NAMES = {"N": WIDE, "E": "\x1b]0;pwned\x07", "W": "evil\u202egnp\u200b\x9b", "S": "kim"}
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u200b")


def test_a_record_with_hostile_names_is_not_served(tmp_path: Path) -> None:
    # A match one play from its end (seed 5: S plays last), with the red team's names
    # and a fullwidth table name written into its record.
    made = record_match(tmp_path / "records", humans=tuple(SEATS),
                        until=lambda table: table.match.deal is not None
                        and table.match.deal.plays_made >= 31)
    events = lines(made.path)
    for event in events:
        if event["event"] == "seat":
            event["name"] = NAMES[event["seat"]]
        elif event["event"] == "table":
            event["name"] = WIDE
        elif event["event"] == "conventions" and event["team"] == "EW":
            event["card"].update(name="ew\u202ecard", notes="see\u200b\x9b2J me")
    rewrite(made.path, events)
    rows = {seat: [e["card"] for e in events if e["event"] == "play" and e["seat"] == seat]
            for seat in NAMES}
    assert len(rows["N"]) == 8 and len(rows["S"]) == 7, rows

    server = ServerProcess(tmp_path, "--hold-seconds", "600")
    terminal = None
    try:
        # kim's client holds S's token, as after a crash: it tries to take the seat back.
        # Records are data from outside (issue 30 item 11): the server checks their text
        # with the wire's rules and moved this one aside, so nothing of it is served.
        assert made.path.with_name(made.path.name + ".corrupt").exists()
        state = tmp_path / "state-kim"
        SeatStore(state / "jackal").save(f"127.0.0.1:{server.port}", made.table.id, "S",
                                         made.tokens[Seat.S], "kim")
        terminal = Tmux([*JACKAL, "play", "--server", f"127.0.0.1:{server.port}",
                         "--name", "kim", "--no-bell"], tmp_path, name="kim",
                        env={"XDG_STATE_HOME": str(state)})
        screen = terminal.wait(lambda s: "no longer held" in s, "kim told the seat is gone")
        assert "0 table(s) on the server" in screen, screen
        assert not [ch for ch in RAW if ch in screen], screen
    finally:
        if terminal is not None:
            terminal.close()
        server.stop()
