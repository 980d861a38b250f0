"""What the commands print to a terminal: text from servers, records and other people's
cards is escaped (protocol/text.py), so it can neither drive the terminal nor fake a line.

Log lines get the same treatment through :func:`configure_logging`.
"""

from __future__ import annotations

import logging
import sys

from ..protocol.text import escape_text

__all__ = ["EscapingFormatter", "configure_logging", "counted", "printable"]

LOG_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"


class EscapingFormatter(logging.Formatter):
    """Escapes each log message (a server's reason, a card's name, ...) as one line; a
    traceback, our own text, keeps its lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return escape_text(super().formatMessage(record))


def configure_logging(level: int, fmt: str = LOG_FORMAT) -> None:
    """``logging.basicConfig`` to standard error, with escaped messages."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(EscapingFormatter(fmt))
    logging.basicConfig(level=level, handlers=[handler])


def printable(lines: str) -> str:
    """``lines`` with every line escaped on its own: the line breaks stay, and nothing in
    a line can clear the screen, retitle the window or reorder what is shown."""
    return "\n".join(escape_text(line) for line in lines.split("\n"))



def counted(number: int, noun: str) -> str:
    """``1 deal``, ``3 deals``: a count with its noun (a regular plural)."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
