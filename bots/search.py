"""Valuing discards against sampled partner hands, vectorised with numpy.

For a candidate discard, the value is the mean, over sampled partner hands, of the
best team penalty the two of us could still reach if from now on each saw the
other's hand: the same DP over ranks as :func:`counts.optimum_pair`, on a state of
(cards I keep, cards partner keeps), run for every candidate and every sample at once
as one array of shape [candidates, samples, 6, 6].
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..game.deal import KEEP
from .counts import COST

__all__ = ["keep_values", "own_keeps", "respond_values"]

_BIG = 1 << 20
_COST = np.array(COST, dtype=np.int64)


def keep_values(mine: npt.NDArray[np.int64],
                partner: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Full-information keep penalty per (candidate, sample).

    ``mine`` is [C, 14]: our rank counts after each candidate discard; ``partner`` is
    [S, 14]: sampled partner rank counts. Returns [C, S].
    """
    size = KEEP + 1
    n_c, n_s = mine.shape[0], partner.shape[0]
    table = np.full((n_c, n_s, size, size), _BIG, dtype=np.int64)
    table[:, :, 0, 0] = 0
    for rank in range(1, 14):
        top_x = int(mine[:, rank].max())
        top_y = int(partner[:, rank].max())
        if top_x == 0 and top_y == 0:
            continue
        new = np.full_like(table, _BIG)
        for dx in range(min(top_x, KEEP) + 1):
            bad_x = mine[:, rank] < dx
            for dy in range(min(top_y, KEEP) + 1):
                bad_y = partner[:, rank] < dy
                extra = int(_COST[rank, dx + dy])
                step = table[:, :, :size - dx, :size - dy] + extra
                if bad_x.any() or bad_y.any():
                    bad = bad_x[:, None] | bad_y[None, :]
                    step = step + (bad * _BIG)[:, :, None, None]
                target = new[:, :, dx:, dy:]
                np.minimum(target, step, out=target)
        table = new
    return table[:, :, KEEP, KEEP].astype(np.float64)


def own_keeps(hands: npt.NDArray[np.int64],
              cost: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Each hand's own best five under ``cost[rank, x]``, as rank counts [S, 14].

    The same DP as :func:`counts.best_own_keep`, for many hands at once, with the
    choices traced back. Used to predict what partner keeps from what it knows.
    """
    size = KEEP + 1
    n_s = hands.shape[0]
    table = np.full((n_s, size), float(_BIG))
    table[:, 0] = 0.0
    choices = np.zeros((14, n_s, size), dtype=np.int64)
    for rank in range(1, 14):
        new = np.full_like(table, float(_BIG))
        pick = np.zeros((n_s, size), dtype=np.int64)
        for dy in range(min(int(hands[:, rank].max()), KEEP) + 1):
            step = table[:, :size - dy] + cost[rank, dy]
            step = np.where((hands[:, rank] < dy)[:, None], float(_BIG), step)
            better = step < new[:, dy:]
            new[:, dy:] = np.where(better, step, new[:, dy:])
            pick[:, dy:] = np.where(better, dy, pick[:, dy:])
        table = new
        choices[rank] = pick
    keep = np.zeros((n_s, 14), dtype=np.int64)
    left = np.full(n_s, KEEP, dtype=np.int64)
    rows = np.arange(n_s)
    for rank in range(13, 0, -1):
        chosen = choices[rank][rows, left]
        keep[:, rank] = chosen
        left = left - chosen
    return keep


def respond_values(mine: npt.NDArray[np.int64],
                   fixed: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Our best team penalty per (candidate, sample) when partner's five are ``fixed``.

    ``mine`` is [C, 14], ``fixed`` [S, 14] (five cards each). Returns [C, S].
    """
    size = KEEP + 1
    n_c, n_s = mine.shape[0], fixed.shape[0]
    table = np.full((n_c, n_s, size), _BIG, dtype=np.int64)
    table[:, :, 0] = 0
    for rank in range(1, 14):
        top_x = min(int(mine[:, rank].max()), KEEP)
        theirs = fixed[:, rank]
        if top_x == 0 and not theirs.any():
            continue
        new = np.full_like(table, _BIG)
        for dx in range(top_x + 1):
            extra = _COST[rank][dx + theirs]  # [S]
            step = table[:, :, :size - dx] + extra[None, :, None]
            bad_x = mine[:, rank] < dx
            if bad_x.any():
                step = step + (bad_x * _BIG)[:, None, None]
            target = new[:, :, dx:]
            np.minimum(target, step, out=target)
        table = new
    return table[:, :, KEEP].astype(np.float64)
