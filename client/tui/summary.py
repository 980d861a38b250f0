"""What the terminal client shows of a finished deal beyond its score: the four dealt
hands with the kept cards marked, each side's best keep with both hands known, the
information cost, the expert pair's figure on the same hands, and the evening's means
in the ``h`` panel. Pure functions of the mirror (``deal_summary`` feature)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples

from ...game.cards import Card
from ...game.seats import SEATS, TEAMS, Team
from ...protocol.messages import DealEnded, DealSummary
from ...protocol.text import display_width, escape_text, fit_width
from ..mirror import TableMirror

__all__ = ["EveningMeans", "card_style", "card_text", "evening_means", "render_dealt",
           "render_evening", "shows_dealt"]

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
#: Columns of a seat's label before its dealt hand (" N Bartho  "): with 13 cards of
#: three columns and a best keep of five, a line is 65 columns.
_LABEL = 10


def card_text(card: Card, symbols: bool = False) -> str:
    """"7H" (or "7♥" with ``symbols``): always readable without colour."""
    text = str(card)
    return text[0] + SUIT_SYMBOLS[text[1]] if symbols else text


def card_style(card: Card) -> str:
    return "class:card.red" if card.suit in "HD" else "class:card.black"


def shows_dealt(mirror: TableMirror) -> bool:
    """Between deals (and at the end), when the server sent the dealt hands."""
    ended = mirror.last_deal
    return (ended is not None and ended.dealt is not None and ended.best is not None
            and mirror.status in ("between_deals", "over"))


def _expert(deals: Sequence[DealSummary], deal: int) -> dict[Team, int] | str | None:
    """Deal ``deal``'s expert figure; why it will not come (a string); or None meanwhile."""
    done = next((done for done in deals if done.deal == deal), None)
    if done is None:
        return None
    return done.expert_cost or done.expert_unavailable


def render_dealt(mirror: TableMirror, symbols: bool = False) -> StyleAndTextTuples:
    """Seven lines for the rows' place: each seat's 13 dealt cards, the five it kept first
    in brackets, then its part of its side's best keep; then per side its penalty, the
    best, the information cost and the expert pair's (``...`` while it is worked out,
    "n/a (busy)" when the server was too busy to work it out)."""
    ended = mirror.last_deal
    assert ended is not None and ended.dealt is not None and ended.best is not None
    # Brackets rather than a mark after each kept card, which read as stuck to the next
    # one ("AS*2S"); two blanks keep the best keep apart from a full row.
    best_at = _LABEL + 13 * 3 + 1 + 2
    out: StyleAndTextTuples = [
        ("class:title", fit_width(" Dealt hands ([kept] first)", best_at).ljust(best_at)
         + "best keep\n")]
    for seat in SEATS:
        # Escaped: an old record or server may hold what today's server refuses.
        label = fit_width(escape_text(f" {seat} {mirror.seats[seat].name or '-'}"),
                          _LABEL - 1)
        out.append(("class:label", label + " " * (_LABEL - display_width(label))))
        kept = set(ended.hands.get(seat, ()))
        dealt = ended.dealt.get(seat, ())
        shown = 0
        for group in ([c for c in dealt if c in kept], [c for c in dealt if c not in kept]):
            if not group:
                continue
            bracket = group[0] in kept
            if shown:
                out.append(("", " "))
                shown += 1
            if bracket:
                out.append(("class:newest", "["))
            for k, card in enumerate(group):
                out.append((card_style(card) + (" class:kept" if bracket else ""),
                            card_text(card, symbols)))
                if k < len(group) - 1:
                    out.append(("", " "))
            if bracket:
                out.append(("class:newest", "]"))
            shown += sum(len(card_text(card, symbols)) + 1 for card in group) - 1 \
                + (2 if bracket else 0)
        best = ended.best[seat.team].hands.get(seat, [])
        out.append(("", " " * max(best_at - _LABEL - shown, 2)
                    + " ".join(card_text(card, symbols) for card in best) + "\n"))
    expert = _expert(mirror.deals, ended.deal)
    for team in TEAMS:
        out.append(("", _team_line(ended, team, expert) + "\n"))
    return out


def _team_line(ended: DealEnded, team: Team, expert: dict[Team, int] | str | None) -> str:
    """Labelled so the expert pair's figure reads as its information cost, not a penalty."""
    assert ended.best is not None and ended.information_cost is not None
    there = ("..." if expert is None else "n/a (busy)"
             if isinstance(expert, str) else str(expert[team]))
    return (f" {team} penalty {ended.penalty[team]}, best {ended.best[team].penalty}: "
            f"info cost {ended.information_cost[team]}, expert pair's {there}")


@dataclass(frozen=True)
class EveningMeans:
    """Each side's mean information cost per deal, and the expert pair's on the same
    deals (those whose expert figure is known)."""

    deals: int
    waiting: int
    ours: dict[Team, float]
    expert: dict[Team, float]


def evening_means(deals: Sequence[DealSummary]) -> EveningMeans | None:
    """The means over the deals that have both figures; None when none has yet."""
    ours = {team: 0 for team in TEAMS}
    expert = {team: 0 for team in TEAMS}
    count = waiting = 0
    for done in deals:
        info, theirs = done.information_cost, done.expert_cost
        if info is None or done.expert_unavailable is not None:
            continue  # an older server's deal, or one the server was too busy for
        if theirs is None:
            waiting += 1
            continue
        count += 1
        for team in TEAMS:
            ours[team] += info[team]
            expert[team] += theirs[team]
    if not count:
        return None
    return EveningMeans(deals=count, waiting=waiting,
                        ours={team: ours[team] / count for team in TEAMS},
                        expert={team: expert[team] / count for team in TEAMS})


def render_evening(deals: Sequence[DealSummary], between: bool) -> StyleAndTextTuples:
    """The ``h`` panel's lines above the deals: between deals, the evening's mean
    information cost beside the expert pair's on the same deals."""
    if not between:
        return []
    means = evening_means(deals)
    if means is None:
        if any(done.information_cost is not None for done in deals):
            return [("class:dim", " The expert pair's figures are being worked out.\n\n")]
        return []
    plural = "s" if means.deals != 1 else ""
    out: StyleAndTextTuples = [
        ("class:title", f" Information cost, mean of {means.deals} deal{plural}:\n")]
    for team in TEAMS:
        out.append(("", f"   {team} {means.ours[team]:5.1f}    expert pair on the same "
                        f"deal{plural} {means.expert[team]:5.1f}\n"))
    if means.waiting:
        out.append(("class:dim", f"  ({means.waiting} more deal"
                                 f"{'s' if means.waiting != 1 else ''} to come: the expert "
                                 "pair's figure is being worked out)\n"))
    out.append(("", "\n"))
    return out
