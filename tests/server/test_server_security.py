"""Seat tokens and the rate limiter, on their own."""

from __future__ import annotations

import base64
import hmac

import pytest
from jackal.server import tokens
from jackal.server.net.ratelimit import TokenBucket
from jackal.server.table import Table
from jackal.server.table_options import TableOptions
from support.peer import Peer


def test_tokens_are_long_random_and_stored_only_as_hashes() -> None:
    made = [tokens.new_token() for _ in range(500)]
    assert len({token for token, _ in made}) == 500
    for token, token_hash in made[:20]:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        assert len(raw) * 8 >= 128
        assert token not in token_hash and len(token_hash) == 64
        assert tokens.token_matches(token, token_hash)
        assert not tokens.token_matches(token[:-1] + ("A" if token[-1] != "A" else "B"),
                                        token_hash)


def test_seat_lookup_compares_in_constant_time_against_every_seat(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []
    real = hmac.compare_digest

    def spy(a: str, b: str) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    table = Table("t", TableOptions(name="x", target=10, seed=1))

    issued = [table.join(Peer(), "p", None)[0] for _ in range(4)]
    calls.clear()
    seat = table.seating.find_token(tokens.hash_token(issued[0]))
    assert seat is not None and seat.value == "N"
    # Every seat was compared, even after the match on the first one.
    assert len(calls) == 4
    assert table.seating.find_token(tokens.hash_token("not a token")) is None


def test_token_bucket_allows_bursts_then_hints_and_counts_refusals() -> None:
    bucket = TokenBucket(rate=10, burst=5, now=0.0)
    assert [bucket.take(0.0) for _ in range(5)] == [0.0] * 5
    wait = bucket.take(0.0)
    assert wait == pytest.approx(0.1)
    assert bucket.take(0.0) > 0 and bucket.refused_in_a_row == 2
    assert bucket.take(0.1) == 0.0 and bucket.refused_in_a_row == 0
    # Refill never exceeds the burst.
    assert sum(1 for _ in range(20) if bucket.take(100.0) == 0.0) == 5
