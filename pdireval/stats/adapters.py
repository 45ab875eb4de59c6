"""The one door to third-party statistics (scipy.stats, pingouin).

Everything pdireval takes from scipy or pingouin goes through this module, so their
conventions never leak into our results: results are plain float64 numpy arrays (never
rounded — pingouin's rounding is switched off in every call), warnings the libraries raise
for inputs we have already handled are silenced *inside* the call only (the caller's warning
filters are untouched), and degenerate inputs get pdireval's documented conventions instead
of a NaN plus a RuntimeWarning.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager

import numpy as np
from scipy import stats as _stats

__all__ = [
    "f_ppf",
    "t_sf",
    "t_ppf",
    "binom_two_sided",
    "wilcoxon_columns",
    "kendalltau_b",
    "spearman",
    "pearson",
    "norm_ppf",
    "power_ttest_paired",
    "n_ttest_paired",
    "power_anova",
    "n_anova",
    "power_rm_anova",
    "n_rm_anova",
]


@contextmanager
def _scoped():
    """Silence numerical warnings of the wrapped call only (inputs are pre-checked)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        with np.errstate(all="ignore"):
            yield


def t_sf(t, df):
    """Survival function of Student's t distribution (scipy.stats.t.sf), float64."""
    with _scoped():
        return np.asarray(_stats.t.sf(t, df), dtype=np.float64)


def t_ppf(q, df):
    """Quantile function of Student's t distribution (scipy.stats.t.ppf), float64."""
    with _scoped():
        return np.asarray(_stats.t.ppf(q, df), dtype=np.float64)


def binom_two_sided(n_greater, n_less):
    """Exact two-sided sign-test p-value for counts ``a = n_greater``, ``b = n_less``.

    p = min(1, 2·P(X ≥ max(a, b))), X ~ Binomial(a + b, 1/2) (methods-spec §8.7); a + b = 0
    gives 1. Equals ``scipy.stats.binomtest(a, a + b).pvalue`` (checked in the tests), but works
    on whole arrays of counts at once.
    """
    a = np.asarray(n_greater, dtype=np.int64)
    b = np.asarray(n_less, dtype=np.int64)
    n = a + b
    k = np.maximum(a, b)
    with _scoped():
        p = 2.0 * _stats.binom.sf(k - 1, n, 0.5)
    p = np.where(n == 0, 1.0, np.minimum(1.0, p))
    return np.asarray(p, dtype=np.float64)


def wilcoxon_columns(diff):
    """Wilcoxon signed-rank test of every column of ``diff`` (n × P) against zero.

    scipy.stats.wilcoxon with its defaults (two-sided, ``zero_method="wilcox"`` — zero
    differences are dropped — and ``method="auto"``: exact null distribution for up to 50
    non-zero differences without ties, normal approximation otherwise). Columns whose
    differences are all zero get statistic 0 and p-value 1 (scipy returns NaN for them).

    Returns
    -------
    (statistic, p_value)
        float64 arrays of length P; the statistic is scipy's min(W+, W−).
    """
    diff = np.asarray(diff, dtype=np.float64)
    stat = np.zeros(diff.shape[1])
    p = np.ones(diff.shape[1])
    live = (diff != 0).any(axis=0)
    if live.any():
        with _scoped():
            res = _stats.wilcoxon(diff[:, live], axis=0)
        stat[live] = res.statistic
        p[live] = res.pvalue
    return stat, p


def kendalltau_b(x, y):
    """Kendall's τ_b and its p-value (scipy.stats.kendalltau); NaN when undefined."""
    with _scoped():
        res = _stats.kendalltau(x, y)
    return float(res.statistic), float(res.pvalue)


def spearman(x, y):
    """Spearman's ρ and its p-value (scipy.stats.spearmanr); NaN when undefined."""
    with _scoped():
        res = _stats.spearmanr(x, y)
    return float(res.statistic), float(res.pvalue)


def pearson(x, y):
    """Pearson's r and its p-value (scipy.stats.pearsonr); NaN when undefined (constant input)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), float("nan")
    with _scoped():
        res = _stats.pearsonr(x, y)
    return float(res.statistic), float(res.pvalue)



def f_ppf(q, dfn, dfd) -> np.ndarray:
    """Quantile of the F(dfn, dfd) distribution (scipy.stats.f.ppf), float64, broadcasting.

    Non-finite or non-positive degrees of freedom give NaN instead of scipy's warnings.
    """
    q, dfn, dfd = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (q, dfn, dfd)))
    out = np.full(q.shape, np.nan)
    ok = np.isfinite(dfn) & np.isfinite(dfd) & (dfn > 0) & (dfd > 0) & np.isfinite(q)
    if ok.any():
        with _scoped():
            out[ok] = _stats.f.ppf(q[ok], dfn[ok], dfd[ok])
    return out if out.ndim else float(out)


# --------------------------------------------------------------------------- power (pingouin)


def _pingouin():
    import pingouin  # heavy: imported on first use only

    return pingouin


def power_ttest_paired(d: float, n: float, alpha: float) -> float:
    """Power of a two-sided paired t-test (pingouin ``power_ttest``, ``contrast="paired"``)."""
    with _scoped():
        return float(_pingouin().power_ttest(d=d, n=n, alpha=alpha, contrast="paired"))


def n_ttest_paired(d: float, power: float, alpha: float) -> float:
    """Sample size (float root) of a two-sided paired t-test reaching ``power``; inf if none."""
    with _scoped():
        n = _pingouin().power_ttest(d=d, power=power, alpha=alpha, contrast="paired")
    return float(n) if n is not None and np.isfinite(n) else float("inf")


def power_anova(eta_squared: float, k: int, n: float, alpha: float) -> float:
    """Power of a balanced one-way ANOVA with k groups of n (pingouin ``power_anova``)."""
    with _scoped():
        return float(_pingouin().power_anova(eta_squared=eta_squared, k=k, n=n, alpha=alpha))


def n_anova(eta_squared: float, k: int, power: float, alpha: float) -> float:
    """Group size (float root) of a one-way ANOVA reaching ``power``; inf if none."""
    with _scoped():
        n = _pingouin().power_anova(eta_squared=eta_squared, k=k, power=power, alpha=alpha)
    return float(n) if n is not None and np.isfinite(n) else float("inf")


def power_rm_anova(eta_squared: float, m: int, n: float, alpha: float) -> float:
    """Power of a one-way repeated-measures ANOVA, m conditions, n subjects, ``corr=0``
    (pingouin ``power_rm_anova``)."""
    with _scoped():
        return float(_pingouin().power_rm_anova(eta_squared=eta_squared, m=m, n=n, alpha=alpha,
                                                corr=0.0))


def n_rm_anova(eta_squared: float, m: int, power: float, alpha: float) -> float:
    """Subjects (float root) of a repeated-measures ANOVA reaching ``power``; inf if none."""
    with _scoped():
        n = _pingouin().power_rm_anova(eta_squared=eta_squared, m=m, power=power, alpha=alpha,
                                       corr=0.0)
    return float(n) if n is not None and np.isfinite(n) else float("inf")


def norm_ppf(q):
    """Quantile of the standard normal distribution (scipy.stats.norm.ppf), float64."""
    with _scoped():
        return np.asarray(_stats.norm.ppf(q), dtype=np.float64)
