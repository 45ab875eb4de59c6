"""ir_measures' Accuracy: the share of (relevant, non-relevant) pairs of retrieved documents
that the ranking orders correctly."""

from __future__ import annotations

import numpy as np

from pdireval.measures.view import seg_sum, view_of, within_segment_rank

__all__ = ["accuracy"]


def accuracy(segments, m):
    """Accuracy@k (ir_measures' ``Accuracy``, MacAvaney et al. 2022): among the top
    D = min(k, L) retrieved documents (the whole list without a cut-off), with n_rel of them
    relevant (label >= ``rel``) and N = D − n_rel not (unjudged documents included),

        Accuracy = 1 − Σ_{relevant r} (non-relevant documents above r) / (N · n_rel),

    the probability that a relevant document is ranked above a non-relevant one. No
    relevant document retrieved -> 0 (ir_measures reports nothing, then 0); every retrieved
    document relevant (N = 0, where ir_measures divides by zero) -> 1: no pair is misordered.
    """
    v = view_of(segments, negatives="keep")
    k = m.cutoff
    depth = (
        v.seg_len.astype(np.float64) if k is None else np.minimum(v.seg_len, k).astype(np.float64)
    )
    relevant = v.hit_label >= m.get("rel")
    if k is not None:
        relevant &= v.hit_pos < k
    seg, pos = v.hit_seg[relevant], v.hit_pos[relevant]
    nonrel_above = pos - within_segment_rank(seg)
    n_rel = np.bincount(seg, minlength=v.n_seg).astype(np.float64)
    misordered = seg_sum(seg, nonrel_above.astype(np.float64), v.n_seg)
    n_non = depth - n_rel
    out = np.zeros(v.n_seg)
    some = n_rel > 0
    out[some] = 1.0
    pairs = some & (n_non > 0)
    out[pairs] = 1.0 - misordered[pairs] / (n_non[pairs] * n_rel[pairs])
    return out
