"""The rest of trec_eval's ``all_trec`` set, exact to trec_eval 9.0.8.

Interpolated precision (``iprec_at_recall``, ``11pt_avg``), precision at multiples of R
(``Rprec_mult``), ``relative_P``, the set measures (``set_P``, ``set_recall``, ``set_F``,
``set_map``, ``set_relative_P``, ``utility``), the geometric-mean measures (``gm_map``,
``gm_bpref``), the gain-based measures with trec_eval's gain levels (``ndcg_rel``, ``Rndcg``,
``G``, ``binG``, ``ndcg_p``), and the counts ``num_nonrel_judged_ret`` and ``num_q``.

Each kernel takes segments and a :class:`~pdireval.measures.registry.Measure` and returns one
float64 per (system, query) segment, vectorised over segments (no loop per query). Notation:
positions are 0-based (rank i = position + 1), L is the list length, R the number of judged
documents with label >= ``rel``, "relevant retrieved" counts retrieved documents with label >=
``rel``.

**trec_eval gain levels** (``gains=``; ``ndcg_rel``, ``Rndcg``, ``G``, ``nDCG(gains=...)``): the
gain of
a judged label is the label itself unless ``gains`` maps it to another value (trec_eval's
``-m G.1=3.5,2=9``: levels the mapping does not list keep their own label as gain, unlike the
``gain=`` mapping of ``nDCG``, where unlisted labels get 0). Unjudged documents have gain 0.
The ideal ranking holds the judged documents with a positive gain, sorted by gain descending.
trec_eval sorts gain levels with a comparator that truncates gain differences to integers, so
with fractional gains that differ by less than 1 its ideal ranking can be out of order or
empty; :func:`pdireval.evaluate` always sorts exactly (identical whenever distinct gains differ
by at least 1, and whenever glibc's qsort happens to leave the table in gain order), while
``pdireval trec_eval`` reproduces the binary's order (:mod:`pdireval.trec.trec_kernels`).
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.gain_levels import (
    gain_hits,
    ideal_dcg,
    ideal_gains,
    r_levels,
    segment_totals,
)
from pdireval.measures.registry import freeze
from pdireval.measures.standard.kernels import average_precision, bpref
from pdireval.measures.toolkit import (
    in_cutoff,
    num_rel,
    recall_cut,
    relevant,
    safe_div,
    view_for,
)
from pdireval.measures.view import (
    View,
    seg_sum,
    segment_bounds,
    suffix_max_within,
    within_segment_cumsum,
    within_segment_rank,
)

__all__ = [
    "MIN_GEO_MEAN",
    "iprec_at_recall",
    "eleven_point_average",
    "rprec_mult",
    "relative_precision",
    "set_precision",
    "set_recall",
    "set_f",
    "set_ap",
    "set_relative_precision",
    "utility",
    "gm_map",
    "gm_bpref",
    "num_q",
    "num_nonrel_judged_ret",
    "bin_g",
    "ndcg_rel",
    "r_ndcg",
    "g_measure",
    "trec_rbp",
    "trec_rbp_gains",
    "has_unjudged",
    "trec_rbp_residual",
    "unjudged_at",
]

#: trec_eval's floor for the geometric-mean measures (``MIN_GEO_MEAN`` in trec_eval.h)
MIN_GEO_MEAN = 1e-5


# --------------------------------------------------------------------------- shared pieces


def _rel_hits(v: View, rel: float):
    """(segment, position, nth) of the relevant retrieved documents; nth is 1-based."""
    hits = relevant(v, rel)
    seg, pos = v.hit_seg[hits], v.hit_pos[hits]
    return seg, pos, within_segment_rank(seg) + 1


def rel_ret(v: View, rel: float) -> np.ndarray:
    """Relevant retrieved documents per segment."""
    return seg_sum(v.hit_seg[relevant(v, rel)], 1.0, v.n_seg)


def _rel_ret_before(v: View, rel: float, depth: np.ndarray) -> np.ndarray:
    """Per segment: relevant retrieved documents at positions < depth[segment]."""
    hits = relevant(v, rel)
    seg = v.hit_seg[hits]
    inside = v.hit_pos[hits] < depth[seg]
    return seg_sum(seg[inside], 1.0, v.n_seg)


# --------------------------------------------------------------------------- interpolated precision


def _precisions(v: View, rel: float):
    """Per segment: (first row in the table, relevant retrieved count); per relevant
    retrieved hit, in segment order: the precision at its rank, nth / rank; and the largest
    count."""
    key = ("iprec_table", v.negatives, v.judged_only, rel)
    cache = v.segments.cache
    if key not in cache:
        idx = np.flatnonzero(relevant(v, rel))
        seg = v.hit_seg[idx]
        count = np.bincount(seg, minlength=v.n_seg)
        start = np.cumsum(count) - count
        precision, first, lengths = np.zeros(0), None, None
        if len(seg):
            _, first, lengths = segment_bounds(seg)
            nth = np.arange(1.0, len(seg) + 1.0) - np.repeat(first, lengths)  # 1-based
            precision = nth / (v.hit_pos[idx] + 1.0)
        cache[key] = (start, count, precision, first, lengths)
    return cache[key]


#: Default of ``short_relevant=``: up to this many relevant retrieved documents in every list, IPrec
#: reads each level from
#: the running maximum of the precisions (one lookup per level); above it, from the maxima
#: of the pieces between the levels' documents (no per-document running maximum).
SHORT_RELEVANT = 8


def _iprec(
    v: View, rel: float, fractions, short_relevant: int = SHORT_RELEVANT, version: int = 9
) -> list:
    """Interpolated precision at each recall level of ``fractions``: one array (per segment)
    per level.

    IPrec@x of a segment is the largest precision at or below its c-th relevant retrieved
    document, c = max(⌊x·R + 0.9⌋, 1) (10.0: max(lround(x·R), 1); 0 when fewer are
    retrieved). c depends only on R and
    the level, so it is read from a small (R, level) table; levels that give the same c for
    every R that occurs share one array. Short lists of relevant documents: the maximum of
    the precisions from each document down is computed once per document and each level
    reads its c-th. Long ones: with the levels in increasing order (c never decreases) the
    c's of a segment cut its relevant documents into consecutive pieces, the maximum of each
    piece is one ``np.maximum.reduceat`` over all segments at once, and a level's IPrec is
    the maximum of its piece and the pieces after it. A maximum is exact in any order, so
    both give the same number as a scan from the bottom of the list.
    """
    if v.n_seg == 0:
        return [np.zeros(0) for _ in fractions]
    start, count, precision, first, lengths = _precisions(v, rel)
    R = v.num_rel(rel).astype(np.int64)
    levels = np.asarray(fractions, dtype=np.float64)
    order = np.argsort(levels, kind="stable")
    # c for every R that occurs (rows) and level in increasing order (columns)
    r_values = np.arange(int(R.max(initial=0)) + 1, dtype=np.float64)
    table = np.maximum(recall_cut(levels[order][None, :], r_values[:, None], version), 1.0)
    table = table.astype(np.int64)
    occurs = np.zeros(len(r_values), dtype=bool)
    occurs[R] = True
    new_column = np.ones(len(levels), dtype=bool)
    new_column[1:] = (table[occurs, 1:] != table[occurs, :-1]).any(axis=0)
    column = np.empty(len(levels), dtype=np.int64)
    column[order] = np.cumsum(new_column) - 1  # each given level's column
    R_seg = R[v.seg_query]
    if lengths is None or lengths.max() <= short_relevant:
        best = suffix_max_within(precision, first, lengths) if lengths is not None else precision
        padded = np.append(best, 0.0)  # entry len(best): 0 for "fewer than c relevant retrieved"
        base = start - 1
        per_level = []
        for cut in table[:, new_column].T:
            want = cut[R_seg]
            index = want + base
            index[want > count] = len(best)
            per_level.append(padded[index])
        return [per_level[j] for j in column]
    c = np.stack([cut[R_seg] for cut in table[:, new_column].T])  # (columns, segments)
    k = len(c)
    found = c <= count
    end = start + count
    cuts = np.empty((k + 1, v.n_seg), dtype=np.int64)  # row start + c - 1; the end if not found
    np.copyto(cuts[:k], end)
    np.add(c, start - 1, out=cuts[:k], where=found)
    cuts[k] = end
    pieces = (
        np.maximum.reduceat(np.append(precision, -np.inf), cuts.T.ravel())
        .reshape(v.n_seg, k + 1)
        .T[:k]
    )
    best = np.where(found, pieces, -np.inf)  # empty pieces (reduceat reads one element there)
    for j in range(k - 2, -1, -1):  # the maximum of a level's piece and the pieces after it
        np.maximum(best[j], best[j + 1], out=best[j])
    values = np.where(found, best, 0.0)
    return [values[j] for j in column]


def iprec_at_recall(segments, m, *, short_relevant: int = SHORT_RELEVANT):
    """IPrec@x: interpolated precision at recall level x (trec_eval ``iprec_at_recall_x``).

    With c = ⌊x·R + 0.9⌋ relevant documents (trec_eval's rounding), IPrec@x = max over ranks
    i at or below the c-th relevant retrieved document of Prec(i) = (relevant in the top i)/i;
    c = 0 reads at the first relevant document; 0 if fewer than c relevant documents are
    retrieved (or R = 0), and 0 for an empty list (trec_eval divides 0 by 0 when ``-J``
    leaves a list empty). ``trec_eval=10``: c = lround(x·R), trec_eval 10.0's rounding
    (e.g. x = 0.2, R = 6: c = ⌊2.1⌋ = 2 in 9.0.8, lround(1.2) = 1 in 10.0).
    """
    v = view_for(segments, m)
    version = m.get("trec_eval", 9)
    return _iprec(v, m.get("rel"), [float(m.cutoff)], short_relevant, version)[0]


def eleven_point_average(segments, m, *, short_relevant: int = SHORT_RELEVANT):
    """11pt_avg = mean of IPrec@x over the recall levels x in ``levels`` (trec_eval
    ``11pt_avg``; default 0, 0.1, ..., 1)."""
    v = view_for(segments, m)
    levels = m.get("levels")
    total = np.zeros(v.n_seg)
    fractions = [float(x) for x in levels]
    version = m.get("trec_eval", 9)
    for level in _iprec(v, m.get("rel"), fractions, short_relevant, version):  # in order
        total += level
    return total / len(levels)


def rprec_mult(segments, m):
    """Rprec_mult@x: precision at c = ⌊x·R + 0.9⌋ documents, (relevant in the top c)/c; 0 when
    c = 0 (trec_eval ``Rprec_mult_x``; a list shorter than c still divides by c)."""
    v, rel = view_for(segments, m), m.get("rel")
    c = recall_cut(float(m.cutoff), num_rel(v, rel))
    return safe_div(_rel_ret_before(v, rel, c), c)


def relative_precision(segments, m):
    """relative_P@k = (relevant in the top k) / min(k, R); R = 0 -> 0 (trec_eval
    ``relative_P_k``: precision up to R, recall after)."""
    v, rel, k = view_for(segments, m), m.get("rel"), m.cutoff
    R = num_rel(v, rel)
    depth = np.full(v.n_seg, float(k))
    return safe_div(_rel_ret_before(v, rel, depth), np.minimum(k, R))


# --------------------------------------------------------------------------- set measures


def set_precision(segments, m):
    """SetP = (relevant retrieved) / L, the precision of the whole retrieved set; L = 0 -> 0
    (trec_eval ``set_P``). ``relative=true`` divides by min(L, R) instead: ir_measures'
    spelling of trec_eval's ``set_relative_P`` (= SetRelP)."""
    if m.get("relative", False):
        return set_relative_precision(segments, m)
    v, rel = view_for(segments, m), m.get("rel")
    return safe_div(rel_ret(v, rel), v.seg_len.astype(np.float64))


def set_recall(segments, m):
    """SetR = (relevant retrieved) / R; R = 0 -> 0 (trec_eval ``set_recall``)."""
    v, rel = view_for(segments, m), m.get("rel")
    return safe_div(rel_ret(v, rel), num_rel(v, rel))


def set_f(segments, m):
    """SetF = (β + 1)·P·R' / (β·P + R') with P = SetP, R' = SetR; 0 when nothing relevant is
    retrieved (trec_eval ``set_F``; note β, not β², weighs precision, as in trec_eval)."""
    v, rel, beta = view_for(segments, m), m.get("rel"), m.get("beta")
    rr = rel_ret(v, rel)
    P = safe_div(rr, v.seg_len.astype(np.float64))
    Rc = safe_div(rr, num_rel(v, rel))
    return safe_div((beta + 1.0) * P * Rc, np.where(rr > 0, beta * P + Rc, 0.0))


def set_ap(segments, m):
    """SetAP = (relevant retrieved)² / (L·R); 0 when L = 0 or R = 0 (trec_eval ``set_map``)."""
    v, rel = view_for(segments, m), m.get("rel")
    rr = rel_ret(v, rel)
    return safe_div(rr * rr, v.seg_len.astype(np.float64) * num_rel(v, rel))


def set_relative_precision(segments, m):
    """SetRelP = (relevant retrieved) / min(L, R); 0 when L = 0 or R = 0 (trec_eval
    ``set_relative_P``)."""
    v, rel = view_for(segments, m), m.get("rel")
    return safe_div(rel_ret(v, rel), np.minimum(v.seg_len.astype(np.float64), num_rel(v, rel)))


def utility(segments, m):
    """utility = a·RR + b·(L − RR) + c·(R − RR) + d·(N + RR − L − R), RR = relevant retrieved,
    N = ``num_docs`` (trec_eval ``utility`` with coefficients a, b, c, d and ``-N``)."""
    v, rel = view_for(segments, m), m.get("rel")
    rr, R, L = rel_ret(v, rel), num_rel(v, rel), v.seg_len.astype(np.float64)
    a, b, c, d = (m.get(x) for x in "abcd")
    return a * rr + b * (L - rr) + c * (R - rr) + d * (m.get("num_docs") + rr - L - R)


# --------------------------------------------------------------------------- geometric means and
# counts


def gm_map(segments, m):
    """gm_map per query = ln(max(AP, 10⁻⁵)); the summary over queries is exp(mean), trec_eval's
    geometric mean (``summary = "gm"``). trec_eval prints only that summary."""
    return np.log(np.maximum(average_precision(segments, m), MIN_GEO_MEAN))


def gm_bpref(segments, m):
    """gm_bpref per query = ln(max(bpref, 10⁻⁵)); summary exp(mean) (trec_eval ``gm_bpref``)."""
    return np.log(np.maximum(bpref(segments, m), MIN_GEO_MEAN))


def num_q(segments, m):
    """NumQ = 1 per evaluated query; the summary is the sum, the number of queries (trec_eval
    ``num_q``)."""
    return np.ones(segments.n_segments)


def num_nonrel_judged_ret(segments, m):
    """Judged non-relevant documents retrieved: label < rel and judged (trec_eval
    ``num_nonrel_judged_ret``; summary = sum)."""
    v, rel = view_for(segments, m), m.get("rel")
    nonrel = ~np.isnan(v.hit_label) & (v.hit_label < rel)
    return seg_sum(v.hit_seg[nonrel], 1.0, v.n_seg)


def bin_g(segments, m):
    """binG = (1/R)·Σ_{relevant retrieved d} 1/log2(2 + n_d), n_d = documents above d that are
    not relevant (trec_eval ``binG``); R = 0 or nothing relevant retrieved -> 0."""
    v, rel = view_for(segments, m), m.get("rel")
    seg, pos, nth = _rel_hits(v, rel)
    total = seg_sum(seg, 1.0 / np.log2(3.0 + pos - nth), v.n_seg)
    return safe_div(total, num_rel(v, rel))


def ndcg_p(segments, m):
    """``ndcg_p``: trec_eval's m_ndcg_p.c, nDCG with gain parameters and Järvelin &
    Kekäläinen's (2002) base-2 discount, in which ranks 1 and 2 are not discounted.

    DCG = Σ_{i: gain_i != 0} gain_i / max(1, log2 i) over the ranked list (i the 1-based rank),
    gain_i the trec_eval gain of the document's label (``gains``; a level not listed keeps
    its label as gain; gains may be 0 or negative and label 0 may get one; unjudged and
    unpooled documents have gain 0). IDCG: the same sum over the ideal ranking, the positive
    gains of the query's judged documents sorted descending, each divided by log2 i rounded
    to single precision (m_ndcg_p.c casts it to a C float). ndcg_p = DCG / IDCG when at least
    one relevant document (label >= ``rel``) is retrieved, else 0; IDCG = 0 -> 0 (trec_eval
    divides by 0 there). Unlike ``ndcg`` (log2(i + 1), no condition on relevant retrieved
    documents), so ``ndcg_p`` is its own measure, not ``nDCG(gains=...)``. trec_eval 9.0.8
    ships m_ndcg_p.c but does not register it, so its stock binary rejects ``-m ndcg_p``.
    As for the other gain measures, trec_eval orders gain levels with a comparator that
    truncates differences to integers, so with gains closer than 1 to each other (e.g.
    ``ndcg_p.1=0.5,2=0.25``) its ideal ranking can be out of order or empty; pdireval sorts
    exactly (identical whenever distinct gains differ by at least 1).
    """
    v, gains, rel = view_for(segments, m), m.get("gains"), m.get("rel")
    idcg = ideal_dcg_p(v, gains)
    hits = gain_hits(v, gains)
    rank = hits.pos + 1.0
    dcg = seg_sum(hits.seg, hits.gain / np.where(rank > 1, np.log2(rank), 1.0), v.n_seg)
    found = rel_ret(v, rel) > 0
    return np.where(found, safe_div(dcg, idcg[v.seg_query]), 0.0)


def ideal_dcg_p(v: View, gains) -> np.ndarray:
    """Per query: ndcg_p's IDCG, Σ ideal gain_i / max(1, log2 i) with log2 i rounded to single
    precision (trec_eval's m_ndcg_p.c), cached per label reading."""
    key = ("trec_ideal_dcg_p", v.negatives, freeze(gains))
    cache = v.segments.cache
    if key not in cache:
        ideal = ideal_gains(v, gains)
        rank = ideal.rank + 1.0
        divisor = np.where(rank > 1, np.log2(rank).astype(np.float32).astype(np.float64), 1.0)
        cache[key] = ideal.totals(ideal.gain / divisor)
    return cache[key]


def ndcg_rel(segments, m):
    """ndcg_rel: nDCG averaged over the positive-gain documents (trec_eval ``ndcg_rel``).

    With n⁺ = judged documents with a positive gain: (1/n⁺)·[Σ_{retrieved d, gain > 0}
    DCG@r_d / IDCG@r_d + (n⁺ − retrieved positive-gain documents)·DCG / IDCG], r_d the rank of
    d, DCG and IDCG over the whole lists; 0 when n⁺ = 0 or the sum is not positive.
    """
    v, gains = view_for(segments, m), m.get("gains")
    hits = gain_hits(v, gains)
    seg, pos, g = hits.seg, hits.pos, hits.gain
    dcg_at = within_segment_cumsum(
        seg, hits.contrib, bounds=hits.bounds
    )  # DCG down to and including each hit
    dcg = segment_totals(seg, dcg_at, v.n_seg, hits.bounds)
    positive = g > 0
    if not positive.all():
        seg, pos, dcg_at = seg[positive], pos[positive], dcg_at[positive]
    ideal = ideal_gains(v, gains)
    cum = ideal_dcg(v, gains)
    npos = ideal.npos
    # IDCG@min(r_d, n⁺): a positive-gain hit's query has n⁺ >= 1, so every lookup is inside
    # its ideal list (row start + min(position, n⁺ - 1))
    last = (ideal.npos - 1)[v.seg_query]
    at_hit = cum[ideal.start[v.seg_query][seg] + np.minimum(pos, last[seg])]
    idcg = ideal.at(cum, v.seg_query, np.full(v.n_seg, np.iinfo(np.int64).max))
    total = seg_sum(seg, dcg_at / at_hit, v.n_seg)  # IDCG@r_d > 0: positive gains above
    n_ret = np.bincount(seg, minlength=v.n_seg)
    npos = npos[v.seg_query].astype(np.float64)
    total = total + (npos - n_ret) * safe_div(dcg, idcg)
    return np.where(total > 0, safe_div(total, npos), 0.0)


def _dcg_before(v: View, gains, seg: np.ndarray, depth: np.ndarray):
    """DCG of segment seg[j] over positions < depth[j] (vectorised binary search), and the
    DCG of every whole segment."""
    # a sum restarted per segment (within_segment_cumsum): a segment's value depends on its
    # own hits only, not on the segments before it
    hits = gain_hits(v, gains)
    h_seg, h_pos = hits.seg, hits.pos
    bounds = segment_bounds(h_seg) if len(h_seg) else None
    cum = within_segment_cumsum(h_seg, hits.contrib, bounds=bounds)
    key_hits = (h_seg << 32) | h_pos
    h_count = np.bincount(h_seg, minlength=v.n_seg)
    seg_first = np.cumsum(h_count) - h_count  # index of each segment's first hit
    d = np.minimum(depth, np.int64(2**31 - 1)).astype(np.int64)
    end = np.searchsorted(key_hits, (seg.astype(np.int64) << 32) | d, side="left")
    inside = end > seg_first[seg]  # at least one hit of the segment before the depth
    before = np.where(inside, cum[np.maximum(end - 1, 0)] if len(cum) else 0.0, 0.0)
    return before, segment_totals(h_seg, cum, v.n_seg, bounds)


#: Default of ``max_level_passes=``: above this many R-levels in a query, Rndcg looks its depths up
#: per (segment, level) pair
#: instead of one pass over the hits per level.
MAX_LEVEL_PASSES = 8


def r_ndcg(segments, m, *, max_level_passes: int = MAX_LEVEL_PASSES):
    """Rndcg: nDCG averaged at the R-levels (trec_eval ``Rndcg``).

    The R-levels of a query are the depths b at which the ideal gain changes (the ends of the
    runs of equal gain in the ideal ranking, the last being n⁺, the number of positive-gain
    judged documents), plus L when L >= n⁺ + 2 (trec_eval's loop skips L = n⁺ + 1). Rndcg = mean
    over those depths
    of DCG@b / IDCG@b (log2 discount, trec_eval gain levels). R = 0 (label >= ``rel``) -> 0;
    n⁺ = 0 -> 0 (trec_eval divides 0 by 0 there).

    Computed level by level (the i-th R-level of every query at once; a query has as many
    levels as distinct positive gains): DCG@b is the sum, in rank order, of the hits above
    b, the ratios are added in level order, then the whole list's, as trec_eval adds them;
    past ``max_level_passes`` levels, by (segment, level) pairs (the same numbers).
    """
    v, gains, rel = view_for(segments, m), m.get("gains"), m.get("rel")
    levels = r_levels(v, gains)
    if len(levels.depth) > max_level_passes:
        return _r_ndcg_pairs(v, gains, rel)
    hits = gain_hits(v, gains)
    sq = v.seg_query
    total = np.zeros(v.n_seg)
    for depth, idcg in zip(levels.depth, levels.idcg):  # one pass per level (a handful)
        inside = hits.pos < depth[sq][hits.seg]
        before = np.bincount(hits.seg[inside], weights=hits.contrib[inside], minlength=v.n_seg)
        total += safe_div(before, idcg[sq])
    npos = levels.npos[sq]
    longer = (v.seg_len > npos + 1) & (npos > 0)  # trec_eval's loop: not when L = n⁺ + 1
    if longer.any():
        dcg = np.bincount(hits.seg, weights=hits.contrib, minlength=v.n_seg)
        total = total + np.where(longer, safe_div(dcg, levels.idcg_all[sq]), 0.0)
    out = safe_div(total, levels.count[sq] + longer)
    return np.where(num_rel(v, rel) > 0, out, 0.0)


def _r_ndcg_pairs(v: View, gains, rel: float) -> np.ndarray:
    """Rndcg by (segment, R-level) pairs and a binary search per pair: the same numbers as
    :func:`r_ndcg`, for qrels with many distinct gains per query."""
    ideal = ideal_gains(v, gains)
    cum = ideal_dcg(v, gains)
    # boundaries per query: b = rank + 1 where the next ideal gain differs (or the list ends)
    n_ideal = len(ideal.query)
    is_b = np.ones(n_ideal, dtype=bool)  # the last entry of every query's ideal list
    if n_ideal > 1:
        is_b[:-1] = (ideal.query[1:] != ideal.query[:-1]) | (ideal.gain[1:] != ideal.gain[:-1])
    b_index = np.flatnonzero(is_b)  # positions in the ideal table (depth = rank + 1)
    nb = np.bincount(ideal.query[b_index], minlength=v.n_queries)
    bstart = np.cumsum(nb) - nb
    per_seg = nb[v.seg_query]
    pair_seg = np.repeat(np.arange(v.n_seg), per_seg)
    offsets = np.cumsum(per_seg) - per_seg
    pair_b = b_index[np.arange(len(pair_seg)) + np.repeat(bstart[v.seg_query] - offsets, per_seg)]
    depth = ideal.rank[pair_b].astype(np.int64) + 1
    before, dcg = _dcg_before(v, gains, pair_seg, depth)
    ratio = safe_div(before, cum[pair_b])  # IDCG at a boundary: the ideal's own running sum there
    total = seg_sum(pair_seg, ratio, v.n_seg)
    count = per_seg.astype(np.float64)
    npos = ideal.npos[v.seg_query]
    longer = (v.seg_len > npos + 1) & (npos > 0)  # trec_eval's loop: not when L = n⁺ + 1
    idcg = ideal.at(cum, v.seg_query, np.full(v.n_seg, np.iinfo(np.int64).max))
    total = total + np.where(longer, safe_div(dcg, idcg), 0.0)
    count = count + longer
    out = safe_div(total, count)
    return np.where(num_rel(v, rel) > 0, out, 0.0)


def g_measure(segments, m):
    """G, trec_eval's normalised gain (``G``).

    With S_i = Σ_{j<=i} gain_j the cumulative gain of the list and C_i = Σ_{j<=i} max(ig_j, 1)
    the cumulative cost of the ideal ranking (ig_j = the j-th ideal gain, 0 past its end):
    G = Σ_{i: gain_i != 0} gain_i / log2(2 + C_i − S_i) / Σ_j ig_j; 0 when the ideal gains sum
    to 0.
    """
    v, gains = view_for(segments, m), m.get("gains")
    hits = gain_hits(v, gains)
    seg, pos, g = hits.seg, hits.pos, hits.gain
    sum_results = within_segment_cumsum(seg, g, bounds=hits.bounds)
    depth = pos + 1
    ideal = ideal_gains(v, gains)
    key = ("trec_ideal_cost", v.negatives, tuple(sorted(dict(gains or {}).items())))
    cache = v.segments.cache
    if key not in cache:
        gain_cum = ideal.cumulative(ideal.gain)
        at_least_one = (
            len(ideal.gain) == 0 or ideal.gain.min() >= 1.0
        )  # then the costs are the gains
        cache[key] = (
            gain_cum if at_least_one else ideal.cumulative(np.maximum(ideal.gain, 1.0)),
            gain_cum,
        )
    cost_cum, gain_cum = cache[key]
    cost, d = ideal.at_hits(cost_cum, v.seg_query, seg, depth)
    cost = cost + (depth - d)  # past the ideal list each rank costs 1
    ideal_sum = ideal.at(gain_cum, v.seg_query, np.full(v.n_seg, np.iinfo(np.int64).max))
    total = seg_sum(seg, g / np.log2(2.0 + cost - sum_results), v.n_seg)
    return safe_div(total, ideal_sum)


# --------------------------------------------------------------------------- trec_eval 10.0


def _table_gains(v: View, pairs: dict):
    """trec_eval 10.0's gain table of m_rbp.c, per hit and per query.

    The table of a query holds the ``gains`` pairs (level -> gain) and its labels 0 .. the
    largest label of its qrels that no pair sets (gain = the label). Returns the gain of
    every hit (0 for a label outside the table: unjudged, negative), whether the hit's
    label is in the table, and per query the table's minimum and maximum with 0 (m_rbp.c's
    min and max start uninitialised; the 10.0 binary behaves as if they started at 0).
    """
    ok = ~np.isnan(v.q_label)
    top = np.full(v.n_queries, -np.inf)
    np.maximum.at(top, v.q_row_query[ok], np.floor(v.q_label[ok]))
    levels = np.array(sorted(pairs), dtype=np.float64)
    free = top  # the largest level of the table that no pair sets
    for _ in range(len(levels)):
        free = np.where(np.isin(free, levels), free - 1.0, free)
    values = list(pairs.values())
    lo = np.full(v.n_queries, min([0.0, *values]))
    hi = np.maximum(max([0.0, *values]), np.where(free >= 0, free, 0.0))
    label = v.hit_label
    paired = np.isin(label, levels)
    top_of_hit = top[v.seg_query[v.hit_seg]]
    own = ~paired & (label >= 0) & (label <= top_of_hit) & (label == np.floor(label))
    gain = np.where(own, label, 0.0)
    for level, value in pairs.items():  # a handful of levels
        gain[label == level] = value
    return gain, paired | own, lo, hi


def trec_rbp(segments, m):
    """trec_eval 10.0's graded ``rbp`` (Moffat & Zobel 2008; m_rbp.c, Soboroff):
    (1 − p)·Σ_i g_i·p^(i−1) over the retrieved documents, g_i the trec_eval gain of the
    document's label (``gains=`` pairs, else the label; unjudged 0), rescaled per query to
    (g − lo)/(hi − lo) when a gain of the query's table lies outside [0, 1], lo and hi the
    table's minimum and maximum with 0. With binary labels it is ``RBP(p=0.9)``; with labels
    0..2 a document labelled 1 gains 1/2. No cut-off (the whole list)."""
    v, p = view_for(segments, m), m.get("p")
    gain = trec_rbp_gains(v, m)
    keep = gain != 0
    return (1.0 - p) * seg_sum(v.hit_seg[keep], gain[keep] * np.power(p, v.hit_pos[keep]), v.n_seg)


def trec_rbp_gains(v: View, m) -> np.ndarray:
    """The gain of every hit in trec_eval 10.0's ``rbp`` (rescaled as :func:`trec_rbp` says)."""
    gain, in_table, lo, hi = _table_gains(v, dict(m.get("gains") or {}))
    q = v.seg_query[v.hit_seg]
    rescale = ((lo < 0) | (hi > 1))[q] & in_table
    return np.where(rescale, safe_div(gain - lo[q], (hi - lo)[q]), gain)


def has_unjudged(v: View) -> np.ndarray:
    """Per segment: whether the list holds an unjudged document (absent from the qrels, or
    NaN under the view's reading of negative labels)."""
    judged = seg_sum(v.hit_seg[~np.isnan(v.hit_label)], 1.0, v.n_seg)
    return v.seg_len - judged > 0


def trec_rbp_residual(segments, m):
    """trec_eval 10.0's ``rbp_resid`` (m_rbp_resid.c): when the list holds an unjudged
    document (absent from the qrels or with a negative label), p^L + (1 − p)·Σ_{unjudged i}
    p^(i−1) = 1 − (1 − p)·Σ_{judged i} p^(i−1), Moffat & Zobel's (2008) residual
    (RBPResidual); 0 for a list without unjudged documents (trec_eval leaves the value
    unset there, although p^L of the weight lies past the list's end)."""
    v, p = view_for(segments, m), m.get("p")
    judged = ~np.isnan(v.hit_label)
    weight = seg_sum(v.hit_seg[judged], (1.0 - p) * np.power(p, v.hit_pos[judged]), v.n_seg)
    return np.where(has_unjudged(v), 1.0 - weight, 0.0)


def unjudged_at(segments, m):
    """Unjudged@k, trec_eval 10.0's ``unj_k`` (m_unjudged.c, Soboroff 2023): the retrieved
    documents in the top k that are unjudged (absent from the qrels or with a negative
    label), divided by k; a list shorter than k is padded with judged documents."""
    v, k = view_for(segments, m), m.cutoff
    judged = ~np.isnan(v.hit_label) & in_cutoff(v, k)
    count = np.minimum(v.seg_len, k) - seg_sum(v.hit_seg[judged], 1.0, v.n_seg)
    return count / float(k)
