"""Per-system summaries of a scores frame."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdireval.core.groups import group_columns
from pdireval.core.schema import canonical_scores

__all__ = ["aggregate"]


def aggregate(scores: pd.DataFrame, *, wide: bool = False) -> pd.DataFrame:
    """Mean, standard deviation and query count per system and measure.

    Parameters
    ----------
    scores
        A scores frame (``system, query, measure, value`` and any grouping columns).
    wide
        Return the convenience view instead: one row per system, one column per measure
        (and grouping key), holding the mean.

    Returns
    -------
    DataFrame
        ``system, measure`` (plus any grouping columns of ``scores``), ``mean`` (over queries,
        NaN values skipped), ``std`` (sample standard deviation, ddof = 1; NaN for one
        query), ``n_queries`` (number of non-NaN values). Sorted by the grouping keys
        (measures in order of first appearance), then system.
    """
    frame = canonical_scores(scores)
    keys = group_columns(frame)
    measure_rank = {m: i for i, m in enumerate(pd.unique(frame["measure"]))}
    grouped = frame.groupby(keys + ["system"], sort=False, observed=True, dropna=False)["value"]
    out = grouped.agg(mean="mean", std=lambda v: v.std(ddof=1), n_queries="count").reset_index()
    out["n_queries"] = out["n_queries"].astype(np.int64)
    out["_m"] = out["measure"].map(measure_rank)
    sort_by = ["_m"] + [k for k in keys if k != "measure"] + ["system"]
    out = out.sort_values(sort_by, kind="stable").drop(columns="_m").reset_index(drop=True)
    out = out[["system"] + keys + ["mean", "std", "n_queries"]]
    if wide:
        cols = keys
        table = out.pivot_table(index="system", columns=cols, values="mean", sort=False)
        if isinstance(table.columns, pd.MultiIndex):
            table.columns = ["|".join(str(c) for c in col) for col in table.columns]
        table.columns.name = None
        return table.reset_index()
    return out
