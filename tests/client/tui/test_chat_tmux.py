"""Chat and pause with the real ``jackal serve`` and real ``jackal play`` clients in real
terminals (tmux). Every wait is for something on a screen, never a fixed sleep; the one
check over time (a paused clock stands still) watches the screen for a while and fails
on the first screen that shows otherwise."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support.client import create_table
from support.screens import both_ready, open_client, pause_agreed, shows
from support.server import TIMEOUT, ServerProcess
from support.tmux import TMUX, Tmux

pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed"),
              pytest.mark.subprocess, pytest.mark.tmux]



def say(player: Tmux, text: str) -> None:
    """m, the text, Enter: one chat line."""
    player.keys("m")
    player.wait(shows("Say to"), "the chat prompt")
    player.keys("-l", text)
    player.keys("Enter")


def test_chat_in_the_lobby_and_at_the_table_but_not_during_a_deal(
        tmp_path: Path, terminals: list[Tmux]) -> None:
    server = ServerProcess(tmp_path, "--bot-pause", "0", "--between-deals", "120")
    try:
        table = create_table(server.port, {"E": "greedy", "W": "greedy"}, target=1000,
                             seed=3)
        address = f"127.0.0.1:{server.port}"
        ann, bob = (open_client(terminals, tmp_path, name, address) for name in ("ann", "bob"))
        for player in (ann, bob):
            player.wait(shows("table(s) on the server"), "the lobby")
        say(ann, "anyone for jackal?")
        bob.wait(shows("[lobby] ann: anyone for jackal?"), "ann's line in bob's lobby")
        ann.wait(shows("[lobby] ann: anyone for jackal?"), "ann's own line")

        kim, lou = (open_client(terminals, tmp_path, name, address, "--table", table,
                                "--seat", seat)
                    for name, seat in (("kim", "N"), ("lou", "S")))
        # Sitting down is not being ready: a moment to greet each other first.
        for player in (kim, lou):
            player.wait(shows("you (n)"), "the table waiting for its players")
        say(kim, "hi lou")
        lou.wait(shows("kim (N): hi lou"), "kim's greeting")
        for player in (kim, lou):
            player.keys("n")
        for player in (kim, lou):
            player.wait(shows("Deal 1"), "the deal")
        kim.keys("m")
        kim.wait(shows("No chat during a deal"), "the rule of the game, said")
        assert "Say to" not in kim.screen()
        play_until([kim, lou], lambda: "Press n when ready" in kim.screen()
                   and "Press n when ready" in lou.screen(), "the end of deal 1")
        say(kim, "well played, lou")
        lou.wait(shows("kim (N): well played, lou"), "kim's line at lou's table")
        kim.wait(shows("kim (N): well played, lou"), "kim's own line")
        # The lobby does not hear the table.
        assert "well played" not in bob.screen()
        chat_lines = [e for e in server.record_events() if e["event"] == "chat"]
        assert [(e["name"], e["text"]) for e in chat_lines] == [
            ("kim", "hi lou"), ("kim", "well played, lou")]
    finally:
        server.stop()


def play_until(players: list[Tmux], until: Callable[[], bool], what: str) -> None:
    """Enter (the lowest card) whenever a screen says it is that player's turn, until
    ``until()``; never n (the deal's end is what the test waits for)."""
    deadline = time.monotonic() + 3 * TIMEOUT
    while not until():
        for player in players:
            if "Your turn" in player.screen():
                player.keys("Enter")
        if time.monotonic() > deadline:
            shown = "\n\n".join(p.screen() for p in players)
            raise AssertionError(f"timed out waiting for {what}; screens:\n{shown}")
        time.sleep(0.15)


def _seconds_left(screen: str) -> int | None:
    found = re.search(r"(\d+)s left", screen)
    return int(found.group(1)) if found else None


def test_a_pause_stops_the_clock_until_someone_resumes(
        tmp_path: Path, terminals: list[Tmux]) -> None:
    server = ServerProcess(tmp_path, "--bot-pause", "0", "--turn-seconds", "40")
    try:
        table = create_table(server.port, {"E": "greedy", "W": "greedy"}, target=1, seed=3)
        address = f"127.0.0.1:{server.port}"
        kim, lou = (open_client(terminals, tmp_path, name, address, "--table", table,
                                "--seat", seat)
                    for name, seat in (("kim", "N"), ("lou", "S")))
        both_ready(kim, lou)
        mover, other, asker = pause_agreed(kim, lou)
        for player in (kim, lou):
            player.wait(shows(f"PAUSED by {asker}"), "PAUSED in the header")
        stopped = _seconds_left(mover.wait(lambda s: _seconds_left(s) is not None,
                                           "the clock"))
        # For three seconds every screen shows the same seconds left: the clock stands.
        until = time.monotonic() + 3
        while time.monotonic() < until:
            screen = mover.screen()
            assert f"PAUSED by {asker}" in screen, screen
            assert _seconds_left(screen) == stopped, screen
            time.sleep(0.2)
        moves = len([e for e in server.record_events() if e["event"] == "play"])
        other.keys("p")  # either may resume
        for player in (kim, lou):
            player.wait(lambda s: "PAUSED" not in s, "the pause over")
        assert stopped is not None
        mover.wait(lambda s: (_seconds_left(s) or stopped) < stopped, "the clock running")
        assert len([e for e in server.record_events() if e["event"] == "play"]) == moves
    finally:
        server.stop()
