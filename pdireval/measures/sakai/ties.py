"""Closed forms of ``ties="expected"`` for Sakai's measures: the Q-measure and nERR
(McSherry & Najork 2008).

Notation: a tie group g of a (system, query) list occupies the 0-based positions s..s+n−1,
holds r relevant documents (label >= ``rel``) with total gain G_g, and c relevant documents
and cg₀ gain lie in the groups above it; m = min(n, max(k − s, 0)) of its slots are inside a
cut-off k. In a uniformly random ordering of g each of its documents is at each of its slots
with probability 1/n, and, given that a document d is at slot t, each other document of g is
above d with probability t/(n − 1). Everything below follows from these two facts and the
linearity of expectation; every formula is exact (tested against the mean over every
ordering).

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
* **nERR** divides ERR@k's expectation (:func:`pdireval.measures.standard.ties.expected_err`)
  by the ideal's ERR@k, which no ordering changes.

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

from pdireval.measures.sakai.kernels import ideal_err, q_ideal
from pdireval.measures.standard.ties import MAX_STOPPERS, expected_err
from pdireval.measures.ties.groups import (
    exclusive_in_segment,
    groups_above,
    per_query_prefix,
    slots_inside,
)
from pdireval.measures.toolkit import num_rel, safe_div, view_for
from pdireval.measures.view import gain_values, seg_sum

__all__ = ["q_measure", "normalised_err"]


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
    v, beta, rel = view_for(segments, m), float(m.get("beta")), m.get("rel")
    ideal_cum, n_ideal, first = q_ideal(v, m)
    groups, kept = groups_above(v, m.cutoff)
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
    c, cg0 = exclusive_in_segment(seg, np.stack([r, G]))  # relevant documents and gain above
    q = v.seg_query[seg]
    nq = n_ideal[q]
    # per query, with a 0 before each query's list: cg*(q, d) = star[base + d], d <= n*
    base = first[q] + q
    flat_q = np.repeat(np.arange(v.n_queries), n_ideal)
    star_at = np.arange(len(ideal_cum)) + flat_q + 1
    star = np.zeros(len(ideal_cum) + v.n_queries)
    star[star_at] = ideal_cum

    def prefixes():  # Σ_{p<x} 1/den(p) and p/den(p) per query, at [base + x]
        rank = np.arange(len(ideal_cum)) - first[flat_q]
        den = beta * ideal_cum + rank + 1.0
        return (per_query_prefix(flat_q, star_at, x, v.n_queries) for x in (1.0 / den, rank / den))

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
    R = num_rel(v, rel)
    return safe_div(total, R if m.cutoff is None else np.minimum(R, m.cutoff))


def normalised_err(segments, m, *, max_stoppers: int = MAX_STOPPERS):
    """E[nERR@k] = E[ERR@k] / the ideal's ERR@k, which no ordering changes (Sakai & Song 2011)."""
    v = view_for(segments, m)
    value = expected_err(v, m, max_stoppers=max_stoppers)
    return None if value is None else safe_div(value, ideal_err(v, m)[v.seg_query])
