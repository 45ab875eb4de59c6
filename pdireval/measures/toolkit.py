"""The kernel toolkit: the small functions every kernel uses, with plain names.

A kernel ``kernel(segments, m) -> float64[n_segments]`` reads the hits of a label view
(:func:`view_for`) and sums per segment (:mod:`pdireval.measures.view`: ``seg_sum``,
``within_segment_cumsum``, ``segment_bounds``, ...). Notation: positions are 0-based (rank
i = position + 1), k the cut-off (None = the whole list), R the number of judged relevant
documents of the query (label >= ``rel``).
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.view import View, view_of

__all__ = ["view_for", "in_cutoff", "relevant", "safe_div", "num_rel", "recall_cut"]


def view_for(segments, m) -> View:
    """The label view a measure reads: its ``negatives=`` and ``judged_only=`` (defaults
    ``unjudged`` and False for a measure without them)."""
    negatives = m.get("negatives", "unjudged")
    return view_of(segments, negatives=negatives, judged_only=m.get("judged_only", False))


def in_cutoff(v: View, k: int | None) -> np.ndarray:
    """Mask of the hits inside the top k (every hit when k is None)."""
    return np.ones(len(v.hit_pos), dtype=bool) if k is None else v.hit_pos < k


def relevant(v: View, rel: float) -> np.ndarray:
    """Mask of the relevant hits (label >= rel; an unjudged NaN is not relevant)."""
    return v.hit_label >= rel  # NaN -> False


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den elementwise, 0 where den is 0."""
    out = np.zeros(len(num), dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def num_rel(v: View, rel: float) -> np.ndarray:
    """R per segment: the judged documents of its query with a label >= rel."""
    return v.num_rel(rel)[v.seg_query]


def recall_cut(fraction, R: np.ndarray, version: int = 9) -> np.ndarray:
    """trec_eval's conversion of a fraction of R to a number of documents: 9.0.8's
    (long)(x·R + 0.9); 10.0's lround(x·R) (half away from zero; x·R >= 0 here), computed
    exactly as ⌊y⌋ + [y − ⌊y⌋ >= 0.5] for y = x·R (``version=10``)."""
    if version == 10:
        y = np.multiply(fraction, R)
        whole = np.floor(y)
        return whole + (y - whole >= 0.5)
    return np.floor(fraction * R + 0.9)
