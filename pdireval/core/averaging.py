"""The mean over judges of a scores frame with a ``judge`` column (``evaluate(...,
judges="mean")`` and trec_eval's judgment-group measures ``map_avgjg``, ``P_avgjg``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE
from pdireval.core.segments import natural_order

__all__ = ["judge_mean"]


def judge_mean(per_judge: pd.DataFrame) -> pd.DataFrame:
    """Average a scores frame with a ``judge`` column over the judges, per (system, query,
    measure): the mean of the non-NaN values (NaN when all are NaN). Rows in
    :func:`evaluate`'s order (system sorted, query in natural order, measure as first seen).
    """
    system = per_judge["system"].to_numpy(dtype=object)
    query = per_judge["query"].to_numpy(dtype=object)
    measure = per_judge["measure"].to_numpy(dtype=object)
    s_code, s_ids = pd.factorize(system, sort=True)
    q_code, q_ids = pd.factorize(query)
    q_rank = np.empty(len(q_ids), dtype=np.int64)
    q_rank[natural_order(pd.Index(q_ids))] = np.arange(len(q_ids))
    m_code, m_ids = pd.factorize(measure)
    n_q, n_m = len(q_ids), len(m_ids)
    cell = (s_code.astype(np.int64) * n_q + q_rank[q_code]) * n_m + m_code
    cells, inverse = np.unique(cell, return_inverse=True)
    value = per_judge["value"].to_numpy(dtype=np.float64)
    ok = ~np.isnan(value)
    total = np.bincount(inverse[ok], weights=value[ok], minlength=len(cells))
    count = np.bincount(inverse[ok], minlength=len(cells))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    q_of_rank = np.empty(n_q, dtype=np.int64)
    q_of_rank[q_rank] = np.arange(n_q)
    return pd.DataFrame(
        {
            "system": pd.array(
                np.asarray(s_ids, dtype=object)[cells // (n_q * n_m)], dtype=ID_DTYPE
            ),
            "query": pd.array(
                np.asarray(q_ids, dtype=object)[q_of_rank[(cells // n_m) % n_q]], dtype=ID_DTYPE
            ),
            "measure": pd.array(np.asarray(m_ids, dtype=object)[cells % n_m], dtype=ID_DTYPE),
            "value": mean,
        }
    )
