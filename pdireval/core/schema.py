"""Canonical frame kinds and their validation.

pdireval knows three frame kinds:

========  =============================================  ======================  =================
kind      required columns                               key                     optional
========  =============================================  ======================  =================
run       ``query, doc, system`` and ``rank`` or ``score``  (system, query, doc)  ``label``,
``score`` qrels     ``query, doc, label``                          (query, doc)            --
scores    ``system, query, measure, value``              (system, query, measure)  grouping columns
========  =============================================  ======================  =================

Every public entry point validates its frames once, here, into *canonical copies*:
identifiers become strings (pandas' string dtype), numbers become float64 (``rank``
int64), and the caller's frame is never modified. Users whose columns have other names
pass ``columns={"query": "qid", "doc": "docno", ...}`` (canonical name -> their name).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from pdireval.core.keys import RunKeys, in_key_order, run_keys
from pdireval.core.recognize import DEFAULT_SYSTEM, SPELLINGS, recognize
from pdireval.errors import PdirevalWarning, SchemaError, show_rows

__all__ = [
    "RUN_COLUMNS",
    "QRELS_COLUMNS",
    "SCORES_COLUMNS",
    "canonical_run",
    "canonical_qrels",
    "canonical_scores",
    "qrels_from_run",
    "one_judge",
]

RUN_COLUMNS = ("system", "query", "doc")
QRELS_COLUMNS = ("query", "doc", "label")
SCORES_COLUMNS = ("system", "query", "measure", "value")
#: per-query values beside ``value`` (not grouping keys): the bounds of
#: ``evaluate(..., unjudged="bounds")``
BOUND_COLUMNS = ("value_low", "value_high")
ID_DTYPE = "string[pyarrow]"


# --------------------------------------------------------------------------- helpers


def from_arrow(obj):
    """A pandas DataFrame from Arrow data, converted once; anything else is returned as is.

    Arrow data: a pyarrow ``Table``, ``RecordBatch`` or ``RecordBatchReader``, or any object
    with the Arrow PyCapsule stream interface (``__arrow_c_stream__``: polars and DuckDB
    results, among others). String columns become pyarrow-backed pandas strings
    (``string[pyarrow]``, pdireval's id type), so their buffers are not copied into Python
    objects; numeric columns are converted as pyarrow does.
    """
    if isinstance(obj, (pd.DataFrame, pd.Series, pd.Index)) or not (
        hasattr(obj, "__arrow_c_stream__") or type(obj).__module__.split(".")[0] == "pyarrow"
    ):
        return obj  # a pandas Series speaks the Arrow stream too, but is no table
    import pyarrow as pa

    if isinstance(obj, pa.RecordBatchReader):
        table = obj.read_all()
    elif isinstance(obj, pa.RecordBatch):
        table = pa.Table.from_batches([obj])
    elif isinstance(obj, pa.Table):
        table = obj
    elif hasattr(obj, "__arrow_c_stream__"):
        try:
            table = pa.table(obj)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            # pyarrow before 15 reads no PyCapsule stream: the library's own export, if any
            export = getattr(obj, "to_arrow", None) or getattr(obj, "arrow", None)
            try:
                table = export() if export is not None else None
            except Exception:  # noqa: BLE001 - any failure: not Arrow data we can read
                table = None
            if isinstance(table, pa.RecordBatchReader):
                table = table.read_all()
            if not isinstance(table, pa.Table):
                return obj  # a stream of something other than records: the caller's error
    else:
        return obj
    strings = pd.StringDtype("pyarrow")
    mapper = {pa.string(): strings, pa.large_string(): strings}
    if hasattr(pa, "string_view"):  # pyarrow >= 16
        mapper[pa.string_view()] = strings
    return table.to_pandas(types_mapper=mapper.get)


def check_frame(frame, kind: str) -> pd.DataFrame:
    """The frame itself (Arrow data converted by :func:`from_arrow`), or a TypeError saying
    what to pass. A run or qrels given as a path, a pytrec_eval dict of dicts or an iterable
    of records was made a frame by the entry point (:func:`pdireval.io.as_frame`) before it
    reaches here."""
    frame = from_arrow(frame)
    if not isinstance(frame, pd.DataFrame):
        extra = (
            ", a path, a dict of dicts {query: {doc: value}} or an iterable of records"
            if kind in ("run", "qrels")
            else ""
        )
        raise TypeError(
            f"the {kind} must be a pandas DataFrame{extra} (or Arrow data: a pyarrow Table, "
            f"a polars or DuckDB result), got {type(frame).__name__}"
        )
    return frame


def rename_columns(
    frame: pd.DataFrame, columns: Mapping[str, str] | None, kind: str, allowed=()
) -> pd.DataFrame:
    """Apply a ``columns={canonical: user_name}`` mapping, returning a shallow copy."""
    if columns is not None:
        if not isinstance(columns, Mapping):
            raise TypeError(
                "columns= must be a mapping {canonical_name: your_column_name}, got "
                f"{type(columns).__name__}"
            )
        unknown = [key for key in columns if key not in allowed]
        if unknown:
            raise SchemaError(
                f"columns= has key(s) {unknown!r}, which are not {kind} column names. Keys are "
                f"pdireval's names ({', '.join(allowed)}), values your column names, e.g. "
                "columns={'query': 'qid'}."
            )
        missing = [user for user in columns.values() if user not in frame.columns]
        if missing:
            raise SchemaError(
                f"columns= maps to {missing!r}, which the {kind} frame does not have "
                f"(it has {list(frame.columns)!r}). Fix the mapping: keys are pdireval's names "
                f"(e.g. 'query'), values are your column names."
            )
    frame = frame.copy(deep=False)
    if kind in SPELLINGS:  # other tools' names (PyTerrier, ir_measures, ranx, TREC files)
        found = recognize(frame, kind, columns)
        if found.drop:
            frame = frame.drop(columns=found.drop)
        columns = found.columns
        if found.add_system:
            frame["system"] = pd.Series(DEFAULT_SYSTEM, index=frame.index, dtype=ID_DTYPE)
    if columns:
        inverse = {user: canonical for canonical, user in columns.items()}
        frame = frame.rename(columns=inverse)
    names = pd.Index(frame.columns)
    dup = names[names.duplicated()].unique().tolist()
    if dup:
        how = (
            " after applying columns= (a mapped column and an existing one share a name: drop "
            "or rename one of them)"
            if columns is not None
            else ": rename or drop the duplicates"
        )
        raise SchemaError(f"the {kind} frame has more than one column named {dup!r}{how}.")
    return frame


def require_columns(frame: pd.DataFrame, needed, kind: str, columns) -> None:
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        if columns is not None:
            hint = " Check the columns= mapping."
        elif kind == "scores" and any(
            c in frame.columns for c in ("doc", "docno", "doc_id", "docid")
        ):
            hint = (
                " This looks like a run (one row per retrieved document), not a scores frame "
                "(one value per system, query and measure): evaluate it first, e.g. "
                "scores = run.ireval.evaluate(['nDCG@10', 'AP'], qrels=qrels), then call this "
                "on scores."
            )
        elif kind == "scores":
            hint = (
                " Rename yours first, e.g. df.rename(columns={'score': 'value'}); a scores "
                "frame has one row per (system, query, measure)."
            )
        else:
            hint = " Pass columns={'query': 'your_name', ...} to map your names."
        raise SchemaError(
            f"the {kind} frame has no column {', '.join(repr(c) for c in missing)} "
            f"(it has {list(frame.columns)!r}).{hint}"
        )


def _require_nonempty(frame: pd.DataFrame, kind: str) -> None:
    if len(frame) == 0:
        raise SchemaError(f"the {kind} frame is empty: there is nothing to evaluate.")


#: What ``pandas.api.types.infer_dtype`` calls a column of plain scalars (anything else, e.g.
#: "mixed", may hold lists, dicts or arrays and is checked value by value).
_SCALAR_KINDS = {
    "string",
    "bytes",
    "integer",
    "floating",
    "mixed-integer-float",
    "decimal",
    "boolean",
    "empty",
    "categorical",
    "datetime",
    "datetime64",
    "date",
    "timedelta",
    "timedelta64",
    "time",
    "period",
    "interval",
    "complex",
}


def _check_scalars(
    series: pd.Series, name: str, kind: str, frame: pd.DataFrame | None, role: str
) -> None:
    """Refuse a column holding lists, dicts, sets or arrays (e.g. a JSON field read whole).

    Such values cannot be ids or grouping keys: an id would be compared as the text of the
    list (``"['d1']"``), a grouping key cannot be hashed. Object columns of plain scalars
    pass with one C-level type inference; only mixed ones are checked value by value.
    """
    if series.dtype != object or pd.api.types.infer_dtype(series, skipna=True) in _SCALAR_KINDS:
        return
    bad = series.map(
        lambda v: isinstance(v, (list, tuple, dict, set, frozenset, np.ndarray, pd.Series))
    ).to_numpy(bool)
    if not bad.any():
        return
    rows = frame[bad] if frame is not None else series[bad].to_frame()
    first = series[bad].iloc[0]
    drop = "" if role.endswith(" id") else f", or drop the column (df.drop(columns=['{name}']))"
    raise SchemaError(
        f"the {kind} column '{name}' holds {type(first).__name__} values in {int(bad.sum())} "
        "row(s) "
        f"(first: {first!r}):{show_rows(rows)}\n{role[0].upper() + role[1:]} must be a plain "
        "value (a string or a number) on every row: turn it into one (e.g. "
        f"df['{name}'].astype(str) "
        f"or df.explode('{name}')){drop}.",
        failure_cases=rows,
    )


def as_ids(series: pd.Series, name: str, kind: str, frame: pd.DataFrame | None = None) -> pd.Series:
    """Identifiers are compared as strings; missing ids and list-valued ids are an error."""
    _check_scalars(series, name, kind, frame, f"a {name} id")
    bad = series.isna()
    if bad.any():
        rows = frame[bad.to_numpy()] if frame is not None else series[bad].to_frame()
        raise SchemaError(
            f"the {kind} column '{name}' has {int(bad.sum())} missing value(s):"
            f"{show_rows(rows)}\nEvery row needs a {name} id: drop or fill those rows.",
            failure_cases=rows,
        )
    if isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "pyarrow":
        return series
    if series.dtype.kind == "f":
        # 1.0 -> "1": float ids usually come from a reader that saw NaN-free integers.
        values = series.to_numpy()
        if np.all(np.isfinite(values) & (values == np.round(values))):
            return _whole_float_ids(series, values, name, kind)
    return series.astype(str).astype(ID_DTYPE)


def _whole_float_ids(series: pd.Series, values: np.ndarray, name: str, kind: str) -> pd.Series:
    """Whole-number float ids as their integer text ("1.0" -> "1"), exactly at any size:
    values at or beyond 2**63 (which int64 would overflow, merging distinct ids) are written
    from their exact integer value, once per distinct value. Past 2**53 a float cannot hold
    every whole number, so ids that differed in their last digits may already have merged
    when the column became float: that gets a PdirevalWarning."""
    small = (values >= -(2.0**63)) & (values < 2.0**63)
    if small.all():
        out = series.astype(np.int64).astype(str)
    else:
        text = np.empty(len(values), dtype=object)
        text[small] = values[small].astype(np.int64).astype(str)
        unsigned = (values >= 2.0**63) & (values < 2.0**64)  # exact in uint64
        text[unsigned] = values[unsigned].astype(np.uint64).astype(str)
        rest = ~(small | unsigned)
        if rest.any():  # beyond 2**64: Python ints, once per distinct value
            codes, uniques = pd.factorize(values[rest])
            text[rest] = np.array([str(int(u)) for u in uniques], dtype=object)[codes]
        out = pd.Series(text, index=series.index)
    if (np.abs(values) > 2.0**53).any():
        warnings.warn(
            f"the {kind} column '{name}' holds whole numbers beyond 2**53 as floats (e.g. "
            f"{out[np.abs(values) > 2.0**53].iloc[0]}); a float cannot hold every whole number "
            "that large, so ids that differ in their last digits may have become equal before "
            "pdireval saw them. Read ids as strings (e.g. pd.read_csv(..., dtype={'"
            + name
            + "': str})).",
            PdirevalWarning,
            stacklevel=5,
        )
    return out.astype(ID_DTYPE)


def as_float(series: pd.Series, name: str, kind: str, frame: pd.DataFrame) -> pd.Series:
    if series.dtype.kind in "fiub":
        return series.astype(np.float64)
    if series.dtype.kind in "cmM" or isinstance(series.dtype, pd.DatetimeTZDtype):
        raise SchemaError(
            f"the {kind} column '{name}' must hold real numbers, but its dtype is "
            f"{series.dtype}. Convert '{name}' to float (or int) first."
        )
    converted = pd.to_numeric(series, errors="coerce")
    if converted.dtype.kind == "c":
        raise SchemaError(
            f"the {kind} column '{name}' holds complex numbers. Convert '{name}' to real "
            "numbers first."
        )
    bad = (converted.isna() & series.notna()).to_numpy()
    if bad.any():
        raise SchemaError(
            f"the {kind} column '{name}' must be numeric, but {int(bad.sum())} value(s) are not "
            f"(first: {series[bad].iloc[0]!r}):{show_rows(frame[bad])}\n"
            f"Convert '{name}' to numbers (e.g. pd.to_numeric) or fix those rows.",
            failure_cases=frame[bad],
        )
    return converted.astype(np.float64)


def _duplicated(frame: pd.DataFrame, key: list[str]) -> np.ndarray:
    """``frame.duplicated(key, keep=False)`` as a bool array: every row whose key occurs more
    than once (NaN keys equal). The columns' codes are combined into one integer per row and
    counted (``np.bincount`` when the code space is small, else a sort), which costs a fraction
    of pandas' hash-table pass on frames of millions of rows."""
    combined = np.zeros(len(frame), dtype=np.int64)
    size = 1
    for name in key:
        codes, uniques = pd.factorize(frame[name], use_na_sentinel=False)
        size *= max(len(uniques), 1)
        if size >= 2**62:  # the combined code would overflow: pandas' own pass
            return frame.duplicated(key, keep=False).to_numpy()
        combined = combined * max(len(uniques), 1) + codes
    if size <= 4 * len(frame) + 1024:
        return np.bincount(combined, minlength=size)[combined] > 1
    _, inverse, counts = np.unique(combined, return_inverse=True, return_counts=True)
    return counts[inverse] > 1


def _check_duplicate_keys(frame: pd.DataFrame, key: list[str], kind: str, original) -> None:
    dup = _duplicated(frame, key)
    if dup.any():
        rows = original[dup] if original is not None else frame[dup]
        raise SchemaError(
            f"the {kind} frame has {int(dup.sum())} rows sharing a ({', '.join(key)}) key:"
            f"{show_rows(rows)}\nEach ({', '.join(key)}) may appear once: drop the duplicates "
            f"(e.g. df.drop_duplicates({key!r})).",
            failure_cases=rows,
        )


# --------------------------------------------------------------------------- run


def canonical_run(
    run: pd.DataFrame,
    columns: Mapping[str, str] | None = None,
    *,
    check_duplicates: bool = True,
) -> pd.DataFrame:
    """Validate a run frame and return a canonical copy.

    Parameters
    ----------
    run
        One row per retrieved document per system: ``system, query, doc`` and ``score``
        and/or ``rank``; optionally ``label`` (NaN = unjudged).
    columns
        Optional mapping ``{canonical name: your column name}``.
    check_duplicates
        Check that each (system, query, doc) occurs once (always on for public calls).

    Returns
    -------
    DataFrame
        Columns ``system, query, doc`` (string dtype; a frame without a system column is
        one system named ``"run"``), ``score`` (float64) if given, ``rank`` (int64, 1-based:
        0-based ranks are shifted by one) if given and valid (with a ``score`` column,
        ranks are only read when ordering by rank, so an unusable rank column is dropped),
        ``label`` (float64) if given, in the caller's row order, with a fresh RangeIndex. The
        caller's frame is not modified.

    Raises
    ------
    SchemaError
        Missing columns, empty frame, non-numeric or NaN score / rank, rank < 1 or not an
        integer, non-numeric label, duplicate (system, query, doc).
    """
    return canonical_run_keys(run, columns, check_duplicates=check_duplicates)[0]


def canonical_run_keys(
    run: pd.DataFrame,
    columns: Mapping[str, str] | None = None,
    *,
    check_duplicates: bool = True,
    order: str = "score",
) -> tuple[pd.DataFrame, RunKeys | None]:
    """:func:`canonical_run`, also returning the run's :class:`~pdireval.core.keys.RunKeys`
    (computed for the duplicate check; None when ``check_duplicates`` is False), which
    :func:`pdireval.evaluation.prepare` hands on so that no string column is factorized twice.
    """
    run = check_frame(run, "run")
    frame = rename_columns(run, columns, "run", RUN_COLUMNS + ("score", "rank", "label"))
    no_system = (
        "system" not in run.columns
        and "system" not in (columns or {})
        and not any(name in run.columns for name in SPELLINGS["run"]["system"])
    )
    require_columns(frame, RUN_COLUMNS, "run", columns)
    if "score" not in frame.columns and "rank" not in frame.columns:
        raise SchemaError(
            "the run frame needs a 'score' or a 'rank' column to order documents "
            f"(it has {list(frame.columns)!r}). Add one, or map yours with columns=."
        )
    _require_nonempty(frame, "run")
    original = frame
    out = {}
    for name in RUN_COLUMNS:
        out[name] = as_ids(frame[name], name, "run", frame)
    if "score" in frame.columns:
        score = as_float(frame["score"], "score", "run", original)
        bad = ~np.isfinite(score.to_numpy())
        if bad.any():
            raise SchemaError(
                f"the run column 'score' has {int(bad.sum())} NaN or infinite value(s):"
                f"{show_rows(original[bad])}\nEvery retrieved document needs a finite score: "
                "drop those rows or give them a score.",
                failure_cases=original[bad],
            )
        out["score"] = score
    if "rank" in frame.columns:
        rank = _canonical_rank(frame, original, required=order == "rank" or "score" not in out)
        if rank is not None:
            out["rank"] = rank
    if "label" in frame.columns:
        out["label"] = as_float(frame["label"], "label", "run", original)
        check_finite_labels(out["label"], "run", original)
    # copy=False: the canonical frame shares unchanged columns with the caller's frame
    # (copy-on-write keeps the caller's frame safe) instead of copying millions of rows
    canonical = pd.DataFrame(out, copy=False)
    canonical.index = pd.RangeIndex(len(canonical))
    keys = None
    if check_duplicates:
        keys = run_keys(canonical)
        dup = keys.duplicated_rows()
        if len(dup):
            rows = original.iloc[dup]
            key = ["system", "query", "doc"]
            hint = ""
            if no_system:
                hint = (
                    f" The frame has no system column, so it is read as one run named "
                    f"{DEFAULT_SYSTEM!r}: if it holds several runs, give it a 'system' column "
                    "(or map yours, e.g. columns={'system': 'name'})."
                )
            raise SchemaError(
                f"the run frame has {len(dup)} rows sharing a ({', '.join(key)}) key:"
                f"{show_rows(rows)}\n{_duplicate_advice(canonical.iloc[dup], key)}{hint}",
                failure_cases=rows,
            )
    return canonical, keys


def _duplicate_advice(rows: pd.DataFrame, key: list[str]) -> str:
    """How to fix repeated (system, query, doc) rows. Repeats with the same score and rank
    are copies: dropping them is safe. Repeats with different scores or ranks are two
    rankings under one system name (two runs concatenated, or a run tag shared by two
    files): dropping duplicates would splice them into a ranking neither system produced,
    so the advice is to name the runs apart instead."""
    order = [c for c in ("score", "rank") if c in rows.columns]
    differing = rows.groupby(key, observed=True, sort=False)[order].nunique().gt(1).any(axis=1)
    if not differing.any():
        return (
            f"Each ({', '.join(key)}) may appear once; these repeats are exact copies (same "
            f"{' and '.join(order)}): drop them (e.g. df.drop_duplicates({key!r}))."
        )
    first = differing.index[differing.to_numpy()][0]
    return (
        f"{int(differing.sum())} of the repeated documents have different {' or '.join(order)} "
        f"values (e.g. {dict(zip(key, first))}), so the frame holds two rankings under one "
        "system name (two runs concatenated, or two files sharing a run tag). Give each run its "
        "own system name (e.g. pd.concat([a.assign(system='a'), b.assign(system='b')]), or "
        "read_run(folder, system='filename')): df.drop_duplicates would splice the two runs "
        "into one ranking neither produced."
    )


def _canonical_rank(
    frame: pd.DataFrame, original: pd.DataFrame, required: bool
) -> pd.Series | None:
    """The rank column as int64, 1-based: a frame whose smallest rank is 0 (PyTerrier, many
    TREC submissions) is shifted by one, the rule :func:`pdireval.read_run` applies to files.
    Ranks are only read when documents are ordered by rank (``required``): otherwise a rank
    column that is not whole numbers >= 0 is ignored (None) instead of an error."""
    try:
        if isinstance(frame["rank"].dtype, np.dtype) and frame["rank"].dtype.kind in "iu":
            # numpy integers: only the range needs checking (no copy); nullable Int64 with
            # missing values takes the float path below (a missing rank is an error there)
            rank = frame["rank"]
            values = rank.to_numpy()
            with np.errstate(invalid="ignore"):
                bad = (values < 0) | (values > 2**53)
        else:
            rank = as_float(frame["rank"], "rank", "run", original)
            values = rank.to_numpy()
            with np.errstate(invalid="ignore"):
                bad = (
                    ~np.isfinite(values)
                    | (values < 0)
                    | (values > 2**53)
                    | (values != np.round(values))
                )
    except SchemaError:
        if required:
            raise
        return None
    if bad.any():
        if not required:
            return None
        raise SchemaError(
            f"the run column 'rank' must hold whole numbers >= 0 (0-based ranks are shifted "
            f"to start at 1), but {int(bad.sum())} value(s) do not:{show_rows(original[bad])}\n"
            "Fix those ranks (1 = top), or drop the rank column and order by 'score'.",
            failure_cases=original[bad],
        )
    rank = rank.astype(np.int64)
    if len(rank) and int(rank.min()) == 0:
        rank = rank + 1  # 0-based ranks
    return rank


def check_finite_labels(label: pd.Series, kind: str, frame: pd.DataFrame) -> None:
    """Labels are finite numbers or NaN (= pooled but unjudged); +-inf and magnitudes beyond
    :data:`MAX_ABS_VALUE` (their squares overflow, e.g. in interval alpha) are errors."""
    bad = np.abs(label.to_numpy()) > MAX_ABS_VALUE  # NaN compares False, without a warning
    if bad.any():
        rows = frame[bad]
        raise SchemaError(
            f"the {kind} column 'label' has {int(bad.sum())} infinite value(s) or value(s) "
            f"beyond ±{MAX_ABS_VALUE:g}:{show_rows(rows)}\nLabels are finite relevance grades "
            "(NaN = pooled but unjudged): fix those rows.",
            failure_cases=rows,
        )


# --------------------------------------------------------------------------- qrels


def canonical_qrels(qrels: pd.DataFrame, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Validate a qrels frame and return a canonical copy.

    Parameters
    ----------
    qrels
        One row per judged document: ``query, doc, label``. A NaN label means "in the pool
        but not judged"; negative labels are genuine labels (their meaning is chosen per
        measure with ``negatives=``). Qrels of several judges add a ``judge`` column
        (the same (query, doc) may then carry one label per judge). Diversity qrels add a
        ``subtopic`` column (one row
        per (query, subtopic, doc); ir_datasets' ``iteration``: ``columns={'subtopic':
        'iteration'}``, which evaluate() adds itself), which the intent-aware measures read; the
        other measures see one label per (query, doc), the largest over its subtopics.
    columns
        Optional mapping ``{canonical name: your column name}``.

    Returns
    -------
    DataFrame
        Columns ``query, doc`` (string dtype) and ``label`` (float64), one row per
        (query, doc): exact duplicate rows are merged. Sorted by query then doc. With a
        ``subtopic`` column: ``query, subtopic, doc, label``, one row per
        (query, subtopic, doc), sorted by query, subtopic, doc. With a ``judge`` column
        (several judgment sets, one per judge or assessor: trec_eval 10.0's ``qrels_jg``
        format, :func:`pdireval.read_qrels` with several files or ``judges=True``):
        ``query, judge, doc, label``, one row per (query, judge, doc), sorted by query,
        judge, doc; a judge's judgments of a query are that judge's qrels of the query.

    Raises
    ------
    SchemaError
        Missing columns, empty frame, non-numeric labels, or the same (query, doc) with
        different labels.
    """
    qrels = check_frame(qrels, "qrels")
    frame = rename_columns(qrels, columns, "qrels", QRELS_COLUMNS + ("subtopic", "judge"))
    require_columns(frame, QRELS_COLUMNS, "qrels", columns)
    _require_nonempty(frame, "qrels")
    key = ["query"]
    data = {"query": as_ids(frame["query"], "query", "qrels", frame)}
    for extra in ("judge", "subtopic"):  # judge: one judgment set per judge (assessor)
        if extra in frame.columns:
            key.append(extra)
            data[extra] = as_ids(frame[extra], extra, "qrels", frame)
    key.append("doc")
    data["doc"] = as_ids(frame["doc"], "doc", "qrels", frame)
    data["label"] = as_float(frame["label"], "label", "qrels", frame)
    out = pd.DataFrame(data)
    out.index = pd.RangeIndex(len(out))
    check_finite_labels(out["label"], "qrels", frame)
    return in_key_order(out, key, lambda frame: _merge_duplicate_judgments(frame, "qrels", key))


def one_judge(qrels: pd.DataFrame, what: str = "this function") -> pd.DataFrame:
    """A canonical qrels frame holding one judgment set: without its ``judge`` column.

    Qrels with a ``judge`` column naming one judge lose the column; qrels of several judges
    are a SchemaError saying how to evaluate them (``evaluate(..., judges=)``) or how to
    select one judge. Everything that builds judgments for measures goes through here.
    """
    if "judge" not in qrels.columns:
        return qrels
    judges = pd.unique(qrels["judge"].to_numpy(dtype=object))
    if len(judges) <= 1:
        return qrels.drop(columns="judge")
    shown = ", ".join(repr(str(j)) for j in judges[:5]) + (", ..." if len(judges) > 5 else "")
    raise SchemaError(
        f"the qrels hold the judgments of {len(judges)} judges (a 'judge' column: {shown}), "
        f"but {what} evaluates against one set of judgments.\nEvaluate per judge or averaged "
        "over judges with pdireval.evaluate(run, measures, qrels=qrels, judges='each' or "
        f"'mean'), or select one judge, e.g. qrels[qrels['judge'] == {str(judges[0])!r}]."
    )


def _merge_duplicate_judgments(
    frame: pd.DataFrame, kind: str, key=("query", "doc")
) -> pd.DataFrame:
    """Drop exact duplicate (key, label) rows; conflicting labels are an error."""
    key = list(key)
    dup_key = frame.duplicated(key, keep=False)
    if not dup_key.any():
        return frame
    dups = frame[dup_key.to_numpy()]
    n_labels = dups.groupby(key, sort=False, observed=True)["label"].nunique(dropna=False)
    conflicts = n_labels[n_labels > 1]
    what = "(" + ", ".join(key) + {2: ") pair(s)", 3: ") triple(s)"}.get(len(key), ") key(s)")
    if len(conflicts):
        keys = conflicts.index
        rows = dups.set_index(key).loc[keys].reset_index()
        raise SchemaError(
            f"the {kind} give {len(conflicts)} {what} more than one label:"
            f"{show_rows(rows)}\nEach judged document needs exactly one label per "
            f"{' and '.join(k for k in key if k != 'doc')}: decide which label "
            "is right and drop the other rows"
            + (
                ""
                if "subtopic" in key or "judge" in key
                else " (or, if they are the labels of several subtopics or judges, give them a "
                "'subtopic' or 'judge' column: read_qrels(path, subtopics=True) reads a TREC "
                "diversity qrels file so, read_qrels(path, judges=True) a qrels_jg file)"
            )
            + ".",
            failure_cases=rows,
        )
    return frame.drop_duplicates(key, ignore_index=True)


def qrels_from_run(run: pd.DataFrame) -> pd.DataFrame:
    """Judgments taken from a canonical run that carries ``label``.

    The distinct (query, doc, label) rows of the table, NaN labels dropped (unjudged).
    Conflicting labels for the same (query, doc) across systems are a SchemaError.
    """
    judged = run.loc[run["label"].notna().to_numpy(), ["query", "doc", "label"]]
    if len(judged) == 0:
        raise SchemaError(
            "the run's 'label' column has no judged (non-NaN) row, so there are no judgments. "
            "Pass qrels= or fill the labels."
        )
    judged = judged.drop_duplicates(ignore_index=True)
    judged = _merge_duplicate_judgments(judged, "run's labels")
    return judged.sort_values(["query", "doc"], kind="stable", ignore_index=True)


# --------------------------------------------------------------------------- scores


def canonical_scores(
    scores: pd.DataFrame, columns: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Validate a scores frame (``system, query, measure, value`` + grouping columns).

    Returns
    -------
    DataFrame
        A copy with ``system, query, measure`` as strings, ``value`` float64 (NaN allowed:
        an undefined per-query value), ``value_low`` / ``value_high`` float64 when present
        (the bounds of ``evaluate(..., unjudged="bounds")``, values, not keys), every other
        column kept as a grouping key, and a fresh RangeIndex. Duplicate keys are a
        SchemaError.
    """
    scores = check_frame(scores, "scores")
    frame = rename_columns(scores, columns, "scores", SCORES_COLUMNS)
    require_columns(frame, SCORES_COLUMNS, "scores", columns)
    _require_nonempty(frame, "scores")
    out = frame.copy()
    out.index = pd.RangeIndex(len(out))
    for name in ("system", "query", "measure"):
        out[name] = as_ids(out[name], name, "scores", frame)
    out["value"] = as_float(out["value"], "value", "scores", frame)
    infinite = np.isinf(out["value"].to_numpy())
    if infinite.any():
        rows = frame[infinite]
        raise SchemaError(
            f"the scores column 'value' has {int(infinite.sum())} infinite value(s):"
            f"{show_rows(rows)}\nPer-query values must be finite (NaN marks an undefined "
            "value): fix or drop those rows.",
            failure_cases=rows,
        )
    _check_magnitude(out["value"].to_numpy(), frame)
    for name in BOUND_COLUMNS:
        if name in out.columns:
            out[name] = as_float(out[name], name, "scores", frame)
    keys = [c for c in out.columns if c != "value" and c not in BOUND_COLUMNS]
    for c in keys:
        if c not in ("system", "query", "measure"):
            _check_scalars(
                out[c], c, "scores", frame, "a grouping column (every column besides value)"
            )
    _check_row_id_columns(out, frame)
    _check_duplicate_keys(out, keys, "scores", None)
    return out


#: The largest magnitude of a per-query value in a scores frame. Meta-evaluation squares
#: values (variances, sums of squares) and squares mean squares (Satterthwaite's degrees of
#: freedom): beyond about 1e154 float64 overflows. Values up to 1e100 leave a margin of 1e100
#: for sums over many queries; larger ones are refused with the fix (rescale).
MAX_ABS_VALUE = 1e100
#: The smallest magnitude of a nonzero per-query value: below it squares underflow towards
#: float64's subnormal range (1e-308), where a standard deviation becomes 0 and a t statistic inf.
MIN_ABS_VALUE = 1e-100


def _check_magnitude(value: np.ndarray, frame: pd.DataFrame) -> None:
    """Refuse per-query values whose squares would overflow or underflow float64 (outside
    :data:`MIN_ABS_VALUE` <= |value| <= :data:`MAX_ABS_VALUE`; 0 and NaN are fine)."""
    with np.errstate(invalid="ignore"):
        size = np.abs(value)
        big, tiny = size > MAX_ABS_VALUE, (size < MIN_ABS_VALUE) & (size > 0)
    if not (big.any() or tiny.any()):
        return
    if big.any():
        bad, extreme = big, float(np.nanmax(size))
        what, where = f"beyond ±{MAX_ABS_VALUE:g} (largest magnitude {extreme:g})", "overflows"
        factor = f"/ {10.0 ** min(int(np.ceil(np.log10(extreme))), 308):g}"
    else:
        bad, extreme = tiny, float(np.min(size[tiny]))
        what, where = (
            f"closer to 0 than ±{MIN_ABS_VALUE:g} (smallest magnitude {extreme:g})",
            "underflows",
        )
        factor = f"* {10.0 ** min(-int(np.floor(np.log10(extreme))), 308):g}"
    rows = frame[bad]
    raise SchemaError(
        f"the scores column 'value' has {int(bad.sum())} nonzero value(s) "
        f"{what}:{show_rows(rows)}\n"
        f"The meta-evaluation squares per-query values (variances, sums of squares), which {where} "
        f"float64 at this size. Rescale them, e.g. scores.assign(value=scores['value'] {factor}) "
        "(scale-free results such as p-values, correlations and reliability do not change).",
        failure_cases=rows,
    )


#: Column names pandas gives a saved or reset index: ``to_csv()`` then ``read_csv()`` gives
#: ``Unnamed: 0``, ``reset_index()`` gives ``index`` (``level_0`` when ``index`` exists).
_INDEX_NAMES = re.compile(r"^(Unnamed: \d+|index|level_\d+)$")


def _check_row_id_columns(out: pd.DataFrame, frame: pd.DataFrame) -> None:
    """Refuse extra scores columns that are row ids, not grouping keys.

    Every column of a scores frame besides ``system, query, value`` groups the rows, so a
    saved index (``Unnamed: 0`` after ``to_csv``/``read_csv``, ``index`` after
    ``reset_index()``) or a per-row number (a float column distinct on every row of a
    measure) would make one group per row: every meta function would then answer per row,
    or with nothing. Such a column is a SchemaError naming it, with the fix.
    """
    extra = [
        c for c in out.columns if c not in ("system", "query", "value", "measure") + BOUND_COLUMNS
    ]
    if not extra:
        return
    several = bool(out.duplicated(subset=["measure"]).any())  # some measure has 2+ rows
    bad = {}
    for c in extra:
        if isinstance(c, str) and _INDEX_NAMES.match(c):
            bad[c] = "the name of a saved index"
        elif several and _distinct_per_row(out, c):
            bad[c] = "a different value on every row of a measure"
    if bad:
        what = "; ".join(f"{c!r}: {why}" for c, why in bad.items())
        raise SchemaError(
            f"the scores frame has {len(bad)} column(s) that look like row ids, not grouping "
            f"keys ({what}). Every column besides system, query, measure and value splits the "
            "scores into groups, so this would give one group per row. First rows:"
            f"{show_rows(frame[list(bad)].head(5))}\nFix: drop it, e.g. "
            f"scores.drop(columns={list(bad)!r}) (for a CSV, read it back with "
            "pd.read_csv(path, index_col=0) or save it with to_csv(path, index=False)).",
            failure_cases=frame[list(bad)].head(5),
        )


def _distinct_per_row(out: pd.DataFrame, column) -> bool:
    """True when ``column`` takes a different value on every row of each measure."""
    try:
        return not out.duplicated(subset=["measure", column]).any()
    except TypeError:  # unhashable values (lists): the duplicate-key check reports them
        return False
