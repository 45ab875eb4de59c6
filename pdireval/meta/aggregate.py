"""Per-system summaries of a scores frame."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdireval.core.groups import group_columns
from pdireval.core.schema import canonical_scores
from pdireval.errors import check_bool

__all__ = ["aggregate"]


def _summary_rule(name: str) -> str:
    """'mean', 'sum' or 'gm': the registry's summary rule of a measure name (its mean when
    pdireval does not know the name, e.g. a measure from another tool)."""
    from pdireval.errors import MeasureError
    from pdireval.measures.registry import parse_measure

    try:
        return parse_measure(name).definition.summary
    except (MeasureError, TypeError):
        return "mean"


def aggregate(scores: pd.DataFrame, *, wide: bool = False, columns=None) -> pd.DataFrame:
    """Mean, standard deviation, query count and trec_eval's summary per system and measure.

    Parameters
    ----------
    scores
        A scores frame (``system, query, measure, value`` and any grouping columns).
    wide
        Return the convenience view instead: one row per system, one column per measure
        (and grouping key), holding the mean.
    columns
        Optional mapping ``{canonical name: your column name}`` (e.g. ``{"query": "qid"}``);
        the usual spellings of other tools are recognised without it.

    Returns
    -------
    DataFrame
        ``system, measure`` (plus any grouping columns of ``scores``), ``mean`` (over queries,
        NaN values skipped), ``std`` (sample standard deviation, ddof = 1; NaN for one
        query), ``n_queries`` (number of non-NaN values), ``summary`` (trec_eval's summary
        over queries, what its ``all`` line prints: the mean, except the **sum** for count
        measures — ``NumRet``, ``NumRel``, ``NumRelRet`` — and the **geometric mean**
        exp(mean of the values) for trec_eval's ``gm_`` measures, whose per-query values are
        logs; a measure pdireval does not know is summarised by its mean). Sorted by the
        grouping keys (measures in order of first appearance), then system.
    """
    wide = check_bool("wide", wide)
    frame = canonical_scores(scores, columns)
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
        out["summary"] = np.where(rule == "sum", out["_sum"], np.where(rule == "gm", np.exp(out["mean"]), out["mean"]))
        out = out.drop(columns="_sum")
    out = out[["system"] + keys + ["mean", "std", "n_queries", "summary"]]
    if wide:
        cols = keys
        table = out.pivot_table(index="system", columns=cols, values="mean", sort=False)
        if isinstance(table.columns, pd.MultiIndex):
            table.columns = ["|".join(str(c) for c in col) for col in table.columns]
        table.columns.name = None
        return table.reset_index()
    return out
