r"""Ranks of systems across bootstrap replicates: rank intervals, P(best), expected rank.

Array level: ``means`` is a B × m matrix (replicate × system) of means; every function works
on all replicates at once (one sort per row, no loop over replicates or systems).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["descending_ranks", "rank_distribution"]


def descending_ranks(values) -> np.ndarray:
    """Rank of every entry of each row, 1 = the largest; equal values share their average rank
    (``scipy.stats.rankdata(-row, method="average")`` for every row at once)."""
    v = np.atleast_2d(np.asarray(values, dtype=np.float64))
    b, m = v.shape
    order = np.argsort(-v, axis=1, kind="stable")
    srt = np.take_along_axis(v, order, axis=1)
    pos = np.broadcast_to(np.arange(m), (b, m))
    new_run = np.ones((b, m), dtype=bool)
    new_run[:, 1:] = srt[:, 1:] != srt[:, :-1]
    start = np.maximum.accumulate(np.where(new_run, pos, 0), axis=1)
    end_run = np.ones((b, m), dtype=bool)
    end_run[:, :-1] = new_run[:, 1:]
    end = np.minimum.accumulate(np.where(end_run, pos, m - 1)[:, ::-1], axis=1)[:, ::-1]
    avg = (start + end) / 2.0 + 1.0
    ranks = np.empty((b, m))
    np.put_along_axis(ranks, order, avg, axis=1)
    return ranks


def rank_distribution(means, observed, confidence_level: float):
    r"""Rank interval, expected rank and probability of being best from replicate means.

    ``means`` (B × m): the systems' means in each bootstrap replicate; ``observed`` (m): the
    observed means. With R_bs the rank of system s in replicate b (1 = best, ties averaged):

    * ``rank`` — the observed rank (ties averaged);
    * ``expected_rank`` — mean over b of R_bs;
    * ``rank_low``, ``rank_high`` — the order statistics of R_·s at positions
      ⌊α/2·(B − 1)⌋ and ⌈(1 − α/2)·(B − 1)⌉ (0-based, α = 1 − confidence_level), widened to
      contain the observed rank when they miss it;
    * ``p_best`` — Σ_b [s is among the best of replicate b] / (t_b · B), t_b the number of
      systems tied for best in replicate b; sums to 1 over systems.

    Returns a dict of those arrays (length m).
    """
    means = np.atleast_2d(np.asarray(means, dtype=np.float64))
    b, m = means.shape
    ranks = descending_ranks(means)
    rank = descending_ranks(np.asarray(observed, dtype=np.float64)[None, :])[0]
    top = means == means.max(axis=1, keepdims=True)
    p_best = (top / top.sum(axis=1, keepdims=True)).sum(axis=0) / b
    tail = (1.0 - confidence_level) / 2.0
    srt = np.sort(ranks, axis=0)
    lo = srt[int(math.floor(tail * (b - 1) + 1e-9))]
    hi = srt[int(math.ceil((1.0 - tail) * (b - 1) - 1e-9))]
    return {
        "rank": rank,
        "rank_low": np.minimum(lo, rank),
        "rank_high": np.maximum(hi, rank),
        "expected_rank": ranks.mean(axis=0),
        "p_best": p_best,
    }
