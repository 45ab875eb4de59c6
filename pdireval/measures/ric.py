"""Relevance Information Correlation (RIC; Golbus & Aslam 2013, Section 5).

RIC(S) = I(R_S; Q) in bits, the mutual information between a system's ranked-list variable
and the qrels variable over the uniform distribution on the *ordered* pairs (d_i, d_j) of
judged documents of a query with different labels:

* Q(d_i, d_j) = 1 if g_i > g_j else 0, so P(Q = 1) = 1/2 and RIC <= 1 bit;
* R_S(d_i, d_j) = +1 if d_i is ranked above d_j, -1 if below, 0 if neither is retrieved, on
  the system's list *condensed* to judged documents (Sakai 2007) and *truncated* after its
  last relevant document (label >= ``rel``); an unretrieved document has rank +inf.

The kernel never materialises pairs. By the symmetry of ordered pairs, the joint
distribution of (R_S, Q) is fixed by three fractions of the *unordered* different-label
pairs: c (the higher-labelled document ranked above), d (ranked below) and z = 1 - c - d
(neither retrieved), and

    RIC = (c + d) · (1 − H2(c / (c + d))),   RIC = 0 when c + d = 0,

with H2 the binary entropy. c and d are counted per segment with cumulative counts over
positions and labels: for each retrieved document x, the retrieved documents above it with
a higher (lower) label, plus the unretrieved judged documents of the query with a lower
(higher) label. The cost is O(K · hits) for K distinct labels — one vectorised pass per
label, no loop over queries, pairs or documents.
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.params import Param
from pdireval.measures.registry import MeasureDef, register
from pdireval.measures.ties import Joint
from pdireval.measures.view import NEGATIVES, level_codes, run_sums, segment_bounds, view_of

__all__ = ["ric", "ric_counts", "binary_entropy", "truncated_condensed"]


def binary_entropy(p) -> np.ndarray:
    """H2(p) = −p·log2 p − (1 − p)·log2(1 − p) in bits, with 0·log 0 = 0 (vectorised)."""
    p = np.asarray(p, dtype=np.float64)
    q = 1.0 - p
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
        b = np.where(q > 0, -q * np.log2(np.where(q > 0, q, 1.0)), 0.0)
    return a + b


def ric_from_fractions(c, d) -> np.ndarray:
    """RIC = (c + d)·(1 − H2(c/(c + d))); 0 when c + d = 0, NaN stays NaN."""
    c = np.asarray(c, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    s = c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(s > 0, c / np.where(s > 0, s, 1.0), 0.5)
    out = s * (1.0 - binary_entropy(share))
    return np.where(s > 0, out, np.where(np.isnan(s), np.nan, 0.0))


def truncated_condensed(seg, label, rel):
    """Mask of the hits (condensed, in list order) kept after truncating each segment's list
    after its last relevant document (label >= ``rel``); segments without one keep nothing."""
    n = len(seg)
    if n == 0:
        return np.zeros(0, dtype=bool)
    rel_at = np.flatnonzero(label >= rel)
    if len(rel_at) == 0:
        return np.zeros(n, dtype=bool)
    # the index of each segment's last relevant hit (hits in segment order)
    rel_seg = seg[rel_at]
    last = np.empty(len(rel_at), dtype=bool)
    last[-1] = True
    np.not_equal(rel_seg[1:], rel_seg[:-1], out=last[:-1])
    end = np.full(int(seg[-1]) + 1, -1, dtype=np.int64)
    end[rel_seg[last]] = rel_at[last]
    return np.arange(n) <= end[seg]


def ric_counts(
    segments, *, rel: float = 1.0, negatives: str = "unjudged", cutoff: int | None = None
):
    """Per segment: (c, d, n) — unordered different-label pairs with the higher-labelled
    document ranked above (c), below (d), and the number n of such pairs of the query.

    Counts, not fractions; n = (J² − Σ_g J_g²)/2 for J judged documents of the query, J_g of
    label g. Used by the RIC kernel and, as an independent check, by the tests.

    Retrieved pairs: the different-label pairs of a segment number ``(r² − Σ_g r_g²)/2``
    (r retrieved, r_g of label g), of which c counts, for each label level l above the
    lowest, the hits of level l above a hit of a lower level (one integer cumulative count
    per level, which also gives r_l), and d the rest. A query with fewer than two distinct
    labels has no pair: its segments get zeros without reading their hits.
    """
    v = view_of(segments, negatives=negatives, judged_only=False)
    n_seg = v.n_seg
    q_judged = ~np.isnan(v.q_label)
    q_lab = v.q_label[q_judged]
    levels = np.unique(q_lab)
    K = len(levels)
    if K < 2:  # no query has two distinct labels: no pair anywhere
        zeros = np.zeros(n_seg)
        return zeros, zeros.copy(), zeros.copy()
    n_q = v.n_queries
    # per query: judged documents per label level, and the number of different-label pairs
    q_code = level_codes(levels, q_lab)
    per_level = (
        np.bincount(v.q_row_query[q_judged] * K + q_code, minlength=n_q * K)
        .reshape(n_q, K)
        .astype(np.float64)
    )
    judged = per_level.sum(axis=1)
    n_pairs = (judged**2 - (per_level**2).sum(axis=1)) / 2.0

    # judged hits (within the cut-off) up to the last relevant one: condensing after the
    # truncation keeps the same hits (unjudged ones are never relevant)
    seg, lab = v.hit_seg, v.hit_label
    keep = ~np.isnan(lab)
    if cutoff is not None:
        keep &= v.hit_pos < cutoff
        lab = np.where(keep, lab, np.nan)
    keep &= truncated_condensed(seg, lab, rel)
    kept = np.flatnonzero(keep)
    seg, code = seg[kept], level_codes(levels, lab[kept])

    # per segment and level: retrieved hits (ret); per hit: the hits of a higher level above
    # it (c_rr, summed per segment), from one integer cumulative count per level above 0
    ret = np.zeros((n_seg, K))
    c_rr = np.zeros(n_seg)
    if len(seg):
        bounds = segment_bounds(seg)
        _, first, lengths = bounds
        at_seg, last = seg[first], first + lengths - 1
        higher_above = np.zeros(len(seg), dtype=np.int64)
        for level in range(1, K):  # loop over label levels (a handful), vectorised over hits
            at = code == level
            count = np.cumsum(at, dtype=np.int64)  # exact integers: global minus segment start
            start = count[first] - at[first]
            ret[at_seg, level] = count[last] - start
            count -= at
            count -= np.repeat(start, lengths)
            count *= code < level
            higher_above += count
        ret[at_seg, 0] = lengths - ret[at_seg, 1:].sum(axis=1)
        c_rr = run_sums(higher_above, seg, bounds, n_seg)  # integers: exact
    n_ret = ret.sum(axis=1)
    d_rr = (n_ret**2 - (ret**2).sum(axis=1)) / 2.0 - c_rr
    # retrieved x versus unretrieved judged documents of the query
    unret = per_level[v.seg_query] - ret
    below = np.cumsum(unret, axis=1)  # unretrieved with a label up to x's
    above_u = below[:, -1:] - below  # unretrieved with a higher label
    below -= unret  # unretrieved with a lower label
    c = c_rr + (ret * below).sum(axis=1)
    d = d_rr + (ret * above_u).sum(axis=1)
    return c, d, n_pairs[v.seg_query]


def ric(segments, m):
    """RIC = I(R_S; Q) in bits (Golbus & Aslam 2013, eq. 18).

    Closed form (c + d)·(1 − H2(c/(c + d))) over the unordered different-label pairs of
    judged documents, c / d the fractions whose higher-labelled document the condensed,
    truncated list ranks above / below. NaN for a query with fewer than two distinct labels
    (no pair); 0 when no relevant document is retrieved. ``@k``: only the top k documents of
    the list count as retrieved (before condensing).
    """
    c, d, n = ric_counts(segments, rel=m.get("rel"), negatives=m.get("negatives"), cutoff=m.cutoff)
    with np.errstate(divide="ignore", invalid="ignore"):
        cf = np.where(n > 0, c / np.where(n > 0, n, 1.0), np.nan)
        df = np.where(n > 0, d / np.where(n > 0, n, 1.0), np.nan)
    return ric_from_fractions(cf, df)


_REL = Param(
    "rel",
    "float",
    1.0,
    "Minimum label counted as relevant: the list is truncated after its last relevant document.",
)
_NEG = Param(
    "negatives",
    "choice",
    "unjudged",
    "Reading of negative labels: unjudged (trec_eval: pooled but unjudged, not in the sample "
    "space), nonrel (label 0), keep (a genuine grade below 0).",
    choices=NEGATIVES,
)

register(
    MeasureDef(
        "RIC",
        kernel=ric,
        description=(
            "Relevance information correlation: RIC = I(R_S; Q), the mutual information (bits) "
            "between the condensed, truncated list and the qrels over ordered different-label "
            "pairs."
        ),
        params=(_REL, _NEG),
        empty="0",
        citation="Golbus & Aslam 2013, eq. 18",
        ties=Joint(),
    )
)
