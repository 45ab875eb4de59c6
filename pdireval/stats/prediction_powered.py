r"""Prediction-powered inference (PPI, PPI++) of means and mean differences, and the Rogan–Gladen
correction of a positive rate: array level, vectorised over columns (systems) and pairs.

Notation (Angelopoulos et al. 2023a): ``n`` labelled observations carry a gold value Y (a
score under human labels) and a prediction Ŷ (the score under LLM labels); ``N`` unlabelled
observations carry a prediction only. With a tuning weight λ,

.. math::

    \hat\theta_\lambda = \lambda\,\overline{\hat Y}_N + \overline{(Y - \lambda\hat Y)}_n,
    \qquad
    \widehat{se}^2 = \lambda^2\,\frac{\hat\sigma^2_{\hat Y,N}}{N}
        + \frac{\hat\sigma^2_{Y - \lambda\hat Y,\,n}}{n},

variances with divisor n and N (ddof 0), and the interval θ̂ ± z_{1−α/2}·se (normal). λ = 1 is
PPI (Angelopoulos et al. 2023a), λ = 0 the classical mean of the labelled values; PPI++
(Angelopoulos, Duchi & Zrnic 2023) takes the power-tuned

.. math:: \hat\lambda = \frac{\widehat{\mathrm{Cov}}_n(Y, \hat Y)}
    {(1 + n/N)\,\widehat{\mathrm{Var}}_{n+N}(\hat Y)}, \quad \text{clipped to } [0, 1],

(covariance with divisor n; the variance of the predictions of both sets pooled, divisor
n + N − 1), which is what ``ppi_py.ppi_mean_ci(..., lam=None)`` and
``ppi_py.ppi_mean_pointestimate(..., lam=None)`` compute (ppi-python 0.2.3). Where the
predictions do not vary (the pooled variance is 0), every λ gives the same estimate and λ̂ = 0.

Stratified PPI (Fisch et al. 2024) estimates each stratum k alone (its own λ̂_k) and combines
θ̂ = Σ_k w_k θ̂_k, se² = Σ_k w_k² se_k², with w_k = (n_k + N_k)/(n + N) the stratum's share of
all observations.

Every function works on moments (means, variances, covariances), so a paired difference of two
columns comes from the columns' covariance matrices without materialising the differences.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from pdireval.errors import OptionError, check_real
from pdireval.stats import _adapters

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "PPIResult",
    "RoganGladenResult",
    "ppi_mean",
    "ppi_mean_differences",
    "ppi_mean_stratified",
    "rogan_gladen",
]


class PPIResult(NamedTuple):
    """Prediction-powered estimates, one per column (or pair): ``estimate, se, ci_low,
    ci_high, lam`` (the λ used)."""

    estimate: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    lam: np.ndarray


class RoganGladenResult(NamedTuple):
    """Rogan–Gladen estimate of a prevalence: ``estimate, se, ci_low, ci_high``."""

    estimate: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray


class _Moments(NamedTuple):
    """Sufficient statistics of PPI for a set of columns (all variances ddof 0)."""

    mean_u: np.ndarray  # mean of the unlabelled predictions
    var_u: np.ndarray  # their variance
    mean_y: np.ndarray  # mean of the gold values
    mean_h: np.ndarray  # mean of the labelled predictions
    var_y: np.ndarray
    var_h: np.ndarray
    cov: np.ndarray  # covariance of gold values and predictions (labelled)
    n: int
    big_n: int


def _as_matrix(x, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise OptionError(f"{name} must be a 1-d or 2-d array (observations x columns).")
    if not np.isfinite(a).all():
        raise OptionError(f"{name} holds NaN or infinite values; PPI needs finite values.")
    return a


def _check_shapes(y, yhat, yhat_unlabelled):
    y = _as_matrix(y, "y")
    yhat = _as_matrix(yhat, "yhat")
    u = _as_matrix(yhat_unlabelled, "yhat_unlabelled")
    if y.shape != yhat.shape:
        raise OptionError(
            f"y and yhat must have the same shape (one prediction per gold value); got "
            f"{y.shape} and {yhat.shape}."
        )
    if u.shape[1] != y.shape[1]:
        raise OptionError(
            f"yhat_unlabelled must have as many columns as y ({y.shape[1]}); got {u.shape[1]}."
        )
    if y.shape[0] == 0:
        raise OptionError("y is empty: PPI needs at least one labelled observation.")
    return y, yhat, u


def _moments(y: np.ndarray, yhat: np.ndarray, u: np.ndarray) -> _Moments:
    """Column moments of the labelled (y, yhat) and unlabelled (u) observations."""
    mean_y, mean_h = y.mean(axis=0), yhat.mean(axis=0)
    cy, ch = y - mean_y, yhat - mean_h
    n, big_n = y.shape[0], u.shape[0]
    if big_n:
        mean_u = u.mean(axis=0)
        var_u = ((u - mean_u) ** 2).mean(axis=0)
    else:
        mean_u = np.full(y.shape[1], np.nan)
        var_u = np.full(y.shape[1], np.nan)
    return _Moments(
        mean_u,
        var_u,
        mean_y,
        mean_h,
        (cy * cy).mean(axis=0),
        (ch * ch).mean(axis=0),
        (cy * ch).mean(axis=0),
        n,
        big_n,
    )


def _pair_moments(y, yhat, u, i, j) -> _Moments:
    """Moments of the column differences ``x[:, i] - x[:, j]``, from covariance matrices."""
    n, big_n = y.shape[0], u.shape[0]
    mean_y, mean_h = y.mean(axis=0), yhat.mean(axis=0)
    cy, ch = y - mean_y, yhat - mean_h
    c_yy, c_hh, c_yh = cy.T @ cy / n, ch.T @ ch / n, cy.T @ ch / n

    def diff_var(c):
        return c[i, i] + c[j, j] - c[i, j] - c[j, i]

    if big_n:
        mean_u = u.mean(axis=0)
        cu = u - mean_u
        var_u = diff_var(cu.T @ cu / big_n)
        mean_u = mean_u[i] - mean_u[j]
    else:
        mean_u = var_u = np.full(len(i), np.nan)
    return _Moments(
        mean_u,
        var_u,
        mean_y[i] - mean_y[j],
        mean_h[i] - mean_h[j],
        diff_var(c_yy),
        diff_var(c_hh),
        diff_var(c_yh),
        n,
        big_n,
    )


def _lambda(m: _Moments, lam) -> np.ndarray:
    """λ: the given value, or the power-tuned λ̂ of PPI++ (clipped to [0, 1])."""
    size = m.mean_y.shape
    if lam is not None:
        return np.full(size, check_real("lam", lam))
    if m.big_n == 0:
        return np.zeros(size)
    n, big_n = m.n, m.big_n
    total = n + big_n
    pooled_mean_gap = m.mean_h - m.mean_u
    pooled = (n * m.var_h + big_n * m.var_u + n * big_n / total * pooled_mean_gap**2) / max(
        total - 1, 1
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        tuned = m.cov / ((1.0 + n / big_n) * pooled)
    return np.where(pooled > 0, np.clip(tuned, 0.0, 1.0), 0.0)


def _combine(m: _Moments, lam: np.ndarray):
    """(estimate, variance of the estimate) for the moments ``m`` and weights ``lam``."""
    residual = np.maximum(m.var_y - 2.0 * lam * m.cov + lam**2 * m.var_h, 0.0)
    if m.big_n:
        estimate = lam * m.mean_u + (m.mean_y - lam * m.mean_h)
        variance = lam**2 * m.var_u / m.big_n + residual / m.n
    else:  # no unlabelled observation: only λ = 0 is defined
        estimate = np.where(lam == 0, m.mean_y, np.nan)
        variance = np.where(lam == 0, residual / m.n, np.nan)
    if m.n < 2:
        variance = np.full_like(estimate, np.nan)
    return estimate, variance


def _interval(estimate, variance, confidence_level: float):
    z = float(_adapters.norm_ppf(1.0 - (1.0 - confidence_level) / 2.0))
    se = np.sqrt(variance)
    return se, estimate - z * se, estimate + z * se


def _result(estimate, variance, level: float, lam) -> PPIResult:
    se, low, high = _interval(estimate, variance, level)
    return PPIResult(estimate, se, low, high, lam)


def _inference(m: _Moments, lam, level: float) -> PPIResult:
    """PPI from the moments ``m``: λ (power-tuned when None), the estimate and its interval."""
    weights = _lambda(m, lam)
    estimate, variance = _combine(m, weights)
    return _result(estimate, variance, level, weights)


def _level(confidence_level) -> float:
    return check_real("confidence_level", confidence_level, low=0.0, high=1.0, inclusive=False)


def ppi_mean(
    y: ArrayLike,
    yhat: ArrayLike,
    yhat_unlabelled: ArrayLike,
    *,
    lam: float | None = None,
    confidence_level: float = 0.95,
) -> PPIResult:
    r"""Prediction-powered estimate and normal interval of the mean of each column.

    θ̂_λ = λ·mean_N(Ŷ) + mean_n(Y − λŶ), se² = λ²·Var_N(Ŷ)/N + Var_n(Y − λŶ)/n (ddof 0),
    interval θ̂ ± z·se; ``lam=None`` takes PPI++'s power-tuned λ̂ (module docstring). Equal to
    ``ppi_py.ppi_mean_pointestimate`` and ``ppi_py.ppi_mean_ci`` (two-sided, ``alpha`` =
    1 − confidence_level) column by column.

    Parameters
    ----------
    y, yhat
        Gold values and predictions of the n labelled observations: arrays (n,) or (n, k).
    yhat_unlabelled
        Predictions of the N unlabelled observations, (N,) or (N, k): observations *not*
        among the labelled ones. N = 0 is allowed only with ``lam=None`` (λ̂ = 0: the
        classical mean) or ``lam=0``.
    lam
        λ: None (default) power-tuned (PPI++), 1 PPI, 0 the labelled mean alone.
    confidence_level
        Coverage of the interval (0.95).

    Returns
    -------
    PPIResult
        ``estimate, se, ci_low, ci_high, lam``, arrays of k values. With n = 1 the variance is
        undefined: se and the bounds are NaN.

    References
    ----------
    Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I., Zrnic, T. (2023).
    Prediction-powered inference. Science 382.
    Angelopoulos, A. N., Duchi, J. C., Zrnic, T. (2023). PPI++: Efficient prediction-powered
    inference. arXiv:2311.01453.
    """
    level = _level(confidence_level)
    ya, ha, ua = _check_shapes(y, yhat, yhat_unlabelled)
    m = _moments(ya, ha, ua)
    return _inference(m, lam, level)


def ppi_mean_differences(
    y: ArrayLike,
    yhat: ArrayLike,
    yhat_unlabelled: ArrayLike,
    i: ArrayLike,
    j: ArrayLike,
    *,
    lam: float | None = None,
    confidence_level: float = 0.95,
) -> PPIResult:
    r"""PPI of the mean difference of columns ``i`` and ``j`` for every pair (i[p], j[p]).

    The paired difference is PPI applied to the per-observation differences
    Y_i − Y_j and Ŷ_i − Ŷ_j (each pair has its own λ̂ under ``lam=None``); their moments come
    from the k × k covariance matrices of Y, Ŷ and the unlabelled Ŷ, so no n × pairs matrix is
    built. Same values as :func:`ppi_mean` on the difference columns.

    Parameters
    ----------
    y, yhat, yhat_unlabelled
        As in :func:`ppi_mean`, 2-d (observations × k columns).
    i, j
        Integer arrays of column indices, one entry per pair.
    lam, confidence_level
        As in :func:`ppi_mean`.

    Returns
    -------
    PPIResult
        One value per pair.

    References
    ----------
    Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I., Zrnic, T. (2023).
    Prediction-powered inference. Science 382.
    Angelopoulos, A. N., Duchi, J. C., Zrnic, T. (2023). PPI++: Efficient prediction-powered
    inference. arXiv:2311.01453.
    """
    level = _level(confidence_level)
    ya, ha, ua = _check_shapes(y, yhat, yhat_unlabelled)
    ia, ja = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    m = _pair_moments(ya, ha, ua, ia, ja)
    return _inference(m, lam, level)


def ppi_mean_stratified(
    y: ArrayLike,
    yhat: ArrayLike,
    yhat_unlabelled: ArrayLike,
    strata: ArrayLike,
    strata_unlabelled: ArrayLike,
    *,
    pairs: tuple | None = None,
    lam: float | None = None,
    confidence_level: float = 0.95,
) -> PPIResult:
    r"""Stratified PPI (Fisch et al. 2024): PPI within each stratum, combined by stratum share.

    θ̂ = Σ_k w_k θ̂_k and se² = Σ_k w_k² se_k², w_k = (n_k + N_k)/(n + N); each stratum has its
    own λ̂_k under ``lam=None`` (the returned ``lam`` is then NaN unless every stratum has the
    same λ). A stratum without labelled observations has no estimate (NaN); one with a single
    labelled observation has an undefined variance (se NaN).

    Parameters
    ----------
    y, yhat, yhat_unlabelled
        As in :func:`ppi_mean`.
    strata, strata_unlabelled
        Stratum label of each labelled and each unlabelled observation.
    pairs
        ``(i, j)`` column indices: stratified PPI of the paired differences instead
        (:func:`ppi_mean_differences` within each stratum).
    lam, confidence_level
        As in :func:`ppi_mean`.

    Returns
    -------
    PPIResult
        One value per column (or pair).

    References
    ----------
    Fisch, A., Maynez, J., Hofer, R. A., Dhingra, B., Globerson, A., Cohen, W. W. (2024).
    Stratified prediction-powered inference for effective hybrid evaluation of language
    models. NeurIPS 2024.
    """
    level = _level(confidence_level)
    y_, h_, u = _check_shapes(y, yhat, yhat_unlabelled)
    s_l, strata_u = np.asarray(strata), np.asarray(strata_unlabelled)
    if len(s_l) != len(y_) or len(strata_u) != len(u):
        raise OptionError(
            "strata and strata_unlabelled must hold one label per labelled and per unlabelled "
            f"observation ({len(y_)} and {len(u)}); got {len(s_l)} and {len(strata_u)}."
        )
    total = len(y_) + len(u)
    size = y_.shape[1] if pairs is None else len(pairs[0])
    estimate, variance = np.zeros(size), np.zeros(size)
    lams = []
    for stratum in np.unique(np.concatenate([s_l, strata_u])):  # strata are few
        in_l, in_u = s_l == stratum, strata_u == stratum
        weight = (in_l.sum() + in_u.sum()) / total
        if not in_l.any():
            estimate[:] = np.nan
            variance[:] = np.nan
            continue
        yk, hk, uk = y_[in_l], h_[in_l], u[in_u]
        if pairs is None:
            m = _moments(yk, hk, uk)
        else:
            m = _pair_moments(yk, hk, uk, np.asarray(pairs[0]), np.asarray(pairs[1]))
        weights = _lambda(m, lam)
        lams.append(weights)
        e_k, v_k = _combine(m, weights)
        estimate += weight * e_k
        variance += weight**2 * v_k
    stacked = np.array(lams) if lams else np.full((1, size), np.nan)
    same = (stacked == stacked[0]).all(axis=0)
    lam_out = np.where(same, stacked[0], np.nan)
    return _result(estimate, variance, level, lam_out)


def rogan_gladen(
    apparent: ArrayLike,
    n_items: ArrayLike,
    sensitivity: ArrayLike,
    n_positive: ArrayLike,
    specificity: ArrayLike,
    n_negative: ArrayLike,
    *,
    confidence_level: float = 0.95,
) -> RoganGladenResult:
    r"""Rogan–Gladen correction of an apparent positive rate, with its delta-method interval.

    A binary judge calls a share p of N items positive; on a human-labelled sample its
    sensitivity Se (over n₊ human positives) and specificity Sp (over n₋ human negatives) are
    measured. The corrected prevalence (Rogan & Gladen 1978) is

    .. math:: \hat\pi = \frac{p + Sp - 1}{Se + Sp - 1},

    and, treating p, Se and Sp as independent binomial proportions, the delta method gives

    .. math:: \widehat{\mathrm{Var}}(\hat\pi) = \frac{p(1-p)/N + \hat\pi^2\,Se(1-Se)/n_+
        + (1-\hat\pi)^2\,Sp(1-Sp)/n_-}{(Se + Sp - 1)^2}

    (Greenland 1996; Reiczigel, Földi & Ózsvári 2010), interval π̂ ± z·se. The estimate is
    not clipped to [0, 1] (it leaves that range when p is outside [1 − Sp, Se]); a judge with
    Se + Sp ≤ 1 (no better than chance) has no estimate (NaN).

    Parameters
    ----------
    apparent, n_items
        The judge's positive rate p and the number of items N it is computed on.
    sensitivity, n_positive
        Se and the number of human-positive items it is measured on.
    specificity, n_negative
        Sp and the number of human-negative items.
    confidence_level
        Coverage of the normal interval (0.95).

    Returns
    -------
    RoganGladenResult
        ``estimate, se, ci_low, ci_high`` (arrays; the inputs broadcast).

    References
    ----------
    Rogan, W. J., Gladen, B. (1978). Estimating prevalence from the results of a screening
    test. American Journal of Epidemiology 107.
    Greenland, S. (1996). Basic methods for sensitivity analysis of biases. International
    Journal of Epidemiology 25.
    Reiczigel, J., Földi, J., Ózsvári, L. (2010). Exact confidence limits for prevalence of a
    disease with an imperfect diagnostic test. Epidemiology and Infection 138.
    """
    level = _level(confidence_level)
    p = np.asarray(apparent, dtype=np.float64)
    se_, sp = np.asarray(sensitivity, dtype=np.float64), np.asarray(specificity, dtype=np.float64)
    n_items = np.asarray(n_items, dtype=np.float64)
    n_pos, n_neg = (
        np.asarray(n_positive, dtype=np.float64),
        np.asarray(n_negative, dtype=np.float64),
    )
    youden = se_ + sp - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = np.where(youden > 0, (p + sp - 1.0) / youden, np.nan)
        variance = (
            p * (1.0 - p) / n_items
            + estimate**2 * se_ * (1.0 - se_) / n_pos
            + (1.0 - estimate) ** 2 * sp * (1.0 - sp) / n_neg
        ) / youden**2
    se, low, high = _interval(estimate, np.where(youden > 0, variance, np.nan), level)
    return RoganGladenResult(estimate, se, low, high)
