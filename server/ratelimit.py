"""Rate limits: a token bucket per connection, and limits per client address.

Per connection (:class:`TokenBucket`): each message takes one token, plus one for every
KiB of the line and of what the server sent back because of it, and every blank line
takes one too, so no kind of input is free. Tokens refill at ``rate`` per second up to
``burst``. A message that finds the bucket empty is refused with ``rate_limited`` and a
``retry_after`` hint (when the next token arrives) and changes nothing. Refusals in a row
are counted: ``flood_limit`` of them means the peer is not listening to the hints, and the
connection is closed.

Per address (:class:`AddressLimits`): how many connections each address holds (beyond
``max_per_address`` a new one gets ``server_full``), and a bucket of wrong passwords per
address, shared by all its connections, so guessing over many connections is no faster
than over one. Time is passed in, so this is pure.
"""

from __future__ import annotations

import math

__all__ = ["AddressLimits", "TokenBucket", "host_of", "retry_hint"]


class TokenBucket:
    """Allow ``rate`` tokens a second on average, ``burst`` at once."""

    __slots__ = ("_stamp", "_tokens", "burst", "rate", "refused_in_a_row")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)
        self._tokens = self.burst
        self._stamp = now
        self.refused_in_a_row = 0

    def refill(self, now: float) -> None:
        elapsed = max(0.0, now - self._stamp)
        self._stamp = now
        self._tokens = min(self.burst, self._tokens + elapsed * self.rate)

    def take(self, now: float) -> float:
        """Spend a token: 0.0 if allowed, else the seconds until one is available."""
        self.refill(now)
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            self.refused_in_a_row = 0
            return 0.0
        self.refused_in_a_row += 1
        return self.wait_for_one()

    def take_many(self, count: int, now: float) -> int:
        """Spend ``count`` tokens, one per item (e.g. blank lines); returns how many of the
        items were refused (each counts towards ``refused_in_a_row``)."""
        self.refill(now)
        allowed = min(count, int(self._tokens))
        self._tokens -= allowed
        refused = count - allowed
        if refused:
            self.refused_in_a_row += refused
        elif allowed:
            self.refused_in_a_row = 0
        return refused

    def charge(self, tokens: float) -> None:
        """Spend ``tokens`` more after the fact (the cost of a big request or reply); the
        bucket may go below zero, so what follows waits until it has paid."""
        self._tokens -= tokens

    def wait_for_one(self) -> float:
        """Seconds until a token is available (0.0 if one is)."""
        if self._tokens >= 1.0:
            return 0.0
        return (1.0 - self._tokens) / self.rate if self.rate > 0 else 60.0

    @property
    def full(self) -> bool:
        return self._tokens >= self.burst


class AddressLimits:
    """Connections held and wrong passwords sent, per client address."""

    #: Password buckets of addresses that have paid back are forgotten beyond this many,
    #: so an attacker with many addresses cannot grow this table without bound.
    PRUNE_AT = 4096

    def __init__(self, max_per_address: int, password_rate: float, password_burst: float
                 ) -> None:
        self.max_per_address = max_per_address
        self.password_rate = password_rate
        self.password_burst = password_burst
        self.connections: dict[str, int] = {}
        self._guesses: dict[str, TokenBucket] = {}

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address``; False (not counted) if it already
        holds its maximum."""
        held = self.connections.get(address, 0)
        if held >= self.max_per_address:
            return False
        self.connections[address] = held + 1
        return True

    def release(self, address: str) -> None:
        """A connection admitted from ``address`` has ended."""
        held = self.connections.get(address, 0) - 1
        if held > 0:
            self.connections[address] = held
        else:
            self.connections.pop(address, None)

    def password_wait(self, address: str, now: float) -> float:
        """0.0 if ``address`` may have a password checked now, else seconds to wait."""
        bucket = self._guesses.get(address)
        if bucket is None:
            return 0.0
        bucket.refill(now)
        return bucket.wait_for_one()

    def wrong_password(self, address: str, now: float) -> None:
        """``address`` sent a wrong password: it costs one token of its bucket."""
        bucket = self._guesses.get(address)
        if bucket is None:
            if len(self._guesses) >= self.PRUNE_AT:
                self._prune(now)
            bucket = self._guesses[address] = TokenBucket(self.password_rate,
                                                          self.password_burst, now)
        bucket.take(now)

    def _prune(self, now: float) -> None:
        for address, bucket in list(self._guesses.items()):
            bucket.refill(now)
            if bucket.full:
                del self._guesses[address]


def host_of(address: str) -> str:
    """The host part of ``HOST:PORT`` (IPv6 hosts contain colons themselves)."""
    return address.rpartition(":")[0] or address


def retry_hint(wait: float) -> float:
    """``retry_after`` for a refusal: ``wait`` rounded UP to the millisecond, never 0 (a
    hint a little short would invite an immediate retry that is refused again)."""
    return max(0.001, math.ceil(wait * 1000.0) / 1000.0)
