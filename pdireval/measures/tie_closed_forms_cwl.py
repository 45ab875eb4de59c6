"""Closed forms for ``ties="expected"`` of the C/W/L measures whose weights do not depend on the
gains: INSQ and SDCG@k (McSherry & Najork 2008; Moffat et al. 2013).

:mod:`pdireval.measures.tie_aware` dispatches ``ties="expected"``; these kernels are registered
in its ``TIE_AWARE`` table. Notation as there: a tie group g of a (system, query) list occupies
the 0-based positions s..s+n−1 and its documents' cwl_eval gains (:mod:`pdireval.measures.cwl`:
``(clip(max(label, 0), min_rel, max_rel) − min_rel)/(max_rel − min_rel)``, 0 when not judged)
sum to G_g; m = min(n, max(D − s, 0)) of its slots lie inside the evaluation depth D
(cwl_eval's N = 1000 ranks, min(k, N) for SDCG@k).

* **INSQ** (Moffat, Scholer & Thomas 2012) and **SDCG@k** (Järvelin & Kekäläinen 2002, in
  cwl_eval's C/W/L form): the continuation C_i depends on the rank i (and T) only, so the
  weights W_i = P_i/Σ_{t<=D} P_t, P_i = Π_{j<i} C_j, are fixed and EU = Σ_{i<=D} W_i·g_i is
  linear in the gains. In a uniformly random ordering of g each of its documents is at each of
  its n slots with probability 1/n, so by linearity of expectation
  E[EU] = Σ_g G_g·(1/n)·Σ_{t<m} W_{s+t+1}: each weight replaced by the mean weight of the
  group's slots inside the depth (the slots past it weigh 0, as cwl_eval drops the documents
  past rank N). Exact; W_i ∝ (2T/(i + 2T − 1))² for INSQ, ∝ 1/log2(i + 1) for i <= k for SDCG.

Why not the other C/W/L measures: INST's continuation reads the gain accumulated so far
(T_i = T − G_i), NERR8-11's reads the gain at the rank (1 − g_i), BPM's depth is the rank where
the running gain reaches T; their weights, and the normaliser Σ P_t of INST and NERR8-11, are
functions of the whole arrangement, so EU is a ratio (or a stopping time) of the order and
no linear decomposition applies: they stay on the enumeration of the joint orderings
(:mod:`pdireval.measures.tie_orderings`).

References
----------
McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
efficiently in the presence of tied scores. ECIR 2008, 414–421.
Moffat, A., Scholer, F. & Thomas, P. (2012). Models and metrics: IR evaluation as a user
process. ADCS 2012.
Moffat, A., Thomas, P. & Scholer, F. (2013). Users versus models: what observation tells us
about effectiveness metrics. CIKM 2013.
Järvelin, K. & Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR techniques. ACM
TOIS 20(4).
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.cwl import CWL_DEPTH, _insq_base, _max_rel, _positive_gains
from pdireval.measures.tie_aware import tie_groups
from pdireval.measures.view import seg_sum, view_of

__all__ = ["KERNELS"]


def _fixed_weight_measure(segments, m, base: np.ndarray, depth: int) -> np.ndarray:
    """E[Σ_{i<=depth} base[i]·g_i] / Σ_{i<=depth} base[i] (1-based ranks i): Σ_g G_g times the
    mean of base over the group's slots inside the depth, over the groups holding a positive
    gain and starting inside the depth."""
    v = view_of(segments, negatives="keep")
    lo = float(m.get("min_rel"))
    hi = _max_rel(v, m, lo)
    if not lo < hi:
        _positive_gains(segments, m)  # raises the kernel's own error
    groups = tie_groups(v)
    lab = v.hit_label
    # a gain is positive exactly when the label (negative: 0, unjudged: min_rel) exceeds min_rel
    positive = lab > lo if lo >= 0 else ~np.isnan(lab)
    if len(groups.start) and groups.start.max() >= depth:  # groups starting past the depth
        positive &= groups.start[groups.hit_group] < depth
    keep = np.flatnonzero(positive)
    lab = np.minimum(np.maximum(lab[keep], 0.0), hi)
    owner = groups.hit_group[keep]
    G = np.bincount(owner, weights=(lab - lo) / (hi - lo), minlength=len(groups.seg))
    use = np.flatnonzero(G)
    s, n = groups.start[use], groups.size[use]
    mean_w = base[s + 1]  # an untied document: its own weight, exactly
    tied = np.flatnonzero(n > 1)
    if len(tied):
        st, nt = s[tied], n[tied]
        mm = np.minimum(nt, depth - st)
        cum = np.concatenate([[0.0], np.cumsum(base[1 : int((st + mm).max()) + 1])])
        mean_w[tied] = (cum[st + mm] - cum[st]) / nt
    total = float(np.sum(base[1 : depth + 1]))
    return seg_sum(groups.seg[use], G[use] * mean_w, v.n_seg) / total


def insq(segments, m):
    """E[INSQ] = Σ_g G_g·mean_{t<m} W_{s+t+1}, W_i ∝ (2T/(i + 2T − 1))² over N = 1000 ranks."""
    return _fixed_weight_measure(segments, m, _insq_base(m.get("T")), CWL_DEPTH)


def sdcg(segments, m):
    """E[SDCG@k] = Σ_g G_g·mean_{t<m} W_{s+t+1}, W_i ∝ 1/log2(i + 1) for i <= min(k, N)."""
    base = np.zeros(CWL_DEPTH + 1)
    base[1:] = 1.0 / np.log2(np.arange(1, CWL_DEPTH + 1, dtype=np.float64) + 1.0)
    return _fixed_weight_measure(segments, m, base, min(m.cutoff, CWL_DEPTH))


#: measure name -> closed-form tie-aware kernel (registered in tie_aware.TIE_AWARE)
KERNELS = {"INSQ": insq, "SDCG": sdcg}
