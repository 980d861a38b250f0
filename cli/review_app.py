"""The full-screen ``jackal review``: a prompt_toolkit view over :mod:`.review_model`.

The screen draws whatever the model says about the current point; the expert's cards
are worked out by one background thread (the point on screen first, then the rest of
its deal), so stepping never waits for them and each arrives with a redraw.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.styles import Style

from ..protocol.text import escape_text
from .review_model import ExpertCache, Review, ReviewDeal, point_lines

__all__ = ["ReviewState", "run_review"]

FOOTER = " ←/→ card   Home/End first/last   PgUp/PgDn deal   q quit"

STYLE = Style.from_dict({
    "title": "bold", "label": "#888888", "dim": "#888888", "turn": "reverse",
    "current": "reverse bold", "mark": "bold #ff5f5f", "true": "#5fd75f",
    "false": "bold #ff5f5f", "differs": "bold #ffaf00", "note": "#5fafff",
    "footer": "reverse",
})


class ReviewState:
    """Which deal and point are on screen; moves are clamped to the record."""

    def __init__(self, review: Review, deal: int = 0) -> None:
        self.review = review
        self.index = deal
        self.point = 0

    @property
    def deal(self) -> ReviewDeal:
        return self.review.deals[self.index]

    def step(self, by: int) -> None:
        self.point = min(max(self.point + by, 0), self.deal.plays)

    def to_end(self, last: bool) -> None:
        self.point = self.deal.plays if last else 0

    def turn_deal(self, by: int) -> None:
        self.index = min(max(self.index + by, 0), len(self.review.deals) - 1)
        self.point = 0


class _ExpertWorker:
    """One thread that fills the cache: the point on screen first, then its deal's."""

    def __init__(self, state: ReviewState, experts: ExpertCache,
                 done: Callable[[], None]) -> None:
        self.state, self.experts, self.done = state, experts, done
        self.wake = threading.Condition()
        self.stopped = False
        self.thread = threading.Thread(target=self._run, name="review-expert", daemon=True)

    def _wanted(self) -> tuple[ReviewDeal, int] | None:
        deal, point = self.state.deal, self.state.point
        order = [point] + [p for p in range(1, deal.plays + 1) if p != point]
        for p in order:
            if p >= 1 and self.experts.get(deal, p) is None:
                return deal, p
        return None

    def _run(self) -> None:
        while True:
            with self.wake:
                wanted = self._wanted()
                while not self.stopped and wanted is None:
                    self.wake.wait()
                    wanted = self._wanted()
                if self.stopped or wanted is None:
                    return
            self.experts.compute(*wanted)
            self.done()

    def poke(self) -> None:
        with self.wake:
            self.wake.notify()

    def stop(self) -> None:
        with self.wake:
            self.stopped = True
            self.wake.notify()


def _screen(state: ReviewState, experts: ExpertCache) -> StyleAndTextTuples:
    width = get_app().output.get_size().columns - 1
    fragments: StyleAndTextTuples = []
    for line in point_lines(state.review, state.deal, state.point, experts, width):
        # Names and questions come from the record as people typed them.
        fragments += [(style, escape_text(text)) for style, text in line]
        fragments.append(("", "\n"))
    return fragments


#: key -> (what it does, the move): the footer and --help say the same in short.
MOVES: dict[str, tuple[str, Callable[[ReviewState], None]]] = {
    "right": ("the next card", lambda state: state.step(1)),
    "left": ("the card before", lambda state: state.step(-1)),
    "home": ("the dealt hands, before the first card", lambda state: state.to_end(False)),
    "end": ("the last card of the deal (the kept hands)", lambda state: state.to_end(True)),
    "pagedown": ("the next deal, from its start", lambda state: state.turn_deal(1)),
    "pageup": ("the deal before, from its start", lambda state: state.turn_deal(-1)),
}


def _keys(state: ReviewState, moved: Callable[[], None]) -> KeyBindings:
    keys = KeyBindings()

    def bind(key: str, move: Callable[[ReviewState], None]) -> None:
        @keys.add(key)
        def _move(_event: KeyPressEvent) -> None:
            move(state)
            moved()

    for key, (_, move) in MOVES.items():
        bind(key, move)

    @keys.add("q")
    @keys.add("escape")
    @keys.add("c-q")
    @keys.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        """Leave the review."""
        event.app.exit()

    return keys


def run_review(review: Review, deal: int = 0) -> None:
    """Show ``review`` full screen from deal index ``deal`` until the user quits."""
    state = ReviewState(review, deal)
    experts = ExpertCache()
    worker = _ExpertWorker(state, experts, lambda: app.invalidate())

    def moved() -> None:
        worker.poke()
        app.invalidate()

    layout = Layout(HSplit([
        Window(FormattedTextControl(lambda: _screen(state, experts)), wrap_lines=False),
        Window(FormattedTextControl([("class:footer", FOOTER)]), height=1),
    ]))
    app: Application[None] = Application(layout=layout, key_bindings=_keys(state, moved),
                                         style=STYLE, full_screen=True)
    worker.thread.start()
    try:
        app.run()
    finally:
        worker.stop()
