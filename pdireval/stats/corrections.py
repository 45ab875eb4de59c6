"""Multiple-comparison corrections of a family of p-values."""

from __future__ import annotations

import numpy as np

from pdireval.errors import check_option

__all__ = ["adjust_pvalues", "CORRECTIONS"]

CORRECTIONS = (None, "bonferroni", "holm", "bh")


def adjust_pvalues(p, method: str | None) -> np.ndarray:
    r"""Multiple-comparison adjustment of a family of p-values.

    ``"bonferroni"``: min(1, m·p). ``"holm"`` (Holm 1979): step-down, p_(i) ↦
    max_{j ≤ i} min(1, (m − j + 1)·p_(j)). ``"bh"`` (Benjamini & Hochberg 1995): step-up,
    p_(i) ↦ min_{j ≥ i} min(1, m·p_(j)/j). ``None``: unchanged. NaN p-values are left out of
    the family and stay NaN.
    """
    check_option("correction", method, CORRECTIONS)
    p = np.asarray(p, dtype=np.float64)
    out = p.copy()
    ok = ~np.isnan(p)
    q = p[ok]
    m = len(q)
    if method is None or m == 0:
        return out
    if method == "bonferroni":
        adj = np.minimum(1.0, q * m)
    else:
        order = np.argsort(q, kind="stable")
        sorted_p = q[order]
        ranks = np.arange(1, m + 1)
        if method == "holm":
            adj_sorted = np.maximum.accumulate(np.minimum(1.0, (m - ranks + 1) * sorted_p))
        else:  # bh
            adj_sorted = np.minimum.accumulate(np.minimum(1.0, m * sorted_p / ranks)[::-1])[::-1]
        adj = np.empty(m)
        adj[order] = adj_sorted
    out[ok] = adj
    return out
