"""The one door to third-party statistics (scipy.stats, pingouin), design.md §3.

Their conventions (rounding, column names, warnings, NaN policies) stop here: every function
returns plain float64 numbers or arrays in pdireval's vocabulary.
"""

from __future__ import annotations

import numpy as np


def f_ppf(q, dfn, dfd) -> np.ndarray:
    """Quantile of the F(dfn, dfd) distribution (scipy.stats.f.ppf), float64, broadcasting.

    Non-finite or non-positive degrees of freedom give NaN instead of scipy's warnings.
    """
    from scipy.stats import f

    q, dfn, dfd = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (q, dfn, dfd)))
    out = np.full(q.shape, np.nan)
    ok = np.isfinite(dfn) & np.isfinite(dfd) & (dfn > 0) & (dfd > 0) & np.isfinite(q)
    if ok.any():
        with np.errstate(all="ignore"):
            out[ok] = f.ppf(q[ok], dfn[ok], dfd[ok])
    return out if out.ndim else float(out)


def kendall_tau(x, y) -> float:
    """Kendall's τ_b between two score vectors (scipy.stats.kendalltau, no p-value).

    NaN when either vector is constant (τ undefined) or has fewer than 2 entries.
    """
    from scipy.stats import kendalltau

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    return float(kendalltau(x, y).statistic)
