r"""Confidence intervals of means, vectorised over the columns (systems) of a matrix.

Array level: numpy in, numpy out. ``x`` is a queries × systems matrix (NaN = a value the mean
skips, where a function allows it); every function returns one value per column.

* :func:`t_interval` — Student's t interval of each column's mean;
* :func:`anova_interval` — Sakai's (2014) margin of error from the two-way ANOVA without
  replication, one width for every column;
* :func:`bootstrap_interval` — query bootstrap (percentile or BCa, as
  ``scipy.stats.bootstrap``) on a shared B × n matrix of resample counts;
* :func:`column_quantiles` — a quantile per column of a sorted matrix (numpy's "linear").
"""

from __future__ import annotations

import numpy as np

from pdireval.errors import check_option
from pdireval.stats import _adapters
from pdireval.stats.means import exact_means, exact_resampled_means

__all__ = [
    "BOOTSTRAP_INTERVALS",
    "t_interval",
    "anova_interval",
    "bootstrap_interval",
    "column_quantiles",
    "degenerate_columns",
]

#: the bootstrap intervals of :func:`bootstrap_interval` (scipy's names, lower case)
BOOTSTRAP_INTERVALS = ("percentile", "bca")


def _tail(confidence_level: float) -> float:
    return (1.0 - confidence_level) / 2.0


def degenerate_columns(x: np.ndarray) -> np.ndarray:
    """Columns with fewer than two non-NaN values, or whose non-NaN values are all equal."""
    x = np.asarray(x, dtype=np.float64)
    valid = ~np.isnan(x)
    n = valid.sum(axis=0)
    with np.errstate(all="ignore"):
        hi = np.where(valid, x, -np.inf).max(axis=0, initial=-np.inf)
        lo = np.where(valid, x, np.inf).min(axis=0, initial=np.inf)
    return (n < 2) | (hi == lo)


def t_interval(mean, sd, n, confidence_level: float):
    r"""Student's t interval of a mean from its summary statistics.

    .. math:: \bar x \pm t_{1-\alpha/2;\,n-1}\, s/\sqrt n, \qquad se = s/\sqrt n

    (``scipy.stats.t.interval(confidence_level, n - 1, loc=mean, scale=se)``), elementwise
    over arrays ``mean``, ``sd`` (ddof = 1) and ``n``. Returns ``(se, low, high)``; n < 2 or
    sd = 0 gives NaN bounds (se NaN for n < 2, 0 for sd = 0).
    """
    mean = np.asarray(mean, dtype=np.float64)
    sd = np.asarray(sd, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(all="ignore"):
        se = np.where(n >= 2, sd / np.sqrt(n), np.nan)
        half = _adapters.t_ppf(1.0 - _tail(confidence_level), n - 1) * se
    ok = (n >= 2) & (sd > 0)
    return se, np.where(ok, mean - half, np.nan), np.where(ok, mean + half, np.nan)


def anova_interval(x, confidence_level: float):
    r"""Sakai's (2014) interval of every system's mean from the two-way ANOVA without replication.

    With x the complete n × m (queries × systems) matrix, residuals
    e_ts = x_ts − x̄_·s − x̄_t· + x̄ and the residual mean square
    V_E = Σ e² / ((m − 1)(n − 1)),

    .. math:: \mathrm{MOE} = t_{1-\alpha/2;\,(m-1)(n-1)} \sqrt{V_E / n}

    one width for all systems: interval x̄_·s ± MOE, se = √(V_E/n). The query effects are
    fixed, so with x_ts = μ_s + β_t + e_ts it covers μ_s + β̄, the mean on these n queries,
    not the mean over the population of queries (:func:`t_interval` covers that). Returns
    ``(mean, se, low, high)`` (arrays over systems); fewer than 2 queries or 2 systems, or
    V_E = 0, give NaN bounds.

    References
    ----------
    Sakai, T. (2014). Statistical reform in information retrieval? ACM SIGIR Forum 48(1).
    """
    x = np.asarray(x, dtype=np.float64)
    n, m = x.shape
    mean = x.mean(axis=0) if n else np.full(m, np.nan)
    nan = np.full(m, np.nan)
    if n < 2 or m < 2:
        return mean, nan, nan.copy(), nan.copy()
    resid = x - mean[None, :] - x.mean(axis=1, keepdims=True) + x.mean()
    df = (n - 1) * (m - 1)
    v_e = float((resid * resid).sum() / df)
    # a residual at rounding level of the data is an exactly additive matrix
    if v_e <= (64 * np.finfo(np.float64).eps * max(float(np.abs(x).max()), 1e-300)) ** 2:
        return mean, np.zeros(m), nan.copy(), nan.copy()
    se = np.full(m, np.sqrt(v_e / n))
    half = float(_adapters.t_ppf(1.0 - _tail(confidence_level), df)) * se
    return mean, se, mean - half, mean + half


def column_quantiles(sorted_x, n_valid, q):
    """Quantile ``q`` (scalar or one per column) of each column of ``sorted_x``.

    ``sorted_x`` is sorted along axis 0 with NaN last (``np.sort``); column j uses its first
    ``n_valid[j]`` values. Linear interpolation between order statistics (numpy's default,
    scipy's ``quantile``): position q·(k − 1). Columns with no valid value give NaN.
    """
    sorted_x = np.asarray(sorted_x, dtype=np.float64)
    b, m = sorted_x.shape
    k = np.asarray(n_valid, dtype=np.int64)
    q = np.broadcast_to(np.asarray(q, dtype=np.float64), (m,))
    pos = q * np.maximum(k - 1, 0)
    lo = np.clip(np.floor(pos).astype(np.int64), 0, max(b - 1, 0))
    hi = np.minimum(lo + 1, np.maximum(k - 1, 0))
    cols = np.arange(m)
    a = sorted_x[lo, cols]
    c = sorted_x[hi, cols]
    out = a + (pos - lo) * (c - a)
    out = np.where(pos == lo, a, out)  # exact order statistic (also avoids inf - inf)
    return np.where(k > 0, out, np.nan)


def bootstrap_interval(x, counts, confidence_level: float, interval: str = "percentile"):
    r"""Query-bootstrap interval of every column's mean, all columns from one resample matrix.

    ``counts`` (B × n, float64) says how often each query occurs in each resample (one index
    matrix ``rng.integers(0, n, size=(B, n))`` shared by every column, so the systems'
    queries are resampled together). Replicate b of column s is the mean of its resampled
    non-NaN values, θ*_bs = (C @ x₀)_bs / (C @ v)_bs (v = 1 where x is not NaN), from the
    correctly rounded sum (:func:`pdireval.stats.means.exact_resampled_means`; θ̂ from
    :func:`~pdireval.stats.means.exact_means`). Then, as
    ``scipy.stats.bootstrap`` (Efron & Tibshirani 1993):

    * ``"percentile"``: [q_{α/2}, q_{1−α/2}] of the replicates;
    * ``"bca"``: the quantiles at α₁ = Φ(ẑ₀ + (ẑ₀ + z_{α/2}) / (1 − â(ẑ₀ + z_{α/2}))) and α₂
      (z_{1−α/2}), with ẑ₀ = Φ⁻¹((#{θ* < θ̂} + #{θ* ≤ θ̂}) / 2B) and the jackknife acceleration,
      which for a mean is â = Σ d³ / (6 (Σ d²)^{3/2}), d = x − x̄.

    se is the standard deviation of the replicates (ddof = 1). Returns ``(se, low, high)``;
    columns from :func:`degenerate_columns` get NaN bounds.

    References
    ----------
    Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    """
    check_option("interval", interval, BOOTSTRAP_INTERVALS)
    x = np.asarray(x, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    valid = ~np.isnan(x)
    # exact means for replicates and the observed mean alike: BCa's ẑ₀ counts replicates
    # equal to θ̂, which then means equal sums (counts @ x / n can miss θ̂ by an ulp)
    theta = exact_resampled_means(x, counts)
    n_b = (~np.isnan(theta)).sum(axis=0)
    with np.errstate(all="ignore"):
        k = valid.sum(axis=0)
        hat = exact_means(x)
        dev = np.where(np.isnan(theta), 0.0, theta - np.nanmean(theta, axis=0))
        se = np.sqrt((dev * dev).sum(axis=0) / (n_b - 1))
    tail = _tail(confidence_level)
    srt = np.sort(theta, axis=0)
    if interval == "percentile":
        q_low = np.full(x.shape[1], tail)
        q_high = np.full(x.shape[1], 1.0 - tail)
    else:
        below = (theta < hat).sum(axis=0) + (theta <= hat).sum(axis=0)
        with np.errstate(all="ignore"):
            z0 = _adapters.norm_ppf(below / (2.0 * n_b))
            d = np.where(valid, x - hat, 0.0)
            accel = (d**3).sum(axis=0) / (6.0 * ((d * d).sum(axis=0)) ** 1.5)
            z_a = float(_adapters.norm_ppf(tail))
            num1 = z0 + z_a
            num2 = z0 - z_a
            q_low = _adapters.norm_cdf(z0 + num1 / (1.0 - accel * num1))
            q_high = _adapters.norm_cdf(z0 + num2 / (1.0 - accel * num2))
    low = column_quantiles(srt, n_b, np.nan_to_num(q_low, nan=0.0))
    high = column_quantiles(srt, n_b, np.nan_to_num(q_high, nan=1.0))
    bad = degenerate_columns(x) | (n_b < 2) | np.isnan(q_low) | np.isnan(q_high)
    se = np.where(k >= 2, se, np.nan)
    return se, np.where(bad, np.nan, low), np.where(bad, np.nan, high)
