"""What partner will keep, given what we have told it: the worth of a statement. The search
(:mod:`search`) values a discard as if both partners saw each other's hands, where a
signal is worth nothing; :func:`response_values` values it against a partner who keeps
what it has been told (:func:`told_counts`, :func:`partner_keeps`), with numpy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..game.cards import Card
from ..game.conventions import ConventionCard
from ..game.deal import KEEP
from ..game.seats import Seat
from .counts import COST
from .signals import statements

__all__ = ["partner_keeps", "response_values", "told_counts"]

Float = npt.NDArray[np.float64]
Int = npt.NDArray[np.int64]

#: COST[rank, cards the team keeps], as floats for the expectations below.
_COST = np.array(COST, dtype=np.float64)
#: How many cards of one rank a player can hold: 0 to 4.
_COUNTS = 5
#: _SHIFTED[rank, m, x] = COST[rank][x + m]: partner keeps x where we keep m.
_SHIFTED = np.stack([_COST[:, m:m + _COUNTS] for m in range(_COUNTS)], axis=1)
_BIG = 1e9


def told_counts(convention: ConventionCard, history: Sequence[tuple[Seat, Card]],
                seat: Seat, firm: float, ambiguous: float) -> Float:
    """P[rank, m]: how likely partner thinks ``seat`` keeps m cards (0..4) of each rank,
    from ``seat``'s statements in ``history`` under ``convention``.

    A promise counts only the cards still held: a promised pair of which one was thrown
    since tells partner of one card. Of two statements about a rank the stronger wins;
    "none of it" overrides them all.
    """
    belief = np.zeros((14, _COUNTS))
    belief[:, 0] = 1.0
    for said in statements(convention, history, seat):
        if said.nothing:
            continue
        rank = said.rank
        if said.exactly_none:
            belief[rank] = 0.0
            belief[rank, 0] = 1.0
            continue
        kept = min(max(said.at_least - said.thrown_since(history), 0), _COUNTS - 1)
        if kept == 0:
            continue
        sure = ambiguous if said.ambiguous else firm
        claim = np.zeros(_COUNTS)
        claim[0], claim[kept] = 1.0 - sure, sure
        if kept * sure >= float(belief[rank] @ np.arange(_COUNTS)):
            belief[rank] = claim
    return belief


def _cheapest_keeps(cost: Float, held: Int, trace: bool) -> tuple[Float, Int | None]:
    """The lowest total cost of keeping KEEP cards, and (with ``trace``) which.

    ``cost[..., rank, x]``: the cost of keeping x cards of ``rank``; ``held[..., rank]``:
    how many there are to keep. Leading axes broadcast (candidates, samples). Returns the
    total [...] and, with ``trace``, the counts kept [..., 14]. Exact DP over ranks;
    ties go to fewer cards of the lower ranks, as in :func:`counts.best_own_keep`.
    """
    size = KEEP + 1
    shape = np.broadcast_shapes(cost.shape[:-2], held.shape[:-1])
    # the kept count and the rank lead, so that each numpy step runs over contiguous rows
    table = np.full((size, *shape), _BIG)
    table[0] = 0.0
    by_rank = np.ascontiguousarray(np.moveaxis(cost, (-2, -1), (0, 1)))  # [14, x, ...]
    choice = np.zeros((14, size, *shape), dtype=np.int8) if trace else None
    for rank in range(1, 14):
        have = held[..., rank]
        top = min(int(have.max()), KEEP)
        # past what is held a step costs _BIG more, so it never beats the _BIG a state
        # starts with: the same as leaving it out, and every other sum stays as it was
        new = np.full_like(table, _BIG)
        for x in range(top + 1):
            add = by_rank[rank, x] + (have < x) * _BIG if x else by_rank[rank, x]
            step = table[:size - x] + add
            target = new[x:]
            if choice is None:
                np.minimum(target, step, out=target)
                continue
            better = step < target
            np.minimum(target, step, out=target)
            np.copyto(choice[rank, x:], x, where=better)
        table = new
    total: Float = table[KEEP]
    if choice is None:
        return total, None
    # walk back from KEEP kept, on flat indices (cheaper than take_along_axis 13 times)
    steps = choice.reshape(14, size, -1)
    rows = np.arange(steps.shape[2])
    kept = np.zeros((rows.size, 14), dtype=np.int64)
    left = np.full(rows.size, KEEP, dtype=np.int64)
    for rank in range(13, 0, -1):
        taken = steps[rank, left, rows].astype(np.int64)
        kept[:, rank] = taken
        left -= taken
    return total, kept.reshape(*shape, 14)


def partner_keeps(partner: Int, told: Float) -> Int:
    """The cards partner keeps, as counts [C, S, 14], for sampled hands ``partner`` [S, 14]
    and, per candidate, what partner believes of our keep ``told`` [C, 14, 5].

    Partner keeps the five cards with the lowest expected team penalty: keeping x of a
    rank costs the mean of COST[rank][x + m] over our m. Ties go to fewer cards of the
    lower ranks, as in :func:`counts.best_own_keep`.
    """
    expected = np.einsum("crm,rmx->crx", told, _SHIFTED)  # [C, 14, x]
    _, kept = _cheapest_keeps(expected[:, None], partner[None], trace=True)
    assert kept is not None
    return kept


def response_values(mine: Int, partner: Int, told: Float) -> Float:
    """Team penalty [C, S] when partner keeps by what it was told and we reply best.

    ``mine`` [C, 14]: our counts after each candidate discard; ``partner`` [S, 14]:
    sampled partner counts; ``told`` [C, 14, 5]: partner's belief after each candidate.

    The expert's search (:mod:`search`) values a discard as if from then on both partners
    saw each other's hands. In that world a signal is worth nothing -- partner would know
    anyway -- and a lone card partner might join looks as good as a told one. Real partners
    keep what they have been told about. This module values discards against that partner:

    1. **What partner believes we will keep.** Partner knows our hand only through our
       statements under the card (:mod:`signals`): a promise of ``count`` cards of a rank
       says we keep that many (partner believes a firm promise with ``firm``, a card that
       may also mean "nothing" with ``ambiguous``), an answer "I hold it" says we keep one,
       "none" says we keep none. Of every rank we said nothing about, partner expects us
       to keep nothing. :func:`told_counts` gives that belief as P[rank, cards kept].
    2. **What partner keeps.** For each sampled partner hand, partner chooses the five
       cards that minimise its expected team penalty under that belief
       (:func:`partner_keeps`): its own groups, its cheapest singles, and the ranks we
       told it we hold.
    3. **Our best reply.** We keep the five cards that go best with what partner keeps.

    The team penalty of step 3, averaged over the samples, is the value of a discard. A
    candidate discard changes step 1 when it is a statement, so the value of telling
    partner something is measured by what partner then does, not set by a fixed bonus:
    a promise is worth much where partner holds a card to join it, nothing where it does
    not, and a false statement costs what partner throws away to keep a rank we lack.

    All three steps are exact dynamic programmes over ranks, run for every candidate and
    every sample at once with numpy.
    """
    theirs = partner_keeps(partner, told)
    # cost[c, s, rank, y]: the team's cost of the rank when we add y to partner's cards
    cost = _COST[np.arange(14)[:, None], theirs[..., None] + np.arange(KEEP + 1)]
    total, _ = _cheapest_keeps(cost, mine[:, None], trace=False)
    return total
