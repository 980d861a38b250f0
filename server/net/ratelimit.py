"""Rate limits: a token bucket per connection, and limits per client address.

Per connection, :class:`TokenBucket`; per address, :class:`AddressLimits` (connections
held, tables created, wrong passwords and seat tokens, chat lines), shared by all the
address's connections. Time is passed in, so this is pure; the limits are in docs/PROTOCOL.md.
"""

from __future__ import annotations

import math

from ...protocol.errors import ErrorCode
from ...protocol.messages import Error, MessageId

__all__ = ["AddressLimits", "GuessLimits", "TokenBucket", "host_of", "rate_limited", "refilled",
           "retry_hint"]


class TokenBucket:
    """Allow ``rate`` tokens a second on average, ``burst`` at once.

    A connection's bucket is charged one token per line, blank ones included, plus one
    per whole KiB of the line and of what the server sent back because of it (the
    session's part), so no kind of input is free. A refusal says when the next token
    comes (``retry_after``); refusals in a row are counted, and the session closes a
    connection whose count reaches ``flood_limit``: it is not listening to the hints.
    """

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


class GuessLimits:
    """A bucket of wrong guesses per address (passwords, seat tokens), shared by all the
    address's connections, so guessing over many connections is no faster than over one."""

    #: Buckets of addresses that have paid back are forgotten beyond this many, so an
    #: attacker with many addresses cannot grow this table without bound.
    PRUNE_AT = 4096

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, TokenBucket] = {}

    def wait(self, address: str, now: float) -> float:
        """0.0 if a guess from ``address`` may be checked now, else seconds to wait."""
        bucket = self._buckets.get(address)
        if bucket is None:
            return 0.0
        bucket.refill(now)
        return bucket.wait_for_one()

    def wrong(self, address: str, now: float) -> None:
        """``address`` guessed wrong: it costs one token of its bucket."""
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= self.PRUNE_AT:
                self._prune(now)
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst, now)
        bucket.take(now)

    def _prune(self, now: float) -> None:
        for address, bucket in list(self._buckets.items()):
            bucket.refill(now)
            if bucket.full:
                del self._buckets[address]


class AddressLimits:
    """Connections held, tables created and wrong guesses sent, per client address.

    Shared by all the address's connections, so opening more connections neither guesses
    nor chats faster than one (chat lines are counted per connection as well).
    """

    def __init__(self, max_per_address: int, password_rate: float, password_burst: float,
                 token_rate: float = 0.5, token_burst: float = 10.0,
                 chat_rate: float = 1.0, chat_burst: float = 10.0) -> None:
        self.max_per_address = max_per_address
        self.connections: dict[str, int] = {}
        #: Open tables each address created (over all its connections, closed ones too).
        self.tables: dict[str, int] = {}
        self.passwords = GuessLimits(password_rate, password_burst)
        self.tokens = GuessLimits(token_rate, token_burst)
        #: Chat lines per address: a bucket of the same kind (a line spends a token).
        self.chat = GuessLimits(chat_rate, chat_burst)

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
        _count_down(self.connections, address)

    def table_created(self, address: str) -> None:
        self.tables[address] = self.tables.get(address, 0) + 1

    def table_gone(self, address: str) -> None:
        """A table created from ``address`` has left the lobby."""
        _count_down(self.tables, address)


def _count_down(counts: dict[str, int], address: str) -> None:
    left = counts.get(address, 0) - 1
    if left > 0:
        counts[address] = left
    else:
        counts.pop(address, None)


def host_of(address: str) -> str:
    """The host part of ``HOST:PORT`` (IPv6 hosts contain colons themselves)."""
    return address.rpartition(":")[0] or address


def retry_hint(wait: float) -> float:
    """``retry_after`` for a refusal: ``wait`` rounded UP to the millisecond, never 0 (a
    hint a little short would invite an immediate retry that is refused again)."""
    return max(0.001, math.ceil(wait * 1000.0) / 1000.0)


def rate_limited(msg_id: MessageId | None, what: str, wait: float) -> Error:
    """The ``rate_limited`` refusal of a request: ``what`` ("too many hints"), and when to
    try again."""
    hint = retry_hint(wait)
    return Error(id=msg_id, code=ErrorCode.RATE_LIMITED.value,
                 message=f"{what}; wait {hint:.3f} s", retry_after=hint)


def refilled(bucket: TokenBucket | None, per_minute: float, burst: float,
             now: float) -> TokenBucket:
    """``bucket`` refilled to ``now`` (a new full one the first time it is needed)."""
    if bucket is None:
        return TokenBucket(per_minute / 60.0, burst, now)
    bucket.refill(now)
    return bucket
