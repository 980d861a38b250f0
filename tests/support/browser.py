"""Headless Chromium for the browser tests, driven over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: NUL-ended JSON on the browser's fds 3 and 4) from trio.
One :class:`Chromium` process lives for a whole test module; each test talks to it
through a :class:`Browser`, and each player is a :class:`Page` in a browser context of
its own (its own localStorage, as on another phone)."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import trio

from support.server import TIMEOUT

#: Debian's chromium (installed by .ci/run); the browser tests skip without it.
CHROMIUM = "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") \
    else shutil.which("chromium")
#: Quiet and offline: no GPU, no QUIC, nothing fetched in the background, no crash
#: reporter left behind; timers of a page that is not in front run at full speed (every
#: player's page is a window of the same browser, and reconnecting runs on timers).
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-breakpad", "--disable-crash-reporter", "--disable-extensions",
         "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
         "--disable-backgrounding-occluded-windows", "--mute-audio", "--hide-scrollbars")
#: Seconds between two looks at the page while waiting for it.
POLL = 0.05


class Chromium:
    """One headless Chromium process with a fresh profile under ``folder``.

    Plain (not trio) so that it can outlive one test's trio run: a module-scoped fixture
    holds it, and bytes read but not yet split into messages stay in :attr:`buffer`."""

    def __init__(self, folder: Path) -> None:
        assert CHROMIUM is not None
        to_browser, self.write_fd = os.pipe()
        self.read_fd, from_browser = os.pipe()
        # The browser wants its pipe on fds 3 and 4; bash moves them there (dash cannot
        # name fds above 9), from fds placed high enough not to collide with 3 and 4.
        low = [to_browser, from_browser]
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in low]
        for fd in low:
            os.close(fd)
        script = f'exec "$@" 3<&{high[0]} 4>&{high[1]} {high[0]}<&- {high[1]}>&-'
        self.log_path = folder / "chromium.log"
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                ["bash", "-c", script, "chromium", CHROMIUM, *FLAGS,
                 f"--user-data-dir={folder / 'profile'}", "--remote-debugging-pipe",
                 "about:blank"],
                pass_fds=high, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True)
        for fd in high:
            os.close(fd)
        self.buffer = bytearray()
        self.next_id = 0

    def close(self) -> None:
        """End the browser and every process it started (its own process group)."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
                self.proc.wait(5)
                break
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # helpers the browser left behind
        for fd in (self.write_fd, self.read_fd):
            os.close(fd)


class Browser:
    """A test's side of the pipe: commands by id, events to whoever listens."""

    def __init__(self, chromium: Chromium, nursery: trio.Nursery) -> None:
        self.chromium = chromium
        self.nursery = nursery
        self._out = trio.lowlevel.FdStream(os.dup(chromium.write_fd))
        self._in = trio.lowlevel.FdStream(os.dup(chromium.read_fd))
        self._replies: dict[int, dict[str, Any]] = {}
        self._arrived: dict[int, trio.Event] = {}
        self._send_lock = trio.Lock()
        self.pages: list[Page] = []
        #: Pages by DevTools session id, for their events.
        self._sessions: dict[str, Page] = {}
        nursery.start_soon(self._read)

    async def _read(self) -> None:
        buffer = self.chromium.buffer
        while True:
            while b"\0" not in buffer:
                data = await self._in.receive_some(1 << 20)
                if not data:
                    raise AssertionError("Chromium closed its pipe (it crashed?); see "
                                         f"{self.chromium.log_path}")
                buffer += data
            end = buffer.index(b"\0")
            msg = json.loads(bytes(buffer[:end]))
            del buffer[:end + 1]
            if "id" in msg:
                if msg["id"] in self._arrived:
                    self._replies[msg["id"]] = msg
                    self._arrived.pop(msg["id"]).set()
            elif (page := self._sessions.get(msg.get("sessionId", ""))) is not None:
                page.on_event(msg["method"], msg.get("params", {}))

    async def send(self, method: str, session: str | None = None, **params: Any
                   ) -> dict[str, Any]:
        """One DevTools command; its result (an error fails the test)."""
        self.chromium.next_id += 1
        number = self.chromium.next_id
        msg: dict[str, Any] = {"id": number, "method": method, "params": params}
        if session is not None:
            msg["sessionId"] = session
        arrived = self._arrived[number] = trio.Event()
        async with self._send_lock:
            await self._out.send_all(json.dumps(msg).encode() + b"\0")
        with trio.fail_after(TIMEOUT):
            await arrived.wait()
        reply = self._replies.pop(number)
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    async def new_page(self, width: int = 1280, height: int = 800, *,
                       mobile: bool = False) -> Page:
        """A blank page in a new browser context (storage of its own) at that size."""
        context = (await self.send("Target.createBrowserContext"))["browserContextId"]
        target = (await self.send("Target.createTarget", url="about:blank",
                                  browserContextId=context))["targetId"]
        session = (await self.send("Target.attachToTarget", targetId=target,
                                   flatten=True))["sessionId"]
        page = Page(self, context, target, session)
        self._sessions[session] = page
        self.pages.append(page)
        await page.send("Page.enable")
        await page.send("Runtime.enable")
        await page.resize(width, height, mobile=mobile)
        return page

    async def close_pages(self) -> None:
        for page in self.pages:
            await page.close()

    async def aclose(self) -> None:
        """Our ends of the pipe (the browser's stay open for the next test)."""
        await self._out.aclose()
        await self._in.aclose()


@asynccontextmanager
async def driving(chromium: Chromium) -> AsyncIterator[Browser]:
    """The test's :class:`Browser` for the body of the ``async with``."""
    async with trio.open_nursery() as nursery:
        browser = Browser(chromium, nursery)
        try:
            yield browser
        finally:
            with trio.CancelScope(shield=True):
                with trio.move_on_after(10):
                    await browser.close_pages()
                nursery.cancel_scope.cancel()
        with trio.CancelScope(shield=True):
            await browser.aclose()


class Page:
    """One tab: evaluate script, wait for the DOM, tap, type, take screenshots. Dialogs
    (``alert``) are dismissed and kept in :attr:`dialogs`; uncaught script errors in
    :attr:`errors`."""

    def __init__(self, browser: Browser, context: str, target: str, session: str) -> None:
        self.browser = browser
        self.context = context
        self.target = target
        self.session = session
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        #: The text of every WebSocket frame the page received (after :meth:`listen`).
        self.frames: list[str] = []
        self.closed = False

    def on_event(self, method: str, params: dict[str, Any]) -> None:
        if method == "Page.javascriptDialogOpening":
            # Dismissed at once: a dialog left open would block the page's script.
            self.dialogs.append(str(params.get("message")))
            self.browser.nursery.start_soon(partial(
                self.send, "Page.handleJavaScriptDialog", accept=False))
        elif method == "Network.webSocketFrameReceived":
            self.frames.append(str(params.get("response", {}).get("payloadData", "")))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            exception = details.get("exception", {})
            self.errors.append(str(exception.get("description") or details.get("text")))

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        return await self.browser.send(method, self.session, **params)

    async def resize(self, width: int, height: int, *, mobile: bool = False) -> None:
        """The window's size in CSS pixels; ``mobile`` as a phone (viewport meta, touch)."""
        await self.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                        deviceScaleFactor=1, mobile=mobile)
        await self.send("Emulation.setTouchEmulationEnabled", enabled=mobile)

    async def goto(self, url: str) -> None:
        await self.send("Page.navigate", url=url)
        await self.wait("document.readyState === 'complete' && location.href === "
                        + json.dumps(url), f"{url} to load")

    async def js(self, expression: str) -> Any:
        """The value of ``expression`` in the page (awaited if a promise)."""
        result = await self.send("Runtime.evaluate", expression=expression,
                                 returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def poll(self, expression: str, timeout: float) -> Any:
        """Look until ``expression`` is truthy in the page: its value, or None after
        ``timeout`` seconds."""
        with trio.move_on_after(timeout):
            while not (value := await self.js(expression)):
                await trio.sleep(POLL)
            return value
        return None

    async def wait(self, expression: str, what: str, timeout: float = TIMEOUT) -> Any:
        """Poll until ``expression`` is truthy in the page; its value. On time out the
        test fails with what the page shows."""
        value = await self.poll(expression, timeout)
        if value:
            return value
        raise AssertionError(f"timed out waiting for {what}; the page shows:\n"
                             f"{await self.text()}\nscript errors: {self.errors}")

    async def shows(self, selector: str, what: str, timeout: float = TIMEOUT) -> None:
        """Wait until an element matches ``selector``."""
        await self.wait(f"!!document.querySelector({json.dumps(selector)})", what, timeout)

    async def text(self) -> str:
        return str(await self.js("document.body ? document.body.textContent : ''"))

    async def count(self, selector: str) -> int:
        return int(await self.js(f"document.querySelectorAll({json.dumps(selector)}).length"))

    async def listen(self) -> None:
        """Keep the frames the page's WebSocket receives from now on in :attr:`frames`."""
        await self.send("Network.enable")

    async def tap(self, selector: str, what: str | None = None) -> None:
        """A real click (mouse press and release at the element's centre, hit-tested by
        the browser) on the first element ``selector`` finds, once it is shown."""
        x, y = await self.press(selector, what)
        await self.release(x, y)

    async def press(self, selector: str, what: str | None = None) -> tuple[float, float]:
        """The first half of :meth:`tap`: the mouse button down on the element; where."""
        found = json.dumps(selector)
        box = await self.wait(
            f"""(() => {{ const e = document.querySelector({found});
                 if (!e || e.disabled || !e.getClientRects().length) return null;
                 e.scrollIntoView({{block: 'center', inline: 'center'}});
                 const r = e.getBoundingClientRect();
                 return [r.left + r.width / 2, r.top + r.height / 2]; }})()""",
            what or f"{selector} to tap")
        x, y = box
        await self.send("Input.dispatchMouseEvent", type="mousePressed", x=x, y=y,
                        button="left", clickCount=1)
        return x, y

    async def release(self, x: float, y: float) -> None:
        """The second half of :meth:`tap`: the mouse button up where it went down."""
        await self.send("Input.dispatchMouseEvent", type="mouseReleased", x=x, y=y,
                        button="left", clickCount=1)

    async def type(self, selector: str, text: str) -> None:
        """Tap the field and type ``text`` into it (as a keyboard's input)."""
        await self.tap(selector)
        await self.js(f"document.querySelector({json.dumps(selector)}).select()")
        await self.send("Input.insertText", text=text)

    async def screenshot(self, path: Path) -> Path:
        """What the window shows, as a PNG at ``path``."""
        data = (await self.send("Page.captureScreenshot", format="png"))["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        await self.browser.send("Target.closeTarget", targetId=self.target)
        await self.browser.send("Target.disposeBrowserContext",
                                browserContextId=self.context)


class Web(NamedTuple):
    """A server under test: its TCP port, its web port and the page's address."""

    port: int
    web: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web}/"


async def named(browser: Browser, url: str, name: str, width: int = 390,
                height: int = 844) -> Page:
    """A new player's page at ``url`` (a phone unless told) that has given its name and
    shows the lobby."""
    page = await browser.new_page(width, height, mobile=width < 600)
    await page.goto(url)
    await page.type("#name", name)
    await page.tap("form.name button[type=submit]")
    await page.shows("form#create", f"{name}'s lobby")
    return page


async def create_for_people(page: Page, what: str) -> str:
    """Untick the lobby form's bots (N, E and W: a table for people) and create; the new
    table's id once ``page`` sits at its South (``what``: that wait's name on time out)."""
    for seat in "NEW":
        await page.tap(f"#bot{seat}")
        await page.wait(f"!document.querySelector('#bot{seat}').checked", "a bot untick")
    await page.tap('[data-action="create"]')
    table: str = await page.wait("document.querySelector('section.table[data-you=\"S\"]')"
                                 "?.dataset.table", what)
    return table


#: The cards the page's own seat has played this deal, in order (its row).
ROW = ("[...document.querySelectorAll('#row-' + document.querySelector('section.table')"
       ".dataset.you + ' > [data-card]')].map(e => e.dataset.card)")


def _next(played: int) -> str:
    """Script: "played" once our row holds more than ``played`` cards, "done" once the
    deal's summary shows, else the first card a tap plays now (null: none)."""
    return f"""(() => {{
  const table = document.querySelector('section.table[data-you]');
  if (!table) return null;
  if (document.querySelectorAll('#row-' + table.dataset.you + ' > [data-card]').length
      > {played}) return 'played';
  if (document.querySelector('#summary')) return 'done';
  const card = document.querySelector('#hand [data-card][data-playable]');
  return card ? card.dataset.card : null; }})()"""


async def tap_card(page: Page, what: str, timeout: float = 4 * TIMEOUT) -> str | None:
    """Wait for ``what``'s turn and tap a playable card; the card the page then shows
    played in its row (None: the deal ended first). One tap: the page must not lose it
    (it redraws on every message, and meanings arrive while the finger is down)."""
    with trio.fail_after(timeout):
        await page.shows("section.table[data-you]", f"{what} seated", timeout)
        before: list[str] = await page.js(ROW)
        got = await page.wait(_next(len(before)), f"{what}'s turn or the summary", timeout)
        if got == "done":
            return None
        assert got != "played", "a card played with no tap"
        await page.tap(f'#hand [data-card="{got}"][data-playable]')
        await page.wait(f"{_next(len(before))} === 'played'", f"{what}'s tap on {got} to play it")
    after: list[str] = await page.js(ROW)
    assert after[:len(before)] == before and len(after) == len(before) + 1, (before, after)
    return after[-1]


async def tap_cards(page: Page, what: str, timeout: float = 4 * TIMEOUT) -> list[str]:
    """Play the deal for ``page``'s player by tapping a playable card whenever there is
    one, until the deal's summary shows; the cards played, in order."""
    played: list[str] = []
    with trio.fail_after(timeout):
        while (card := await tap_card(page, what)) is not None:
            played.append(card)
    return played
