"""Sakai's graded measures and bpref-10: the Q-measure, normalised ERR, ``Bpref(variant=10R)``.

* **Q-measure** (Sakai 2004; Sakai & Kando 2008): a graded AP with "blended ratios",

      Q = (1/R)·Σ_{relevant d at rank r} (β·cg(r) + C(r)) / (β·cg*(r) + r),

  cg(r) the cumulative gain of the list down to rank r, cg*(r) that of the ideal list (the
  judged pool sorted by gain descending; constant past its last relevant document), C(r) the
  number of relevant documents (label >= ``rel``) in the top r, R their number, β the
  persistence (β = 1 by default; β = 0 gives AP). Documents below ``rel`` have gain 0.
  **Q@l** (Sakai 2014; NTCIREVAL's document cut-off) sums over the top l only and divides by
  min(l, R), the number of relevant documents an ideal list can place in the top l:
  Q@l = (1/min(l, R))·Σ_{relevant d at rank r <= l} BR(r).
* **nERR@k** (Sakai & Song 2011): ERR@k (Chapelle et al. 2009) divided by the ERR@k of the
  ideal list (the judged pool sorted by label descending), with ERR's stopping probabilities
  (2^g − 1)/2^{g_max}; 0 when the ideal ERR is 0.
* **bpref-10** (Buckley & Voorhees 2004; ``Bpref(variant=10R)``): the same walk as bpref with
  1 − min(n_r, 10 + R)/min(N, 10 + R) per retrieved relevant document r (n_r judged
  non-relevant documents above r, N judged non-relevant documents of the query), / R.

References
----------
Sakai, T. (2004). New performance metrics based on multigrade relevance. NTCIR-4.
Sakai, T. & Kando, N. (2008). On information retrieval metrics designed for evaluation with
incomplete relevance assessments. Information Retrieval 11(5).
Sakai, T. (2014). Metrics, statistics, tests. PROMISE Winter School 2013, LNCS 8173.
Sakai, T. & Song, R. (2011). Evaluating diversified search results using per-intent graded
relevance. SIGIR 2011.
Chapelle, O., Metzler, D., Zhang, Y. & Grinspan, P. (2009). Expected reciprocal rank for graded
relevance. CIKM 2009.
Buckley, C. & Voorhees, E. M. (2004). Retrieval evaluation with incomplete information. SIGIR 2004.
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.standard.kernels import bpref_with_cap, err, err_terms, max_grade_of
from pdireval.measures.toolkit import num_rel, relevant, safe_div, view_for
from pdireval.measures.view import (
    gain_values,
    seg_sum,
    segment_bounds,
    sorted_within_queries,
    within_segment_cumsum,
)

__all__ = ["q_measure", "normalised_err", "bpref_10"]


def q_ideal(v, m):
    """The ideal list of Q per query (the positive gains of the relevant judged documents,
    sorted descending), cached per label reading: (cg*, n, start) with n[q] the length of
    query q's ideal list and cg*(q, d) its cumulative gain at depth 1 <= d <= n[q], which is
    ``cg[start[q] + d - 1]``."""
    rel = m.get("rel")
    key = ("q_ideal", v.negatives, m.get("gain"), rel)
    cache = v.segments.cache
    if key not in cache:
        relevant = v.q_label >= rel  # NaN compares False
        g = gain_values(v.q_label[relevant], m.get("gain"))
        rq = v.q_row_query[relevant]
        keep = g > 0
        if not keep.all():
            g, rq = g[keep], rq[keep]
        n = np.bincount(rq, minlength=v.n_queries)
        # rq is grouped by query (judgments order)
        rq, g, _, bounds = sorted_within_queries(rq, g)
        cache[key] = (
            within_segment_cumsum(rq, g, bounds=bounds),
            n,
            np.concatenate([[0], np.cumsum(n)]),
        )
    return cache[key]


def q_measure(segments, m):
    """Q = (1/R)·Σ_{relevant d at rank r} (β·cg(r) + C(r)) / (β·cg*(r) + r) (Sakai 2004);
    R = 0 -> 0. With a cut-off l (Sakai 2014; NTCIREVAL's Q@l): the sum runs over ranks
    r <= l and the divisor is min(l, R)."""
    v, beta, rel = view_for(segments, m), m.get("beta"), m.get("rel")
    ideal_cum, n_ideal, start = q_ideal(v, m)
    # only relevant documents have a gain here, so cumulate over them alone
    is_rel = relevant(v, rel)
    if m.cutoff is not None:
        is_rel &= v.hit_pos < m.cutoff
    idx = np.flatnonzero(is_rel)
    seg, pos = v.hit_seg[idx], v.hit_pos[idx]
    if len(seg) == 0:
        return np.zeros(v.n_seg)
    bounds = segment_bounds(seg)
    cg = within_segment_cumsum(seg, gain_values(v.hit_label[idx], m.get("gain")), bounds=bounds)
    count = (np.arange(len(seg)) - np.repeat(bounds[1], bounds[2])) + 1.0
    depth = np.minimum(pos + 1, n_ideal[v.seg_query][seg])  # per-list lookups, then per hit
    base = (start[:-1] - 1)[v.seg_query][seg]
    if depth.min() > 0:  # every relevant document's query has an ideal list
        cg_ideal = ideal_cum[base + depth]
    else:
        cg_ideal = np.zeros(len(seg))
        has = depth > 0
        cg_ideal[has] = ideal_cum[base[has] + depth[has]]
    ratio = (beta * cg + count) / (beta * cg_ideal + pos + 1.0)
    R = num_rel(v, rel)
    return safe_div(
        seg_sum(seg, ratio, v.n_seg), R if m.cutoff is None else np.minimum(R, m.cutoff)
    )


def ideal_err(v, m) -> np.ndarray:
    """Per query: ERR@k of the judged pool sorted by label descending."""
    key = ("ideal_err", v.negatives, m.get("max_grade"), m.cutoff)
    cache = v.segments.cache
    if key in cache:
        return cache[key]
    # only positive labels can stop the user; they come first in the ideal list, and the
    # others add terms of 0 (and nothing to the running product), so they are left out
    positive = v.q_label > 0  # NaN compares False
    rq, lab = v.q_row_query[positive], v.q_label[positive]
    gmax = max_grade_of(v, m)
    rq, lab, pos, _ = sorted_within_queries(rq, lab)
    if m.cutoff is not None:
        inside = pos < m.cutoff
        lab, rq, pos = lab[inside], rq[inside], pos[inside]
    out = np.bincount(rq, weights=err_terms(rq, pos, lab, gmax), minlength=v.n_queries)
    cache[key] = out
    return out


def normalised_err(segments, m):
    """nERR@k = ERR@k / ERR@k of the ideal list (Sakai & Song 2011); ideal 0 -> 0."""
    v = view_for(segments, m)
    return safe_div(err(segments, m), ideal_err(v, m)[v.seg_query])


def bpref_10(segments, m):
    """bpref-10 = (1/R)·Σ_{retrieved relevant r} [1 − min(n_r, 10 + R)/min(N, 10 + R)]
    (Buckley & Voorhees 2004, with trec_eval's 2005 min(N, ·) correction); R = 0 -> 0."""
    return bpref_with_cap(segments, m, 10.0)
