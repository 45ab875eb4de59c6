"""The formats :func:`pdireval.read_scores` reads: one reader per tool's file, the value
readers they share (a value that is not a number is an error naming the file, its line and the
value; NaN as the tool writes it is kept) and the table they return (:class:`ScoresTable`)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd

from pdireval.errors import SchemaError

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["READERS", "SCORES_FORMATS", "SUMMARY", "ScoresTable"]

#: What :func:`read_scores` reads (``format=``); None sniffs it from the content.
SCORES_FORMATS = (
    "trec_eval",
    "ir_measures",
    "ir_measures_jsonl",
    "pyterrier",
    "ranx",
    "mteb",
    "pdireval",
)
#: The query id of summary rows (trec_eval's and ir_measures' ``all``).
SUMMARY = "all"

#: What the messages say a scores file is
SCORES_WHAT = (
    "a scores file: trec_eval -q output (measure query value), ir_measures TSV (query "
    "measure value) or JSONL, PyTerrier's perquery / aggregated CSV, ranx's per-query JSON "
    "({measure: {query: value}}) or report JSON, BEIR / MTEB result JSON, or pdireval's own "
    "CSV / JSON (system, query, measure, value)"
)


#: A line break as pandas' parser and trec_eval see one (``str.splitlines`` also breaks at
#: form feeds, U+0085 and U+2028, which may sit inside a field)
_BREAK = re.compile(r"\r\n|\r|\n")


def text_lines(text: str) -> list[str]:
    """The lines of ``text``, broken at ``\\n``, ``\\r\\n`` and ``\\r`` only."""
    lines = _BREAK.split(text)
    return lines[:-1] if lines and not lines[-1] else lines


def system_from_name(name: str) -> str:
    """A system name from a file name: without folders and the usual suffixes."""
    base = Path(name).name if name else ""
    for suffix in (".gz", ".txt", ".tsv", ".csv", ".json", ".jsonl", ".eval", ".res", ".q"):
        if base.lower().endswith(suffix):
            base = base[: -len(suffix)]
    return base or "system"


#: the groups of ``beir.util.save_results``' JSON (``{"ndcg": {"NDCG@10": value}, ...}``)
BEIR_GROUPS = ("ndcg", "map", "recall", "precision", "mrr", "recall_cap", "hole")


def is_beir_results(data) -> bool:
    """Whether parsed JSON is ``beir.util.save_results``' dict of metric groups (ranx's
    per-query JSON is also a dict of dicts, keyed by query ids rather than ``NAME@k``)."""
    return (
        isinstance(data, dict)
        and bool(data)
        and set(data) <= set(BEIR_GROUPS)
        and all(
            isinstance(group, dict) and group and all("@" in str(k) for k in group)
            for group in data.values()
        )
    )


def is_mteb_model_meta(data) -> bool:
    """Whether parsed JSON is the ``model_meta.json`` of MTEB's results cache."""
    return isinstance(data, dict) and {"name", "revision", "n_parameters"} <= set(data)


#: How the tools write an undefined value as text (trec_eval's C ``printf``: ``-nan`` or
#: ``nan``; Python: ``nan``), compared in lower case without surrounding blanks. pandas writes
#: NaN in CSV as an empty field, which the CSV formats read as NaN too.
NAN_TEXT = frozenset({"nan", "-nan", "+nan"})

#: trec_eval's measures whose value is text by design (a string of R and N): left out
TEXT_MEASURES = ("relstring",)

#: The fields of an MTEB ``scores`` entry that describe the entry rather than score it
MTEB_ENTRY_FIELDS = ("hf_subset", "languages", "mteb_version")


def scores_label(name: str) -> str:
    return name or "the scores input"


# ------------------------------------------------------------------- values and places


def _line_locator(text: str, skip: int = 0) -> Callable[[int], str]:
    """``locate(pos)``: "line N" of the ``pos``-th non-blank line after ``skip`` non-blank
    lines (a header), counted only when a message needs it."""

    def locate(pos: int) -> str:
        seen = -skip - 1
        for number, line in enumerate(text_lines(text), start=1):
            if line.strip():
                seen += 1
                if seen == pos:
                    return f"line {number}"
        return f"data line {pos + 1}"

    return locate


def _not_a_number(name: str, where: str, value, count: int) -> SchemaError:
    shown = value if isinstance(value, str) else json.dumps(value, default=str)
    others = f" ({count - 1} more value(s) like it)" if count > 1 else ""
    return SchemaError(
        f"{scores_label(name)}, {where}: the value {shown[:80]!r} is not a finite number{others}. "
        "A scores file holds a number per line (an undefined value written as nan or -nan, as "
        "trec_eval and Python write it); fix or drop those lines, or pass the right format= "
        f"(one of {', '.join(SCORES_FORMATS)})."
    )


def _text_values(
    raw, pos: np.ndarray, locate: Callable[[int], str], name: str, *, empty_is_nan: bool = False
) -> np.ndarray:
    """float64 values of text fields: numbers, or NaN where the tool wrote ``nan`` / ``-nan``
    (and an empty CSV field with ``empty_is_nan``); any other text (``n/a``, ``True``,
    ``inf``, ``1,5``) is a SchemaError that names the line and the value."""
    raw = np.asarray(raw, dtype=object)
    parsed = pd.to_numeric(pd.Series(raw, dtype=object), errors="coerce")
    suspect = ~np.isfinite(parsed.to_numpy(dtype=np.float64))
    values = np.full(len(raw), np.nan)
    # numpy's str -> float64 is correctly rounded (pandas' fast parser may be 1 ulp off)
    values[~suspect] = raw[~suspect].astype(np.float64)
    if suspect.any():
        odd = np.flatnonzero(suspect)
        text = [str(v).strip().lower() for v in raw[odd]]
        undefined = np.array([t in NAN_TEXT or (empty_is_nan and not t) for t in text])
        bad = odd[~undefined]
        if len(bad):
            raise _not_a_number(name, locate(int(pos[bad[0]])), raw[bad[0]], len(bad))
    return values


def _json_values(values: list, where: list[str], name: str) -> np.ndarray:
    """float64 values of parsed JSON: numbers, or NaN for ``NaN`` and ``null`` (how Python
    and pandas write an undefined value); text, booleans, objects, lists and infinities are a
    SchemaError that names the place (``where``) and the value."""
    out = np.full(len(values), np.nan)
    bad = []
    for i, v in enumerate(values):
        if v is None:
            continue
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            try:
                out[i] = float(v)
            except OverflowError:  # an integer beyond float64
                out[i] = np.inf
            if np.isinf(out[i]):
                bad.append(i)
        else:
            bad.append(i)
    if bad:
        raise _not_a_number(name, where[bad[0]], values[bad[0]], len(bad))
    return out


class ScoresTable(NamedTuple):
    """What a reader returns: ``frame`` (system, query, measure, value as float64, summary:
    whether a row is a summary row, pos: the row's place for ``locate``), ``locate`` (pos ->
    "line 12" or "key scores.test[0].ndcg_at_10") and ``left_out`` (notes on the values the
    tool itself wrote that are not read, for the warning)."""

    frame: pd.DataFrame
    locate: Callable[[int], str]
    left_out: list[str]


def _column(values, dtype):
    """A column: one value for every row (text or a flag), or one value per row."""
    return values if isinstance(values, (str, bool)) else np.asarray(values, dtype=dtype)


def _table(
    system, query, measure, value, summary, pos=None, locate=None, left_out=None
) -> ScoresTable:
    """A reader's :class:`ScoresTable`; ``pos`` defaults to the row numbers."""
    n = len(value)
    frame = pd.DataFrame(
        {
            "system": _column(system, object),
            "query": _column(query, object),
            "measure": _column(measure, object),
            "value": np.asarray(value, dtype=np.float64),
            "summary": _column(summary, bool),
            "pos": np.arange(n) if pos is None else np.asarray(pos, dtype=np.int64),
        },
        index=pd.RangeIndex(n),
    )
    return ScoresTable(frame, locate or (lambda p: f"record {p + 1}"), left_out or [])


def _summary_table(rows, value, places, left_out=None) -> ScoresTable:
    """A :class:`ScoresTable` of summary values only: ``rows`` start with (system, measure),
    ``places[p]`` says where value ``p`` stands in the file."""
    system, measure = [r[0] for r in rows], [r[1] for r in rows]
    return _table(
        system, SUMMARY, measure, value, True, locate=lambda p: places[p], left_out=left_out
    )


# --------------------------------------------------------------------------- the readers


def _whitespace_table(text: str, n: int, name: str) -> pd.DataFrame:
    """Lines of ``n`` whitespace-separated fields (as text), parsed by pandas' C parser; a
    malformed line is then found and named."""
    try:
        table = pd.read_csv(
            io.StringIO(text),
            sep=r"\s+",
            header=None,
            dtype=object,  # Python str objects: no Arrow strings to convert back
            engine="c",
            skip_blank_lines=True,
            quoting=3,
            na_filter=False,
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError):
        table = None
    if table is not None and table.shape[1] == n:
        short = (table.isna() | (table == "")).any(axis=1).to_numpy()
        if not short.any():
            return table
    for number, line in enumerate(text_lines(text), start=1):
        if line.strip() and len(line.split()) != n:
            raise SchemaError(
                f"{scores_label(name)}: line {number} has {len(line.split())} fields, "
                f"expected {n}: {line[:100]!r}."
            )
    raise SchemaError(f"{scores_label(name)}: expected lines of {n} fields.")


def _from_trec_eval(text: str, name: str) -> ScoresTable:
    """``trec_eval -q`` output: ``measure query value`` lines, each run's per-query lines
    followed by its summary (``runid all TAG``, ``num_q all N``, ``measure all mean``)."""
    table = _whitespace_table(text, 3, name)
    measure = table[0].to_numpy(dtype=object)
    query = table[1].to_numpy(dtype=object)
    raw = table[2].to_numpy(dtype=object)
    is_all = query == SUMMARY
    # a new run's block starts where a per-query line follows a summary line
    starts = np.r_[False, is_all[:-1] & ~is_all[1:]]
    block = np.cumsum(starts)
    runid = measure == "runid"
    tags = pd.Series(raw[runid], index=block[runid])
    tags = tags[~tags.index.duplicated()]
    n_blocks = int(block.max()) + 1 if len(block) else 0
    default = system_from_name(name)
    names = [
        tags.get(b, default if n_blocks == 1 else f"{default}-{b + 1}") for b in range(n_blocks)
    ]
    system = np.asarray(names, dtype=object)[block]
    keep = np.flatnonzero(~runid & ~np.isin(measure, TEXT_MEASURES))  # not numbers by design
    locate = _line_locator(text)
    value = _text_values(raw[keep], keep, locate, name)
    return _table(system[keep], query[keep], measure[keep], value, is_all[keep], keep, locate)


def _from_ir_measures(text: str, name: str) -> ScoresTable:
    """ir_measures' TSV: ``query measure value`` lines, or ``measure value`` (summaries)."""
    first = next(line for line in text_lines(text) if line.strip())
    locate = _line_locator(text)
    n_fields = 2 if len(first.split()) == 2 else 3
    table = _whitespace_table(text, n_fields, name)
    raw, pos = table[n_fields - 1].to_numpy(dtype=object), np.arange(len(table))
    value = _text_values(raw, pos, locate, name)
    measure = table[n_fields - 2].to_numpy(dtype=object)
    query = SUMMARY if n_fields == 2 else table[0].to_numpy(dtype=object)
    is_all = True if n_fields == 2 else query == SUMMARY
    return _table(system_from_name(name), query, measure, value, is_all, locate=locate)


def _from_jsonl(text: str, name: str) -> ScoresTable:
    systems, queries, measures, values, summary, lines = [], [], [], [], [], []
    for number, line in enumerate(text_lines(text), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            raise SchemaError(
                f"{scores_label(name)}: line {number} is not JSON: {line[:100]!r}"
            ) from None
        if not isinstance(record, dict) or "measure" not in record or "value" not in record:
            raise SchemaError(
                f"{scores_label(name)}, line {number}: expected a record with 'measure' and "
                f"'value' (and 'query_id'), as ir_measures -o jsonl writes; got {line[:100]!r}."
            )
        query = record.get("query_id", SUMMARY)  # ir_measures without -q writes no query_id
        systems.append(str(record.get("system", "")) or system_from_name(name))
        queries.append(str(query))
        measures.append(str(record["measure"]))
        values.append(record["value"])
        summary.append("query_id" not in record or query == SUMMARY)
        lines.append(f"line {number}")
    return _table(
        systems,
        queries,
        measures,
        _json_values(values, lines, name),
        summary,
        locate=lambda p: lines[p],
    )


def _csv_table(text: str, name: str) -> pd.DataFrame:
    """A CSV file's cells as text (no NaN guessing: ``n/a`` stays ``n/a``), without the saved
    index column of ``to_csv()``. A line with fewer fields than the header is an error (pandas
    would read its missing fields as empty cells, i.e. as NaN values)."""
    frame = pd.read_csv(io.StringIO(text), dtype=object, keep_default_na=False, na_filter=False)
    if frame.shape[0] and frame.shape[1]:
        suspects = np.flatnonzero(frame.iloc[:, -1].to_numpy(dtype=object) == "")
        if len(suspects):  # an empty last cell: written empty, or a short line?
            lines = [(n, line) for n, line in enumerate(text_lines(text), 1) if line.strip()]
            for row in suspects[suspects + 1 < len(lines)]:
                number, line = lines[row + 1]
                fields = next(csv.reader([line]))
                if len(fields) < frame.shape[1]:
                    raise SchemaError(
                        f"{scores_label(name)}, line {number}: {len(fields)} fields where the "
                        f"header names {frame.shape[1]} ({', '.join(map(str, frame.columns))})"
                        f": {line[:100]!r}. Each line needs every field (an undefined value "
                        "is an empty field after its comma)."
                    )
    return frame.drop(columns=[c for c in frame.columns if str(c).startswith("Unnamed")])


def _from_pyterrier(text: str, name: str) -> ScoresTable:
    frame = _csv_table(text, name)
    locate = _line_locator(text, skip=1)
    if {"qid", "measure", "value"} <= set(frame.columns):  # pt.Experiment(perquery=True)
        pos = np.arange(len(frame))
        value = _text_values(
            frame["value"].to_numpy(dtype=object), pos, locate, name, empty_is_nan=True
        )
        system = frame["name"].to_numpy(dtype=object) if "name" in frame else system_from_name(name)
        query = frame["qid"].to_numpy(dtype=object)
        return _table(
            system,
            query,
            frame["measure"].to_numpy(dtype=object),
            value,
            query == SUMMARY,
            locate=locate,
        )
    # aggregated: one row per system, one column per measure (means)
    extra = [
        c
        for c in frame.columns
        if c != "name"
        and (
            str(c).endswith((" +", " -", " p-value", " reject", " corrected", " mrt"))
            or str(c) == "mrt"
        )
    ]
    frame = frame.drop(columns=extra)
    measures = [c for c in frame.columns if c != "name"]
    if not measures:
        raise SchemaError(
            f"{scores_label(name)}: PyTerrier's aggregated table has no measure column."
        )
    cells = frame[measures].to_numpy(dtype=object)  # row by row, as the lines read

    def cell(i: int) -> str:
        return f"{locate(i // len(measures))}, column {measures[i % len(measures)]!r}"

    value = _text_values(cells.ravel(), np.arange(cells.size), cell, name, empty_is_nan=True)
    system = np.repeat(frame["name"].to_numpy(dtype=object), len(measures))
    return _table(system, SUMMARY, measures * len(frame), value, True, locate=cell)


def _from_ranx(text: str, name: str) -> ScoresTable:
    data = json.loads(text)
    if isinstance(data, dict) and "model_names" in data:  # Report.save(): means per model
        rows = []
        for model in data["model_names"]:
            scores = (
                data.get(model, {}).get("scores") if isinstance(data.get(model), dict) else None
            )
            if not isinstance(scores, dict):
                raise SchemaError(
                    f"{scores_label(name)}: ranx's Report JSON has no 'scores' for model {model!r}."
                )
            for metric in data["metrics"]:
                if metric not in scores:
                    raise SchemaError(
                        f"{scores_label(name)}: ranx's Report JSON has no value of {metric!r} for "
                        f"model {model!r} (key {model}.scores.{metric})."
                    )
                rows.append((str(model), str(metric), scores[metric]))
        where = [f"key {m}.scores.{k}" for m, k, _ in rows]
        value = _json_values([v for *_, v in rows], where, name)
        return _summary_table(rows, value, where)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise SchemaError(
            f"{scores_label(name)} is not ranx's per-query JSON ({{measure: {{query: value}}}})."
        )
    rows = [(str(m), str(q), v) for m, per_query in data.items() for q, v in per_query.items()]
    where = [f"key {m}.{q}" for m, q, _ in rows]
    value = _json_values([v for *_, v in rows], where, name)
    # ranx never writes a summary: a query named 'all' is a query
    return _table(
        system_from_name(name),
        [r[1] for r in rows],
        [r[0] for r in rows],
        value,
        False,
        locate=lambda p: where[p],
    )


def _mteb_model(name: str) -> str | None:
    """The model name of MTEB's ``model_meta.json`` beside the result file ``name``, if any
    (MTEB's result files do not name the model; its cache keeps the name there)."""
    if not name:
        return None
    try:
        meta = json.loads((Path(name).parent / "model_meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    model = meta.get("name") if isinstance(meta, dict) else None
    return str(model) if model else None


def _from_mteb(text: str, name: str) -> ScoresTable:
    data = json.loads(text)
    if is_mteb_model_meta(data):
        raise SchemaError(
            f"{scores_label(name)} is MTEB's model_meta.json (the model's metadata, no "
            "score); read the task result files beside it (or their folder)."
        )
    rows: list[tuple[str, str, object, str]] = []
    nested: list[str] = []
    if isinstance(data, dict) and ("task_name" in data or "mteb_version" in data):
        if not isinstance(data.get("scores"), dict):
            raise SchemaError(
                f"{scores_label(name)} is an MTEB result file without its 'scores' "
                "({split: [{metric: value, ...}]}); its other fields (evaluation_time, "
                "kg_co2_emissions, ...) are not scores. Read a complete result file."
            )
    if isinstance(data, dict) and isinstance(data.get("scores"), dict):  # MTEB result file
        system = str(data.get("model_name") or _mteb_model(name) or system_from_name(name))
        task = str(data.get("task_name", ""))
        for split, entries in data["scores"].items():
            listed = entries if isinstance(entries, list) else [entries]
            for i, entry in enumerate(listed):
                if not isinstance(entry, dict):
                    raise SchemaError(
                        f"{scores_label(name)}, key scores.{split}[{i}]: expected an object of "
                        f"metrics, got {json.dumps(entry, default=str)[:80]}."
                    )
                subset = entry.get("hf_subset", "default")
                prefix = "/".join(p for p in (task, split, subset) if p and p != "default")
                for metric, value in entry.items():
                    where = f"key scores.{split}[{i}].{metric}"
                    if metric in MTEB_ENTRY_FIELDS:
                        continue
                    if isinstance(value, (dict, list)):  # MTEB's per-experiment scores, ...
                        nested.append(where)
                        continue
                    measure = f"{prefix}/{metric}" if prefix else metric
                    rows.append((system, measure, value, where))
    else:  # BEIR: evaluate()'s four dicts ({"NDCG@10": ...}) or save_results' dict of them
        if is_beir_results(data):  # {"ndcg": {"NDCG@10": ...}, ...}
            parts = [(f"key {group}.", part) for group, part in data.items()]
        elif isinstance(data, list):  # [{"NDCG@10": ...}, {"MAP@10": ...}, ...]
            parts = [(f"key [{i}].", part) for i, part in enumerate(data)]
        else:
            parts = [("key ", data)]
        for key, part in parts:
            if not isinstance(part, dict):
                raise SchemaError(
                    f"{scores_label(name)}: expected BEIR's results (objects "
                    f"{{'NDCG@10': value}}), got {json.dumps(part, default=str)[:80]}."
                )
            for metric, value in part.items():
                where = f"{key}{metric}"
                if "@" not in str(metric):
                    raise SchemaError(
                        f"{scores_label(name)}, {where}: {metric!r} is not one of BEIR's measures "
                        "(NAME@k); the file is not an MTEB result file (no task_name and "
                        "scores) nor BEIR's results. Pass the right format=."
                    )
                rows.append((system_from_name(name), str(metric), value, where))
    if not rows:
        raise SchemaError(f"{scores_label(name)}: no result found; {SCORES_WHAT} is expected.")
    places = [r[3] for r in rows]
    value = _json_values([r[2] for r in rows], places, name)
    left_out = []
    if nested:
        left_out.append(
            f"{len(nested)} nested value(s) of MTEB's scores (objects or lists, not one "
            f"number; e.g. {nested[0]})"
        )
    return _summary_table(rows, value, places, left_out)


def _from_pdireval(text: str, name: str) -> ScoresTable:
    if text.lstrip().startswith("["):
        records = json.loads(text)
        if not isinstance(records, list):
            raise SchemaError(f"{scores_label(name)}: expected a JSON list of records.")
        keys = ("system", "query", "measure", "value")
        for i, record in enumerate(records):
            if not isinstance(record, dict) or not set(keys) <= set(record):
                raise SchemaError(
                    f"{scores_label(name)}, record {i + 1}: expected the keys {list(keys)} (the "
                    f"records of pdireval evaluate --per-query --format json); got "
                    f"{json.dumps(record, default=str)[:100]}."
                )
        where = [f"record {i + 1}" for i in range(len(records))]
        value = _json_values([r["value"] for r in records], where, name)
        return _table(
            [str(r["system"]) for r in records],
            [str(r["query"]) for r in records],
            [str(r["measure"]) for r in records],
            value,
            False,
            locate=lambda p: where[p],
        )
    frame = _csv_table(text, name)
    locate = _line_locator(text, skip=1)
    value = _text_values(
        frame["value"].to_numpy(dtype=object),
        np.arange(len(frame)),
        locate,
        name,
        empty_is_nan=True,
    )
    # pdireval writes no summary rows: a query named 'all' is a query
    return _table(
        frame["system"].to_numpy(dtype=object),
        frame["query"].to_numpy(dtype=object),
        frame["measure"].to_numpy(dtype=object),
        value,
        False,
        locate=locate,
    )


READERS = {
    "trec_eval": _from_trec_eval,
    "ir_measures": _from_ir_measures,
    "ir_measures_jsonl": _from_jsonl,
    "pyterrier": _from_pyterrier,
    "ranx": _from_ranx,
    "mteb": _from_mteb,
    "pdireval": _from_pdireval,
}
