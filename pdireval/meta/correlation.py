"""Rank correlation between the system rankings induced by measures (or by two scores frames).

Array level: :func:`kendall_tau` (τ_a, τ_b, Goodman–Kruskal γ), :func:`tau_ap` (Yilmaz, Aslam &
Robertson 2008, and its symmetric version), :func:`rank_correlation` (any method by name,
with p-value). Frame level: :func:`correlate`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.groups import (
    check_same_grouping,
    check_same_systems,
    check_shared_groups,
    group_columns,
    require_complete,
)
from pdireval.docstrings import shared_docs
from pdireval.errors import (
    SchemaError,
    check_option_list,
    check_real,
    show_rows,
)
from pdireval.meta.inputs import meta_scores
from pdireval.stats.means import exact_group_means
from pdireval.stats.rank_correlation import CORRELATION_METHODS, rank_correlation

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pdireval.types import Columns, CorrelationMethod, RngLike

__all__ = ["rank_correlation", "correlate", "CORRELATION_METHODS"]


def _system_means(frame: pd.DataFrame, extra: list[str], what: str) -> dict:
    """{extra-key tuple: DataFrame system x measure of means (first-appearance measure order)}."""
    out = {}
    measure_order = list(pd.unique(frame["measure"]))
    grouped = frame.groupby(extra, sort=True, dropna=False) if extra else [((), frame)]
    for key, group in grouped:
        key = key if isinstance(key, tuple) else (key,)
        # correctly rounded means: equal exact sums tie whatever the row order or the other
        # measures of the frame
        sys_codes, systems = pd.factorize(group["system"], sort=True)
        meas_codes, measures = pd.factorize(group["measure"])
        flat = exact_group_means(
            group["value"].to_numpy(dtype=np.float64),
            sys_codes * len(measures) + meas_codes,
            len(systems) * len(measures),
        )
        table = pd.DataFrame(
            flat.reshape(len(systems), len(measures)),
            index=pd.Index(systems, name="system"),
            columns=pd.Index(measures, name="measure"),
        )
        table = table[[m for m in measure_order if m in table.columns]].sort_index()
        missing = table.isna()
        if missing.to_numpy().any():
            cells = missing.stack()
            cells = cells[cells].reset_index()[["system", "measure"]]
            raise SchemaError(
                f"the {what} do not give every system a mean for every measure: {len(cells)} "
                f"(system, measure) pair(s) have no value:{show_rows(cells)}\n"
                "Rank correlation compares the same systems under each measure: drop those "
                "systems, or evaluate them with every measure.",
                failure_cases=cells,
            )
        out[key] = table
    return out


@shared_docs
def correlate(
    scores: pd.DataFrame,
    other: pd.DataFrame | None = None,
    *,
    method: CorrelationMethod | Sequence[CorrelationMethod] = "kendall_b",
    p: float = 0.9,
    confidence_level: float | None = None,
    n_resamples: int = 1000,
    rng: RngLike = None,
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Rank correlation between the system rankings induced by measures.

    Systems are ranked by their mean over queries (NaN values skipped) under each measure,
    from a correctly rounded sum (:func:`pdireval.stats.means.exact_means`), so systems whose
    values have equal sums tie whatever the row order.
    Without ``other``: one row per unordered pair of measures of ``scores`` (in order of first
    appearance) and per value of the other grouping columns. With ``other`` (a second scores
    frame, e.g. another query set or collection): one row per (measure of ``scores``, measure
    of ``other``) — the same measure in both gives the rank stability between the two
    experiments; extra grouping columns present in both frames are matched.

    Methods (one name or a list): ``"kendall_b"`` (default), ``"kendall_a"``, ``"gamma"``
    (Golbus & Aslam's (2013) τ), ``"spearman"``, ``"pearson"``, ``"tau_ap"`` (τ_AP of measure_a's
    ranking against measure_b's as the truth), ``"tau_ap_sym"``, ``"tau_ap_b"`` (Urbano & Marrero's
    (2017) tie-aware symmetric τ_AP,b, see :func:`pdireval.stats.rank_correlation.tau_ap_b`)
    and ``"rbo"`` (extrapolated rank-biased overlap with persistence ``p``, Webber et al.
    2010; tie-aware: with tied means, its mean over every order of the tied systems, each
    leaderboard's ties broken uniformly and independently, computed exactly by
    :func:`pdireval.stats.rank_overlap.rbo_ext_ties`, so never dependent on names); see
    :func:`kendall_tau`, :func:`tau_ap`, :func:`rank_correlation`, and
    :func:`pdireval.leaderboard_agreement` for all of these (and more) in one table.

    Parameters
    ----------
    scores : DataFrame
        Scores frame (``system, query, measure, value`` + grouping keys).
    other : DataFrame, optional
        A second scores frame whose system rankings are compared with those of ``scores``.
    method : str or list of str
        One or several of the methods above.
    p : float
        RBO persistence.
    confidence_level : float, optional
        Add ``ci_low``, ``ci_high``: the query-bootstrap percentile interval of each
        statistic. The B resamples ``rng.integers(0, n, size=(B, n))`` draw queries, and
        each replicate recomputes both leaderboards on the same resampled queries (when the
        two measures — or the two frames — have the same queries; otherwise each side
        resamples its own queries, from independent streams) and then the statistic. A
        statistic undefined on some replicate (τ_AP with tied means) gets NaN bounds and a
        :class:`pdireval.PdirevalWarning`, and so does a measure pair with a single query
        (every replicate is that query: no interval, as in :func:`pdireval.aggregate`). None
        (default): no interval.
    n_resamples : int
        Bootstrap resamples B (at most 10**5).
    rng
        Seed of the bootstrap (None, the default: fresh entropy; an int, a SeedSequence or a
        Generator).
    {columns}

    Returns
    -------
    DataFrame
        ``measure_a``, ``measure_b``, the other grouping keys, ``method``, ``statistic``,
        ``p_value`` (two-sided; NaN where the method has none), ``n_systems``; with
        ``confidence_level`` also ``ci_low``, ``ci_high``. Rows ordered by group, measure
        pair, then method in the order given. ``tau_ap`` and ``tau_ap_sym`` are NaN when
        either ranking has tied means (τ_AP assumes total orders; the same rule as
        :func:`pdireval.leaderboard_agreement`), where the array-level
        :func:`~pdireval.stats.rank_correlation.tau_ap` raises.

    References
    ----------
    Kendall, M. G. (1938). A new measure of rank correlation. Biometrika.
    Yilmaz, E., Aslam, J. A., Robertson, S. (2008). A new rank correlation coefficient for
    information retrieval. SIGIR.
    Webber, W., Moffat, A., Zobel, J. (2010). A similarity measure for indefinite rankings.
    ACM TOIS.
    Urbano, J., Marrero, M. (2017). The treatment of ties in AP correlation. ICTIR.
    Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    """
    from pdireval.meta.agreement_intervals import check_ci_options

    p = check_real("p", p, low=0.0, high=1.0, inclusive=False)
    level, n_res = check_ci_options(confidence_level, n_resamples)
    methods = check_option_list("method", method, CORRELATION_METHODS)
    frame = meta_scores(scores, columns, function="correlate")
    require_complete(frame, "scores")
    extra = [c for c in group_columns(frame) if c != "measure"]
    left = _system_means(frame, extra, "scores")
    if other is None:
        right = None
    else:
        frame_b = meta_scores(other, columns, function="correlate")
        require_complete(frame_b, "other scores")
        extra_b = [c for c in group_columns(frame_b) if c != "measure"]
        check_same_grouping(extra, extra_b)
        right = _system_means(frame_b, extra, "other scores")
        check_shared_groups(list(left), list(right), names=extra)
    boot = None
    if level is not None:
        from pdireval.meta.agreement_intervals import CorrelationBootstrap

        boot = CorrelationBootstrap(
            frame, None if other is None else frame_b, extra, n_resamples=n_res, rng=rng, p=p
        )
    rows = []
    single = []  # (measure pair, group) cases with a single query: no interval
    for key, table in left.items():
        if right is None:
            meas = list(table.columns)
            combos = [(a, b) for i, a in enumerate(meas) for b in meas[i + 1 :]]
            table_b = table
        else:
            if key not in right:
                continue
            table_b = right[key]
            check_same_systems(table.index, table_b.index)
            table_b = table_b.loc[table.index]
            combos = [(a, b) for a in table.columns for b in table_b.columns]
        for a, b in combos:
            xa = table[a].to_numpy(dtype=np.float64)
            xb = table_b[b].to_numpy(dtype=np.float64)
            reps = None if boot is None else boot.replicates(key, a, b, list(table.index))
            if boot is not None and reps is None:
                single.append(
                    f"measures {a!r} and {b!r}"
                    + "".join(f", {c}={v!r}" for c, v in zip(extra, key))
                )
            # tied means make τ_AP undefined: NaN, as in leaderboard_agreement (one rule)
            tied = len(np.unique(xa)) < len(xa) or len(np.unique(xb)) < len(xb)
            for m in methods:
                if m in ("tau_ap", "tau_ap_sym") and tied:
                    stat, p_value = np.nan, np.nan
                else:
                    stat, p_value = rank_correlation(xa, xb, m, p=p)
                row = {"measure_a": a, "measure_b": b}
                row.update(dict(zip(extra, key)))
                row.update(
                    method=m, statistic=float(stat), p_value=float(p_value), n_systems=len(xa)
                )
                if boot is not None and (reps is None or (m in ("tau_ap", "tau_ap_sym") and tied)):
                    row["ci_low"], row["ci_high"] = np.nan, np.nan
                elif reps is not None and boot is not None:
                    row["ci_low"], row["ci_high"] = boot.interval(reps, m, float(stat), level)
                rows.append(row)
    if single:
        from pdireval.meta.mean_intervals import warn_no_interval

        warn_no_interval(single, "measure pair(s) with a single query", "bootstrap")
    out_columns = ["measure_a", "measure_b", *extra, "method", "statistic", "p_value", "n_systems"]
    if boot is not None:
        out_columns += ["ci_low", "ci_high"]
    out = pd.DataFrame(rows, columns=out_columns)
    out["n_systems"] = out["n_systems"].astype(np.int64)
    out["statistic"] = out["statistic"].astype(np.float64)
    out["p_value"] = out["p_value"].astype(np.float64)
    if boot is not None:
        out["ci_low"] = out["ci_low"].astype(np.float64)
        out["ci_high"] = out["ci_high"].astype(np.float64)
    return out
