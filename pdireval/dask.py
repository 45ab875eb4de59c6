"""pdireval on Dask DataFrames: runs larger than memory, on one machine or a cluster.

``import pdireval.dask`` registers the ``ireval`` accessor on ``dask.dataframe.DataFrame``
(``import pdireval`` does it too when Dask is already imported), so that

>>> scores = run_ddf.ireval.evaluate(["nDCG@10", "AP"], qrels=qrels)  # doctest: +SKIP
>>> scores.compute()                                                   # doctest: +SKIP

equals ``pdireval.evaluate(run_ddf.compute(), ...)``: the same rows, row order, dtypes,
values (bit for bit) and the same single warning.

How it works
------------
Every per-query measure needs each (system, query) list whole in one partition. Partitions
that hold whole systems (one run file per system) or whole queries are evaluated as they
are (``partitioned_by="system"`` / ``"query"``); any other layout is shuffled by query first
(``partitioned_by=None``, the default). The qrels are small next to the runs: they are
validated and grouped once (on the client for a pandas frame, in one task for a Dask frame)
and handed to every partition, which validates its own rows and evaluates them with
``missing="drop"`` semantics. One final small task then

* raises :class:`~pdireval.SchemaError` when a (system, query) list was split across
  partitions (it would be scored twice, on parts of the list: never a silent wrong number),
* adds the (system, judged query) cells a system did not answer with each measure's empty
  value when ``missing="zero"`` (NumRel is R, computed from the qrels),
* warns once about run queries without judgments, and about doc ids that do not match the
  qrels (the whole run, or lists with near-miss spellings, as :mod:`pdireval.core.docids`
  describes: each partition sends its evidence in a few marker rows), through
  ``distributed.warn`` on a cluster so the warnings reach the client, and
* restores :func:`pdireval.evaluate`'s row order.

Nothing is computed before ``.compute()``. Every value depends on its own (system, query)
segment only (``within_segment_cumsum`` restarts per segment), so the numbers are the same
bit for bit whatever the partitioning.
"""

from __future__ import annotations

import glob as _glob
import os
import uuid
import warnings
from collections.abc import Mapping
from pathlib import Path

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from pdireval.core.docids import DocIdEvidence, doc_id_evidence, doc_id_messages, merge_evidence
from pdireval.core.schema import (
    ID_DTYPE,
    RUN_COLUMNS,
    canonical_qrels,
    canonical_run,
    canonical_run_keys,
    qrels_from_run,
    rename_columns,
    require_columns,
)
from pdireval.core.segments import (
    Judgments,
    Segments,
    build_judgments,
    build_segments,
    judgment_keys,
)
from pdireval.errors import OptionError, PdirevalWarning, SchemaError, check_bool, check_option
from pdireval.evaluation import (
    MISSING,
    ORDERS,
    filled_message,
    judged_rows,
    no_overlap_error,
    scores_frame,
    unjudged_message,
)
from pdireval.io import read_qrels as read_qrels_file
from pdireval.io.files import file_system_names
from pdireval.io.parquet import read_parquet
from pdireval.io.readers import check_run_duplicates, read_run_file
from pdireval.measures import compute, parse_measures

__all__ = ["evaluate", "evaluate_variants", "read_run", "read_qrels", "DaskAccessor"]

PARTITIONED_BY = (None, "query", "system")

#: meta of a scores frame (and of the per-partition rows)
SCORE_DTYPES = {"system": ID_DTYPE, "query": ID_DTYPE, "measure": ID_DTYPE, "value": np.float64}


def _empty(dtypes: Mapping) -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series([], dtype=dtype) for name, dtype in dtypes.items()})


# --------------------------------------------------------------------------- warnings


def _warn(message: str) -> None:
    """Warn once, on the client: through ``distributed.warn`` inside a distributed worker
    (its warnings otherwise stay in the worker's log), else ``warnings.warn``."""
    import sys

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
    warnings.warn(message, PdirevalWarning, stacklevel=2)


# --------------------------------------------------------------------------- checks on the client


def _check_dask_frame(frame, name: str) -> None:
    if not isinstance(frame, dd.DataFrame):
        hint = f" (use pdireval.{name.split('.')[-1]} for a pandas frame)" if isinstance(frame, pd.DataFrame) else ""
        raise TypeError(f"{name} needs a dask.dataframe.DataFrame, got {type(frame).__name__}{hint}")


def _resolve_order(run: dd.DataFrame, columns, order: str) -> str:
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


def _prepared_judgments(judgments: Judgments) -> Judgments:
    """Fill the lazily computed parts every partition needs, so that they are computed once
    (not per partition, and not concurrently by threads)."""
    judgment_keys(judgments)  # also fills judgments.row_query
    return judgments


def _judgments_from_qrels(parts, qrels_columns):
    frame = pd.concat(parts, ignore_index=True) if len(parts) != 1 else parts[0]
    return _prepared_judgments(build_judgments(canonical_qrels(frame, qrels_columns)))


def _judged_part(part: pd.DataFrame, columns) -> pd.DataFrame:
    if len(part) == 0:
        return pd.DataFrame({"query": pd.Series([], dtype=ID_DTYPE), "doc": pd.Series([], dtype=ID_DTYPE), "label": pd.Series([], dtype=np.float64)})
    run = canonical_run(part, columns, check_duplicates=False)
    judged = run.loc[run["label"].notna().to_numpy(), ["query", "doc", "label"]]
    return judged.drop_duplicates(ignore_index=True)


def _judgments_from_run(parts):
    frame = pd.concat(parts, ignore_index=True)
    frame["system"] = pd.array(["_"] * len(frame), dtype=ID_DTYPE)
    return _prepared_judgments(build_judgments(qrels_from_run(frame)))


def _current_client():
    """The distributed client in use, if any (without importing distributed)."""
    import sys

    if "distributed" not in sys.modules:
        return None
    from distributed import default_client

    try:
        return default_client()
    except ValueError:
        return None


def _broadcast(value, what: str):
    """One graph node holding ``value``: on a distributed cluster, scattered to every worker
    once (not embedded in the graph, which would be shipped with it); else a delayed value."""
    client = _current_client()
    if client is not None:
        return client.scatter(value, broadcast=True, hash=False)
    return dask.delayed(value, name=f"pdireval-{what}-{uuid.uuid4().hex}", traverse=False)


def _judgments(run: dd.DataFrame, qrels, columns, qrels_columns):
    """The judgments as one graph node: built now from a pandas frame (small), or by one
    task from a Dask qrels frame or from the run's ``label`` column."""
    if isinstance(qrels, pd.DataFrame):
        judgments = _prepared_judgments(build_judgments(canonical_qrels(qrels, qrels_columns)))
        return _broadcast(judgments, "judgments"), judgments
    if isinstance(qrels, dd.DataFrame):
        return dask.delayed(_judgments_from_qrels, pure=True)(qrels.to_delayed(), qrels_columns), None
    if qrels is not None:
        raise TypeError(f"qrels= must be a pandas or Dask DataFrame, got {type(qrels).__name__}")
    label = (columns or {}).get("label", "label")
    if label not in run.columns:
        raise SchemaError(
            "no judgments: pass qrels= (a frame with query, doc, label), or give the run a "
            "'label' column (the re-ranking case, where every system ranks the same candidates)."
        )
    parts = run.map_partitions(_judged_part, columns, meta=_empty({"query": ID_DTYPE, "doc": ID_DTYPE, "label": np.float64}))
    return dask.delayed(_judgments_from_run, pure=True)(parts.to_delayed()), None


# --------------------------------------------------------------------------- tasks


def _partition_scores(part: pd.DataFrame, judgments: Judgments, names, order, columns, markers) -> pd.DataFrame:
    """Scores of one partition with ``missing="drop"`` semantics. With ``markers``, one
    extra row per run query without judgments (measure <NA>), for the final task's warning."""
    if len(part) == 0:
        return _empty(SCORE_DTYPES)
    parsed = parse_measures(names)
    position = None
    if ROW in part.columns:  # shuffled: each row's place in the run before the shuffle
        position = part[ROW].to_numpy()
        part = part.drop(columns=ROW)
    run, keys = canonical_run_keys(part, columns)
    all_queries = run["query"]
    run, keys, dropped = judged_rows(run, keys, judgments)
    if len(run):
        segments = build_segments(run, judgments, order=order, keys=keys)
        frame = scores_frame(segments, parsed, [compute(segments, m) for m in parsed])
        if markers:
            frame = pd.concat([frame, _evidence_rows(doc_id_evidence(segments, keys, judgments))], ignore_index=True)
    else:
        frame = _empty(SCORE_DTYPES)
    if markers and dropped is not None and len(dropped):
        extra = pd.DataFrame(
            {
                "system": pd.array([None] * len(dropped), dtype=ID_DTYPE),
                "query": pd.array(dropped, dtype=ID_DTYPE),
                "measure": pd.array([None] * len(dropped), dtype=ID_DTYPE),
                "value": np.full(len(dropped), np.nan),
            }
        )
        if position is not None:  # the first place of each dropped query, for pandas' order
            first = pd.Series(position).groupby(all_queries.to_numpy(dtype=object)).min()
            extra["value"] = first.reindex(dropped).to_numpy(dtype=np.float64)
        frame = pd.concat([frame, extra], ignore_index=True)
    return frame


#: measure values of the marker rows carrying a partition's doc-id evidence to the final task
_DOCID = "\x00docid:"


def _evidence_rows(evidence: DocIdEvidence) -> pd.DataFrame:
    """A partition's doc-id evidence as marker rows: ``matched``, or its smallest run doc ids
    (in ``query``), plus one row per suspect list (its example doc id after the marker)."""
    if evidence.matched:
        system, query, measure = [None], [None], [_DOCID + "matched"]
    else:
        n = len(evidence.sample)
        system, query, measure = [None] * n, list(evidence.sample), [_DOCID + "sample"] * n
    lists = evidence.lists
    return pd.DataFrame({
        "system": pd.array(system + list(lists["system"]), dtype=ID_DTYPE),
        "query": pd.array(query + list(lists["query"]), dtype=ID_DTYPE),
        "measure": pd.array(measure + [_DOCID + "list:" + d for d in lists["run_doc"]], dtype=ID_DTYPE),
        "value": np.full(len(measure) + len(lists), np.nan),
    })


def _evidence_from_rows(rows: pd.DataFrame) -> DocIdEvidence:
    """The whole run's doc-id evidence from the partitions' marker rows."""
    measure = rows["measure"].to_numpy(dtype=object)
    is_list = np.array([m.startswith(_DOCID + "list:") for m in measure], dtype=bool)
    lists = pd.DataFrame({
        "system": rows["system"].to_numpy(dtype=object)[is_list],
        "query": rows["query"].to_numpy(dtype=object)[is_list],
        "run_doc": np.array([m[len(_DOCID + "list:"):] for m in measure[is_list]], dtype=object),
    })
    matched = bool((measure == _DOCID + "matched").any())
    sample = rows["query"].to_numpy(dtype=object)[measure == _DOCID + "sample"]
    return merge_evidence([DocIdEvidence(matched, sample, lists)])


def _empty_values(judgments: Judgments, parsed) -> np.ndarray:
    """Each measure's value for a query a system did not answer: (n_queries, n_measures)."""
    n_q = judgments.n_queries
    empty = Segments(
        systems=pd.Index(["_"], name="system"),
        seg_system=np.zeros(n_q, dtype=np.int64),
        seg_query=np.arange(n_q, dtype=np.int64),
        seg_len=np.zeros(n_q, dtype=np.int64),
        hit_seg=np.zeros(0, dtype=np.int64),
        hit_pos=np.zeros(0, dtype=np.int64),
        hit_label=np.zeros(0, dtype=np.float64),
        judgments=judgments,
    )
    return np.column_stack([compute(empty, m) for m in parsed]) if n_q else np.zeros((0, len(parsed)))


def _split_error(scores: pd.DataFrame, dup: np.ndarray) -> SchemaError:
    pairs = scores.iloc[dup][["system", "query"]].drop_duplicates(ignore_index=True)
    from pdireval.errors import show_rows

    return SchemaError(
        f"{len(pairs)} (system, query) ranked list(s) are split across partitions of the Dask "
        f"run, so they cannot be scored whole:{show_rows(pairs)}\nPass partitioned_by=None "
        "(the default) to shuffle the run by query, or give each partition whole systems "
        "(one run file per system) or whole queries.",
        failure_cases=pairs,
    )


def _finalize(frame: pd.DataFrame, judgments: Judgments, names, missing: str) -> pd.DataFrame:
    """The final small task: split check, zero grid, warning, pandas' row order."""
    parsed = parse_measures(names)
    docid = frame["measure"].str.startswith(_DOCID).fillna(False).to_numpy(dtype=bool)
    evidence = _evidence_from_rows(frame.loc[docid]) if docid.any() else None
    frame = frame.loc[~docid]
    marker = frame["measure"].isna().to_numpy()
    marks = frame.loc[marker, ["query", "value"]]
    if len(marks) and marks["value"].notna().all():  # after a shuffle: by first place in the run
        first = marks.groupby(marks["query"].to_numpy(dtype=object))["value"].min()
        dropped = first.sort_values(kind="stable").index.to_numpy(dtype=object)
    else:  # partitions in run order: first appearance
        dropped = pd.unique(marks["query"].to_numpy(dtype=object))
    scores = frame.loc[~marker]
    if len(frame) == 0:
        raise SchemaError("the run frame is empty: there is nothing to evaluate.")
    if len(scores) == 0:
        raise no_overlap_error(dropped, len(dropped), judgments.queries)
    if len(dropped):
        _warn(unjudged_message(dropped))
    if evidence is not None:
        for message in doc_id_messages(evidence, judgments):
            _warn(message)
    # codes: system in sorted order, query in the judgments' (natural) order, measure as given
    sys_names = pd.unique(scores["system"].to_numpy(dtype=object))
    sys_names = sys_names[np.argsort(sys_names, kind="stable")]
    s = pd.Index(sys_names).get_indexer(scores["system"].to_numpy(dtype=object))
    q = judgments.queries.get_indexer(scores["query"].to_numpy(dtype=object))
    m = pd.Index([str(x) for x in parsed]).get_indexer(scores["measure"].to_numpy(dtype=object))
    value = scores["value"].to_numpy(dtype=np.float64)
    n_s, n_q, n_m = len(sys_names), judgments.n_queries, len(parsed)
    first = np.flatnonzero(m == 0)
    seg = s[first] * n_q + q[first]
    seen = np.zeros(n_s * n_q, dtype=np.int64)
    np.add.at(seen, seg, 1)
    if (seen > 1).any():
        raise _split_error(scores.iloc[first], np.flatnonzero(seen[seg] > 1))
    if missing == "zero" and (seen == 0).any():
        miss = np.flatnonzero(seen == 0)
        _warn(filled_message(len(miss), n_s * n_q))
        ms, mq = miss // n_q, miss % n_q
        empty = _empty_values(judgments, parsed)
        s = np.concatenate([s, np.repeat(ms, n_m)])
        q = np.concatenate([q, np.repeat(mq, n_m)])
        m = np.concatenate([m, np.tile(np.arange(n_m), len(miss))])
        value = np.concatenate([value, empty[mq].reshape(-1)])
    order = np.lexsort((m, q, s))
    s, q, m = s[order], q[order], m[order]
    measure_names = np.array([str(x) for x in parsed], dtype=object)
    return pd.DataFrame(
        {
            "system": pd.array(sys_names[s], dtype=ID_DTYPE),
            "query": pd.array(judgments.queries.to_numpy(dtype=object)[q], dtype=ID_DTYPE),
            "measure": pd.array(measure_names[m], dtype=ID_DTYPE),
            "value": value[order],
        }
    )


# --------------------------------------------------------------------------- evaluate


#: column carrying each row's place in the run through a shuffle (partition << 32 | row)
ROW = "__pdireval_row__"


def _with_row(part: pd.DataFrame, partition_info=None) -> pd.DataFrame:
    number = 0 if partition_info is None else partition_info["number"]
    return part.assign(**{ROW: (np.int64(number) << np.int64(32)) + np.arange(len(part), dtype=np.int64)})


def _layout(run: dd.DataFrame, partitioned_by, columns, on: str, keep_order: bool = False) -> dd.DataFrame:
    """The run with whole (system, query) lists in each partition: as it is when the caller
    says so, else shuffled by ``on`` (a run column, canonical name). ``keep_order`` carries
    each row's place through the shuffle (so the warning lists queries in the run's order)."""
    check_option("partitioned_by", partitioned_by, PARTITIONED_BY)
    if partitioned_by is not None or run.npartitions == 1:
        return run
    if keep_order:
        run = run.map_partitions(_with_row, meta=run._meta.assign(**{ROW: np.int64(0)}), enforce_metadata=False)
    return run.shuffle(on=(columns or {}).get(on, on))


def _check_partition_invariant(parsed) -> None:
    """Refuse the one value that depends on which lists are evaluated together: a
    Monte-Carlo random bound over each run's own list (its draws are shared by all lists)."""
    for m in parsed:
        try:
            lb, pool = m.get("lb"), m.get("rlb_pool")
        except Exception:  # a measure without bounds parameters
            continue
        if lb == "mc" and pool == "run":
            raise OptionError(
                f"{str(m)!r}: a Monte-Carlo random bound over each run's own list (lb=mc, "
                "rlb_pool=run) draws its permutations for all the lists evaluated together, so "
                "no partitioning reproduces pandas' numbers. Use rlb_pool=qrels (the default; "
                "the same draws in every partition) or lb=exact."
            )


def evaluate(
    run: dd.DataFrame,
    measures,
    *,
    qrels=None,
    missing: str = "zero",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    order: str = "score",
    partitioned_by: str | None = None,
    finalize: bool = True,
) -> dd.DataFrame:
    """Evaluate a Dask run frame lazily: :func:`pdireval.evaluate` past one machine's memory.

    Parameters
    ----------
    run
        Dask DataFrame with the run columns (``system, query, doc`` and ``score`` and/or
        ``rank``), e.g. from :func:`pdireval.dask.read_run` or ``dd.read_parquet``.
    measures, missing, columns, qrels_columns, order
        As in :func:`pdireval.evaluate`.
    qrels
        A pandas frame (validated and grouped once, here, and shared by every partition), a
        Dask frame (read and grouped by one task), or None to take the judgments from the
        run's ``label`` column.
    partitioned_by
        ``None`` (default): the run is shuffled by query so that every (system, query)
        list is whole in one partition. ``"system"``: the partitions already hold whole
        systems (e.g. one run file per system); ``"query"``: whole queries. No shuffle then;
        a list that is split after all is reported as an error by the final task.
    finalize
        True (default): one final task checks for split lists, adds the zero grid, warns
        and orders the rows, giving exactly :func:`pdireval.evaluate`'s frame in one
        partition. False: the per-partition rows with ``missing="drop"`` semantics, unordered,
        without the checks or the warning (e.g. to write to Parquet, one file per partition).

    Returns
    -------
    dask.dataframe.DataFrame
        Lazy scores frame: ``system``, ``query``, ``measure`` (str) and ``value``
        (float64), as :func:`pdireval.evaluate` documents them. ``.compute()`` equals
        ``pdireval.evaluate`` on the whole run: same rows, row order, dtypes and values.

    Raises
    ------
    SchemaError, MeasureError, OptionError
        As :func:`pdireval.evaluate`, with the same messages. Measures, options and the
        run's column names are checked at once; the rows when the graph runs (in the
        partition holding them), and a split (system, query) list in the final task.

    Warns
    -----
    PdirevalWarning
        Once, when run queries have no judgments, and once when doc ids do not match the
        qrels (as :func:`pdireval.evaluate`: the whole run, or ranked lists with near-miss
        spellings; the same message whatever the partitioning), from the final task; on a
        distributed cluster through ``distributed.warn``, which shows it on the client.

    Notes
    -----
    Memory per worker: a partition of n run rows needs about 125 bytes per row while it is
    evaluated (the pandas path's footprint), plus the qrels. See docs/scale.md.

    Examples
    --------
    >>> import dask.dataframe as dd, pdireval, pdireval.dask
    >>> run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=4, depth=10, rng=1)
    >>> lazy = pdireval.dask.evaluate(dd.from_pandas(run, npartitions=2), "AP", qrels=qrels)
    >>> lazy.compute().equals(pdireval.evaluate(run, "AP", qrels=qrels))
    True
    """
    _check_dask_frame(run, "pdireval.dask.evaluate")
    check_option("missing", missing, MISSING)
    check_option("order", order, ORDERS)
    check_option("partitioned_by", partitioned_by, PARTITIONED_BY)
    finalize = check_bool("finalize", finalize)
    parsed = parse_measures(measures)
    _check_partition_invariant(parsed)
    names = [str(m) for m in parsed]
    order = _resolve_order(run, columns, order)
    judgments, _ = _judgments(run, qrels, columns, qrels_columns)
    run = _layout(run, partitioned_by, columns, "query", keep_order=finalize)
    meta = _empty(SCORE_DTYPES)
    parts = run.map_partitions(
        _partition_scores, judgments, names, order, columns, finalize, meta=meta, enforce_metadata=False
    )
    if not finalize:
        return parts
    return parts.repartition(npartitions=1).map_partitions(
        _finalize, judgments, names, missing, meta=meta, enforce_metadata=False
    )


# --------------------------------------------------------------------------- evaluate_variants


def _variant_partition(part: pd.DataFrame, variants: pd.DataFrame, names, missing, order, columns, qrels_columns, key_cols):
    from pdireval.runs.variants import evaluate_variants as _pandas_variants

    out_dtypes = {**{k: variants[k].dtype for k in key_cols}, "system": ID_DTYPE, "measure": ID_DTYPE, "value": np.float64, "n_queries": np.int64}
    if len(part) == 0:
        return _empty(out_dtypes)
    run = canonical_run(part, columns)
    judged_q = pd.Index(pd.unique(variants[(qrels_columns or {}).get("query", "query")].astype(str)))
    keep = run["query"].isin(judged_q).to_numpy()
    dropped = pd.unique(run["query"].to_numpy(dtype=object)[~keep])
    run = run.loc[keep].reset_index(drop=True)
    if len(run):
        scores = _pandas_variants(run, names, variants, missing=missing, qrels_columns=qrels_columns, order=order)
        g = scores.groupby([*key_cols, "system", "measure"], sort=False, observed=True)["value"]
        frame = g.mean().reset_index()
        frame["n_queries"] = g.size().to_numpy(dtype=np.int64)
    else:
        frame = _empty(out_dtypes)
    if len(dropped):  # marker rows (n_queries -1, the query in 'system') for the final warning
        marker = variants[key_cols].iloc[np.zeros(len(dropped), dtype=np.int64)].reset_index(drop=True)
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
        _warn(
            f"{len(dropped)} run quer{'y is' if len(dropped) == 1 else 'ies are'} judged in no "
            f"qrels variant and {'is' if len(dropped) == 1 else 'are'} not evaluated (e.g. "
            f"{list(dropped[:5])})."
        )
    dup = means.duplicated([*key_cols, "system", "measure"]).to_numpy()
    if dup.any():
        rows = means.loc[dup, [*key_cols, "system"]].drop_duplicates(ignore_index=True)
        from pdireval.errors import show_rows

        raise SchemaError(
            f"{len(rows)} system(s) are split across partitions of the Dask run, so their "
            f"means cannot be taken whole:{show_rows(rows)}\nPass partitioned_by=None (the "
            "default) to shuffle the run by system, or give each partition whole systems."
        )
    m = pd.Index(names).get_indexer(means["measure"].to_numpy(dtype=object))
    sys_order = means["system"].to_numpy(dtype=object)
    keys = [means[k].to_numpy() for k in reversed(key_cols)]
    order = np.lexsort((m, sys_order.astype(str), *keys)) if len(means) else np.zeros(0, dtype=np.int64)
    return means.iloc[order].reset_index(drop=True)


def evaluate_variants(
    run: dd.DataFrame,
    measures,
    qrels_variants: pd.DataFrame,
    *,
    missing: str = "zero",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    order: str = "score",
    partitioned_by: str | None = None,
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
    measures, qrels_variants, missing, columns, qrels_columns, order
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
    from pdireval.runs.variants import canonical_variants

    _check_dask_frame(run, "pdireval.dask.evaluate_variants")
    check_option("missing", missing, MISSING)
    check_option("order", order, ORDERS)
    check_option("partitioned_by", partitioned_by, PARTITIONED_BY)
    if partitioned_by == "query":
        raise OptionError(
            "partitioned_by='query' cannot give per-system means: pass partitioned_by=None to "
            "shuffle the run by system, or 'system' when partitions hold whole systems."
        )
    names = [str(m) for m in parse_measures(measures)]
    order = _resolve_order(run, columns, order)
    _, key_cols = canonical_variants(qrels_variants, qrels_columns)
    out_dtypes = {**{k: qrels_variants[k].dtype for k in key_cols}, "system": ID_DTYPE, "measure": ID_DTYPE, "value": np.float64, "n_queries": np.int64}
    meta = _empty(out_dtypes)
    variants = _broadcast(qrels_variants, "variants")
    run = _layout(run, partitioned_by, columns, "system")
    parts = run.map_partitions(
        _variant_partition, variants, names, missing, order, columns, qrels_columns, key_cols, meta=meta, enforce_metadata=False
    )
    return parts.repartition(npartitions=1).map_partitions(_variant_finalize, names, key_cols, meta=meta, enforce_metadata=False)


# --------------------------------------------------------------------------- readers


def _files(path) -> list[str]:
    """A list of paths, a glob pattern, a folder (its files, in name order) or one file."""
    if isinstance(path, (list, tuple)):
        files = [os.fspath(p) for p in path]
    else:
        text = os.fspath(path)
        if os.path.isdir(text):
            files = sorted(str(p) for p in Path(text).iterdir() if p.is_file() and not p.name.startswith("."))
        elif any(ch in text for ch in "*?["):
            files = sorted(_glob.glob(text))
        else:
            files = [text]
    if not files:
        raise SchemaError(f"no file matches {path!r}: check the path or the glob pattern.")
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        raise SchemaError(f"{len(missing)} file(s) do not exist, e.g. {missing[:3]}: check the paths.")
    return files


def _pieces(files: list[str]):
    """One piece per text file, one per row group of a Parquet file (its footer is read)."""
    import pyarrow.parquet as pq

    pieces, schema = [], None
    for f in files:
        if f.endswith(".parquet"):
            meta = pq.ParquetFile(f).metadata
            schema = schema or meta.schema.to_arrow_schema()
            pieces += [(f, rg) for rg in range(meta.num_row_groups)] or [(f, None)]
        else:
            pieces.append((f, None))
    return pieces, schema


def _read_run_piece(piece, system, names):
    path, rg = piece
    name = names.get(path)
    if path.endswith(".parquet"):
        return read_parquet(path, "run", system=system, row_group=rg, name=name)
    run = read_run_file(Path(path), system, name)
    check_run_duplicates(run, [run], [Path(path)])
    return canonical_run(run, check_duplicates=False)


def _read_qrels_piece(piece):
    path, rg = piece
    if path.endswith(".parquet"):
        return read_parquet(path, "qrels", row_group=rg)
    return read_qrels_file(path)


def _meta_from(kind: str, schema) -> pd.DataFrame:
    if kind == "qrels":
        return _empty({"query": ID_DTYPE, "doc": ID_DTYPE, "label": np.float64})
    dtypes = {"system": ID_DTYPE, "query": ID_DTYPE, "doc": ID_DTYPE}
    names = ("score", "rank") if schema is None else [n for n in ("score", "rank", "label") if n in schema.names]
    for n in names:
        dtypes[n] = np.int64 if n == "rank" else np.float64
    return _empty(dtypes)


def read_run(path, *, system: str = "tag") -> dd.DataFrame:
    """Read many (or large) run files lazily: one partition per file, or per Parquet row group.

    Parameters
    ----------
    path
        A glob pattern (``"runs/*.gz"``), a folder (its files in name order), one file, or
        a list of files: TREC run files (gzipped or not, read by :func:`pdireval.read_run`
        with its checks and line-numbered errors) or Parquet files (``.parquet``, with run
        columns; each row group is a partition).
    system
        As in :func:`pdireval.read_run`.

    Returns
    -------
    dask.dataframe.DataFrame
        The canonical run columns (``system, query, doc`` str, ``score`` float64, ``rank``
        int64, and ``label`` float64 when a Parquet file has it). With one run file per
        system, pass ``partitioned_by="system"`` to :func:`pdireval.dask.evaluate` (no
        shuffle). Only the Parquet footers are read now.
    """
    check_option("system", system, ("tag", "filename"))
    files = _files(path)
    # system="filename": names over all the files at once, so that colliding stems
    # (bm25.txt, bm25.run) keep their whole file names, as in pdireval.read_run
    names = dict(zip(files, file_system_names(files))) if system == "filename" else {}
    pieces, schema = _pieces(files)
    meta = _meta_from("run", schema)
    return dd.from_map(_read_run_piece, pieces, system=system, names=names, meta=meta, enforce_metadata=False, label="pdireval-read-run")


def read_qrels(path) -> dd.DataFrame:
    """Read huge qrels lazily (as :func:`read_run`): one partition per file or row group.

    Returns
    -------
    dask.dataframe.DataFrame
        ``query, doc`` (str) and ``label`` (float64). Passed as ``qrels=`` to
        :func:`pdireval.dask.evaluate`, it is validated and grouped by one task.
    """
    pieces, _ = _pieces(_files(path))
    return dd.from_map(_read_qrels_piece, pieces, meta=_meta_from("qrels", None), enforce_metadata=False, label="pdireval-read-qrels")


# --------------------------------------------------------------------------- accessor


@dd.extensions.register_dataframe_accessor("ireval")
class DaskAccessor:
    """pdireval on a Dask DataFrame: ``run_ddf.ireval.evaluate(...)`` (lazy)."""

    def __init__(self, frame: dd.DataFrame):
        self._obj = frame

    def evaluate(self, measures, *, qrels=None, missing="zero", columns=None, qrels_columns=None, order="score", partitioned_by=None, finalize=True):
        """See :func:`pdireval.dask.evaluate`."""
        return evaluate(self._obj, measures, qrels=qrels, missing=missing, columns=columns, qrels_columns=qrels_columns, order=order, partitioned_by=partitioned_by, finalize=finalize)

    def evaluate_variants(self, measures, qrels_variants, *, missing="zero", columns=None, qrels_columns=None, order="score", partitioned_by=None):
        """See :func:`pdireval.dask.evaluate_variants`."""
        return evaluate_variants(self._obj, measures, qrels_variants, missing=missing, columns=columns, qrels_columns=qrels_columns, order=order, partitioned_by=partitioned_by)
