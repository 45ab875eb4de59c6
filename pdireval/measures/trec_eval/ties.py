"""Closed forms of ``ties="expected"`` for trec_eval's measures (see
:mod:`pdireval.measures.ties.groups` for the notation)."""

from __future__ import annotations

import numpy as np

from pdireval.measures.standard.kernels import _R, _safe_div, _view
from pdireval.measures.ties.groups import earlier_sum, group_sum, mean_over_run, tie_groups
from pdireval.measures.view import seg_sum


def bin_g(segments, m):
    """E[binG]: a relevant document of group g (start s, r relevant of n, c relevant above g)
    has s − c + U non-relevant documents above it, U uniform on 0..n − r, so its expected
    term is the mean of 1/log2(2 + x) over x = s − c .. s − c + n − r."""
    v, rel = _view(segments, m), m.get("rel")
    groups = tie_groups(v)
    r = group_sum(groups, (v.hit_label >= rel).astype(np.float64))
    has = r > 0
    lo = (groups.start - earlier_sum(groups, r)).astype(np.int64)[has]
    width = (groups.size - r).astype(np.int64)[has]
    top = int((lo + width).max()) + 2 if len(lo) else 1
    f_cum = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(2.0 + np.arange(top)))])
    term = r[has] * mean_over_run(f_cum, lo, width)
    return _safe_div(seg_sum(groups.seg[has], term, v.n_seg), _R(v, rel))
