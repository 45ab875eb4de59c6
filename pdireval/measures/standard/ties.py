"""Closed forms of ``ties="expected"`` for the standard measures (McSherry & Najork 2008).

When a system gives several documents the same score, trec_eval (and pdireval by default,
``ties="break"``) orders them by doc id, an arbitrary choice that can move a measure a lot.
``ties="expected"`` gives instead the expectation of the measure over all orderings of
every group of tied documents, each ordering equally likely (McSherry & Najork 2008). Without
ties it equals the default. Every measure of the registry takes it, computed in one of four
ways (:func:`method_of`; :func:`describe` says which, per measure, in docs/measures.md):

* **closed form** (this module): P, R, NumRelRet, Rprec, Judged, DCG, nDCG, RBP, RBPResidual,
  SP, AP, RR, Success, Bpref (without a cut-off), binG; and IPrec and 11pt_avg by the exact
  distribution of a maximum of independent per-group maxima;
  (:mod:`pdireval.measures.tie_closed_forms`) Q, nDCG(gains=...), ndcg_p, Rndcg, ndcg_rel
  (nonnegative gains), ERR, nERR, GAP, infAP, relative_P, F@k, Rprec_mult;
  (:mod:`pdireval.measures.tie_closed_forms_cwl`) INSQ, SDCG, NERR8-11 (when each list's value
  moves with the slot of its first full gain only), INST and BPM (by every placement of the
  positive gains, when each movable group holds one);
  (:mod:`pdireval.measures.tie_closed_forms_diversity`) alpha_DCG, alpha_nDCG, ERR_IA,
  nERR_IA, NRBP, nNRBP, P_IA, AP_IA, StRecall;
  (:mod:`pdireval.measures.tie_closed_forms_pairs`) Accuracy, Compat.
* **order-free** (the default value, which no ordering changes): NumRet, NumRel, NumQ, SetP,
  SetR, SetF, SetAP, SetRelP, NumNonRelJudgedRet, utility, F without a cut-off.
* **enumeration, group by group** (:mod:`pdireval.measures.tie_orderings`): the separable
  measures, sums over documents of a term of the document, its position and an order-free
  summary of the documents above it — G, Bpref@k, ERR and nERR with a group of more than 300
  stoppers, infAP past 5,000,000 terms of its closed form in a call.
  E[M] = M₀ + Σ_g (E_g[M] − M₀) with E_g the mean over the arrangements of group g.
* **enumeration of the joint orderings**: the rest — gm_map, gm_bpref
  (the logarithm of an expectation is not the expectation of the logarithm: these are
  E[ln max(x, 1e-5)]), RIC, INST, BPM and NERR8-11 otherwise, ndcg_rel with a negative gain,
  IPrec and 11pt_avg on condensed lists and user-defined measures.

Enumeration is exact when a unit (a group, or a list for the joint orderings) has at most
5040 distinct arrangements of its documents' labels; a larger one is the mean of 1000
uniformly random orderings drawn from a seeded, counter-based hash of (system, query, group,
sample), reproducible and independent of the other lists evaluated, with a standard error
of σ/√1000 (σ the measure's standard deviation over that unit's orderings, <= 0.016 for a
measure in [0, 1]). See :mod:`pdireval.measures.tie_orderings`.

The closed forms. Notation, for a tie group g of a (system, query) list: it occupies
positions s..s+n−1 (0-based; rank = position + 1) and holds r relevant documents
(label >= ``rel``) and gains G_g = Σ_{d in g} gain(d); c is the number of relevant
documents in the groups above g; k the cut-off (k = ∞ without one) and
m = min(n, max(k − s, 0)) the slots of g inside the top k. In a random ordering of g every
document of g is equally likely at each of its n slots, so:

* **linear measures** (P, R, NumRelRet, Rprec, DCG, nDCG, RBP, RBPResidual, Judged): each
  document's weight w_i is replaced by the mean weight of its group's slots,
  E = Σ_g G_g · (1/n)·Σ_{t<m} w_{s+t}. The normalisers (k, R, IDCG) do not depend on the order.
* **SP and AP**: a relevant document of g at slot t has c + 1 + (r−1)·t/(n−1) relevant documents
  at or above it on average (each other relevant document of g is above it with probability
  t/(n−1)), so E[SP@k] = Σ_g (r/n)·Σ_{t<m} (c + 1 + (r−1)·t/(n−1)) / (s + t + 1), in closed
  form with harmonic numbers; E[AP@k] = E[SP@k] / R.
* **RR**: only the first group with r > 0 matters; the first relevant document is at its slot t
  with probability C(n−1−t, r−1)/C(n, r), so E[RR@k] = Σ_{t<m} C(n−1−t, r−1)/C(n, r)/(s+t+1)
  (with r = 1, 1/n at each slot: harmonic numbers; with r > 1 a sum over the slots).
* **Success@k** = 1 − Π_g C(n−r, m)/C(n, m) (no relevant document among any group's slots
  inside the top k).
* **bpref** (and bpref-10): a relevant document of g has n_r = C + U judged non-relevant
  documents above it, C those of the groups above g and U uniform on 0..b, b those of g
  (its place among itself and g's b judged non-relevant documents is uniform; unjudged and
  unpooled documents do not count), so
  E[bpref] = (1/R)·Σ_g r·(1 − (1/(b+1))·Σ_{u=0}^{b} min(C + u, c)/min(N, c)), c = R
  (10 + R for bpref-10). A cut-off inside a group is left to the enumeration.
* **binG**: a relevant document of g has s − c + U non-relevant documents above it, U
  uniform on 0..n − r, so E[binG] = (1/R)·Σ_g r·(1/(n−r+1))·Σ_{u=0}^{n−r} 1/log2(2 + s − c + u).
* **IPrec@x** (and 11pt_avg, its mean over levels): the maximum, over the relevant documents
  of index i >= c = ⌊x·R + 0.9⌋, of i/rank_i. A group's relevant documents take a uniformly
  random subset of its slots and keep their indices, so IPrec@x = max_G Φ_G over independent
  per-group maxima and E = Σ_v v·(F(v) − F(v⁻)), F = Π_G P(Φ_G <= v); groups that cannot
  exceed another's minimum drop out, a lone group with one relevant document has a
  harmonic-number form, other Φ_G are read off every placement (C(n, r); past 5040, 1000
  seeded random ones). See :mod:`pdireval.measures.tie_maximum`.
* **ndcg_rel**: a sum over pairs (j above or at d) of g_j·w(p_j)/IDCG@p_d; documents of
  different groups are independent (a product of two linear means), two documents of one
  group take a uniformly random pair of its slots (see
  :func:`pdireval.measures.tie_closed_forms.ndcg_rel`).

``ties="expected"`` does not combine with ``bounds=`` other than ``max`` (give one of them).

References
----------
McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
efficiently in the presence of tied scores. ECIR 2008, 414–421.
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.standard.kernels import _R, _safe_div, _view, ordered_pool_dcg
from pdireval.measures.ties.groups import (
    earlier_sum,
    expected_count,
    group_sum,
    harmonic_sums,
    linear_expectation,
    log_comb,
    ones_until,
    relevant_hits,
    slots_inside,
    tie_groups,
)
from pdireval.measures.view import discount_weights, gain_values, seg_sum


def p(segments, m):
    v = _view(segments, m)
    return expected_count(v, m, m.cutoff) / m.cutoff


def r(segments, m):
    v = _view(segments, m)
    return _safe_div(expected_count(v, m, m.cutoff), _R(v, m.get("rel")))


def num_rel_ret(segments, m):
    return expected_count(_view(segments, m), m, m.cutoff)


def rprec(segments, m):
    v = _view(segments, m)
    R = _R(v, m.get("rel"))
    groups = tie_groups(v)
    mm = np.clip(R[groups.seg].astype(np.int64) - groups.start, 0, groups.size)
    count = seg_sum(groups.seg, group_sum(groups, relevant_hits(v, m)) * mm / groups.size, v.n_seg)
    return _safe_div(count, R)


def judged(segments, m):
    v, k = _view(segments, m), m.cutoff
    groups = tie_groups(v)
    judged = (~np.isnan(v.hit_label)).astype(np.float64)
    count = linear_expectation(v, groups, judged, k, ones_until(k))
    depth = v.seg_len.astype(np.float64) if k is None else np.minimum(v.seg_len, k).astype(np.float64)
    return _safe_div(count, depth)


def _dcg_expected(v, m) -> np.ndarray:
    k = m.cutoff
    groups = tie_groups(v)
    gains = gain_values(v.hit_label, m.get("gain"))

    def weight_of(pos):
        w = discount_weights(pos, m.get("discount"), k)
        return w if k is None else np.where(pos < k, w, 0.0)

    return linear_expectation(v, groups, gains, k, weight_of)


def dcg(segments, m):
    return _dcg_expected(_view(segments, m), m)


def ndcg(segments, m):
    v = _view(segments, m)
    return _safe_div(_dcg_expected(v, m), ordered_pool_dcg(v, m)[v.seg_query])


def _rbp_weight(p, k):
    def weight_of(pos):
        w = (1.0 - p) * np.power(p, pos)
        return w if k is None else np.where(pos < k, w, 0.0)

    return weight_of


def rbp(segments, m):
    v, k, p = _view(segments, m), m.cutoff, m.get("p")
    return linear_expectation(v, tie_groups(v), relevant_hits(v, m), k, _rbp_weight(p, k))


def rbp_residual(segments, m):
    v, k, p = _view(segments, m), m.cutoff, m.get("p")
    judged = (~np.isnan(v.hit_label)).astype(np.float64)
    return 1.0 - linear_expectation(v, tie_groups(v), judged, k, _rbp_weight(p, k))


def _sp_expected(v, m) -> np.ndarray:
    groups = tie_groups(v)
    r = group_sum(groups, relevant_hits(v, m))
    c = np.zeros(len(r))
    if len(r):  # relevant documents in the earlier groups of the same segment
        total = np.cumsum(r) - r
        first = np.r_[True, groups.seg[1:] != groups.seg[:-1]]
        c = total - np.maximum.accumulate(np.where(first, total, 0.0))
    has = r > 0  # only groups holding a relevant document contribute
    r, c = r[has], c[has]
    s, n = groups.start[has], groups.size[has]
    mm = np.clip(n if m.cutoff is None else m.cutoff - s, 0, n)
    inv, lin = harmonic_sums(s, mm, n)
    slope = np.where(n > 1, (r - 1.0) / np.maximum(n - 1.0, 1.0), 0.0)
    contrib = (r / n) * ((c + 1.0) * inv + slope * lin)
    return seg_sum(groups.seg[has], contrib, v.n_seg)


def sp(segments, m):
    return _sp_expected(_view(segments, m), m)


def ap(segments, m):
    v = _view(segments, m)
    return _safe_div(_sp_expected(v, m), _R(v, m.get("rel")))


def rr(segments, m):
    v = _view(segments, m)
    groups = tie_groups(v)
    r = group_sum(groups, relevant_hits(v, m))
    has = np.flatnonzero(r > 0)
    if len(has) == 0:
        return np.zeros(v.n_seg)
    lead = np.empty(len(has), dtype=bool)  # the first group holding a relevant document
    lead[0] = True
    np.not_equal(groups.seg[has][1:], groups.seg[has][:-1], out=lead[1:])
    first_of_seg = has[lead]
    seg, s, n, rr = groups.seg[first_of_seg], groups.start[first_of_seg], groups.size[first_of_seg], r[first_of_seg]
    mm = n if m.cutoff is None else np.clip(m.cutoff - s, 0, n)
    out = np.zeros(v.n_seg)
    # one relevant document: at each slot with probability 1/n, Σ_{t<m} 1/(s+t+1) / n
    one = rr == 1
    inv, _ = harmonic_sums(s[one], mm[one], n[one])
    out[seg[one]] = inv / n[one]
    many = np.flatnonzero(~one)
    if len(many) == 0:
        return out
    seg, s, n, rr, mm = seg[many], s[many], n[many], rr[many], mm[many]
    # expand every (group, slot t < m): Σ over slots is over at most the group's size
    owner = np.repeat(np.arange(len(s)), mm)
    t = np.arange(len(owner)) - np.repeat(np.cumsum(mm) - mm, mm)
    nn, rk = n[owner].astype(np.float64), rr[owner]
    avail = nn - 1.0 - t
    logp = log_comb(avail, rk - 1.0) - log_comb(nn, rk)
    prob = np.where(avail >= rk - 1.0, np.exp(logp), 0.0)
    out[seg] = np.bincount(owner, weights=prob / (s[owner] + t + 1.0), minlength=len(s))
    return out


def success(segments, m):
    v = _view(segments, m)
    groups = tie_groups(v)
    r = group_sum(groups, relevant_hits(v, m))
    mm = slots_inside(groups, m.cutoff).astype(np.float64)
    use = (r > 0) & (mm > 0)  # other groups leave "no relevant document inside" certain
    g_seg, r, mm, n = groups.seg[use], r[use], mm[use], groups.size[use].astype(np.float64)
    impossible = mm > n - r  # some relevant document is necessarily inside
    log_none = np.where(impossible, 0.0, log_comb(np.maximum(n - r, mm), mm) - log_comb(n, mm))
    total = seg_sum(g_seg, log_none, v.n_seg)
    forced = seg_sum(g_seg, impossible.astype(np.float64), v.n_seg) > 0
    return np.where(forced, 1.0, 1.0 - np.exp(total))


def bpref(segments, m):
    """E[bpref] (and bpref-10): for a relevant document r of group g, with C judged
    non-relevant documents in the groups above g and b in g, n_r = C + U with U uniform on
    0..b (r's place among itself and g's b judged non-relevant documents is uniform), so
    E[term] = 1 − E[min(C + U, c)]/min(N, c), c = R (+10 for bpref-10); a cut-off inside a
    group is left to the groupwise enumeration."""
    if m.cutoff is not None:
        return None
    v, rel = _view(segments, m), m.get("rel")
    groups = tie_groups(v)
    judged = ~np.isnan(v.hit_label)
    r = group_sum(groups, (v.hit_label >= rel).astype(np.float64))
    b = group_sum(groups, (judged & ~(v.hit_label >= rel)).astype(np.float64))
    C = earlier_sum(groups, b)
    R = v.num_rel(rel)[v.seg_query]
    N = v.num_judged_nonrel(rel)[v.seg_query]
    cap = R[groups.seg] + (10.0 if m.get("variant", "r") == "10r" else 0.0)
    D = np.minimum(N[groups.seg], cap)
    # Σ_{u=0}^{b} min(C + u, cap): the part below the cap plus the capped part
    hi = np.minimum(C + b, cap)
    below = np.where(C < cap, (hi - C + 1.0) * (C + hi) / 2.0, 0.0)
    capped = np.where(C < cap, C + b - hi, b + 1.0) * cap
    mean_min = (below + capped) / (b + 1.0)
    term = r * (1.0 - _safe_div(mean_min, D))
    return _safe_div(seg_sum(groups.seg, term, v.n_seg), R)
