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

from pdireval.measures.registry import MeasureDef, Param, register
from pdireval.measures.view import seg_sum, view_of, within_segment_rank

__all__ = ["compat"]


def _prefix_weights(p: float, size: int) -> np.ndarray:
    """G[m] = Σ_{i<m} p^i / (i + 1), m = 0..size."""
    i = np.arange(size, dtype=np.float64)
    return np.concatenate([[0.0], np.cumsum(np.power(p, i) / (i + 1.0))])


def compat(segments, m):
    """Compat(p, normalize) (Clarke, Vtyurina & Smucker 2021; ir_measures' ``Compat``).

    See the module docstring. The run is the whole retrieved list (no cut-off); relevance
    is label > 0; a query without relevant documents and without retrieved documents
    scores 0.
    """
    p, normalize = m.get("p"), m.get("normalize")
    v = view_of(segments, negatives="keep")
    n = v.n_seg
    # ideal: relevant documents of the query (label > 0) by label descending
    q_rel = v.q_label > 0  # NaN -> False
    R = v.per_query_count(q_rel)[v.seg_query]
    L = v.seg_len.astype(np.float64)
    depth = np.maximum(L, R).astype(np.int64)
    G = _prefix_weights(p, int(depth.max()) if n else 0)

    rel = v.hit_label > 0
    seg, pos, lab = v.hit_seg[rel], v.hit_pos[rel], v.hit_label[rel]
    # ideal position: relevant documents of the query with a higher label, then the
    # retrieved documents of the same label ranked above it by the run
    # label levels of the qrels (a hit's label is one of them), highest first
    labels = np.unique(v.q_label[q_rel])
    n_levels = len(labels)
    q_code = n_levels - 1 - np.searchsorted(labels, v.q_label[q_rel])
    h_code = n_levels - 1 - np.searchsorted(labels, lab)
    q_key = np.sort(v.q_row_query[q_rel].astype(np.int64) * n_levels + q_code)
    h_query = v.seg_query[seg].astype(np.int64)
    higher = np.searchsorted(q_key, h_query * n_levels + h_code) - np.searchsorted(q_key, h_query * n_levels)
    # hits are in (segment, position) order: a stable sort by (segment, level) keeps it
    group = seg.astype(np.int64) * n_levels + h_code
    order = np.argsort(group, kind="stable")
    same_label_above = np.empty(len(seg), dtype=np.int64)
    same_label_above[order] = within_segment_rank(group[order])
    ideal_pos = higher + same_label_above
    first_common = np.maximum(pos, ideal_pos)
    score = seg_sum(seg, G[depth[seg]] - G[first_common], n)
    if normalize:
        # RBO of the ideal with itself: overlap min(i, R) at depth i
        Ri = R.astype(np.int64)
        i = np.arange(len(G) - 1, dtype=np.float64)
        geometric = np.concatenate([[0.0], np.cumsum(np.power(p, i))])  # Σ_{i<m} p^i
        best = geometric[Ri] + R * (G[depth] - G[Ri])
        out = np.zeros(n)
        ok = best > 0
        out[ok] = score[ok] / best[ok]
        return out
    norm = (1.0 - np.power(p, depth)) / (1.0 - p)
    out = np.zeros(n)
    ok = depth > 0
    out[ok] = score[ok] / norm[ok]
    return out


def _p_check(p):
    return None if 0 < p < 1 else "a persistence 0 < p < 1"


register(
    MeasureDef(
        "Compat",
        compat,
        "Compatibility: RBO = Σ_{i<=D} p^(i−1)·|A_i ∩ I_i|/i / Σ_{i<=D} p^(i−1) between the run and the ideal ranking most compatible with it (A_i, I_i their top i); normalize divides by the ideal's own RBO.",
        (
            Param("p", "float", 0.95, "RBO persistence.", check=_p_check),
            Param("normalize", "bool", True, "Divide by the RBO of the ideal ranking with itself (a perfect run scores 1)."),
        ),
        cutoff="none",
        citation="Clarke, Vtyurina & Smucker 2021 (RBO: Webber, Moffat & Zobel 2010)",
    )
)
