r"""Overlap-based comparison of rankings: rank-biased overlap, top-k overlap, Kendall's τ Union.

Rankings are given as rows of *positions*: ``pos[r, i]`` is the 0-based rank of item i in
ranking r (``-1`` or any negative value: item i is not in that ranking). Every function
compares many pairs of rankings (rows) at once, without a Python loop over rankings or items.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "rbo_ext",
    "rbo_truncated",
    "top_k_overlap",
    "inversions",
    "kendall_tau_b_rows",
    "expected_overlap_curve",
    "rbo_ext_ties",
    "top_k_overlap_ties",
]


def _agreement_depth(pos_a, pos_b):
    """Depth (1-based) at which each item is in both prefixes; 0 = never in both."""
    pos_a = np.asarray(pos_a, dtype=np.int64)
    pos_b = np.asarray(pos_b, dtype=np.int64)
    both = (pos_a >= 0) & (pos_b >= 0)
    return np.where(both, np.maximum(pos_a, pos_b) + 1, 0)


def _overlap_curve(pos_a, pos_b, depth: int) -> np.ndarray:
    """X_d, d = 1..depth: size of the intersection of the two depth-d prefixes, [R, depth]."""
    seen = _agreement_depth(pos_a, pos_b)
    rows = np.broadcast_to(np.arange(seen.shape[0])[:, None], seen.shape)
    keep = (seen >= 1) & (seen <= depth)
    counts = np.bincount(rows[keep] * depth + (seen[keep] - 1), minlength=seen.shape[0] * depth)
    return np.cumsum(counts.reshape(seen.shape[0], depth), axis=1).astype(np.float64)


def rbo_ext(pos_a: ArrayLike, pos_b: ArrayLike, p: float = 0.9) -> np.ndarray:
    r"""Extrapolated rank-biased overlap of two rankings of the same length k (Webber et al. 2010).

    With X_d the overlap of the two depth-d prefixes and A_d = X_d / d,

    .. math:: \mathrm{RBO}_{ext} = A_k\,p^k + \frac{1-p}{p} \sum_{d=1}^{k} A_d\,p^d

    (Webber, Moffat & Zobel 2010, eq. 32: the agreement seen at depth k is assumed to hold
    below it). In [0, 1]; 1 for identical rankings, whatever ``p``. ``pos_a``, ``pos_b``:
    [R, n] positions (negative = absent); each ranking's length k is its number of present
    items, and the two lengths must be equal. Returns one value per row (NaN for k = 0).
    """
    pos_a = np.atleast_2d(np.asarray(pos_a, dtype=np.int64))
    pos_b = np.atleast_2d(np.asarray(pos_b, dtype=np.int64))
    k_a = (pos_a >= 0).sum(axis=1)
    k_b = (pos_b >= 0).sum(axis=1)
    if not np.array_equal(k_a, k_b):
        raise ValueError("rbo_ext needs rankings of equal length (Webber et al. 2010, eq. 32)")
    depth = int(k_a.max()) if len(k_a) else 0
    out = np.full(pos_a.shape[0], np.nan)
    if depth == 0:
        return out
    x = _overlap_curve(pos_a, pos_b, depth)
    d = np.arange(1, depth + 1, dtype=np.float64)
    agree = x / d
    pd_ = p**d
    live = d[None, :] <= k_a[:, None]
    total = ((1.0 - p) / p) * np.where(live, agree * pd_, 0.0).sum(axis=1)
    k = np.maximum(k_a, 1)
    last = agree[np.arange(len(k)), k - 1] * p ** k.astype(np.float64)
    out = np.where(k_a > 0, last + total, np.nan)
    return np.clip(out, 0.0, 1.0)


def rbo_truncated(pos_a: ArrayLike, pos_b: ArrayLike, p: float, depth: int) -> np.ndarray:
    r"""Rank-biased overlap truncated at ``depth`` and normalised by its weights.

    .. math:: \mathrm{RBO}@D = \frac{\sum_{d=1}^{D} p^{d-1} X_d / d}{\sum_{d=1}^{D} p^{d-1}}

    the form of Clarke et al. (2021) that repro_eval uses for reproduced runs (Breuer et al.
    2020): prefixes stop growing past a list's end, so lists of different lengths and items
    are fine. In [0, 1]; 1 for identical lists at least ``depth`` long.
    """
    pos_a = np.atleast_2d(np.asarray(pos_a, dtype=np.int64))
    pos_b = np.atleast_2d(np.asarray(pos_b, dtype=np.int64))
    x = _overlap_curve(pos_a, pos_b, depth)
    d = np.arange(1, depth + 1, dtype=np.float64)
    w = p ** (d - 1.0)
    return (x / d * w).sum(axis=1) / w.sum()


def top_k_overlap(pos_a: ArrayLike, pos_b: ArrayLike, k: int) -> np.ndarray:
    """|top-k of a ∩ top-k of b| / k for each row (items at positions 0..k-1)."""
    pos_a = np.atleast_2d(np.asarray(pos_a, dtype=np.int64))
    pos_b = np.atleast_2d(np.asarray(pos_b, dtype=np.int64))
    top = (pos_a >= 0) & (pos_a < k) & (pos_b >= 0) & (pos_b < k)
    return top.sum(axis=1) / float(k)


def expected_overlap_curve(scores_a, scores_b, depths=None) -> np.ndarray:
    r"""E[X_d]: the expected overlap of the two depth-d prefixes of the rankings of the same
    items by ``scores_a`` and by ``scores_b`` (descending), each tie broken uniformly at
    random, independently in the two rankings.

    An item of a tie group occupying positions s … s + m − 1 is in the depth-d prefix with
    probability π(d) = min(1, max(0, (d − s)/m)), so by linearity

    .. math:: E[X_d] = \sum_i π^a_i(d)\, π^b_i(d).

    Without ties this is X_d itself. ``depths``: the d to evaluate (default 1 … n).
    Equal scores tie: read means from :func:`pdireval.stats.means.exact_means`.
    """
    from pdireval.stats.means import tie_groups

    start_a, size_a = tie_groups(scores_a)
    start_b, size_b = tie_groups(scores_b)
    n = len(start_a)
    d = (
        np.arange(1, n + 1, dtype=np.float64)
        if depths is None
        else np.asarray(depths, dtype=np.float64)
    )
    out = np.empty(len(d))
    step = max(1, (1 << 22) // max(n, 1))  # depths per block: memory bounded
    for lo in range(0, len(d), step):
        block = d[lo : lo + step, None]
        in_a = np.clip((block - start_a) / size_a, 0.0, 1.0)
        in_b = np.clip((block - start_b) / size_b, 0.0, 1.0)
        out[lo : lo + step] = (in_a * in_b).sum(axis=1)
    return out


def rbo_ext_ties(scores_a, scores_b, p: float = 0.9) -> float:
    r"""Extrapolated RBO of the rankings by ``scores_a`` and ``scores_b`` (same items,
    descending), tie-aware: the mean of :func:`rbo_ext` over every way of breaking the ties
    of both rankings (uniformly, independently), computed exactly — RBO_ext is linear in the
    overlaps X_d, so it is RBO_ext with X_d replaced by :func:`expected_overlap_curve`.
    Equals :func:`rbo_ext` when neither ranking has ties; never depends on item names or
    order. NaN for no items.
    """
    n = len(np.asarray(scores_a))
    if n == 0:
        return float("nan")
    x = expected_overlap_curve(scores_a, scores_b)
    d = np.arange(1, n + 1, dtype=np.float64)
    agree = x / d
    value = agree[-1] * p ** float(n) + ((1.0 - p) / p) * float((agree * p**d).sum())
    return float(np.clip(value, 0.0, 1.0))


def top_k_overlap_ties(scores_a, scores_b, k: int) -> float:
    """|top-k of a ∩ top-k of b| / k for the rankings by ``scores_a`` and ``scores_b``,
    tie-aware: its mean over every way of breaking the ties (E[X_k] / k, see
    :func:`expected_overlap_curve`)."""
    return float(expected_overlap_curve(scores_a, scores_b, depths=[k])[0] / k)


def inversions(y, lengths) -> np.ndarray:
    """Number of pairs i < j with y[r, i] > y[r, j] in the first ``lengths[r]`` entries of each row.

    Vectorised bottom-up merge sort: at each of ⌈log2 L⌉ levels every block of 2h entries,
    whose two halves are already sorted, is merged by one stable ``argsort`` for all rows
    and blocks at once; a right-half element that lands at merged position ``pos`` from
    half-position ``idx`` has ``idx − pos`` larger left-half elements (ties: none). O(R · L
    log L) time, O(R · L) memory, no loop over rows or entries. Entries must be finite.
    """
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    lengths = np.asarray(lengths, dtype=np.int64)
    n_rows, width = y.shape
    total = np.zeros(n_rows, dtype=np.int64)
    if width < 2 or n_rows == 0:
        return total
    size = 1 << int(np.ceil(np.log2(width)))
    # padding past each row's length is +inf: it sits after every real entry, so it is
    # never above one (a left half holds padding only when its right half is all padding)
    work = np.full((n_rows, size), np.inf)
    live = np.arange(width)[None, :] < lengths[:, None]
    work[:, :width] = np.where(live, y, np.inf)
    half = 1
    while half < size:
        blocks = work.reshape(n_rows, -1, 2 * half)
        idx = np.argsort(blocks, axis=2, kind="stable")
        pos = np.arange(2 * half)
        total += np.where(idx >= half, idx - pos, 0).reshape(n_rows, -1).sum(axis=1)
        work = np.take_along_axis(blocks, idx, axis=2).reshape(n_rows, size)
        half *= 2
    return total


def _tied_pairs(sorted_rows: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Σ t(t − 1)/2 over the runs of equal values of each (sorted) row, live entries only."""
    n_rows, width = sorted_rows.shape
    new_run = np.ones((n_rows, width), dtype=bool)
    new_run[:, 1:] = sorted_rows[:, 1:] != sorted_rows[:, :-1]
    run_id = np.cumsum(new_run, axis=1) - 1 + (np.arange(n_rows) * width)[:, None]
    sizes = np.bincount(run_id[live], minlength=n_rows * width).reshape(n_rows, width)
    return (sizes * (sizes - 1) // 2).sum(axis=1)


def kendall_tau_b_rows(x, y, lengths=None) -> np.ndarray:
    r"""Kendall's τ_b of each row pair (x[r], y[r]) in O(L log L) per row, all rows at once.

    Knight's (1966) method: order each row by (x, y); the discordant pairs are then the
    inversions of y, and with n1, n2, n3 the pairs tied in x, in y and in both,
    c − d = n0 − n1 − n2 + n3 − 2d and τ_b = (c − d) / √((n0 − n1)(n0 − n2)) —
    ``scipy.stats.kendalltau``'s statistic. NaN for fewer than two entries or a constant row.
    ``lengths[r]``: row r uses its first ``lengths[r]`` entries (default: all).
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    n_rows, width = x.shape
    lengths = (
        np.full(n_rows, width, dtype=np.int64)
        if lengths is None
        else np.asarray(lengths, dtype=np.int64)
    )
    live = np.arange(width)[None, :] < lengths[:, None]
    big = np.inf
    xs = np.where(live, x, big)
    ys = np.where(live, y, big)
    order = np.lexsort((ys, xs), axis=1) if n_rows else np.zeros((0, width), dtype=np.int64)
    x_o = np.take_along_axis(xs, order, axis=1)
    y_o = np.take_along_axis(ys, order, axis=1)
    live_sorted = np.arange(width)[None, :] < lengths[:, None]  # padding sorts last
    d = inversions(np.where(live_sorted, y_o, 0.0), lengths)
    n1 = _tied_pairs(x_o, live_sorted)
    y_sorted = np.sort(ys, axis=1)
    n2 = _tied_pairs(y_sorted, live_sorted)
    # ties in both: runs of equal (x, y) in the (x, y) order
    both = np.zeros((n_rows, width), dtype=bool)
    both[:, 1:] = (x_o[:, 1:] == x_o[:, :-1]) & (y_o[:, 1:] == y_o[:, :-1])
    run_id = np.cumsum(~both, axis=1) - 1 + (np.arange(n_rows) * width)[:, None]
    sizes = np.bincount(run_id[live_sorted], minlength=n_rows * width).reshape(n_rows, width)
    n3 = (sizes * (sizes - 1) // 2).sum(axis=1)
    n0 = lengths * (lengths - 1) // 2
    num = (n0 - n1 - n2 + n3 - 2 * d).astype(np.float64)
    den = np.sqrt((n0 - n1).astype(np.float64) * (n0 - n2).astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
