"""pdireval.dask.evaluate: each partition scored with ``missing="drop"`` semantics, then one
final small task checks for split lists, fills the zero grid, warns and restores
:func:`pdireval.evaluate`'s row order."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from pdireval.core.docids import DocIdEvidence, doc_id_evidence, doc_id_messages, merge_evidence
from pdireval.core.schema import (
    ID_DTYPE,
    canonical_qrels,
    canonical_run,
    canonical_run_keys,
    qrels_from_run,
)
from pdireval.core.seed_keys import join_seeds, seed_column, split_seeds
from pdireval.core.segments import (
    Judgments,
    Segments,
    build_judgments,
    build_segments,
    judgment_keys,
)
from pdireval.dask.partitions import (
    PARTITIONED_BY,
    ROW,
    SCORE_DTYPES,
    broadcast,
    check_dask_frame,
    empty_frame,
    layout,
    resolve_order,
    warn_client,
)
from pdireval.errors import OptionError, SchemaError, check_bool, check_option, show_rows
from pdireval.evaluation import (
    MISSING,
    ORDERS,
    PRECISION_ADVICE,
    Prepared,
    filled_message,
    float32_changes,
    float32_message,
    judged_rows,
    no_overlap_error,
    recheck_of,
    scores_frame,
    unjudged_message,
)
from pdireval.io import as_frame
from pdireval.measures import compute
from pdireval.measures.trec_eval.versions import (
    measures_for,
    score_precision_for,
    trec_eval_version,
)

if TYPE_CHECKING:
    from pdireval.types import (
        Measures,
        Missing,
        Order,
        PartitionedBy,
        ScorePrecision,
        TrecEvalVersion,
    )

__all__ = ["evaluate"]


# --------------------------------------------------------------------------- judgments


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
        return pd.DataFrame(
            {
                "query": pd.Series([], dtype=ID_DTYPE),
                "doc": pd.Series([], dtype=ID_DTYPE),
                "label": pd.Series([], dtype=np.float64),
            }
        )
    run = canonical_run(part, columns, check_duplicates=False)
    judged = run.loc[run["label"].notna().to_numpy(), ["query", "doc", "label"]]
    return judged.drop_duplicates(ignore_index=True)


def _judgments_from_run(parts):
    frame = pd.concat(parts, ignore_index=True)
    frame["system"] = pd.array(["_"] * len(frame), dtype=ID_DTYPE)
    return _prepared_judgments(build_judgments(qrels_from_run(frame)))


def _judgments(run: dd.DataFrame, qrels, columns, qrels_columns):
    """The judgments as one graph node: built now from a pandas frame (small), or by one
    task from a Dask qrels frame or from the run's ``label`` column."""
    if not isinstance(qrels, dd.DataFrame):
        # as pdireval.evaluate reads them: Arrow data (pyarrow, polars, DuckDB), a path, a
        # pytrec_eval dict of dicts or records become a pandas frame
        qrels = as_frame(qrels, "qrels")
    if isinstance(qrels, pd.DataFrame):
        judgments = _prepared_judgments(build_judgments(canonical_qrels(qrels, qrels_columns)))
        return broadcast(judgments, "judgments"), judgments
    if isinstance(qrels, dd.DataFrame):
        return dask.delayed(_judgments_from_qrels, pure=True)(
            qrels.to_delayed(), qrels_columns
        ), None
    if qrels is not None:
        raise TypeError(
            "qrels= must be a pandas or Dask DataFrame (or what pdireval.evaluate reads as "
            "qrels: Arrow data such as a polars or DuckDB result, a path, a dict of dicts), got "
            f"{type(qrels).__module__}.{type(qrels).__name__}"
        )
    label = (columns or {}).get("label", "label")
    if label not in run.columns:
        raise SchemaError(
            "no judgments: pass qrels= (a frame with query, doc, label), or give the run a "
            "'label' column (the re-ranking case, where every system ranks the same candidates)."
        )
    parts = run.map_partitions(
        _judged_part,
        columns,
        meta=empty_frame({"query": ID_DTYPE, "doc": ID_DTYPE, "label": np.float64}),
    )
    return dask.delayed(_judgments_from_run, pure=True)(parts.to_delayed()), None


# --------------------------------------------------------------------------- tasks


def _partition_scores(
    part: pd.DataFrame,
    judgments: Judgments,
    names,
    order,
    columns,
    markers,
    version=None,
    score_precision="float32",
) -> pd.DataFrame:
    """Scores of one partition with ``missing="drop"`` semantics. With ``markers``, one
    extra row per run query without judgments (measure <NA>), and the doc-id evidence and
    the values float32 ties change as marker rows, for the final task's warnings."""
    if len(part) == 0:
        return empty_frame(SCORE_DTYPES)
    labels, parsed = zip(*measures_for(names, version))
    position = None
    if ROW in part.columns:  # shuffled: each row's place in the run before the shuffle
        position = part[ROW].to_numpy()
        part = part.drop(columns=ROW)
    run, keys = canonical_run_keys(part, columns)
    all_queries = run["query"]
    run, keys, dropped = judged_rows(run, keys, judgments)
    if len(run):
        segments = build_segments(
            run, judgments, order=order, keys=keys, score_precision=score_precision
        )
        cache: dict = {}  # two names of one measure ("map", "AP"): computed once
        values = [
            cache[m] if m in cache else cache.setdefault(m, compute(segments, m)) for m in parsed
        ]
        frame = scores_frame(segments, parsed, values, labels)
        if markers:
            recheck = recheck_of(segments, keys, order)
            changed = None
            if recheck is not None:
                prepared = Prepared(segments, run, None, "drop", recheck)
                changed = _float32_rows(float32_changes(prepared, parsed, values, labels))
            evidence = _evidence_rows(doc_id_evidence(segments, keys, judgments))
            frame = pd.concat([frame, evidence, changed], ignore_index=True)
    else:
        frame = empty_frame(SCORE_DTYPES)
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
    return pd.DataFrame(
        {
            "system": pd.array(system + list(lists["system"]), dtype=ID_DTYPE),
            "query": pd.array(query + list(lists["query"]), dtype=ID_DTYPE),
            "measure": pd.array(
                measure + [_DOCID + "list:" + d for d in lists["run_doc"]], dtype=ID_DTYPE
            ),
            "value": np.full(len(measure) + len(lists), np.nan),
        }
    )


def _evidence_from_rows(rows: pd.DataFrame) -> DocIdEvidence:
    """The whole run's doc-id evidence from the partitions' marker rows."""
    measure = rows["measure"].to_numpy(dtype=object)
    is_list = np.array([m.startswith(_DOCID + "list:") for m in measure], dtype=bool)
    lists = pd.DataFrame(
        {
            "system": rows["system"].to_numpy(dtype=object)[is_list],
            "query": rows["query"].to_numpy(dtype=object)[is_list],
            "run_doc": np.array(
                [m[len(_DOCID + "list:") :] for m in measure[is_list]], dtype=object
            ),
        }
    )
    matched = bool((measure == _DOCID + "matched").any())
    sample = rows["query"].to_numpy(dtype=object)[measure == _DOCID + "sample"]
    return merge_evidence([DocIdEvidence(matched, sample, lists)])


#: measure prefix of the marker rows carrying a value that float32 ties change: the prefix,
#: the value with the doubles compared (float.hex, exact), ":", the measure's label
_FLOAT32 = "\x00float32:"


def _float32_rows(changes: pd.DataFrame) -> pd.DataFrame:
    """A partition's :func:`~pdireval.evaluation.float32_changes` as marker rows."""
    exact = [float(v).hex() for v in changes["value_float64"]]
    return pd.DataFrame(
        {
            "system": pd.array(changes["system"].to_numpy(dtype=object), dtype=ID_DTYPE),
            "query": pd.array(changes["query"].to_numpy(dtype=object), dtype=ID_DTYPE),
            "measure": pd.array(
                [f"{_FLOAT32}{x}:{m}" for x, m in zip(exact, changes["measure"])], dtype=ID_DTYPE
            ),
            "value": changes["value"].to_numpy(dtype=np.float64),
        }
    )


def _float32_warning(rows: pd.DataFrame, judgments: Judgments, labels, n_values: int) -> None:
    """The float32 warning of :func:`pdireval.evaluate` from the partitions' marker rows: the
    changed values in evaluate's row order (system, query, measure as given)."""
    text = [m[len(_FLOAT32) :].split(":", 1) for m in rows["measure"].to_numpy(dtype=object)]
    changes = pd.DataFrame(
        {
            "system": rows["system"].to_numpy(dtype=object),
            "query": rows["query"].to_numpy(dtype=object),
            "measure": np.array([m for _, m in text], dtype=object),
            "value": rows["value"].to_numpy(dtype=np.float64),
            "value_float64": np.array([float.fromhex(x) for x, _ in text], dtype=np.float64),
        }
    )
    q = judgments.queries.get_indexer(changes["query"])
    m = pd.Index(labels).get_indexer(changes["measure"])
    changes = changes.iloc[np.lexsort((m, q, changes["system"].to_numpy(dtype=str)))]
    message = float32_message(changes.reset_index(drop=True), n_values, PRECISION_ADVICE)
    warn_client(message, once="float32")


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
    return (
        np.column_stack([compute(empty, m) for m in parsed]) if n_q else np.zeros((0, len(parsed)))
    )


def _joined_part(part: pd.DataFrame, seed: str, columns, meta: pd.DataFrame) -> pd.DataFrame:
    """:func:`~pdireval.evaluation.join_seeds` of one partition (its canonical run, each
    (system, seed) one system), an empty ``meta`` for an empty partition."""
    return join_seeds(part, seed, columns) if len(part) else meta


def _evaluate_seeds(run: dd.DataFrame, seed: str, measures, *, columns, **options):
    """:func:`evaluate` of a run with a seed column, as :func:`pdireval.evaluate` does it:
    each (system, seed) evaluated as a system of its own (its name the two joined), then
    split back into ``system`` and ``seed`` columns."""
    if seed not in run.columns:
        raise SchemaError(
            f"columns= maps 'seed' to {seed!r}, which the run does not have "
            f"(it has {list(run.columns)!r})."
        )
    # the partitions' layout from dask's stand-in row (its first row has no missing value)
    meta = join_seeds(run._meta_nonempty.iloc[:1], seed, columns).iloc[:0]
    joined = run.map_partitions(
        _joined_part, seed, columns, meta, meta=meta, enforce_metadata=False
    )
    scores = evaluate(joined, measures, columns=None, **options)
    return scores.map_partitions(
        split_seeds, meta=split_seeds(empty_frame(SCORE_DTYPES)), enforce_metadata=False
    )


def _split_error(scores: pd.DataFrame, dup: np.ndarray) -> SchemaError:
    pairs = scores.iloc[dup][["system", "query"]].drop_duplicates(ignore_index=True)
    return SchemaError(
        f"{len(pairs)} (system, query) ranked list(s) are split across partitions of the Dask "
        f"run, so they cannot be scored whole:{show_rows(pairs)}\nPass partitioned_by=None "
        "(the default) to shuffle the run by query, or give each partition whole systems "
        "(one run file per system) or whole queries.",
        failure_cases=pairs,
    )


def _finalize(
    frame: pd.DataFrame,
    judgments: Judgments,
    names,
    missing: str,
    version=None,
    warn_float32: bool = True,
) -> pd.DataFrame:
    """The final small task: split check, zero grid, warnings, pandas' row order."""
    labels, parsed = zip(*measures_for(names, version))
    docid = frame["measure"].str.startswith(_DOCID).fillna(False).to_numpy(dtype=bool)
    evidence = _evidence_from_rows(frame.loc[docid]) if docid.any() else None
    tied = frame["measure"].str.startswith(_FLOAT32).fillna(False).to_numpy(dtype=bool)
    float32_rows = frame.loc[tied]
    frame = frame.loc[~docid & ~tied]
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
        warn_client(unjudged_message(dropped))
    if evidence is not None:
        for message in doc_id_messages(evidence, judgments):
            warn_client(message)
    # codes: system in sorted order, query in the judgments' (natural) order, measure as given
    sys_names = pd.unique(scores["system"].to_numpy(dtype=object))
    sys_names = sys_names[np.argsort(sys_names, kind="stable")]
    s = pd.Index(sys_names).get_indexer(scores["system"].to_numpy(dtype=object))
    q = judgments.queries.get_indexer(scores["query"].to_numpy(dtype=object))
    m = pd.Index(labels).get_indexer(scores["measure"].to_numpy(dtype=object))
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
        warn_client(filled_message(len(miss), n_s * n_q))
        ms, mq = miss // n_q, miss % n_q
        empty = _empty_values(judgments, parsed)
        s = np.concatenate([s, np.repeat(ms, n_m)])
        q = np.concatenate([q, np.repeat(mq, n_m)])
        m = np.concatenate([m, np.tile(np.arange(n_m), len(miss))])
        value = np.concatenate([value, empty[mq].reshape(-1)])
    if len(float32_rows) and warn_float32:
        _float32_warning(float32_rows, judgments, labels, len(value))
    order = np.lexsort((m, q, s))
    s, q, m = s[order], q[order], m[order]
    measure_names = np.array(labels, dtype=object)
    return pd.DataFrame(
        {
            "system": pd.array(sys_names[s], dtype=ID_DTYPE),
            "query": pd.array(judgments.queries.to_numpy(dtype=object)[q], dtype=ID_DTYPE),
            "measure": pd.array(measure_names[m], dtype=ID_DTYPE),
            "value": value[order],
        }
    )


# --------------------------------------------------------------------------- evaluate


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
    measures: Measures,
    *,
    qrels: pd.DataFrame | dd.DataFrame | None = None,
    missing: Missing = "zero",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    order: Order = "score",
    score_precision: ScorePrecision | None = None,
    trec_eval: TrecEvalVersion | None = None,
    partitioned_by: PartitionedBy | None = None,
    finalize: bool = True,
) -> dd.DataFrame:
    """Evaluate a Dask run frame lazily: :func:`pdireval.evaluate` past one machine's memory.

    Parameters
    ----------
    run
        Dask DataFrame with the run columns (``system, query, doc`` and ``score`` and/or
        ``rank``), e.g. from :func:`pdireval.dask.read_run` or ``dd.read_parquet``. A
        ``seed`` or ``trial`` column (or ``columns={"seed": ...}``): one ranking per
        (system, seed, query), each (system, seed) evaluated as a system of its own, as
        :func:`pdireval.evaluate` does.
    measures, missing, columns, qrels_columns, order, score_precision, trec_eval
        As in :func:`pdireval.evaluate`: ``trec_eval="10"`` gives trec_eval 10.0's numbers
        (scores compared as doubles unless ``score_precision`` says otherwise, 10.0's
        interpolated precision, ``all_trec`` with 10.0's additions), ``trec_eval="9.0.8"``
        refuses the measures only 10.0 has (``rbp``, ``rbp_resid``, ``unj_k``) with
        :class:`~pdireval.MeasureError` at once.
    qrels
        A pandas frame (validated and grouped once, here, and shared by every partition;
        what :func:`pdireval.evaluate` reads as qrels — Arrow data such as a polars or
        DuckDB result, a path, a pytrec_eval dict — is read into one), a Dask frame (read
        and grouped by one task), or None to take the judgments from the run's ``label``
        column.
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
        (float64), as :func:`pdireval.evaluate` documents them (with a ``seed`` column after
        ``system`` for a run with seeds). ``.compute()`` equals
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
        Once, when run queries have no judgments, once when doc ids do not match the
        qrels (as :func:`pdireval.evaluate`: the whole run, or ranked lists with near-miss
        spellings; the same message whatever the partitioning), once when (system, query)
        pairs were filled (``missing="zero"``) and once when comparing scores at float32
        precision changes returned values (each partition evaluates its tied lists again
        with the doubles compared; the same count and first example as pandas), from the
        final task; on a distributed cluster through ``distributed.warn``, which shows it on
        the client. ``finalize=False`` gives none of them.

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
    check_dask_frame(run, "pdireval.dask.evaluate")
    seed = seed_column(run.columns, columns)
    if seed is not None:  # one ranking per (system, seed, query): as pandas evaluates it
        return _evaluate_seeds(
            run,
            seed,
            measures,
            qrels=qrels,
            missing=missing,
            columns=columns,
            qrels_columns=qrels_columns,
            order=order,
            score_precision=score_precision,
            trec_eval=trec_eval,
            partitioned_by=partitioned_by,
            finalize=finalize,
        )
    check_option("missing", missing, MISSING)
    check_option("order", order, ORDERS)
    check_option("partitioned_by", partitioned_by, PARTITIONED_BY)
    finalize = check_bool("finalize", finalize)
    version = trec_eval_version(trec_eval)
    chosen = score_precision is not None  # a chosen precision needs no warning about it
    score_precision = score_precision_for(score_precision, version)
    given, parsed = zip(*measures_for(measures, version))  # names as given
    _check_partition_invariant(parsed)
    names = list(given)
    order = resolve_order(run, columns, order)
    judgments, _ = _judgments(run, qrels, columns, qrels_columns)
    run = layout(run, partitioned_by, columns, "query", keep_order=finalize)
    meta = empty_frame(SCORE_DTYPES)
    parts = run.map_partitions(
        _partition_scores,
        judgments,
        names,
        order,
        columns,
        finalize,
        version,
        score_precision,
        meta=meta,
        enforce_metadata=False,
    )
    if not finalize:
        return parts
    return parts.repartition(npartitions=1).map_partitions(
        _finalize,
        judgments,
        names,
        missing,
        version,
        not chosen,
        meta=meta,
        enforce_metadata=False,
    )
