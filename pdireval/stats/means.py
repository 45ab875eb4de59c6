r"""Means that tie when they are equal: correctly rounded sums, and the tie groups of a ranking.

A system mean computed with floating-point sums depends on the order the values are added in:
two systems with the same per-query P@10 values in another order (mean exactly 47/100) can
get 0.4700000000000001 and 0.4699999999999999, and whether they tie then depends on the row
order or on which other measures share the frame. Every function that ranks systems by their
mean and treats equal means as ties (rank correlations, leaderboards, rank-biased overlap)
reads the means from :func:`exact_means` / :func:`exact_group_means`: the sum of the values is
correctly rounded (``math.fsum``, Shewchuk 1997), so means whose values have equal exact sums
(and the same count) are the same double, whatever the order of the values.

:func:`tie_groups` gives each item of a ranking by those means its tie group (first position
and size), from which the tie-aware statistics are computed (mid-ranks, expected overlaps).

References
----------
Shewchuk, J. R. (1997). Adaptive precision floating-point arithmetic and fast robust
geometric predicates. Discrete & Computational Geometry 18.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["exact_means", "exact_group_means", "tie_groups", "mid_ranks"]


def exact_means(matrix) -> np.ndarray:
    """Mean of every column of ``matrix`` (n × P), NaN values skipped, from a correctly
    rounded sum: Σ x (``math.fsum``) / count. A column without a value gives NaN.

    Columns holding the same values in any order, or any values with the same exact sum and
    count, get the same double.
    """
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    out = np.full(x.shape[1], np.nan)
    present = ~np.isnan(x)
    counts = present.sum(axis=0)
    for j in np.flatnonzero(counts):  # one C-level fsum per column
        column = x[:, j]
        out[j] = math.fsum(column[present[:, j]]) / counts[j]
    return out


def exact_group_means(values, groups, n_groups: int) -> np.ndarray:
    """Mean of ``values`` per group code (``groups``: ints in [0, n_groups)), NaN skipped, as
    :func:`exact_means` computes it. A group without a value gives NaN."""
    v = np.asarray(values, dtype=np.float64)
    g = np.asarray(groups, dtype=np.int64)
    keep = ~np.isnan(v)
    v, g = v[keep], g[keep]
    order = np.argsort(g, kind="stable")
    v, g = v[order], g[order]
    bounds = np.searchsorted(g, np.arange(n_groups + 1))
    out = np.full(n_groups, np.nan)
    for k in np.flatnonzero(np.diff(bounds)):
        out[k] = math.fsum(v[bounds[k] : bounds[k + 1]]) / (bounds[k + 1] - bounds[k])
    return out


def tie_groups(means, descending: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Tie group of every item ranked by ``means`` (descending by default): ``(start, size)``,
    the 0-based first position of its group and the group's size. Equal means tie (read them
    from :func:`exact_means`); NaN means come last, as one group.
    """
    m = np.asarray(means, dtype=np.float64)
    key = np.where(np.isnan(m), np.inf, -m if descending else m)
    ordered = np.sort(key)
    start = np.searchsorted(ordered, key, side="left")
    size = np.searchsorted(ordered, key, side="right") - start
    return start.astype(np.int64), size.astype(np.int64)


def mid_ranks(means, descending: bool = True) -> np.ndarray:
    """1-based mid-rank of every item ranked by ``means``: tied items share the mean of the
    positions of their group (start + (size + 1) / 2), so the ranks do not depend on names
    or row order."""
    start, size = tie_groups(means, descending)
    return start + (size + 1) / 2.0
