"""A mixed table plays a whole deal: two people in browsers (a phone and a desktop page of
one headless Chromium, each its own storage), one at ``jackal play`` in a real terminal
(tmux) and one speaking the protocol's bytes over a raw TCP socket, at a server in this
process. Each plays the cards it is shown; all four see the same deal end. Some seconds
(the terminal client's start is the dearest part)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import trio
from support.browser import Browser, Web, create_for_people, named, tap_cards
from support.client import RawClient, play_out
from support.screens import open_client, shows
from support.server import TIMEOUT
from support.tmux import TMUX, Tmux

pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed"),
              pytest.mark.subprocess, pytest.mark.tmux, pytest.mark.xdist_group("browser")]


def terminal_plays(player: Tmux, timeout: float = 4 * TIMEOUT) -> str:
    """Play like a patient person at the terminal (Enter: the card under the cursor)
    whenever it says it is our turn, until the deal is over; the last screen."""
    deadline = time.monotonic() + timeout
    while True:
        screen = player.screen()
        if "Deal over" in screen:
            return screen
        if "Your turn" in screen:
            player.keys("Enter")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for the deal's end; screen:\n{screen}")
        time.sleep(0.15)


async def test_two_browsers_a_terminal_and_a_raw_socket_play_a_deal(
        devtools: Browser, page_server: Web, screenshots: Path, tmp_path: Path,
        terminals: list[Tmux]) -> None:
    ann = await named(devtools, page_server.url, "Ann")
    table = await create_for_people(ann, "Ann seated at South")
    # The terminal client first: its start takes longest, and goes on while Bea sits.
    cy = open_client(terminals, tmp_path, "cy", f"127.0.0.1:{page_server.port}",
                     "--table", table, "--seat", "E")

    bea = await named(devtools, page_server.url, "Bea", 1280, 800)
    await bea.tap(f'[data-join="{table}/N"]')
    await bea.shows('section.table[data-you="N"]', "Bea seated at North")
    await bea.tap('[data-action="ready"]')

    dan = await RawClient.connect(page_server.port, "dan")
    await dan.hello()
    await dan.join(table, "W")
    assert (await dan.request(type="ready"))["type"] != "error"
    await trio.to_thread.run_sync(cy.wait, shows("you (n)"), "Cy seated, not ready")
    cy.keys("n")
    await ann.shows('section.table[data-status="playing"]', "the deal on Ann's page")
    await ann.screenshot(screenshots / "phone-mixed-table.png")

    tapped: dict[str, list[str]] = {}
    last: list[str] = []

    async def page_plays(seat: str, page_name: str) -> None:
        tapped[seat] = await tap_cards(ann if seat == "S" else bea, page_name)

    async def terminal() -> None:
        last.append(await trio.to_thread.run_sync(terminal_plays, cy,
                                                  abandon_on_cancel=True))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(page_plays, "S", "Ann")
        nursery.start_soon(page_plays, "N", "Bea")
        nursery.start_soon(terminal)
        await play_out(dan, lambda m: m["type"] == "deal_ended", ready_between=False,
                       timeout=4 * TIMEOUT)

    # What the raw socket saw is what each page tapped and the terminal played: 32 cards.
    plays = [m for m in dan.log if m["type"] == "played"]
    by_seat = {seat: [m["card"] for m in plays if m["seat"] == seat] for seat in "NESW"}
    assert by_seat["S"] == tapped["S"] and by_seat["N"] == tapped["N"], (by_seat, tapped)
    assert all(len(cards) == 8 for cards in by_seat.values()), by_seat
    ended = dan.log[-1]
    assert "Deal over" in last[0], last[0]
    for page in (ann, bea):
        summary = await page.js("document.querySelector('#summary').textContent")
        for side in ("NS", "EW"):
            assert f"{side}: penalty {ended['penalty'][side]}" in summary, summary
        assert not page.errors and not page.dialogs, (page.errors, page.dialogs)
    await bea.screenshot(screenshots / "desktop-mixed-summary.png")
    await dan.aclose()
