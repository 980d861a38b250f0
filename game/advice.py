"""Why a card, in words: the reasons behind a suggested play (a hint), for a seat that knows
its hand. They come from what explains cards elsewhere (:func:`explain_play` on the play
to come, :func:`honesty.verdict`, the hand kept, partner's signals so far). It reads one
seat's hand, so an :class:`Advice` goes to that seat and to nobody else."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .cards import Card, format_cards
from .conventions import ConventionCard, Promise
from .explain import (
    DiscardMeaning,
    Meaning,
    answer_rank,
    explain_play,
    ordinal,
    promise_of,
    rank_word,
)
from .honesty import verdict
from .knowledge import SeatKnowledge

__all__ = ["Advice", "advise"]


@dataclass(frozen=True, slots=True)
class Advice:
    """A suggested ``card`` for the seat's ``play``-th card, and why.

    ``text`` is a few sentences for people; ``meaning`` is the card's explanation as data
    (the ``meaning`` of an ``explanation`` message); ``honest`` is False only when the
    card's statement would be false of the hand.
    """

    card: Card
    play: int
    text: str
    meaning: Meaning
    honest: bool


def _truth(known: SeatKnowledge, convention: ConventionCard, card: Card) -> tuple[str, bool]:
    """Whether the card's statement is true of the hand, in one sentence ("" when the play
    says nothing), and True unless it is false."""
    found = verdict(convention, known.hand, known.history, known.seat)
    if not found.meaningful:
        return "", True
    after = [held for held in known.hand if held != card]
    play = known.play_number
    if not found.is_false(card):
        if found.kind == "promise":
            rule = convention.rule(play)
            rank = promise_of(convention, card.rank, play)
            assert isinstance(rule, Promise)
            kept = [held for held in after if held.rank == rank]
            if rank is not None and len(kept) >= rule.count:
                return f"That is true: you keep {format_cards(sorted(kept))}.", True
            return ("You have no new pair to show, so a card that promises nothing is the "
                    "honest signal here."), True
        rank = answer_rank(convention, known.history, known.seat, play)
        kept = [held for held in after if held.rank == rank]
        if kept and rank is not None:
            return f"That is true: you still hold {format_cards(sorted(kept))}.", True
        return f"That is true: you hold no {rank_word(rank or 0)}.", True
    if not found.avoidable(card):
        return ("No card in your hand would tell the truth here, so a false signal "
                "cannot be avoided."), False
    return ("This is not true of your hand: a deliberate false signal, as your card allows "
            "now and then, because every honest card costs clearly more."), False


def _gives_up(known: SeatKnowledge, card: Card) -> str:
    """What the play gives up and which groups the hand keeps, in words."""
    counts = Counter(held.rank for held in known.hand)
    had = counts[card.rank]
    word = rank_word(card.rank, plural=True)
    given = {1: f"It gives up a single {rank_word(card.rank)}",
             2: f"It breaks your pair of {word}",
             3: f"It leaves you a pair of {word} out of three",
             4: f"It leaves you three {word} out of four"}[had]
    counts[card.rank] -= 1
    groups = sorted(rank for rank, count in counts.items() if count >= 2)
    if not groups:
        return f"{given}; you hold no pair after it."
    kept = [_group(counts[rank], rank) for rank in groups]
    listed = kept[0] if len(kept) == 1 else ", ".join(kept[:-1]) + " and " + kept[-1]
    return f"{given}; you keep {listed}."


def _group(count: int, rank: int) -> str:
    """"a pair of 8s", "three jacks", "four 4s"."""
    word = rank_word(rank, plural=True)
    return f"a pair of {word}" if count == 2 else f"{('three', 'four')[count - 3]} {word}"


def _partner_said(known: SeatKnowledge, convention: ConventionCard) -> str:
    """Partner's meaningful cards so far, each as its explanation (the card's tolerance
    for false signals said once at the end, not after every card)."""
    partner = known.partner
    tolerances = (convention.tolerance.promise, convention.tolerance.answer)
    said = []
    for index in range(1, len(known.row(partner)) + 1):
        meaning = explain_play(convention, known.history, partner, index)
        if meaning.data.kind != "none":
            text = meaning.text
            for allowed in tolerances:
                if allowed.words():
                    text = text.removesuffix(f"; {allowed.words()}")
            said.append(text)
    if not said:
        return "Partner has not signalled anything yet."
    doubt = (" Your card allows false signals now and then, so these are strong hints, "
             "not proof." if any(allowed.one_in for allowed in tolerances) else "")
    return "Partner has said: " + "; ".join(said) + "." + doubt


def advise(known: SeatKnowledge, card: Card, strategy: str = "expert") -> Advice:
    """Why ``strategy`` plays ``card`` from ``known`` (the seat's picture on its turn).

    Raises :class:`ValueError` when ``card`` is not in the hand.
    """
    if card not in known.hand:
        raise ValueError(f"{card} is not in {known.seat.value}'s hand")
    convention = known.our_card
    play = known.play_number
    lines = [f"The {strategy} bot would play {card}, your {ordinal(play)} card of 8."]
    if convention is None:
        # No rule gives the card a meaning, and none makes it low.
        nothing = DiscardMeaning(play=play, card=card, low=False, kind="none",
                                 reason="no card declared")
        return Advice(card, play, lines[0] + " (Your side has declared no convention card.)",
                      nothing, True)
    meaning = explain_play(convention, (*known.history, (known.seat, card)), known.seat,
                           play)
    lines.append(f"Under your '{convention.name}' card: {meaning.text}.")
    truth, honest = _truth(known, convention, card)
    if truth:
        lines.append(truth)
    lines.append(_gives_up(known, card))
    lines.append(_partner_said(known, convention))
    return Advice(card, play, " ".join(lines), meaning.data, honest)
