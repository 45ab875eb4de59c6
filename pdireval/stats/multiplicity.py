r"""Resampling-based multiplicity adjustment: Westfall–Young maxT and closed testing.

Array level, vectorised: the per-query differences of P pairs (an n × P matrix) in, adjusted
p-values out. Every resample acts on **all** pairs at once (one sign-flip vector, or one
bootstrap sample of queries, shared by every pair), so the joint null distribution of the P
statistics keeps their correlation and correlated comparisons are not over-corrected as by
Bonferroni or Holm (Westfall & Young 1993; Boytsov, Belova & Westfall 2013).

Resampling scheme per test (``method``); T_k is the statistic of pair k:

* ``"randomization"``: sign flips of the differences; T_k = Σ_t s_t z_tk (the randomisation
  test's statistic, not studentised);
* ``"t"``: sign flips; T_k = the paired t statistic of the flipped differences,
  u_k·√(n − 1)/√(n·Q_k − u_k²) with u_k = Σ_t s_t z_tk and Q_k = Σ_t z_tk² (flips leave Q_k
  unchanged);
* ``"wilcoxon"``: sign flips of the signed ranks; T_k = Σ_t s_t sgn(z_tk) r_tk / √(Σ_t r_tk²),
  r the average ranks of |z| among the non-zero differences (zeros rank 0, scipy's
  ``zero_method="wilcox"``): the standardised signed-rank statistic, exact under flips;
* ``"sign"``: sign flips of the signs; T_k = Σ_t s_t sgn(z_tk) / √(#{t : z_tk ≠ 0});
* ``"bootstrap"``: Sakai's (2006) studentised paired bootstrap of the null-centred
  differences w = z − z̄ (queries drawn with replacement, the same draw for every pair);
  T*_k = w̄*_k/(s*_k/√n), observed T_k = z̄_k/(s_k/√n) (Westfall & Young 1993, Section 2.6).

The sign flips are :func:`pdireval.stats.paired_tests.randomization_signs` (all 2^n vectors
when 2^n ≤ B: exact; p = count/B, else add-one p = (count + 1)/(B + 1)); the bootstrap draws
are :func:`pdireval.stats.paired_tests.bootstrap_counts` (p = count/B, Sakai's ASL). Two-sided
tests use |T|, ``"greater"`` T, ``"less"`` −T. Values equal up to a relative 1e-10 count as
equal (randomisation: of Σ_t |z_tk|, as the unadjusted test).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pdireval.core.chunking import CHUNK_CELLS
from pdireval.errors import OptionError, check_int, check_option, check_rng, group_generator
from pdireval.stats.corrections import RESAMPLING_CORRECTIONS
from pdireval.stats.paired_tests import (
    bootstrap_counts,
    check_alternative,
    constant,
    randomization_signs,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pdireval.types import Alternative, JointMethod, ResamplingCorrection, RngLike

__all__ = [
    "RESAMPLING_CORRECTIONS",
    "JOINT_METHODS",
    "MAX_CLOSED",
    "DEFAULT_JOINT_RESAMPLES",
    "resampling_adjust",
    "joint_resamples",
    "joint_kernel",
]


#: The tests whose statistic can be resampled jointly over pairs.
JOINT_METHODS = ("t", "randomization", "wilcoxon", "sign", "bootstrap")

#: The largest family closed testing enumerates (2^8 − 1 = 255 intersection hypotheses).
MAX_CLOSED = 8

#: Resamples of a joint adjustment when ``n_resamples`` is None.
DEFAULT_JOINT_RESAMPLES = 10000

#: Relative tolerance under which two statistics equal in exact arithmetic count as equal.
_TIE_RTOL = 1e-10
_EPS = np.finfo(np.float64).eps
#: Infinite statistics (constant differences) are clipped here before squaring, so that sums
#: stay finite and two infinite statistics still compare equal.
_BIG = 1e150


def _signed_ranks(d):
    """sgn(z)·r with r the average ranks of |z| among the non-zero values of each column."""
    from scipy.stats import rankdata

    a = np.abs(d)
    zeros = (d == 0).sum(axis=0)
    ranks = rankdata(a, axis=0) - zeros[None, :]  # zeros take the lowest ranks: shift them out
    return np.sign(d) * ranks


def _scores(d, method):
    """The matrix M (n × P) whose sign-flipped column sums give the statistic, and the
    per-pair scale the sums are divided by."""
    if method == "wilcoxon":
        m = _signed_ranks(d)
    elif method == "sign":
        m = np.sign(d)
    else:
        m = d
    if method in ("wilcoxon", "sign"):
        norm = np.sqrt((m * m).sum(axis=0))
        norm[norm == 0] = 1.0  # all differences zero: statistic 0
        return m, norm
    return m, None


def _t_from_sums(u, q, n):
    """t = u·√(n − 1)/√(n·q − u²) elementwise (±inf where the flipped differences are
    constant and non-zero, 0 where u = 0)."""
    den = n * q - u * u
    den[den <= 8.0 * n * _EPS * n * q] = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = u * np.sqrt(n - 1.0) / np.sqrt(den)
    t[u == 0] = 0.0
    return t


def _orient(t, alternative):
    if alternative == "two-sided":
        return np.abs(t)
    return t if alternative == "greater" else -t


def _observed(d, method, alternative):
    """(oriented observed statistics, tolerance) of every column of d."""
    n = d.shape[0]
    if method == "bootstrap":
        zbar = d.mean(axis=0)
        sd = d.std(axis=0, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = zbar / (sd / np.sqrt(n))
        const = constant(d)
        t = np.where(const, np.where(zbar > 0, np.inf, np.where(zbar < 0, -np.inf, 0.0)), t)
    else:
        m, norm = _scores(d, method)
        u = m.sum(axis=0)
        if method == "t":
            t = _t_from_sums(u, (d * d).sum(axis=0), n)
        elif norm is not None:
            t = u / norm
        else:
            t = u
    t = _orient(t, alternative)
    if method == "randomization":
        tol = _TIE_RTOL * np.abs(d).sum(axis=0)
    else:
        tol = np.where(np.isfinite(t), _TIE_RTOL * np.abs(t), 0.0)
    return t, tol


def _replicates(d, method, resamples, alternative, rows):
    """Oriented resampled statistics (len(rows) × P) of the resamples ``rows``."""
    n = d.shape[0]
    r = resamples[rows]
    if method == "bootstrap":
        w = d - d.mean(axis=0)
        s1 = r @ w
        s2 = r @ (w * w)
        ss = s2 - s1 * s1 / n
        ss[ss <= 8.0 * n * _EPS * s2] = 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            t = s1 * np.sqrt(n - 1.0) / np.sqrt(n * ss)
        t[s1 == 0] = 0.0
        return _orient(t, alternative)
    m, norm = _scores(d, method)
    u = r @ m
    if method == "t":
        return _orient(_t_from_sums(u, (d * d).sum(axis=0), n), alternative)
    if norm is not None:
        u /= norm
    return _orient(u, alternative)


def joint_resamples(method: str, n: int, n_resamples: int, rng):
    """The resamples of a joint adjustment: (matrix, exact). Sign flips (B × n ±1, all 2^n
    when 2^n ≤ B) for the sign-flip tests, the bootstrap counts matrix for ``"bootstrap"``;
    ``rng`` is a numpy Generator, drawn from exactly as the unadjusted test draws."""
    if method == "bootstrap":
        return bootstrap_counts(rng, n, n_resamples), False
    return randomization_signs(rng, n, n_resamples)


def joint_kernel(d, method, resamples, exact, *, correction="maxt", alternative="two-sided"):
    """Adjusted p-values of the columns of d (n × P) from the shared ``resamples``.

    Step-down maxT (Westfall & Young 1993, Algorithm 2.8): order the observed statistics
    t_(1) ≥ … ≥ t_(P) (hypotheses r_1..r_P); per resample b the successive maxima
    u_{b,i} = max_{j ≥ i} T*_{b, r_j}; p̃_(i) = #{b : u_{b,i} ≥ t_(i)}/B, then
    p̃_(i) = max_{j ≤ i} p̃_(j). Single-step (``"maxt-single"``): p̃_k = #{b : max_j T*_bj ≥
    t_k}/B. Closed testing (``"closed"``, P ≤ :data:`MAX_CLOSED`): every intersection S gets
    the resampling test of its sum of squared positive parts, p_S = #{b : Σ_{j∈S} (T*_bj⁺)² ≥
    Σ_{j∈S} (t_j⁺)²}/B, and p̃_k = max_{S ∋ k} p_S (Marcus, Peritz & Gabriel 1976). With
    sign flips drawn at random, counts become (count + 1)/(B + 1). Work is chunked over
    resamples (memory O(CHUNK_CELLS)), with no loop per pair.
    """
    n, p_count = d.shape
    n_res = resamples.shape[0]
    obs, tol = _observed(d, method, alternative)
    thr = obs - tol
    # about 8 arrays of rows_per x P cells are alive at once: a quarter of CHUNK_CELLS each
    rows_per = max(1, CHUNK_CELLS // (4 * max(1, p_count)))
    if correction == "closed":
        if p_count > MAX_CLOSED:
            raise OptionError(
                f"correction='closed' enumerates all 2^m - 1 intersection hypotheses; this "
                f"family has m = {p_count} > {MAX_CLOSED} hypotheses. Use correction='maxt' "
                "(Westfall-Young step-down maxT, a shortcut of closed testing with max-T local "
                "tests), or a smaller family (baseline=, fewer systems)."
            )
        bits = (np.arange(1, 2**p_count)[None, :] >> np.arange(p_count)[:, None]) & 1
        incidence = bits.astype(np.float64)  # P x K
        obs_pos = np.clip(obs, 0.0, _BIG)
        obs_s = (obs_pos * obs_pos) @ incidence
        thr_s = obs_s - _TIE_RTOL * np.where(np.isfinite(obs_s), np.abs(obs_s), 0.0)
        count = np.zeros(incidence.shape[1])
        for lo in range(0, n_res, rows_per):
            part = slice(lo, lo + rows_per)
            t = np.clip(_replicates(d, method, resamples, alternative, part), 0.0, _BIG)
            rep = (t * t) @ incidence
            count += (rep >= thr_s).sum(axis=0)
        p_s = _count_p(count, n_res, exact, method)
        adj = np.where(bits.astype(bool), p_s[None, :], 0.0).max(axis=1)
        return np.minimum(adj, 1.0)
    order = np.argsort(-obs, kind="stable")
    thr_sorted = thr[order]
    d_sorted = d[:, order]
    count = np.zeros(p_count)
    maxima = []
    for lo in range(0, n_res, rows_per):
        t = _replicates(d_sorted, method, resamples, alternative, slice(lo, lo + rows_per))
        if correction == "maxt-single":
            maxima.append(t.max(axis=1))
            continue
        u = np.maximum.accumulate(t[:, ::-1], axis=1)[:, ::-1]
        count += (u >= thr_sorted[None, :]).sum(axis=0)
    if correction == "maxt-single":
        mx = np.sort(np.concatenate(maxima))
        count = n_res - np.searchsorted(mx, thr_sorted, side="left")
        adj_sorted = _count_p(count.astype(np.float64), n_res, exact, method)
    else:
        adj_sorted = np.maximum.accumulate(_count_p(count, n_res, exact, method))
    adj = np.empty(p_count)
    adj[order] = np.minimum(adj_sorted, 1.0)
    return adj


def _count_p(count, n_res, exact, method):
    if exact or method == "bootstrap":
        return count / n_res
    return (count + 1.0) / (n_res + 1.0)


def resampling_adjust(
    differences: ArrayLike,
    *,
    method: JointMethod = "t",
    correction: ResamplingCorrection = "maxt",
    alternative: Alternative = "two-sided",
    n_resamples: int = DEFAULT_JOINT_RESAMPLES,
    rng: RngLike = None,
) -> np.ndarray:
    r"""Westfall–Young maxT (step-down or single-step) or closed-testing adjusted p-values.

    The per-query differences of P pairs are resampled jointly: one sign-flip vector (or one
    bootstrap sample of queries) per resample, shared by all pairs, so the adjusted p-values
    reflect the correlation of the comparisons (see the module docstring for each method's
    statistic). Step-down maxT (the default, Westfall & Young 1993, Algorithm 2.8): with
    t_(1) ≥ … ≥ t_(P) the ordered observed statistics,

    .. math:: \tilde p_{(i)} = \max_{j \le i}
              \frac{\#\{b : \max_{l \ge j} T^*_{b,(l)} \ge t_{(j)}\}}{B}

    (add-one (count + 1)/(B + 1) for randomly drawn sign flips). ``"maxt-single"``: the
    single-step p̃_k = #{b : max_l T*_bl ≥ t_k}/B. ``"closed"`` (P ≤ 8): closed testing
    (Marcus, Peritz & Gabriel 1976) whose local test of an intersection S is the resampling
    test of Σ_{j∈S} (T_j⁺)², p̃_k = max_{S∋k} p_S; with the max statistic as local test
    closed testing would reduce to step-down maxT (Westfall & Young 1993, Section 2.6).
    All three control the family-wise error rate in the strong sense under subset
    pivotality (Westfall & Young 1993), which sign flips of paired differences satisfy when
    the differences of true nulls are symmetric about 0.

    Parameters
    ----------
    differences
        n × P array (queries × pairs) of per-query differences a − b, complete.
    method
        The test whose statistic is resampled: ``"t"`` (default), ``"randomization"``,
        ``"wilcoxon"``, ``"sign"`` or ``"bootstrap"``.
    correction
        ``"maxt"`` (step-down), ``"maxt-single"`` or ``"closed"``.
    alternative
        scipy's values; one-sided tests resample the signed statistic.
    n_resamples
        B, the resamples (sign flips are enumerated, exactly, when 2^n ≤ B).
    rng
        None, an int seed, a SeedSequence or a Generator (pdireval's rng policy): the
        resamples are ``default_rng(seed)``'s, drawn as the unadjusted test draws them.

    Returns
    -------
    ndarray
        P adjusted p-values, in column order.

    References
    ----------
    Westfall, P. H., Young, S. S. (1993). Resampling-Based Multiple Testing. Wiley.
    Marcus, R., Peritz, E., Gabriel, K. R. (1976). On closed testing procedures with special
    reference to ordered analysis of variance. Biometrika 63.
    Boytsov, L., Belova, A., Westfall, P. (2013). Deciding on an adjustment for multiplicity
    in IR experiments. SIGIR.
    """
    check_option("method", method, JOINT_METHODS)
    check_option("correction", correction, RESAMPLING_CORRECTIONS)
    check_alternative(alternative)
    n_res = check_int("n_resamples", n_resamples, minimum=1, maximum=10**6)
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim == 1:
        d = d[:, None]
    if d.ndim != 2 or np.isnan(d).any():
        raise OptionError(
            "differences must be a complete 2-D queries x pairs array (1-D: one pair); drop "
            "the queries with a missing score first"
        )
    if d.shape[0] < 2:
        return np.full(d.shape[1], np.nan)
    resamples, exact = joint_resamples(method, d.shape[0], n_res, group_generator(check_rng(rng)))
    return joint_kernel(d, method, resamples, exact, correction=correction, alternative=alternative)
