"""Compatibility (Clarke, Vtyurina & Smucker 2021): RBO between a ranking and an ideal one.

The ideal ranking of a query lists its relevant documents (label > 0) by label descending;
documents with equal labels follow the run's own order (retrieved ones first, in run
order), which makes the ideal the one most compatible with the run. Rank-biased overlap
(Webber, Moffat & Zobel 2010) with persistence p over depth D = max(L, |ideal|) (L the
list length) is

    RBO = Σ_{i=1}^{D} p^{i−1} · |A_i ∩ I_i| / i  /  Σ_{i=1}^{D} p^{i−1},

A_i and I_i the top i of the run and of the ideal. ``normalize=True`` (the default)
divides by the RBO of the ideal with itself (so a perfect ranking scores 1).

A document in both lists at run position r and ideal position q (0-based) is in every
overlap from depth max(r, q) + 1 on, so the kernel sums, per such document,
``F(max(r, q))`` with ``F(m) = Σ_{i=m}^{D−1} p^i / (i + 1)`` read off one cumulative array.
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.view import (
    level_codes,
    run_sums,
    segment_bounds,
    view_of,
    within_segment_rank,
)

__all__ = ["compat"]


#: Up to this many relevance levels, the run's documents of the same level above each
#: relevant hit are counted with one cumulative count per level; past it, by a stable sort.
_COUNT_LEVELS = 4


def same_level_above(seg: np.ndarray, code, n_levels: int, bounds) -> np.ndarray:
    """Per hit (in segment, position order): the hits of its segment above it with the same
    level code (``bounds``: the :func:`segment_bounds` of ``seg``, None when empty)."""
    if bounds is None:
        return np.zeros(0, dtype=np.int64)
    _, first, lengths = bounds
    if n_levels == 1:
        return np.arange(len(seg)) - np.repeat(first, lengths)
    if n_levels <= _COUNT_LEVELS:
        out = np.zeros(len(seg), dtype=np.int64)
        for level in range(n_levels):  # a handful of levels, vectorised over hits
            at = code == level
            before = np.cumsum(at, dtype=np.int64)
            before -= at
            before -= np.repeat(before[first], lengths)
            before *= at
            out += before
        return out
    group = seg.astype(np.int64) * n_levels + code
    order = np.argsort(group, kind="stable")  # hits are in (segment, position) order
    out = np.empty(len(seg), dtype=np.int64)
    out[order] = within_segment_rank(group[order])
    return out


def compat(segments, m):
    """Compat(p, normalize) (Clarke, Vtyurina & Smucker 2021; ir_measures' ``Compat``).

    See the module docstring. The run is the whole retrieved list (no cut-off); relevance
    is label > 0; a query without relevant documents and without retrieved documents
    scores 0.

    A relevant hit's ideal position is the number of the query's relevant documents with a
    higher label (a per-query table of cumulative counts over the label levels) plus the
    retrieved documents of its own label above it in the run.
    """
    p, normalize = m.get("p"), m.get("normalize")
    v = view_of(segments, negatives="keep")
    R, depth, power, G = ideal_weights(v, p)
    rel = np.flatnonzero(v.hit_label > 0)
    seg, pos = v.hit_seg[rel], v.hit_pos[rel]
    bounds = segment_bounds(seg) if len(seg) else None
    n_levels, h_code, ideal_pos = higher_labelled(v, rel)
    ideal_pos = ideal_pos + same_level_above(seg, h_code, n_levels, bounds)
    first_common = np.maximum(pos, ideal_pos)
    score = run_sums(G[depth[seg]] - G[first_common], seg, bounds, v.n_seg)
    return normalised(score, p, normalize, R, depth, power, G)


def ideal_weights(v, p):
    """Per segment R (relevant documents of the query) and depth D = max(L, R); the powers
    p^i (i < max D) and G[m] = Σ_{i<m} p^i / (i + 1)."""
    q_rel = np.flatnonzero(v.q_label > 0)  # NaN -> False
    R = np.bincount(v.q_row_query[q_rel], minlength=v.n_queries)[v.seg_query]
    depth = np.maximum(v.seg_len, R)
    size = int(depth.max()) if v.n_seg else 0
    i = np.arange(size, dtype=np.float64)
    power = np.power(p, i)
    G = np.empty(size + 1)  # G[m] = Σ_{i<m} p^i / (i + 1)
    G[0] = 0.0
    np.cumsum(power / (i + 1.0), out=G[1:])
    return R, depth, power, G


def higher_labelled(v, rel):
    """(levels, level code of each relevant hit ``rel`` (0 the highest label; None with one
    level), the query's relevant documents with a higher label than the hit)."""
    q_rel = np.flatnonzero(v.q_label > 0)
    q_query = v.q_row_query[q_rel]
    labels = np.unique(v.q_label[q_rel])  # a hit's label is one of them
    n_levels = len(labels)
    if n_levels <= 1:
        return 1, None, np.zeros(len(rel), dtype=np.int64)
    n_q = v.n_queries
    q_code = n_levels - 1 - level_codes(labels, v.q_label[q_rel])
    h_code = n_levels - 1 - level_codes(labels, v.hit_label[rel])
    # per (query, level): relevant documents of the query with a higher label
    table = np.bincount(q_query * n_levels + q_code, minlength=n_q * n_levels).reshape(
        n_q, n_levels
    )
    higher = np.cumsum(table, axis=1)
    higher -= table
    return n_levels, h_code, higher.ravel()[v.seg_query[v.hit_seg[rel]] * n_levels + h_code]


def normalised(score, p, normalize, R, depth, power, G):
    """Σ_d F(max(r_d, q_d)) divided by the ideal's RBO with itself (``normalize``) or by
    Σ_{i<D} p^i."""
    out = np.zeros(len(score))
    if normalize:
        # RBO of the ideal with itself: overlap min(i, R) at depth i
        geometric = np.empty(len(G))  # Σ_{i<m} p^i
        geometric[0] = 0.0
        np.cumsum(power, out=geometric[1:])
        best = geometric[R] + R * (G[depth] - G[R])
        return np.divide(score, best, out=out, where=best > 0)
    norm = (1.0 - np.power(p, depth)) / (1.0 - p)
    return np.divide(score, norm, out=out, where=depth > 0)
