"""The ``beginner`` strategy (:class:`BeginnerStrategy`): plays its partnership's card
faithfully, with no tricks, and keeps what partner's signals make valuable, taking each
statement at face value; otherwise it thinks as the greedy player does."""

from __future__ import annotations

from collections.abc import Sequence

from ..game.cards import Card
from ..game.conventions import Answer, ConventionCard, Promise
from ..game.deal import KEEP
from ..game.explain import promise_of
from ..game.seats import Seat
from .base import View
from .cards import NONE
from .counts import COST, best_own_keep, rank_counts
from .faithful import allowed_cards
from .signals import is_fallback, statements

__all__ = ["BeginnerStrategy", "partner_weights", "plan_costs", "stated_counts"]

#: Credit given to a promise that may only mean "nothing to promise".
AMBIGUOUS_WEIGHT = 0.5
#: A signal card whose loss costs at most this much is "spare".
SPARE_LIMIT = 5.0


def partner_weights(view: View, convention: ConventionCard) -> dict[int, tuple[int, float]]:
    """rank -> (cards partner still holds by its word, how far to believe it)."""
    return stated_counts(convention, view.history, view.partner)


def stated_counts(convention: ConventionCard, history: Sequence[tuple[Seat, Card]],
                  seat: Seat) -> dict[int, tuple[int, float]]:
    """rank -> (cards ``seat`` still holds by its word, how far to believe it).

    Later statements about a rank override earlier ones; cards the seat has played
    since a statement are taken off it.
    """
    believed: dict[int, tuple[int, float]] = {}
    for said in statements(convention, history, seat):
        if said.nothing:
            continue
        count = 0 if said.exactly_none else max(said.at_least - said.thrown_since(history), 0)
        weight = AMBIGUOUS_WEIGHT if said.ambiguous else 1.0
        believed[said.rank] = (count, weight)
    return believed


def plan_costs(believed: dict[int, tuple[int, float]]) -> list[list[float]]:
    """cost[rank][x]: expected team cost of keeping x of rank given partner's word."""
    table: list[list[float]] = [[0.0] * (KEEP + 1)]
    for rank in range(1, 14):
        count, weight = believed.get(rank, (0, 0.0))
        row = COST[rank]
        table.append([weight * row[x + count] + (1 - weight) * row[x] + 1e-3 * rank * x
                      for x in range(KEEP + 1)])
    return table


class BeginnerStrategy:
    """Follows its partnership's card to the letter, as sender and as reader.

    As sender, on a promise play it shows a pair it holds with a card it can spare (a
    new pair first, one it means to keep first); with no such pair and signal card it
    plays its least useful card of the rule's fallback class ("an unneeded high card"
    under the beginner card). On an answer play it plays a spare low card when it holds
    a card of the rank partner promised and a spare high card when it holds none.

    As reader it keeps what partner's signals make valuable: every statement partner
    made (see :mod:`signals`) is taken at face value, a promise in the fallback class at
    half weight, and the five it plans to keep minimise the team penalty that follows.
    Everything else is the greedy player's thinking. It never bluffs: whatever it
    prefers, it plays an honest card whenever it holds one (:mod:`faithful`).
    """

    name = "beginner"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed  # deterministic; kept for a uniform constructor

    def choose(self, view: View) -> Card:
        convention = view.our_card or NONE
        costs = plan_costs(partner_weights(view, convention))
        hand = view.hand
        counts = rank_counts(hand)
        base = best_own_keep(counts, costs)[0] if len(hand) > KEEP else 0.0
        loss = {card: self._loss(counts, card, costs, base) for card in hand}
        play = view.play_number
        rule = convention.rule(play) if play <= len(convention.plays) else None
        if isinstance(rule, Promise):
            card = self._promise(view, convention, rule, counts, loss)
        elif isinstance(rule, Answer):
            card = self._answer(view, convention, rule, counts, loss)
        else:
            card = _cheapest(hand, loss)
        allowed = allowed_cards(view)
        # The card's letter wins over "spare": e.g. a pair to show whose only signal card
        # is one we would rather keep must still be shown (or another pair shown).
        return card if card in allowed else _cheapest(allowed, loss)

    @staticmethod
    def _loss(counts: list[int], card: Card, costs: Sequence[Sequence[float]],
              base: float) -> float:
        """How much the best plan gets worse without ``card``."""
        rank = card % 13 + 1
        counts[rank] -= 1
        try:
            return best_own_keep(counts, costs)[0] - base
        finally:
            counts[rank] += 1

    def _promise(self, view: View, convention: ConventionCard, rule: Promise,
                 counts: list[int], loss: dict[Card, float]) -> Card:
        mine = statements(convention, view.history, view.seat)
        promised_before = {said.rank for said in mine if not said.nothing}
        options = []
        for card in view.hand:
            rank = rule.promised_rank(card % 13 + 1)
            if rank is None or loss[card] > SPARE_LIMIT:
                continue
            held = counts[rank] - (1 if card % 13 + 1 == rank else 0)
            if held >= rule.count:
                # New pairs first, then the cheapest signal card, then the higher pair.
                options.append(((rank in promised_before, loss[card], -rank, -card), card))
        if options:
            return min(options)[1]
        fallback = [card for card in view.hand if is_fallback(convention, rule, card)]
        return _cheapest(fallback or view.hand, loss)

    def _answer(self, view: View, convention: ConventionCard, rule: Answer,
                counts: list[int], loss: dict[Card, float]) -> Card:
        partner_row = view.row(view.partner)
        if rule.play > len(partner_row):
            return _cheapest(view.hand, loss)
        rank = promise_of(convention, partner_row[rule.play - 1] % 13 + 1, rule.play)
        if rank is None:
            return _cheapest(view.hand, loss)
        if counts[rank] >= 1:
            # Low card, but never the last card of the rank we say we hold.
            fitting = [card for card in view.hand if convention.is_low(card % 13 + 1)
                       and not (card % 13 + 1 == rank and counts[rank] == 1)]
        else:
            fitting = [card for card in view.hand if not convention.is_low(card % 13 + 1)]
        return _cheapest(fitting or view.hand, loss)


def _cheapest(cards: Sequence[Card], loss: dict[Card, float]) -> Card:
    """The card whose loss hurts least; among equals the highest (the costliest single)."""
    return min(cards, key=lambda card: (round(loss[card], 6), -(card % 13), -card))
