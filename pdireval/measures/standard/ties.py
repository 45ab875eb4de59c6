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
* **enumeration, group by group** (:mod:`pdireval.measures.ties.orderings`): the separable
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
measure in [0, 1]). See :mod:`pdireval.measures.ties.orderings`.

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
  seeded random ones). See :mod:`pdireval.measures.ties.maximum`.
* **ndcg_rel**: a sum over pairs (j above or at d) of g_j·w(p_j)/IDCG@p_d; documents of
  different groups are independent (a product of two linear means), two documents of one
  group take a uniformly random pair of its slots (see
  :func:`pdireval.measures.tie_closed_forms.ndcg_rel`).

``ties="expected"`` does not combine with ``bounds=`` other than ``max`` (give one of them).

References
----------
McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
efficiently in the presence of tied scores. ECIR 2008, 414–421.

More closed forms (the notation above; every formula exact, tested against the mean over
every ordering):

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
  stopper by stopper (past ``max_stoppers`` = 300 stoppers in a group: None, enumeration). nERR
  divides by the ideal's ERR@k, which no ordering changes.

* **F@k**: with f the relevant documents in the top k, P = f/k and Rc = f/R,
  (1 + β²)·P·Rc/(β²·P + Rc) = (1 + β²)·f/(β²·R + k) (also 0 when f = 0), linear in f, so
  E[F@k] = (1 + β²)·E[f]/(β²·R + k).
* GAP (AP's once per grade), infAP (hypergeometric counts above a slot) and nDCG(gains=...)
  (trec_eval gain levels, a linear measure): in their functions' docstrings.
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.gain_levels import expected_trec_dcg, ideal_dcg, ideal_gains
from pdireval.measures.standard.kernels import INFAP_EPS, gap_grades, max_grade_of, ordered_pool_dcg
from pdireval.measures.ties.groups import (
    earlier_sum,
    exclusive_in_segment,
    expected_count,
    group_sum,
    groups_above,
    harmonic_sums,
    linear_expectation,
    log_comb,
    ones_until,
    relevant_hits,
    slots_inside,
    tie_groups,
)
from pdireval.measures.ties.orderings import log_factorials
from pdireval.measures.toolkit import num_rel, safe_div, view_for
from pdireval.measures.view import discount_weights, gain_values, seg_sum


def p(segments, m):
    v = view_for(segments, m)
    return expected_count(v, m, m.cutoff) / m.cutoff


def r(segments, m):
    v = view_for(segments, m)
    return safe_div(expected_count(v, m, m.cutoff), num_rel(v, m.get("rel")))


def num_rel_ret(segments, m):
    return expected_count(view_for(segments, m), m, m.cutoff)


def rprec(segments, m):
    v = view_for(segments, m)
    R = num_rel(v, m.get("rel"))
    groups = tie_groups(v)
    mm = np.clip(R[groups.seg].astype(np.int64) - groups.start, 0, groups.size)
    count = seg_sum(groups.seg, group_sum(groups, relevant_hits(v, m)) * mm / groups.size, v.n_seg)
    return safe_div(count, R)


def judged(segments, m):
    v, k = view_for(segments, m), m.cutoff
    groups = tie_groups(v)
    judged = (~np.isnan(v.hit_label)).astype(np.float64)
    count = linear_expectation(v, groups, judged, k, ones_until(k))
    depth = (
        v.seg_len.astype(np.float64) if k is None else np.minimum(v.seg_len, k).astype(np.float64)
    )
    return safe_div(count, depth)


def _dcg_expected(v, m) -> np.ndarray:
    k = m.cutoff
    groups = tie_groups(v)
    gains = gain_values(v.hit_label, m.get("gain"))

    def weight_of(pos):
        w = discount_weights(pos, m.get("discount"), k)
        return w if k is None else np.where(pos < k, w, 0.0)

    return linear_expectation(v, groups, gains, k, weight_of)


def dcg(segments, m):
    return _dcg_expected(view_for(segments, m), m)


def ndcg_linear_gain(segments, m):
    v = view_for(segments, m)
    return safe_div(_dcg_expected(v, m), ordered_pool_dcg(v, m)[v.seg_query])


def _rbp_weight(p, k):
    def weight_of(pos):
        w = (1.0 - p) * np.power(p, pos)
        return w if k is None else np.where(pos < k, w, 0.0)

    return weight_of


def rbp(segments, m):
    v, k, p = view_for(segments, m), m.cutoff, m.get("p")
    return linear_expectation(v, tie_groups(v), relevant_hits(v, m), k, _rbp_weight(p, k))


def rbp_residual(segments, m):
    v, k, p = view_for(segments, m), m.cutoff, m.get("p")
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
    return _sp_expected(view_for(segments, m), m)


def ap(segments, m):
    v = view_for(segments, m)
    return safe_div(_sp_expected(v, m), num_rel(v, m.get("rel")))


def rr(segments, m):
    v = view_for(segments, m)
    groups = tie_groups(v)
    r = group_sum(groups, relevant_hits(v, m))
    has = np.flatnonzero(r > 0)
    if len(has) == 0:
        return np.zeros(v.n_seg)
    lead = np.empty(len(has), dtype=bool)  # the first group holding a relevant document
    lead[0] = True
    np.not_equal(groups.seg[has][1:], groups.seg[has][:-1], out=lead[1:])
    first_of_seg = has[lead]
    seg, s, n, rr = (
        groups.seg[first_of_seg],
        groups.start[first_of_seg],
        groups.size[first_of_seg],
        r[first_of_seg],
    )
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
    v = view_for(segments, m)
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
    v, rel = view_for(segments, m), m.get("rel")
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
    term = r * (1.0 - safe_div(mean_min, D))
    return safe_div(seg_sum(groups.seg, term, v.n_seg), R)


def ndcg(segments, m):
    """E[nDCG]: nDCG(gains=...) here (E[DCG@k] / IDCG@k, both with trec_eval's gain levels),
    the other nDCGs in :mod:`pdireval.measures.ties.groups`."""
    gains = m.get("gains", None)
    if gains is None:
        return ndcg_linear_gain(segments, m)
    v, k = view_for(segments, m), m.cutoff
    depth = np.full(v.n_seg, np.iinfo(np.int64).max if k is None else k)
    idcg = ideal_gains(v, gains).at(ideal_dcg(v, gains), v.seg_query, depth)
    return safe_div(expected_trec_dcg(v, gains, k), idcg)


def f_measure(segments, m):
    """E[F@k] = (1 + β²)·E[f]/(β²·R + k), f the relevant documents in the top k (F is linear
    in f); without a cut-off F is order-free: None (the default value)."""
    if m.cutoff is None:
        return None
    v, k = view_for(segments, m), m.cutoff
    b2 = m.get("beta") ** 2
    R = num_rel(v, m.get("rel"))
    value = safe_div((1.0 + b2) * expected_count(v, m, k), b2 * R + k)
    return np.where(R > 0, value, 0.0)


# --------------------------------------------------------------------------- ERR

#: ERR's closed form expands the elementary symmetric polynomials of a group's stopping
#: probabilities; a group with more documents that can stop the user is left to enumeration
#: default of ``max_stoppers=``
MAX_STOPPERS = 300
#: how the closed forms of ERR and nERR say they leave the groups past ``max_stoppers``
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
        e[:active, 1 : i + 2] = e[:active, 1 : i + 2] + x[:active, i : i + 1] * e[:active, : i + 1]
    out = np.empty_like(e)
    out[order] = e
    return out


def expected_err(v, m, *, max_stoppers: int = MAX_STOPPERS) -> np.ndarray | None:
    """E[ERR@k] per segment (see the module docstring); None when a group holds more than
    ``max_stoppers`` documents that can stop the user (the enumeration takes over)."""
    groups, kept = groups_above(v, m.cutoff)
    lab = v.hit_label if kept is None else v.hit_label[kept]
    hits = np.flatnonzero(lab > 0)  # only a positive label can stop the user (NaN: False)
    stop = np.clip((np.exp2(lab[hits]) - 1.0) / np.exp2(max_grade_of(v, m)), 0.0, 1.0)
    owner = groups.hit_group[hits]
    n_groups = len(groups.seg)
    k = np.bincount(owner, minlength=n_groups)
    certain = stop >= 1.0
    log_go = np.log1p(-np.where(certain, 0.0, stop))
    slots = slots_inside(groups, m.cutoff)
    use = np.flatnonzero((k > 0) & (slots > 0))
    if len(use) == 0:
        return np.zeros(v.n_seg)
    if int(k[use].max()) > max_stoppers:
        return None
    # Π(1 − R) over the groups above (a certain stop above: 0)
    per_group = np.stack(
        [
            np.bincount(owner, weights=log_go, minlength=n_groups)[use],
            np.bincount(owner, weights=certain.astype(np.float64), minlength=n_groups)[use],
        ]
    )
    seg = groups.seg[use]
    log_above, certain_above = exclusive_in_segment(seg, per_group)
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
        within[many] = _several_stoppers(
            groups, use[many], owner, stop, s[many], n[many], mm[many], kk[many]
        )
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
    coef = (kk[:, None] - j_all) * e[:, :width] - (j_all + 1.0) * e[
        :, 1 : width + 1
    ]  # (rows, width)
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


def err(segments, m, *, max_stoppers: int = MAX_STOPPERS):
    """E[ERR@k] (Chapelle et al. 2009; see the module docstring)."""
    return expected_err(view_for(segments, m), m, max_stoppers=max_stoppers)


# --------------------------------------------------------------------------- GAP


def graded_ap(segments, m):
    """E[GAP@k] (Robertson, Kanoulas & Yilmaz 2010) = Σ_c g_c·E[SP_c@k] / Σ_d G(grade d): the
    inner sum of GAP over grades c is, per grade, the sum SP of AP with "relevant" read as
    grade >= c, whose expectation is AP's closed form, (r/n)·((c + 1)·Σ_{t<m} 1/(s+t+1) +
    (r − 1)/(n − 1)·Σ_{t<m} t/(s+t+1)) per group (see :mod:`pdireval.measures.ties.groups`),
    with r and c counted per grade (the harmonic sums are shared)."""
    v = view_for(segments, m)
    probs, grade, den = gap_grades(v, m)
    groups, kept = groups_above(v, m.cutoff)
    graded = grade(v.hit_label if kept is None else v.hit_label[kept])
    hits = np.flatnonzero(graded > 0)
    owner, graded = groups.hit_group[hits], graded[hits]
    n_groups = len(groups.seg)
    counts = np.stack(
        [np.bincount(owner[graded >= c], minlength=n_groups) for c in range(1, len(probs) + 1)]
    )
    has = np.flatnonzero(counts[0])  # the groups holding a document of grade >= 1
    r = counts[:, has].astype(np.float64)  # (grades, groups)
    seg, s, n = groups.seg[has], groups.start[has], groups.size[has]
    above = exclusive_in_segment(seg, r)  # documents of grade >= c in the groups above
    mm = np.clip(n if m.cutoff is None else m.cutoff - s, 0, n)
    inv, lin = harmonic_sums(s, mm, n)
    nf = n.astype(np.float64)
    slope = (r - 1.0) / np.maximum(nf - 1.0, 1.0)  # no t/(s+t+1) term when n = 1 (lin = 0)
    per_grade = (r / nf) * ((above + 1.0) * inv + slope * lin)
    total = seg_sum(seg, probs @ per_grade, v.n_seg)
    return safe_div(total, den[v.seg_query])


# --------------------------------------------------------------------------- infAP

#: infAP's closed form sums over (slot, relevant above, non-relevant above) per group; past
#: this many terms in a call it is left to the enumeration
#: default of ``max_terms=``
MAX_INFAP_TERMS = 5_000_000


def _expand(counts: np.ndarray):
    """(owner, index) for every owner i and index 0 <= index < counts[i]."""
    owner = np.repeat(np.arange(len(counts)), counts)
    return owner, np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)


def inferred_ap(segments, m, *, max_terms: int = MAX_INFAP_TERMS):
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
    relevant and its non-relevant documents (past ``max_terms`` terms: None)."""
    v, rel = view_for(segments, m), m.get("rel")
    groups = tie_groups(v)
    lab = v.hit_label
    is_rel = lab >= rel  # NaN compares False
    judged = ~np.isnan(lab)
    n_groups = len(groups.seg)
    kinds = np.stack(
        [
            np.bincount(groups.hit_group, weights=x.astype(np.float64), minlength=n_groups)
            for x in (is_rel, judged & ~is_rel, ~judged)
        ]
    )  # relevant, non-relevant, unjudged
    above = exclusive_in_segment(groups.seg, kinds)
    use = np.flatnonzero(kinds[0] > 0)
    rg, ng, ug = (kinds[i, use].astype(np.int64) for i in range(3))
    r0, n0, u0 = (above[i, use] for i in range(3))
    seg, s, n = groups.seg[use], groups.start[use], groups.size[use]
    og = n - rg - ng - ug  # documents outside the qrels
    # (group, slot t), then (.., a relevant above, a <= min(r_g − 1, t)), then (.., b non-relevant)
    g1, t = _expand(n)
    a_count = np.minimum(rg[g1] - 1, t) + 1
    if int(a_count.sum()) > max_terms:
        return None
    i2, a = _expand(a_count)
    g2, t2 = g1[i2], t[i2]
    b_count = np.minimum(ng[g2], t2 - a) + 1
    if int(b_count.sum()) > max_terms:
        return None
    i3, b = _expand(b_count)
    g, t, a = g2[i3], t2[i3], a[i3]
    rest = t - a - b  # unjudged or outside the qrels above
    free = (ug + og)[g]
    ok = rest <= free
    g, t, a, b, rest, free = g[ok], t[ok], a[ok], b[ok], rest[ok], free[ok]
    log_fact = log_factorials(int(n.max(initial=1)))  # ln x!, looked up

    def log_comb(x, y):
        return log_fact[x] - log_fact[y] - log_fact[x - y]

    # a group whose only judged document is the relevant one (and the unjudged): probability 1
    prob = np.ones(len(g))
    mixed = np.flatnonzero((rg[g] > 1) | (ng[g] > 0))
    gm, am, bm, tm = g[mixed], a[mixed], b[mixed], t[mixed]
    prob[mixed] = np.exp(
        log_comb(rg[gm] - 1, am)
        + log_comb(ng[gm], bm)
        + log_comb(free[mixed], rest[mixed])
        - log_comb(n[gm] - 1, tm)
    )
    unjudged = np.where(free > 0, rest * ug[g] / np.maximum(free, 1), 0.0)
    r_above, n_above = r0[g] + a, n0[g] + b
    pooled = r_above + n_above + u0[g] + unjudged
    j = (s[g] + t).astype(np.float64)
    term = (1.0 + pooled * (r_above + INFAP_EPS) / (r_above + n_above + 2 * INFAP_EPS)) / (j + 1.0)
    term = np.where(j == 0, 1.0, term)
    per_group = np.bincount(g, weights=prob * term, minlength=len(use)) * rg / n
    return safe_div(seg_sum(seg, per_group, v.n_seg), num_rel(v, rel))
