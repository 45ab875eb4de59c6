"""Generalizability theory on scores frames: G-study, D-study, queries needed.

Design: systems s = 1..n_s crossed with queries t = 1..n_t, one score per cell,
``x_st = mu + nu_s + nu_t + nu_st,e`` (Brennan 2001; Bodoff & Li 2007; Kanoulas & Aslam 2009,
Section 2.1; Gienapp et al. 2020, Section 3). Everything here is closed form on the query x system
matrix of each group of a scores frame; groups of equal shape are stacked and computed at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.groups import describe_group, group_columns, group_matrices, scores_groups
from pdireval.docstrings import shared_docs
from pdireval.errors import (
    OptionError,
    SchemaError,
    check_option,
    check_real,
    renamed_options,
    show_rows,
)
from pdireval.meta.inputs import meta_scores
from pdireval.meta.seeds import require_level_ids
from pdireval.stats.gtheory import (
    EFFECTS3,
    NEGATIVE,
    anova_table,
    anova_table3,
    coefficient_intervals,
    coefficients3,
    e_rho2,
    phi,
    queries_needed,
    queries_needed3,
    variance_components,
    variance_components3,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from pdireval.types import Columns, NegativeComponents

__all__ = [
    "reliability",
    "d_study",
    "variance_components",
    "phi",
    "e_rho2",
    "queries_needed",
    "FACETS",
]


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
    cols = (
        "ss_system",
        "ss_query",
        "ss_residual",
        "df_system",
        "df_query",
        "df_residual",
        "ms_system",
        "ms_query",
        "ms_residual",
    )
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
    unit = name.rstrip("=").removeprefix("n_")  # queries, judges, seeds
    if isinstance(n_queries, (bool, np.bool_)) or (
        isinstance(n_queries, (list, tuple))
        and any(isinstance(n, (bool, np.bool_)) for n in n_queries)
    ):
        raise TypeError(
            f"{name} must be a positive number of {unit} or a list of them, not a "
            f"bool ({n_queries!r})"
        )
    try:
        arr = (
            np.atleast_1d(np.asarray(n_queries, dtype=np.float64))
            if not isinstance(n_queries, (str, bytes, dict))
            else None
        )
    except (TypeError, ValueError):  # e.g. a list holding a string or a list
        arr = None
    if (
        arr is None
        or arr.ndim != 1
        or len(arr) == 0
        or not np.all(np.isfinite(arr))
        or np.any(arr <= 0)
    ):
        raise OptionError(
            f"{name} must be a positive number of {unit} or a non-empty list of "
            f"them, got {n_queries!r}"
        )
    return arr


def _check_confidence(confidence_level):
    return check_real("confidence_level", confidence_level, low=0, high=1, inclusive=False)


def _key_frame(keys_list, frame: pd.DataFrame, repeat: int = 1) -> dict:
    """Grouping-key columns (in the scores frame's dtypes), each group repeated ``repeat`` times."""
    out = {}
    for c in group_columns(frame):
        values = [k.get(c) for k in keys_list for _ in range(repeat)]
        out[c] = (
            pd.array(values, dtype=frame[c].dtype) if values else pd.array([], dtype=frame[c].dtype)
        )
    return out


# --------------------------------------------------------------------------- three facets

#: the facets a scores column can add to system x query (judges of multi-judge qrels, seeds
#: or trials of a stochastic system)
FACETS = ("judge", "seed")


def _check_facets(facets) -> str | None:
    """None for the two-facet design ("query",), else the name of the third facet."""
    if isinstance(facets, str):
        facets = (facets,)
    try:
        facets = tuple(facets)
    except TypeError:
        raise TypeError(
            f"facets must be a tuple of facet names such as ('query', 'judge'), "
            f"got {type(facets).__name__}"
        ) from None
    allowed = [("query",)] + [("query", f) for f in FACETS]
    if facets not in allowed:
        raise OptionError(
            f"facets must be one of {', '.join(map(repr, allowed))} (systems are always "
            f"the object of measurement), got {facets!r}."
        )
    return facets[1] if len(facets) == 2 else None


def _facet_arrays(frame: pd.DataFrame, facet: str):
    """``(keys, x)`` per group: the float64 (n_t, n_s, n_j) array of the group's complete
    query x system x facet table (queries, systems, levels sorted as strings)."""
    if facet not in frame.columns:
        raise SchemaError(
            f"facets=('query', {facet!r}) needs a {facet!r} column in the scores (it has "
            f"{list(frame.columns)!r}). Evaluate with qrels of several judges "
            "(pdireval.evaluate(..., qrels=multi) gives a 'judge' column), or add the column."
            if facet == "judge"
            else f"facets=('query', {facet!r}) needs a {facet!r} column in the scores (it has "
            f"{list(frame.columns)!r}): one row per system, query, measure and {facet}."
        )
    require_level_ids(frame, facet, f"reliability(facets=('query', {facet!r}))")
    keys = [c for c in group_columns(frame) if c != facet]
    s_code, s_ids = pd.factorize(frame["system"], sort=True)
    q_code, q_ids = pd.factorize(frame["query"], sort=True)
    j_code, j_ids = pd.factorize(frame[facet].astype(str), sort=True)
    value = frame["value"].to_numpy(dtype=np.float64)
    out = []
    for key, group in scores_groups(frame.set_axis(pd.RangeIndex(len(frame))), keys):
        idx = group.index.to_numpy()
        s_used, s_i = np.unique(s_code[idx], return_inverse=True)
        q_used, q_i = np.unique(q_code[idx], return_inverse=True)
        j_used, j_i = np.unique(j_code[idx], return_inverse=True)
        n_s, n_t, n_j = len(s_used), len(q_used), len(j_used)
        where = describe_group(key)
        if n_s < 2 or n_t < 2:
            raise SchemaError(
                f"the {where} have {n_s} system(s) and {n_t} query(ies): a generalizability "
                "study needs at least 2 systems and 2 queries. Evaluate more systems or "
                "queries for this group, or drop it."
            )
        x = np.full((n_t, n_s, n_j), np.nan)
        x[q_i, s_i, j_i] = value[idx]
        bad = np.isnan(x)
        if bad.any():
            t, s, j = np.nonzero(bad)
            present = np.zeros(bad.shape, dtype=bool)
            present[q_i, s_i, j_i] = True
            cells = pd.DataFrame(
                {
                    "system": np.asarray(s_ids)[s_used[s]],
                    "query": np.asarray(q_ids)[q_used[t]],
                    facet: np.asarray(j_ids)[j_used[j]],
                    "cause": np.where(present[t, s, j], "value is NaN", "no row"),
                }
            )
            raise SchemaError(
                f"the {where} do not form a complete system x query x {facet} table (the "
                f"design is unbalanced): {int(bad.sum())} of {bad.size} cells have no usable "
                f"value:{show_rows(cells)}\nThe variance components are the fully crossed "
                f"design's; keep the queries every {facet} covers (e.g. drop queries some "
                f"{facet} did not judge or some system did not answer, evaluate with "
                "missing='zero'), or drop the NaN values' queries.",
                failure_cases=cells,
            )
        out.append((key, x))
    return keys, out


def _tables3(frame: pd.DataFrame, facet: str):
    """Group keys, the three-way ANOVA table (one-level facets: NaN) and the sizes per group."""
    keys, arrays = _facet_arrays(frame, facet)
    n = len(arrays)
    tab: dict[str, np.ndarray] = {}
    sizes = np.empty((n, 3))
    by_shape: dict[tuple, list[int]] = {}
    for i, (_, x) in enumerate(arrays):
        by_shape.setdefault(x.shape, []).append(i)
        sizes[i] = x.shape
    for shape, idx in by_shape.items():
        stack = np.stack([arrays[i][1] for i in idx])
        if shape[2] > 1:
            part = anova_table3(stack)
        else:  # one level: the two-way table of the query x system matrix, nothing else
            two = anova_table(stack[..., 0])
            part = {
                f"{w}_{e}": np.full(len(idx), np.nan) for w in ("ss", "df", "ms") for e in EFFECTS3
            }
            for w in ("ss", "df", "ms"):
                part[f"{w}_system"] = two[f"{w}_system"]
                part[f"{w}_query"] = two[f"{w}_query"]
                part[f"{w}_residual"] = two[f"{w}_residual"]
        for c, v in part.items():
            tab.setdefault(c, np.empty(n))[idx] = v
    n_t, n_s, n_j = sizes.T
    return [k for k, _ in arrays], keys, tab, n_s, n_t, n_j


def _components3(tab, n_s, n_t, n_j, negative_components):
    """Variance components per group; one-level facets give the two-facet components and NaN
    for the effects that involve the facet or are confounded with the residual."""
    var = variance_components3(tab, n_s, n_t, n_j, negative_components=negative_components)
    one = n_j == 1
    if one.any():
        two = variance_components(
            tab["ms_system"][one],
            tab["ms_query"][one],
            tab["ms_residual"][one],
            n_s[one],
            n_t[one],
            negative_components=negative_components,
        )
        for e, v in zip(("system", "query", "residual"), two):
            var[e][one] = v
        for e in ("facet", "system_query", "system_facet", "query_facet"):
            var[e][one] = np.nan
    return var


def _coefficients3(var, n_t_prime, n_j_prime, one):
    """Eρ², Φ, queries needed (at ``target`` later): with one observed level, only n′_j = 1
    is defined (the components that involve the facet are not estimable)."""
    filled = {e: np.nan_to_num(v, nan=0.0) for e, v in var.items()}
    e_rho2_, phi_ = coefficients3(filled, n_t_prime, n_j_prime)
    undefined = one & (np.asarray(n_j_prime) != 1)
    return (
        np.where(undefined, np.nan, e_rho2_),
        np.where(undefined, np.nan, phi_),
        filled,
        undefined,
    )


def _names3(facet: str) -> dict[str, str]:
    """Output column stem of each effect: judge -> judge, system_judge, query_judge."""
    return {e: e.replace("facet", facet) for e in EFFECTS3}


def _facet_size(facet, n_judges, n_seeds):
    given = {"judge": n_judges, "seed": n_seeds}
    for name, value in given.items():
        if value is not None and name != facet:
            raise OptionError(
                f"n_{name}s= sizes the {name!r} facet, but the facets are "
                f"{('query', facet) if facet else ('query',)!r}: use "
                + (f"n_{facet}s=." if facet else f"facets=('query', {name!r}).")
            )
    return given.get(facet) if facet else None


def _reliability3(frame, facet, *, n_queries, n_levels, target, negative_components):
    keys_list, _, tab, n_s, n_t, n_j = _tables3(frame, facet)
    var = _components3(tab, n_s, n_t, n_j, negative_components)
    g = len(keys_list)
    if n_queries is None:
        n_t_prime = n_t.copy()
    else:
        n_t_prime = _check_sizes(n_queries, "n_queries=")
        if len(n_t_prime) != 1:
            raise OptionError("n_queries= takes one size; use pdireval.d_study for several")
        n_t_prime = np.full(g, n_t_prime[0])
    if n_levels is None:
        n_j_prime = n_j.copy()
    else:
        n_j_prime = _check_sizes(n_levels, f"n_{facet}s=")
        if len(n_j_prime) != 1:
            raise OptionError(f"n_{facet}s= takes one size; use pdireval.d_study for several")
        n_j_prime = np.full(g, n_j_prime[0])
    one = n_j == 1
    e_rho2_, phi_, filled, undefined = _coefficients3(var, n_t_prime, n_j_prime, one)
    needed = np.where(undefined, np.nan, queries_needed3(filled, n_j_prime, target))
    needed_e = np.where(
        undefined, np.nan, queries_needed3(filled, n_j_prime, target, coefficient="e_rho2")
    )
    names = _names3(facet)
    total = sum(filled.values())
    out = _key_frame(keys_list, frame.drop(columns=facet))
    out.update(
        {
            "n_systems": n_s.astype(np.int64),
            "n_queries_observed": n_t.astype(np.int64),
            f"n_{facet}s_observed": n_j.astype(np.int64),
            "n_queries": n_t_prime,
            f"n_{facet}s": n_j_prime,
        }
    )
    for e in EFFECTS3:
        out[f"var_{names[e]}"] = var[e]
    with np.errstate(divide="ignore", invalid="ignore"):
        for e in EFFECTS3:
            out[f"share_{names[e]}"] = np.where(
                total != 0, var[e] / np.where(total != 0, total, 1.0), np.nan
            )
    out.update(
        {
            "e_rho2": e_rho2_,
            "phi": phi_,
            "queries_needed": needed,
            "queries_needed_e_rho2": needed_e,
        }
    )
    for w in ("ss", "df", "ms"):
        for e in EFFECTS3:
            out[f"{w}_{names[e]}"] = tab[f"{w}_{e}"]
    return pd.DataFrame(out)


def _d_study3(frame, facet, size, levels, negative_components):
    keys_list, _, tab, n_s, n_t, n_j = _tables3(frame, facet)
    var = _components3(tab, n_s, n_t, n_j, negative_components)
    if levels is None:  # each group's observed number of levels
        g, a, b = len(keys_list), len(size), 1
        n_j_prime = np.repeat(n_j, a)
    else:
        g, a, b = len(keys_list), len(size), len(levels)
        n_j_prime = np.tile(np.tile(levels, a), g)
    n_t_prime = np.tile(np.repeat(size, b), g)
    rep = {e: np.repeat(v, a * b) for e, v in var.items()}
    e_rho2_, phi_, _, _ = _coefficients3(rep, n_t_prime, n_j_prime, np.repeat(n_j == 1, a * b))
    out = _key_frame(keys_list, frame.drop(columns=facet), repeat=a * b)
    out.update({"n_queries": n_t_prime, f"n_{facet}s": n_j_prime, "phi": phi_, "e_rho2": e_rho2_})
    return pd.DataFrame(out)


# --------------------------------------------------------------------------- public


@renamed_options(negative="negative_components")
@shared_docs
def reliability(
    scores: pd.DataFrame,
    *,
    n_queries: float | None = None,
    target: float = 0.95,
    negative_components: NegativeComponents = "clip",
    confidence_level: float = 0.95,
    columns: Columns = None,
    facets: str | Sequence[str] = ("query",),
    n_judges: float | None = None,
    n_seeds: float | None = None,
) -> pd.DataFrame:
    r"""Generalizability-theory reliability of each measure: variance components, Φ, Eρ².

    For every group of ``scores`` (every column other than ``system``, ``query`` and
    ``value`` is a grouping key, so ``measure`` and any extras such as ``k`` or
    ``collection``), fits the additive two-way ANOVA without replication on the complete
    query x system matrix (the G-study) and projects it to a query-set size (the D-study)
    (Brennan 2001; Bodoff & Li 2007; Kanoulas & Aslam 2009;
    Gienapp et al. 2020):

    .. math::

        SS_s = n_t \sum_s (\bar x_{s\cdot} - \bar x)^2,\quad
        SS_t = n_s \sum_t (\bar x_{\cdot t} - \bar x)^2,\quad
        SS_{res} = \sum_{s,t} (x_{st} - \bar x_{s\cdot} - \bar x_{\cdot t} + \bar x)^2

        \sigma^2_s = \frac{MS_s - MS_{res}}{n_t},\quad
        \sigma^2_t = \frac{MS_t - MS_{res}}{n_s},\quad
        \sigma^2_{st,e} = MS_{res}

        \Phi(n') = \frac{\sigma^2_s}{\sigma^2_s + (\sigma^2_t + \sigma^2_{st,e})/n'},\quad
        E\rho^2(n') = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2_{st,e}/n'}

    Both coefficients *increase* with n′ and Eρ² ≥ Φ (equality iff σ²_t = 0 or σ²_s = 0).
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
        Coefficient to reach for ``queries_needed`` (0 < target < 1). Kanoulas & Aslam's (2009)
        tables use 0.95 (its text once says 0.9 for Table 1, whose caption says 0.95).
    negative_components
        What to do with negative variance-component estimates (``negative=`` before 0.2,
        deprecated). ``"clip"`` (default, Brennan): set them to 0. ``"keep"``: keep them
        (then Φ can fall outside [0, 1]).
    {confidence_level}
    {columns}
    facets
        ``("query",)`` (default): the two-facet design above. ``("query", "judge")`` or
        ``("query", "seed")``: the fully crossed random-effects design system × query × j,
        j the levels of the scores' ``judge`` (or ``seed``) column (e.g. :func:`pdireval.evaluate`
        on qrels of several judges), one observation per cell (Brennan 2001, Sections 3.4
        and 4.2; Bodoff & Li 2007 for assessors). Seven variance components from the
        expected mean squares, σ²_res = MS_res (the three-way interaction confounded with
        error), σ²_sq = (MS_sq − MS_res)/n_j, σ²_sj = (MS_sj − MS_res)/n_q,
        σ²_qj = (MS_qj − MS_res)/n_s, σ²_s = (MS_s − MS_sq − MS_sj + MS_res)/(n_q n_j),
        σ²_q = (MS_q − MS_sq − MS_qj + MS_res)/(n_s n_j),
        σ²_j = (MS_j − MS_sj − MS_qj + MS_res)/(n_s n_q), each from the unclipped mean
        squares, then clipped by ``negative_components``; and for n′_q queries and n′_j judges

        .. math::

            \sigma^2_\delta = \frac{\sigma^2_{sq}}{n'_q} + \frac{\sigma^2_{sj}}{n'_j}
                + \frac{\sigma^2_{res}}{n'_q n'_j},\quad
            \sigma^2_\Delta = \sigma^2_\delta + \frac{\sigma^2_q}{n'_q}
                + \frac{\sigma^2_j}{n'_j} + \frac{\sigma^2_{qj}}{n'_q n'_j},\quad
            E\rho^2 = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2_\delta},\quad
            \Phi = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2_\Delta}.

        Every group must be a complete (balanced) system × query × j table: an unbalanced
        design is a SchemaError naming the missing cells. With one level of j the study is
        the two-facet one (the judge effects are not estimable: NaN, and σ²_sq is part of
        the residual). No confidence intervals are given for three facets.
    n_judges, n_seeds
        D-study number of judges n′_j (``facets=("query", "judge")``) or of seeds
        (``("query", "seed")``); default: each group's observed number.

    Returns
    -------
    DataFrame
        One row per group, in ``scores_groups`` order (measures in order of first
        appearance). With three facets: the grouping keys (the facet column excluded),
        ``n_systems``, ``n_queries_observed``, ``n_judges_observed`` (int64), ``n_queries``,
        ``n_judges`` (the D-study sizes), ``var_system, var_query, var_judge,
        var_system_query, var_system_judge, var_query_judge, var_residual``, the matching
        ``share_*`` (over the sum of the seven; NaN components count 0), ``e_rho2``,
        ``phi``, ``queries_needed`` (smallest integer n′_q with Φ(n′_q, n′_j) ≥ ``target``;
        inf when even infinitely many queries fall short, since σ²_j and σ²_sj shrink with
        judges only), ``queries_needed_e_rho2`` (the same for Eρ²) and the ANOVA table ``ss_*``,
        ``df_*``, ``ms_*`` of the seven effects (``seed`` in place of ``judge`` for the seed
        facet). With two facets, columns:

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
        ``missing="zero"``), or has fewer than 2 systems or 2 queries; with three facets, an
        unbalanced system × query × judge table, or no such column.
    OptionError
        Unknown ``facets``, or ``n_judges`` / ``n_seeds`` for another facet.

    References
    ----------
    Brennan, R. L. (2001). Generalizability Theory. Springer.
    Bodoff, D., & Li, P. (2007). Test Theory for Assessing IR Test Collections. SIGIR 2007.
    Kanoulas, E., & Aslam, J. A. (2009). Empirical Justification of the Gain and Discount Function
    for nDCG. CIKM 2009. Gienapp, L., Fröbe, M., Hagen, M., & Potthast, M. (2020). The Impact of
    Negative Relevance Judgments on NDCG. CIKM 2020. Feldt, L. S. (1965). The Approximate Sampling
    Distribution of Kuder-Richardson Reliability Coefficient Twenty. Psychometrika 30(3). McGraw,
    K. O., & Wong, S. P. (1996). Forming Inferences About Some Intraclass Correlation
    Coefficients. Psychological Methods 1(1).

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
    check_option("negative_components", negative_components, NEGATIVE)
    facet = _check_facets(facets)
    n_levels = _facet_size(facet, n_judges, n_seeds)
    frame = meta_scores(scores, columns, function="reliability")
    if facet is not None:
        return _reliability3(
            frame,
            facet,
            n_queries=n_queries,
            n_levels=n_levels,
            target=target,
            negative_components=negative_components,
        )
    keys_list, tab, n_s, n_t = _tables(frame)
    if n_queries is None:
        n_prime = n_t.copy()
    else:
        n_prime = _check_sizes(n_queries, "n_queries=")
        if len(n_prime) != 1:
            raise OptionError(
                "n_queries= takes one size; use pdireval.d_study(scores, n_queries) for several"
            )
        n_prime = np.full(len(n_t), n_prime[0])
    var_s, var_t, var_r = variance_components(
        tab["ms_system"],
        tab["ms_query"],
        tab["ms_residual"],
        n_s,
        n_t,
        negative_components=negative_components,
    )
    total = var_s + var_t + var_r
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = [
            np.where(total != 0, v / np.where(total != 0, total, 1.0), np.nan)
            for v in (var_s, var_t, var_r)
        ]
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


@renamed_options(negative="negative_components")
@shared_docs
def d_study(
    scores: pd.DataFrame,
    n_queries: float | Iterable[float],
    *,
    negative_components: NegativeComponents = "clip",
    confidence_level: float = 0.95,
    columns: Columns = None,
    facets: str | Sequence[str] = ("query",),
    n_judges: float | Iterable[float] | None = None,
    n_seeds: float | Iterable[float] | None = None,
) -> pd.DataFrame:
    """D-study curves: Φ(n′) and Eρ²(n′) of each measure for several query-set sizes.

    The variance components are estimated once per group (as in :func:`reliability`, the
    G-study on the observed matrix) and projected to every size in ``n_queries`` (Kanoulas & Aslam
    2009, Section 2.1: the projected size need not equal, and may exceed, the observed one).

    Parameters
    ----------
    scores
        A scores frame; every group must be a complete system x query matrix.
    n_queries
        query-set sizes n′ > 0 (a number or a list), e.g. ``range(1, 201)``.
    negative_components, confidence_level
        As in :func:`reliability`.
    {columns}
    facets, n_judges, n_seeds
        Three facets (see :func:`reliability`): the grid of every ``n_queries`` × every
        ``n_judges`` (or ``n_seeds``; default each group's observed number), e.g. for
        :func:`pdireval.plot.phi_contours`.

    Returns
    -------
    DataFrame
        With three facets: grouping keys, ``n_queries``, ``n_judges`` (or ``n_seeds``),
        ``phi``, ``e_rho2`` (float64), one row per group, size and number of judges (judges
        varying fastest); no intervals.
        With two facets, one row per group and size (groups in ``scores_groups`` order, then
        n_queries as given): grouping keys, ``n_queries`` (float64, the size n′), ``phi``,
        ``phi_ci_low``, ``phi_ci_high``, ``e_rho2``, ``e_rho2_ci_low``, ``e_rho2_ci_high``
        (definitions and intervals as in :func:`reliability`).

    References
    ----------
    Brennan, R. L. (2001). Generalizability Theory. Springer.
    Kanoulas, E., & Aslam, J. A. (2009). Empirical Justification of the Gain and Discount Function
    for nDCG. CIKM 2009.

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
    check_option("negative_components", negative_components, NEGATIVE)
    size = _check_sizes(n_queries, "n_queries")
    facet = _check_facets(facets)
    n_levels = _facet_size(facet, n_judges, n_seeds)
    frame = meta_scores(scores, columns, function="d_study")
    if facet is not None:
        levels = None if n_levels is None else _check_sizes(n_levels, f"n_{facet}s")
        return _d_study3(frame, facet, size, levels, negative_components)
    keys_list, tab, n_s, n_t = _tables(frame)
    var_s, var_t, var_r = variance_components(
        tab["ms_system"],
        tab["ms_query"],
        tab["ms_residual"],
        n_s,
        n_t,
        negative_components=negative_components,
    )
    g = len(keys_list)
    rep = lambda a: np.repeat(a, len(size))  # noqa: E731
    big = {k: rep(v) for k, v in tab.items()}
    n_prime = np.tile(size, g)
    e_lo, e_hi, p_lo, p_hi = coefficient_intervals(
        big, rep(n_s), rep(n_t), n_prime, confidence_level
    )
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
