"""Paired significance tests on arrays, vectorised over pairs and resamples."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from pdireval.core.chunking import chunks, progress_bar
from pdireval.core.schema import MAX_ABS_VALUE
from pdireval.errors import OptionError, check_option, check_rng, group_generator
from pdireval.stats import _adapters

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pdireval.types import Alternative, RngLike

__all__ = [
    "ALTERNATIVES",
    "check_alternative",
    "one_sided_p",
    "TestResult",
    "SignTestResult",
    "signed_inf",
    "constant",
    "t_kernel",
    "sign_kernel",
    "bootstrap_kernel",
    "required_position",
    "bootstrap_counts",
    "randomization_signs",
    "randomization_kernel",
    "tukey_null",
    "tukey_p",
    "paired_t",
    "wilcoxon",
    "sign_test",
    "randomization_test",
    "bootstrap_test",
    "tukey_hsd",
    "DEFAULT_RESAMPLES",
]

#: scipy's values of ``alternative``: the sign of the mean difference a − b under H1.
ALTERNATIVES = ("two-sided", "greater", "less")

#: Default number of resamples per method (``n_resamples=None``).
DEFAULT_RESAMPLES = {"bootstrap": 1000, "randomization": 10000, "tukey": 5000}


_EPS = np.finfo(np.float64).eps


#: Relative tolerance under which two sums that are equal in exact arithmetic count as equal
#: (randomisation test and Tukey HSD compare resampled statistics with the observed one).
_TIE_RTOL = 1e-10


class TestResult(NamedTuple):
    """Result of a paired test: the statistic and the p-value (of the chosen alternative)."""

    statistic: float | np.ndarray
    p_value: float | np.ndarray


class SignTestResult(NamedTuple):
    """Result of the sign test: ``statistic`` = n_greater, counts, and the p-value."""

    statistic: int | np.ndarray
    p_value: float | np.ndarray
    n_greater: int | np.ndarray
    n_less: int | np.ndarray


def _paired(
    a: ArrayLike, b: ArrayLike, *, finite: bool = True
) -> tuple[np.ndarray, np.ndarray, bool]:
    """(a, b) as 2-D float64 arrays of the same shape (queries × pairs) and whether the input
    was 1-D (one pair: a single column).

    For 1-D input, positions where either value is NaN are dropped (the queries where both
    are defined are kept). 2-D input must be complete. Values that are not numbers are a
    TypeError; with ``finite``, infinite values and magnitudes beyond 1e100 (whose squares
    overflow float64 in the variances) an OptionError, as in a scores frame (the sign test,
    which only compares, takes them).
    """
    try:
        a = np.asarray(a, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"paired samples must be arrays of numbers ({exc})") from None
    if a.shape != b.shape:
        raise OptionError(f"paired samples must have the same shape, got {a.shape} and {b.shape}")
    if a.ndim not in (1, 2):
        raise OptionError("paired samples must be 1-D arrays (or 2-D: queries x pairs)")
    with np.errstate(invalid="ignore"):  # NaN compares False
        big = (np.abs(a) > MAX_ABS_VALUE) | (np.abs(b) > MAX_ABS_VALUE)
    if finite and big.any():
        first = np.flatnonzero(big.ravel())[0]
        raise OptionError(
            f"paired samples hold {int(big.sum())} infinite value(s) or value(s) beyond "
            f"±{MAX_ABS_VALUE:g} (e.g. the pair {a.ravel()[first]:g}, {b.ravel()[first]:g}): "
            "per-query scores are finite (their squares must not overflow); rescale them."
        )
    if a.ndim == 1:
        keep = ~(np.isnan(a) | np.isnan(b))
        return a[keep][:, None], b[keep][:, None], True
    if np.isnan(a).any() or np.isnan(b).any():
        raise OptionError("2-D paired samples must not hold NaN; drop the incomplete queries first")
    return a, b, False


def check_alternative(alternative) -> str:
    """Validate ``alternative`` (scipy's values) and return it."""
    check_option("alternative", alternative, ALTERNATIVES)
    return alternative


def one_sided_p(p_const, mean, alternative):
    """p of a pair whose differences are all equal: 1 when they are 0 (a system is never
    significantly different from itself); otherwise 0 if the sign agrees with H1, else 1."""
    if alternative == "two-sided":
        return np.where(mean == 0, 1.0, 0.0)
    agree = mean > 0 if alternative == "greater" else mean < 0
    return np.where(agree, 0.0, 1.0) if p_const is None else p_const


def _out(value, scalar):
    value = np.asarray(value)
    return value.item() if scalar else value


def signed_inf(v):
    """+inf / -inf / 0 by the sign of v (for differences that are constant across queries)."""
    return np.where(v > 0, np.inf, np.where(v < 0, -np.inf, 0.0))


def constant(d):
    """Columns of d whose values are all equal (exactly)."""
    return (d == d[:1]).all(axis=0)


def t_kernel(d, alternative="two-sided"):
    """Paired t statistic and p-value of every column of the differences d (n × P)."""
    n = d.shape[0]
    if n < 2:
        nan = np.full(d.shape[1], np.nan)
        return nan, nan.copy()
    mean = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    const = constant(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / math.sqrt(n))
    t = np.where(const, signed_inf(mean), t)
    p = _adapters.t_p(t, n - 1, alternative)
    p = np.where(const, one_sided_p(None, mean, alternative), p)
    return t, p


def sign_kernel(a, b, alternative="two-sided"):
    """Wins, losses and the exact sign-test p-value of every column pair of a and b."""
    gt = (a > b).sum(axis=0)
    lt = (a < b).sum(axis=0)
    return gt, lt, _adapters.binom_p(gt, lt, alternative)


def bootstrap_kernel(d, counts, *, confidence_level=None, alpha=None, alternative="two-sided"):
    """Sakai's (2006) studentised paired bootstrap for the columns of d.

    ``counts`` (B x n, float64): how often query t occurs in bootstrap sample b, i.e. the
    bincount of each row of the index matrix. Returns t_obs (signed), ASL, and optionally
    the percentile CI of the mean difference (one-sided for a one-sided ``alternative``) and
    Sakai's required difference. Two-sided: ASL = #{b : |t*_b| ≥ |t_obs|} / B; ``"greater"``:
    #{b : t*_b ≥ t_obs} / B; ``"less"``: #{b : t*_b ≤ t_obs} / B (signed statistics).
    """
    n = d.shape[0]
    n_res = counts.shape[0]
    p_count = d.shape[1]
    out = {}
    if n < 2:
        nan = np.full(p_count, np.nan)
        out.update(
            statistic=nan,
            p_value=nan.copy(),
            ci_low=nan.copy(),
            ci_high=nan.copy(),
            required=nan.copy(),
        )
        return out
    zbar = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    const = constant(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_signed = zbar / (sd / math.sqrt(n))
    t_signed = np.where(const, signed_inf(zbar), t_signed)
    t_obs = np.abs(t_signed)
    # Work in pairs x resamples layout so every per-pair reduction runs over contiguous memory.
    wt = np.ascontiguousarray((d - zbar).T)  # P x n, the centred differences w
    ct = np.ascontiguousarray(counts.T)  # n x B
    s1 = wt @ ct  # P x B: replicate sums of w*  (mean* = s1 / n)
    s2 = (wt * wt) @ ct  # P x B: replicate sums of squares
    ss = s1 * s1
    ss /= n
    np.subtract(s2, ss, out=ss)  # (n - 1) * var*
    # A replicate whose n sampled values are all equal has s = 0 exactly; in floating point the
    # sum-of-squares formula leaves a rounding residue of order eps * s2, which we zero out.
    s2 *= 8.0 * n * _EPS
    ss[ss <= s2] = 0.0
    del s2
    # t*_b >= t_obs  <=>  (n - 1) s1^2 >= n * ss * t_obs^2   (no division, no square root);
    # s1 = 0 means t* = 0, which reaches t_obs only when t_obs = 0.
    t2 = np.where(const, 0.0, t_obs * t_obs)
    lhs = s1 * s1
    lhs *= n - 1
    if alternative == "two-sided":
        hit = lhs >= ss * (n * t2)[:, None]
        hit &= (s1 != 0) | (t2 == 0)[:, None]
    else:
        # signed t*_b = s1·√(n − 1) / √(n·ss): ±inf for a degenerate replicate, 0 when s1 = 0
        with np.errstate(divide="ignore", invalid="ignore"):
            t_star = s1 * math.sqrt(n - 1) / np.sqrt(n * ss)
        t_star[s1 == 0] = 0.0
        obs = np.where(const, 0.0, t_signed)[:, None]
        hit = t_star >= obs if alternative == "greater" else t_star <= obs
        del t_star
    asl = hit.sum(axis=1) / n_res
    del hit
    asl = np.where(const, one_sided_p(None, zbar, alternative), asl)
    out["statistic"] = t_signed
    out["p_value"] = asl
    if alpha is not None:
        k = required_position(alpha, n_res)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_sq = lhs / (n * ss)  # t*^2: inf for a degenerate replicate with mean != 0
        t_sq[s1 == 0] = 0.0
        kth = np.partition(t_sq, n_res - k, axis=1)[:, n_res - k]
        first = np.argmax(t_sq == kth[:, None], axis=1)
        out["required"] = np.abs(s1[np.arange(p_count), first]) / n
    if confidence_level is not None:
        # Percentile interval of the replicate means z̄ + w̄*_b (numpy's "linear" quantile); the
        # order statistics come from one in-place partition of the replicate sums. One-sided
        # alternatives get scipy's one-sided interval: [q_{1−CL}, ∞) or (−∞, q_CL].
        tail = (1.0 - confidence_level) / (2.0 if alternative == "two-sided" else 1.0)
        pos = np.array([tail, 1.0 - tail]) * (n_res - 1)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, n_res - 1)
        s1.partition(np.unique(np.r_[lo, hi]), axis=1)
        frac = pos - lo
        for name, j in (("ci_low", 0), ("ci_high", 1)):
            a = s1[:, lo[j]] / n
            b = s1[:, hi[j]] / n
            out[name] = zbar + (a + frac[j] * (b - a))
        if alternative == "greater":
            out["ci_high"] = np.full(p_count, np.inf)
        elif alternative == "less":
            out["ci_low"] = np.full(p_count, -np.inf)
    return out


def required_position(alpha, n_res):
    k = math.ceil(alpha * n_res - 1e-9)
    if k < 1:
        raise OptionError(
            f"Sakai's required difference needs alpha * n_resamples >= 1 (got {alpha} * {n_res}); "
            "raise n_resamples"
        )
    return k


def bootstrap_counts(rng, n, n_res):
    """Draw the bootstrap index matrix ``rng.integers(0, n, size=(B, n))`` (one call) and turn
    it into the B x n counts matrix (float64).

    The indices are drawn as int32, which gives the int64 draw's values and leaves the
    generator in the same state (numpy draws both with its buffered 32-bit bounded
    generator when n < 2**32), and counted in row chunks of ``CHUNK_CELLS``: the peak memory
    is the counts matrix plus half its size (it was four times its size, 6 GB for 10**6
    resamples of 200 queries)."""
    idx = rng.integers(0, n, size=(n_res, n), dtype=np.int32 if n < 2**31 else np.int64)
    counts = np.empty((n_res, n), dtype=np.float64)
    for part in chunks(n_res, n):
        rows = idx[part]
        flat = rows + (np.arange(rows.shape[0], dtype=np.int64) * n)[:, None]
        counts[part] = np.bincount(flat.ravel(), minlength=rows.size).reshape(rows.shape)
    return counts


def randomization_signs(rng, n, n_res):
    """±1 sign matrix: all 2^n sign vectors when 2^n <= n_res (exact test), else B random rows."""
    if n <= 30 and 2**n <= n_res:
        bits = (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1
        return 1.0 - 2.0 * bits, True
    bits = rng.integers(0, 2, size=(n_res, n))
    return 2.0 * bits - 1.0, False


def randomization_kernel(d, signs, exact, alternative="two-sided"):
    """Mean difference and randomisation p-value of every column of d, one sign matrix."""
    obs = d.sum(axis=0)
    rep = signs @ d
    tol = _TIE_RTOL * np.abs(d).sum(axis=0)
    if alternative == "two-sided":
        count = (np.abs(rep) >= np.abs(obs) - tol).sum(axis=0)
    elif alternative == "greater":
        count = (rep >= obs - tol).sum(axis=0)
    else:
        count = (rep <= obs + tol).sum(axis=0)
    n_res = signs.shape[0]
    p = count / n_res if exact else (count + 1.0) / (n_res + 1.0)
    return d.mean(axis=0), np.minimum(p, 1.0)


def tukey_null(x, rng, n_res, progress=None):
    """HSD null distribution: max - min of system means over B row-permuted matrices."""
    n, m = x.shape
    hsd = np.empty(n_res)
    # rng.permuted on a stack of B copies consumes the stream exactly as B calls
    # rng.permuted(X, axis=1) in turn, so chunking over B keeps the documented draws.
    parts = chunks(n_res, n * m)
    for part in progress_bar(parts, desc="Tukey HSD", progress=progress):
        stack = np.broadcast_to(x, (part.stop - part.start, n, m))
        means = rng.permuted(stack, axis=2).mean(axis=1)
        hsd[part] = means.max(axis=1) - means.min(axis=1)
    return np.sort(hsd)


def tukey_p(hsd_sorted, diff, scale):
    """#{b : hsd_b >= |diff|} / B with the documented tie tolerance."""
    thr = np.abs(diff) - _TIE_RTOL * scale
    return (len(hsd_sorted) - np.searchsorted(hsd_sorted, thr, side="left")) / len(hsd_sorted)


def paired_t(a: ArrayLike, b: ArrayLike, *, alternative: Alternative = "two-sided") -> TestResult:
    r"""Student's paired t-test of a against b.

    .. math:: t = \bar z / (s_z / \sqrt n), \quad z_t = a_t - b_t, \quad
              p = 2\,P(T_{n-1} \ge |t|)

    (two-sided; ``"greater"``: P(T ≥ t), ``"less"``: P(T ≤ t)), with s_z the sample standard
    deviation (ddof = 1). Equals ``scipy.stats.ttest_rel(a, b, alternative=...)``; differences
    that are all equal give t = ±inf and p = 0 if their sign agrees with the alternative, else
    1 (all zero: t = 0, p = 1).

    Parameters
    ----------
    a, b
        Paired per-query scores: 1-D (NaN pairs dropped) or 2-D queries × pairs.
    alternative
        scipy's values: ``"two-sided"``, ``"greater"`` (mean of a − b > 0), ``"less"``.

    Returns
    -------
    TestResult
        ``statistic`` (t) and ``p_value``: floats for 1-D input, arrays for 2-D.
    """
    check_alternative(alternative)
    a, b, scalar = _paired(a, b)
    d = a - b
    t, p = t_kernel(d, alternative)
    return TestResult(
        _out(t if not scalar else t[0], scalar), _out(p if not scalar else p[0], scalar)
    )


def wilcoxon(a: ArrayLike, b: ArrayLike, *, alternative: Alternative = "two-sided") -> TestResult:
    """Wilcoxon signed-rank test of a against b, scipy's conventions.

    scipy.stats.wilcoxon with its defaults (zero differences dropped, exact null distribution up
    to 50 non-zero differences without ties, normal approximation otherwise; Wilcoxon 1945)
    and ``alternative``. All differences zero gives statistic 0 and p = 1. Yilmaz & Robertson
    (2010) compare per-query scores with it.

    Parameters
    ----------
    a, b
        Paired per-query scores: 1-D (NaN pairs dropped) or 2-D queries × pairs.
    alternative
        scipy's values: ``"two-sided"``, ``"greater"`` (a − b tends to be positive), ``"less"``.

    Returns
    -------
    TestResult
        ``statistic`` (scipy's: min(W+, W−) two-sided, W+ one-sided) and ``p_value``.
    """
    check_alternative(alternative)
    a, b, scalar = _paired(a, b)
    d = a - b
    stat, p = _adapters.wilcoxon_columns(d, alternative)
    return TestResult(
        _out(stat[0] if scalar else stat, scalar), _out(p[0] if scalar else p, scalar)
    )


def sign_test(
    a: ArrayLike, b: ArrayLike, *, alternative: Alternative = "two-sided"
) -> SignTestResult:
    r"""Exact sign test.

    a = #{t : a_t > b_t}, b = #{t : a_t < b_t}; equal cases (including inf = inf) are
    discarded. Two-sided: p = min(1, 2·P(X ≥ max(a, b))), X ~ Binomial(a + b, 1/2);
    ``"greater"``: P(X ≥ a); ``"less"``: P(X ≤ a); a + b = 0 gives 1. Equals
    ``scipy.stats.binomtest(a, a + b, alternative=...).pvalue``; the two-sided test reproduces
    every significance mark of Yilmaz & Robertson's (2010) Tables 4 and 5.

    Parameters
    ----------
    a, b
        Paired values: 1-D (NaN pairs dropped) or 2-D (columns tested separately).
    alternative
        scipy's values: ``"two-sided"``, ``"greater"`` (a wins more often), ``"less"``.

    Returns
    -------
    SignTestResult
        ``statistic`` (= ``n_greater``), ``p_value``, ``n_greater``, ``n_less``.
    """
    check_alternative(alternative)
    a, b, scalar = _paired(a, b, finite=False)
    gt, lt, p = sign_kernel(a, b, alternative)
    if scalar:
        return SignTestResult(int(gt[0]), float(p[0]), int(gt[0]), int(lt[0]))
    return SignTestResult(gt, p, gt, lt)


def randomization_test(
    a: ArrayLike,
    b: ArrayLike,
    *,
    n_resamples: int = 10000,
    rng: RngLike = None,
    alternative: Alternative = "two-sided",
) -> TestResult:
    r"""Paired (Fisher) randomisation test of the mean difference.

    Under H0 each per-query difference z_t is equally likely to have either sign. With
    2^n ≤ ``n_resamples`` all 2^n sign vectors are enumerated (exact test, p = share of them
    with |Σ s_t z_t| ≥ |Σ z_t|, identical to ``scipy.stats.permutation_test`` with
    ``permutation_type="samples"``); otherwise ``signs = 2 * rng.integers(0, 2, size=(B, n))
    - 1`` is drawn in one call and p = (1 + #{b : |Σ s_bt z_t| ≥ |Σ z_t|}) / (B + 1), the
    add-one estimate also used by ranx. One-sided: Σ s_t z_t ≥ Σ z_t (``"greater"``) or
    ≤ (``"less"``) instead of the absolute values, as scipy's ``alternative``. Sums equal up to
    a relative 1e-10 of Σ|z_t| count as equal (Fisher 1935; Smucker, Allan & Carterette 2007).

    Returns
    -------
    TestResult
        ``statistic`` (the mean difference) and ``p_value``.
    """
    check_alternative(alternative)
    a, b, scalar = _paired(a, b)
    d = a - b
    if d.shape[0] == 0:  # no query: no mean difference to test
        nan = np.full(d.shape[1], np.nan)
        return TestResult(
            _out(nan[0] if scalar else nan, scalar), _out(nan[0] if scalar else nan, scalar)
        )
    signs, exact = randomization_signs(
        group_generator(check_rng(rng)), d.shape[0], int(n_resamples)
    )
    stat, p = randomization_kernel(d, signs, exact, alternative)
    return TestResult(
        _out(stat[0] if scalar else stat, scalar), _out(p[0] if scalar else p, scalar)
    )


def bootstrap_test(
    a: ArrayLike,
    b: ArrayLike,
    *,
    n_resamples: int = 1000,
    rng: RngLike = None,
    alternative: Alternative = "two-sided",
) -> TestResult:
    r"""Sakai's (2006) studentised paired bootstrap test; the p-value is the ASL.

    z_t = a_t − b_t, t_obs = |z̄| / (s_z/√n), w_t = z_t − z̄;
    ``idx = rng.integers(0, n, size=(B, n))`` in one call; t*_b = |w̄*_b| / (s_{w*_b}/√n);
    ASL = #{b : t*_b ≥ t_obs} / B. One-sided (``"greater"`` / ``"less"``): the signed
    statistics, #{b : t*_b ≥ t_obs} / B or #{b : t*_b ≤ t_obs} / B. All z = 0 gives ASL 1;
    s_z = 0 with z̄ ≠ 0 gives 0 (or 1 when the sign disagrees with a one-sided alternative); a
    replicate whose sampled values are all equal has t* = ±∞ if its mean ≠ 0, else 0.

    Returns
    -------
    TestResult
        ``statistic`` (the signed studentised statistic z̄/(s_z/√n)) and ``p_value`` (ASL).
    """
    check_alternative(alternative)
    a, b, scalar = _paired(a, b)
    d = a - b
    n_res = int(n_resamples)
    if d.shape[0] < 2:
        nan = np.full(d.shape[1], np.nan)
        return TestResult(
            _out(nan[0] if scalar else nan, scalar), _out(nan[0] if scalar else nan, scalar)
        )
    counts = bootstrap_counts(group_generator(check_rng(rng)), d.shape[0], n_res)
    res = bootstrap_kernel(d, counts, alternative=alternative)
    s, p = res["statistic"], res["p_value"]
    return TestResult(_out(s[0] if scalar else s, scalar), _out(p[0] if scalar else p, scalar))


def tukey_hsd(matrix: ArrayLike, *, n_resamples: int = 5000, rng: RngLike = None) -> np.ndarray:
    r"""Randomised Tukey HSD p-values for every pair of columns.

    For b = 1..B, X_b = ``rng.permuted(X, axis=1)`` (each query's row shuffled independently;
    drawn in chunks of stacked copies, which consumes the stream exactly as B successive
    calls); hsd_b = max_s mean_t X_b − min_s mean_t X_b;
    p(i, j) = #{b : hsd_b ≥ |x̄_i − x̄_j|} / B (Carterette 2012; Sakai 2012). Controls the
    family-wise error over all pairs. Two-sided only: the range of the means has no side, so
    there is no ``alternative``.

    Parameters
    ----------
    matrix
        Queries × systems array (complete).

    Returns
    -------
    ndarray
        Systems × systems matrix of p-values (diagonal 1).
    """
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim != 2 or np.isnan(x).any():
        raise OptionError("tukey_hsd needs a complete 2-D queries x systems matrix")
    hsd = tukey_null(x, group_generator(check_rng(rng)), int(n_resamples))
    means = x.mean(axis=0)
    diff = means[:, None] - means[None, :]
    scale = np.abs(x).mean(axis=0)
    return tukey_p(hsd, diff, scale[:, None] + scale[None, :])
