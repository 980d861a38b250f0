"""A fake recipient for a table or lobby driven in-process: it keeps what it is sent."""

from __future__ import annotations

from typing import Any


class Peer:
    """A table participant that keeps what it is sent."""

    def __init__(self) -> None:
        self.got: list[Any] = []

    def deliver(self, msg: Any) -> None:
        self.got.append(msg)
