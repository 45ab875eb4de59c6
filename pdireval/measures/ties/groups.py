"""Tie groups and the sums over their slots that the closed forms of ``ties="expected"`` share.

Notation, for a tie group g of a (system, query) list: it occupies positions s..s+n−1
(0-based; rank = position + 1) and holds r relevant documents; k is the cut-off (k = ∞ without
one) and m = min(n, max(k − s, 0)) the slots of g inside the top k. In a random ordering of g
every document of g is equally likely at each of its n slots, so a linear measure's weight w_i
is replaced by the mean weight of its group's slots: E = Σ_g G_g · (1/n)·Σ_{t<m} w_{s+t}.
This module knows no measure.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdireval.measures.view import (
    integral_and_small,
    read_negatives,
    seg_sum,
    segment_bounds,
    within_segment_cumsum,
)

__all__ = [
    "Groups",
    "tie_groups",
    "slots_inside",
    "mean_weight",
    "group_sum",
    "linear_expectation",
    "ones_until",
    "relevant_hits",
    "expected_count",
    "harmonic_sums",
    "log_comb",
    "earlier_sum",
    "mean_over_run",
    "relevant_per_group",
    "exclusive_in_segment",
    "groups_above",
    "per_query_prefix",
]


@dataclass
class Groups:
    """The tie groups holding at least one hit (under a view's label reading)."""

    seg: np.ndarray  # segment of each group
    start: np.ndarray  # s: first position
    size: np.ndarray  # n: number of documents (judged or not)
    hit_group: np.ndarray  # group of each hit of the view


def tie_groups(v) -> Groups:
    """Tie groups of the view's hits; under ``judged_only`` the groups of the condensed list
    (the judged documents of each original group, which stay consecutive)."""
    key = ("tie_groups", v.negatives, v.judged_only)
    cache = v.segments.cache
    if key in cache:
        return cache[key]
    seg = v.segments
    if seg.hit_tie_start is None or seg.hit_tie_size is None:
        # segments without tie groups (the ideal, worst and random rankings of the bounds,
        # copies made by tie_orderings) hold no ties: every document is its own group
        start, size = seg.hit_pos, np.ones(len(seg.hit_pos), dtype=np.int64)
    else:
        start, size = seg.hit_tie_start, seg.hit_tie_size
    if v.judged_only:
        keep = ~np.isnan(read_negatives(seg.hit_label, v.negatives))
        start = start[keep]
    hit_seg = v.hit_seg
    n = len(hit_seg)
    new = np.ones(n, dtype=bool)
    if n:
        new[1:] = (hit_seg[1:] != hit_seg[:-1]) | (start[1:] != start[:-1])
    hit_group = np.cumsum(new) - 1
    g_seg = hit_seg[new]
    if v.judged_only:
        g_start = v.hit_pos[new]  # first condensed position of the group's judged documents
        g_size = np.bincount(hit_group, minlength=len(g_seg)).astype(np.int64)
    else:
        g_start = start[new]
        g_size = size[new]
    out = Groups(g_seg, g_start.astype(np.int64), g_size.astype(np.int64), hit_group)
    cache[key] = out
    return out


def slots_inside(groups: Groups, k) -> np.ndarray:
    """m: slots of each group inside the top k (k scalar, per-group array, or None)."""
    if k is None:
        return groups.size
    return np.clip(k - groups.start, 0, groups.size)


def mean_weight(groups: Groups, m: np.ndarray, weight_of) -> np.ndarray:
    """(1/n)·Σ_{t<m} w(s + t) per group, w given for positions by ``weight_of``."""
    top = int((groups.start + m).max()) if len(m) else 0
    w = weight_of(np.arange(top))
    cum = np.concatenate([[0.0], np.cumsum(w)])
    total = cum[groups.start + m] - cum[groups.start]
    single = groups.size == 1  # exact, untouched by the cumulative sums
    total[single & (m == 1)] = w[groups.start[single & (m == 1)]]
    return total / groups.size


def group_sum(groups: Groups, values: np.ndarray) -> np.ndarray:
    return np.bincount(groups.hit_group, weights=values, minlength=len(groups.seg))


def linear_expectation(v, groups: Groups, per_hit: np.ndarray, k, weight_of) -> np.ndarray:
    """E[Σ_i w_i·x_i] per segment, x_i = per_hit values (0 for documents outside the qrels)."""
    m = slots_inside(groups, k)
    mean_w = mean_weight(groups, m, weight_of)
    return seg_sum(groups.seg, group_sum(groups, per_hit) * mean_w, v.n_seg)


def ones_until(k):
    return lambda pos: np.ones(len(pos)) if k is None else (pos < k).astype(np.float64)


def relevant_hits(v, m) -> np.ndarray:
    return (v.hit_label >= m.get("rel")).astype(np.float64)


def expected_count(v, m, k) -> np.ndarray:
    """E[relevant in the top k] (k scalar or None)."""
    groups = tie_groups(v)
    return linear_expectation(v, groups, relevant_hits(v, m), k, ones_until(k))


def harmonic_sums(s: np.ndarray, m: np.ndarray, n: np.ndarray):
    """(Σ_{t<m} 1/(s+t+1), Σ_{t<m} t/(s+t+1)) per group, exact for single slots."""
    top = int((s + m).max()) if len(s) else 0
    H = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, top + 1))])
    inv = H[s + m] - H[s]
    one = m == 1
    inv[one] = 1.0 / (s[one] + 1.0)
    lin = m - (s + 1.0) * inv
    lin[one] = 0.0
    return inv, lin


def log_comb(a, b):
    from scipy.special import gammaln

    return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)


def earlier_sum(groups: Groups, per_group: np.ndarray) -> np.ndarray:
    """Σ of ``per_group`` over the earlier groups of the same segment, per group."""
    if len(per_group) == 0:
        return per_group
    total = np.cumsum(per_group) - per_group
    first = np.r_[True, groups.seg[1:] != groups.seg[:-1]]
    # the index of each group's segment's first group (values may be negative: no running max)
    lead = np.maximum.accumulate(np.where(first, np.arange(len(first)), 0))
    return total - total[lead]


def mean_over_run(f_cum: np.ndarray, lo: np.ndarray, width: np.ndarray) -> np.ndarray:
    """(1/(w+1))·Σ_{u=0}^{w} f(lo + u) per group, from f's cumulative sums ``f_cum``
    (f_cum[x] = Σ_{y<x} f(y))."""
    return (f_cum[lo + width + 1] - f_cum[lo]) / (width + 1.0)


def relevant_per_group(v, m, groups: Groups) -> np.ndarray:
    """Relevant documents (label >= ``rel``) per group."""
    return group_sum(groups, (v.hit_label >= m.get("rel")).astype(np.float64))


def exclusive_in_segment(seg: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Σ of ``values`` over the earlier elements of the same segment (seg sorted), for each
    row of a 2-d ``values`` at once; values may be negative. A segment's sums depend on its
    own elements only, bit for bit: integers (counts, integral gains) by one cumulative sum
    minus each segment's start (exact), other values by :func:`within_segment_cumsum`. Only
    the segments with more than one element are summed when they are few (most lists of a
    sparsely judged run hold one group with a relevant document)."""
    n = len(seg)
    out = np.zeros_like(values)
    if n < 2:
        return out
    is_first = np.empty(n, dtype=bool)
    is_first[0] = True
    np.not_equal(seg[1:], seg[:-1], out=is_first[1:])
    shared = ~is_first
    shared[:-1] |= shared[1:]  # an element whose segment holds others
    idx = np.flatnonzero(shared)
    if len(idx) == 0:
        return out
    whole = len(idx) == n
    sub_seg, sub = (seg, values) if whole else (seg[idx], values[..., idx])
    is_first, first, lengths = segment_bounds(sub_seg)
    if integral_and_small(sub):
        total = np.cumsum(sub, axis=-1) - sub
        part = total - np.repeat(total[..., first], lengths, axis=-1)
    else:
        bounds = (is_first, first, lengths)
        part = np.stack(
            [
                within_segment_cumsum(sub_seg, row, inclusive=False, bounds=bounds)
                for row in np.atleast_2d(sub)
            ]
        ).reshape(sub.shape)
    if whole:
        return part
    out[..., idx] = part
    return out


def groups_above(v, k):
    """The tie groups with a slot above the cut-off k, and the indices of their hits among the
    view's (None: every hit); every group, with k None or on condensed lists (whose
    positions are not the run's)."""
    segments = v.segments
    if k is None or v.judged_only or segments.hit_tie_start is None:
        return tie_groups(v), None
    kept = np.flatnonzero(segments.hit_tie_start < k)
    hit_seg, start = v.hit_seg[kept], segments.hit_tie_start[kept]
    new = np.ones(len(kept), dtype=bool)
    if len(kept):
        new[1:] = (hit_seg[1:] != hit_seg[:-1]) | (start[1:] != start[:-1])
    size = segments.hit_tie_size[kept][new].astype(np.int64)
    return Groups(hit_seg[new], start[new].astype(np.int64), size, np.cumsum(new) - 1), kept


def per_query_prefix(
    flat_q: np.ndarray, at: np.ndarray, values: np.ndarray, n_queries: int
) -> np.ndarray:
    """Inclusive per-query cumulative sums of ``values`` (flat, grouped by query) laid out at
    ``at`` in an array that holds a 0 before each query's first value."""
    out = np.zeros(len(values) + n_queries)
    out[at] = within_segment_cumsum(flat_q, values)
    return out
