"""What a played card means under a convention card, from public facts only (the card and
the public rows, never a hand): the rank a play is about (:func:`promise_of`,
:func:`answer_rank`), what it says as a constraint bots infer from
(:func:`signal_constraints`), as words and data (:func:`explain_play`), and a whole card
in words (:func:`describe_card`), one description wherever it is read."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import msgspec

from .cards import Card
from .conventions import PLAYS, Answer, ConventionCard, NoMeaning, Promise, Tolerance
from .errors import ErrorCode, IllegalAction, MalformedInput
from .seats import Seat, Team

__all__ = [
    "WRAP",
    "AnswerMeaning",
    "Constraint",
    "DiscardMeaning",
    "Explained",
    "Meaning",
    "PromiseMeaning",
    "answer_rank",
    "describe_card",
    "describe_rule",
    "describe_tolerance",
    "explain_play",
    "is_fallback_side",
    "ordinal",
    "promise_of",
    "public_constraints",
    "rank_word",
    "signal_constraints",
]

History = Sequence[tuple[Seat, Card]]
#: Width that :func:`describe_card` wraps rules to unless told otherwise (a terminal's).
WRAP = 80

_WORDS = {1: ("ace", "aces"), 11: ("jack", "jacks"), 12: ("queen", "queens"),
          13: ("king", "kings")}


def rank_word(rank: int, *, plural: bool = False) -> str:
    """A rank as prose: "ace", "7", "10", "king"; plural "aces", "7s", "kings"."""
    if rank in _WORDS:
        return _WORDS[rank][plural]
    return f"{rank}s" if plural else str(rank)


def _short(rank: int) -> str:
    """A rank in short form for ranges: A, 2..10, J, Q, K."""
    return {1: "A", 11: "J", 12: "Q", 13: "K"}.get(rank, str(rank))


def _span(low: int, high: int) -> str:
    return _short(low) if low == high else f"{_short(low)}..{_short(high)}"


def _article(rank: int) -> str:
    word = rank_word(rank)
    return f"an {word}" if word[0] in "a8" else f"a {word}"  # an ace, an 8


def ordinal(n: int) -> str:
    """1 -> "1st", 2 -> "2nd", 3 -> "3rd", 4 -> "4th" (plays only go to 8)."""
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th') }"


def _amount(count: int, rank: int) -> str:
    """How many of ``rank`` a promise of ``count`` claims, in words."""
    if count == 1:
        return f"at least one {rank_word(rank)}"
    if count == 2:
        return f"a pair of {rank_word(rank, plural=True)}"
    if count == 3:
        return f"three or more {rank_word(rank, plural=True)}"
    return f"all four {rank_word(rank, plural=True)}"


def _nothing_word(count: int) -> str:
    return "no pair" if count == 2 else "nothing to promise"


# --------------------------------------------------------------------------- ranks


def promise_of(card: ConventionCard, rank_played: int, play: int) -> int | None:
    """The rank promised by a card of ``rank_played`` as play ``play``, or None.

    None when that play's rule is not a :class:`Promise`, or when the offset leads off the
    end of the ranks (under ``beginner``, an ace as play 1 or a king as play 2).
    """
    rule = card.rule(play)
    return rule.promised_rank(rank_played) if isinstance(rule, Promise) else None


def is_fallback_side(card: ConventionCard, play: int, rank_played: int) -> bool:
    """Whether a card of ``rank_played`` at promise play ``play`` may be the no-promise card.

    With ``fallback = "high"`` (the usual), every high card may be one; a low card never is.
    False for plays whose rule is not a promise.
    """
    rule = card.rule(play)
    if not isinstance(rule, Promise):
        return False
    return card.is_low(rank_played) == (rule.fallback == "low")


def _row(history: History, seat: Seat) -> list[Card]:
    return [played for who, played in history if who is seat]


def _played(history: History, seat: Seat, index: int) -> tuple[Card, History]:
    """``seat``'s ``index``-th card and the history up to and including it.

    Meanings are read from that prefix only, so what a card meant when it was played is
    what it means for good, whatever the caller's history holds after it.
    """
    if not 1 <= index <= PLAYS:
        raise MalformedInput(f"play number must be 1..{PLAYS}, not {index}")
    seen = 0
    for position, (who, played) in enumerate(history):
        if who is seat:
            seen += 1
            if seen == index:
                return played, history[:position + 1]
    raise IllegalAction(ErrorCode.BAD_CARD, f"{seat.value} has not made a {ordinal(index)} "
                                            f"play yet ({seen} so far)")


def answer_rank(card: ConventionCard, history: History, seat: Seat, play: int) -> int | None:
    """The rank that ``seat``'s play ``play`` answers about: what partner's play promised.

    None when that play's rule is not an :class:`Answer`, when partner has not yet made the
    play it answers (only possible in an unfinished or inconsistent history), or when
    partner's card promised nothing. Bots call this *before* playing, to know what to answer.
    """
    rule = card.rule(play)
    if not isinstance(rule, Answer):
        return None
    partner_row = _row(history, seat.partner)
    if len(partner_row) < rule.play:
        return None
    return promise_of(card, partner_row[rule.play - 1].rank, rule.play)


# --------------------------------------------------------------------------- constraints


@dataclass(frozen=True, slots=True)
class Constraint:
    """What one play says about its player's holding of one rank, right after that play.

    The player then held between ``at_least`` and ``at_most`` cards of ``rank`` (the card
    just played is no longer in the hand). If ``may_be_fallback`` the card may instead have
    been the "nothing to promise" card, and then it says nothing about ``rank``.
    """

    seat: Seat
    index: int
    rank: int
    at_least: int
    at_most: int
    may_be_fallback: bool = False


def signal_constraints(card: ConventionCard, history: History, seat: Seat,
                       index: int) -> Constraint | None:
    """The :class:`Constraint` that ``seat``'s play ``index`` carries, or None if it says nothing.

    Promise of ``count``: at least ``count`` (possibly the fallback). Answer: a low card
    at least one, a high card none. Raises like :func:`explain_play` for an unmade play.
    """
    played, history = _played(history, seat, index)
    rule = card.rule(index)
    if isinstance(rule, Promise):
        target = promise_of(card, played.rank, index)
        if target is None:
            return None
        return Constraint(seat, index, target, rule.count, 4,
                          is_fallback_side(card, index, played.rank))
    if isinstance(rule, Answer):
        target = answer_rank(card, history, seat, index)
        if target is None:
            return None
        if card.is_low(played.rank):
            return Constraint(seat, index, target, 1, 4)
        return Constraint(seat, index, target, 0, 0)
    return None


def public_constraints(conventions: Mapping[Team, ConventionCard],
                       history: History) -> list[Constraint]:
    """Every constraint carried by the plays in ``history``, under each side's card.

    Seats whose partnership has no card in ``conventions`` are skipped.
    """
    counts: dict[Seat, int] = {}
    found: list[Constraint] = []
    for seat, _ in history:
        counts[seat] = counts.get(seat, 0) + 1
        card = conventions.get(seat.team)
        if card is None or counts[seat] > PLAYS:
            continue
        constraint = signal_constraints(card, history, seat, counts[seat])
        if constraint is not None:
            found.append(constraint)
    return found


# --------------------------------------------------------------------------- meanings


class _Signal(msgspec.Struct, tag_field="rule", omit_defaults=True, kw_only=True):
    """What every meaning says (the ``meaning`` of ``explanation`` and ``hint``; the wire
    gives its fields in this order, ``rule`` first): the seat's ``play`` (1..8), its
    ``card``, and whether that card is ``low`` under the convention card."""

    play: int
    card: Card
    low: bool


class DiscardMeaning(_Signal, tag="none", kw_only=True):
    """A play no rule gives a meaning (``kind`` "none"; ``reason``: a free discard, or no
    card declared)."""

    kind: Literal["none"]
    reason: str


class PromiseMeaning(_Signal, tag="promise", kw_only=True):
    """A play under a promise rule: ``kind`` "promise" promises ``count`` cards of ``rank``
    (the card may instead be an unneeded fallback card: ``may_be_fallback``), or "none"
    when the rule names no rank here (``reason``)."""

    may_be_fallback: bool
    kind: Literal["promise", "none"]
    reason: str | None = None
    rank: int | None = None
    count: int | None = None
    #: The card's declared tolerance for false promises (at most one in that many; 0:
    #: none), with a rank.
    deviates_one_in: int | None = None


class AnswerMeaning(_Signal, tag="answer", kw_only=True):
    """A play under an answer rule to partner's ``to_play``-th card (``partner_card``, once
    played): ``kind`` "answer" says the player ``holds`` a card of ``rank`` or not, "none"
    when there is nothing to answer (``reason``)."""

    to_play: int
    partner_card: Card | None = None
    partner_may_be_fallback: bool | None = None
    kind: Literal["answer", "none"]
    reason: str | None = None
    rank: int | None = None
    holds: bool | None = None
    #: As in :class:`PromiseMeaning`, for answers.
    deviates_one_in: int | None = None


#: What a played card means, as data for programs (the play's ``rule`` picks the shape):
#: the wire's ``meaning``.
Meaning = DiscardMeaning | PromiseMeaning | AnswerMeaning


@dataclass(frozen=True, slots=True)
class Explained:
    """The meaning of one played card: ``text`` for people, ``data`` for programs."""

    seat: Seat
    index: int
    card: Card
    text: str
    data: Meaning


def _deviation(allowed: Tolerance) -> str:
    """"; may deviate when ... (about 1 in 20)" for a declared tolerance, else ""."""
    words = allowed.words()
    return f"; {words}" if words else ""


def _edge_reason(rank_played: int, offset: int) -> str:
    """Why a promise of ``offset`` from ``rank_played`` names no rank."""
    direction = "below" if offset < 0 else "above"
    steps = "" if abs(offset) == 1 else f"{abs(offset)} "
    return f"no rank {steps}{direction} {_short(rank_played)}"


def explain_play(card: ConventionCard, history: History, seat: Seat, index: int) -> Explained:
    """The meaning of ``seat``'s ``index``-th card (1..8) under ``card``, from public history.

    Only the plays up to and including that card are read, so passing the whole deal's
    history is fine: later plays never change what a card meant.

    Raises :class:`MalformedInput` for an index outside 1..8 and :class:`IllegalAction`
    (code ``bad_card``) when ``seat`` has not made that play yet.
    """
    played, history = _played(history, seat, index)
    rule = card.rule(index)
    low = card.is_low(played.rank)
    head = f"{ordinal(index)} card {played}"
    if isinstance(rule, Promise):
        return _explain_promise(card, rule, seat, index, played, low, head)
    if isinstance(rule, Answer):
        return _explain_answer(card, rule, history, seat, index, played, low, head)
    assert isinstance(rule, NoMeaning)
    return Explained(seat, index, played, f"{head}: no meaning (a free discard)", DiscardMeaning(
        play=index, card=played, low=low, kind="none", reason="a free discard"))


def _explain_promise(card: ConventionCard, rule: Promise, seat: Seat, index: int,
                     played: Card, low: bool, head: str) -> Explained:
    """A promising play (``low`` by the card; its text starts with ``head``): the rank
    it promises, or why it promises nothing."""
    target = promise_of(card, played.rank, index)
    fallback = is_fallback_side(card, index, played.rank)
    unneeded = f"an unneeded {rule.fallback} card"
    if target is None:
        reason = _edge_reason(played.rank, rule.offset)
        text = f"{head}: promises nothing ({reason})"
        if fallback:
            text += f"; {unneeded}"
        return Explained(seat, index, played, text, PromiseMeaning(
            play=index, card=played, low=low, may_be_fallback=fallback, kind="none",
            reason=reason))
    text = f"{head}: promises {_amount(rule.count, target)}"
    if fallback:
        text += f", or {_nothing_word(rule.count)} ({unneeded})"
    text += _deviation(card.tolerance.promise)
    return Explained(seat, index, played, text, PromiseMeaning(
        play=index, card=played, low=low, may_be_fallback=fallback, kind="promise",
        rank=target, count=rule.count, deviates_one_in=card.tolerance.promise.one_in))


def _explain_answer(card: ConventionCard, rule: Answer, history: History, seat: Seat,
                    index: int, played: Card, low: bool, head: str) -> Explained:
    """An answering play (``low`` and ``head`` as for a promise): whether it holds
    partner's promised rank, or why it says nothing."""
    partner_row = _row(history, seat.partner)
    if len(partner_row) < rule.play:
        reason = f"partner has not made a {ordinal(rule.play)} play"
        return Explained(seat, index, played, f"{head}: no meaning ({reason})", AnswerMeaning(
            play=index, card=played, low=low, to_play=rule.play, kind="none",
            reason=reason))
    partner_card = partner_row[rule.play - 1]
    target = promise_of(card, partner_card.rank, rule.play)
    partner_fallback = is_fallback_side(card, rule.play, partner_card.rank)
    about = f"partner's {ordinal(rule.play)} card {partner_card}"
    if target is None:
        reason = f"it answers {about}, which promised nothing"
        return Explained(seat, index, played, f"{head}: no meaning ({reason})", AnswerMeaning(
            play=index, card=played, low=low, to_play=rule.play, partner_card=partner_card,
            partner_may_be_fallback=partner_fallback, kind="none", reason=reason))
    what = "holds a card" if low else "holds no card"
    text = (f"{head} ({'low' if low else 'high'}): {what} of partner's promised rank, "
            f"{rank_word(target)} (answering {about}")
    if partner_fallback:
        promised = card.rule(rule.play)
        assert isinstance(promised, Promise)  # guaranteed by validate_card
        text += f", which may also have meant {_nothing_word(promised.count)}"
    text += ")" + _deviation(card.tolerance.answer)
    return Explained(seat, index, played, text, AnswerMeaning(
        play=index, card=played, low=low, to_play=rule.play, partner_card=partner_card,
        partner_may_be_fallback=partner_fallback, kind="answer", rank=target, holds=low,
        deviates_one_in=card.tolerance.answer.one_in))


# --------------------------------------------------------------------------- whole cards


def _rank_list(ranks: Iterable[int]) -> str:
    ranks = list(ranks)
    return _span(ranks[0], ranks[-1])


def describe_rule(card: ConventionCard, play: int) -> str:
    """Play ``play``'s rule as a sentence (without the "Play N:" prefix)."""
    rule = card.rule(play)
    low_span = _span(1, card.low_max)
    high_span = _span(card.low_max + 1, 13)
    if isinstance(rule, Promise):
        how_many = {1: "at least one card", 2: "a pair", 3: "three or more cards",
                    4: "all four cards"}[rule.count]
        if rule.offset == 0:
            where = "the same rank as the card played (besides that card)"
            edges = ""
        else:
            steps = "one" if abs(rule.offset) == 1 else str(abs(rule.offset))
            where = f"the rank {steps} {'below' if rule.offset < 0 else 'above'} the card played"
            if rule.offset < 0:
                edge, empty = 1 - rule.offset, range(1, -rule.offset + 1)
                promised = 1
            else:
                edge, empty = 13 - rule.offset, range(14 - rule.offset, 14)
                promised = 13
            verb = "promises" if len(empty) == 1 else "promise"
            edges = (f" ({_article(edge)} promises {rank_word(promised, plural=True)}; "
                     f"{_article(empty[0]) if len(empty) == 1 else _rank_list(empty)} "
                     f"{verb} nothing)")
        side_span = high_span if rule.fallback == "high" else low_span
        return (f"promises {how_many} of {where}{edges}. With nothing suitable to promise, "
                f"an unneeded {rule.fallback} card ({side_span}) instead, so a "
                f"{rule.fallback} card may also mean {_nothing_word(rule.count)}.")
    if isinstance(rule, Answer):
        return (f"answers partner's play {rule.play}: a low card ({low_span}) says I still "
                f"hold a card of the rank partner promised; a high card ({high_span}) says I "
                f"hold none.")
    return "no meaning: a free discard."


def describe_tolerance(card: ConventionCard) -> list[str]:
    """The card's tolerance for false signals, one line per kind of rule, in words."""
    kinds = {"promise": ("Promises", Promise), "answer": ("Answers", Answer)}
    lines = ["False signals:"]
    for kind, (word, rule_type) in kinds.items():
        if not any(isinstance(rule, rule_type) for rule in card.plays):
            continue
        allowed: Tolerance = getattr(card.tolerance, kind)
        if allowed.one_in:
            lines.append(f"- {word}: {allowed.words()}; never more than 1 in "
                         f"{allowed.one_in} of them.")
        else:
            lines.append(f"- {word}: kept honest; a false one only when no honest card is "
                         f"in hand.")
    return lines if len(lines) > 1 else []


def describe_card(card: ConventionCard, *, width: int = WRAP) -> str:
    """The whole card as a person reads it: name, boundary, each play's rule, the
    tolerance for false signals, notes.

    Rules are wrapped to ``width`` columns; notes keep the lines their author wrote.
    """
    lines = [card.name + (f": {card.description}" if card.description else ""), "",
             f"Low cards: {_span(1, card.low_max)}; high cards: {_span(card.low_max + 1, 13)}.",
             ""]
    # Continuation lines go under the rule's first word.
    lines += [textwrap.fill(f"Play {play}: {describe_rule(card, play)}", width=width,
                            subsequent_indent=" " * 8) for play in range(1, PLAYS + 1)]
    tolerance = describe_tolerance(card)
    if tolerance:
        lines += ["", *(textwrap.fill(line, width=width, subsequent_indent="  ")
                        for line in tolerance)]
    if card.notes.strip():
        lines += ["", "Notes:", *(f"  {line}" if line else "" for line in
                                  card.notes.strip("\n").splitlines())]
    return "\n".join(lines) + "\n"
