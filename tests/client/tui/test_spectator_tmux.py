"""A spectator's terminal at a table where people play, with the real ``jackal serve``
and real ``jackal play`` clients in tmux: what it says when it starts watching and when
the players pause. Every wait is for something on a screen, never a fixed sleep."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.client import create_table
from support.screens import both_ready, open_client, pause_agreed, shows
from support.server import ServerProcess
from support.tmux import TMUX, Tmux

pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed"),
              pytest.mark.subprocess, pytest.mark.tmux]



def test_a_spectator_is_told_once_and_not_offered_the_players_keys(
        tmp_path: Path, terminals: list[Tmux]) -> None:
    server = ServerProcess(tmp_path, "--bot-pause", "0", "--turn-seconds", "60")
    try:
        table = create_table(server.port, {"E": "greedy", "W": "greedy"}, target=1,
                             seed=3, name="oak")
        address = f"127.0.0.1:{server.port}"
        eve = open_client(terminals, tmp_path, "eve", address)
        eve.wait(shows("oak"), "the table listed")
        eve.keys("s")
        eve.wait(shows("Watching table oak"), "watching")
        # Whatever the log shows after the snapshot came after both of its copies (the
        # reply and the event queue's): kim sitting down is logged after them.
        kim = open_client(terminals, tmp_path, "kim", address, "--table", table,
                          "--seat", "N")
        screen = eve.wait(shows("kim sits at N"), "kim sitting down")
        assert screen.count("Watching table oak") == 1, screen
        lou = open_client(terminals, tmp_path, "lou", address, "--table", table,
                          "--seat", "S")
        both_ready(kim, lou)
        _, _, asker = pause_agreed(kim, lou)
        screen = eve.wait(shows(f"PAUSED by {asker}"), "PAUSED on the spectator's screen")
        # Only the players resume: the spectator is not told to press p.
        assert "p resumes" not in screen and "Press p" not in screen, screen
        assert "The table is paused (asked by" in screen, screen
    finally:
        server.stop()
