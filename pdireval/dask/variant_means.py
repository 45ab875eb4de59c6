"""pdireval.dask.evaluate_variants: each system reduced to its mean per qrels variant and
measure inside the partition that holds it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import dask.dataframe as dd
import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE, canonical_run, check_frame
from pdireval.core.segments import SCORE_PRECISIONS
from pdireval.dask.partitions import (
    PARTITIONED_BY,
    broadcast,
    check_dask_frame,
    empty_frame,
    layout,
    resolve_order,
    warn_client,
)
from pdireval.errors import OptionError, SchemaError, check_option, show_rows
from pdireval.evaluation import MISSING, ORDERS
from pdireval.measures.registry import labelled_measures
from pdireval.runs.variants import canonical_variants
from pdireval.runs.variants import evaluate_variants as _pandas_variants

if TYPE_CHECKING:
    from pdireval.types import Measures, Missing, Order, PartitionedBy, ScorePrecision

__all__ = ["evaluate_variants"]


def _variant_partition(
    part: pd.DataFrame,
    variants: pd.DataFrame,
    names,
    missing,
    order,
    columns,
    qrels_columns,
    key_cols,
    score_precision="float32",
):
    out_dtypes = {
        **{k: variants[k].dtype for k in key_cols},
        "system": ID_DTYPE,
        "measure": ID_DTYPE,
        "value": np.float64,
        "n_queries": np.int64,
    }
    if len(part) == 0:
        return empty_frame(out_dtypes)
    run = canonical_run(part, columns)
    judged_q = pd.Index(
        pd.unique(variants[(qrels_columns or {}).get("query", "query")].astype(str))
    )
    keep = run["query"].isin(judged_q).to_numpy()
    dropped = pd.unique(run["query"].to_numpy(dtype=object)[~keep])
    run = run.loc[keep].reset_index(drop=True)
    if len(run):
        scores = _pandas_variants(
            run,
            names,
            variants,
            missing=missing,
            qrels_columns=qrels_columns,
            order=order,
            score_precision=score_precision,
        )
        g = scores.groupby([*key_cols, "system", "measure"], sort=False, observed=True)["value"]
        frame = g.mean().reset_index()
        frame["n_queries"] = g.size().to_numpy(dtype=np.int64)
    else:
        frame = empty_frame(out_dtypes)
    if len(dropped):  # marker rows (n_queries -1, the query in 'system') for the final warning
        marker = (
            variants[key_cols].iloc[np.zeros(len(dropped), dtype=np.int64)].reset_index(drop=True)
        )
        marker["system"] = pd.array(dropped, dtype=ID_DTYPE)
        marker["measure"] = pd.array([names[0]] * len(dropped), dtype=ID_DTYPE)
        marker["value"] = np.nan
        marker["n_queries"] = np.int64(-1)
        frame = pd.concat([frame, marker.astype(out_dtypes)], ignore_index=True)
    return frame.astype(out_dtypes)


def _variant_finalize(frame: pd.DataFrame, names, key_cols):
    marker = (frame["n_queries"] < 0).to_numpy()
    dropped = pd.unique(frame["system"].to_numpy(dtype=object)[marker])
    means = frame.loc[~marker]
    if len(frame) and not len(means):
        raise SchemaError(
            f"the run's queries share nothing with the qrels variants: the run has "
            f"{len(dropped)} queries (e.g. {list(dropped[:5])}). Check that both come from the "
            "same collection and that query ids are spelled alike (they are compared as strings)."
        )
    if len(dropped):
        warn_client(
            f"{len(dropped)} run quer{'y is' if len(dropped) == 1 else 'ies are'} judged in no "
            f"qrels variant and {'is' if len(dropped) == 1 else 'are'} not evaluated (e.g. "
            f"{list(dropped[:5])})."
        )
    dup = means.duplicated([*key_cols, "system", "measure"]).to_numpy()
    if dup.any():
        rows = means.loc[dup, [*key_cols, "system"]].drop_duplicates(ignore_index=True)
        raise SchemaError(
            f"{len(rows)} system(s) are split across partitions of the Dask run, so their "
            f"means cannot be taken whole:{show_rows(rows)}\nPass partitioned_by=None (the "
            "default) to shuffle the run by system, or give each partition whole systems."
        )
    m = pd.Index(names).get_indexer(means["measure"].to_numpy(dtype=object))
    sys_order = means["system"].to_numpy(dtype=object)
    keys = [means[k].to_numpy() for k in reversed(key_cols)]
    order = (
        np.lexsort((m, sys_order.astype(str), *keys)) if len(means) else np.zeros(0, dtype=np.int64)
    )
    return means.iloc[order].reset_index(drop=True)


def evaluate_variants(
    run: dd.DataFrame,
    measures: Measures,
    qrels_variants: pd.DataFrame,
    *,
    missing: Missing = "zero",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    order: Order = "score",
    score_precision: ScorePrecision = "float32",
    partitioned_by: PartitionedBy | None = None,
) -> dd.DataFrame:
    """Mean score per (variant, system, measure) of a Dask run over many qrels variants.

    :func:`pdireval.evaluate_variants` returns one row per (variant, system, query,
    measure): 100 million run rows over 1,000 variants is some 25 GB of rows. This path
    reduces each system to its mean per variant and measure inside the partition that
    holds it, so only (variant, system, measure) rows leave a worker.

    Parameters
    ----------
    run
        Dask run frame.
    measures, qrels_variants, missing, columns, qrels_columns, order, score_precision
        As in :func:`pdireval.evaluate_variants` (``qrels_variants`` a pandas frame).
    partitioned_by
        ``None`` (default): the run is shuffled by system. ``"system"``: partitions already
        hold whole systems (checked by the final task). ``"query"`` is not possible here
        (a mean needs the whole system) and raises :class:`~pdireval.OptionError`.

    Returns
    -------
    dask.dataframe.DataFrame
        The variant columns, then ``system``, ``measure`` (str), ``value`` (float64, the
        mean over the queries that variant scores, exactly
        ``evaluate_variants(...).groupby([*variant columns, "system", "measure"]).value.mean()``
        of the pandas path) and ``n_queries`` (int64, the number of queries averaged);
        sorted by the variant columns, system, then measure in the order given.
    """
    check_dask_frame(run, "pdireval.dask.evaluate_variants")
    check_option("missing", missing, MISSING)
    check_option("order", order, ORDERS)
    check_option("score_precision", score_precision, SCORE_PRECISIONS)
    check_option("partitioned_by", partitioned_by, PARTITIONED_BY)
    if partitioned_by == "query":
        raise OptionError(
            "partitioned_by='query' cannot give per-system means: pass partitioned_by=None to "
            "shuffle the run by system, or 'system' when partitions hold whole systems."
        )
    names = [label for label, _ in labelled_measures(measures)]  # names as given
    order = resolve_order(run, columns, order)
    qrels_variants = check_frame(qrels_variants, "qrels variants")  # Arrow data converted
    _, key_cols = canonical_variants(qrels_variants, qrels_columns)
    out_dtypes = {
        **{k: qrels_variants[k].dtype for k in key_cols},
        "system": ID_DTYPE,
        "measure": ID_DTYPE,
        "value": np.float64,
        "n_queries": np.int64,
    }
    meta = empty_frame(out_dtypes)
    variants = broadcast(qrels_variants, "variants")
    run = layout(run, partitioned_by, columns, "system")
    parts = run.map_partitions(
        _variant_partition,
        variants,
        names,
        missing,
        order,
        columns,
        qrels_columns,
        key_cols,
        score_precision,
        meta=meta,
        enforce_metadata=False,
    )
    return parts.repartition(npartitions=1).map_partitions(
        _variant_finalize, names, key_cols, meta=meta, enforce_metadata=False
    )
