"""Per-query numbers written by other tools, read as scores frames, and scores written as
``trec_eval -q`` output: :func:`read_scores`, :func:`write_scores`.

With such a reader every meta-evaluation function of pdireval works on numbers another tool
computed: trec_eval, ir_measures, PyTerrier, ranx, BEIR / MTEB, or pdireval itself.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE, canonical_scores
from pdireval.errors import OptionError, PdirevalWarning, SchemaError, check_bool, check_option
from pdireval.io.spreadsheets import FORMULA_STARTS, excel_safe_texts
from pdireval.io.spreadsheets import excel_safe as excel_safe_frame

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Literal

    from pdireval.types import Columns, PathArg, PathOrBuffer, ScoresFormat, WriteFormat

__all__ = ["read_scores", "write_scores", "SCORES_FORMATS", "WRITE_FORMATS"]

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
#: What :func:`write_scores` writes.
WRITE_FORMATS = ("trec_eval", "ir_measures", "ir_measures_jsonl", "csv")

#: Ceiling on the (decompressed) size of one scores file, in bytes.
MAX_SCORES_BYTES = 2 * 2**30

#: The query id of summary rows (trec_eval's and ir_measures' ``all``).
SUMMARY = "all"

_WHAT = (
    "a scores file: trec_eval -q output (measure query value), ir_measures TSV (query "
    "measure value) or JSONL, PyTerrier's perquery / aggregated CSV, ranx's per-query JSON "
    "({measure: {query: value}}) or report JSON, BEIR / MTEB result JSON, or pdireval's own "
    "CSV / JSON (system, query, measure, value)"
)


# --------------------------------------------------------------------------- reading


def _read_text(source) -> tuple[str, str]:
    """(text, name) of a path (plain or .gz) or an open text/binary buffer."""
    if hasattr(source, "read"):
        data = source.read(MAX_SCORES_BYTES + 1)
        name = str(getattr(source, "name", "") or "")
    else:
        try:
            path = Path(os.fspath(source))
        except TypeError:
            raise TypeError(
                "read_scores() takes a path (str or os.PathLike) or an open file, got "
                f"{type(source).__name__}"
            ) from None
        if not path.is_file():
            raise SchemaError(f"scores file {str(path)!r} does not exist or is not a file.")
        opener = gzip.open if path.suffix == ".gz" else open
        try:
            with opener(path, "rb") as handle:
                data = handle.read(MAX_SCORES_BYTES + 1)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise SchemaError(f"cannot read scores file {str(path)!r}: {exc}") from None
        name = str(path)
    if len(data) > MAX_SCORES_BYTES:
        raise SchemaError(
            f"{name or 'the scores input'} is larger than {MAX_SCORES_BYTES >> 20} MiB; split "
            "it (e.g. one file per run) and read the parts."
        )
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SchemaError(
                f"{name or 'the scores input'} is not UTF-8 text (byte {exc.start}): {_WHAT} "
                "is expected."
            ) from None
    return data, name


def _stem(name: str) -> str:
    """A system name from a file name: without folders and the usual suffixes."""
    base = Path(name).name if name else ""
    for suffix in (".gz", ".txt", ".tsv", ".csv", ".json", ".jsonl", ".eval", ".res", ".q"):
        if base.lower().endswith(suffix):
            base = base[: -len(suffix)]
    return base or "system"


#: the groups of ``beir.util.save_results``' JSON (``{"ndcg": {"NDCG@10": value}, ...}``)
BEIR_GROUPS = ("ndcg", "map", "recall", "precision", "mrr", "recall_cap", "hole")

#: the files of MTEB's results cache (``results/<model>/<revision>/``) that hold no result
MTEB_OTHER_FILES = ("model_meta.json", "run_settings.jsonl")


def _is_beir_results(data) -> bool:
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


def _is_mteb_model_meta(data) -> bool:
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

#: How much of a text :func:`_sniff` reads at its start and at its end (in characters)
SNIFF_CHARS = 65536

#: The two whitespace-separated layouts of three fields, as the messages name them
_LAYOUTS = {
    "trec_eval": "trec_eval -q output (measure query value)",
    "ir_measures": "ir_measures TSV (query measure value)",
}


def _label(name: str) -> str:
    return name or "the scores input"


def _complete_lines(text: str, tail: bool = False) -> list[str]:
    """The whole lines of the first (or last) :data:`SNIFF_CHARS` characters of ``text``: a
    line the cut splits is left out (the first line always counts, however long)."""
    if len(text) <= SNIFF_CHARS:
        return text.splitlines()
    if tail:
        part = text[-SNIFF_CHARS:]
        return part.split("\n", 1)[1].splitlines() if "\n" in part else []
    part = text[:SNIFF_CHARS]
    cut = part.rfind("\n")
    return part[:cut].splitlines() if cut >= 0 else [text.split("\n", 1)[0]]


def _looks_like_measure(token: str) -> bool:
    """Whether ``token`` names a measure: trec_eval's output names (``num_ret``, ``P_10``,
    ``runid``), ir_measures' and pdireval's (``nDCG@10``, ``AP(rel=2)``); a number never."""
    if token in ("runid", "num_q", *TEXT_MEASURES):
        return True
    if token[:1].isdigit() or token[:1] in "+-.":  # query ids such as 301 or 1.2
        return False
    from pdireval.errors import PdirevalError
    from pdireval.measures import parse_measure

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a deprecated spelling still names a measure
            parse_measure(token)
    except (PdirevalError, ValueError, TypeError):
        return False
    return True


def _all_measures(tokens: set[str]) -> bool:
    return all(_looks_like_measure(t) for t in sorted(tokens))  # stops at the first other


def _sniff_columns(rows: list[list[str]]) -> str | None:
    """trec_eval (``measure query value``) or ir_measures (``query measure value``) for rows
    of three fields, when the content says which; None when it does not."""
    second_all = any(r[1] == SUMMARY and r[0] != SUMMARY for r in rows)  # trec_eval's means
    first_all = any(r[0] == SUMMARY and r[1] != SUMMARY for r in rows)  # ir_measures' means
    if second_all != first_all:
        return "trec_eval" if second_all else "ir_measures"
    if second_all:
        return None
    # no summary line: the column of measure names tells (query ids are not measure names)
    first = _all_measures({r[0] for r in rows})
    second = _all_measures({r[1] for r in rows})
    if first != second:
        return "trec_eval" if first else "ir_measures"
    return None


def _ambiguous(name: str, candidates: list[str], why: str) -> SchemaError:
    listed = "; ".join(f"format={c!r}: {_LAYOUTS.get(c, c)}" for c in candidates)
    return SchemaError(
        f"cannot tell the format of {_label(name)}: {why}. It could be {listed}. Pass format= "
        "to say which."
    )


def _sniff_json(text: str, head: list[str], name: str) -> str:
    first = head[0].strip() if head else ""
    if first.startswith("{") and first.endswith("}") and '"measure"' in first:
        return "ir_measures_jsonl"
    try:
        data = json.loads(text)
    except ValueError:
        raise SchemaError(
            f"{_label(name)} starts like JSON but is not valid JSON; {_WHAT} is expected."
        ) from None
    if (
        isinstance(data, list)
        and data
        and isinstance(data[0], dict)
        and {"system", "query", "measure"} <= set(data[0])
    ):
        return "pdireval"
    if isinstance(data, dict) and "model_names" in data and "metrics" in data:
        return "ranx"
    if isinstance(data, dict) and ("mteb_version" in data or "task_name" in data):
        return "mteb"
    if _is_beir_results(data):  # beir.util.save_results: {"ndcg": {"NDCG@10": ...}}
        return "mteb"
    if _is_mteb_model_meta(data):  # refused by the mteb reader
        return "mteb"
    if isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
        return "ranx"
    parts = data if isinstance(data, list) else [data]
    if parts and all(isinstance(p, dict) and p and all("@" in str(k) for k in p) for p in parts):
        return "mteb"  # EvaluateRetrieval.evaluate()'s dicts: {"NDCG@10": ...}
    shape = (
        f"an object with keys {sorted(map(str, data))[:5]}"
        if isinstance(data, dict)
        else f"a JSON {type(data).__name__}"
    )
    raise SchemaError(
        f"cannot tell the format of {_label(name)}: it is {shape}, none of the JSON layouts "
        "read_scores knows (ir_measures JSONL records, pdireval's records, ranx's per-query "
        "or Report JSON, MTEB result JSON, BEIR's results). Pass format= one of "
        f"{', '.join(SCORES_FORMATS)}."
    )


def _sniff(text: str, name: str = "") -> str:
    """The format of ``text`` (one of SCORES_FORMATS) when its content says which, or a
    SchemaError that names the candidate formats and ``format=``. Only whole lines of the first
    and the last :data:`SNIFF_CHARS` characters are read (the JSON formats: the whole text)."""
    stripped = text.lstrip()
    if not stripped:
        raise SchemaError(f"{_label(name)} is empty; {_WHAT} is expected.")
    head = _complete_lines(stripped)
    if stripped[0] in "[{":
        return _sniff_json(stripped, head, name)
    first = head[0]
    if "," in first:
        header = {c.strip().strip('"') for c in first.split(",")}
        if {"qid", "measure", "value"} <= header or ("name" in header and "qid" not in header):
            return "pyterrier"
        if {"system", "query", "measure", "value"} <= header:
            return "pdireval"
    rows = [line.split() for line in head[:2000] if line.strip()]
    rows += [line.split() for line in _complete_lines(stripped, tail=True)[-2000:] if line.strip()]
    widths = {len(r) for r in rows}
    if widths == {2}:
        return "ir_measures"
    if widths == {3}:
        found = _sniff_columns(rows)
        if found is None:
            raise _ambiguous(
                name,
                ["trec_eval", "ir_measures"],
                "lines of three fields, and neither their summary lines (query 'all') nor "
                "their measure names tell which column holds the measures",
            )
        return found
    raise SchemaError(
        f"cannot tell the format of {_label(name)} (first line: {first[:80]!r}); {_WHAT} "
        f"is expected. Pass format= one of {', '.join(SCORES_FORMATS)}."
    )


# ------------------------------------------------------------------- values and places


def _line_locator(text: str, skip: int = 0) -> Callable[[int], str]:
    """``locate(pos)``: "line N" of the ``pos``-th non-blank line after ``skip`` non-blank
    lines (a header), counted only when a message needs it."""

    def locate(pos: int) -> str:
        seen = -skip - 1
        for number, line in enumerate(text.splitlines(), start=1):
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
        f"{_label(name)}, {where}: the value {shown[:80]!r} is not a finite number{others}. "
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


class _Table(NamedTuple):
    """What a reader returns: ``frame`` (system, query, measure, value as float64, summary:
    whether a row is a summary row, pos: the row's place for ``locate``), ``locate`` (pos ->
    "line 12" or "key scores.test[0].ndcg_at_10") and ``left_out`` (notes on the values the
    tool itself wrote that are not read, for the warning)."""

    frame: pd.DataFrame
    locate: Callable[[int], str]
    left_out: list[str]


def _table(system, query, measure, value, summary, pos=None, locate=None, left_out=None) -> _Table:
    n = len(value)
    frame = pd.DataFrame(
        {
            "system": np.asarray(system, dtype=object) if not isinstance(system, str) else system,
            "query": np.asarray(query, dtype=object) if not isinstance(query, str) else query,
            "measure": np.asarray(measure, dtype=object),
            "value": np.asarray(value, dtype=np.float64),
            "summary": np.asarray(summary, dtype=bool)
            if not isinstance(summary, bool)
            else summary,
            "pos": np.arange(n) if pos is None else np.asarray(pos, dtype=np.int64),
        },
        index=pd.RangeIndex(n),
    )
    return _Table(frame, locate or (lambda p: f"record {p + 1}"), left_out or [])


# --------------------------------------------------------------------------- the readers


def _whitespace_table(text: str, n: int, name: str) -> pd.DataFrame:
    """Lines of ``n`` whitespace-separated fields (as text), parsed by pandas' C parser; a
    malformed line is then found and named."""
    try:
        table = pd.read_csv(
            io.StringIO(text),
            sep=r"\s+",
            header=None,
            dtype=str,
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
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and len(line.split()) != n:
            raise SchemaError(
                f"{_label(name)}: line {number} has {len(line.split())} fields, "
                f"expected {n}: {line[:100]!r}."
            )
    raise SchemaError(f"{_label(name)}: expected lines of {n} fields.")


def _from_trec_eval(text: str, name: str) -> _Table:
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
    default = _stem(name)
    names = [
        tags.get(b, default if n_blocks == 1 else f"{default}-{b + 1}") for b in range(n_blocks)
    ]
    system = np.asarray(names, dtype=object)[block]
    keep = np.flatnonzero(~runid & ~np.isin(measure, TEXT_MEASURES))  # not numbers by design
    locate = _line_locator(text)
    value = _text_values(raw[keep], keep, locate, name)
    return _table(system[keep], query[keep], measure[keep], value, is_all[keep], keep, locate)


def _from_ir_measures(text: str, name: str) -> _Table:
    first = next(line for line in text.splitlines() if line.strip())
    locate = _line_locator(text)
    if len(first.split()) == 2:
        table = _whitespace_table(text, 2, name)
        raw, pos = table[1].to_numpy(dtype=object), np.arange(len(table))
        value = _text_values(raw, pos, locate, name)
        return _table(
            _stem(name), SUMMARY, table[0].to_numpy(dtype=object), value, True, locate=locate
        )
    table = _whitespace_table(text, 3, name)
    query = table[0].to_numpy(dtype=object)
    raw, pos = table[2].to_numpy(dtype=object), np.arange(len(table))
    value = _text_values(raw, pos, locate, name)
    return _table(
        _stem(name), query, table[1].to_numpy(dtype=object), value, query == SUMMARY, locate=locate
    )


def _from_jsonl(text: str, name: str) -> _Table:
    systems, queries, measures, values, summary, lines = [], [], [], [], [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            raise SchemaError(
                f"{_label(name)}: line {number} is not JSON: {line[:100]!r}"
            ) from None
        if not isinstance(record, dict) or "measure" not in record or "value" not in record:
            raise SchemaError(
                f"{_label(name)}, line {number}: expected a record with 'measure' and 'value' "
                f"(and 'query_id'), as ir_measures -o jsonl writes; got {line[:100]!r}."
            )
        query = record.get("query_id", SUMMARY)  # ir_measures without -q writes no query_id
        systems.append(str(record.get("system", "")) or _stem(name))
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
    index column of ``to_csv()``."""
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, na_filter=False)
    return frame.drop(columns=[c for c in frame.columns if str(c).startswith("Unnamed")])


def _from_pyterrier(text: str, name: str) -> _Table:
    frame = _csv_table(text, name)
    locate = _line_locator(text, skip=1)
    if {"qid", "measure", "value"} <= set(frame.columns):  # pt.Experiment(perquery=True)
        pos = np.arange(len(frame))
        value = _text_values(
            frame["value"].to_numpy(dtype=object), pos, locate, name, empty_is_nan=True
        )
        system = frame["name"].to_numpy(dtype=object) if "name" in frame else _stem(name)
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
        raise SchemaError(f"{_label(name)}: PyTerrier's aggregated table has no measure column.")
    cells = frame[measures].to_numpy(dtype=object)  # row by row, as the lines read

    def cell(i: int) -> str:
        return f"{locate(i // len(measures))}, column {measures[i % len(measures)]!r}"

    value = _text_values(cells.ravel(), np.arange(cells.size), cell, name, empty_is_nan=True)
    system = np.repeat(frame["name"].to_numpy(dtype=object), len(measures))
    return _table(system, SUMMARY, measures * len(frame), value, True, locate=cell)


def _from_ranx(text: str, name: str) -> _Table:
    data = json.loads(text)
    if isinstance(data, dict) and "model_names" in data:  # Report.save(): means per model
        rows = []
        for model in data["model_names"]:
            scores = (
                data.get(model, {}).get("scores") if isinstance(data.get(model), dict) else None
            )
            if not isinstance(scores, dict):
                raise SchemaError(
                    f"{_label(name)}: ranx's Report JSON has no 'scores' for model {model!r}."
                )
            for metric in data["metrics"]:
                if metric not in scores:
                    raise SchemaError(
                        f"{_label(name)}: ranx's Report JSON has no value of {metric!r} for "
                        f"model {model!r} (key {model}.scores.{metric})."
                    )
                rows.append((str(model), str(metric), scores[metric]))
        where = [f"key {m}.scores.{k}" for m, k, _ in rows]
        value = _json_values([v for *_, v in rows], where, name)
        return _table(
            [r[0] for r in rows],
            SUMMARY,
            [r[1] for r in rows],
            value,
            True,
            locate=lambda p: where[p],
        )
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise SchemaError(
            f"{_label(name)} is not ranx's per-query JSON ({{measure: {{query: value}}}})."
        )
    rows = [(str(m), str(q), v) for m, per_query in data.items() for q, v in per_query.items()]
    where = [f"key {m}.{q}" for m, q, _ in rows]
    value = _json_values([v for *_, v in rows], where, name)
    # ranx never writes a summary: a query named 'all' is a query
    return _table(
        _stem(name),
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


def _from_mteb(text: str, name: str) -> _Table:
    data = json.loads(text)
    if _is_mteb_model_meta(data):
        raise SchemaError(
            f"{_label(name)} is MTEB's model_meta.json (the model's metadata, no score); read "
            "the task result files beside it (or their folder)."
        )
    rows: list[tuple[str, str, object, str]] = []
    nested: list[str] = []
    if isinstance(data, dict) and ("task_name" in data or "mteb_version" in data):
        if not isinstance(data.get("scores"), dict):
            raise SchemaError(
                f"{_label(name)} is an MTEB result file without its 'scores' "
                "({split: [{metric: value, ...}]}); its other fields (evaluation_time, "
                "kg_co2_emissions, ...) are not scores. Read a complete result file."
            )
    if isinstance(data, dict) and isinstance(data.get("scores"), dict):  # MTEB result file
        system = str(data.get("model_name") or _mteb_model(name) or _stem(name))
        task = str(data.get("task_name", ""))
        for split, entries in data["scores"].items():
            listed = entries if isinstance(entries, list) else [entries]
            for i, entry in enumerate(listed):
                if not isinstance(entry, dict):
                    raise SchemaError(
                        f"{_label(name)}, key scores.{split}[{i}]: expected an object of "
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
        parts = data if isinstance(data, list) else [data]
        if _is_beir_results(data):
            parts = list(data.values())
        for i, part in enumerate(parts):
            if not isinstance(part, dict):
                raise SchemaError(
                    f"{_label(name)}: expected BEIR's results (objects {{'NDCG@10': value}}), "
                    f"got {json.dumps(part, default=str)[:80]}."
                )
            for metric, value in part.items():
                where = f"key [{i}].{metric}" if isinstance(data, list) else f"key {metric}"
                if "@" not in str(metric):
                    raise SchemaError(
                        f"{_label(name)}, {where}: {metric!r} is not one of BEIR's measures "
                        "(NAME@k); the file is not an MTEB result file (no task_name and "
                        "scores) nor BEIR's results. Pass the right format=."
                    )
                rows.append((_stem(name), str(metric), value, where))
    if not rows:
        raise SchemaError(f"{_label(name)}: no result found; {_WHAT} is expected.")
    where = [r[3] for r in rows]
    value = _json_values([r[2] for r in rows], where, name)
    left_out = []
    if nested:
        left_out.append(
            f"{len(nested)} nested value(s) of MTEB's scores (objects or lists, not one "
            f"number; e.g. {nested[0]})"
        )
    return _table(
        [r[0] for r in rows],
        SUMMARY,
        [r[1] for r in rows],
        value,
        True,
        locate=lambda p: where[p],
        left_out=left_out,
    )


def _from_pdireval(text: str, name: str) -> _Table:
    if text.lstrip().startswith("["):
        records = json.loads(text)
        if not isinstance(records, list):
            raise SchemaError(f"{_label(name)}: expected a JSON list of records.")
        keys = ("system", "query", "measure", "value")
        for i, record in enumerate(records):
            if not isinstance(record, dict) or not set(keys) <= set(record):
                raise SchemaError(
                    f"{_label(name)}, record {i + 1}: expected the keys {list(keys)} (the "
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


_READERS = {
    "trec_eval": _from_trec_eval,
    "ir_measures": _from_ir_measures,
    "ir_measures_jsonl": _from_jsonl,
    "pyterrier": _from_pyterrier,
    "ranx": _from_ranx,
    "mteb": _from_mteb,
    "pdireval": _from_pdireval,
}


def _read_one(source, format, system) -> tuple[pd.DataFrame, str, _Table]:
    """(frame, name, table) of one file: the frame as the reader made it (``summary`` and
    ``pos`` columns included), its name for messages."""
    text, name = _read_text(source)
    fmt = _sniff(text, name) if format is None else format
    try:
        table = _READERS[fmt](text, name)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        if isinstance(exc, SchemaError):
            raise
        raise SchemaError(
            f"{_label(name)} is not {fmt} output as expected ({exc!r}); pass the right format= "
            f"(one of {', '.join(SCORES_FORMATS)})."
        ) from None
    frame = table.frame
    if system is not None:
        frame["system"] = str(system)
    return frame, name, table


def _notes(frame: pd.DataFrame, name: str, table: _Table) -> list[str]:
    """What the warning says of one file: its NaN values kept, its values left out."""
    notes = [f"{note} left out" for note in table.left_out]
    undefined = np.flatnonzero(np.isnan(frame["value"].to_numpy()))
    if len(undefined):
        notes.append(
            f"{len(undefined)} undefined value(s) written as NaN kept as NaN (e.g. "
            f"{table.locate(int(frame['pos'].to_numpy()[undefined[0]]))})"
        )
    return [f"{_label(name)}: {note}" for note in notes]


#: the scores files of PyTerrier's ``pt.Experiment(save_dir=...)`` folder
PYTERRIER_FILES = ("aggregated.csv", "perquery.csv")


def read_scores(
    path_or_buffer: PathOrBuffer,
    format: ScoresFormat | None = None,
    *,
    system: str | None = None,
    all_rows: Literal["drop", "keep"] = "drop",
) -> pd.DataFrame:
    """Read per-query scores written by another tool (or by pdireval) as a scores frame.

    Formats (``format=``; None sniffs it from the content and says which formats it knows
    when it cannot tell):

    * ``"trec_eval"`` — the output of ``trec_eval -q`` (and of ``pdireval trec_eval -q``,
      :func:`write_scores`): ``measure query value`` lines; each run's block ends with its
      summary lines, whose ``runid all TAG`` names the system. Several runs' outputs may be
      concatenated in one file. Non-numeric values (``relstring``) are left out.
    * ``"ir_measures"`` — ir_measures' command-line TSV: ``query measure value`` (with
      ``-q``) or ``measure value`` (summaries); ``"ir_measures_jsonl"`` — its
      ``-o jsonl`` records ``{"query_id", "measure", "value"}``.
    * ``"pyterrier"`` — ``pt.Experiment(perquery=True)`` saved as CSV (``name, qid,
      measure, value``), or the aggregated table (``name`` and one column per measure;
      its significance columns are dropped); ``pt.Experiment(save_dir=folder)`` writes both
      as ``perquery.csv`` and ``aggregated.csv``, and a folder holding them is read as
      those two files (its ``*.res.gz`` files are runs: :func:`pdireval.read_run`).
    * ``"ranx"`` — a per-query JSON ``{measure: {query: value}}`` (ranx's ``run.scores``
      after ``evaluate(..., return_mean=False)``), or ``Report.save()``'s JSON (means).
    * ``"mteb"`` — an MTEB result JSON as ``TaskResult.to_disk`` writes it in MTEB's results
      cache (``results/<model>/<revision>/<task>.json``: ``task_name``, ``scores: {split:
      [{metric: value, ..., main_score, hf_subset, languages}]}``; measures named
      ``task/split/metric``, or ``task/split/hf_subset/metric`` for a subset other than
      ``default``; NaN scores, which MTEB writes as ``NaN``, are kept; ``evaluation_time``
      and the other fields outside ``scores`` are not scores), or BEIR's results: the four
      dicts ``EvaluateRetrieval.evaluate`` returns (``{"NDCG@10": ...}``, e.g. dumped as a
      JSON list) or ``beir.util.save_results``' JSON (``{"ndcg": {"NDCG@10": ...}, ...}``;
      measures named ``NDCG@10``) — means only. A folder of MTEB's cache (it holds
      ``model_meta.json``) is read as its task result files.
    * ``"pdireval"`` — the CSV / JSON records of ``pdireval evaluate --per-query``.

    Measure names are kept as the tool wrote them (``map``, ``P_10``, ``nDCG@10``).

    Parameters
    ----------
    path_or_buffer
        A file (plain or ``.gz``), a folder (every non-hidden file in it, in name order), or
        an open file.
    format
        One of ``SCORES_FORMATS``, or None to sniff it.
    system
        The system name for every row; by default the name the file gives (trec_eval's
        ``runid``, PyTerrier's ``name``, the ``name`` of MTEB's ``model_meta.json`` beside
        its result file) or else the file name without folders and suffixes.
    all_rows
        ``"drop"`` (default): summary rows (query ``all``: trec_eval's and ir_measures'
        means, and the means-only formats) are left out; ``"keep"``: kept with query
        ``"all"``. A file that holds only summaries needs ``"keep"`` (the meta-evaluation
        functions need per-query values).

    Returns
    -------
    DataFrame
        A canonical scores frame: ``system``, ``query``, ``measure`` (str) and ``value``
        (float64), in file order, with a RangeIndex.

    Raises
    ------
    SchemaError
        A missing, empty, undecodable or malformed file (the line is named), an unknown
        format, or a file of summaries only with ``all_rows="drop"``.
    """
    if format is not None:
        check_option("format", format, SCORES_FORMATS)
    check_option("all_rows", all_rows, ("drop", "keep"))
    if (
        not hasattr(path_or_buffer, "read")
        and isinstance(path_or_buffer, (str, os.PathLike))
        and Path(path_or_buffer).is_dir()
    ):
        files = sorted(
            p for p in Path(path_or_buffer).iterdir() if p.is_file() and not p.name.startswith(".")
        )
        if any(p.name in PYTERRIER_FILES for p in files):  # pt.Experiment(save_dir=...)
            files = [p for p in files if p.name in PYTERRIER_FILES]  # not its *.res.gz runs
        if any(p.name in MTEB_OTHER_FILES for p in files):  # MTEB's results/<model>/<rev>/
            files = [p for p in files if p.suffix == ".json" and p.name not in MTEB_OTHER_FILES]
        if not files:
            raise SchemaError(f"folder {str(path_or_buffer)!r} holds no scores file.")
        parts = [_read_one(p, format, system) for p in files]
    else:
        parts = [_read_one(path_or_buffer, format, system)]
    if all_rows == "drop":
        if all(frame["summary"].all() for frame, _, _ in parts):
            raise SchemaError(
                "the scores input holds only summary values (query 'all': one mean per system "
                "and measure, no per-query value). Pass all_rows='keep' to read them; the "
                "meta-evaluation functions need per-query values (e.g. trec_eval -q, "
                "ir_measures -q, pt.Experiment(perquery=True))."
            )
        parts = [(frame[~frame["summary"].to_numpy()], name, t) for frame, name, t in parts]
    notes = [note for frame, name, t in parts for note in _notes(frame, name, t)]
    frames = [frame[["system", "query", "measure", "value"]] for frame, _, _ in parts]
    table = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    table = table.reset_index(drop=True).astype({c: str for c in ("system", "query", "measure")})
    out = canonical_scores(table.astype({c: ID_DTYPE for c in ("system", "query", "measure")}))
    if notes:
        warnings.warn(
            "read_scores: " + "; ".join(notes) + ".",
            PdirevalWarning,
            stacklevel=2,
        )
    return out


# --------------------------------------------------------------------------- writing


def _trec_name(measure: str) -> str:
    """trec_eval's name of a pdireval measure when trec_eval has it, else the name as given."""
    from pdireval.errors import MeasureError
    from pdireval.measures import parse_measure
    from pdireval.measures.trec_eval.names import trec_eval_name

    try:
        return trec_eval_name(parse_measure(measure)) or measure
    except MeasureError:
        return measure


def _means(frame: pd.DataFrame) -> pd.DataFrame:
    """The summary rows: each (system, measure)'s mean over its queries with a value."""
    means = frame.groupby(["system", "measure"], sort=False)["value"].mean().reset_index()
    means.insert(1, "query", SUMMARY)
    return means


def _as_text(frame: pd.DataFrame, fmt: str) -> pd.DataFrame:
    """``frame`` with its values formatted as text (``-nan`` for NaN, as trec_eval prints)."""
    values = frame["value"].to_numpy(dtype=np.float64)
    text = np.char.mod(fmt, values).astype(object)
    text[np.isnan(values)] = "-nan"
    return frame.assign(value=text)


def _check_written_ids(frame: pd.DataFrame, format: str) -> None:
    """Refuse what the file could not give back: a query named ``all`` (the summary lines'
    query) and, in the whitespace-separated formats, ids with blanks."""
    named_all = (frame["query"].astype(str) == SUMMARY).to_numpy()
    if named_all.any():
        raise SchemaError(
            f"the scores frame has a query named {SUMMARY!r} ({int(named_all.sum())} row(s)): "
            f"in {format} output that is the query of the summary lines, so read_scores would "
            "read those rows as means. Rename the query (e.g. scores.assign(query=scores["
            "'query'].astype(str).replace('all', 'q-all'))) or write format='csv', which "
            "keeps it."
        )
    if format == "ir_measures_jsonl":
        return
    columns = ("system", "query", "measure") if format == "trec_eval" else ("query", "measure")
    for column in columns:
        ids = frame[column].astype(str)
        blank = ids.str.contains(r"\s", regex=True).to_numpy() | (ids == "").to_numpy()
        if blank.any():
            raise SchemaError(
                f"the scores frame's {column} {ids[blank].iloc[0]!r} is empty or holds a blank "
                f"({int(blank.sum())} row(s)): {format} output separates its fields by blanks, "
                f"so the file could not be read back. Replace the blanks (e.g. scores.assign("
                f"{column}=scores[{column!r}].astype(str).str.replace(r'\\s+', '_', "
                "regex=True))) or write format='csv' or 'ir_measures_jsonl'."
            )


def write_scores(
    scores: pd.DataFrame,
    path: PathArg,
    *,
    format: WriteFormat = "trec_eval",
    digits: int | None = 4,
    excel_safe: bool = False,
    columns: Columns = None,
) -> None:
    """Write a scores frame as ``trec_eval -q`` output (or ir_measures TSV / JSONL, or CSV).

    ``format="trec_eval"`` writes, per system (in the frame's order), one ``measure query
    value`` line per per-query value, then the summary trec_eval prints: ``runid all
    SYSTEM``, ``num_q all N`` and ``measure all mean`` (the mean over the system's queries
    with a value). Measures trec_eval has are written with trec_eval's names (``AP`` as
    ``map``, ``nDCG@10`` as ``ndcg_cut_10``), others with pdireval's; fields are laid out as
    trec_eval does (``%-22s\\t%s\\t%.4f``), so trec_eval-format readers (AutoJudge,
    :func:`read_scores`) read it. ``"ir_measures"`` writes ``query measure value`` lines
    and ``all`` means; ``"ir_measures_jsonl"`` its JSON records (both hold one run, as
    ir_measures writes them: one system per file); ``"csv"`` the frame itself.
    :func:`read_scores` reads every format back to the same frame (at ``digits``).

    Parameters
    ----------
    scores
        A scores frame (extra grouping columns are not allowed: write one group at a time).
    path
        Output file (``.gz`` compresses).
    format
        One of ``WRITE_FORMATS``.
    digits
        Decimals of the values (trec_eval's 4 by default); None writes full precision.
    excel_safe
        For a file people open in a spreadsheet: OWASP's advice against CSV (formula)
        injection, as :func:`pdireval.excel_safe` applies it. Every name (system, query,
        measure) starting with ``= + - @``, a tab, CR or LF is written with a ``'`` before it,
        and the CSV format quotes every text; numbers are unchanged. Such names then read
        back with their ``'``, so the default (False) writes every name as it is, for
        programs (pdireval, pandas, trec_eval readers). Not for ``"ir_measures_jsonl"``.
    columns
        ``{canonical name: your column name}``.

    Raises
    ------
    SchemaError
        An invalid scores frame, or one with grouping columns; for the ``"trec_eval"`` and
        ``"ir_measures"`` formats (fields separated by whitespace), a name that is empty or
        holds whitespace.
    OptionError
        An unknown format, a bad ``digits``, or ``excel_safe=True`` with JSON lines.
    """
    check_option("format", format, WRITE_FORMATS)
    excel_safe = check_bool("excel_safe", excel_safe)
    if excel_safe and format == "ir_measures_jsonl":
        raise OptionError(
            "excel_safe=True applies to the files a spreadsheet opens as cells (format="
            "'csv', 'ir_measures' or 'trec_eval'); JSON lines keep every name as it is: drop "
            "excel_safe=, or pick one of those formats."
        )
    if digits is not None and (
        isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= 17
    ):
        raise OptionError(f"digits= must be None or an int from 0 to 17; got {digits!r}.")
    frame = canonical_scores(scores, columns)
    extra = [c for c in frame.columns if c not in ("system", "query", "measure", "value")]
    if extra:
        raise SchemaError(
            f"the scores frame has grouping columns {extra}: a per-query scores file holds one "
            "value per (system, query, measure). Write one group at a time."
        )

    if format != "csv":
        _check_written_ids(frame, format)
    if format.startswith("ir_measures") and frame["system"].nunique() > 1:
        raise SchemaError(
            f"{format} output holds one run, and the scores frame has "
            f"{frame['system'].nunique()} systems: write one file per system, e.g. "
            "for name, part in scores.groupby('system'): write_scores(part, f'{name}.tsv', "
            f"format={format!r}); or use format='trec_eval', which names each run."
        )
    fmt = f"%.{digits}f" if digits is not None else "%.17g"  # %.17g round-trips a float64
    if format == "csv":
        if excel_safe:
            text = excel_safe_frame(frame).to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC)
        else:
            text = frame.to_csv(index=False)
    elif format == "ir_measures_jsonl":
        means = _means(frame)
        both = pd.concat([frame, means], ignore_index=True).rename(columns={"query": "query_id"})
        text = both[["query_id", "measure", "value"]].to_json(
            orient="records", lines=True, double_precision=15
        )
    else:
        if format == "trec_eval":
            names = {m: _trec_name(m) for m in pd.unique(frame["measure"])}
            frame = frame.assign(measure=frame["measure"].map(names))
        parts = []
        for system, block in frame.groupby("system", sort=False):
            means = _means(block)
            if format == "trec_eval":
                head = pd.DataFrame(
                    {
                        "system": system,
                        "query": SUMMARY,
                        "measure": ["runid", "num_q"],
                        "value": [
                            "'" + system
                            if excel_safe and system.startswith(FORMULA_STARTS)
                            else system,
                            str(block["query"].nunique()),
                        ],
                    }
                )
                parts += [_as_text(block, fmt), head, _as_text(means, fmt)]
            else:
                parts += [_as_text(block, fmt), _as_text(means, fmt)]
        lines = pd.concat(parts, ignore_index=True)
        if excel_safe:
            lines["query"] = excel_safe_texts(lines["query"])
            lines["measure"] = excel_safe_texts(lines["measure"])
        if format == "trec_eval":
            lines["measure"] = lines["measure"].str.ljust(22)
            order = ["measure", "query", "value"]
        else:
            order = ["query", "measure", "value"]
        text = lines[order].to_csv(
            sep="\t", header=False, index=False, quoting=3, lineterminator="\n"
        )
    target = Path(os.fspath(path))
    if target.is_dir():
        raise OptionError(f"write_scores() path {str(target)!r} is a folder; give a file name.")
    if str(target).endswith(".gz"):
        with gzip.open(target, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        target.write_text(text, encoding="utf-8")
