"""A token bucket per connection.

Each message takes one token; tokens refill at ``rate`` per second up to ``burst``.
A message that finds the bucket empty is refused with ``rate_limited`` and a
``retry_after`` hint (when the next token arrives) and changes nothing. Refusals in
a row are counted: ``flood_limit`` of them means the peer is not listening to the
hints, and the connection is closed. Time is passed in, so this is pure.
"""

from __future__ import annotations

__all__ = ["TokenBucket"]


class TokenBucket:
    """Allow ``rate`` messages a second on average, ``burst`` at once."""

    __slots__ = ("_stamp", "_tokens", "burst", "rate", "refused_in_a_row")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)
        self._tokens = self.burst
        self._stamp = now
        self.refused_in_a_row = 0

    def take(self, now: float) -> float:
        """Spend a token: 0.0 if allowed, else the seconds until one is available."""
        elapsed = max(0.0, now - self._stamp)
        self._stamp = now
        self._tokens = min(self.burst, self._tokens + elapsed * self.rate)
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            self.refused_in_a_row = 0
            return 0.0
        self.refused_in_a_row += 1
        return (1.0 - self._tokens) / self.rate if self.rate > 0 else 60.0
