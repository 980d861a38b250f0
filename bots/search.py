"""Valuing discards against sampled partner hands, vectorised with numpy
(:func:`keep_values`): the best team penalty the two partners could still reach if each
saw the other's hand from now on, for every candidate and sample at once."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..game.deal import KEEP
from .counts import COST

__all__ = ["keep_values"]

_BIG = 1 << 20
_SIZE = KEEP + 1
Table = npt.NDArray[np.int32]


def _start(samples: int) -> Table:
    """Nothing kept yet: state (0, 0) costs nothing, every other state is unreachable."""
    table = np.full((_SIZE, _SIZE, samples), _BIG, dtype=np.int32)
    table[0, 0] = 0
    return table


def _add_rank(table: Table, rank: int, mine: int, penalty: Table, top_y: int,
              fewer: list[Table] | None = None) -> Table:
    """``table`` [6, 6, S] after also deciding ``rank``: we hold ``mine`` of it, sample s
    holds it where ``penalty[dy, s]`` is 0 (``_BIG`` where s holds fewer than dy).

    With ``fewer``, also appends the table for one card of ``rank`` less in our hand: the
    same steps but the last, so a candidate discard costs nothing extra here."""
    if mine == 0 and top_y == 0:
        return table
    new = np.full_like(table, _BIG)
    row = COST[rank]
    for dx in range(min(mine, KEEP) + 1):
        if fewer is not None and dx == mine:
            fewer.append(new.copy())
        for dy in range(min(top_y, KEEP) + 1):
            step = table[:_SIZE - dx, :_SIZE - dy] + (penalty[dy] + row[dx + dy])
            target = new[dx:, dy:]
            np.minimum(target, step, out=target)
    return new


def keep_values(mine: npt.NDArray[np.int64],
                partner: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Full-information keep penalty per (candidate, sample).

    ``mine`` is [C, 14]: our rank counts after each candidate discard; ``partner`` is
    [S, 14]: sampled partner rank counts. Returns [C, S].

    For a candidate discard, the value is the mean, over sampled partner hands, of the
    best team penalty the two of us could still reach if from now on each saw the
    other's hand: the same DP over ranks as :func:`counts.optimum_pair`, on a state of
    (cards I keep, cards partner keeps), run for every sample at once as
    [6, 6, samples] (samples last, so that each numpy step runs over contiguous memory).

    The candidates are one hand less one card, so they differ from the whole hand in one
    rank: the DP over the ranks below it (a prefix) and the one over the ranks above it
    (a suffix, run from rank 13 down) are shared by all candidates, and each candidate
    costs one sum over states (its rank's step is part of the
    prefix's). Exact, so equal to a DP per candidate; any other row gets its own DP.
    """
    n_c, n_s = mine.shape[0], partner.shape[0]
    base = mine.max(axis=0)
    # penalty[rank][dy, s]: _BIG where sample s holds fewer than dy cards of rank
    penalty = [(partner[:, rank][None, :] < np.arange(_SIZE)[:, None]).astype(np.int32)
               * _BIG for rank in range(14)]
    top = [int(partner[:, rank].max()) for rank in range(14)]
    out = np.empty((n_c, n_s), dtype=np.float64)
    # the rank a candidate has one card less of than the whole hand, or None
    changed = [np.flatnonzero(mine[c] != base) for c in range(n_c)]
    one = [int(diff[0]) if len(diff) == 1 and mine[c, diff[0]] == base[diff[0]] - 1
           else None for c, diff in enumerate(changed)]
    single = {rank for rank in one if rank is not None}
    prefix = _start(n_s)
    less: dict[int, Table] = {}
    for rank in range(1, max(single, default=0) + 1):
        fewer: list[Table] | None = [] if rank in single else None
        prefix = _add_rank(prefix, rank, int(base[rank]), penalty[rank], top[rank], fewer)
        if fewer:
            less[rank] = fewer[0]
    suffix = {14: _start(n_s)}
    for rank in range(13, min(single, default=13), -1):
        suffix[rank] = _add_rank(suffix[rank + 1], rank, int(base[rank]), penalty[rank],
                                 top[rank])
    for c, short in enumerate(one):
        if short is not None:
            # suffix[i, j]: the ranks above keep exactly i and j, so pair it flipped
            out[c] = (less[short] + suffix[short + 1][::-1, ::-1]).min(axis=(0, 1))
            continue
        table = _start(n_s)
        for each in range(1, 14):
            table = _add_rank(table, each, int(mine[c, each]), penalty[each], top[each])
        out[c] = table[KEEP, KEEP]
    return out
