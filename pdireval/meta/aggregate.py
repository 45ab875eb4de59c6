"""Per-system summaries of a scores frame."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.groups import group_columns
from pdireval.errors import check_bool
from pdireval.meta.inputs import meta_scores

if TYPE_CHECKING:
    from pdireval.types import BootstrapInterval, Columns, IntervalMethod, RngLike, Seeds

__all__ = ["aggregate", "INTERVAL_METHODS"]

#: ``method=`` values of :func:`aggregate`'s intervals
INTERVAL_METHODS = ("t", "bootstrap", "anova")


def _summary_rule(name: str) -> str:
    """'mean', 'sum' or 'gm': the registry's summary rule of a measure name (its mean when
    pdireval does not know the name, e.g. a measure from another tool)."""
    from pdireval.errors import MeasureError
    from pdireval.measures.registry import parse_measure

    try:
        return parse_measure(name).definition.summary
    except (MeasureError, TypeError):
        return "mean"


def aggregate(
    scores: pd.DataFrame,
    *,
    confidence_level: float | None = None,
    method: IntervalMethod | None = None,
    bootstrap_interval: BootstrapInterval = "percentile",
    n_resamples: int | None = None,
    rng: RngLike = None,
    wide: bool = False,
    columns: Columns = None,
    seeds: Seeds | None = None,
) -> pd.DataFrame:
    r"""Mean, standard deviation, query count and trec_eval's summary per system and measure,
    optionally with a confidence interval of each mean.

    Without ``confidence_level`` and ``method`` (the default) the result is the plain
    summary. With either of them, ``se``, ``ci_low`` and ``ci_high`` are added per (system,
    measure, group), computed by ``method``:

    * ``"t"`` (default) — per-system Student t interval,
      x̄ ± t_{1−α/2; n−1} · s/√n, s the sample standard deviation of the system's n non-NaN
      values (``scipy.stats.t.interval``);
    * ``"bootstrap"`` — query bootstrap: one index matrix ``rng.integers(0, n, size=(B, n))``
      per group resamples every system's queries together; the interval is the
      ``bootstrap_interval`` (``"percentile"`` or ``"bca"``) of ``scipy.stats.bootstrap``
      and ``se`` the standard deviation of the B replicate means (Efron & Tibshirani 1993);
    * ``"anova"`` — Sakai's (2014) margin of error from the two-way ANOVA without
      replication of the group's system × query matrix, one width for all systems:
      MOE = t_{1−α/2; (m−1)(n−1)} · √(V_E / n), V_E the residual mean square (m systems,
      n queries), se = √(V_E / n). It covers the system's mean **on this query set**, not
      its mean over queries: with x_ts = μ_s + β_t + e_ts (β_t the query's difficulty),
      the query effects are taken out as fixed, so the interval is for μ_s + β̄ (β̄ the
      mean of β_t over the n queries at hand; only the system × query error is resampled)
      and, where queries vary in difficulty, covers μ_s + E[β], the mean over the
      population of queries that ``"t"`` and ``"bootstrap"`` cover, far less often than
      ``confidence_level``. Differences between systems are the same under both readings
      (β̄ cancels), which is what its one width is for.

    A system with fewer than two values or with all values equal (for ``"t"`` and
    ``"bootstrap"``), or a group whose residual variance is 0 (``"anova"``), gets NaN bounds
    and one :class:`pdireval.PdirevalWarning` naming the cases.

    Parameters
    ----------
    scores
        A scores frame (``system, query, measure, value`` and any grouping columns).
    confidence_level
        Confidence level of the intervals, 0 < level < 1 (0.95 when only ``method`` is given).
    method
        ``"t"``, ``"bootstrap"`` or ``"anova"`` (``"t"`` when only ``confidence_level`` is
        given). ``"bootstrap"`` needs a complete system × query matrix per group (NaN values
        are skipped in each resample, as in the mean), ``"anova"`` a complete matrix without
        NaN; ``"t"`` works on any frame.
    bootstrap_interval
        ``"percentile"`` (default) or ``"bca"`` (bias-corrected and accelerated), for
        ``method="bootstrap"``.
    n_resamples
        Bootstrap resamples B (default 1000; at most 10**6).
    rng
        Seed of the bootstrap (None, the default everywhere: fresh entropy; an int, a
        SeedSequence or a Generator: two identical calls give identical intervals). Every
        group starts from the seed alone.
    wide
        Return the convenience view instead: one row per system, one column per measure
        (and grouping key), holding the mean.
    columns
        Optional mapping ``{canonical name: your column name}`` (e.g. ``{"query": "qid"}``);
        the usual spellings of other tools are recognised without it.
    seeds
        Scores with a ``seed`` column (repeated runs of a stochastic system): None (default)
        summarises every seed on its own (``seed`` is a grouping key); ``"mean"`` treats
        the seed as a random effect nested in the system: the values are first averaged
        over seeds per (system, query), and ``n_seeds`` and ``share_seed`` (the seed's share
        of the variance of the system's per-(query, seed) scores, a one-way ANOVA of seeds
        nested in queries; Searle, Casella & McCulloch 1992) are added. ``"nested"``: the
        same, with ``se``, ``ci_low``, ``ci_high`` of each mean over (query, seed) from the
        two-level bootstrap (``n_resamples`` replicates drawing the queries with replacement,
        then each system's seeds within each drawn query; percentile interval at
        ``confidence_level``, default 0.95; Davison & Hinkley 1997, Section 3.8).

    Returns
    -------
    DataFrame
        ``system, measure`` (plus any grouping columns of ``scores``), ``mean`` (over queries,
        NaN values skipped), ``std`` (sample standard deviation, ddof = 1; NaN for one
        query), ``n_queries`` (number of non-NaN values), ``summary`` (trec_eval's summary
        over queries, what its ``all`` line prints: the mean, except the **sum** for count
        measures — ``NumRet``, ``NumRel``, ``NumRelRet`` — and the **geometric mean**
        exp(mean of the values) for trec_eval's ``gm_`` measures, whose per-query values are
        logs; a measure pdireval does not know is summarised by its mean). With intervals
        also ``se`` (standard error of the mean), ``ci_low``, ``ci_high`` (two-sided, at
        ``confidence_level``), ``ci_method`` (``"t"``, ``"percentile"``, ``"bca"`` or
        ``"anova"``; ``"nested_bootstrap"`` with ``seeds="nested"``) and
        ``confidence_level``. Scores with ``value_low`` / ``value_high`` (``evaluate(...,
        unjudged="bounds")``) add ``mean_low`` and ``mean_high``, their means, after
        ``mean``. With ``seeds``: ``n_seeds`` (int64) and ``share_seed`` (float64) last.
        Sorted by the grouping keys (measures in order of first appearance), then system.

    Raises
    ------
    OptionError
        ``wide=True`` with intervals (the wide view holds means only), an unknown ``method``,
        a level outside (0, 1).
    SchemaError
        ``"bootstrap"`` / ``"anova"`` on a group that is not a complete system × query matrix.

    References
    ----------
    Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    Sakai, T. (2014). Statistical reform in information retrieval? ACM SIGIR Forum 48(1).
    """
    wide = check_bool("wide", wide)
    want = confidence_level is not None or method is not None
    interval: tuple[float, IntervalMethod] | None = None  # (confidence_level, method) when wanted
    if want:
        from pdireval.meta.mean_intervals import check_interval_options

        interval = check_interval_options(
            confidence_level, method, bootstrap_interval, n_resamples, wide
        )
        confidence_level, method = interval
    frame = meta_scores(scores, columns, function="aggregate")
    if seeds is not None:
        return _aggregate_seeds(
            frame,
            seeds,
            wide=wide,
            want=want,
            confidence_level=confidence_level,
            method=method,
            bootstrap_interval=bootstrap_interval,
            n_resamples=n_resamples,
            rng=rng,
        )
    keys = group_columns(frame)
    measure_rank = {m: i for i, m in enumerate(pd.unique(frame["measure"]))}
    grouped = frame.groupby(keys + ["system"], sort=False, observed=True, dropna=False)["value"]
    out = grouped.agg(mean="mean", std=lambda v: v.std(ddof=1), n_queries="count").reset_index()
    out["n_queries"] = out["n_queries"].astype(np.int64)
    out["_m"] = out["measure"].map(measure_rank)
    sort_by = ["_m"] + [k for k in keys if k != "measure"] + ["system"]
    out = out.sort_values(sort_by, kind="stable").drop(columns="_m").reset_index(drop=True)
    rules = {m: _summary_rule(m) for m in measure_rank}
    rule = out["measure"].map(rules).to_numpy()
    out["summary"] = out["mean"]
    if (rule != "mean").any():
        by_key = grouped.sum(min_count=1).rename("_sum").reset_index()
        out = out.merge(by_key, on=keys + ["system"], how="left", sort=False)
        rule = out["measure"].map(rules).to_numpy()
        out["summary"] = np.where(
            rule == "sum", out["_sum"], np.where(rule == "gm", np.exp(out["mean"]), out["mean"])
        )
        out = out.drop(columns="_sum")
    bounds = [c for c in ("value_low", "value_high") if c in frame.columns]
    if bounds:  # evaluate(..., unjudged="bounds"): the means of the bounds bound the mean
        means = (
            frame.groupby(keys + ["system"], sort=False, observed=True, dropna=False)[bounds]
            .mean()
            .rename(columns={"value_low": "mean_low", "value_high": "mean_high"})
            .reset_index()
        )
        out = out.merge(means, on=keys + ["system"], how="left", sort=False)
    extra = [c for c in ("mean_low", "mean_high") if c in out.columns]
    out = out[["system"] + keys + ["mean"] + extra + ["std", "n_queries", "summary"]]
    if interval is not None:
        from pdireval.meta.mean_intervals import add_intervals

        out = add_intervals(
            out,
            frame,
            keys,
            confidence_level=interval[0],
            method=interval[1],
            bootstrap_interval=bootstrap_interval,
            n_resamples=n_resamples,
            rng=rng,
        )
    if wide:
        cols = keys
        table = out.pivot_table(index="system", columns=cols, values="mean", sort=False)
        if isinstance(table.columns, pd.MultiIndex):
            table.columns = ["|".join(str(c) for c in col) for col in table.columns]
        table.columns.name = None
        return table.reset_index()
    return out


def _aggregate_seeds(
    frame: pd.DataFrame,
    seeds: str,
    *,
    wide: bool,
    want: bool,
    confidence_level,
    method,
    bootstrap_interval,
    n_resamples,
    rng,
):
    """:func:`aggregate` with the seed as a random effect: on the mean over seeds per
    (system, query), with each system's ``n_seeds`` and ``share_seed``; ``"nested"``: the
    interval of each mean from the two-level bootstrap (queries, then seeds)."""
    from pdireval.errors import OptionError, check_option, check_rng
    from pdireval.meta.seeds import (
        SEEDS,
        average_seeds,
        nested_mean_intervals,
        require_seed,
        seed_shares,
    )

    check_option("seeds", seeds, SEEDS)
    require_seed(frame, "aggregate")
    averaged = average_seeds(frame)
    if seeds == "mean":
        out = aggregate(
            averaged,
            wide=wide,
            **(
                dict(
                    confidence_level=confidence_level,
                    method=method,
                    bootstrap_interval=bootstrap_interval,
                    n_resamples=n_resamples,
                    rng=rng,
                )
                if want
                else {}
            ),
        )
    else:
        if want and method != "bootstrap" and method != "t":
            raise OptionError(
                f"seeds='nested' gives the two-level bootstrap interval; method={method!r} "
                "does not apply (use seeds='mean' for it)."
            )
        if wide:
            raise OptionError("seeds='nested' adds intervals, which wide=True has no room for.")
        out = aggregate(averaged)
        level = confidence_level if want else 0.95
        keys = [c for c in group_columns(frame) if c != "seed"]
        ci = nested_mean_intervals(
            frame,
            n_resamples=1000 if n_resamples is None else n_resamples,
            seq=check_rng(rng),
            confidence_level=level,
        )
        out = out.merge(ci, on=keys + ["system"], how="left", sort=False)
        out["ci_method"] = "nested_bootstrap"
        out["confidence_level"] = float(level)
    if wide:
        return out
    keys = [c for c in group_columns(frame) if c != "seed"]
    shares = seed_shares(frame)
    return out.merge(shares, on=keys + ["system"], how="left", sort=False)
