"""The page reclaims its seat by itself: ``jackal serve --web`` in a subprocess is SIGKILLed
mid-deal and started again on the same ports and records; the page, untouched, comes
back to its seat with the cards played so far and plays the deal out. Some seconds: two
server starts and the page's reconnect pause."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import trio
from support.browser import ROW, Browser, named, tap_card, tap_cards
from support.server import TIMEOUT, ServerProcess

pytestmark = [pytest.mark.subprocess, pytest.mark.xdist_group("browser")]


async def web_port(server: ServerProcess, starts: int) -> int:
    """The web port the server's ``starts``-th start logged (after its TCP port)."""
    with trio.fail_after(TIMEOUT):
        while len(found := re.findall(r"web page on http://127\.0\.0\.1:(\d+)/",
                                      server.log())) < starts:
            await trio.sleep(0.05)
    return int(found[starts - 1])


async def test_the_page_reclaims_its_seat_after_a_server_restart(
        devtools: Browser, tmp_path: Path) -> None:
    server = await trio.to_thread.run_sync(ServerProcess, tmp_path, "--web", "0",
                                           "--bot-pause", "0.05")
    try:
        port = await web_port(server, 1)
        # The same web port on every later start (the page knows only its own address).
        server.extra = ("--bot-floor", "0", "--web", str(port), "--bot-pause", "0.05")
        page = await named(devtools, f"http://127.0.0.1:{port}/", "Ada")
        await page.tap('[data-action="create"]')
        await page.shows('section.table[data-you="S"][data-status="playing"]',
                         "the deal to start")
        # Two of Ada's cards, then the server dies without a word.
        for _ in range(2):
            assert await tap_card(page, "Ada") is not None
        played = await page.js(ROW)  # South's row: the page showed it at South
        assert len(played) == 2, played
        await trio.to_thread.run_sync(server.kill)
        await page.wait("!!document.querySelector('#note')?.textContent"
                        ".includes('Connection lost')", "the page to see the drop")
        assert not await page.count("#hand [data-playable]")

        await trio.to_thread.run_sync(server.start)
        assert await web_port(server, 2) == port
        # Nothing is done to the page: it reconnects, says hello with its token and is
        # South again, with the deal as it was.
        await page.shows('section.table[data-you="S"][data-status="playing"]',
                         "the seat reclaimed")
        again = await page.js(ROW)
        assert again == played
        rest = await tap_cards(page, "Ada")
        assert len(rest) == 6 and not set(rest) & set(played), (played, rest)
        assert not page.errors and not page.dialogs, (page.errors, page.dialogs)
    finally:
        await trio.to_thread.run_sync(server.stop)
