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
from scipy import special as _special  # the distributions' kernels (~0.3 s to import)

__all__ = [
    "f_ppf",
    "t_sf",
    "t_ppf",
    "binom_two_sided",
    "binom_p",
    "t_p",
    "wilcoxon_columns",
    "hedges_g_paired",
    "bayes_factor_t",
    "kendalltau_b",
    "spearman",
    "pearson",
    "norm_ppf",
    "norm_cdf",
    "power_ttest_paired",
    "n_ttest_paired",
    "power_anova",
    "n_anova",
    "power_rm_anova",
    "n_rm_anova",
]


class _LazyStats:
    """scipy.stats, imported on first use (about 1 s of CPU; t, F and normal quantiles and
    tails come from scipy.special, which scipy.stats itself calls for them)."""

    def __getattr__(self, name):
        from scipy import stats

        return getattr(stats, name)


_stats = _LazyStats()


@contextmanager
def _scoped():
    """Silence numerical warnings of the wrapped call only (inputs are pre-checked)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        with np.errstate(all="ignore"):
            yield


def t_sf(t, df):
    """Survival function of Student's t distribution, float64: ``scipy.special.stdtr(df, -t)``,
    the kernel of scipy.stats.t.sf (equal values, without importing scipy.stats)."""
    with _scoped():
        t, df = np.broadcast_arrays(
            np.asarray(t, dtype=np.float64), np.asarray(df, dtype=np.float64)
        )
        out = np.asarray(_special.stdtr(df, -t), dtype=np.float64)
        return np.where(df > 0, out, np.nan)


def t_ppf(q, df):
    """Quantile function of Student's t distribution, float64: ``scipy.special.stdtrit``, the
    kernel of scipy.stats.t.ppf (equal values; q = 0 and 1 give -inf and inf as scipy.stats)."""
    with _scoped():
        q, df = np.broadcast_arrays(
            np.asarray(q, dtype=np.float64), np.asarray(df, dtype=np.float64)
        )
        out = np.asarray(_special.stdtrit(df, q), dtype=np.float64)
        out = np.where(q == 0, -np.inf, np.where(q == 1, np.inf, out))
        return np.where((df > 0) & (q >= 0) & (q <= 1), out, np.nan)


def binom_two_sided(n_greater, n_less):
    """Exact two-sided sign-test p-value for counts ``a = n_greater``, ``b = n_less``.

    p = min(1, 2·P(X ≥ max(a, b))), X ~ Binomial(a + b, 1/2); a + b = 0
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


def t_p(t, df, alternative="two-sided"):
    """p-value of a t statistic with ``df`` degrees of freedom (scipy.stats.ttest_rel's).

    ``"two-sided"``: 2·P(T ≥ |t|) (capped at 1); ``"greater"``: P(T ≥ t); ``"less"``: P(T ≤ t).
    """
    t = np.asarray(t, dtype=np.float64)
    if alternative == "two-sided":
        return np.minimum(2.0 * t_sf(np.abs(t), df), 1.0)
    return t_sf(t if alternative == "greater" else -t, df)


def binom_p(n_greater, n_less, alternative="two-sided"):
    """Exact sign-test p-value for counts a = ``n_greater``, b = ``n_less``, X ~ Bin(a + b, ½).

    ``"two-sided"``: :func:`binom_two_sided`; ``"greater"``: P(X ≥ a); ``"less"``: P(X ≤ a);
    a + b = 0 gives 1. Equals ``scipy.stats.binomtest(a, a + b, alternative=...).pvalue``
    (checked in the tests), on whole arrays of counts at once.
    """
    if alternative == "two-sided":
        return binom_two_sided(n_greater, n_less)
    a = np.asarray(n_greater, dtype=np.int64)
    n = a + np.asarray(n_less, dtype=np.int64)
    with _scoped():
        p = (
            _stats.binom.sf(a - 1, n, 0.5)
            if alternative == "greater"
            else _stats.binom.cdf(a, n, 0.5)
        )
    return np.asarray(np.where(n == 0, 1.0, np.minimum(1.0, p)), dtype=np.float64)


def hedges_g_paired(a, b):
    """Hedges' g of paired columns, pingouin's ``compute_effsize(x, y, paired=True,
    eftype="hedges")``.

    g = d_av · (1 − 3 / (4·(2n) − 9)) with d_av = (ā − b̄) / √((s_a² + s_b²)/2) (Cumming 2012's
    d_av, sample variances with ddof = 1; Hedges 1981's small-sample correction with
    n_x = n_y = n), the correction of ``pingouin.convert_effsize(d, "cohen", "hedges")``
    written out (importing pingouin for one factor costs most of a second; the tests check
    the result against pingouin). Columns with s_a = s_b = 0 give ±inf by the sign of ā − b̄
    (0 when equal).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n = a.shape[0]
    diff = a.mean(axis=0) - b.mean(axis=0)
    scale = np.sqrt((a.var(axis=0, ddof=1) + b.var(axis=0, ddof=1)) / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(
            scale > 0, diff / scale, np.where(diff > 0, np.inf, np.where(diff < 0, -np.inf, 0.0))
        )
    g = d * (1.0 - 3.0 / (4.0 * (n + n) - 9.0))  # pingouin: d * (1 - 3 / (4 * (nx + ny) - 9))
    return np.asarray(g, dtype=np.float64)


def bayes_factor_t(t, n, r=0.707):
    r"""JZS Bayes factor BF10 of one-sample / paired t statistics (Rouder et al. 2009, eq. 1).

    .. math:: BF_{10} = \frac{\int_0^\infty (1 + n g r^2)^{-1/2}
              \big(1 + \frac{t^2}{(1 + n g r^2)\,\nu}\big)^{-(\nu+1)/2}
              (2\pi)^{-1/2} g^{-3/2} e^{-1/(2g)}\,dg}{(1 + t^2/\nu)^{-(\nu+1)/2}},
              \quad \nu = n - 1

    — the integral of ``pingouin.bayesfactor_ttest(t, n, paired=True, r=r)`` (two-sided,
    Cauchy prior scale r), evaluated for every t at once with ``scipy.integrate.quad_vec``
    instead of one ``quad`` per value (equal to pingouin's within its quadrature tolerance,
    checked in the tests). Non-finite t or n < 2 give NaN.
    """
    from scipy.integrate import quad_vec

    t = np.asarray(t, dtype=np.float64)
    out = np.full(t.shape, np.nan)
    ok = np.isfinite(t)
    if n < 2 or not ok.any():
        return out
    tt = t[ok]
    df = n - 1.0
    nr2 = n * r * r

    def integrand(g):
        if g == 0.0:
            return np.zeros_like(tt)
        base = 1.0 + nr2 * g
        return (
            base**-0.5
            * (1.0 + tt * tt / (base * df)) ** (-(df + 1.0) / 2.0)
            * (2.0 * np.pi) ** -0.5
            * g**-1.5
            * np.exp(-1.0 / (2.0 * g))
        )

    with _scoped():
        integral = quad_vec(integrand, 0.0, np.inf, epsabs=0.0, epsrel=1e-10)[0]
        out[ok] = integral / (1.0 + tt * tt / df) ** (-(df + 1.0) / 2.0)
    return out


def wilcoxon_columns(diff, alternative="two-sided"):
    """Wilcoxon signed-rank test of every column of ``diff`` (n × P) against zero.

    scipy.stats.wilcoxon with its defaults (``zero_method="wilcox"`` — zero differences are
    dropped — and ``method="auto"``: exact null distribution for up to 50 non-zero differences
    without ties, normal approximation otherwise) and ``alternative``, each column exactly as
    ``scipy.stats.wilcoxon`` called on that column alone decides (one call per group of columns
    alike in zeros and ties, never one decision for the whole batch). Columns whose
    differences are all zero get statistic 0 and p-value 1 (scipy returns NaN for them).

    Returns
    -------
    (statistic, p_value)
        float64 arrays of length P; the statistic is scipy's: min(W+, W−) two-sided, W+
        (the rank sum of the positive differences) one-sided.
    """
    diff = np.asarray(diff, dtype=np.float64)
    stat = np.zeros(diff.shape[1])
    p = np.ones(diff.shape[1])
    live = (diff != 0).any(axis=0)
    if not live.any():
        return stat, p
    # scipy decides between the exact distribution, a permutation test and the normal
    # approximation from zeros and ties *anywhere in the array it is given*: call it once per
    # group of columns that would each get the same decision alone (with or without zero
    # differences, with or without tied non-zero |differences|), so every column's p-value is
    # the one scipy gives that pair on its own
    zeros = (diff == 0).any(axis=0)
    magnitude = np.sort(np.abs(diff), axis=0)
    ties = ((magnitude[1:] == magnitude[:-1]) & (magnitude[1:] != 0)).any(axis=0)
    kind = zeros.astype(np.int64) * 2 + ties
    for k in np.unique(kind[live]):
        cols = np.flatnonzero(live & (kind == k))
        with _scoped():
            res = _stats.wilcoxon(diff[:, cols], axis=0, alternative=alternative)
        stat[cols] = res.statistic
        p[cols] = res.pvalue
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
        with _scoped():  # scipy.stats.f.ppf's kernel; q = 1 is inf there
            inner = (q[ok] >= 0) & (q[ok] < 1)
            out[ok] = np.where(
                inner,
                _special.fdtri(dfn[ok], dfd[ok], np.where(inner, q[ok], 0.5)),
                np.where(q[ok] == 1, np.inf, np.nan),
            )
    return out if out.ndim else float(out)  # type: ignore[return-value]  # a scalar for scalars


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
        return float(
            _pingouin().power_rm_anova(eta_squared=eta_squared, m=m, n=n, alpha=alpha, corr=0.0)
        )


def n_rm_anova(eta_squared: float, m: int, power: float, alpha: float) -> float:
    """Subjects (float root) of a repeated-measures ANOVA reaching ``power``; inf if none."""
    with _scoped():
        n = _pingouin().power_rm_anova(
            eta_squared=eta_squared, m=m, power=power, alpha=alpha, corr=0.0
        )
    return float(n) if n is not None and np.isfinite(n) else float("inf")


def norm_ppf(q):
    """Quantile of the standard normal distribution, float64: ``scipy.special.ndtri``, the
    kernel of scipy.stats.norm.ppf."""
    with _scoped():
        return np.asarray(_special.ndtri(q), dtype=np.float64)


def norm_cdf(z):
    """Distribution function of the standard normal distribution (scipy.special.ndtr), float64."""
    with _scoped():
        return np.asarray(_special.ndtr(z), dtype=np.float64)
