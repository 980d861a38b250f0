"""Private tables in the terminal client (issue 21, item 4): the creator makes one from the
lobby's create dialog and reads the seat codes off the screen; a friend takes a seat with
``jackal play --table T --invite CODE``. Real ``jackal serve``, real clients in tmux; every
wait is for screen content, never a fixed sleep."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.screens import open_client, shows
from support.server import ServerProcess
from support.tmux import TMUX, Tmux

pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed"),
              pytest.mark.subprocess, pytest.mark.tmux]


CODE_RE = re.compile(r"\b([NESW]) ([a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4})\b")


def answer(terminal: Tmux, prompt: str, text: str) -> None:
    """Wait for a prompt of the create dialog, then type ``text`` and Enter."""
    terminal.wait(shows(prompt), f"the prompt {prompt!r}")
    if text:
        terminal.keys("-l", text)
    terminal.keys("Enter")


def test_the_create_dialog_makes_a_private_table_and_an_invited_friend_sits_down(
        tmp_path: Path, terminals: list[Tmux]) -> None:
    server = ServerProcess(tmp_path)
    try:
        address = f"127.0.0.1:{server.port}"
        ada = open_client(terminals, tmp_path, "ada", address)
        ada.wait(shows("No tables yet"), "the empty lobby")
        ada.keys("c")
        answer(ada, "New table name", "friends")
        answer(ada, "Target in victory points", "")
        # A card name is checked as it is typed, against the choices the prompt lists
        # (issue 32: the server refused it after the last prompt, losing every answer).
        ada.wait(shows("NS convention card (advanced, beginner, none; Enter = beginner)"),
                 "the cards listed")
        ada.keys("-l", "begx")
        ada.wait(shows("card is called 'begx'"), "the unknown card named at once")
        ada.keys("BSpace")
        ada.keys("-l", "inner")
        answer(ada, "beginner", "")
        answer(ada, "EW convention card", "")
        answer(ada, "Allow hints", "")
        answer(ada, "Clock, seconds per card", "2")  # under the minimum: refused
        ada.wait(shows("at least 5"), "the clock refused")
        ada.keys("BSpace")
        answer(ada, "Clock, seconds per card", "30")
        answer(ada, "Private, seats by invitation", "y")
        answer(ada, "Allow spectators at the private table", "")
        screen = ada.wait(shows("Invitation codes to pass on"), "the codes on screen")
        assert "by ada" in screen and "PRIVATE: seats by invitation code" in screen, screen
        assert "no spectators" in screen, screen
        codes = dict(CODE_RE.findall(screen))
        assert set(codes) == {"N", "E", "S", "W"}, screen
        header = server.record_events()[0]
        assert header["event"] == "table" and header["turn_seconds"] == 30, header
        assert header["creator"] == "ada" and header["allow_spectators"] is False, header
        table = header["table"]
        # The server cannot show the codes again: a restarted client still has them.
        ada.kill_program()
        ada = open_client(terminals, tmp_path, "ada", address)
        screen = ada.wait(shows("Invitation codes to pass on"), "the codes after a restart")
        assert dict(CODE_RE.findall(screen)) == codes, screen

        # A wrong code takes nothing; the right one takes its seat.
        carl = open_client(terminals, tmp_path, "carl", address, "--table", table,
                           "--invite", "abcd-efgh-jkmn-pqrs")
        carl.wait(shows("not_invited"), "the wrong code refused")
        bob = open_client(terminals, tmp_path, "bob", address, "--table", table,
                          "--invite", codes["W"])
        bob.wait(shows("W bob (you)"), "bob at W")
        # From the lobby: no watching, and Enter asks for a code, which picks the seat;
        # read out and typed back with spaces, in capitals, on the smallest screen.
        eve = open_client(terminals, tmp_path, "eve", address, width=66, height=23)
        eve.wait(shows("PRIVATE: seats by invitation code"), "the private table listed")
        eve.keys("s")
        eve.wait(shows("friends allows no spectators"), "watching refused")
        eve.keys("Enter")
        answer(eve, "friends is private. Invitation code:",
               codes["E"].upper().replace("-", " "))
        eve.wait(shows("E eve (you)"), "eve at E")
        # The creator's own Enter uses its own code for the seat it picks.
        ada.keys("Enter")
        answer(ada, "Seat at friends", "N")
        screen = ada.wait(shows("N ada (you)"), "ada at N")
        # At the table the codes stay at hand in the log, for friends who come late.
        assert codes["E"] in screen and codes["S"] in screen, screen
        seated = {e["seat"]: e["name"] for e in server.record_events()
                  if e["event"] == "seat" and e["kind"] == "human"}
        assert seated == {"W": "bob", "E": "eve", "N": "ada"}, seated
    finally:
        server.stop()
