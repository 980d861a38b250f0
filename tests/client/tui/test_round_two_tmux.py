"""Issue 32 in real terminals (80x24 and the smallest, 66x23): a card the clock plays for
one player is marked on the partner's screen too, and the full log opens at its newest
line and scrolls with End and PgDn without closing. Real ``jackal serve``, real clients
in tmux; every wait is for screen content, never a fixed sleep."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.client import create_table
from support.screens import both_ready, open_client
from support.server import ServerProcess
from support.tmux import TMUX, Tmux

pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed"),
              pytest.mark.subprocess, pytest.mark.tmux]


def test_partner_sees_the_clocks_card_marked_and_the_log_scrolls(
        tmp_path: Path, terminals: list[Tmux]) -> None:
    server = ServerProcess(tmp_path, "--bot-pause", "0")
    try:
        table = create_table(server.port, {"E": "greedy", "W": "greedy"}, target=100_000,
                             seed=9, turn_seconds=5)
        address = f"127.0.0.1:{server.port}"
        # Neither plays: each card of theirs is the clock's.
        wes = open_client(terminals, tmp_path, "wes", address, "--table", table,
                          "--seat", "N")
        sue = open_client(terminals, tmp_path, "sue", address, "--table", table,
                          "--seat", "S", width=66, height=23)
        both_ready(wes, sue)  # sitting down is not being ready
        clock_card = re.compile(r"N wes played (\w\w) \(1st\) ~ by the clock")
        screen = sue.wait(lambda s: clock_card.search(s) is not None,
                          "wes's clock card on the partner's screen")
        card = clock_card.search(screen)
        assert card is not None
        row = next(line for line in screen.splitlines() if line.startswith(("  N wes",
                                                                          "> N wes")))
        assert f"{card.group(1)}~" in row, screen
        assert "CLOCK 5s" in screen.splitlines()[1], screen
        wes.wait(lambda s: re.search(r"substitute played \w\w for you", s) is not None,
                 "wes told on his own screen")
        # The full log: open at its newest line; End and PgDn keep it open.
        sue.keys("l")
        opened = sue.wait(lambda s: "Event log" in s, "the log panel")
        inside = [line for line in opened.splitlines()
                  if line.startswith("│") and line.strip("│ ")]
        assert any("~ by the clock" in line for line in inside[-8:]), opened
        for key in ("End", "NPage", "PPage", "Home"):
            sue.keys(key)
            screen = sue.wait(lambda s: "Event log" in s, f"the log panel after {key}")
            inside = [line for line in screen.splitlines() if line.startswith("│")]
            assert inside and inside[0].strip("│ "), (key, screen)  # never a blank page
        sue.keys("Escape")
        sue.wait(lambda s: "Event log" not in s, "the panel closed by Escape")
    finally:
        server.stop()
