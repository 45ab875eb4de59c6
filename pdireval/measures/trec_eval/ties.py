"""Closed forms of ``ties="expected"`` for trec_eval's own measures (McSherry & Najork 2008):
binG, ndcg_p, Rndcg, ndcg_rel, relative_P and Rprec_mult (IPrec and 11pt_avg: the maximum
over independent groups, :mod:`pdireval.measures.ties.maximum`).

Notation: a tie group g of a (system, query) list occupies the 0-based positions s..s+n−1,
holds r relevant documents (label >= ``rel``) with total gain G_g, and c relevant documents
and cg₀ gain lie in the groups above it; m = min(n, max(k − s, 0)) of its slots are inside a
cut-off k. In a uniformly random ordering of g each of its documents is at each of its slots
with probability 1/n, and, given that a document d is at slot t, each other document of g is
above d with probability t/(n − 1). Everything below follows from these two facts and the
linearity of expectation; every formula is exact (tested against the mean over every
ordering).

* **Linear measures with trec_eval gain levels** (nDCG(gains=...), ndcg_p, and DCG@b inside
  Rndcg): E[Σ_i w_i·gain_i] = Σ_g G_g·(1/n)·Σ_{t<m} w_{s+t}, each rank's weight replaced by
  the mean weight of the group's slots; the normalisers (IDCG, ndcg_p's single-precision
  IDCG, its "a relevant document is retrieved" condition, Rndcg's R-levels and their count)
  do not depend on the order.
* **Counts inside a depth** (relative_P@k, Rprec_mult@x): the number f of relevant
  documents in the top d has E[f] = Σ_g r·m/n, m the slots of g above d (d = ⌊x·R + 0.9⌋ per
  query for Rprec_mult). relative_P@k = f/min(k, R) and Rprec_mult = f/d are linear in f, and
  so is F@k: with P = f/k and Rc = f/R, (1 + β²)·P·Rc/(β²·P + Rc) = (1 + β²)·f/(β²·R + k)
  (also 0 when f = 0), so E[F@k] = (1 + β²)·E[f]/(β²·R + k).
* **binG**: a relevant document of g has s − c + U non-relevant documents above it, U
  uniform on 0..n − r, so E[binG] = (1/R)·Σ_g r·(1/(n−r+1))·Σ_{u=0}^{n−r} 1/log2(2 + s − c + u).
* **ndcg_rel** (pairs of documents): in its function's docstring.

References
----------
McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
efficiently in the presence of tied scores. ECIR 2008, 414–421.
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.gain_levels import (
    expected_trec_dcg,
    ideal_dcg,
    ideal_gains,
    jk_discount,
    log2_discount,
    r_levels,
    trec_gain,
)
from pdireval.measures.standard.ties import rbp_residual
from pdireval.measures.ties.groups import (
    earlier_sum,
    exclusive_in_segment,
    expected_count,
    group_sum,
    linear_expectation,
    mean_over_run,
    ones_until,
    per_query_prefix,
    relevant_per_group,
    tie_groups,
)
from pdireval.measures.toolkit import num_rel, recall_cut, safe_div, view_for
from pdireval.measures.trec_eval.kernels import (
    MAX_LEVEL_PASSES,
    has_unjudged,
    ideal_dcg_p,
    rel_ret,
    trec_rbp_gains,
)
from pdireval.measures.view import seg_sum


def bin_g(segments, m):
    """E[binG]: a relevant document of group g (start s, r relevant of n, c relevant above g)
    has s − c + U non-relevant documents above it, U uniform on 0..n − r, so its expected
    term is the mean of 1/log2(2 + x) over x = s − c .. s − c + n − r."""
    v, rel = view_for(segments, m), m.get("rel")
    groups = tie_groups(v)
    r = group_sum(groups, (v.hit_label >= rel).astype(np.float64))
    has = r > 0
    lo = (groups.start - earlier_sum(groups, r)).astype(np.int64)[has]
    width = (groups.size - r).astype(np.int64)[has]
    top = int((lo + width).max()) + 2 if len(lo) else 1
    f_cum = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(2.0 + np.arange(top)))])
    term = r[has] * mean_over_run(f_cum, lo, width)
    return safe_div(seg_sum(groups.seg[has], term, v.n_seg), num_rel(v, rel))


def ndcg_p(segments, m):
    """E[ndcg_p] = E[Σ gain_i / max(1, log2 i)] / IDCG_p when a relevant document is retrieved
    (which no ordering changes), else 0."""
    v, gains = view_for(segments, m), m.get("gains")
    dcg = expected_trec_dcg(v, gains, None, jk_discount)
    found = rel_ret(v, m.get("rel")) > 0
    return np.where(found, safe_div(dcg, ideal_dcg_p(v, gains)[v.seg_query]), 0.0)


def expected_dcg_before(v, gains, seg: np.ndarray, depth: np.ndarray):
    """E[DCG of segment seg[j] over positions < depth[j]] (log2 discount, trec_eval gains), and
    E[DCG] of every whole segment: the expectation's version of
    :func:`pdireval.measures.trec_eval.kernels._dcg_before`.

    Each group adds G_g·(W(min(s + n, d)) − W(s))/n to the DCG above depth d (W the cumulative
    discount): the groups wholly above d their whole mean, the one d cuts a part."""
    groups = tie_groups(v)
    if len(groups.seg) == 0:
        return np.zeros(len(seg)), np.zeros(v.n_seg)
    s, n = groups.start, groups.size
    total = group_sum(groups, trec_gain(v.hit_label, gains))
    top = int(max((s + n).max(initial=0), 1))
    W = np.concatenate([[0.0], np.cumsum(log2_discount(np.arange(top, dtype=np.float64)))])
    whole = total * (W[s + n] - W[s]) / n
    before = exclusive_in_segment(groups.seg, whole)  # the groups above each group
    # the last group of seg[j] starting above depth[j] (groups are sorted by segment, start)
    key = (groups.seg.astype(np.int64) << 32) | s
    d = np.minimum(depth, np.int64(2**31 - 1)).astype(np.int64)
    last = np.searchsorted(key, (seg.astype(np.int64) << 32) | d, side="left") - 1
    ok = last >= 0
    ok[ok] = groups.seg[last[ok]] == seg[ok]
    g = np.where(ok, last, 0)
    cut = np.minimum(s[g] + n[g], np.maximum(d, s[g]))
    part = before[g] + total[g] * (W[cut] - W[s[g]]) / n[g]
    return np.where(ok, part, 0.0), seg_sum(groups.seg, whole, v.n_seg)


def r_ndcg(segments, m, *, max_level_passes: int = MAX_LEVEL_PASSES):
    """E[Rndcg]: Rndcg is the mean, over the R-levels b (which depend on the qrels and the list
    length only), of DCG@b/IDCG@b, and of DCG/IDCG when the list is longer than n⁺ + 1, so its
    expectation replaces each DCG@b by E[DCG@b] = Σ_g G_g·(W(min(s + n, b)) − W(s))/n over the
    groups starting above b (W the cumulative log2 discount): one pass over the groups per
    level (a handful: a query has as many levels as distinct positive gains), or one lookup
    per (segment, level) pair past ``max_level_passes``
    levels (:func:`expected_dcg_before`)."""
    v, gains = view_for(segments, m), m.get("gains")
    levels = r_levels(v, gains)
    sq = v.seg_query
    if len(levels.depth) > max_level_passes:
        level, pair_seg = np.nonzero(levels.depth[:, sq] > 0)  # (R-level, segment) pairs
        pair_q = sq[pair_seg]
        before, dcg = expected_dcg_before(v, gains, pair_seg, levels.depth[level, pair_q])
        total = seg_sum(pair_seg, safe_div(before, levels.idcg[level, pair_q]), v.n_seg)
    else:
        groups = tie_groups(v)
        G = group_sum(groups, trec_gain(v.hit_label, gains))
        keep = np.flatnonzero(G)  # groups without gain add nothing
        seg, s, n, G = groups.seg[keep], groups.start[keep], groups.size[keep], G[keep]
        top = int(max((s + n).max(initial=0), 1))
        W = np.concatenate([[0.0], np.cumsum(log2_discount(np.arange(top, dtype=np.float64)))])
        coef, Ws, q = G / n, W[s], sq[seg]
        total = np.zeros(v.n_seg)
        for depth, idcg in zip(levels.depth, levels.idcg):  # one pass per level (a handful)
            cut = np.clip(depth[q], s, s + n)
            before = np.bincount(seg, weights=coef * (W[cut] - Ws), minlength=v.n_seg)
            total += safe_div(before, idcg[sq])
        dcg = np.bincount(seg, weights=coef * (W[s + n] - Ws), minlength=v.n_seg)
    npos = levels.npos[sq]
    longer = (v.seg_len > npos + 1) & (npos > 0)  # trec_eval's loop: not when L = n⁺ + 1
    total = total + np.where(longer, safe_div(dcg, levels.idcg_all[sq]), 0.0)
    out = safe_div(total, levels.count[sq] + longer)
    return np.where(num_rel(v, m.get("rel")) > 0, out, 0.0)


def relative_precision(segments, m):
    """E[relative_P@k] = E[relevant in the top k] / min(k, R)."""
    v, k = view_for(segments, m), m.cutoff
    return safe_div(expected_count(v, m, k), np.minimum(k, num_rel(v, m.get("rel"))))


def rprec_mult(segments, m):
    """E[Rprec_mult@x] = E[relevant in the top d] / d, d = ⌊x·R + 0.9⌋ per query."""
    v = view_for(segments, m)
    depth = recall_cut(float(m.cutoff), num_rel(v, m.get("rel")))
    groups = tie_groups(v)
    slots = np.clip(depth[groups.seg].astype(np.int64) - groups.start, 0, groups.size)
    count = seg_sum(groups.seg, relevant_per_group(v, m, groups) * slots / groups.size, v.n_seg)
    return safe_div(count, depth)


def _range_sums(prefix: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Σ_{lo <= x < hi} from an exclusive prefix array (prefix[x] = Σ_{y<x}); 0 when hi <= lo."""
    hi = np.maximum(hi, lo)
    return prefix[hi] - prefix[lo]


def ndcg_rel(segments, m):
    """E[ndcg_rel] in closed form (nonnegative gains; otherwise None: joint enumeration).

    ndcg_rel·n⁺ = A + (n⁺ − n_ret)·DCG/IDCG with A = Σ_{d: g_d > 0} f(p_d)·Σ_{j: p_j <= p_d}
    g_j·w(p_j), w(p) = 1/log2(p + 2), f(p) = 1/IDCG@(p + 1) (0-based positions). DCG is
    linear; in A, with G_H the gain of group H, w̄_H and f̄_H the mean of w and f over its
    slots, P_G its positive-gain documents and T_G its gain:
    E[A] = Σ_G [Σ_{d in G, g_d>0} g_d·mean_t(w·f)(s+t) + P_G·f̄_G·Σ_{H above G} G_H·w̄_H
    + (P_G·T_G − Σ_{d in G, g_d>0} g_d)·S_G], S_G = (1/(n(n−1)))·Σ_{t<u<n} w(s+t)·f(s+u),
    the mean over ordered pairs of distinct slots (documents in different groups are
    independent; two documents of G take a uniformly random pair of its slots). The clamp
    "0 unless the sum is positive" is inactive with nonnegative gains. f is read off
    per-query cumulative sums over the ideal's positions (one table for every query when all
    ideal gains are equal: binary qrels), and is 1/IDCG past them.
    """
    v, gains = view_for(segments, m), m.get("gains")
    groups = tie_groups(v)
    g = trec_gain(v.hit_label, gains)
    if np.any(g < 0):
        return None
    T = group_sum(groups, g)
    keep = np.flatnonzero(T > 0)  # the other groups hold no gain: no term, nothing above
    P = np.bincount(groups.hit_group, weights=(g > 0).astype(np.float64), minlength=len(T))[keep]
    T = T[keep]  # nonnegative gains: T is also the gain of the positive-gain documents
    seg, s, n = groups.seg[keep], groups.start[keep], groups.size[keep]
    q = v.seg_query[seg]
    top = int((s + n).max()) + 1 if len(s) else 1
    w = 1.0 / np.log2(np.arange(top, dtype=np.float64) + 2.0)
    Wc = np.concatenate([[0.0], np.cumsum(w)])  # Wc[p] = Σ_{x<p} w(x)
    # f over the ideal region p < n⁺_q, constant 1/IDCG_q past it; prefixes at [q_off + x]
    ideal = ideal_gains(v, gains)
    cum = ideal_dcg(v, gains)
    npos = ideal.npos
    idcg = ideal.at(cum, np.arange(v.n_queries), np.full(v.n_queries, np.iinfo(np.int64).max))
    f_flat = safe_div(np.ones(len(cum)), cum)
    p_in = np.minimum(ideal.rank.astype(np.int64), top - 1)
    q_off = ideal.start[:-1] + np.arange(v.n_queries)  # one extra slot per query
    flat_q = np.repeat(np.arange(v.n_queries), npos)
    at = q_off[flat_q] + (np.arange(len(cum)) - ideal.start[flat_q]) + 1
    pre_f, pre_fw, pre_fWc = (
        per_query_prefix(flat_q, at, x, v.n_queries)
        for x in (f_flat, f_flat * w[p_in], f_flat * Wc[p_in])
    )
    pre_Wc = np.concatenate([[0.0], np.cumsum(Wc[:top])])
    nq = npos[q]
    a, b = s, s + n  # slots [a, b); ideal region [a, min(b, n⁺)), constant region [max(a, n⁺), b)
    lo, hi = q_off[q] + np.minimum(a, nq), q_off[q] + np.minimum(b, nq)
    ca = np.minimum(np.maximum(a, nq), b)
    c = safe_div(np.ones(len(q)), idcg[q])
    F1 = _range_sums(pre_f, lo, hi) + c * (b - ca)
    FW = _range_sums(pre_fw, lo, hi) + c * (Wc[b] - Wc[ca])
    FWc = _range_sums(pre_fWc, lo, hi) + c * (pre_Wc[b] - pre_Wc[ca])
    nf = n.astype(np.float64)
    S = np.where(n > 1, (FWc - Wc[s] * F1) / np.maximum(nf * (nf - 1.0), 1.0), 0.0)
    mean_w = (Wc[s + n] - Wc[s]) / nf
    above = exclusive_in_segment(seg, T * mean_w)
    A = T * FW / nf + P * (F1 / nf) * above + (P - 1.0) * T * S
    A_seg = seg_sum(seg, A, v.n_seg)
    dcg = seg_sum(seg, T * mean_w, v.n_seg)
    n_ret = seg_sum(seg, P, v.n_seg)
    npos_seg = npos[v.seg_query].astype(np.float64)
    total = A_seg + (npos_seg - n_ret) * safe_div(dcg, idcg[v.seg_query])
    return np.where(total > 0, safe_div(total, npos_seg), 0.0)


def trec_rbp(segments, m):
    """E[rbp] (trec_eval 10.0): (1 − p)·Σ_d g_d·E[p^(pos_d)], a document of a tie group at
    0-based start s of size n having E[p^pos] = p^s·(1 − p^n)/(n·(1 − p))."""
    v, p = view_for(segments, m), m.get("p")

    def weight(pos):
        return (1.0 - p) * np.power(p, pos)

    return linear_expectation(v, tie_groups(v), trec_rbp_gains(v, m), None, weight)


def trec_rbp_residual(segments, m):
    """E[rbp_resid] (trec_eval 10.0): whether a list holds an unjudged document does not
    depend on the order, so it is RBPResidual's expectation there and 0 elsewhere."""
    return np.where(has_unjudged(view_for(segments, m)), rbp_residual(segments, m), 0.0)


def unjudged_at(segments, m):
    """E[Unjudged@k] = (min(k, L) − E[judged documents in the top k])/k (L is order-free)."""
    v, k = view_for(segments, m), m.cutoff
    judged = (~np.isnan(v.hit_label)).astype(np.float64)
    inside = linear_expectation(v, tie_groups(v), judged, k, ones_until(k))
    return (np.minimum(v.seg_len, k) - inside) / float(k)
