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
_COST = np.array(COST, dtype=np.int32)


def keep_values(mine: npt.NDArray[np.int64],
                partner: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Full-information keep penalty per (candidate, sample).

    ``mine`` is [C, 14]: our rank counts after each candidate discard; ``partner`` is
    [S, 14]: sampled partner rank counts. Returns [C, S].

    For a candidate discard, the value is the mean, over sampled partner hands, of the
    best team penalty the two of us could still reach if from now on each saw the
    other's hand: the same DP over ranks as :func:`counts.optimum_pair`, on a state of
    (cards I keep, cards partner keeps), run for every candidate and every sample at once
    as one array of shape [candidates, samples, 6, 6].
    """
    size = KEEP + 1
    n_c, n_s = mine.shape[0], partner.shape[0]
    table = np.full((n_c, n_s, size, size), _BIG, dtype=np.int32)
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

