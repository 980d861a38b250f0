"""Reconnection timing shared by a seat's session and the lobby link: :class:`Backoff`,
waits that double up to a maximum with jitter, and the retry loop that uses them, which
gives up after a while without a connection."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import trio

from .connection import ClientError, ConnectionLost

__all__ = ["Backoff", "SessionLost"]

_T = TypeVar("_T")


class SessionLost(ClientError):
    """The session could not get (or get back) its seat."""


@dataclass(frozen=True)
class Backoff:
    """Reconnection timing: ``initial`` seconds, doubling up to ``maximum``, with jitter."""

    initial: float = 0.2
    maximum: float = 5.0
    #: Give up after this many seconds without a connection (the server holds a seat 120 s).
    give_up_after: float = 130.0

    def delays(self) -> Iterator[float]:
        """Waits before each attempt: ``initial`` doubling up to ``maximum``, each with
        +-20% jitter, so clients that lost the same server do not all knock at once."""
        delay = self.initial
        while True:
            yield delay * random.uniform(0.8, 1.2)
            delay = min(delay * 2, self.maximum)

    async def retry(self, attempt: Callable[[], Awaitable[_T]],
                    on_wait: Callable[[float, str], None], *, at_once: bool = False,
                    reason: str = "no attempt") -> _T:
        """``attempt()`` until it returns, after each of :meth:`delays` (the first try
        without one if ``at_once``), telling ``on_wait(delay, reason)`` before each wait:
        the reason the last attempt failed (``reason`` before the first).
        An attempt fails by raising :class:`ConnectionLost` with its reason; any other
        exception ends the retrying. Raises :class:`SessionLost` when the next wait would
        pass ``give_up_after`` seconds from the call."""
        deadline = trio.current_time() + self.give_up_after
        last = reason
        for number, delay in enumerate(self.delays()):
            if at_once and number == 0:
                delay = 0.0
            else:
                if trio.current_time() + delay > deadline:
                    raise SessionLost(f"gave up reconnecting after {self.give_up_after:g}s "
                                      f"({last})")
                on_wait(delay, last)
                await trio.sleep(delay)
            try:
                return await attempt()
            except ConnectionLost as exc:
                last = exc.reason
        raise AssertionError("unreachable")  # pragma: no cover
