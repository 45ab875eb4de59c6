"""Closed forms for ``ties="expected"`` of the measures that compare a ranking with pairs or
overlaps: ir_measures' Accuracy and Compat (McSherry & Najork 2008).

Same notation as :mod:`pdireval.measures.ties.groups`: a tie group g of a (system, query) list
occupies the 0-based positions s..s+n−1 and holds r relevant documents; c relevant documents
lie in the groups above it; m = min(n, max(k − s, 0)) of its slots are inside a cut-off k.
Each ordering of g is equally likely and the groups are ordered independently.

* **Accuracy@k** (ir_measures' ``Accuracy``, MacAvaney et al. 2022): with D = min(k, L),
  n_rel relevant documents in the top D, N = D − n_rel and M the number of misordered
  (non-relevant above relevant) pairs among them, Accuracy = 1 − M/(N·n_rel) (1 when N = 0,
  0 when n_rel = 0). A relevant document of g has s − c non-relevant documents in the groups
  above it and each of g's n − r other documents above it with probability 1/2 (the two
  orders of a pair are equally likely), so for a group wholly inside the top D it adds
  r·(s − c + (n − r)/2) to E[M] and r to n_rel, whatever the order. Without a cut-off, or when
  k falls between two groups, n_rel and N do not depend on the order and Accuracy is linear
  in M: E[Accuracy] = 1 − E[M]/(N·n_rel). When k falls strictly inside a group (at most one
  per list; then D = k), the number X of its relevant documents among its m slots inside is
  hypergeometric, P(X = x) = C(r, x)·C(n − r, m − x)/C(n, m), and given X = x the x relevant
  and m − x non-relevant documents take a uniformly random order of those slots, so
  E[M | x] = M₀ + x·(s − c) + x·(m − x)/2 (M₀ the pairs of the groups above) with n_rel = c + x
  fixed: E[Accuracy] = Σ_x P(X = x)·(1 − E[M | x]/((k − c − x)·(c + x))) (with the same two
  special cases), a finite sum over x.
* **Compat** (Clarke, Vtyurina & Smucker 2021; ir_measures' ``Compat``): RBO between the run
  and the ideal ranking most compatible with it, Σ_d F(max(r_d, q_d)) / norm (see
  :mod:`pdireval.measures.pairs.compat`), d over the retrieved relevant documents, r_d its run
  position, q_d its ideal position and F(x) = Σ_{x<=i<D} p^i/(i + 1). The normaliser does not
  depend on the order, and q_d = h_d + c_d + J_d: h_d the query's relevant documents with a
  higher label, c_d the retrieved ones with d's label in the groups above d's, J_d those of
  d's own group above d (ties of the ideal follow the run's order). So the value is linear in
  per-document terms that read only d's own group: E = Σ_d E[F(max(s + T, q₀ + J))]/norm,
  q₀ = h + c. Let a be the documents of g with d's label (a unit; all alike). T is uniform on
  0..n − 1 and, given T = t, J is hypergeometric: the t documents above d are a uniform subset
  of the n − 1 others, P(J = j | t) = C(t, j)·C(n − 1 − t, a − 1 − j)/C(n − 1, a − 1). With
  a = 1 (J = 0) the mean over t is b·F(q₀) plus a range of F's cumulative sums
  (b = clip(q₀ − s, 0, n) slots where q₀ wins); with a >= 2 the finite sum runs over the
  unit's (t, j). Not linear in the overlap indicators with a fixed ideal: the ideal moves
  with the run's order (J_d), which the joint distribution of (T, J) accounts for.

References
----------
Clarke, C. L. A., Vtyurina, A. & Smucker, M. D. (2021). Assessing top-k preferences. ACM TOIS 39(3).
MacAvaney, S., Macdonald, C. & Ounis, I. (2022). Streamlining evaluation with ir-measures.
ECIR 2022.
McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
efficiently in the presence of tied scores. ECIR 2008, 414–421.
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.ties.groups import earlier_sum, group_sum, log_comb, slots_inside, tie_groups
from pdireval.measures.view import seg_sum, segment_bounds, view_of

__all__ = [
    "accuracy",
    "compat",
]


def _accuracy_value(n_rel, n_non, misordered):
    """1 − M/(N·n_rel), 1 when N = 0 < n_rel, 0 when n_rel = 0 (accuracy.py's cases)."""
    out = (n_rel > 0).astype(np.float64)
    pairs = (n_rel > 0) & (n_non > 0)
    out[pairs] = 1.0 - misordered[pairs] / (n_non[pairs] * n_rel[pairs])
    return out


def accuracy(segments, m):
    """E[Accuracy@k] (ir_measures' Accuracy; see the module docstring): linear in the
    misordered pairs when no group straddles k, a hypergeometric sum over the relevant
    documents of the straddling group inside the top k otherwise."""
    v = view_of(segments, negatives="keep")
    k = m.cutoff
    groups = tie_groups(v)
    r = group_sum(groups, (v.hit_label >= m.get("rel")).astype(np.float64))
    c = earlier_sum(groups, r)
    s, n = groups.start.astype(np.float64), groups.size.astype(np.float64)
    inside = slots_inside(groups, k)
    whole = (inside == groups.size) & (r > 0)
    n_rel = seg_sum(groups.seg[whole], r[whole], v.n_seg)
    pairs = r * (s - c + (n - r) / 2.0)
    misordered = seg_sum(groups.seg[whole], pairs[whole], v.n_seg)
    depth = (
        v.seg_len.astype(np.float64) if k is None else np.minimum(v.seg_len, k).astype(np.float64)
    )
    out = _accuracy_value(n_rel, depth - n_rel, misordered)
    straddle = np.flatnonzero((inside > 0) & (inside < groups.size) & (r > 0))
    if len(straddle) == 0:
        return out
    # the group cut by k (one per list, the last one inside): expand x = lo..hi per group
    seg, mm = groups.seg[straddle], inside[straddle].astype(np.float64)
    rs, ns, ss, cs = r[straddle], n[straddle], s[straddle], c[straddle]
    lo = np.maximum(0.0, mm - (ns - rs)).astype(np.int64)
    hi = np.minimum(rs, mm).astype(np.int64)
    count = hi - lo + 1
    owner = np.repeat(np.arange(len(straddle)), count)
    x = (lo[owner] + np.arange(len(owner)) - np.repeat(np.cumsum(count) - count, count)).astype(
        np.float64
    )
    rr, nn, m_in, cc = rs[owner], ns[owner], mm[owner], cs[owner]
    prob = np.exp(log_comb(rr, x) + log_comb(nn - rr, m_in - x) - log_comb(nn, m_in))
    rel_x = cc + x
    mis_x = misordered[seg][owner] + x * (ss[owner] - cc) + x * (m_in - x) / 2.0
    value = _accuracy_value(rel_x, depth[seg][owner] - rel_x, mis_x)
    out[seg] = np.bincount(owner, weights=prob * value, minlength=len(straddle))
    return out


def compat(segments, m):
    """E[Compat(p, normalize)] (Clarke, Vtyurina & Smucker 2021; see the module docstring):
    Σ over the (group, label) units of a·E[F(max(s + T, q₀ + J))], in closed form for a = 1,
    a finite sum over (t, j) for a >= 2."""
    from pdireval.measures.pairs.compat import (
        higher_labelled,
        ideal_weights,
        normalised,
        same_level_above,
    )

    p, normalize = m.get("p"), m.get("normalize")
    v = view_of(segments, negatives="keep")
    R, depth, power, G = ideal_weights(v, p)
    groups = tie_groups(v)
    rel = np.flatnonzero(v.hit_label > 0)
    seg = v.hit_seg[rel]
    n_levels, code, higher = higher_labelled(v, rel)
    above = same_level_above(seg, code, n_levels, segment_bounds(seg) if len(seg) else None)
    # units (group, label): hits are in (segment, position) order, so in each unit the first
    # hit in run order has no hit of its unit above it (its count above is c)
    group = groups.hit_group[rel]
    if n_levels > 1:
        order = np.argsort(group * n_levels + code, kind="stable")
        key = (group * n_levels + code)[order]
    else:
        order, key = None, group
    new = np.ones(len(key), dtype=bool)
    new[1:] = key[1:] != key[:-1]
    starts = np.flatnonzero(new)
    a = np.diff(np.r_[starts, len(key)]).astype(np.float64)
    first = starts if order is None else order[starts]
    q0 = (higher[first] + above[first]).astype(np.int64)
    ug = group[first]
    s, n, useg = groups.start[ug], groups.size[ug], groups.seg[ug]
    # mean over t of G[max(s + t, q0)] (a = 1): b slots where q0 wins, then G's running sums
    cum = np.concatenate([[0.0], np.cumsum(G)])  # cum[x] = Σ_{y<x} G[y]
    b = np.clip(q0 - s, 0, n)
    mean_g = (b * G[np.minimum(q0, len(G) - 1)] + cum[s + n] - cum[s + b]) / n
    many = np.flatnonzero(a > 1)
    if len(many):
        mean_g[many] = _mean_g_several(G, s[many], n[many], a[many].astype(np.int64), q0[many])
    score = seg_sum(useg, a * (G[depth[useg]] - mean_g), v.n_seg)
    return normalised(score, p, normalize, R, depth, power, G)


def _mean_g_several(G, s, n, a, q0):
    """E[G[max(s + T, q0 + J)]] per unit of a >= 2 alike documents: T uniform on 0..n − 1,
    J | T = t hypergeometric (t draws from n − 1 others, a − 1 of them alike)."""
    owner = np.repeat(np.arange(len(s)), n)
    t = np.arange(len(owner)) - np.repeat(np.cumsum(n) - n, n)
    nn, aa = n[owner], a[owner]
    lo = np.maximum(0, aa - 1 - (nn - 1 - t))
    hi = np.minimum(t, aa - 1)
    count = hi - lo + 1
    row = np.repeat(np.arange(len(owner)), count)
    j = lo[row] + np.arange(len(row)) - np.repeat(np.cumsum(count) - count, count)
    tt, nr, ar = t[row].astype(np.float64), nn[row].astype(np.float64), aa[row].astype(np.float64)
    jf = j.astype(np.float64)
    prob = np.exp(
        log_comb(tt, jf) + log_comb(nr - 1.0 - tt, ar - 1.0 - jf) - log_comb(nr - 1.0, ar - 1.0)
    )
    unit = owner[row]
    x = np.maximum(s[unit] + t[row], q0[unit] + j)
    return np.bincount(unit, weights=prob * G[x], minlength=len(s)) / n
