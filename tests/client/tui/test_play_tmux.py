"""The real ``jackal play`` in a real terminal (tmux), read back with ``capture-pane``;
and the clear refusal without a terminal."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.server import TIMEOUT
from support.tmux import TMUX, Tmux

pytestmark = pytest.mark.subprocess


def test_without_a_terminal_it_exits_2_with_a_clear_message() -> None:
    done = subprocess.run([sys.executable, "-m", "jackal.cli.main", "play"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 2
    assert "jackal play needs a terminal" in done.stderr
    assert done.stdout == ""


def test_a_bad_option_is_refused_with_status_2() -> None:
    done = subprocess.run([sys.executable, "-m", "jackal.cli.main", "play", "--target", "0"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 2 and "target must be at least 1" in done.stderr


@pytest.fixture
def tmux_play(tmp_path: Path) -> Iterator[Tmux]:
    if TMUX is None:
        pytest.skip("tmux is not installed")
    session = Tmux([sys.executable, "-m", "jackal.cli.main", "play", "--seed", "5",
                    "--partner", "random", "--opponents", "random", "--name", "ada",
                    "--bot-pause", "0"],
                   tmp_path)
    try:
        yield session
    finally:
        session.close()


@pytest.mark.tmux
def test_jackal_play_under_tmux(tmux_play: Tmux) -> None:
    text = tmux_play.wait(lambda s: ("Your turn" in s or "Waiting for" in s)
                          and "dealt when" not in s, "the table and the dealt hand")
    lines = text.splitlines()
    assert len(lines) <= 24
    for label in ("S ada (you)", "N random bot", "E random bot", "W random bot"):
        assert label in text
    assert "Score" in text and "NS 0" in text
    hand = next(line for line in lines if line.startswith(" Hand"))
    assert len(hand.replace("[", " ").replace("]", " ").split()) == 14  # "Hand" + 13 cards
    text = tmux_play.wait(lambda s: "Your turn" in s, "my turn")
    tmux_play.keys("Enter")  # play the lowest card
    text = tmux_play.wait(lambda s: "You played" in s, "my play in the log")
    # A card not in the hand is explained where it was typed.
    hand_cards = next(line for line in text.splitlines() if line.startswith(" Hand"))
    missing = next(f"{r}{s}" for r in "A23456789TJQK" for s in "SHDC"
                   if f"{r}{s}" not in hand_cards and f"{r}{s}" not in text)
    tmux_play.wait(lambda s: "Your turn" in s, "my second turn")
    tmux_play.keys(missing.lower(), "Enter")
    tmux_play.wait(lambda s: f"{missing} is not in your hand" in s, "the refusal")
    # The built-in game allows hints: x shows the expert's card and why, in a panel.
    tmux_play.keys("x")
    text = tmux_play.wait(lambda s: "bot would play" in s and "Under your" in s, "the hint")
    assert "HINTS" in text.splitlines()[1]  # the header says the table allows them
    tmux_play.keys("Escape")
    tmux_play.wait(lambda s: "You took a hint for your 2nd card" in s, "the notice in the log")
    tmux_play.keys("?")
    tmux_play.wait(lambda s: "Ctrl-Q / Ctrl-C" in s, "the key help")
    tmux_play.keys("Escape")
    tmux_play.keys("C-q")
    tmux_play.wait(lambda s: "Leave the match?" in s, "the quit question")
    tmux_play.keys("y")
    assert tmux_play.wait_exit() == 0
