"""Inputs as users have them, other than frames: a path (``str`` / ``os.PathLike``: the
TREC and Parquet readers), a pytrec_eval dict of dicts ``{query: {doc: value}}``, or an
iterable of records (namedtuples such as ir_datasets' ``qrels_iter()``, dicts, or plain
``(query, doc, value)`` tuples). :func:`as_frame` turns them into frames; every public entry
point that takes a run or qrels calls it before validating the frame
(:func:`pdireval.core.schema.canonical_run`, ...).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

import pandas as pd

from pdireval.core.recognize import DEFAULT_SYSTEM
from pdireval.core.schema import from_arrow
from pdireval.errors import SchemaError
from pdireval.io.readers import read_qrels, read_run

__all__ = ["as_frame"]


_VALUE_NAME = {"run": "score", "qrels": "label"}


def as_frame(obj, kind: str):
    """A DataFrame from what a user passes as a run or qrels.

    Parameters
    ----------
    obj
        A DataFrame (returned as is), Arrow data (a pyarrow Table, RecordBatch or
        RecordBatchReader, or an object with ``__arrow_c_stream__`` such as a polars or
        DuckDB result: converted once, see :func:`pdireval.core.schema.from_arrow`), a
        path (``str`` or ``os.PathLike``: read with
        :func:`pdireval.read_run` / :func:`pdireval.read_qrels`), a pytrec_eval dict of
        dicts ``{query: {doc: score or label}}``, or an iterable of records: namedtuples
        or dataclass-like objects with fields (ir_datasets' ``qrels_iter()`` and
        ``scoreddocs_iter()``), dicts, or plain ``(query, doc, score or label)`` tuples.
    kind
        ``"run"`` or ``"qrels"``.

    Returns
    -------
    DataFrame or the object unchanged
        Anything that is neither of the above (e.g. a Dask frame) is returned unchanged,
        for the caller's own checks.
    """
    obj = from_arrow(obj)  # pyarrow, polars, DuckDB, ...: converted once
    if isinstance(obj, pd.DataFrame) or obj is None:
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return read_run(obj) if kind == "run" else read_qrels(obj)
    if isinstance(obj, Mapping):
        if obj and all(isinstance(inner, Mapping) for inner in obj.values()):
            return _from_nested(obj, kind)
        return obj  # e.g. a dict of columns: the caller's type error says what to pass
    if (
        isinstance(obj, Iterable)
        and not hasattr(obj, "columns")
        and not isinstance(obj, (bytes, pd.Series, pd.Index))
        and not hasattr(obj, "__array__")
    ):
        return _from_records(obj, kind)
    return obj


def _from_nested(obj: Mapping, kind: str) -> pd.DataFrame:
    queries, docs, values = [], [], []
    for query, inner in obj.items():
        if not isinstance(inner, Mapping):
            raise SchemaError(
                f"a dict {kind} must be a pytrec_eval dict of dicts {{query: {{doc: "
                f"{_VALUE_NAME[kind]}}}}}; the value for query {query!r} is a "
                f"{type(inner).__name__}, not a dict."
            )
        for doc, value in inner.items():
            queries.append(query)
            docs.append(doc)
            values.append(value)
    if not queries:
        raise SchemaError(f"the {kind} dict is empty: there is nothing to evaluate.")
    frame = pd.DataFrame({"query": queries, "doc": docs, _VALUE_NAME[kind]: values})
    if kind == "run":
        frame.insert(0, "system", DEFAULT_SYSTEM)
    return frame


def _from_records(obj: Iterable, kind: str) -> pd.DataFrame:
    records = list(obj)
    if not records:
        raise SchemaError(f"the {kind} records are empty: there is nothing to evaluate.")
    first = records[0]
    if isinstance(first, Mapping):
        return pd.DataFrame.from_records(records)
    fields = getattr(first, "_fields", None)
    if fields is not None:  # namedtuples (ir_datasets' records)
        return pd.DataFrame.from_records(records, columns=list(fields))
    if hasattr(first, "__dataclass_fields__"):
        names = list(first.__dataclass_fields__)
        return pd.DataFrame([[getattr(r, n) for n in names] for r in records], columns=names)
    if (
        isinstance(first, (tuple, list))
        and len(first) == 3
        and all(isinstance(r, (tuple, list)) and len(r) == 3 for r in records)
    ):
        frame = pd.DataFrame.from_records(records, columns=["query", "doc", _VALUE_NAME[kind]])
        if kind == "run":
            frame.insert(0, "system", DEFAULT_SYSTEM)
        return frame
    return records  # not records pdireval can read: the caller's type error explains
