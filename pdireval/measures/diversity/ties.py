"""Closed forms for ``ties="expected"`` of the intent-aware (diversity) measures of ndeval:
alpha_DCG, alpha_nDCG, ERR_IA, nERR_IA, NRBP, nNRBP, P_IA, AP_IA and StRecall (McSherry &
Najork 2008).

:mod:`pdireval.measures.ties.groups` dispatches ``ties="expected"``; these kernels are registered
in its ``TIE_AWARE`` table. Every one of these measures is a sum over subtopics j (then a
normaliser that no ordering changes: A, R_j, k, the greedy ideal) of a sum over the documents
relevant to j, so its expectation is a sum over *units* u = (tie group g, subtopic j). Notation
(:mod:`pdireval.measures.diversity.kernels`; 0-based positions): g occupies the slots s..s+n−1 of
its
list, m = min(n, max(k − s, 0)) of them inside the cut-off k (m = n without one); a of its
documents are relevant to j, and C documents relevant to j lie in the groups above g. In a
uniformly random ordering of g the a documents relevant to j take a uniformly random a-subset
of its n slots; given that one of them is at slot t, the number H_t of the other a − 1 above it
is hypergeometric: a − 1 successes among n − 1 slots, t of which are drawn (the slots above t),
P(H_t = i) = C(a−1, i)·C(n−a, t−i)/C(n−1, t).

* **Novelty-discounted sums** (alpha_DCG@k, alpha_nDCG@k, ERR_IA@k, nERR_IA@k with
  w(p) = 1/log2(p + 2) or 1/(p + 1) for p < k, NRBP and nNRBP with w(p) = β^p): the measure is
  Σ_{i,j} rel_ij·x^{c_ij}·w(p_i), x = 1 − α (Clarke et al. 2008; Clarke, Kolla & Vechtomova
  2009). A document of u at slot t has c = C + H_t, so
  E_u = x^C·(a/n)·Σ_{t<m} w(s + t)·E[x^{H_t}], E[x^{H_t}] = Σ_i x^i·P(H_t = i).
  With a = 1 (the common case) E[x^{H_t}] = 1 and E_u = x^C·(1/n)·Σ_{t<m} w(s + t), read off a
  cumulative sum of w; units with a >= 2 are expanded over their (t, i) pairs (Σ_u m·a terms,
  fixed by the group sizes, not by the number of orderings). Exact.
* **P_IA@k** (Agrawal et al. 2009): the number of (document, subtopic) pairs in the top k,
  E = Σ_u a·m/n (linear).
* **StRecall@k** (Zhai, Cohen & Lafferty 2003): subtopic j is missed by the top k when no unit
  of j puts one of its a documents in its m slots inside k; the groups are independent, so
  E[covered_j] = 1 − Π_u C(n − a, m)/C(n, m) (0 when m > n − a).
* **AP_IA** (Agrawal et al. 2009, ndeval's MAP-IA): (1/A)·Σ_j SP_j/R_j, SP_j =
  Σ_{i: rel_ij}(c_ij + 1)/(p_i + 1), AP's sum with relevance to j; as for AP
  (:mod:`pdireval.measures.ties.groups`), E[H_t] = (a − 1)·t/(n − 1), so
  E_u = (a/n)·Σ_{t<n} (C + 1 + (a − 1)·t/(n − 1))/(s + t + 1), in harmonic numbers.

The binomial coefficients are read off one table of log-factorials (lgamma), so a probability
is exact to a few ulps; every formula is tested against the mean over every ordering
(tests/measures/test_tie_closed_forms_diversity.py).

References
----------
McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
efficiently in the presence of tied scores. ECIR 2008, 414–421.
Clarke, C. L. A., Kolla, M., Cormack, G. V., Vechtomova, O., Ashkan, A., Büttcher, S. &
MacKinnon, I. (2008). Novelty and diversity in information retrieval evaluation. SIGIR 2008.
Clarke, C. L. A., Kolla, M. & Vechtomova, O. (2009). An effectiveness measure for ambiguous
and underspecified queries. ICTIR 2009.
Agrawal, R., Gollapudi, S., Halverson, A. & Ieong, S. (2009). Diversifying search results.
WSDM 2009.
Zhai, C., Cohen, W. W. & Lafferty, J. (2003). Beyond independent relevance: methods and
evaluation metrics for subtopic retrieval. SIGIR 2003.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdireval.measures.diversity import kernels as diversity
from pdireval.measures.ties.groups import harmonic_sums, tie_groups
from pdireval.measures.view import View, seg_sum, view_of

__all__ = [
    "alpha_dcg",
    "alpha_ndcg",
    "err_ia",
    "nerr_ia",
    "nrbp",
    "nnrbp",
    "p_ia",
    "st_recall",
    "ap_ia",
]

#: (unit, slot, i) terms expanded at once for the units with a >= 2 (memory bound)
#: default of ``chunk_terms=``: (unit, slot, count) terms expanded at a time
CHUNK_TERMS = 1 << 22


@dataclass
class Units:
    """(tie group, subtopic) pairs holding a document relevant to the subtopic."""

    seg: np.ndarray  # segment
    sub: np.ndarray  # subtopic code
    start: np.ndarray  # s: the group's first slot
    size: np.ndarray  # n: the group's documents
    count: np.ndarray  # a: its documents relevant to the subtopic
    above: np.ndarray  # C: documents relevant to the subtopic in the groups above


def _units(v: View, st, cutoff) -> Units:
    """The units of the view's lists; with a cut-off only the groups starting above it. A
    document without ties is a unit of its own (a = n = 1, C its c_ij), taken as it is; the
    pairs of tie groups are sorted into units."""
    groups = tie_groups(v)
    hits = None
    if cutoff is not None:  # the hits of the groups starting above the cut-off: list prefixes
        hits = np.flatnonzero(groups.start[groups.hit_group] < cutoff)
    pairs = diversity.subtopic_pairs(v, st, cutoff if hits is None else None, hits)
    group = groups.hit_group[pairs.hit]
    size = groups.size[group]
    tied = size > 1
    if not tied.any():
        one = np.ones(len(group), dtype=np.int64)
        return Units(pairs.seg, pairs.sub, groups.start[group], one, one, pairs.seen)
    alone, tied = np.flatnonzero(~tied), np.flatnonzero(tied)
    start_alone = groups.start[group[alone]]
    group, sub, seen = group[tied], pairs.sub[tied], pairs.seen[tied]
    key = group.astype(np.int64) * (int(sub.max()) + 1) + sub
    order = np.argsort(key, kind="stable")  # keeps the positions ascending within a unit
    key = key[order]
    new = np.empty(len(key), dtype=bool)
    new[0] = True
    np.not_equal(key[1:], key[:-1], out=new[1:])
    first = np.flatnonzero(new)
    g = group[order][first]
    one = np.ones(len(alone), dtype=np.int64)
    # the unit's first document in the default order has exactly the C earlier ones above it
    return Units(
        np.concatenate([pairs.seg[alone], groups.seg[g]]),
        np.concatenate([pairs.sub[alone], sub[order][first]]),
        np.concatenate([start_alone, groups.start[g]]),
        np.concatenate([one, groups.size[g]]),
        np.concatenate([one, np.diff(np.append(first, len(key)))]),
        np.concatenate([pairs.seen[alone], seen[order][first]]),
    )


def _slots_inside(u: Units, cutoff) -> np.ndarray:
    return u.size if cutoff is None else np.clip(cutoff - u.start, 0, u.size)


def _novelty_sum(u: Units, m: np.ndarray, x: float, weight, chunk_terms: int) -> np.ndarray:
    """E_u = x^C·(a/n)·Σ_{t<m} w(s + t)·E[x^{H_t}] per unit (see the module docstring)."""
    s, n, a = u.start, u.size, u.count
    out = np.zeros(len(s))
    if len(s) == 0:
        return out
    top = int((s + m).max())
    w = np.asarray(weight(np.arange(top, dtype=np.int64)), dtype=np.float64)
    cum = np.concatenate([[0.0], np.cumsum(w)])
    scale = np.power(x, u.above.astype(np.float64))
    single = (n == 1) & (m == 1)  # an untied document: its own weight, exactly
    mean_w = (cum[s + m] - cum[s]) / n
    mean_w[single] = w[s[single]]
    out = scale * mean_w  # exact for a = 1
    many = np.flatnonzero((a > 1) & (m > 0))
    if len(many) == 0:
        return out
    from pdireval.measures.ties.orderings import log_factorials

    lf = log_factorials(int(n[many].max()))
    terms = m[many] * a[many]  # an upper bound on each unit's (t, i) pairs
    ends = np.cumsum(terms)
    lo = 0
    while lo < len(many):  # a handful of chunks at most: bounded memory
        hi = int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + chunk_terms, side="right"))
        hi = max(hi, lo + 1)
        part = many[lo:hi]
        out[part] = scale[part] * _expanded(s[part], n[part], m[part], a[part], x, w, lf)
        lo = hi
    return out


def _expanded(s, n, m, a, x, w, lf) -> np.ndarray:
    """(a/n)·Σ_{t<m} w(s + t)·Σ_i x^i·P(H_t = i) per unit, over every (t, i) pair."""
    owner = np.repeat(np.arange(len(s)), m)  # (unit, t) pairs
    t = np.arange(len(owner)) - np.repeat(np.cumsum(m) - m, m)
    nn, aa = n[owner], a[owner]
    i_lo = np.maximum(0, t - (nn - aa))  # H_t <= a − 1, t − H_t <= n − a
    i_hi = np.minimum(t, aa - 1)
    width = i_hi - i_lo + 1
    pair = np.repeat(np.arange(len(owner)), width)  # (unit, t, i) terms
    i = i_lo[pair] + (np.arange(len(pair)) - np.repeat(np.cumsum(width) - width, width))
    tp, np_, ap = t[pair], nn[pair], aa[pair]
    log_p = (
        lf[ap - 1]
        - lf[i]
        - lf[ap - 1 - i]
        + lf[np_ - ap]
        - lf[tp - i]
        - lf[np_ - ap - tp + i]
        - lf[np_ - 1]
        + lf[tp]
        + lf[np_ - 1 - tp]
    )
    moment = np.bincount(
        pair, weights=np.exp(log_p) * np.power(x, i.astype(np.float64)), minlength=len(owner)
    )
    total = np.bincount(owner, weights=w[s[owner] + t] * moment, minlength=len(s))
    return a * total / n


def _expected_novelty(segments, m, v: View, weight, cutoff, chunk_terms: int) -> np.ndarray:
    """E[Σ_{i,j} rel_ij·(1 − α)^{c_ij}·w(p_i)] per segment (w = 0 at and past the cut-off)."""
    st = diversity.subtopic_judgments(segments, m.get("rel"))
    u = _units(v, st, cutoff)
    value = _novelty_sum(
        u, _slots_inside(u, cutoff), 1.0 - m.get("alpha", 0.5), weight, chunk_terms
    )
    return seg_sum(u.seg, value, v.n_seg)


def _discounted(discount, normalise: str):
    def kernel(segments, m, *, chunk_terms: int = CHUNK_TERMS):
        v = diversity.diversity_view(segments, m)
        value = _expected_novelty(segments, m, v, discount, m.cutoff, chunk_terms)
        return diversity.normalised(segments, m, v, value, discount, normalise)

    kernel.__doc__ = (
        f"E[{'ideal' if normalise == 'ideal' else 'ideal-ideal'}-normalised novelty sum]: "
        "Σ_u (1 − α)^C·(a/n)·Σ_{t<m} w(s + t)·E[(1 − α)^{H_t}] over the normaliser."
    )
    return kernel


def _nrbp_raw(segments, m, v, chunk_terms: int):
    beta = m.get("beta")

    def weight(p):
        return np.power(beta, p.astype(np.float64))

    return _expected_novelty(segments, m, v, weight, None, chunk_terms)


def nrbp(segments, m, *, chunk_terms: int = CHUNK_TERMS):
    """E[NRBP] = (1 − (1 − α)β)/A·Σ_u E_u with w(p) = β^p (the module docstring)."""
    v = view_of(segments, negatives="keep")
    return diversity.nrbp_normalised(segments, m, v, _nrbp_raw(segments, m, v, chunk_terms))


def nnrbp(segments, m, *, chunk_terms: int = CHUNK_TERMS):
    """E[nNRBP] = Σ_u E_u (w(p) = β^p) over the NRBP sum of the greedy ideal."""
    v = view_of(segments, negatives="keep")
    return diversity.nnrbp_normalised(segments, m, v, _nrbp_raw(segments, m, v, chunk_terms))


def p_ia(segments, m):
    """E[P_IA@k] = Σ_u a·m/n / (k·A)."""
    v, k = diversity.diversity_view(segments, m), m.cutoff
    st = diversity.subtopic_judgments(segments, m.get("rel"))
    u = _units(v, st, k)
    count = seg_sum(u.seg, u.count * _slots_inside(u, k) / u.size, v.n_seg)
    return diversity.ratio(count, k * st.actual[v.seg_query])


def st_recall(segments, m):
    """E[StRecall@k] = Σ_j (1 − Π_u C(n − a, m)/C(n, m)) / A (groups are independent)."""
    v, k = view_of(segments, negatives="keep"), m.cutoff
    st = diversity.subtopic_judgments(segments, m.get("rel"))
    u = _units(v, st, k)
    if len(u.seg) == 0:
        return np.zeros(v.n_seg)
    mm, n, a = _slots_inside(u, k), u.size, u.count
    from pdireval.measures.ties.orderings import log_factorials

    lf = log_factorials(int(n.max()))
    free = n - a
    possible = mm <= free
    rest = np.where(possible, free - mm, 0)
    log_miss = np.where(
        possible, lf[free] - lf[rest] - lf[n] + lf[n - mm], -np.inf
    )  # C(n−a, m)/C(n, m)
    # units of one (segment, subtopic): a product over them
    key = u.seg.astype(np.int64) * (int(u.sub.max()) + 1) + u.sub
    keys, inverse = np.unique(key, return_inverse=True)
    miss = np.exp(np.bincount(inverse, weights=log_miss, minlength=len(keys)))
    covered = seg_sum(keys // (int(u.sub.max()) + 1), 1.0 - miss, v.n_seg)
    return diversity.ratio(covered, st.actual[v.seg_query])


def ap_ia(segments, m):
    """E[AP_IA] = (1/A)·Σ_u (a/n)·Σ_{t<n}(C + 1 + (a − 1)·t/(n − 1))/(s + t + 1) / R_j."""
    v = diversity.diversity_view(segments, m)
    st = diversity.subtopic_judgments(segments, m.get("rel"))
    u = _units(v, st, None)
    a, n = u.count.astype(np.float64), u.size
    inv, lin = harmonic_sums(u.start, n, n)
    slope = np.where(n > 1, (a - 1.0) / np.maximum(n - 1.0, 1.0), 0.0)
    term = (a / n) * ((u.above + 1.0) * inv + slope * lin) / st.sub_count[u.sub]
    return diversity.ratio(seg_sum(u.seg, term, v.n_seg), st.actual[v.seg_query])


alpha_dcg = _discounted(diversity.log_discount, "ideal_ideal")
alpha_ndcg = _discounted(diversity.log_discount, "ideal")
err_ia = _discounted(diversity.rr_discount, "ideal_ideal")
nerr_ia = _discounted(diversity.rr_discount, "ideal")
