"""The terminal client (real ``jackal play`` in tmux, 80x24) draws other people's names
safely: a 32-character fullwidth name leaves every card on the screen, and escape
sequences, C1, bidi and zero-width characters show as escapes. Today's server refuses
such names, but a record written before it did is restored with them, as here."""

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


def test_wide_and_hostile_names_from_an_old_record(tmp_path: Path) -> None:
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
        # kim's client holds S's token, as after a crash: it takes the seat back.
        state = tmp_path / "state-kim"
        SeatStore(state / "jackal").save(f"127.0.0.1:{server.port}", made.table.id, "S",
                                         made.tokens[Seat.S], "kim")
        terminal = Tmux([*JACKAL, "play", "--server", f"127.0.0.1:{server.port}",
                         "--name", "kim", "--no-bell"], tmp_path, name="kim",
                        env={"XDG_STATE_HOME": str(state)})
        screen = terminal.wait(lambda s: "S kim (you)" in s and "Your turn" in s,
                               "kim back at S, on turn")
        north = next(line for line in screen.splitlines() if " N Ｗ" in line)
        # Every card of the wide-named seat stays on the 80-column screen.
        assert all(card in north for card in rows["N"]), screen
        assert "\\x1b]0;pwned\\x07" in screen, screen
        assert "evil\\u202egnp\\u200b" in screen, screen
        assert not [ch for ch in RAW if ch in screen], screen
        header = screen.splitlines()[0]
        assert "connected" in header, screen  # the status is not pushed off either
        assert "EW: ew\\u202ecard" in screen, screen
        # The opponents' card in words (c): its name and notes escaped too.
        terminal.keys("c")
        terminal.wait(lambda s: "Convention cards" in s, "the cards panel")
        terminal.keys(*["Down"] * 80)  # to the end: the EW card's notes come last
        screen = terminal.wait(lambda s: "see\\u200b\\x9b2J me" in s, "the cards panel")
        assert not [ch for ch in RAW if ch in screen], screen
    finally:
        if terminal is not None:
            terminal.close()
        server.stop()
