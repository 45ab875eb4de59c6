"""What the Dask paths share: the scores frame's dtypes, warnings that reach the client,
checks of a Dask frame's columns before any data is read, values broadcast to every worker,
and the layout that puts whole ranked lists in each partition."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE, RUN_COLUMNS, rename_columns, require_columns
from pdireval.errors import PdirevalWarning, SchemaError, check_option, warn_caller

if TYPE_CHECKING:
    from pdireval.types import Order

PARTITIONED_BY = (None, "query", "system")

#: meta of a scores frame (and of the per-partition rows)
SCORE_DTYPES = {"system": ID_DTYPE, "query": ID_DTYPE, "measure": ID_DTYPE, "value": np.float64}


def empty_frame(dtypes: Mapping) -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series([], dtype=dtype) for name, dtype in dtypes.items()})


# --------------------------------------------------------------------------- warnings


def warn_client(message: str, once: str | None = None) -> None:
    """Warn once, on the client: through ``distributed.warn`` inside a distributed worker
    (its warnings otherwise stay in the worker's log), else at the user's line
    (:func:`pdireval.errors.warn_caller`, with its ``once``)."""
    if "distributed" in sys.modules:
        from distributed import get_worker
        from distributed import warn as dwarn

        try:
            get_worker()
        except ValueError:
            pass
        else:
            dwarn(message, PdirevalWarning)
            return
    warn_caller(message, once=once)


# --------------------------------------------------------------------------- checks on the client


def check_dask_frame(frame, name: str) -> None:
    if not isinstance(frame, dd.DataFrame):
        hint = (
            f" (use pdireval.{name.split('.')[-1]} for a pandas frame)"
            if isinstance(frame, pd.DataFrame)
            else ""
        )
        raise TypeError(
            f"{name} needs a dask.dataframe.DataFrame, got {type(frame).__name__}{hint}"
        )


def resolve_order(run: dd.DataFrame, columns, order: Order) -> Order:
    """The order in which partitions are read, checked against the columns (no data read)."""
    names = rename_columns(run._meta, columns, "run", RUN_COLUMNS + ("score", "rank", "label"))
    require_columns(names, RUN_COLUMNS, "run", columns)
    if "score" not in names.columns and "rank" not in names.columns:
        raise SchemaError(
            "the run frame needs a 'score' or a 'rank' column to order documents "
            f"(it has {list(names.columns)!r}). Add one, or map yours with columns=."
        )
    if order == "score" and "score" not in names.columns:
        order = "rank"  # only a rank column: order by it, as pandas evaluate does
    if order == "rank" and "rank" not in names.columns:
        raise SchemaError("order='rank' needs a 'rank' column in the run; it has only 'score'.")
    return order


def _current_client():
    """The distributed client in use, if any (without importing distributed)."""
    if "distributed" not in sys.modules:
        return None
    from distributed import default_client

    try:
        return default_client()
    except ValueError:
        return None


def broadcast(value, what: str):
    """One graph node holding ``value``: on a distributed cluster, scattered to every worker
    once (not embedded in the graph, which would be shipped with it); else a delayed value."""
    client = _current_client()
    if client is not None:
        return client.scatter(value, broadcast=True, hash=False)
    return dask.delayed(value, name=f"pdireval-{what}-{uuid.uuid4().hex}", traverse=False)


#: column carrying each row's place in the run through a shuffle (partition << 32 | row)
ROW = "__pdireval_row__"


def _with_row(part: pd.DataFrame, partition_info=None) -> pd.DataFrame:
    number = 0 if partition_info is None else partition_info["number"]
    return part.assign(
        **{ROW: (np.int64(number) << np.int64(32)) + np.arange(len(part), dtype=np.int64)}
    )


def layout(
    run: dd.DataFrame, partitioned_by, columns, on: str, keep_order: bool = False
) -> dd.DataFrame:
    """The run with whole (system, query) lists in each partition: as it is when the caller
    says so, else shuffled by ``on`` (a run column, canonical name). ``keep_order`` carries
    each row's place through the shuffle (so the warning lists queries in the run's order)."""
    check_option("partitioned_by", partitioned_by, PARTITIONED_BY)
    if partitioned_by is not None or run.npartitions == 1:
        return run
    if keep_order:
        run = run.map_partitions(
            _with_row, meta=run._meta.assign(**{ROW: np.int64(0)}), enforce_metadata=False
        )
    return run.shuffle(on=(columns or {}).get(on, on))
