"""Generalizability theory in closed form on stacks of query x system matrices: ANOVA table,
variance components, Phi, E rho^2, queries needed, confidence intervals."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np

from pdireval.errors import check_option, renamed_options

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pdireval.types import NegativeComponents

__all__ = [
    "anova_table",
    "variance_components",
    "phi",
    "e_rho2",
    "queries_needed",
    "coefficient_intervals",
    "NEGATIVE",
    "EFFECTS3",
    "anova_table3",
    "variance_components3",
    "error_variances3",
    "coefficients3",
    "queries_needed3",
]

NEGATIVE = ("clip", "keep")


def anova_table(x: np.ndarray) -> dict[str, np.ndarray]:
    """Additive two-way ANOVA without replication for a stack of query x system matrices.

    Parameters
    ----------
    x
        float64 array ``(..., n_t, n_s)``: queries on the second-to-last axis, systems on the
        last.

    Returns
    -------
    dict of arrays (shape ``x.shape[:-2]``)
        ``ss_system, ss_query, ss_residual`` (sums of squares), ``df_system = n_s - 1``,
        ``df_query = n_t - 1``, ``df_residual = (n_s - 1)(n_t - 1)``, and the mean squares
        ``ms_* = ss_* / df_*``.
    """
    x = np.asarray(x, dtype=np.float64)
    n_t, n_s = x.shape[-2], x.shape[-1]
    grand = x.mean(axis=(-2, -1), keepdims=True)
    sys_mean = x.mean(axis=-2, keepdims=True)
    top_mean = x.mean(axis=-1, keepdims=True)
    ss_s = n_t * np.square(sys_mean - grand).sum(axis=(-2, -1))
    ss_t = n_s * np.square(top_mean - grand).sum(axis=(-2, -1))
    ss_r = np.square(x - sys_mean - top_mean + grand).sum(axis=(-2, -1))
    # Sums of squares at the level of floating rounding are exact zeros (e.g. identical
    # systems give SS_s ~ 1e-33 instead of 0, which would turn Φ = 0 into Φ = 1e-31).
    eps = np.finfo(np.float64).eps
    scale = np.abs(x).max(axis=(-2, -1))
    ss_tot = np.square(x - grand).sum(axis=(-2, -1))
    tol = (16 * eps * scale) ** 2 * (n_t * n_s) + 16 * eps * ss_tot
    ss_s, ss_t, ss_r = (np.where(ss <= tol, 0.0, ss) for ss in (ss_s, ss_t, ss_r))
    df_s, df_t = n_s - 1, n_t - 1
    df_r = df_s * df_t
    shape = ss_s.shape
    return {
        "ss_system": ss_s,
        "ss_query": ss_t,
        "ss_residual": ss_r,
        "df_system": np.full(shape, float(df_s)),
        "df_query": np.full(shape, float(df_t)),
        "df_residual": np.full(shape, float(df_r)),
        "ms_system": ss_s / df_s,
        "ms_query": ss_t / df_t,
        "ms_residual": ss_r / df_r,
    }


@renamed_options(negative="negative_components")
def variance_components(
    ms_system: ArrayLike,
    ms_query: ArrayLike,
    ms_residual: ArrayLike,
    n_systems: np.ndarray | float,
    n_queries: np.ndarray | float,
    *,
    negative_components: NegativeComponents = "clip",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Variance components from the mean squares.

    ``var_system = (MS_s - MS_res)/n_t``, ``var_query = (MS_t - MS_res)/n_s``,
    ``var_residual = MS_res`` (interaction and error confounded). ``negative_components="clip"``
    (default, Brennan's convention) sets negative estimates to 0; ``"keep"`` keeps them
    (``negative=`` before 0.2, deprecated).
    Returns ``(var_system, var_query, var_residual)`` as float64 arrays.
    """
    check_option("negative_components", negative_components, NEGATIVE)
    ms_s, ms_t, ms_r = (np.asarray(a, dtype=np.float64) for a in (ms_system, ms_query, ms_residual))
    var_s = (ms_s - ms_r) / n_queries
    var_t = (ms_t - ms_r) / n_systems
    var_r = ms_r.copy()
    if negative_components == "clip":
        var_s, var_t = np.maximum(var_s, 0.0), np.maximum(var_t, 0.0)
    return var_s, var_t, var_r


def _coefficient(var_s, error, n):
    var_s, error, n = np.broadcast_arrays(
        *(np.asarray(a, dtype=np.float64) for a in (var_s, error, n))
    )
    den = var_s + error / n
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den != 0, var_s / np.where(den != 0, den, 1.0), np.nan)
    out = np.where(var_s == 0, np.where(den != 0, 0.0, np.nan), out)
    return out


def phi(
    var_system: ArrayLike, var_query: ArrayLike, var_residual: ArrayLike, n_queries: ArrayLike
) -> np.ndarray:
    """Dependability Φ(n′) = σ²_s / (σ²_s + (σ²_t + σ²_res)/n′) (Kanoulas & Aslam 2009, eq. 2).

    Zero denominator → NaN; σ²_s = 0 (with a non-zero denominator) → 0. Broadcasts.
    """
    return _coefficient(var_system, np.add(var_query, var_residual), n_queries)


def e_rho2(var_system: ArrayLike, var_residual: ArrayLike, n_queries: ArrayLike) -> np.ndarray:
    """Generalizability Eρ²(n′) = σ²_s / (σ²_s + σ²_res/n′). Broadcasts."""
    return _coefficient(var_system, var_residual, n_queries)


def queries_needed(var_system: ArrayLike, error: ArrayLike, target: float) -> np.ndarray:
    """Smallest integer n′ ≥ 1 with σ²_s/(σ²_s + error/n′) ≥ ``target``.

    ``error`` is σ²_t + σ²_res for Φ and σ²_res for Eρ². The closed form
    ⌈target·error / (σ²_s (1 − target))⌉ is corrected by ±1 against the coefficient itself,
    so floating error at integers cannot give a wrong answer. σ²_s = 0 → inf; error = 0 (and
    σ²_s > 0) → 1. Returns float64 (inf is a float).
    """
    var_s, error = np.broadcast_arrays(
        np.asarray(var_system, dtype=np.float64), np.asarray(error, dtype=np.float64)
    )
    out = np.full(var_s.shape, np.inf)
    ok = var_s > 0
    if not ok.any():
        return out
    vs, er = var_s[ok], error[ok]
    n = np.maximum(np.ceil(target * er / (vs * (1.0 - target))), 1.0)

    def reaches(m):
        return m * vs * (1.0 - target) >= target * er * (1.0 - 1e-12)

    # at most a step or two either way; loop over steps, vectorised over groups
    for _ in range(3):
        down = (n > 1) & reaches(np.maximum(n - 1, 1.0))
        n = np.where(down, n - 1, n)
    for _ in range(3):
        n = np.where(reaches(n), n, n + 1)
    out[ok] = n
    return out


def _f_ppf(q, d1, d2):
    from pdireval.stats._adapters import f_ppf

    return f_ppf(q, d1, d2)


def coefficient_intervals(
    tab: dict[str, np.ndarray],
    n_s: np.ndarray | float,
    n_t: np.ndarray | float,
    n_prime: np.ndarray | float,
    confidence_level: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Confidence intervals for Eρ²(n′) and Φ(n′), from the mean squares.

    Eρ²: exact under the normal random-effects model. F = MS_s/MS_res is distributed as
    (1 + n_t θ)·F(df_s, df_res) with θ = σ²_s/σ²_res (Feldt 1965; McGraw & Wong 1996,
    ICC(C, k)), so θ ∈ [(F/F_hi − 1)/n_t, (F/F_lo − 1)/n_t] and Eρ²(n′) = n′θ/(1 + n′θ)
    is monotone in θ. Φ: the Satterthwaite interval of McGraw & Wong (1996, Table 7,
    case 2A, ICC(A, 1)) for Φ(1), projected to n′ with the Spearman–Brown formula
    Φ(n′) = n′Φ(1)/(1 + (n′ − 1)Φ(1)). Bounds are clipped to [0, 1]; both use the
    unclipped variance components.
    """
    alpha = 1.0 - confidence_level
    ms_s, ms_t, ms_r = tab["ms_system"], tab["ms_query"], tab["ms_residual"]
    df_s, df_r = n_s - 1.0, (n_s - 1.0) * (n_t - 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        f_obs = ms_s / ms_r
        theta_lo = (f_obs / _f_ppf(1 - alpha / 2, df_s, df_r) - 1.0) / n_t
        theta_hi = (f_obs / _f_ppf(alpha / 2, df_s, df_r) - 1.0) / n_t
        theta_lo, theta_hi = np.maximum(theta_lo, 0.0), np.maximum(theta_hi, 0.0)
        # θ = inf (no residual variance, systems differ): Eρ² = 1 exactly
        e_lo = np.where(np.isinf(theta_lo), 1.0, n_prime * theta_lo / (1.0 + n_prime * theta_lo))
        e_hi = np.where(np.isinf(theta_hi), 1.0, n_prime * theta_hi / (1.0 + n_prime * theta_hi))

        # Φ(1) = ICC(A,1): n = n_s targets (rows), k = n_t raters (columns)
        n, k = n_s, n_t
        rho = (ms_s - ms_r) / (ms_s + (k - 1.0) * ms_r + k * (ms_t - ms_r) / n)
        # Satterthwaite's df need ρ̂ > 0; at ρ̂ <= 0 use the limit ρ̂ -> 0+ (a = 0, b = 1,
        # v = the residual df): the lower limit then clips to 0 instead of becoming NaN
        rho = np.maximum(rho, 0.0)
        a = k * rho / (n * (1.0 - rho))
        b = 1.0 + k * rho * (n - 1.0) / (n * (1.0 - rho))
        # v is scale-free: both terms are divided by the larger before squaring, so that mean
        # squares of large values (~1e100, their squares ~1e400) do not overflow
        at, br = a * ms_t, b * ms_r
        scale = np.maximum(np.abs(at), np.abs(br))
        scale = np.where(scale > 0, scale, 1.0)
        at, br = at / scale, br / scale
        v = np.square(at + br) / (
            np.square(at) / (k - 1.0) + np.square(br) / ((n - 1.0) * (k - 1.0))
        )
        f_star = _f_ppf(1 - alpha / 2, n - 1.0, v)
        f_star2 = _f_ppf(1 - alpha / 2, v, n - 1.0)
        common = k * ms_t + (k * n - k - n) * ms_r
        p_lo = n * (ms_s - f_star * ms_r) / (f_star * common + n * ms_s)
        p_hi = n * (f_star2 * ms_s - ms_r) / (common + n * f_star2 * ms_s)
        # no query and no residual variance while systems differ: Φ = 1 exactly
        exact = (ms_r == 0) & (ms_t == 0) & (ms_s > 0)
        p_lo, p_hi = np.where(exact, 1.0, p_lo), np.where(exact, 1.0, p_hi)
        p_lo, p_hi = np.clip(p_lo, 0.0, 1.0), np.clip(p_hi, 0.0, 1.0)
        phi_lo = n_prime * p_lo / (1.0 + (n_prime - 1.0) * p_lo)
        phi_hi = n_prime * p_hi / (1.0 + (n_prime - 1.0) * p_hi)
    return (
        np.clip(e_lo, 0.0, 1.0),
        np.clip(e_hi, 0.0, 1.0),
        np.clip(phi_lo, 0.0, 1.0),
        np.clip(phi_hi, 0.0, 1.0),
    )


# --------------------------------------------------------------------------- three facets

#: the seven effects of the fully crossed system x query x facet design, in output order
EFFECTS3 = ("system", "query", "facet", "system_query", "system_facet", "query_facet", "residual")


def anova_table3(x: np.ndarray) -> dict[str, np.ndarray]:
    """Three-way ANOVA without replication for a stack of query x system x facet arrays.

    The fully crossed random-effects design s × t × j with one observation per cell
    (Brennan 2001, Section 3.4): ``x[..., t, s, j]`` (queries, systems, facet levels such as
    judges or seeds on the last three axes). With x̄ the means over the omitted indices,

    SS_s = n_t n_j Σ_s (x̄_s − x̄)², SS_t and SS_j alike; SS_st = n_j Σ (x̄_st − x̄_s − x̄_t + x̄)²,
    SS_sj, SS_tj alike; SS_res = Σ (x − x̄_st − x̄_sj − x̄_tj + x̄_s + x̄_t + x̄_j − x̄)²
    (the three-way interaction confounded with error); df = n − 1 per facet, the products of
    the facets' df for the interactions; MS = SS / df.

    Returns
    -------
    dict of arrays (shape ``x.shape[:-3]``)
        ``ss_<effect>``, ``df_<effect>``, ``ms_<effect>`` for the effects of
        :data:`EFFECTS3` (``facet`` = the third facet).
    """
    x = np.asarray(x, dtype=np.float64)
    n_t, n_s, n_j = x.shape[-3:]
    ax_t, ax_s, ax_j = -3, -2, -1
    m = x.mean(axis=(-3, -2, -1), keepdims=True)
    m_s = x.mean(axis=(ax_t, ax_j), keepdims=True)
    m_t = x.mean(axis=(ax_s, ax_j), keepdims=True)
    m_j = x.mean(axis=(ax_t, ax_s), keepdims=True)
    m_st = x.mean(axis=ax_j, keepdims=True)
    m_sj = x.mean(axis=ax_t, keepdims=True)
    m_tj = x.mean(axis=ax_s, keepdims=True)
    axes = (-3, -2, -1)
    ss = {
        "system": n_t * n_j * np.square(m_s - m).sum(axis=axes),
        "query": n_s * n_j * np.square(m_t - m).sum(axis=axes),
        "facet": n_s * n_t * np.square(m_j - m).sum(axis=axes),
        "system_query": n_j * np.square(m_st - m_s - m_t + m).sum(axis=axes),
        "system_facet": n_t * np.square(m_sj - m_s - m_j + m).sum(axis=axes),
        "query_facet": n_s * np.square(m_tj - m_t - m_j + m).sum(axis=axes),
        "residual": np.square(x - m_st - m_sj - m_tj + m_s + m_t + m_j - m).sum(axis=axes),
    }
    # sums of squares at the level of floating rounding are exact zeros (as anova_table)
    eps = np.finfo(np.float64).eps
    scale = np.abs(x).max(axis=axes)
    ss_tot = np.square(x - m).sum(axis=axes)
    tol = (16 * eps * scale) ** 2 * (n_t * n_s * n_j) + 16 * eps * ss_tot
    df = {
        "system": n_s - 1,
        "query": n_t - 1,
        "facet": n_j - 1,
        "system_query": (n_s - 1) * (n_t - 1),
        "system_facet": (n_s - 1) * (n_j - 1),
        "query_facet": (n_t - 1) * (n_j - 1),
        "residual": (n_s - 1) * (n_t - 1) * (n_j - 1),
    }
    out = {}
    for e in EFFECTS3:
        s = np.where(ss[e] <= tol, 0.0, ss[e])
        out[f"ss_{e}"] = s
        out[f"df_{e}"] = np.full(s.shape, float(df[e]))
        with np.errstate(divide="ignore", invalid="ignore"):
            out[f"ms_{e}"] = s / df[e] if df[e] > 0 else np.full(s.shape, np.nan)
    return out


@renamed_options(negative="negative_components")
def variance_components3(
    tab: dict[str, np.ndarray],
    n_systems: ArrayLike,
    n_queries: ArrayLike,
    n_facet: ArrayLike,
    *,
    negative_components: NegativeComponents = "clip",
) -> dict[str, np.ndarray]:
    """The seven variance components of the s × t × j random-effects design.

    From the expected mean squares (Brennan 2001, Table 3.3; Bodoff & Li 2007):
    σ²_res = MS_res; σ²_st = (MS_st − MS_res)/n_j; σ²_sj = (MS_sj − MS_res)/n_t;
    σ²_tj = (MS_tj − MS_res)/n_s; σ²_s = (MS_s − MS_st − MS_sj + MS_res)/(n_t n_j);
    σ²_t = (MS_t − MS_st − MS_tj + MS_res)/(n_s n_j);
    σ²_j = (MS_j − MS_sj − MS_tj + MS_res)/(n_s n_t).
    Every component is estimated from the unclipped mean squares; ``negative_components="clip"``
    then sets negative estimates to 0 (Brennan's convention, as :func:`variance_components`);
    ``"keep"`` keeps them (``negative=`` before 0.2, deprecated).

    Returns
    -------
    dict
        effect name (:data:`EFFECTS3`) -> float64 array.
    """
    check_option("negative_components", negative_components, NEGATIVE)
    ms = {e: np.asarray(tab[f"ms_{e}"], dtype=np.float64) for e in EFFECTS3}
    n_s, n_t, n_j = (np.asarray(a, dtype=np.float64) for a in (n_systems, n_queries, n_facet))
    r = ms["residual"]
    var = {
        "residual": r.copy(),
        "system_query": (ms["system_query"] - r) / n_j,
        "system_facet": (ms["system_facet"] - r) / n_t,
        "query_facet": (ms["query_facet"] - r) / n_s,
        "system": (ms["system"] - ms["system_query"] - ms["system_facet"] + r) / (n_t * n_j),
        "query": (ms["query"] - ms["system_query"] - ms["query_facet"] + r) / (n_s * n_j),
        "facet": (ms["facet"] - ms["system_facet"] - ms["query_facet"] + r) / (n_s * n_t),
    }
    if negative_components == "clip":
        var = {e: np.maximum(v, 0.0) for e, v in var.items()}
    return {e: var[e] for e in EFFECTS3}


def error_variances3(
    var: dict[str, np.ndarray], n_queries: ArrayLike, n_facet: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """Relative and absolute error variances of the mean over n′_t queries and n′_j levels.

    σ²_δ = σ²_st/n′_t + σ²_sj/n′_j + σ²_res/(n′_t n′_j);
    σ²_Δ = σ²_δ + σ²_t/n′_t + σ²_j/n′_j + σ²_tj/(n′_t n′_j) (Brennan 2001, Section 4.2).
    Returns ``(relative, absolute)``; broadcasts.
    """
    nt, nj = np.asarray(n_queries, dtype=np.float64), np.asarray(n_facet, dtype=np.float64)
    rel = var["system_query"] / nt + var["system_facet"] / nj + var["residual"] / (nt * nj)
    absolute = rel + var["query"] / nt + var["facet"] / nj + var["query_facet"] / (nt * nj)
    return rel, absolute


def coefficients3(
    var: dict[str, np.ndarray], n_queries: ArrayLike, n_facet: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """``(e_rho2, phi)`` = σ²_s/(σ²_s + σ²_δ) and σ²_s/(σ²_s + σ²_Δ) at n′_t, n′_j.

    Zero denominator → NaN; σ²_s = 0 (non-zero denominator) → 0. Broadcasts.
    """
    rel, absolute = error_variances3(var, n_queries, n_facet)
    return _coefficient(var["system"], rel, 1.0), _coefficient(var["system"], absolute, 1.0)


def queries_needed3(
    var: dict[str, np.ndarray],
    n_facet: ArrayLike,
    target: float,
    *,
    coefficient: Literal["phi", "e_rho2"] = "phi",
) -> np.ndarray:
    """Smallest integer n′_t with Φ(n′_t, n′_j) (or Eρ²) ≥ ``target`` at n′_j facet levels.

    Φ ≥ t ⇔ n′_t (σ²_s (1 − t) − t A) ≥ t B, with A = (σ²_j + σ²_sj)/n′_j (the error that
    more queries do not shrink) and B = σ²_t + σ²_st + (σ²_tj + σ²_res)/n′_j: inf when
    σ²_s (1 − t) ≤ t A (no number of queries reaches the target with n′_j levels). For Eρ²,
    A = σ²_sj/n′_j and B = σ²_st + σ²_res/n′_j.
    """
    nj = np.asarray(n_facet, dtype=np.float64)
    if coefficient == "phi":
        a = (var["facet"] + var["system_facet"]) / nj
        b = var["query"] + var["system_query"] + (var["query_facet"] + var["residual"]) / nj
    else:
        a = var["system_facet"] / nj
        b = var["system_query"] + var["residual"] / nj
    effective = var["system"] - target * a / (1.0 - target)
    return queries_needed(np.where(np.isnan(effective), 0.0, effective), b, target)
