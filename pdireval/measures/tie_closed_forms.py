"""More closed forms for ``ties="expected"``: the Q-measure, graded nDCG, ndcg_p, Rndcg,
ndcg_rel, ERR, nERR, GAP, infAP and the precision-like measures with a per-query depth
(McSherry & Najork 2008). The formulas of GAP (AP's once per grade), ndcg_rel (pairs of
documents) and infAP (hypergeometric counts above a slot) are in their kernels' docstrings.

:mod:`pdireval.measures.ties.groups` dispatches ``ties="expected"`` and holds the first closed
forms; this module holds the ones registered after them (in ``tie_aware.TIE_AWARE``). Same
notation: a tie group g of a (system, query) list occupies the 0-based positions s..s+n−1,
holds r relevant documents (label >= ``rel``) with total gain G_g, and c relevant documents
and cg₀ gain lie in the groups above it; m = min(n, max(k − s, 0)) of its slots are inside a
cut-off k. In a uniformly random ordering of g each of its documents is at each of its slots
with probability 1/n, and, given that a document d is at slot t, each other document of g is
above d with probability t/(n − 1). Everything below follows from these two facts and the
linearity of expectation; every formula is exact (tested against the mean over every
ordering, tests/measures/test_tie_closed_forms.py).

* **Linear measures with trec_eval gain levels** (nDCG(gains=...), ndcg_p, and DCG@b inside
  Rndcg): E[Σ_i w_i·gain_i] = Σ_g G_g·(1/n)·Σ_{t<m} w_{s+t}, each rank's weight replaced by
  the mean weight of the group's slots; the normalisers (IDCG, ndcg_p's single-precision
  IDCG, its "a relevant document is retrieved" condition, Rndcg's R-levels and their count)
  do not depend on the order.
* **Counts inside a depth** (relative_P@k, F@k, Rprec_mult@x): the number f of relevant
  documents in the top d has E[f] = Σ_g r·m/n, m the slots of g above d (d = ⌊x·R + 0.9⌋ per
  query for Rprec_mult). relative_P@k = f/min(k, R) and Rprec_mult = f/d are linear in f, and
  so is F@k: with P = f/k and Rc = f/R, (1 + β²)·P·Rc/(β²·P + Rc) = (1 + β²)·f/(β²·R + k)
  (also 0 when f = 0), so E[F@k] = (1 + β²)·E[f]/(β²·R + k).
* **Q-measure** (Sakai 2004) and Q@l: Q = (1/R)·Σ_{slots p} I(p)·(C(p) + β·cg(p)) /
  (p + 1 + β·cg*(p + 1)), I(p) = 1 when position p holds a relevant document, C(p) and cg(p)
  the relevant count and gain down to p, cg* the ideal's cumulative gain. The denominator
  depends on the position only, so only the numerator's expectation is needed. For the
  relevant documents d of g at slot t: E[I·C] = (1/n)·Σ_d (c + 1 + (r − 1)·t/(n − 1)) =
  (r/n)·(c + 1) + r·(r − 1)·t/(n·(n − 1)), and E[I·cg] = (1/n)·Σ_d (cg₀ + g_d + (G_g − g_d)·
  t/(n − 1)) = (r·cg₀ + G_g)/n + (r − 1)·G_g·t/(n·(n − 1)). So a group adds
  (1/n)·[A·S₀ + B·S₁] with A = r·(c + 1) + β·(r·cg₀ + G_g), B = (r − 1)·(r + β·G_g)/(n − 1)
  (0 when n = 1), S₀ = Σ_{t<m} 1/den(s + t), S₁ = Σ_{t<m} t/den(s + t). Past the ideal's
  last relevant document (n* of them) cg* is its total G*, so there den(p) = p + 1 + K,
  K = β·G*, and Σ_{a<=p<b} 1/(p + 1 + K) = ψ(b + 1 + K) − ψ(a + 1 + K) (ψ the digamma
  function), Σ p/(p + 1 + K) = (b − a) − (1 + K)·(ψ(b + 1 + K) − ψ(a + 1 + K)): no group is
  expanded slot by slot. Above n* the sums are read off per-query cumulative sums of 1/den
  and p/den over the ideal's positions. Q@l sums the slots inside l and divides by min(l, R).

* **ERR** (Chapelle et al. 2009) and nERR: ERR@k = Σ_i R_i·Π_{j<i}(1 − R_j)/i. The product
  over a whole group does not depend on its order, so a group g adds P_g·E[W_g], P_g the
  product of (1 − R) over the groups above it and W_g = Σ_{t<m} R_{π(t)}·Π_{u<t}(1 − R_{π(u)})
  /(s + t + 1). Let g hold k documents that can stop the user (R > 0), x = 1 − R, e_j the
  elementary symmetric polynomials of their x. Given that d is at slot t, the documents
  above it are a uniform t-subset of the other n − 1, so E[Π_{above} x] = Σ_j e_j(x₋d)·
  C(n − k, t − j)/C(n − 1, t), and with Σ_d e_j(x₋d) = (k − j)·e_j, Σ_d x_d·e_j(x₋d) =
  (j + 1)·e_{j+1}: E[W_g] = (1/n)·Σ_{j<k} [(k − j)·e_j − (j + 1)·e_{j+1}]·Σ_{t<m} C(n − k,
  t − j)/C(n − 1, t)/(s + t + 1). With k = 1 this is R·Σ_{t<m} 1/(s + t + 1)/n, harmonic
  numbers; the groups with k >= 2 (few: the sum runs over their slots and k) expand e_j
  stopper by stopper (past :data:`MAX_STOPPERS` stoppers in a group: enumeration). nERR
  divides by the ideal's ERR@k, which no ordering changes.

References
----------
Chapelle, O., Metzler, D., Zhang, Y. & Grinspan, P. (2009). Expected reciprocal rank for graded
relevance. CIKM 2009.
McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
efficiently in the presence of tied scores. ECIR 2008, 414–421.
Sakai, T. (2004). New performance metrics based on multigrade relevance. NTCIR-4.
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.standard.kernels import _R, _safe_div, _view
from pdireval.measures.standard.ties import ndcg as standard_ndcg
from pdireval.measures.ties.groups import (
    Groups,
    expected_count,
    group_sum,
    harmonic_sums,
    linear_expectation,
    log_comb,
    slots_inside,
    tie_groups,
)
from pdireval.measures.view import (
    _integral_and_small,
    _segment_bounds,
    gain_values,
    seg_sum,
    within_segment_cumsum,
)

__all__ = [
    "q_measure",
    "ndcg",
    "ndcg_p",
    "r_ndcg",
    "relative_precision",
    "f_measure",
    "rprec_mult",
    "err",
    "normalised_err",
    "graded_ap",
    "ndcg_rel",
    "inferred_ap",
]


def _weights(k, weight):
    """weight(positions) with 0 at and past the cut-off k."""
    def weight_of(pos):
        w = weight(pos)
        return w if k is None else np.where(pos < k, w, 0.0)

    return weight_of


def _log2_discount(pos):
    return 1.0 / np.log2(pos + 2.0)


def _jk_discount(pos):
    rank = pos + 1.0
    return 1.0 / np.where(rank > 1, np.log2(np.maximum(rank, 1.0)), 1.0)


def expected_trec_dcg(v, gains, k, discount=_log2_discount) -> np.ndarray:
    """E[Σ_{i<k} gain_i·w_i] per segment, gain_i the trec_eval gain of the document's label."""
    from pdireval.measures.trec_eval.kernels import trec_gain

    return linear_expectation(v, tie_groups(v), trec_gain(v.hit_label, gains), k, _weights(k, discount))


# --------------------------------------------------------------------------- gain-level nDCGs


def ndcg(segments, m):
    """E[nDCG]: nDCG(gains=...) here (E[DCG@k] / IDCG@k, both with trec_eval's gain levels),
    the other nDCGs in :mod:`pdireval.measures.ties.groups`."""
    gains = m.get("gains", None)
    if gains is None:
        return standard_ndcg(segments, m)
    from pdireval.measures.trec_eval.kernels import _ideal, _ideal_dcg

    v, k = _view(segments, m), m.cutoff
    depth = np.full(v.n_seg, np.iinfo(np.int64).max if k is None else k)
    idcg = _ideal(v, gains).at(_ideal_dcg(v, gains), v.seg_query, depth)
    return _safe_div(expected_trec_dcg(v, gains, k), idcg)


def ndcg_p(segments, m):
    """E[ndcg_p] = E[Σ gain_i / max(1, log2 i)] / IDCG_p when a relevant document is retrieved
    (which no ordering changes), else 0."""
    from pdireval.measures.trec_eval.kernels import _rel_ret, ideal_dcg_p

    v, gains = _view(segments, m), m.get("gains")
    dcg = expected_trec_dcg(v, gains, None, _jk_discount)
    found = _rel_ret(v, m.get("rel")) > 0
    return np.where(found, _safe_div(dcg, ideal_dcg_p(v, gains)[v.seg_query]), 0.0)


def expected_dcg_before(v, gains, seg: np.ndarray, depth: np.ndarray):
    """E[DCG of segment seg[j] over positions < depth[j]] (log2 discount, trec_eval gains), and
    E[DCG] of every whole segment: the expectation's version of
    :func:`pdireval.measures.trec_eval.kernels._dcg_before`.

    Each group adds G_g·(W(min(s + n, d)) − W(s))/n to the DCG above depth d (W the cumulative
    discount): the groups wholly above d their whole mean, the one d cuts a part."""
    from pdireval.measures.trec_eval.kernels import trec_gain

    groups = tie_groups(v)
    if len(groups.seg) == 0:
        return np.zeros(len(seg)), np.zeros(v.n_seg)
    s, n = groups.start, groups.size
    total = group_sum(groups, trec_gain(v.hit_label, gains))
    top = int(max((s + n).max(initial=0), 1))
    W = np.concatenate([[0.0], np.cumsum(_log2_discount(np.arange(top, dtype=np.float64)))])
    whole = total * (W[s + n] - W[s]) / n
    before = _exclusive_in_segment(groups.seg, whole)  # the groups above each group
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


def r_ndcg(segments, m):
    """E[Rndcg]: Rndcg is the mean, over the R-levels b (which depend on the qrels and the list
    length only), of DCG@b/IDCG@b, and of DCG/IDCG when the list is longer than n⁺ + 1, so its
    expectation replaces each DCG@b by E[DCG@b] = Σ_g G_g·(W(min(s + n, b)) − W(s))/n over the
    groups starting above b (W the cumulative log2 discount): one pass over the groups per
    level (a handful: a query has as many levels as distinct positive gains), or one lookup
    per (segment, level) pair past :data:`~pdireval.measures.trec_eval.kernels._MAX_LEVEL_PASSES`
    levels (:func:`expected_dcg_before`)."""
    from pdireval.measures.trec_eval.kernels import _MAX_LEVEL_PASSES, _levels, trec_gain

    v, gains = _view(segments, m), m.get("gains")
    levels = _levels(v, gains)
    sq = v.seg_query
    if len(levels.depth) > _MAX_LEVEL_PASSES:
        level, pair_seg = np.nonzero(levels.depth[:, sq] > 0)  # (R-level, segment) pairs
        pair_q = sq[pair_seg]
        before, dcg = expected_dcg_before(v, gains, pair_seg, levels.depth[level, pair_q])
        total = seg_sum(pair_seg, _safe_div(before, levels.idcg[level, pair_q]), v.n_seg)
    else:
        groups = tie_groups(v)
        G = group_sum(groups, trec_gain(v.hit_label, gains))
        keep = np.flatnonzero(G)  # groups without gain add nothing
        seg, s, n, G = groups.seg[keep], groups.start[keep], groups.size[keep], G[keep]
        top = int(max((s + n).max(initial=0), 1))
        W = np.concatenate([[0.0], np.cumsum(_log2_discount(np.arange(top, dtype=np.float64)))])
        coef, Ws, q = G / n, W[s], sq[seg]
        total = np.zeros(v.n_seg)
        for depth, idcg in zip(levels.depth, levels.idcg):  # one pass per level (a handful)
            cut = np.clip(depth[q], s, s + n)
            before = np.bincount(seg, weights=coef * (W[cut] - Ws), minlength=v.n_seg)
            total += _safe_div(before, idcg[sq])
        dcg = np.bincount(seg, weights=coef * (W[s + n] - Ws), minlength=v.n_seg)
    npos = levels.npos[sq]
    longer = (v.seg_len > npos + 1) & (npos > 0)  # trec_eval's loop: not when L = n⁺ + 1
    total = total + np.where(longer, _safe_div(dcg, levels.idcg_all[sq]), 0.0)
    out = _safe_div(total, levels.count[sq] + longer)
    return np.where(_R(v, m.get("rel")) > 0, out, 0.0)


# --------------------------------------------------------------------------- counts inside a depth


def _relevant_per_group(v, m, groups):
    return group_sum(groups, (v.hit_label >= m.get("rel")).astype(np.float64))


def relative_precision(segments, m):
    """E[relative_P@k] = E[relevant in the top k] / min(k, R)."""
    v, k = _view(segments, m), m.cutoff
    return _safe_div(expected_count(v, m, k), np.minimum(k, _R(v, m.get("rel"))))


def f_measure(segments, m):
    """E[F@k] = (1 + β²)·E[f]/(β²·R + k), f the relevant documents in the top k (F is linear
    in f); without a cut-off F is order-free: None (the default value)."""
    if m.cutoff is None:
        return None
    v, k = _view(segments, m), m.cutoff
    b2 = m.get("beta") ** 2
    R = _R(v, m.get("rel"))
    value = _safe_div((1.0 + b2) * expected_count(v, m, k), b2 * R + k)
    return np.where(R > 0, value, 0.0)


def rprec_mult(segments, m):
    """E[Rprec_mult@x] = E[relevant in the top d] / d, d = ⌊x·R + 0.9⌋ per query."""
    from pdireval.measures.trec_eval.kernels import _recall_cut

    v = _view(segments, m)
    depth = _recall_cut(float(m.cutoff), _R(v, m.get("rel")))
    groups = tie_groups(v)
    slots = np.clip(depth[groups.seg].astype(np.int64) - groups.start, 0, groups.size)
    count = seg_sum(groups.seg, _relevant_per_group(v, m, groups) * slots / groups.size, v.n_seg)
    return _safe_div(count, depth)


# --------------------------------------------------------------------------- Q-measure


def _exclusive_in_segment(seg: np.ndarray, values: np.ndarray) -> np.ndarray:
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
    is_first, first, lengths = _segment_bounds(sub_seg)
    if _integral_and_small(sub):
        total = np.cumsum(sub, axis=-1) - sub
        part = total - np.repeat(total[..., first], lengths, axis=-1)
    else:
        bounds = (is_first, first, lengths)
        part = np.stack([within_segment_cumsum(sub_seg, row, inclusive=False, bounds=bounds) for row in np.atleast_2d(sub)]).reshape(sub.shape)
    if whole:
        return part
    out[..., idx] = part
    return out


def _per_query_prefix(flat_q: np.ndarray, at: np.ndarray, values: np.ndarray, n_queries: int) -> np.ndarray:
    """Inclusive per-query cumulative sums of ``values`` (flat, grouped by query) laid out at
    ``at`` in an array that holds a 0 before each query's first value."""
    out = np.zeros(len(values) + n_queries)
    out[at] = within_segment_cumsum(flat_q, values)
    return out


def _shifted_harmonic_sums(lo: np.ndarray, hi: np.ndarray, K: np.ndarray):
    """(Σ_{lo<=p<hi} 1/(p + 1 + K), Σ_{lo<=p<hi} p/(p + 1 + K)) elementwise, hi > lo: harmonic
    numbers when every K is an integer (H(hi + K) − H(lo + K)), else the digamma function."""
    if np.array_equal(K, np.floor(K)):
        Ki = K.astype(np.int64)
        H = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1.0, float((hi + Ki).max()) + 1.0))])
        diff = H[hi + Ki] - H[lo + Ki]
    else:
        from scipy.special import digamma

        diff = digamma(hi + 1.0 + K) - digamma(lo + 1.0 + K)
    return diff, (hi - lo) - (1.0 + K) * diff


def q_measure(segments, m):
    """E[Q] and E[Q@l] (Sakai 2004; 2014): Σ_g (1/n)·[A·S₀ + B·S₁] / R (min(l, R) for Q@l),
    see the module docstring."""
    from pdireval.measures.sakai.kernels import q_ideal

    v, beta, rel = _view(segments, m), float(m.get("beta")), m.get("rel")
    ideal_cum, n_ideal, first = q_ideal(v, m)
    groups, kept = _groups_above(v, m.cutoff)
    lab = v.hit_label if kept is None else v.hit_label[kept]
    hits = np.flatnonzero(lab >= rel)  # NaN compares False
    owner = groups.hit_group[hits]
    n_groups = len(groups.seg)
    r = np.bincount(owner, minlength=n_groups)
    G = np.bincount(owner, weights=gain_values(lab[hits], m.get("gain")), minlength=n_groups)
    slots = slots_inside(groups, m.cutoff)
    use = np.flatnonzero(r > 0) if m.cutoff is None else np.flatnonzero((r > 0) & (slots > 0))
    seg, s, n = groups.seg, groups.start, groups.size
    if len(use) < n_groups:
        r, G, slots, seg, s, n = r[use], G[use], slots[use], seg[use], s[use], n[use]
    r = r.astype(np.float64)
    c, cg0 = _exclusive_in_segment(seg, np.stack([r, G]))  # relevant documents and gain above
    q = v.seg_query[seg]
    nq = n_ideal[q]
    if first is None:  # one table for every query (one ideal gain value): cg*(d) = star[d]
        star, base = ideal_cum, np.zeros(len(q), dtype=np.int64)

        def prefixes():  # Σ_{p<x} 1/den(p) and p/den(p), at [x]
            rank = np.arange(len(ideal_cum) - 1, dtype=np.float64)
            den = beta * ideal_cum[1:] + rank + 1.0
            return (np.concatenate([[0.0], np.cumsum(x)]) for x in (1.0 / den, rank / den))
    else:  # per query, with a 0 before each query's list: cg*(q, d) = star[base + d], d <= n*
        base = first[q] + q
        flat_q = np.repeat(np.arange(v.n_queries), n_ideal)
        star_at = np.arange(len(ideal_cum)) + flat_q + 1
        star = np.zeros(len(ideal_cum) + v.n_queries)
        star[star_at] = ideal_cum

        def prefixes():  # Σ_{p<x} 1/den(p) and p/den(p) per query, at [base + x]
            rank = np.arange(len(ideal_cum)) - first[flat_q]
            den = beta * ideal_cum + rank + 1.0
            return (_per_query_prefix(flat_q, star_at, x, v.n_queries) for x in (1.0 / den, rank / den))
    # one slot (an untied document, or a cut-off below a group's first slot): S₀ = 1/den(s)
    S0 = 1.0 / (beta * star[base + np.minimum(s + 1, nq)] + s + 1.0)
    S1 = np.zeros(len(s))
    multi = np.flatnonzero(slots > 1)
    if len(multi):
        a, b, nm, bm = s[multi], s[multi] + slots[multi], nq[multi], base[multi]
        sum0, sum1 = np.zeros(len(multi)), np.zeros(len(multi))
        inside = np.flatnonzero(a < nm)  # slots above the ideal's end: its own cumulative sums
        if len(inside):
            pre0, pre1 = prefixes()
            lo, hi = bm[inside] + a[inside], bm[inside] + np.minimum(b[inside], nm[inside])
            sum0[inside] = pre0[hi] - pre0[lo]
            sum1[inside] = pre1[hi] - pre1[lo]
        tail = np.flatnonzero(b > nm)  # slots past it: den(p) = p + 1 + β·G*
        if len(tail):
            K = beta * star[bm[tail] + nm[tail]]
            t0, t1 = _shifted_harmonic_sums(np.maximum(a[tail], nm[tail]), b[tail], K)
            sum0[tail] += t0
            sum1[tail] += t1
        S0[multi] = sum0
        S1[multi] = sum1 - a * sum0  # Σ t/den = Σ p/den − s·Σ 1/den
    A = r * (c + 1.0) + beta * (r * cg0 + G)
    nf = n.astype(np.float64)
    B = (r - 1.0) * (r + beta * G) / np.maximum(nf - 1.0, 1.0)  # S₁ = 0 when n = 1
    total = seg_sum(seg, (A * S0 + B * S1) / nf, v.n_seg)
    R = _R(v, rel)
    return _safe_div(total, R if m.cutoff is None else np.minimum(R, m.cutoff))


# --------------------------------------------------------------------------- ERR and nERR

#: ERR's closed form expands the elementary symmetric polynomials of a group's stopping
#: probabilities; a group with more documents that can stop the user is left to enumeration
MAX_STOPPERS = 300
#: how the closed forms of ERR and nERR say they leave the groups past MAX_STOPPERS
STOPPERS_NOTE = (
    "(a group with more than 300 documents that can stop the user: enumeration, group by group)"
)


def _symmetric_polynomials(k: np.ndarray, x_rows: np.ndarray) -> np.ndarray:
    """e_j(x) for j = 0..max k, per row (zero past k): x_rows is (rows, max k), each row's k
    values first. One step per value index, over the rows holding that many values."""
    rows, width = x_rows.shape
    order = np.argsort(-k, kind="stable")
    kk, x = k[order], x_rows[order]
    e = np.zeros((rows, width + 1))
    e[:, 0] = 1.0
    for i in range(width):  # e_j += x_i·e_{j−1}, from the (i+1)-th value of every row on
        active = int(np.count_nonzero(kk > i))
        e[:active, 1:i + 2] = e[:active, 1:i + 2] + x[:active, i:i + 1] * e[:active, :i + 1]
    out = np.empty_like(e)
    out[order] = e
    return out


def _groups_above(v, k):
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


def expected_err(v, m) -> np.ndarray:
    """E[ERR@k] per segment (see the module docstring)."""
    from pdireval.measures.standard.kernels import _max_grade

    groups, kept = _groups_above(v, m.cutoff)
    lab = v.hit_label if kept is None else v.hit_label[kept]
    hits = np.flatnonzero(lab > 0)  # only a positive label can stop the user (NaN: False)
    stop = np.clip((np.exp2(lab[hits]) - 1.0) / np.exp2(_max_grade(v, m)), 0.0, 1.0)
    owner = groups.hit_group[hits]
    n_groups = len(groups.seg)
    k = np.bincount(owner, minlength=n_groups)
    certain = stop >= 1.0
    log_go = np.log1p(-np.where(certain, 0.0, stop))
    slots = slots_inside(groups, m.cutoff)
    use = np.flatnonzero((k > 0) & (slots > 0))
    if len(use) == 0:
        return np.zeros(v.n_seg)
    if int(k[use].max()) > MAX_STOPPERS:
        return None
    # Π(1 − R) over the groups above (a certain stop above: 0)
    per_group = np.stack([np.bincount(owner, weights=log_go, minlength=n_groups)[use],
                          np.bincount(owner, weights=certain.astype(np.float64), minlength=n_groups)[use]])
    seg = groups.seg[use]
    log_above, certain_above = _exclusive_in_segment(seg, per_group)
    reach = np.where(certain_above > 0, 0.0, np.exp(log_above))
    s, n, mm, kk = groups.start[use], groups.size[use], slots[use], k[use]
    nf = n.astype(np.float64)
    # one stopper: R·Σ_{t<m} 1/(s+t+1) / n
    within = np.zeros(len(use))
    one = np.flatnonzero(kk == 1)
    if len(one):
        R1 = np.zeros(n_groups)
        R1[owner] = stop  # the lone stopper's R (only read for groups with one)
        inv, _ = harmonic_sums(s[one], mm[one], n[one])
        within[one] = R1[use[one]] * inv / nf[one]
    many = np.flatnonzero(kk > 1)
    if len(many):
        within[many] = _several_stoppers(groups, use[many], owner, stop, s[many], n[many], mm[many], kk[many])
    return seg_sum(seg, reach * within, v.n_seg)


def _several_stoppers(groups, which, owner, stop, s, n, mm, kk) -> np.ndarray:
    """E[Σ_{t<m} R_{π(t)}·Π_{u<t}(1 − R_{π(u)})/(s+t+1)] for groups with k >= 2 stoppers:
    (1/n)·Σ_{j<k} [(k − j)·e_j − (j + 1)·e_{j+1}]·Σ_t C(n − k, t − j)/C(n − 1, t)/(s + t + 1)."""
    rows = len(which)
    row_of_group = np.full(len(groups.seg), -1)
    row_of_group[which] = np.arange(rows)
    mine = np.flatnonzero(row_of_group[owner] >= 0)
    r = row_of_group[owner[mine]]
    rank = np.arange(len(mine)) - np.searchsorted(r, r)  # stoppers of a group are consecutive
    width = int(kk.max())
    x = np.zeros((rows, width))
    x[r, rank] = 1.0 - stop[mine]
    e = _symmetric_polynomials(kk, x)
    j_all = np.arange(width)
    coef = (kk[:, None] - j_all) * e[:, :width] - (j_all + 1.0) * e[:, 1:width + 1]  # (rows, width)
    # (row, t) pairs, t < m, then (row, t, j) triples, j <= min(t, k − 1), t − j <= n − k
    pair_row = np.repeat(np.arange(rows), mm)
    t = np.arange(len(pair_row)) - np.repeat(np.cumsum(mm) - mm, mm)
    count = np.minimum(t + 1, kk[pair_row])
    tri_pair = np.repeat(np.arange(len(pair_row)), count)
    j = np.arange(len(tri_pair)) - np.repeat(np.cumsum(count) - count, count)
    row, tt = pair_row[tri_pair], t[tri_pair]
    nn, kr = n[row].astype(np.float64), kk[row].astype(np.float64)
    ok = tt - j <= nn - kr
    row, tt, j, nn, kr = row[ok], tt[ok], j[ok], nn[ok], kr[ok]
    ratio = np.exp(log_comb(nn - kr, tt - j) - log_comb(nn - 1.0, tt.astype(np.float64)))
    terms = coef[row, j] * ratio / (s[row] + tt + 1.0)
    return np.bincount(row, weights=terms, minlength=rows) / n.astype(np.float64)


def err(segments, m):
    """E[ERR@k] (Chapelle et al. 2009; see the module docstring)."""
    return expected_err(_view(segments, m), m)


def normalised_err(segments, m):
    """E[nERR@k] = E[ERR@k] / the ideal's ERR@k, which no ordering changes (Sakai & Song 2011)."""
    from pdireval.measures.sakai.kernels import _ideal_err

    v = _view(segments, m)
    value = expected_err(v, m)
    return None if value is None else _safe_div(value, _ideal_err(v, m)[v.seg_query])



# --------------------------------------------------------------------------- GAP


def graded_ap(segments, m):
    """E[GAP@k] (Robertson, Kanoulas & Yilmaz 2010) = Σ_c g_c·E[SP_c@k] / Σ_d G(grade d): the
    inner sum of GAP over grades c is, per grade, the sum SP of AP with "relevant" read as
    grade >= c, whose expectation is AP's closed form, (r/n)·((c + 1)·Σ_{t<m} 1/(s+t+1) +
    (r − 1)/(n − 1)·Σ_{t<m} t/(s+t+1)) per group (see :mod:`pdireval.measures.ties.groups`),
    with r and c counted per grade (the harmonic sums are shared)."""
    from pdireval.measures.standard.kernels import gap_grades

    v = _view(segments, m)
    probs, grade, den = gap_grades(v, m)
    groups, kept = _groups_above(v, m.cutoff)
    graded = grade(v.hit_label if kept is None else v.hit_label[kept])
    hits = np.flatnonzero(graded > 0)
    owner, graded = groups.hit_group[hits], graded[hits]
    n_groups = len(groups.seg)
    counts = np.stack([np.bincount(owner[graded >= c], minlength=n_groups) for c in range(1, len(probs) + 1)])
    has = np.flatnonzero(counts[0])  # the groups holding a document of grade >= 1
    r = counts[:, has].astype(np.float64)  # (grades, groups)
    seg, s, n = groups.seg[has], groups.start[has], groups.size[has]
    above = _exclusive_in_segment(seg, r)  # documents of grade >= c in the groups above
    mm = np.clip(n if m.cutoff is None else m.cutoff - s, 0, n)
    inv, lin = harmonic_sums(s, mm, n)
    nf = n.astype(np.float64)
    slope = (r - 1.0) / np.maximum(nf - 1.0, 1.0)  # no t/(s+t+1) term when n = 1 (lin = 0)
    per_grade = (r / nf) * ((above + 1.0) * inv + slope * lin)
    total = seg_sum(seg, probs @ per_grade, v.n_seg)
    return _safe_div(total, den[v.seg_query])


# --------------------------------------------------------------------------- ndcg_rel


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
    from pdireval.measures.trec_eval.kernels import _ideal, _ideal_dcg, _uniform_ideal, trec_gain

    v, gains = _view(segments, m), m.get("gains")
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
    uniform = _uniform_ideal(v, gains)
    if uniform is not None:  # one ideal gain value: f(p) = 1/IDCG@(p+1) for every query
        npos = uniform.npos
        idcg = uniform.idcg[npos]
        rank = np.arange(uniform.longest)
        f_tab = _safe_div(np.ones(len(rank)), uniform.idcg[1:])
        r_in = np.minimum(rank, top - 1)
        pre_f, pre_fw, pre_fWc = (np.concatenate([[0.0], np.cumsum(x)]) for x in (f_tab, f_tab * w[r_in], f_tab * Wc[r_in]))
        q_off = np.zeros(v.n_queries, dtype=np.int64)
    else:
        ideal = _ideal(v, gains)
        cum = _ideal_dcg(v, gains)
        npos = ideal.npos
        idcg = ideal.at(cum, np.arange(v.n_queries), np.full(v.n_queries, np.iinfo(np.int64).max))
        f_flat = _safe_div(np.ones(len(cum)), cum)
        p_in = np.minimum(ideal.rank.astype(np.int64), top - 1)
        q_off = ideal.start[:-1] + np.arange(v.n_queries)  # one extra slot per query
        flat_q = np.repeat(np.arange(v.n_queries), npos)
        at = q_off[flat_q] + (np.arange(len(cum)) - ideal.start[flat_q]) + 1
        pre_f, pre_fw, pre_fWc = (_per_query_prefix(flat_q, at, x, v.n_queries) for x in (f_flat, f_flat * w[p_in], f_flat * Wc[p_in]))
    pre_Wc = np.concatenate([[0.0], np.cumsum(Wc[:top])])
    nq = npos[q]
    a, b = s, s + n  # slots [a, b); ideal region [a, min(b, n⁺)), constant region [max(a, n⁺), b)
    lo, hi = q_off[q] + np.minimum(a, nq), q_off[q] + np.minimum(b, nq)
    ca = np.minimum(np.maximum(a, nq), b)
    c = _safe_div(np.ones(len(q)), idcg[q])
    F1 = _range_sums(pre_f, lo, hi) + c * (b - ca)
    FW = _range_sums(pre_fw, lo, hi) + c * (Wc[b] - Wc[ca])
    FWc = _range_sums(pre_fWc, lo, hi) + c * (pre_Wc[b] - pre_Wc[ca])
    nf = n.astype(np.float64)
    S = np.where(n > 1, (FWc - Wc[s] * F1) / np.maximum(nf * (nf - 1.0), 1.0), 0.0)
    mean_w = (Wc[s + n] - Wc[s]) / nf
    above = _exclusive_in_segment(seg, T * mean_w)
    A = T * FW / nf + P * (F1 / nf) * above + (P - 1.0) * T * S
    A_seg = seg_sum(seg, A, v.n_seg)
    dcg = seg_sum(seg, T * mean_w, v.n_seg)
    n_ret = seg_sum(seg, P, v.n_seg)
    npos_seg = npos[v.seg_query].astype(np.float64)
    total = A_seg + (npos_seg - n_ret) * _safe_div(dcg, idcg[v.seg_query])
    return np.where(total > 0, _safe_div(total, npos_seg), 0.0)



# --------------------------------------------------------------------------- infAP

#: infAP's closed form sums over (slot, relevant above, non-relevant above) per group; past
#: this many terms in a call it is left to the enumeration
MAX_INFAP_TERMS = 5_000_000


def _expand(counts: np.ndarray):
    """(owner, index) for every owner i and index 0 <= index < counts[i]."""
    owner = np.repeat(np.arange(len(counts)), counts)
    return owner, np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)


def inferred_ap(segments, m):
    """E[infAP] (Yilmaz & Aslam 2006, trec_eval form). A relevant document at 0-based position
    j > 0 adds (1 + P·(r + ε)/(r + nn + 2ε))/(j + 1), r, nn, P the judged relevant, judged
    non-relevant and pooled documents above it (1 at j = 0). Of a group (r_g relevant, nn_g
    judged non-relevant, u_g pooled unjudged, o_g outside the qrels), the other documents above
    a relevant one at slot t are a uniform t-subset of the n − 1 others, so (a, b) relevant and
    non-relevant ones among them have the bivariate hypergeometric probability
    C(r_g − 1, a)·C(nn_g, b)·C(u_g + o_g, t − a − b)/C(n − 1, t), and given (a, b) the pooled
    unjudged ones number (t − a − b)·u_g/(u_g + o_g) on average (the term is linear in P):
    E = Σ_g (r_g/n)·Σ_{t, a, b} prob·term(s + t; r₀ + a, nn₀ + b, P₀ + a + b + E[u]) with r₀,
    nn₀, P₀ the counts of the groups above. Exact; the sum runs over a group's slots, its
    relevant and its non-relevant documents (past :data:`MAX_INFAP_TERMS` terms: None)."""
    from pdireval.measures.standard.kernels import INFAP_EPS

    v, rel = _view(segments, m), m.get("rel")
    groups = tie_groups(v)
    lab = v.hit_label
    is_rel = lab >= rel  # NaN compares False
    judged = ~np.isnan(lab)
    n_groups = len(groups.seg)
    kinds = np.stack([np.bincount(groups.hit_group, weights=x.astype(np.float64), minlength=n_groups)
                      for x in (is_rel, judged & ~is_rel, ~judged)])  # relevant, non-relevant, unjudged
    above = _exclusive_in_segment(groups.seg, kinds)
    use = np.flatnonzero(kinds[0] > 0)
    rg, ng, ug = (kinds[i, use].astype(np.int64) for i in range(3))
    r0, n0, u0 = (above[i, use] for i in range(3))
    seg, s, n = groups.seg[use], groups.start[use], groups.size[use]
    og = n - rg - ng - ug  # documents outside the qrels
    # (group, slot t), then (.., a relevant above, a <= min(r_g − 1, t)), then (.., b non-relevant)
    g1, t = _expand(n)
    a_count = np.minimum(rg[g1] - 1, t) + 1
    if int(a_count.sum()) > MAX_INFAP_TERMS:
        return None
    i2, a = _expand(a_count)
    g2, t2 = g1[i2], t[i2]
    b_count = np.minimum(ng[g2], t2 - a) + 1
    if int(b_count.sum()) > MAX_INFAP_TERMS:
        return None
    i3, b = _expand(b_count)
    g, t, a = g2[i3], t2[i3], a[i3]
    rest = t - a - b  # unjudged or outside the qrels above
    free = (ug + og)[g]
    ok = rest <= free
    g, t, a, b, rest, free = g[ok], t[ok], a[ok], b[ok], rest[ok], free[ok]
    from pdireval.measures.tie_orderings import log_factorials

    log_fact = log_factorials(int(n.max(initial=1)))  # ln x!, looked up

    def log_comb(x, y):
        return log_fact[x] - log_fact[y] - log_fact[x - y]

    # a group whose only judged document is the relevant one (and the unjudged): probability 1
    prob = np.ones(len(g))
    mixed = np.flatnonzero((rg[g] > 1) | (ng[g] > 0))
    gm, am, bm, tm = g[mixed], a[mixed], b[mixed], t[mixed]
    prob[mixed] = np.exp(log_comb(rg[gm] - 1, am) + log_comb(ng[gm], bm) + log_comb(free[mixed], rest[mixed])
                         - log_comb(n[gm] - 1, tm))
    unjudged = np.where(free > 0, rest * ug[g] / np.maximum(free, 1), 0.0)
    r_above, n_above = r0[g] + a, n0[g] + b
    pooled = r_above + n_above + u0[g] + unjudged
    j = (s[g] + t).astype(np.float64)
    term = (1.0 + pooled * (r_above + INFAP_EPS) / (r_above + n_above + 2 * INFAP_EPS)) / (j + 1.0)
    term = np.where(j == 0, 1.0, term)
    per_group = np.bincount(g, weights=prob * term, minlength=len(use)) * rg / n
    return _safe_div(seg_sum(seg, per_group, v.n_seg), _R(v, rel))
