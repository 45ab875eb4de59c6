r"""Rank correlation of many pairs of score vectors at once: row r of ``x`` against row r of ``y``.

The bootstrap intervals of :func:`pdireval.correlate` and :func:`pdireval.leaderboard_agreement`
need one statistic per replicate leaderboard; these functions compute them for all B rows
together (sorting, pair counts and products over rows, no loop over rows or systems; the
O(m²) τ_AP family works in row chunks that bound memory).
"""

from __future__ import annotations

import numpy as np

from pdireval.core.chunking import chunks
from pdireval.stats.rank_overlap import (
    kendall_tau_b_rows,
    rbo_ext,
    rbo_ext_ties,
    top_k_overlap,
    top_k_overlap_ties,
)

__all__ = ["ROW_METHODS", "tau_ap_rows", "correlation_rows", "positions"]

#: the methods :func:`correlation_rows` knows
ROW_METHODS = (
    "kendall_a",
    "kendall_b",
    "gamma",
    "spearman",
    "pearson",
    "tau_ap",
    "tau_ap_sym",
    "tau_ap_b",
    "rbo",
    "top_k_overlap",
)


def positions(values) -> np.ndarray:
    """0-based leaderboard position of every entry of each row: value descending, equal values
    in column order (the systems' name order in pdireval's matrices)."""
    v = np.atleast_2d(np.asarray(values, dtype=np.float64))
    order = np.argsort(-v, axis=1, kind="stable")
    pos = np.empty_like(order)
    np.put_along_axis(pos, order, np.broadcast_to(np.arange(v.shape[1]), v.shape), axis=1)
    return pos


def _ap_one_way(ref, other):
    """Σ_i c_i / a_i over the items i with a_i > 0, and the number of such items, per row:
    a_i = #{j : ref_j > ref_i} (items strictly above i in ``ref``), c_i = #{j : ref_j > ref_i
    and other_j > other_i}."""
    b, m = ref.shape
    total = np.zeros(b)
    count = np.zeros(b)
    for part in chunks(b, 2 * m * m):
        r = ref[part]
        o = other[part]
        above = r[:, None, :] > r[:, :, None]  # [row, i, j]: j above i in ref
        agree = above & (o[:, None, :] > o[:, :, None])
        a = above.sum(axis=2)
        c = agree.sum(axis=2)
        live = a > 0
        total[part] = np.where(live, c / np.where(live, a, 1), 0.0).sum(axis=1)
        count[part] = live.sum(axis=1)
    return total, count


def _has_ties(v):
    s = np.sort(v, axis=1)
    return (s[:, 1:] == s[:, :-1]).any(axis=1)


def tau_ap_rows(x, y, *, variant: str = "ap") -> np.ndarray:
    r"""τ_AP of each row pair; ``variant`` ``"ap"`` (τ_AP(x | y), Yilmaz et al. 2008; NaN for a
    row with ties), ``"sym"`` (its symmetric mean) or ``"b"`` (Urbano & Marrero's 2017
    tie-aware τ_AP,b).

    τ_AP,b = (τ_b(x → y) + τ_b(y → x)) / 2 with the one-way form, for a reference ranking r
    and another o, τ_b(r → o) = 2/|T| Σ_{i∈T} c_i / a_i − 1, where a_i = #{j : r_j > r_i}
    (items strictly above i's tie group in r), T = {i : a_i > 0} (every item below the top
    group) and c_i = #{j : r_j > r_i, o_j > o_i} (those also strictly above i in o). Without
    ties a_i = i − 1 and τ_AP,b is the symmetric τ_AP. NaN when a ranking is all tied.
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    if x.shape[1] < 2:
        return np.full(x.shape[0], np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        s_x, n_x = _ap_one_way(x, y)  # reference x: τ_AP(x | y)
        one_x = 2.0 * s_x / n_x - 1.0
        if variant == "ap":
            return np.where(_has_ties(x) | _has_ties(y), np.nan, one_x)
        s_y, n_y = _ap_one_way(y, x)
        one_y = 2.0 * s_y / n_y - 1.0
        both = (one_x + one_y) / 2.0
    if variant == "sym":
        return np.where(_has_ties(x) | _has_ties(y), np.nan, both)
    return both


def _ranks_rows(v):
    """Average ranks (ascending) of each row, as scipy.stats.rankdata."""
    from pdireval.stats.rank_bootstrap import descending_ranks

    return v.shape[1] + 1 - descending_ranks(v)


def _pearson_rows(a, b):
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        den = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
        return np.clip(np.where(den > 0, (a * b).sum(axis=1) / den, np.nan), -1.0, 1.0)


def _kendall_rows(x, y, variant):
    """τ_a or γ of each row pair from the pair counts (O(m²) per row, chunked)."""
    b, m = x.shape
    out = np.empty(b)
    n0 = m * (m - 1) / 2.0
    i, j = np.triu_indices(m, 1)
    for part in chunks(b, 2 * len(i)):
        prod = np.sign(x[part][:, i] - x[part][:, j]) * np.sign(y[part][:, i] - y[part][:, j])
        c = (prod > 0).sum(axis=1)
        d = (prod < 0).sum(axis=1)
        den = n0 if variant == "a" else (c + d).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[part] = np.where(np.asarray(den) > 0, (c - d) / den, np.nan)
    return out


def correlation_rows(method: str, x, y, *, p: float = 0.9, k: int = 10) -> np.ndarray:
    """The statistic ``method`` (:data:`ROW_METHODS`) of every row pair of ``x`` and ``y``.

    Equal per row to :func:`pdireval.stats.rank_correlation.rank_correlation`'s statistic
    (``"rbo"``: extrapolated RBO of the two leaderboards; ``"top_k_overlap"``: |top-k ∩
    top-k| / k, k capped at the number of columns; both tie-aware as
    :func:`pdireval.stats.rank_overlap.rbo_ext_ties` and ``top_k_overlap_ties``: rows without
    ties are computed together, rows holding tied values one by one).
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    if method == "kendall_b":
        return kendall_tau_b_rows(x, y)
    if method in ("kendall_a", "gamma"):
        return _kendall_rows(x, y, "a" if method == "kendall_a" else "gamma")
    if method == "pearson":
        return _pearson_rows(x, y)
    if method == "spearman":
        return _pearson_rows(_ranks_rows(x), _ranks_rows(y))
    if method in ("tau_ap", "tau_ap_sym", "tau_ap_b"):
        return tau_ap_rows(x, y, variant={"tau_ap": "ap", "tau_ap_sym": "sym"}.get(method, "b"))
    if method in ("rbo", "top_k_overlap"):
        # rows without ties: the plain statistic, vectorised; rows with tied values: the
        # tie-aware expectation over every order of the tied items, row by row
        kk = min(k, x.shape[1])
        if method == "rbo":
            out = rbo_ext(positions(x), positions(y), p)
        else:
            out = top_k_overlap(positions(x), positions(y), kk)
        for r in np.flatnonzero(_has_ties(x) | _has_ties(y)):
            out[r] = (
                rbo_ext_ties(x[r], y[r], p)
                if method == "rbo"
                else top_k_overlap_ties(x[r], y[r], kk)
            )
        return out
    raise ValueError(f"unknown row method {method!r}")
