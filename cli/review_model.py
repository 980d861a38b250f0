"""What ``jackal review`` shows at each point of a recorded deal: pure, no terminal. A
record is read and checked by the one replay loop; each deal becomes a :class:`ReviewDeal`
whose points (0..32 plays made) give the hands, the card just played, what it meant, whether
it was true, and what the expert would have played there."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..bots.expert import ExpertStrategy
from ..game.cards import Card
from ..game.conventions import ConventionCard
from ..game.deal import Deal
from ..game.explain import DiscardMeaning, Explained, PromiseMeaning, explain_play, rank_word
from ..game.honesty import verdict
from ..game.knowledge import SeatKnowledge, TableKnowledge
from ..game.scoring import DealResult
from ..game.seats import SEATS, Seat, Team
from ..server.records.events import (
    AnswerEvent,
    DealEvent,
    HintEvent,
    PlayEvent,
    QuestionEvent,
    RecordEvent,
    Restored,
    SeatEvent,
    TableEvent,
    read_record,
)
from ..server.records.replay import MatchReplay, replay

__all__ = ["EXPERT_SEED", "ExpertCache", "Line", "Review", "ReviewDeal", "Signal",
           "load_review", "point_lines", "text_of"]

#: The expert's seed for a point is derived from this and the point alone, so the same
#: record reviews the same, in whatever order its points are computed.
EXPERT_SEED = 24
#: One line of a point: (style, text) fragments (prompt_toolkit's formatted text shape).
Line = list[tuple[str, str]]

_BY = {"clock": "played by the clock: the player's time ran out",
       "substitute": "played by the substitute: the player was away",
       "bot": "played by a bot", "player": "played by the player"}


@dataclass(frozen=True, slots=True)
class Signal:
    """Whether a play's statement was true of its player's hand (``game.honesty``).

    ``kind`` is "promise", "answer" or "none" (the play said nothing); ``honest`` are
    the cards of the hand that would have told the truth.
    """

    kind: str
    false: bool
    avoidable: bool
    honest: tuple[Card, ...]


@dataclass
class ReviewDeal:
    """One recorded deal, as far as the record goes, with what surrounded its plays.

    The record was read and checked by the one replay loop (``server.records.replay``, as
    ``jackal replay`` reads it). A *point* is a number of plays made (0..32): the hands as
    they then stand, the card just played, what it meant under its side's card
    (``game.explain``), whether that was true of the hand (``game.honesty``) and what the
    expert would have played there from that seat's view.
    """

    ordinal: int  # 1.. in the record (deal numbers start again at a rematch)
    match: int  # 1.. : the match at this table it belongs to
    number: int  # the deal's number within its match
    deal: Deal  # dealt hands and history
    conventions: dict[Team, ConventionCard]
    scores: dict[Team, int]  # before the deal
    target: int
    players: dict[Seat, str]
    by: list[str | None] = field(default_factory=list)
    #: point -> what happened before that play (hints, questions, a restart)
    notes: dict[int, list[str]] = field(default_factory=dict)
    result: DealResult | None = None

    @property
    def plays(self) -> int:
        """Plays the record holds for this deal (32 unless it ends mid-deal)."""
        return self.deal.plays_made

    @property
    def history(self) -> tuple[tuple[Seat, Card], ...]:
        return self.deal.history

    def hands(self, point: int) -> dict[Seat, tuple[Card, ...]]:
        """Each seat's cards after ``point`` plays, sorted by rank (pairs side by side)."""
        played = {card for _, card in self.history[:point]}
        return {seat: tuple(sorted((card for card in self.deal.dealt_hand(seat)
                                    if card not in played), key=lambda c: (c.rank, c)))
                for seat in SEATS}

    def play(self, point: int) -> tuple[Seat, Card, int]:
        """Play ``point`` (1..plays): its seat, card and place in the seat's row (1..8)."""
        seat, card = self.history[point - 1]
        return seat, card, sum(1 for who, _ in self.history[:point] if who is seat)

    def meaning(self, point: int) -> Explained:
        """What play ``point`` meant under its side's card, from the public plays."""
        seat, _, index = self.play(point)
        return explain_play(self.conventions[seat.team], self.history[:point], seat, index)

    def signal(self, point: int) -> Signal:
        """Whether play ``point`` told the truth about its player's hand."""
        seat, card, _ = self.play(point)
        before = self.hands(point - 1)[seat]
        found = verdict(self.conventions[seat.team], before, self.history[:point - 1], seat)
        honest = tuple(c for c in before if c in found.honest)
        return Signal(found.kind, found.is_false(card), found.avoidable(card), honest)

    def view(self, point: int) -> SeatKnowledge:
        """What the seat making play ``point`` knew just before it: a bot's view."""
        seat, _, _ = self.play(point)
        public = TableKnowledge(dealer=self.deal.dealer, history=self.history[:point - 1],
                                deal_number=self.number, conventions=self.conventions,
                                scores=self.scores, target=self.target)
        before = self.hands(point - 1)[seat]
        return public.with_hand(seat, tuple(c for c in self.deal.dealt_hand(seat)
                                            if c in before))


@dataclass
class Review:
    """A whole record as review material: its header, its deals and how it ends."""

    header: TableEvent
    deals: list[ReviewDeal]
    torn_bytes: int
    ending: str


def _player(seat: SeatEvent) -> str:
    return f"{seat.name} ({seat.kind})" if seat.name is not None else "(empty)"


class _Reader:
    """Collects the deals while the replay loop applies a record's events."""

    def __init__(self) -> None:
        self.deals: list[ReviewDeal] = []
        self.current: ReviewDeal | None = None
        self.pending: list[str] = []  # said between deals: shown at the next deal's start

    def note(self, state: MatchReplay, text: str) -> None:
        deal = state.match.deal
        if deal is None or self.current is None:
            self.pending.append(text)
        else:
            self.current.notes.setdefault(deal.plays_made + 1, []).append(text)

    def take(self, event: RecordEvent, state: MatchReplay) -> None:
        match event:
            case DealEvent(number=number):
                deal = state.match.deal
                assert deal is not None  # the replay loop just dealt it
                self.current = ReviewDeal(
                    ordinal=len(self.deals) + 1, match=state.rematches + 1, number=number,
                    deal=deal, conventions=dict(state.conventions),
                    scores=dict(state.match.scores), target=state.header.target,
                    players={seat: _player(state.seats[seat]) for seat in SEATS})
                self.deals.append(self.current)
                if self.pending:
                    self.current.notes[0] = self.pending
                    self.pending = []
            case PlayEvent(by=by) if self.current is not None:
                self.current.by.append(by)
            case HintEvent(seat=seat, play=play):
                self.note(state, f"{seat} took a hint before its card {play}")
            case QuestionEvent(asker=asker, seat=seat, index=index, text=text):
                about = f" about its card {index}" if index is not None else ""
                self.note(state, f"{asker} asked {seat}{about}: {_quoted(text)}")
            case AnswerEvent(seat=seat, text=text):
                self.note(state, f"{seat} answered: {_quoted(text)}")
            case Restored():
                deal = state.match.deal
                where = "before this play" if deal is not None else "before this deal"
                self.note(state, f"the server restarted {where} and restored the match")


def _quoted(text: str | None) -> str:
    return "(text not kept)" if text is None else repr(text)


def load_review(path: Path) -> Review:
    """The record at ``path``, replayed and checked (raises RecordError/OSError)."""
    read = read_record(path)
    reader = _Reader()
    state: MatchReplay | None = None
    for step in replay(read.events):
        state = step.state
        reader.take(step.event, state)
        if step.result is not None and reader.current is not None:
            reader.current.result = step.result
    assert state is not None  # the replay yields the header at least
    if state.closed is not None:
        ending = f"the table was closed before the match ended ({state.closed.reason})"
    elif state.ended is None:
        ending = "the match is not finished"
    else:
        ending = f"{state.ended.winner} won the match"
    if read.torn_bytes:
        ending += f" (its last line was cut short, {read.torn_bytes} bytes: ignored)"
    # A deal the record does not finish may still be in play (the record of a live table,
    # or a match a restart will restore): its hands stay secret, so it is not reviewed.
    finished = [deal for deal in reader.deals if deal.result is not None]
    if len(finished) < len(reader.deals):
        ending += (f"; deal {reader.deals[-1].ordinal} is not over, and is not shown while "
                   "its hands are secret")
    return Review(state.header, finished, read.torn_bytes, ending)


class ExpertCache:
    """The expert's card for each point, computed once (a point's seed is its own)."""

    def __init__(self) -> None:
        self._found: dict[tuple[int, int], Card] = {}

    def get(self, deal: ReviewDeal, point: int) -> Card | None:
        """The card if already computed (never blocks: the screen asks this)."""
        return self._found.get((deal.ordinal, point))

    def compute(self, deal: ReviewDeal, point: int) -> Card:
        """What the expert plays for play ``point`` of ``deal`` from that seat's view."""
        key = (deal.ordinal, point)
        found = self._found.get(key)
        if found is None:
            seed = (EXPERT_SEED << 32) + (deal.ordinal << 8) + point
            found = ExpertStrategy(seed=seed).choose(deal.view(point))
            self._found[key] = found
        return found


# --------------------------------------------------------------------------- the screen


def _cards(cards: Iterable[Card]) -> str:
    return " ".join(str(card) for card in cards)


def _fit(text: str, width: int | None) -> str:
    if width is None or len(text) <= width:
        return text
    return text[:max(width - 1, 0)] + "…"


def _packed(style: str, parts: list[str], width: int | None, sep: str = "  ") -> list[Line]:
    """``parts`` joined by ``sep``, a new line where the next would not fit ``width``:
    a narrow screen breaks a header between its parts instead of cutting its end off."""
    rows: list[str] = []
    for part in parts:
        if rows and (width is None or len(rows[-1]) + len(sep) + len(part) <= width):
            rows[-1] += sep + part
        else:
            rows.append(part)
    return [[(style, _fit(row, width))] for row in rows]


def _wrapped(style: str, label: str, text: str, width: int | None) -> list[Line]:
    if width is None:
        return [[("class:label", label), (style, text)]]
    lines = textwrap.wrap(text, width=max(width - len(label), 20)) or [""]
    return [[("class:label", label if i == 0 else " " * len(label)), (style, part)]
            for i, part in enumerate(lines)]


def _by_bot(deal: ReviewDeal, number: int) -> bool:
    """Whether play ``number`` was the clock's or the substitute's, not the player's."""
    return number <= len(deal.by) and deal.by[number - 1] in ("clock", "substitute")


def _row(deal: ReviewDeal, seat: Seat, point: int, experts: ExpertCache) -> Line:
    """``seat``'s row after ``point`` plays, each card marked: ! false, * expert differs,
    ~ played by the clock or the substitute."""
    line: Line = []
    for number, (who, card) in enumerate(deal.history[:point], start=1):
        if who is not seat:
            continue
        mark = "!" if deal.signal(number).false else ""
        other = experts.get(deal, number)
        mark += "*" if other is not None and other.rank != card.rank else ""
        mark += "~" if _by_bot(deal, number) else ""
        style = "class:current" if number == point else ""
        line += [(style, str(card)), ("class:mark", f"{mark:<2} ")]
    return line


def _signal_text(deal: ReviewDeal, point: int) -> tuple[str, str]:
    seat, _, _ = deal.play(point)
    found = deal.signal(point)
    meaning = deal.meaning(point).data
    if found.kind == "none":
        return "", "no statement, nothing to be true or false"
    held, nothing = "", found.kind == "promise"
    rank = None if isinstance(meaning, DiscardMeaning) else meaning.rank
    if rank is not None:
        count = sum(1 for card in deal.hands(point)[seat] if card.rank == rank)
        held = f" ({seat} then held {count} of the {rank_word(rank, plural=True)})"
        # A promise short of its count is honest only as the "nothing to promise" card.
        nothing = (isinstance(meaning, PromiseMeaning) and meaning.count is not None
                   and count < meaning.count and meaning.may_be_fallback)
    said = " as \"nothing new to promise\"" if nothing else ""
    if not found.false:
        return "class:true", f"true of {seat}'s hand{said}{held}"
    if found.avoidable:
        return "class:false", (f"FALSE of {seat}'s hand{said}{held}; honest cards were in "
                               f"hand: {_cards(found.honest)}")
    return "class:false", f"FALSE of {seat}'s hand{said}{held}; no honest card was in hand"


def _expert_text(deal: ReviewDeal, point: int, expert: Card | None) -> tuple[str, str]:
    if expert is None:
        return "class:dim", "thinking..."
    _, card, _ = deal.play(point)
    if expert == card:
        return "class:true", f"{expert} (the same card)"
    if expert.rank == card.rank:
        return "class:true", f"{expert} (the same rank: the same play)"
    return "class:differs", f"{expert}  * differs from {card}"


def point_lines(review: Review, deal: ReviewDeal, point: int, experts: ExpertCache,
                width: int | None = None) -> list[Line]:
    """Everything shown at ``point`` of ``deal`` (``width``: fit lines to a screen)."""
    head = [f"Deal {deal.ordinal} of {len(review.deals)}"
            + (f" (match {deal.match}, deal {deal.number})" if deal.match > 1 else "")
            + f": dealer {deal.deal.dealer}, {deal.deal.first} leads",
            f"play {point} of {deal.plays}"
            + ("" if deal.plays == 32 else " (the record ends mid-deal)")]
    cards = ", ".join(f"{team} {deal.conventions[team].name}" for team in (Team.NS, Team.EW))
    scores = f"NS {deal.scores[Team.NS]}, EW {deal.scores[Team.EW]}"
    lines: list[Line] = [
        *_packed("class:title", head, width, "   "),
        *_packed("", [f"Cards: {cards}.", f"Before the deal: {scores} (target {deal.target})"],
                 width),
        *_packed("class:dim", [f"{seat} {deal.players[seat]}" for seat in SEATS], width)]
    hands = {seat: _cards(cards) for seat, cards in deal.hands(point).items()}
    # A seat's hand and row hold 13 cards between them, so the hands' column narrows as
    # the rows grow and a line never passes 59 columns.
    column = max(len("hand now"), *(len(hand) for hand in hands.values()))
    lines.append([("class:label", f"   {'hand now':<{column}}  row (played)")])
    turn = deal.history[point][0] if point < deal.plays else None
    for seat in SEATS:
        style = "class:turn" if seat is turn else ""
        lines.append([(style, f" {seat} "), ("", f"{hands[seat]:<{column}}  "),
                      *_row(deal, seat, point, experts)])
    legend = ["! a false signal", "* the expert would have played another rank"]
    if any(_by_bot(deal, number) for number in range(1, deal.plays + 1)):
        legend.append("~ played by the clock or the substitute")
    lines += [[("class:dim", "   "), *line]
              for line in _packed("class:dim", legend, width - 3 if width else None, "   ")]
    lines.append([])
    if point == 0:
        lines.append([("", f"Dealt. {deal.deal.first} plays first.")])
    else:
        seat, card, index = deal.play(point)
        by = deal.by[point - 1] if point - 1 < len(deal.by) else None
        how = f" ({_BY[by]})" if by in ("clock", "substitute") else ""
        lines.append([("class:title", f"Play {point}: {seat} plays {card}, its card {index}"),
                      ("", how)])
        lines += _wrapped("", "  meaning  ", deal.meaning(point).text, width)
        style, said = _signal_text(deal, point)
        lines += _wrapped(style, "  signal   ", said, width)
        style, said = _expert_text(deal, point, experts.get(deal, point))
        lines += _wrapped(style, "  expert   ", said, width)
    for note in deal.notes.get(point, []):
        lines += _wrapped("class:note", "  note     ", note, width)
    if point == deal.plays:
        lines.append([("class:dim", _fit(_ending(deal), width))])
        if deal is review.deals[-1]:
            lines += _wrapped("class:dim", "", f"The record ends here: {review.ending}.", width)
    return lines


def _ending(deal: ReviewDeal) -> str:
    assert deal.result is not None  # only finished deals are reviewed (load_review)
    penalties = ", ".join(f"{team} {deal.result.penalty(team)}" for team in (Team.NS, Team.EW))
    winner = deal.result.winner
    won = f"{winner} scores {deal.result.points}" if winner is not None else "nobody scores"
    return f"Kept: penalties {penalties}; {won}."


def text_of(lines: list[Line]) -> str:
    """The point's lines as plain text (styles dropped, trailing spaces trimmed)."""
    return "\n".join("".join(text for _, text in line).rstrip() for line in lines)
