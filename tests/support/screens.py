"""Driving ``jackal play`` in tmux at a LAN table: open a client, read its screen."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from support.server import JACKAL, TIMEOUT
from support.tmux import Tmux


def open_client(terminals: list[Tmux], tmp: Path, name: str, server: str,
                *extra: str, width: int = 80, height: int = 24) -> Tmux:
    """``jackal play --server`` in a terminal of its own (``width`` x ``height``). Each
    player has a state folder of their own, as on their own laptop."""
    terminal = Tmux([*JACKAL, "play", "--server", server, "--name", name, "--no-bell",
                     *extra], tmp, name=name, width=width, height=height,
                    env={"XDG_STATE_HOME": str(tmp / f"state-{name}")})
    terminals.append(terminal)
    return terminal


def shows(text: str) -> Callable[[str], bool]:
    """A screen check: ``text`` is on the screen."""
    return lambda screen: text in screen


def header(screen: str) -> str:
    return screen.splitlines()[0] if screen else ""


def human_turns(players: list[Tmux], until: Callable[[], bool], what: str,
                timeout: float = 3 * TIMEOUT) -> None:
    """Play like a patient human: Enter (the lowest card) whenever a screen says it is
    that player's turn, n before the first deal and after each; until ``until()``."""
    deadline = time.monotonic() + timeout
    while not until():
        for player in players:
            screen = player.screen()
            if "Your turn" in screen:
                player.keys("Enter")
            elif "Press n when ready" in screen or "you (n)" in screen:
                player.keys("n")
        if time.monotonic() > deadline:
            shown = "\n\n".join(p.screen() for p in players)
            raise AssertionError(f"timed out waiting for {what}; screens:\n{shown}")
        time.sleep(0.15)


def both_ready(*players: Tmux) -> None:
    """Each player, seated at a table waiting for its first deal, presses n (sitting down
    is not being ready)."""
    for player in players:
        player.wait(shows("you (n)"), "the table waiting for its players")
    for player in players:
        player.keys("n")


def pause_agreed(north: Tmux, south: Tmux) -> tuple[Tmux, Tmux, str]:
    """The one whose turn it is asks for a pause (during a deal one asks on one's own
    turn) and the other agrees: (the one who asked, the other, the asker's seat)."""
    deadline = time.monotonic() + 30
    while True:
        mover = next((p for p in (north, south) if "Your turn" in p.screen()), None)
        if mover is not None:
            break
        assert time.monotonic() < deadline, north.screen() + south.screen()
        time.sleep(0.1)
    other = south if mover is north else north
    asker = "N" if mover is north else "S"
    mover.keys("p")
    other.wait(shows(f"{asker} asks a pause (p agrees)"), "the request")
    other.keys("p")
    return mover, other, asker
