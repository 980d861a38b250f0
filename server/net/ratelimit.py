"""Rate limits: a token bucket per connection, and limits per address group.

Per connection, :class:`TokenBucket`; per address group (:func:`address_group`),
:class:`AddressLimits` (connections and tables held with a fair share of the capacity,
wrong passwords and seat tokens, chat lines). Time is passed in, so this is pure.
"""

from __future__ import annotations

import ipaddress
import math

from ...protocol.errors import ErrorCode, ProtocolError
from ...protocol.messages import Error, MessageId

__all__ = ["AddressLimits", "GuessLimits", "TokenBucket", "address_group", "rate_limited",
           "refilled", "retry_hint", "share_refusal"]


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
    """Connections held, tables created and wrong guesses sent, per address group.

    Shared by all the address's connections, so opening more connections neither guesses
    nor chats faster than one (chat lines are counted per connection as well).
    """

    def __init__(self, max_per_address: int, password_rate: float, password_burst: float,
                 token_rate: float = 0.5, token_burst: float = 10.0,
                 chat_rate: float = 1.0, chat_burst: float = 10.0) -> None:
        self.max_per_address = max_per_address
        self.connections: dict[str, int] = {}
        self.passwords = GuessLimits(password_rate, password_burst)
        self.tokens = GuessLimits(token_rate, token_burst)
        #: Chat lines per address: a bucket of the same kind (a line spends a token).
        self.chat = GuessLimits(chat_rate, chat_burst)

    def admit(self, group: str, in_use: int, capacity: int) -> str | None:
        """Count a new connection from address group ``group`` while ``in_use`` of the
        server's ``capacity`` connections are held: None, or why it is refused
        (:func:`share_refusal`; not counted then)."""
        held = self.connections.get(group, 0)
        refusal = share_refusal(held, in_use, capacity, self.max_per_address)
        if refusal is None:
            self.connections[group] = held + 1
        return refusal

    def release(self, address: str) -> None:
        """A connection admitted from ``address`` has ended."""
        _count_down(self.connections, address)

    def check_new_table(self, held: int, in_use: int, capacity: int, per_group: int) -> None:
        """Refuse a new table from an address group whose connections (closed ones too)
        created ``held`` of the ``in_use`` open tables, while the server has room for
        ``capacity``, if :func:`share_refusal` says so: the fixed limit per group is
        ``not_allowed``, the others ``server_full``."""
        refusal = share_refusal(held, in_use, capacity, per_group)
        if refusal is None:
            return
        why = {"full": f"this server already has {capacity} tables",
               "reserved": "this server is nearly full and keeps its last tables for "
                           "addresses that hold none yet",
               "group": f"your address already has {held} open tables (at most {per_group})",
               "share": f"this server is busy and your address holds its share of the "
                        f"tables now ({held})"}[refusal]
        code = ErrorCode.NOT_ALLOWED if refusal == "group" else ErrorCode.SERVER_FULL
        raise ProtocolError(code, why)



def _count_down(counts: dict[str, int], address: str) -> None:
    left = counts.get(address, 0) - 1
    if left > 0:
        counts[address] = left
    else:
        counts.pop(address, None)


def address_group(address: str) -> str:
    """The address group of a connection's ``HOST:PORT``, the key of every limit
    per address: an IPv4 address itself (an IPv4-mapped IPv6 address counts as its IPv4
    address), an IPv6 address its /64 (``2001:db8:1:2::/64``), since one host or one
    customer's link commonly gets a whole /64 and could otherwise count as many. What
    is not an IP address (a test's in-memory stream) is its own group."""
    host = address.rpartition(":")[0] or address  # IPv6 hosts hold colons themselves
    host = host.strip("[]").partition("%")[0]
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host or address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def share_refusal(held: int, in_use: int, capacity: int, per_group: int) -> str | None:
    """Why an address group holding ``held`` of the ``in_use`` (of ``capacity``)
    connections or tables may not take one more, or None if it may.

    - ``capacity`` in use: the server is full for everyone;
    - the last tenth of the capacity is kept for groups that hold nothing yet, so a
      newcomer is served however busy the server is (unless a flood of newcomers took it);
    - a group holds at most ``per_group``;
    - past half the capacity a group's share shrinks with what is left: at most
      ``per_group`` times the free part of the upper half (never below one), so the
      groups that came first cannot take the rest between them.
    """
    if in_use >= capacity:
        return "full"
    if held > 0 and in_use >= capacity - capacity // 10:
        return "reserved"
    if held >= per_group:
        return "group"
    upper = capacity - capacity // 2
    if in_use >= capacity // 2 and held >= max(1, per_group * (capacity - in_use) // upper):
        return "share"
    return None


def retry_hint(wait: float) -> float:
    """``retry_after`` for a refusal: ``wait`` rounded UP to the millisecond, never 0 (a
    hint a little short would invite an immediate retry that is refused again)."""
    return max(0.001, math.ceil(wait * 1000.0) / 1000.0)


def rate_limited(msg_id: MessageId | None, what: str, wait: float) -> Error:
    """The ``rate_limited`` refusal of a request: ``what`` ("too many hints"), and when to
    try again."""
    hint = retry_hint(wait)
    return Error(id=msg_id, code=ErrorCode.RATE_LIMITED,
                 message=f"{what}; wait {hint:.3f} s", retry_after=hint)


def refilled(bucket: TokenBucket | None, per_minute: float, burst: float,
             now: float) -> TokenBucket:
    """``bucket`` refilled to ``now`` (a new full one the first time it is needed)."""
    if bucket is None:
        return TokenBucket(per_minute / 60.0, burst, now)
    bucket.refill(now)
    return bucket
