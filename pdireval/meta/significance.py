"""Paired significance tests for every pair of systems, vectorized over pairs and resamples.

Array level (importable by other modules, e.g. ``from pdireval.meta.significance import
sign_test``): :func:`paired_t`, :func:`wilcoxon`, :func:`sign_test`, :func:`randomization_test`,
:func:`bootstrap_test`, :func:`tukey_hsd`, :func:`adjust_pvalues`.

Frame level: :func:`compare` — one row per (measure, system_a, system_b).

Speed: the resampling tests draw **one** set of resamples per group (measure) and share it
by every system pair (methods-spec §8.2). The paired bootstrap then needs no per-pair
resampling at all: with C the B × n matrix of how often each topic occurs in each bootstrap
sample and W the n × P matrix of centred per-topic differences of the P pairs, the replicate
sums are ``C @ W`` and the replicate sums of squares ``C @ W**2`` — two matrix products,
chunked over pairs so that memory stays bounded. The randomisation test is likewise one
product of the ±1 sign matrix with the difference matrix.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..errors import SchemaError
from ..schema import canonical_scores, group_columns, score_matrix, scores_groups
from . import _adapters
from ._common import ParameterError, check_choice, chunks, group_rng, pair_indices, progress_bar

__all__ = [
    "TestResult",
    "SignTestResult",
    "paired_t",
    "wilcoxon",
    "sign_test",
    "randomization_test",
    "bootstrap_test",
    "tukey_hsd",
    "adjust_pvalues",
    "compare",
    "METHODS",
    "DEFAULT_RESAMPLES",
]

METHODS = ("bootstrap", "t", "wilcoxon", "sign", "randomization", "tukey")
CORRECTIONS = (None, "bonferroni", "holm", "bh")
#: Default number of resamples per method (``n_resamples=None``).
DEFAULT_RESAMPLES = {"bootstrap": 1000, "randomization": 10000, "tukey": 5000}
_EPS = np.finfo(np.float64).eps
#: Relative tolerance under which two sums that are equal in exact arithmetic count as equal
#: (randomisation test and Tukey HSD compare resampled statistics with the observed one).
_TIE_RTOL = 1e-10


class TestResult(NamedTuple):
    """Result of a paired test: the statistic and the two-sided p-value."""

    statistic: float | np.ndarray
    p_value: float | np.ndarray


class SignTestResult(NamedTuple):
    """Result of the sign test: ``statistic`` = n_greater, counts, and the two-sided p-value."""

    statistic: int | np.ndarray
    p_value: float | np.ndarray
    n_greater: int | np.ndarray
    n_less: int | np.ndarray


# ----------------------------------------------------------------------------- helpers


def _paired(a, b):
    """(a, b) as float64 arrays of the same shape, 1-D or 2-D (columns = pairs).

    For 1-D input, positions where either value is NaN are dropped (methods-spec §8.1:
    topics where both are defined). 2-D input must be complete.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ParameterError(f"paired samples must have the same shape, got {a.shape} and {b.shape}")
    if a.ndim == 1:
        keep = ~(np.isnan(a) | np.isnan(b))
        return a[keep], b[keep], True
    if a.ndim != 2:
        raise ParameterError("paired samples must be 1-D arrays (or 2-D: topics x pairs)")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ParameterError("2-D paired samples must not hold NaN; drop the incomplete topics first")
    return a, b, False


def _out(value, scalar):
    value = np.asarray(value)
    return value.item() if scalar else value


def _signed_inf(v):
    """+inf / -inf / 0 by the sign of v (for differences that are constant across topics)."""
    return np.where(v > 0, np.inf, np.where(v < 0, -np.inf, 0.0))


def _constant(d):
    """Columns of d whose values are all equal (exactly)."""
    return (d == d[:1]).all(axis=0)


# ------------------------------------------------------------------------ test kernels
# Each kernel works on D, the n x P matrix of per-topic differences of P pairs.


def _t_kernel(d):
    n = d.shape[0]
    mean = d.mean(axis=0)
    if n < 2:
        nan = np.full(d.shape[1], np.nan)
        return nan, nan.copy()
    sd = d.std(axis=0, ddof=1)
    const = _constant(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / math.sqrt(n))
    t = np.where(const, _signed_inf(mean), t)
    p = 2.0 * _adapters.t_sf(np.abs(t), n - 1)
    p = np.where(const, np.where(mean == 0, 1.0, 0.0), np.minimum(p, 1.0))
    return t, p


def _sign_kernel(a, b):
    gt = (a > b).sum(axis=0)
    lt = (a < b).sum(axis=0)
    return gt, lt, _adapters.binom_two_sided(gt, lt)


def _bootstrap_kernel(d, counts, *, confidence_level=None, alpha=None):
    """Sakai's studentised paired bootstrap (methods-spec §8.1) for the columns of d.

    ``counts`` (B x n, float64): how often topic t occurs in bootstrap sample b, i.e. the
    bincount of each row of the §8.1 index matrix. Returns t_obs (signed), ASL, and optionally
    the percentile CI of the mean difference and Sakai's required difference (§8.3).
    """
    n = d.shape[0]
    n_res = counts.shape[0]
    p_count = d.shape[1]
    out = {}
    if n < 2:
        nan = np.full(p_count, np.nan)
        out.update(statistic=nan, p_value=nan.copy(), ci_low=nan.copy(), ci_high=nan.copy(),
                   required=nan.copy())
        return out
    zbar = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    const = _constant(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_signed = zbar / (sd / math.sqrt(n))
    t_signed = np.where(const, _signed_inf(zbar), t_signed)
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
    hit = lhs >= ss * (n * t2)[:, None]
    hit &= (s1 != 0) | (t2 == 0)[:, None]
    asl = hit.sum(axis=1) / n_res
    del hit
    asl = np.where(const, np.where(zbar == 0, 1.0, 0.0), asl)
    out["statistic"] = t_signed
    out["p_value"] = asl
    if alpha is not None:
        k = _required_position(alpha, n_res)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_sq = lhs / (n * ss)  # t*^2: inf for a degenerate replicate with mean != 0
        t_sq[s1 == 0] = 0.0
        kth = np.partition(t_sq, n_res - k, axis=1)[:, n_res - k]
        first = np.argmax(t_sq == kth[:, None], axis=1)
        out["required"] = np.abs(s1[np.arange(p_count), first]) / n
    if confidence_level is not None:
        # Percentile interval of the replicate means z̄ + w̄*_b (numpy's "linear" quantile); the
        # order statistics come from one in-place partition of the replicate sums.
        tail = (1.0 - confidence_level) / 2.0
        pos = np.array([tail, 1.0 - tail]) * (n_res - 1)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, n_res - 1)
        s1.partition(np.unique(np.r_[lo, hi]), axis=1)
        frac = pos - lo
        for name, j in (("ci_low", 0), ("ci_high", 1)):
            a = s1[:, lo[j]] / n
            b = s1[:, hi[j]] / n
            out[name] = zbar + (a + frac[j] * (b - a))
    return out


def _required_position(alpha, n_res):
    k = math.ceil(alpha * n_res - 1e-9)
    if k < 1:
        raise ParameterError(
            f"Sakai's required difference needs alpha * n_resamples >= 1 (got {alpha} * {n_res}); "
            "raise n_resamples"
        )
    return k


def _bootstrap_counts(rng, n, n_res):
    """Draw the §8.1 index matrix (one call) and turn it into the B x n counts matrix."""
    idx = rng.integers(0, n, size=(n_res, n))
    flat = idx + (np.arange(n_res) * n)[:, None]
    return np.bincount(flat.ravel(), minlength=n_res * n).reshape(n_res, n).astype(np.float64)


def _randomization_signs(rng, n, n_res):
    """±1 sign matrix: all 2^n sign vectors when 2^n <= n_res (exact test), else B random rows."""
    if n <= 30 and 2**n <= n_res:
        bits = (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1
        return 1.0 - 2.0 * bits, True
    bits = rng.integers(0, 2, size=(n_res, n))
    return 2.0 * bits - 1.0, False


def _randomization_kernel(d, signs, exact):
    obs = d.sum(axis=0)
    rep = signs @ d
    tol = _TIE_RTOL * np.abs(d).sum(axis=0)
    count = (np.abs(rep) >= np.abs(obs) - tol).sum(axis=0)
    n_res = signs.shape[0]
    p = count / n_res if exact else (count + 1.0) / (n_res + 1.0)
    return d.mean(axis=0), np.minimum(p, 1.0)


def _tukey_null(x, rng, n_res, progress=None):
    """HSD null distribution: max - min of system means over B row-permuted matrices (§8.4)."""
    n, m = x.shape
    hsd = np.empty(n_res)
    # rng.permuted on a stack of B copies consumes the stream exactly as B calls
    # rng.permuted(X, axis=1) in turn, so chunking over B keeps the §8.4 draws.
    parts = chunks(n_res, n * m)
    for part in progress_bar(parts, desc="Tukey HSD", progress=progress):
        stack = np.broadcast_to(x, (part.stop - part.start, n, m))
        means = rng.permuted(stack, axis=2).mean(axis=1)
        hsd[part] = means.max(axis=1) - means.min(axis=1)
    return np.sort(hsd)


def _tukey_p(hsd_sorted, diff, scale):
    """#{b : hsd_b >= |diff|} / B with the documented tie tolerance."""
    thr = np.abs(diff) - _TIE_RTOL * scale
    return (len(hsd_sorted) - np.searchsorted(hsd_sorted, thr, side="left")) / len(hsd_sorted)


# --------------------------------------------------------------- array-level public API


def paired_t(a, b) -> TestResult:
    r"""Student's paired t-test (two-sided) of a against b.

    .. math:: t = \bar z / (s_z / \sqrt n), \quad z_t = a_t - b_t, \quad
              p = 2\,P(T_{n-1} \ge |t|)

    with s_z the sample standard deviation (ddof = 1). Equals ``scipy.stats.ttest_rel``;
    differences that are all equal give t = ±inf and p = 0 (all zero: t = 0, p = 1).

    Parameters
    ----------
    a, b
        Paired per-topic scores: 1-D (NaN pairs dropped) or 2-D topics × pairs.

    Returns
    -------
    TestResult
        ``statistic`` (t) and ``p_value``: floats for 1-D input, arrays for 2-D.
    """
    a, b, scalar = _paired(a, b)
    d = (a - b).reshape(len(a), -1)
    t, p = _t_kernel(d)
    return TestResult(_out(t if not scalar else t[0], scalar), _out(p if not scalar else p[0], scalar))


def wilcoxon(a, b) -> TestResult:
    """Wilcoxon signed-rank test (two-sided) of a against b, scipy's conventions.

    scipy.stats.wilcoxon with its defaults (zero differences dropped, exact null distribution up
    to 50 non-zero differences without ties, normal approximation otherwise; Wilcoxon 1945).
    All differences zero gives statistic 0 and p = 1. This is the test seed 004 uses for
    per-topic comparisons (methods-spec §8.7).

    Parameters
    ----------
    a, b
        Paired per-topic scores: 1-D (NaN pairs dropped) or 2-D topics × pairs.

    Returns
    -------
    TestResult
        ``statistic`` (min(W+, W−)) and ``p_value``.
    """
    a, b, scalar = _paired(a, b)
    d = (a - b).reshape(len(a), -1)
    stat, p = _adapters.wilcoxon_columns(d)
    return TestResult(_out(stat[0] if scalar else stat, scalar), _out(p[0] if scalar else p, scalar))


def sign_test(a, b) -> SignTestResult:
    r"""Exact two-sided sign test (methods-spec §8.7).

    a = #{t : a_t > b_t}, b = #{t : a_t < b_t}; equal cases (including inf = inf) are
    discarded. p = min(1, 2·P(X ≥ max(a, b))), X ~ Binomial(a + b, 1/2); a + b = 0 gives 1.
    Equals ``scipy.stats.binomtest(a, a + b).pvalue`` and reproduces every significance mark
    of seed 004's Tables 4 and 5.

    Parameters
    ----------
    a, b
        Paired values: 1-D (NaN pairs dropped) or 2-D (columns tested separately).

    Returns
    -------
    SignTestResult
        ``statistic`` (= ``n_greater``), ``p_value``, ``n_greater``, ``n_less``.
    """
    a, b, scalar = _paired(a, b)
    a2 = a.reshape(len(a), -1)
    b2 = b.reshape(len(b), -1)
    gt, lt, p = _sign_kernel(a2, b2)
    if scalar:
        return SignTestResult(int(gt[0]), float(p[0]), int(gt[0]), int(lt[0]))
    return SignTestResult(gt, p, gt, lt)


def randomization_test(a, b, *, n_resamples: int = 10000, rng=None) -> TestResult:
    r"""Paired (Fisher) randomisation test of the mean difference, two-sided.

    Under H0 each per-topic difference z_t is equally likely to have either sign. With
    2^n ≤ ``n_resamples`` all 2^n sign vectors are enumerated (exact test, p = share of them
    with |Σ s_t z_t| ≥ |Σ z_t|, identical to ``scipy.stats.permutation_test`` with
    ``permutation_type="samples"``); otherwise ``signs = 2 * rng.integers(0, 2, size=(B, n))
    - 1`` is drawn in one call and p = (1 + #{b : |Σ s_bt z_t| ≥ |Σ z_t|}) / (B + 1), the
    add-one estimate also used by ranx. Sums equal up to a relative 1e-10 of Σ|z_t| count as
    equal (Fisher 1935; Smucker, Allan & Carterette 2007).

    Returns
    -------
    TestResult
        ``statistic`` (the mean difference) and ``p_value``.
    """
    a, b, scalar = _paired(a, b)
    d = (a - b).reshape(len(a), -1)
    signs, exact = _randomization_signs(np.random.default_rng(rng), d.shape[0], int(n_resamples))
    stat, p = _randomization_kernel(d, signs, exact)
    return TestResult(_out(stat[0] if scalar else stat, scalar), _out(p[0] if scalar else p, scalar))


def bootstrap_test(a, b, *, n_resamples: int = 1000, rng=None) -> TestResult:
    r"""Sakai's (2006) studentised paired bootstrap test; the p-value is the ASL.

    Protocol of methods-spec §8.1: z_t = a_t − b_t, t_obs = |z̄| / (s_z/√n), w_t = z_t − z̄;
    ``idx = rng.integers(0, n, size=(B, n))`` in one call; t*_b = |w̄*_b| / (s_{w*_b}/√n);
    ASL = #{b : t*_b ≥ t_obs} / B. All z = 0 gives ASL 1; s_z = 0 with z̄ ≠ 0 gives 0; a
    replicate whose sampled values are all equal has t* = ∞ if its mean ≠ 0, else 0.

    Returns
    -------
    TestResult
        ``statistic`` (the signed studentised statistic z̄/(s_z/√n)) and ``p_value`` (ASL).
    """
    a, b, scalar = _paired(a, b)
    d = (a - b).reshape(len(a), -1)
    n_res = int(n_resamples)
    if d.shape[0] < 2:
        nan = np.full(d.shape[1], np.nan)
        return TestResult(_out(nan[0] if scalar else nan, scalar), _out(nan[0] if scalar else nan, scalar))
    counts = _bootstrap_counts(np.random.default_rng(rng), d.shape[0], n_res)
    res = _bootstrap_kernel(d, counts)
    s, p = res["statistic"], res["p_value"]
    return TestResult(_out(s[0] if scalar else s, scalar), _out(p[0] if scalar else p, scalar))


def tukey_hsd(matrix, *, n_resamples: int = 5000, rng=None) -> np.ndarray:
    r"""Randomised Tukey HSD p-values for every pair of columns (methods-spec §8.4).

    For b = 1..B, X_b = ``rng.permuted(X, axis=1)`` (each topic's row shuffled independently;
    drawn in chunks of stacked copies, which consumes the stream exactly as B successive
    calls); hsd_b = max_s mean_t X_b − min_s mean_t X_b;
    p(i, j) = #{b : hsd_b ≥ |x̄_i − x̄_j|} / B (Carterette 2012; Sakai 2012). Controls the
    family-wise error over all pairs.

    Parameters
    ----------
    matrix
        Topics × systems array (complete).

    Returns
    -------
    ndarray
        Systems × systems matrix of p-values (diagonal 1).
    """
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim != 2 or np.isnan(x).any():
        raise ParameterError("tukey_hsd needs a complete 2-D topics x systems matrix")
    hsd = _tukey_null(x, np.random.default_rng(rng), int(n_resamples))
    means = x.mean(axis=0)
    diff = means[:, None] - means[None, :]
    scale = np.abs(x).mean(axis=0)
    return _tukey_p(hsd, diff, scale[:, None] + scale[None, :])


def adjust_pvalues(p, method: str | None) -> np.ndarray:
    r"""Multiple-comparison adjustment of a family of p-values.

    ``"bonferroni"``: min(1, m·p). ``"holm"`` (Holm 1979): step-down, p_(i) ↦
    max_{j ≤ i} min(1, (m − j + 1)·p_(j)). ``"bh"`` (Benjamini & Hochberg 1995): step-up,
    p_(i) ↦ min_{j ≥ i} min(1, m·p_(j)/j). ``None``: unchanged. NaN p-values are left out of
    the family and stay NaN.
    """
    check_choice("correction", method, CORRECTIONS)
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


# ------------------------------------------------------------------ frame-level compare


def _resolve_resamples(method, n_resamples):
    if n_resamples is None:
        return DEFAULT_RESAMPLES.get(method, 0)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ParameterError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    return int(n_resamples)


def _baseline_index(systems, baseline, keys):
    if baseline is None:
        return None
    names = [str(s) for s in systems]
    if str(baseline) not in names:
        where = f" in the group {keys}" if keys else ""
        raise SchemaError(
            f"baseline={baseline!r} is not a system of the scores{where}; the systems are "
            f"{', '.join(names[:10])}{' ...' if len(names) > 10 else ''}. Pass one of them."
        )
    return names.index(str(baseline))


def _test_group(x, method, *, n_res, rng, baseline=None, confidence_level=0.95, alpha=None,
                progress=None):
    """Run one test on every pair of columns of the topics x systems matrix x.

    Returns (I, J, dict of per-pair arrays: mean_diff, statistic, p_value, ci_low, ci_high,
    effect_size, required [bootstrap with alpha; tukey: the HSD critical value])."""
    n, m = x.shape
    pi, pj = pair_indices(m, baseline)
    n_pairs = len(pi)
    cols = {k: np.full(n_pairs, np.nan) for k in
            ("mean_diff", "statistic", "p_value", "ci_low", "ci_high", "effect_size", "required")}
    if n_pairs == 0:
        return pi, pj, cols
    counts = signs = hsd = None
    exact = False
    if method == "bootstrap" and n >= 2:
        counts = _bootstrap_counts(rng, n, n_res)
    elif method == "randomization":
        signs, exact = _randomization_signs(rng, n, n_res)
    elif method == "tukey":
        hsd = _tukey_null(x, rng, n_res, progress=progress)
    width = max(n, counts.shape[0] if counts is not None else 0, signs.shape[0] if signs is not None else 0)
    parts = chunks(n_pairs, 3 * width)
    tail = (1.0 - confidence_level) / 2.0
    for part in progress_bar(parts, desc=f"{method} pairs", progress=progress if len(parts) > 1 else False):
        a = x[:, pi[part]]
        b = x[:, pj[part]]
        d = a - b
        mean = d.mean(axis=0)
        cols["mean_diff"][part] = mean
        if n >= 2:
            sd = d.std(axis=0, ddof=1)
            const = _constant(d)
            with np.errstate(divide="ignore", invalid="ignore"):
                cols["effect_size"][part] = np.where(
                    const, _signed_inf(mean), mean / sd
                )
                half = _adapters.t_ppf(1.0 - tail, n - 1) * sd / math.sqrt(n)
            cols["ci_low"][part] = mean - half
            cols["ci_high"][part] = mean + half
        if method == "t":
            cols["statistic"][part], cols["p_value"][part] = _t_kernel(d)
        elif method == "wilcoxon":
            cols["statistic"][part], cols["p_value"][part] = _adapters.wilcoxon_columns(d)
        elif method == "sign":
            gt, _lt, p = _sign_kernel(a, b)
            cols["statistic"][part], cols["p_value"][part] = gt, p
        elif method == "randomization":
            cols["statistic"][part], cols["p_value"][part] = _randomization_kernel(d, signs, exact)
        elif method == "bootstrap":
            if counts is None:
                continue
            res = _bootstrap_kernel(d, counts, confidence_level=confidence_level, alpha=alpha)
            cols["statistic"][part] = res["statistic"]
            cols["p_value"][part] = res["p_value"]
            cols["ci_low"][part], cols["ci_high"][part] = res["ci_low"], res["ci_high"]
            if alpha is not None:
                cols["required"][part] = res["required"]
        elif method == "tukey":
            scale = np.abs(a).mean(axis=0) + np.abs(b).mean(axis=0)
            cols["statistic"][part] = np.abs(mean)
            cols["p_value"][part] = _tukey_p(hsd, mean, scale)
    if method == "tukey" and alpha is not None:
        # The HSD critical value: the smallest |difference| declared significant at alpha.
        k = _required_position(alpha, n_res)
        cols["required"][:] = hsd[n_res - k]
    return pi, pj, cols


def _check_common(method, confidence_level):
    check_choice("method", method, METHODS)
    if not (isinstance(confidence_level, (float, int)) and 0 < confidence_level < 1):
        raise ParameterError(f"confidence_level must be in (0, 1), got {confidence_level!r}")


def _iter_tests(frame, method, *, n_resamples, rng, baseline=None, confidence_level=0.95,
                alpha=None, progress=None):
    """Yield (keys, systems, n_queries, means, I, J, cols) for every group of a scores frame."""
    n_res = _resolve_resamples(method, n_resamples)
    make_rng = group_rng(rng)
    groups = list(scores_groups(frame))
    for keys, group in progress_bar(groups, desc="groups", progress=progress if len(groups) > 1 else False):
        matrix = score_matrix(group)
        systems = list(matrix.columns)
        x = matrix.to_numpy(dtype=np.float64)
        base = _baseline_index(systems, baseline, keys)
        pi, pj, cols = _test_group(
            x, method, n_res=n_res, rng=make_rng(), baseline=base,
            confidence_level=confidence_level, alpha=alpha, progress=progress,
        )
        yield keys, systems, x.shape[0], x.mean(axis=0), pi, pj, cols


def compare(
    scores: pd.DataFrame,
    *,
    method: str = "bootstrap",
    n_resamples: int | None = None,
    rng=None,
    correction: str | None = None,
    baseline=None,
    family: str = "group",
    confidence_level: float = 0.95,
    progress: bool | None = None,
) -> pd.DataFrame:
    r"""Paired significance test of every pair of systems, per measure (and grouping key).

    Systems are aligned on ``query`` (a complete query × system matrix per group is required;
    :func:`pdireval.schema.score_matrix` says how to fix a gap). Every pair (a, b) with a
    before b in sorted system order is tested — or, with ``baseline=``, every other system
    (``system_a``) against the baseline (``system_b``). Per-topic differences are
    z_t = a_t − b_t.

    Methods (all two-sided):

    * ``"bootstrap"`` (default) — Sakai's (2006) studentised paired bootstrap test; the
      p-value is the ASL of methods-spec §8.1. The index matrix
      ``rng.integers(0, n, size=(B, n))`` is drawn once per group and shared by all pairs
      (§8.2), so with ``rng=<int>`` every p-value is the one any implementation of §8.1
      with that seed gets. Default B = 1000.
    * ``"t"`` — Student's paired t-test, t = z̄ / (s_z/√n), n − 1 degrees of freedom.
    * ``"wilcoxon"`` — Wilcoxon signed-rank test (scipy's defaults: zero differences dropped).
    * ``"sign"`` — exact sign test (methods-spec §8.7); ``statistic`` = #{t : a_t > b_t}.
    * ``"randomization"`` — paired Fisher randomisation test of the mean difference (sign
      flips shared by all pairs; exact when 2^n ≤ B; default B = 10000), see
      :func:`randomization_test`.
    * ``"tukey"`` — randomised Tukey HSD (methods-spec §8.4; Carterette 2012), which
      already controls the family-wise error over all pairs of the group. Default B = 5000.

    Parameters
    ----------
    scores
        Scores frame: ``system, query, measure, value`` plus optional grouping columns.
    method
        One of the methods above.
    n_resamples
        Resamples of the resampling methods (None: the method's default).
    rng
        Seed or numpy Generator. An integer seed restarts the draw protocol for every
        group (so a measure's p-values do not depend on the other measures in the frame);
        a Generator is consumed group after group.
    correction
        Multiple-comparison adjustment written to ``p_adjusted``: None, ``"bonferroni"``,
        ``"holm"`` (Holm 1979) or ``"bh"`` (Benjamini–Hochberg 1995 false discovery rate).
    baseline
        A system name: compare every other system with it instead of all pairs.
    family
        What one family of the correction is: ``"group"`` (default; the pairs of one
        measure / group) or ``"all"`` (every row of the result).
    confidence_level
        Of the interval ``ci_low, ci_high`` of the mean difference.
    progress
        Show tqdm progress bars (None: only when stderr is a terminal).

    Returns
    -------
    DataFrame
        One row per (group, pair), groups in :func:`pdireval.schema.scores_groups` order,
        pairs in system order. Columns: the grouping keys (``measure`` and any extra
        column of ``scores``); ``system_a``, ``system_b``; ``mean_a``, ``mean_b`` (means over
        queries); ``mean_diff`` (mean of a − b); ``ci_low``, ``ci_high`` (confidence interval
        of the mean difference: bootstrap percentile interval of z̄ + w̄*_b on the same
        resamples for ``"bootstrap"``, Student-t interval z̄ ± t_{n−1}·s_z/√n otherwise);
        ``effect_size`` (Cohen's d_z = z̄ / s_z); ``statistic`` (t for ``"t"`` and
        ``"bootstrap"``, min(W+, W−) for ``"wilcoxon"``, #wins of a for ``"sign"``, z̄ for
        ``"randomization"``, |z̄| for ``"tukey"``); ``p_value`` (unadjusted; the ASL for the
        bootstrap); ``p_adjusted`` (after ``correction``; equal to ``p_value`` without);
        ``method``; ``correction`` (``"none"`` without); ``n_queries``.

    Notes
    -----
    Fewer than 2 queries make every statistic NaN. A pair whose differences are all zero
    gets p = 1 under every method (a system is never significantly different from itself).

    References
    ----------
    Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR.
    Smucker, M., Allan, J., Carterette, B. (2007). A comparison of statistical significance
    tests for information retrieval evaluation. CIKM.
    Carterette, B. (2012). Multiple testing in statistical analysis of systems-based
    information retrieval experiments. TOIS 30(1).
    """
    frame = canonical_scores(scores)
    _check_common(method, confidence_level)
    check_choice("correction", correction, CORRECTIONS)
    check_choice("family", family, ("group", "all"))
    if method == "tukey" and correction is not None:
        raise ParameterError(
            "the randomised Tukey HSD already controls the family-wise error over all pairs; "
            "pass correction=None with method='tukey'"
        )
    keys_cols = group_columns(frame)
    parts = []
    for keys, systems, n_q, means, pi, pj, cols in _iter_tests(
        frame, method, n_resamples=n_resamples, rng=rng, baseline=baseline,
        confidence_level=confidence_level, progress=progress,
    ):
        names = np.array(systems, dtype=object)
        part = {k: [keys[k]] * len(pi) for k in keys_cols}
        part.update(
            system_a=names[pi], system_b=names[pj], mean_a=means[pi], mean_b=means[pj],
            mean_diff=cols["mean_diff"], ci_low=cols["ci_low"], ci_high=cols["ci_high"],
            effect_size=cols["effect_size"], statistic=cols["statistic"].astype(np.float64),
            p_value=cols["p_value"],
        )
        part["p_adjusted"] = adjust_pvalues(cols["p_value"], correction) if family == "group" else cols["p_value"]
        part["method"] = method
        part["correction"] = correction or "none"
        part["n_queries"] = np.full(len(pi), n_q, dtype=np.int64)
        parts.append(pd.DataFrame(part))
    out = pd.concat(parts, ignore_index=True)
    if family == "all":
        out["p_adjusted"] = adjust_pvalues(out["p_value"].to_numpy(), correction)
    for col in ("system_a", "system_b", "method", "correction"):
        out[col] = out[col].astype(str)
    return out
