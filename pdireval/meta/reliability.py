"""Generalizability theory on scores frames: G-study, D-study, queries needed.

Design: systems s = 1..n_s crossed with queries t = 1..n_t, one score per cell,
``x_st = mu + nu_s + nu_t + nu_st,e`` (Brennan 2001; Bodoff & Li 2007; Kanoulas & Aslam 2009, Section 2.1;
Gienapp et al. 2020, Section 3). Everything here is closed form on the query x system matrix of each group of
a scores frame; groups of equal shape are stacked and computed at once.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdireval.core.groups import describe_group, group_columns, group_matrices
from pdireval.core.schema import canonical_scores
from pdireval.docstrings import shared_docs
from pdireval.errors import OptionError, SchemaError, check_option, check_real
from pdireval.stats.gtheory import (
    NEGATIVE,
    anova_table,
    coefficient_intervals,
    e_rho2,
    phi,
    queries_needed,
    variance_components,
)

__all__ = ["reliability", "d_study", "variance_components", "phi", "e_rho2", "queries_needed"]



# --------------------------------------------------------------------------- closed forms


















# --------------------------------------------------------------------------- frames -> stacks


def _group_matrices(frame: pd.DataFrame):
    """``(keys, matrix)`` per group: the float64 (n_t, n_s) array of the group's complete
    query x system table (:func:`~pdireval.core.groups.group_matrices`), at least 2 x 2."""
    out = []
    for keys, matrix in group_matrices(frame):
        n_q, n_s = matrix.shape
        if n_s < 2 or n_q < 2:
            raise SchemaError(
                f"the {describe_group(keys)} have {n_s} system(s) and {n_q} "
                "query(ies): a generalizability study needs at least 2 systems and 2 queries. "
                "Evaluate more systems or queries for this group, or drop it."
            )
        out.append((keys, matrix.to_numpy(dtype=np.float64)))
    return out


def _tables(frame: pd.DataFrame):
    """Group keys and the ANOVA table of every group (stacked by shape, computed at once)."""
    mats = _group_matrices(frame)
    n = len(mats)
    cols = ("ss_system", "ss_query", "ss_residual", "df_system", "df_query", "df_residual", "ms_system", "ms_query", "ms_residual")
    tab = {c: np.empty(n) for c in cols}
    n_s = np.empty(n)
    n_t = np.empty(n)
    by_shape: dict[tuple, list[int]] = {}
    for i, (_, m) in enumerate(mats):
        by_shape.setdefault(m.shape, []).append(i)
    for shape, idx in by_shape.items():
        part = anova_table(np.stack([mats[i][1] for i in idx]))
        for c in cols:
            tab[c][idx] = part[c]
        n_t[idx], n_s[idx] = shape
    return [k for k, _ in mats], tab, n_s, n_t


def _check_target(target):
    return check_real("target", target, low=0, high=1, inclusive=False)


def _check_sizes(n_queries, name):
    if isinstance(n_queries, (bool, np.bool_)) or (
            isinstance(n_queries, (list, tuple)) and any(isinstance(n, (bool, np.bool_)) for n in n_queries)):
        raise TypeError(f"{name} must be a positive number of queries or a list of them, not a bool ({n_queries!r})")
    arr = np.atleast_1d(np.asarray(n_queries, dtype=np.float64)) if not isinstance(n_queries, str) else None
    if arr is None or arr.ndim != 1 or len(arr) == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise OptionError(f"{name} must be a positive number of queries or a non-empty list of them, got {n_queries!r}")
    return arr


def _check_confidence(confidence_level):
    return check_real("confidence_level", confidence_level, low=0, high=1, inclusive=False)


def _key_frame(keys_list, frame: pd.DataFrame, repeat: int = 1) -> dict:
    """Grouping-key columns (in the scores frame's dtypes), each group repeated ``repeat`` times."""
    out = {}
    for c in group_columns(frame):
        values = [k.get(c) for k in keys_list for _ in range(repeat)]
        out[c] = pd.array(values, dtype=frame[c].dtype) if values else pd.array([], dtype=frame[c].dtype)
    return out


# --------------------------------------------------------------------------- public


@shared_docs
def reliability(
    scores: pd.DataFrame,
    *,
    n_queries=None,
    target: float = 0.95,
    negative: str = "clip",
    confidence_level: float = 0.95,
    columns=None,
) -> pd.DataFrame:
    """Generalizability-theory reliability of each measure: variance components, Φ, Eρ².

    For every group of ``scores`` (every column other than ``system``, ``query`` and
    ``value`` is a grouping key, so ``measure`` and any extras such as ``k`` or
    ``collection``), fits the additive two-way ANOVA without replication on the complete
    query x system matrix (the G-study) and projects it to a query-set size (the D-study)
    (Brennan 2001; Bodoff & Li 2007; Kanoulas & Aslam 2009;
    Gienapp et al. 2020):

    .. math::

        SS_s = n_t \\sum_s (\\bar x_{s\\cdot} - \\bar x)^2,\\quad
        SS_t = n_s \\sum_t (\\bar x_{\\cdot t} - \\bar x)^2,\\quad
        SS_{res} = \\sum_{s,t} (x_{st} - \\bar x_{s\\cdot} - \\bar x_{\\cdot t} + \\bar x)^2

        \\sigma^2_s = \\frac{MS_s - MS_{res}}{n_t},\\quad
        \\sigma^2_t = \\frac{MS_t - MS_{res}}{n_s},\\quad
        \\sigma^2_{st,e} = MS_{res}

        \\Phi(n') = \\frac{\\sigma^2_s}{\\sigma^2_s + (\\sigma^2_t + \\sigma^2_{st,e})/n'},\\quad
        E\\rho^2(n') = \\frac{\\sigma^2_s}{\\sigma^2_s + \\sigma^2_{st,e}/n'}

    Both coefficients *increase* with n′ and Eρ² ≥ Φ (equality iff σ²_t = 0 or σ²_s = 0);
    These are the published formulas; where the papers' text or code departs from them, see
    docs/reliability.md.

    Parameters
    ----------
    scores
        A scores frame (``system, query, measure, value`` + grouping columns), e.g. from
        :func:`pdireval.evaluate`. Each group must form a complete system x query matrix.
    n_queries
        D-study query-set size n′ for ``phi`` and ``e_rho2`` (default: each group's observed
        number of queries). Need not be an integer.
    target
        Coefficient to reach for ``queries_needed`` (0 < target < 1). Kanoulas & Aslam's (2009) tables use
        0.95 (its text once says 0.9 for Table 1, whose caption says 0.95).
    negative
        ``"clip"`` (default, Brennan): negative variance-component estimates are set to 0.
        ``"keep"``: keep them (then Φ can fall outside [0, 1]).
    {confidence_level}
    {columns}

    Returns
    -------
    DataFrame
        One row per group, in ``scores_groups`` order (measures in order of first
        appearance), columns:

        - grouping keys (``measure`` and any extra columns of ``scores``);
        - ``n_systems``, ``n_queries_observed`` (int64): the matrix size;
        - ``n_queries`` (float64): the D-study size n′ the coefficients refer to;
        - ``var_system``, ``var_query``, ``var_residual``: σ²_s, σ²_t, σ²_st,e;
        - ``share_system``, ``share_query``, ``share_residual``: each component over
          their sum (NaN when all are 0);
        - ``e_rho2``, ``phi``: Eρ²(n′) and Φ(n′) (NaN for a zero denominator; 0 when
          σ²_s = 0);
        - ``e_rho2_ci_low``, ``e_rho2_ci_high``: exact F interval for Eρ²(n′) (Feldt 1965;
          McGraw & Wong 1996, ICC(C,k) generalised to n′);
        - ``phi_ci_low``, ``phi_ci_high``: McGraw & Wong's (1996) Satterthwaite interval for
          Φ(1) = ICC(A,1), projected to n′ by Spearman–Brown (approximate);
        - ``queries_needed``: smallest integer n′ with Φ(n′) ≥ ``target`` (float64; inf when
          σ²_s = 0); ``queries_needed_e_rho2`` the same for Eρ²;
        - ``ss_system, ss_query, ss_residual, df_system, df_query, df_residual,
          ms_system, ms_query, ms_residual``: the ANOVA table.

    Raises
    ------
    SchemaError
        A group is not a complete system x query matrix (the message names the missing
        (system, query) cells and the two ways out: drop those queries, or evaluate with
        ``missing="zero"``), or has fewer than 2 systems or 2 queries.

    References
    ----------
    Brennan, R. L. (2001). Generalizability Theory. Springer.
    Bodoff, D., & Li, P. (2007). Test Theory for Assessing IR Test Collections. SIGIR 2007.
    Kanoulas, E., & Aslam, J. A. (2009). Empirical Justification of the Gain and Discount Function for nDCG. CIKM 2009.
    Gienapp, L., Fröbe, M., Hagen, M., & Potthast, M. (2020). The Impact of Negative Relevance Judgments on NDCG. CIKM 2020.
    Feldt, L. S. (1965). The Approximate Sampling Distribution of Kuder-Richardson Reliability Coefficient Twenty. Psychometrika 30(3).
    McGraw, K. O., & Wong, S. P. (1996). Forming Inferences About Some Intraclass Correlation Coefficients. Psychological Methods 1(1).

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=8, n_queries=20, rng=1)
    >>> scores = pdireval.evaluate(run, ["nDCG@10", "AP"], qrels=qrels)
    >>> rel = pdireval.reliability(scores)
    >>> list(rel["measure"])
    ['nDCG@10', 'AP']
    """
    target = _check_target(target)
    confidence_level = _check_confidence(confidence_level)
    check_option("negative", negative, NEGATIVE)
    frame = canonical_scores(scores, columns)
    keys_list, tab, n_s, n_t = _tables(frame)
    if n_queries is None:
        n_prime = n_t.copy()
    else:
        n_prime = _check_sizes(n_queries, "n_queries=")
        if len(n_prime) != 1:
            raise OptionError("n_queries= takes one size; use pdireval.d_study(scores, n_queries) for several")
        n_prime = np.full(len(n_t), n_prime[0])
    var_s, var_t, var_r = variance_components(tab["ms_system"], tab["ms_query"], tab["ms_residual"], n_s, n_t, negative=negative)
    total = var_s + var_t + var_r
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = [np.where(total != 0, v / np.where(total != 0, total, 1.0), np.nan) for v in (var_s, var_t, var_r)]
    e_lo, e_hi, p_lo, p_hi = coefficient_intervals(tab, n_s, n_t, n_prime, confidence_level)
    out = _key_frame(keys_list, frame)
    out.update(
        {
            "n_systems": n_s.astype(np.int64),
            "n_queries": n_prime,
            "n_queries_observed": n_t.astype(np.int64),
            "var_system": var_s,
            "var_query": var_t,
            "var_residual": var_r,
            "share_system": shares[0],
            "share_query": shares[1],
            "share_residual": shares[2],
            "e_rho2": e_rho2(var_s, var_r, n_prime),
            "e_rho2_ci_low": e_lo,
            "e_rho2_ci_high": e_hi,
            "phi": phi(var_s, var_t, var_r, n_prime),
            "phi_ci_low": p_lo,
            "phi_ci_high": p_hi,
            "queries_needed": queries_needed(var_s, var_t + var_r, target),
            "queries_needed_e_rho2": queries_needed(var_s, var_r, target),
        }
    )
    out.update(tab)
    return pd.DataFrame(out)


@shared_docs
def d_study(
    scores: pd.DataFrame,
    n_queries,
    *,
    negative: str = "clip",
    confidence_level: float = 0.95,
    columns=None,
) -> pd.DataFrame:
    """D-study curves: Φ(n′) and Eρ²(n′) of each measure for several query-set sizes.

    The variance components are estimated once per group (as in :func:`reliability`, the
    G-study on the observed matrix) and projected to every size in ``n_queries`` (Kanoulas & Aslam 2009, Section 2.1:
    the projected size need not equal, and may exceed, the observed one).

    Parameters
    ----------
    scores
        A scores frame; every group must be a complete system x query matrix.
    n_queries
        query-set sizes n′ > 0 (a number or a list), e.g. ``range(1, 201)``.
    negative, confidence_level
        As in :func:`reliability`.
    {columns}

    Returns
    -------
    DataFrame
        One row per group and size (groups in ``scores_groups`` order, then n_queries as given):
        grouping keys, ``n_queries`` (float64, the size n′), ``phi``, ``phi_ci_low``,
        ``phi_ci_high``, ``e_rho2``, ``e_rho2_ci_low``, ``e_rho2_ci_high`` (definitions and
        intervals as in :func:`reliability`).

    References
    ----------
    Brennan, R. L. (2001). Generalizability Theory. Springer.
    Kanoulas, E., & Aslam, J. A. (2009). Empirical Justification of the Gain and Discount Function for nDCG. CIKM 2009.

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=8, n_queries=20, rng=1)
    >>> scores = pdireval.evaluate(run, "AP", qrels=qrels)
    >>> curve = pdireval.d_study(scores, [10, 50, 100])
    >>> bool(curve["phi"].is_monotonic_increasing)
    True
    """
    confidence_level = _check_confidence(confidence_level)
    check_option("negative", negative, NEGATIVE)
    size = _check_sizes(n_queries, "n_queries")
    frame = canonical_scores(scores, columns)
    keys_list, tab, n_s, n_t = _tables(frame)
    var_s, var_t, var_r = variance_components(tab["ms_system"], tab["ms_query"], tab["ms_residual"], n_s, n_t, negative=negative)
    g = len(keys_list)
    rep = lambda a: np.repeat(a, len(size))  # noqa: E731
    big = {k: rep(v) for k, v in tab.items()}
    n_prime = np.tile(size, g)
    e_lo, e_hi, p_lo, p_hi = coefficient_intervals(big, rep(n_s), rep(n_t), n_prime, confidence_level)
    out = _key_frame(keys_list, frame, repeat=len(size))
    out.update(
        {
            "n_queries": n_prime,
            "phi": phi(rep(var_s), rep(var_t), rep(var_r), n_prime),
            "phi_ci_low": p_lo,
            "phi_ci_high": p_hi,
            "e_rho2": e_rho2(rep(var_s), rep(var_r), n_prime),
            "e_rho2_ci_low": e_lo,
            "e_rho2_ci_high": e_hi,
        }
    )
    return pd.DataFrame(out)
