"""The page in a real browser (headless Chromium): a whole deal against three server bots
played by tapping cards on a phone-sized page, checked against what a spectator on TCP
saw; a hostile name shown as text to another player; screenshots at phone and desktop
size for the run to keep; a tap whose press and release straddle a message still counts;
an invitation code being typed survives the lobby being drawn again.
One Chromium for the module; a test takes a few seconds."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from support.browser import Browser, Web, create_for_people, named, tap_card, tap_cards
from support.client import greeted, new_table
from support.server import TIMEOUT

pytestmark = [pytest.mark.subprocess, pytest.mark.xdist_group("browser")]

#: The name of a player who hopes the page parses names as HTML.
HOSTILE = "<img src=x onerror=alert(1)>"


async def test_a_whole_deal_against_three_bots_by_tapping_cards(
        devtools: Browser, page_server: Web, screenshots: Path) -> None:
    page = await named(devtools, page_server.url, "Ada")
    await page.screenshot(screenshots / "phone-lobby.png")
    # The form's bots are all ticked at first: create, and the deal starts at once.
    for seat in "NEW":
        assert await page.js(f"document.querySelector('#bot{seat}').checked")
    await page.tap('[data-action="create"]')
    table = await page.wait(
        "document.querySelector('section.table[data-you=\"S\"][data-status=\"playing\"]')"
        "?.dataset.table", "the deal to start")
    watcher = await greeted(page_server.port, "watcher")
    reply = await watcher.request(type="spectate", table=table)
    assert reply["type"] == "table_state", reply

    tapped = [card for _ in range(4) if (card := await tap_card(page, "Ada")) is not None]
    # Half-way, on Ada's turn: the picture of the page at play (README's is one of these).
    await page.shows("#hand [data-playable]", "Ada's fifth turn")
    await page.screenshot(screenshots / "phone-deal.png")
    tapped += await tap_cards(page, "Ada")
    await page.screenshot(screenshots / "phone-summary.png")
    # South's eight cards are those Ada tapped, in her order, as the server saw them
    # (nothing of South's was played before the watcher came: Ada had not tapped yet),
    # and the page's summary gives the server's penalties.
    got = await watcher.recv_until(lambda m: m["type"] == "deal_ended", 30)
    seen = [m["card"] for m in got if m["type"] == "played" and m["seat"] == "S"]
    assert seen == tapped and len(tapped) == 8, (seen, tapped)
    summary = await page.js("document.querySelector('#summary').textContent")
    for side in ("NS", "EW"):
        assert f"{side}: penalty {got[-1]['penalty'][side]}" in summary, summary
    assert not page.errors and not page.dialogs, (page.errors, page.dialogs)

    await page.resize(1280, 800)
    await page.shows("#summary", "the summary on a desktop")
    await page.screenshot(screenshots / "desktop-summary.png")
    await watcher.aclose()


async def test_a_hostile_name_is_shown_as_text_to_another_player(
        devtools: Browser, page_server: Web, screenshots: Path) -> None:
    mallory = await named(devtools, page_server.url, HOSTILE, 1280, 800)
    table = await create_for_people(mallory, "Mallory seated")

    bea = await named(devtools, page_server.url, "Bea", 1280, 800)
    # The lobby lists Mallory at South of her table: as text.
    await bea.wait(f"document.querySelector('li[data-table=\"{table}\"]')"
                   f"?.textContent.includes({HOSTILE!r})", "the table in Bea's lobby")
    await bea.screenshot(screenshots / "desktop-lobby.png")
    # Her name is too long for the default table name: it is cut, not "'s table".
    named_as = await bea.js(f"document.querySelector('li[data-table=\"{table}\"] strong')"
                            ".textContent")
    assert named_as == HOSTILE[:24] + "'s table", named_as
    await bea.tap(f'[data-join="{table}/N"]')
    shown = await bea.wait("document.querySelector('section.table[data-you=\"N\"] "
                           "[data-seat-name=\"S\"]')?.textContent", "Bea seated")
    assert shown.startswith(HOSTILE), shown
    await mallory.type("#chat-input", HOSTILE)
    await mallory.tap("form#chat button[type=submit]")
    line = await bea.wait("[...document.querySelectorAll('#chat-log li')].map(li => "
                          f"li.textContent).find(t => t.includes({HOSTILE!r}))",
                          "Mallory's chat line")
    assert HOSTILE in line
    await bea.screenshot(screenshots / "desktop-hostile-name.png")
    for page in (bea, mallory):
        # No element was made from the text, nothing ran, nothing failed.
        assert await page.count("img") == 0
        assert await page.count("[onerror]") == 0
        assert not page.dialogs and not page.errors, (page.dialogs, page.errors)


async def test_a_tap_survives_a_message_that_comes_while_the_finger_is_down(
        devtools: Browser, page_server: Web) -> None:
    host = await greeted(page_server.port, "Hal")
    table = await new_table(host, name="Hal's")
    await host.join(table, "S")
    bea = await named(devtools, page_server.url, "Bea")
    await bea.tap(f'[data-join="{table}/N"]')
    await bea.shows('section.table[data-you="N"] [data-action="ready"]', "Bea's Ready button")
    await bea.listen()
    # The button is marked: a redraw would put an unmarked one in its place.
    await bea.js("document.querySelector('[data-action=\"ready\"]').dataset.probe = 'kept'")
    x, y = await bea.press('[data-action="ready"]')
    await host.send(type="chat", text="said while Bea presses")
    with trio.fail_after(TIMEOUT):
        while not any("said while Bea presses" in frame for frame in bea.frames):
            await trio.sleep(0.05)
    assert await bea.js("document.querySelector('[data-action=\"ready\"]')?.dataset.probe"
                        ) == "kept", "the page was redrawn under the finger"
    await bea.release(x, y)
    # The one tap said ready, and the line held back meanwhile shows now.
    await bea.wait("!document.querySelector('[data-action=\"ready\"]')", "Bea's ready")
    await bea.wait("document.querySelector('#chat-log').textContent"
                   ".includes('said while Bea presses')", "the chat line")
    assert not bea.errors and not bea.dialogs, (bea.errors, bea.dialogs)
    await host.aclose()


async def test_an_invitation_code_half_typed_outlives_a_lobby_redraw(
        devtools: Browser, page_server: Web) -> None:
    page = await named(devtools, page_server.url, "Cleo")
    creator = await greeted(page_server.port, "creator")
    reply = await creator.request(type="create_table", private=True)
    table, code = reply["table"], reply["invitations"]["E"]
    box = f"#code-{table}"
    await page.shows(box, "the private table's code box")
    await page.type(box, code[:5])
    # Another table appears: the lobby is drawn again while the code is being typed.
    other = await new_table(creator)
    await page.shows(f'[data-watch="{other}"]', "the new table in the lobby")
    assert await page.js(f"document.querySelector('{box}').value") == code[:5]
    assert await page.js("document.activeElement.id") == box[1:]
    await page.send("Input.insertText", text=code[5:])
    await page.tap(f'[data-code="{table}"] button')
    await page.wait(f"document.querySelector('section.table[data-you=\"E\"]')?.dataset.table"
                    f" === '{table}'", "Cleo at East by the code")
    assert not page.errors, page.errors
    await creator.aclose()
