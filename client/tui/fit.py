"""Fitting text on the terminal: its size, text cut or padded to a width of columns
(wide characters counted as two), and words wrapped to it."""

from __future__ import annotations

import re
import textwrap

from prompt_toolkit.formatted_text import StyleAndTextTuples

from ...protocol.text import display_width, escape_text, fit_width
from .summary import SUIT_SYMBOLS

__all__ = ["MIN_SIZE", "drawn", "log_text", "padded", "panel_height", "panel_width", "screen_size",
           "screen_width", "wrap_fragments", "wrap_words"]

_CARD_IN_TEXT = re.compile(r"\b([A2-9TJQK])([SHDC])\b")


def log_text(text: str, symbols: bool = False) -> str:
    """A log line as shown: with ``symbols``, the cards in it drawn with suit symbols."""
    if not symbols:
        return text
    return _CARD_IN_TEXT.sub(lambda found: found.group(1) + SUIT_SYMBOLS[found.group(2)], text)


def wrap_words(text: str, width: int, indent: str = "  ") -> str:
    """``text`` wrapped by word to ``width`` columns (continuation lines indented), so
    nothing is cut mid-word and nothing runs past a border."""
    if len(text) <= width:
        return text
    return "\n".join(textwrap.wrap(text, width=width, subsequent_indent=indent,
                                    break_on_hyphens=False)) or text


def wrap_fragments(fragments: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
    """Word-wrap formatted text to ``width`` columns, keeping each fragment's style."""
    out: StyleAndTextTuples = []
    column = 0
    for fragment in fragments:
        style, text = fragment[0], fragment[1]
        if not text:  # a marker such as "[SetCursorPosition]": it must stay
            out.append((style, text))
            continue
        for k, line in enumerate(text.split("\n")):
            if k:
                out.append(("", "\n"))
                column = 0
            for word in re.findall(r"\S+\s*|\s+", line):
                bare = len(word.rstrip())
                if column and column + bare > width:
                    out.append(("", "\n  "))
                    column = 2
                while column + len(word.rstrip()) > width:  # a word longer than a line
                    room = max(width - column, 1)
                    out.append((style, word[:room]))
                    out.append(("", "\n"))
                    word, column = word[room:], 0
                out.append((style, word))
                column += len(word)
    return out


def panel_width() -> int:
    """The columns inside a panel's frame (it spans the screen), less one to spare."""
    return max(screen_width() - 3, 20)


def panel_height() -> int:
    """The lines inside a big panel's frame (it leaves two lines above, one below)."""
    return max(screen_size()[1] - 5, 3)


def drawn(text: str | None, width: int) -> str:
    """Text from the server (a name, a card's name) as drawn: escaped (an old record or
    server may hold what today's server refuses) and at most ``width`` columns, so wide
    characters take no more room than narrow ones."""
    return fit_width(escape_text(text or ""), width)


def padded(text: str, width: int) -> str:
    """:func:`drawn`, padded to exactly ``width`` columns (escaping is idempotent, so
    text with escaped parts may pass again)."""
    shown = drawn(text, width)
    return shown + " " * (width - display_width(shown))


def screen_width() -> int:
    return screen_size()[0]


#: The smallest terminal (columns, rows) the table screen fits: a row label and eight
#: cards across, and header, rows, hand, message, a deal's result and footer down.
MIN_SIZE = (66, 23)


def screen_size() -> tuple[int, int]:
    try:
        from prompt_toolkit.application.current import get_app_or_none
        app = get_app_or_none()
        if app is not None:
            size = app.output.get_size()
            return size.columns, size.rows
    except Exception:  # drawing must not fail because the size is unknown
        pass
    return 80, 24

