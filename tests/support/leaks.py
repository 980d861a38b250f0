"""The hidden-card checker: no recipient sees an unplayed card of another seat."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Hashable, Iterable
from typing import Any

import msgspec
from jackal.game.deal import Deal
from jackal.game.match import deal_seed
from jackal.game.seats import Seat

from support.client import SEATS, Msg

CARD_RE = re.compile(r"^(?:[A2-9TJQK])[SHDC]$")


def cards_in(obj: Any, skip_keys: Iterable[str] = ()) -> set[str]:
    """Every card-looking string anywhere in a decoded message."""
    skip = set(skip_keys)
    found: set[str] = set()
    if isinstance(obj, str):
        if CARD_RE.match(obj):
            found.add(obj)
    elif isinstance(obj, list):
        for item in obj:
            found |= cards_in(item, skip)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            if key not in skip:
                found |= cards_in(value, skip)
    return found


def check_no_leaks(log: list[Msg], seat: str | None, match_seed: int) -> int:
    """Fail if ``log`` (one recipient's messages) shows an unplayed card of another seat.

    Between a ``deal_started`` and its ``deal_ended``, every card named anywhere in a
    message must be in the recipient's own dealt hand or already played (per the
    ``played`` events received so far, or a ``table_state``'s rows). ``hand`` fields must
    be the recipient's own. Returns the number of in-deal messages checked.
    """
    checked = 0
    own: set[str] = set()
    played: list[str] = []
    in_deal = False
    for msg in log:
        kind = msg["type"]
        if kind == "deal_started":
            deal = Deal.from_seed(deal_seed(match_seed, msg["deal"]), Seat(msg["dealer"]))
            own = {str(c) for c in deal.dealt_hand(Seat(seat))} if seat else set()
            played = []
            in_deal = True
            if seat is None:
                assert msg.get("hand") is None, msg
            else:
                assert set(msg["hand"]) == own, msg
        if kind == "deal_ended":
            in_deal = False
            continue
        if kind == "table_state" and msg["status"] == "playing":
            if msg.get("you") is not None:
                deal_no = msg["deal"]
                assert seat == msg["you"]
                dealer = Seat(msg["dealer"])
                assert seat is not None
                deal = Deal.from_seed(deal_seed(match_seed, deal_no), dealer)
                own = {str(c) for c in deal.dealt_hand(Seat(seat))}
            played = [c for s in SEATS for c in msg["rows"][s]]
            in_deal = True
        if not in_deal:
            continue
        if kind == "played":
            played.append(msg["card"])
        checked += 1
        hand = msg.get("hand")
        if hand is not None:
            assert set(hand) <= own, (seat, msg)
        named = cards_in(msg, skip_keys=("hand",))
        leaked = named - own - set(played)
        assert not leaked, (seat, leaked, msg)
    return checked


#: Any card-like token in the raw text: rank (also "10") then suit, not inside a longer word.
CARD_BYTES_RE = re.compile(rb"(?<![A-Za-z0-9])(10|[A2-9TJQK])([SHDC])(?![A-Za-z0-9])")


def cards_named(line: bytes) -> set[str]:
    """Every card the raw line names, in canonical text."""
    return {("T" if rank == b"10" else rank.decode()) + suit.decode()
            for rank, suit in CARD_BYTES_RE.findall(line)}


def decoded_bits(pairs: Iterable[tuple[Hashable, Hashable]]) -> float:
    """What a receiver decodes of a sender's symbols, in bits: the empirical mutual
    information between each symbol sent and what the receiver observed meanwhile (0
    when every symbol looks the same to it; log2 of their number when each looks
    different)."""
    seen = list(pairs)
    n = len(seen)
    sent = Counter(x for x, _ in seen)
    observed = Counter(y for _, y in seen)
    return sum(c / n * math.log2(c * n / (sent[x] * observed[y]))
               for (x, y), c in Counter(seen).items())


#: Events about a seat's presence: the server tells them at the seat's turn boundaries.
SEAT_NEWS = frozenset({"player_gone", "player_back", "bot_takeover"})
#: Events a question makes: they must never reach the asker's partner during the deal.
QUESTION_EVENTS = frozenset({"question", "question_asked", "answer"})


def seat_timed_events(lines: list[bytes], seat: str) -> list[str]:
    """What reached ``seat`` during a deal at a time its partner chose: the partner-channel
    rule of the audit, made concrete. An event its partner P causes reaches ``seat`` only

    - for a drop, a return or a takeover of P (``SEAT_NEWS``): at P's turn boundaries,
      i.e. right before the ``turn`` that gives P the turn, right after P's ``played``,
      or right before ``deal_ended`` (other news and pings in between do not count);
    - for a question P asked (``QUESTION_EVENTS``): never, until the deal ends.

    Returns one line per breach (empty: none)."""
    partner = Seat(seat).partner.value
    msgs = [msgspec.json.decode(line) for line in lines]
    quiet = SEAT_NEWS | {"ping", "pong"}
    breaches: list[str] = []
    in_deal = False
    own: set[str] = set()  # the questions ``seat`` asked itself (their receipts)
    for i, msg in enumerate(msgs):
        kind = msg["type"]
        if kind == "question" and msg.get("asker") == seat:
            own.add(msg["question"])
        if kind == "deal_started":
            in_deal = True
        elif kind == "deal_ended":
            in_deal = False
        if not in_deal:
            continue
        if kind in QUESTION_EVENTS and msg.get("asker") == partner and "id" not in msg:
            breaches.append(f"{seat} heard of {partner}'s question: {msg}")
        elif kind == "answer" and msg["question"] not in own:
            breaches.append(f"{seat} got the answer to a question it did not ask: {msg}")
        if kind not in SEAT_NEWS or msg.get("seat") != partner:
            continue
        before = next((m for m in reversed(msgs[:i]) if m["type"] not in quiet), None)
        after = next((m for m in msgs[i + 1:] if m["type"] not in quiet), None)
        at_boundary = (
            (before is not None and before["type"] == "played" and before["seat"] == partner)
            or (after is not None and after["type"] == "turn" and after["seat"] == partner)
            or (after is not None and after["type"] == "deal_ended"))
        if not at_boundary:
            breaches.append(f"{seat} got {kind} of {partner} mid-turn (after {before})")
    return breaches
