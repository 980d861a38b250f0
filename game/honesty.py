"""Which cards tell the truth: each card of a hand is honest or false under a convention
card (:func:`verdict`), and a false card is *avoidable* when an honest one was in hand.
Bots keep to their card with it; tests and audits count with it. It reads a hand, so it
runs only where that hand is known. The definitions are docs/CONVENTIONS.md's ("Honest
and false signals")."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from .cards import Card
from .conventions import PLAYS, Answer, ConventionCard, Promise
from .explain import answer_rank
from .seats import Seat, Team

__all__ = ["Tally", "Verdict", "audit", "judged", "verdict"]

History = Sequence[tuple[Seat, Card]]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The honest cards of a hand for the play about to be made.

    ``kind`` is the rule's kind ("promise", "answer") or "none" when the play carries no
    meaning (then every card is honest).
    """

    kind: Literal["promise", "answer", "none"]
    honest: frozenset[Card]
    hand: tuple[Card, ...]

    @property
    def meaningful(self) -> bool:
        return self.kind != "none"

    def is_false(self, card: Card) -> bool:
        return card not in self.honest

    def avoidable(self, card: Card) -> bool:
        """Whether playing ``card`` is a false signal although an honest card was in hand."""
        return card not in self.honest and bool(self.honest)

    @property
    def allowed(self) -> tuple[Card, ...]:
        """The cards a player with no tolerance may play: the honest ones, else any."""
        honest = tuple(card for card in self.hand if card in self.honest)
        return honest or self.hand


def _after(counts: list[int], card: Card, rank: int) -> int:
    """Cards of ``rank`` left after playing ``card`` from a hand with ``counts``."""
    return counts[rank] - (1 if card.rank == rank else 0)


def verdict(card: ConventionCard, hand: Sequence[Card], history: History, seat: Seat) -> Verdict:
    """Which cards of ``hand`` are honest for ``seat``'s next play after ``history``."""
    cards = tuple(Card(c) for c in hand)
    play = sum(1 for who, _ in history if who is seat) + 1
    if play > PLAYS:
        return Verdict("none", frozenset(cards), cards)
    rule = card.rule(play)
    counts = [0] * 14
    for c in cards:
        counts[c.rank] += 1
    if isinstance(rule, Promise):
        named: set[int] = set()
        mine = [c for who, c in history if who is seat]
        for index, played in enumerate(mine, start=1):
            earlier = card.rule(index)
            if isinstance(earlier, Promise):
                rank = earlier.promised_rank(played.rank)
                if rank is not None:
                    named.add(rank)
        true = {c for c in cards if (rank := rule.promised_rank(c.rank)) is not None
                and _after(counts, c, rank) >= rule.count}
        news = any(rule.promised_rank(c.rank) not in named for c in true)
        honest = set(true)
        if not news:  # "nothing to promise" is true: fallback-class and no-rank cards
            fallback_low = rule.fallback == "low"
            honest |= {c for c in cards if rule.promised_rank(c.rank) is None
                       or card.is_low(c.rank) == fallback_low}
        return Verdict("promise", frozenset(honest), cards)
    if isinstance(rule, Answer):
        rank = answer_rank(card, history, seat, play)
        if rank is None:  # partner's card named no rank: this play means nothing
            return Verdict("none", frozenset(cards), cards)
        honest = {c for c in cards
                  if card.is_low(c.rank) == (_after(counts, c, rank) >= 1)}
        return Verdict("answer", frozenset(honest), cards)
    return Verdict("none", frozenset(cards), cards)


@dataclass
class Tally:
    """One partnership's signals over some deals, per kind ("promise", "answer").

    ``plays`` counts meaningful plays, ``false`` those whose card was false, and
    ``avoidable`` the false ones made while an honest card was in hand.
    """

    plays: dict[str, int]
    false: dict[str, int]
    avoidable: dict[str, int]

    @classmethod
    def empty(cls) -> Tally:
        zero = {"promise": 0, "answer": 0}
        return cls(dict(zero), dict(zero), dict(zero))

    def record(self, found: Verdict, played: Card) -> None:
        """Count one play of ``played`` judged by ``found`` (a meaningless play counts not)."""
        if found.meaningful:
            self.plays[found.kind] += 1
            if found.is_false(played):
                self.false[found.kind] += 1
                if found.avoidable(played):
                    self.avoidable[found.kind] += 1

    def add(self, other: Tally) -> None:
        for mine, theirs in ((self.plays, other.plays), (self.false, other.false),
                             (self.avoidable, other.avoidable)):
            for kind, count in theirs.items():
                mine[kind] = mine.get(kind, 0) + count


def judged(dealt: Mapping[Seat, Sequence[Card]], history: History,
           conventions: Mapping[Team, ConventionCard]
           ) -> Iterator[tuple[int, Seat, Card, Verdict]]:
    """Each play of a deal (its place in ``history``, seat and card) with its verdict under
    its partnership's card, in order, from the dealt hands; plays of a partnership without
    a card in ``conventions`` are left out."""
    hands = {seat: list(cards) for seat, cards in dealt.items()}
    for time, (seat, played) in enumerate(history):
        card = conventions.get(seat.team)
        if card is not None:
            yield time, seat, played, verdict(card, hands[seat], history[:time], seat)
        hands[seat].remove(played)


def audit(dealt: Mapping[Seat, Sequence[Card]], history: History,
          conventions: Mapping[Team, ConventionCard]) -> dict[Team, Tally]:
    """Every partnership's honest and false signals in one deal, from the dealt hands.

    Partnerships without a card in ``conventions`` are left out.
    """
    tallies = {team: Tally.empty() for team in conventions}
    for _, seat, played, found in judged(dealt, history, conventions):
        tallies[seat.team].record(found, played)
    return tallies
