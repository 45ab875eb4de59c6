"""Tie-aware evaluation: ``ties="expected"`` on every measure (McSherry & Najork 2008).

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

from dataclasses import dataclass

import numpy as np

from pdireval.errors import MeasureError
from pdireval.measures.registry import REGISTRY, Param, add_params
from pdireval.measures.standard import _R, _safe_div, _view, ordered_pool_dcg
from pdireval.measures.view import (
    discount_weights,
    gain_values,
    read_negatives,
    seg_sum,
)

__all__ = ["TIES", "TIES_PARAM", "TIE_AWARE", "tie_groups", "expected"]

TIES = ("break", "expected")
TIES_PARAM = Param(
    "ties", "choice", "break",
    "Score ties: break (trec_eval: by doc id descending) or expected (the exact expectation over "
    "all orderings of tied documents, McSherry & Najork 2008).",
    choices=TIES,
)


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


def _inside(groups: Groups, k) -> np.ndarray:
    """m: slots of each group inside the top k (k scalar, per-group array, or None)."""
    if k is None:
        return groups.size
    return np.clip(k - groups.start, 0, groups.size)


def _mean_weight(groups: Groups, m: np.ndarray, weight_of) -> np.ndarray:
    """(1/n)·Σ_{t<m} w(s + t) per group, w given for positions by ``weight_of``."""
    top = int((groups.start + m).max()) if len(m) else 0
    w = weight_of(np.arange(top))
    cum = np.concatenate([[0.0], np.cumsum(w)])
    total = cum[groups.start + m] - cum[groups.start]
    single = groups.size == 1  # exact, untouched by the cumulative sums
    total[single & (m == 1)] = w[groups.start[single & (m == 1)]]
    return total / groups.size


def _group_sum(groups: Groups, values: np.ndarray) -> np.ndarray:
    return np.bincount(groups.hit_group, weights=values, minlength=len(groups.seg))


def _linear(v, groups: Groups, per_hit: np.ndarray, k, weight_of) -> np.ndarray:
    """E[Σ_i w_i·x_i] per segment, x_i = per_hit values (0 for documents outside the qrels)."""
    m = _inside(groups, k)
    mean_w = _mean_weight(groups, m, weight_of)
    return seg_sum(groups.seg, _group_sum(groups, per_hit) * mean_w, v.n_seg)


def _ones_until(k):
    return lambda pos: np.ones(len(pos)) if k is None else (pos < k).astype(np.float64)


def _relevant_hits(v, m) -> np.ndarray:
    return (v.hit_label >= m.get("rel")).astype(np.float64)


def expected_count(v, m, k) -> np.ndarray:
    """E[relevant in the top k] (k scalar or None)."""
    groups = tie_groups(v)
    return _linear(v, groups, _relevant_hits(v, m), k, _ones_until(k))


def _harmonic_sum(s: np.ndarray, m: np.ndarray, n: np.ndarray):
    """(Σ_{t<m} 1/(s+t+1), Σ_{t<m} t/(s+t+1)) per group, exact for single slots."""
    top = int((s + m).max()) if len(s) else 0
    H = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, top + 1))])
    inv = H[s + m] - H[s]
    one = m == 1
    inv[one] = 1.0 / (s[one] + 1.0)
    lin = m - (s + 1.0) * inv
    lin[one] = 0.0
    return inv, lin


# --------------------------------------------------------------------------- kernels


def _p(segments, m):
    v = _view(segments, m)
    return expected_count(v, m, m.cutoff) / m.cutoff


def _r(segments, m):
    v = _view(segments, m)
    return _safe_div(expected_count(v, m, m.cutoff), _R(v, m.get("rel")))


def _num_rel_ret(segments, m):
    return expected_count(_view(segments, m), m, m.cutoff)


def _rprec(segments, m):
    v = _view(segments, m)
    R = _R(v, m.get("rel"))
    groups = tie_groups(v)
    mm = np.clip(R[groups.seg].astype(np.int64) - groups.start, 0, groups.size)
    count = seg_sum(groups.seg, _group_sum(groups, _relevant_hits(v, m)) * mm / groups.size, v.n_seg)
    return _safe_div(count, R)


def _judged(segments, m):
    v, k = _view(segments, m), m.cutoff
    groups = tie_groups(v)
    judged = (~np.isnan(v.hit_label)).astype(np.float64)
    count = _linear(v, groups, judged, k, _ones_until(k))
    depth = v.seg_len.astype(np.float64) if k is None else np.minimum(v.seg_len, k).astype(np.float64)
    return _safe_div(count, depth)


def _dcg_expected(v, m) -> np.ndarray:
    k = m.cutoff
    groups = tie_groups(v)
    gains = gain_values(v.hit_label, m.get("gain"))

    def weight_of(pos):
        w = discount_weights(pos, m.get("discount"), k)
        return w if k is None else np.where(pos < k, w, 0.0)

    return _linear(v, groups, gains, k, weight_of)


def _dcg(segments, m):
    return _dcg_expected(_view(segments, m), m)


def _ndcg(segments, m):
    v = _view(segments, m)
    return _safe_div(_dcg_expected(v, m), ordered_pool_dcg(v, m)[v.seg_query])


def _rbp_weight(p, k):
    def weight_of(pos):
        w = (1.0 - p) * np.power(p, pos)
        return w if k is None else np.where(pos < k, w, 0.0)

    return weight_of


def _rbp(segments, m):
    v, k, p = _view(segments, m), m.cutoff, m.get("p")
    return _linear(v, tie_groups(v), _relevant_hits(v, m), k, _rbp_weight(p, k))


def _rbp_residual(segments, m):
    v, k, p = _view(segments, m), m.cutoff, m.get("p")
    judged = (~np.isnan(v.hit_label)).astype(np.float64)
    return 1.0 - _linear(v, tie_groups(v), judged, k, _rbp_weight(p, k))


def _sp_expected(v, m) -> np.ndarray:
    groups = tie_groups(v)
    r = _group_sum(groups, _relevant_hits(v, m))
    c = np.zeros(len(r))
    if len(r):  # relevant documents in the earlier groups of the same segment
        total = np.cumsum(r) - r
        first = np.r_[True, groups.seg[1:] != groups.seg[:-1]]
        c = total - np.maximum.accumulate(np.where(first, total, 0.0))
    has = r > 0  # only groups holding a relevant document contribute
    r, c = r[has], c[has]
    s, n = groups.start[has], groups.size[has]
    mm = np.clip(n if m.cutoff is None else m.cutoff - s, 0, n)
    inv, lin = _harmonic_sum(s, mm, n)
    slope = np.where(n > 1, (r - 1.0) / np.maximum(n - 1.0, 1.0), 0.0)
    contrib = (r / n) * ((c + 1.0) * inv + slope * lin)
    return seg_sum(groups.seg[has], contrib, v.n_seg)


def _sp(segments, m):
    return _sp_expected(_view(segments, m), m)


def _ap(segments, m):
    v = _view(segments, m)
    return _safe_div(_sp_expected(v, m), _R(v, m.get("rel")))


def _log_comb(a, b):
    from scipy.special import gammaln

    return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)


def _rr(segments, m):
    v = _view(segments, m)
    groups = tie_groups(v)
    r = _group_sum(groups, _relevant_hits(v, m))
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
    inv, _ = _harmonic_sum(s[one], mm[one], n[one])
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
    logp = _log_comb(avail, rk - 1.0) - _log_comb(nn, rk)
    prob = np.where(avail >= rk - 1.0, np.exp(logp), 0.0)
    out[seg] = np.bincount(owner, weights=prob / (s[owner] + t + 1.0), minlength=len(s))
    return out


def _success(segments, m):
    v = _view(segments, m)
    groups = tie_groups(v)
    r = _group_sum(groups, _relevant_hits(v, m))
    mm = _inside(groups, m.cutoff).astype(np.float64)
    use = (r > 0) & (mm > 0)  # other groups leave "no relevant document inside" certain
    g_seg, r, mm, n = groups.seg[use], r[use], mm[use], groups.size[use].astype(np.float64)
    impossible = mm > n - r  # some relevant document is necessarily inside
    log_none = np.where(impossible, 0.0, _log_comb(np.maximum(n - r, mm), mm) - _log_comb(n, mm))
    total = seg_sum(g_seg, log_none, v.n_seg)
    forced = seg_sum(g_seg, impossible.astype(np.float64), v.n_seg) > 0
    return np.where(forced, 1.0, 1.0 - np.exp(total))


def _earlier(groups: Groups, per_group: np.ndarray) -> np.ndarray:
    """Σ of ``per_group`` over the earlier groups of the same segment, per group."""
    if len(per_group) == 0:
        return per_group
    total = np.cumsum(per_group) - per_group
    first = np.r_[True, groups.seg[1:] != groups.seg[:-1]]
    # the index of each group's segment's first group (values may be negative: no running max)
    lead = np.maximum.accumulate(np.where(first, np.arange(len(first)), 0))
    return total - total[lead]


def _mean_over_run(f_cum: np.ndarray, lo: np.ndarray, width: np.ndarray) -> np.ndarray:
    """(1/(w+1))·Σ_{u=0}^{w} f(lo + u) per group, from f's cumulative sums ``f_cum``
    (f_cum[x] = Σ_{y<x} f(y))."""
    return (f_cum[lo + width + 1] - f_cum[lo]) / (width + 1.0)


def _bpref(segments, m):
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
    r = _group_sum(groups, (v.hit_label >= rel).astype(np.float64))
    b = _group_sum(groups, (judged & ~(v.hit_label >= rel)).astype(np.float64))
    C = _earlier(groups, b)
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


def _bin_g(segments, m):
    """E[binG]: a relevant document of group g (start s, r relevant of n, c relevant above g)
    has s − c + U non-relevant documents above it, U uniform on 0..n − r, so its expected
    term is the mean of 1/log2(2 + x) over x = s − c .. s − c + n − r."""
    v, rel = _view(segments, m), m.get("rel")
    groups = tie_groups(v)
    r = _group_sum(groups, (v.hit_label >= rel).astype(np.float64))
    has = r > 0
    lo = (groups.start - _earlier(groups, r)).astype(np.int64)[has]
    width = (groups.size - r).astype(np.int64)[has]
    top = int((lo + width).max()) + 2 if len(lo) else 1
    f_cum = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(2.0 + np.arange(top)))])
    term = r[has] * _mean_over_run(f_cum, lo, width)
    return _safe_div(seg_sum(groups.seg[has], term, v.n_seg), _R(v, rel))


def _iprec(segments, m):
    from pdireval.measures.tie_maximum import iprec  # the maximum's closed form

    return iprec(segments, m)


def _eleven_point(segments, m):
    from pdireval.measures.tie_maximum import eleven_point

    return eleven_point(segments, m)


#: measure name -> closed-form tie-aware kernel
TIE_AWARE = {
    "P": _p, "R": _r, "NumRelRet": _num_rel_ret, "Rprec": _rprec, "Judged": _judged,
    "DCG": _dcg, "nDCG": _ndcg, "RBP": _rbp, "RBPResidual": _rbp_residual,
    "SP": _sp, "AP": _ap, "RR": _rr, "Success": _success, "Bpref": _bpref, "binG": _bin_g,
    "IPrec": _iprec, "11pt_avg": _eleven_point,
}
# Q, nDCG(gains=...), ndcg_p, Rndcg, ndcg_rel, ERR, nERR, GAP, relative_P, F, Rprec_mult (it
# reads the helpers above)
from pdireval.measures.tie_closed_forms import KERNELS as _MORE_CLOSED_FORMS  # noqa: E402

TIE_AWARE.update(_MORE_CLOSED_FORMS)
# INSQ, SDCG (C/W/L measures with gain-free weights)
from pdireval.measures.tie_closed_forms_cwl import KERNELS as _CWL_CLOSED_FORMS  # noqa: E402

TIE_AWARE.update(_CWL_CLOSED_FORMS)
# the diversity measures of ndeval
from pdireval.measures.tie_closed_forms_diversity import KERNELS as _DIVERSITY_CLOSED_FORMS  # noqa: E402

TIE_AWARE.update(_DIVERSITY_CLOSED_FORMS)
# Accuracy and Compat (measures over pairs or overlaps)
from pdireval.measures.tie_closed_forms_pairs import KERNELS as _PAIR_CLOSED_FORMS  # noqa: E402

TIE_AWARE.update(_PAIR_CLOSED_FORMS)

#: measures whose value does not depend on the order of the list at all
INVARIANT = (
    "NumRet", "NumRel", "NumQ", "SetP", "SetR", "SetF", "SetAP", "SetRelP", "NumNonRelJudgedRet", "utility",
)
#: separable measures (a sum over documents of a term of the document, its position and an
#: order-free summary of the documents above it): exact per-group enumeration
GROUPWISE = (
    "Bpref", "infAP", "ERR", "nERR", "GAP", "G", "Rndcg", "Q", "F", "relative_P", "Rprec_mult",
    "SDCG", "INSQ", "alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "AP_IA",
    "StRecall", "nDCG", "ndcg_p",
)
#: every other measure: exact enumeration of the joint orderings of a list's groups
JOINT = (
    "IPrec", "11pt_avg", "gm_map", "gm_bpref", "RIC", "INST", "BPM", "NERR8", "NERR9",
    "NERR10", "NERR11", "ndcg_rel",
)
#: measures that read more than a document's label (its subtopics): every judged document
#: is its own type when arrangements are enumerated
BY_DOC = ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "AP_IA", "StRecall")
#: groupwise measures whose normalisers read the whole list (its relevant count, its end)
_READS_WHOLE_LIST = ("Rndcg",)
#: closed forms that do not cover a cut-off (which may fall inside a group): groupwise then
_CLOSED_WITHOUT_CUTOFF = ("Bpref",)
#: closed forms that do not cover trec_eval's gain levels (gains=): groupwise then
_CLOSED_WITHOUT_GAINS = ()
#: measures that are order-free without a cut-off, separable with one
_INVARIANT_WITHOUT_CUTOFF = ("F",)
#: measures separable without a cut-off (the normalisers then do not depend on the order)
#: and handled jointly with one
_JOINT_WITH_CUTOFF = ()


#: measures that only tell relevant (label >= rel) from non-relevant documents, judged or not
_BINARY = ("IPrec", "11pt_avg", "gm_map", "F", "relative_P", "Rprec_mult")
#: the C/W/L measures of cwl_eval: documents with equal gains are alike
_CWL = ("INST", "INSQ", "BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11")


def _reading(segments, m):
    """Which documents a measure cannot tell apart, for the enumeration of arrangements: the
    raw label by default; relevant or not for the binary measures (on the whole list), the
    gain for the C/W/L measures. Fewer types, fewer
    arrangements: a group without a relevant document has one for a binary measure."""
    labels = segments.hit_label
    if m.name in _BINARY and not m.get("judged_only", False):
        negatives = m.get("negatives", "unjudged")
        return ("binary", m.get("rel"), negatives), (read_negatives(labels, negatives) >= m.get("rel")).astype(np.float64)
    if m.name in _CWL:
        from pdireval.measures.cwl import _max_rel
        from pdireval.measures.view import view_of

        lo = float(m.get("min_rel"))
        hi = _max_rel(view_of(segments, negatives="keep"), m, lo)
        lab = np.where(np.isnan(labels), lo, np.maximum(labels, 0.0))
        return ("cwl", lo, hi), np.clip(lab, lo, max(hi, lo))
    return "label"


def method_of(m) -> str:
    """How ``ties="expected"`` computes ``m``: ``closed`` (a closed form of this module),
    ``invariant`` (the order does not matter: the default value), ``groupwise`` or ``joint``
    (:mod:`pdireval.measures.tie_orderings`)."""
    name = m.name
    uncovered = (name in _CLOSED_WITHOUT_CUTOFF and m.cutoff is not None) or (
        name in _CLOSED_WITHOUT_GAINS and m.get("gains", None) is not None
    )
    if name in INVARIANT or (name in _INVARIANT_WITHOUT_CUTOFF and m.cutoff is None):
        return "invariant"
    if name in TIE_AWARE and not uncovered:
        return "closed"
    if name in _JOINT_WITH_CUTOFF and m.cutoff is not None:
        return "joint"
    return "groupwise" if name in GROUPWISE else "joint"


def expected(segments, m) -> np.ndarray:
    """The tie-aware value of ``m`` per segment (``ties="expected"``)."""
    if m.get("bounds", "max") != "max":
        raise MeasureError(f"{m}: ties='expected' does not combine with bounds= (give one of them).")
    definition = m.definition
    plain = definition.extra["tie_plain_kernel"]
    method = method_of(m)
    if method == "closed":
        value = TIE_AWARE[m.name](segments, m)
        if value is not None:  # None: the closed form does not cover this case
            return value
        method = "groupwise" if m.name in GROUPWISE else "joint"
    if method == "invariant":
        return plain(segments, m)
    from pdireval.measures.tie_orderings import expected_by_orderings

    by = "doc" if (m.name in BY_DOC or definition.extra.get("user")) else _reading(segments, m)
    # a group's copies may stop after its last hit unless a normaliser reads the list below it
    truncate = m.name not in _READS_WHOLE_LIST and not m.get("judged_only", False)
    # an integer cut-off k: the measure reads the top k only, groups starting below k stay put
    # (not on condensed lists, whose positions are not the run's)
    depth = m.cutoff if definition.cutoff != "real" and not m.get("judged_only", False) else None
    return expected_by_orderings(plain, segments, m, joint=method == "joint", by=by, truncate=truncate, depth=depth)


def describe(name: str) -> str:
    """How ``ties="expected"`` computes the measure ``name``, in words (docs and docstrings)."""
    enumeration = {"groupwise": "enumeration, group by group", "joint": "enumeration of the joint orderings"}
    if name in _INVARIANT_WITHOUT_CUTOFF:
        with_cutoff = "closed form" if name in TIE_AWARE else enumeration["groupwise"]
        return f"order-free without a cut-off (the default value); with one: {with_cutoff}"
    if name in TIE_AWARE:
        text = "closed form"
        if name in _CLOSED_WITHOUT_CUTOFF:
            with_cutoff = enumeration["joint" if name in _JOINT_WITH_CUTOFF else "groupwise"]
            text += f" (with a cut-off: {with_cutoff})"
        if name in _CLOSED_WITHOUT_GAINS:
            text += " (with gains=: enumeration, group by group)"
        if name in ("NERR8", "NERR9", "NERR10", "NERR11"):
            text += (" when a list's value moves with the slot of its first full gain only (otherwise: "
                     "enumeration of the joint orderings)")
        if name in ("INST", "BPM"):
            text = ("every placement of the positive gains, when each tie group that can move holds "
                    "one and a list has at most 5040 placements (otherwise: enumeration of the joint orderings)")
        if name == "ndcg_rel":
            text += " (with a negative gain: enumeration of the joint orderings)"
        if name in ("ERR", "nERR"):
            text += " (a group with more than 300 documents that can stop the user: enumeration, group by group)"
        if name == "infAP":
            text += " (past 5,000,000 terms in a call: enumeration, group by group)"
        if name in ("IPrec", "11pt_avg"):
            text = ("exact distribution of the maximum over independent groups (on condensed "
                    "lists, judged_only=true: enumeration of the joint orderings)")
        return text
    if name in INVARIANT:
        return "order-free: the default value"
    if name in _JOINT_WITH_CUTOFF:
        return "enumeration, group by group (with a cut-off: of the joint orderings)"
    return enumeration["groupwise" if name in GROUPWISE else "joint"]


def _wrap(kernel, name: str):
    def tie_kernel(segments, m):
        if m.get("ties", "break") == "expected":
            return expected(segments, m)
        return kernel(segments, m)

    tie_kernel.__doc__ = (kernel.__doc__ or "").rstrip() + (
        "\n\nWith ties=expected: the expectation over all orderings of tied documents "
        f"(McSherry & Najork 2008), by {describe(name)} (see pdireval.measures.tie_aware)."
    )
    tie_kernel.__name__ = getattr(kernel, "__name__", "kernel")
    return tie_kernel


def install(names=None) -> None:
    """Declare ``ties=`` on the measures ``names`` (default: every registered measure) and
    route ``ties="expected"`` to their tie-aware computation (called on import, after every
    measure module has registered its measures)."""
    names = [d.name for d in REGISTRY.values()] if names is None else names
    for name in names:
        definition = REGISTRY[name.lower()]
        if "tie_plain_kernel" in definition.extra:
            continue
        add_params(definition.name, TIES_PARAM)
        definition.extra["tie_plain_kernel"] = definition.kernel
        definition.kernel = _wrap(definition.kernel, definition.name)
