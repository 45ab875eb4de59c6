"""What the readers and writers of the RAG tools' files share: the files' text, JSON records and
header-led tables, the tools' column spellings, format sniffing, ids, and the writing of text.

The readers are in :mod:`pdireval.rag.file_readers` (nuggets, assignments, support),
:mod:`pdireval.rag.file_scores` (the tools' scores) and the writers in
:mod:`pdireval.rag.file_writers`.
"""

from __future__ import annotations

import gzip
import io
import json
import warnings
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE
from pdireval.errors import OptionError, SchemaError
from pdireval.io.files import as_path, check_text, require_file

__all__ = [
    "NUGGETS_FORMATS",
    "ASSIGNMENTS_FORMATS",
    "SUPPORT_FORMATS",
    "SPELLINGS",
]

#: What :func:`read_nuggets` reads (and, but ``"nuggetbank"``, :func:`write_nuggets` writes).
NUGGETS_FORMATS = ("nuggetizer", "nuggetbank", "table")


#: What :func:`read_assignments` reads and :func:`write_assignments` writes.
ASSIGNMENTS_FORMATS = ("nuggetizer", "table")


#: What :func:`read_support` reads and :func:`write_support` writes.
SUPPORT_FORMATS = ("trec_rag", "table")


NuggetsFormat = Literal["nuggetizer", "nuggetbank", "table"]


NuggetsWriteFormat = Literal["nuggetizer", "table"]


AssignmentsFormat = Literal["nuggetizer", "table"]


SupportFormat = Literal["trec_rag", "table"]


#: the spellings of each canonical column in the tools' files, first match wins
SPELLINGS: dict[str, tuple[str, ...]] = {
    "query": ("query", "qid", "topic_id", "query_id", "narrative_id", "request_id", "topic"),
    "system": ("system", "run_id", "runid", "run", "runtag", "run_tag", "run_name"),
    "nugget": ("nugget", "nugget_id", "nuggetid", "question_id", "claim_id"),
    "importance": ("importance",),
    "text": ("text", "nugget_text", "question", "claim"),
    "group": ("group",),
    "rule": ("rule", "aggregator_type", "operator"),
    "sentence": ("sentence", "sentence_id", "sentenceid", "sentence_index"),
    "doc": ("doc", "docid", "doc_id", "reference", "citation", "citation_id", "citation_slot"),
    "label": ("label", "assignment", "judgment", "support"),
    "judge": ("judge", "judge_id", "assessor", "annotator"),
}


#: the NIST citation support grades (``support`` field of the TREC RAG files) and the two-letter
#: labels (FS / PS / NS) of the human-vs-LLM comparisons, in pdireval's support vocabulary
SUPPORT_GRADES = {"2": "full_support", "1": "partial_support", "0": "no_support"}


SUPPORT_LETTERS = {"FS": "full_support", "PS": "partial_support", "NS": "no_support"}


#: pdireval's support labels back to the NIST grades
GRADE_OF = {"full_support": 2, "partial_support": 1, "no_support": 0, 1.0: 2, 0.5: 1, 0.0: 0}


# --------------------------------------------------------------------------- text


def read_text(path, kind: str) -> tuple[str, str]:
    """(text, name) of a UTF-8 file (plain or .gz), checked before parsing."""
    where = as_path(path, kind)
    require_file(where, kind)
    check_text(where, kind, spaces=False)  # free text (nugget texts) may hold any space
    opener = gzip.open if where.name.endswith(".gz") else open
    with opener(where, "rt", encoding="utf-8-sig") as handle:
        return handle.read(), str(where)


def file_stem(name: str) -> str:
    """A system name from a file name: without folders and the usual suffixes."""
    base = Path(name).name
    for suffix in (".gz", ".jsonl", ".jl", ".json", ".tsv", ".csv", ".txt"):
        if base.lower().endswith(suffix):
            base = base[: -len(suffix)]
    return base or "system"


def json_records(text: str, name: str) -> list[tuple[int, dict]]:
    """``(line number, record)`` of a JSONL file, or of a JSON document holding one object or
    a list of objects (line numbers are then 1); a malformed line is named."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise SchemaError(f"{name}: not valid JSON ({exc}).") from None
        return [(1, _as_record(item, name, 1)) for item in data]
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append((number, _as_record(json.loads(line), name, number)))
        except ValueError as exc:
            if isinstance(exc, SchemaError):
                raise
            if number == 1 or not records:  # perhaps one JSON object spread over lines
                try:
                    return [(1, _as_record(json.loads(text), name, 1))]
                except ValueError:
                    pass
            raise SchemaError(
                f"{name}, line {number}: not a JSON record ({exc}): {line[:120]!r}. Each line "
                "of a JSONL file holds one JSON object."
            ) from None
    if not records:
        raise SchemaError(f"{name}: the file holds no record.")
    return records


def _as_record(item, name: str, number: int) -> dict:
    if not isinstance(item, dict):
        raise SchemaError(
            f"{name}, line {number}: expected a JSON object, got {type(item).__name__}: "
            f"{str(item)[:120]!r}."
        )
    return item


def get_field(record: dict, column: str, name: str, number: int, required: bool = True):
    """The value of the first spelling of ``column`` that ``record`` holds."""
    lowered = {str(k).lower(): k for k in record}
    for spelling in SPELLINGS.get(column, (column,)):
        if spelling in lowered:
            return record[lowered[spelling]]
    if required:
        raise SchemaError(
            f"{name}, line {number}: the record has no {column!r} field (looked for "
            f"{', '.join(SPELLINGS.get(column, (column,)))}); it has {sorted(record)[:12]}."
        )
    return None


def list_field(record: dict, key: str, name: str, number: int) -> list:
    value = record.get(key)
    if not isinstance(value, list):
        raise SchemaError(
            f"{name}, line {number}: the record's {key!r} field must be a list, got "
            f"{type(value).__name__ if key in record else 'nothing'}."
        )
    return value


def read_table(text: str, name: str) -> pd.DataFrame:
    """A header-led TSV / CSV (or flat JSONL) as a frame of strings, with the tools' spellings
    renamed to the canonical columns."""
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith("{") or first.startswith("["):
        records = json_records(text, name)
        frame = pd.DataFrame.from_records([r for _, r in records])
        frame.insert(0, "_line", [n for n, _ in records])
    else:
        sep = "\t" if "\t" in first else ","
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", pd.errors.ParserWarning)
                frame = pd.read_csv(
                    io.StringIO(text),
                    sep=sep,
                    dtype=str,
                    keep_default_na=False,
                    engine="c",
                    skip_blank_lines=True,
                    index_col=False,
                )
        except (pd.errors.ParserError, pd.errors.EmptyDataError, pd.errors.ParserWarning) as exc:
            _field_counts(text, sep, name, -1)  # names the line when a count is wrong
            raise SchemaError(
                f"{name}: malformed table ({exc}); every line holds the header's fields."
            ) from None
        # the physical line of each row (1-based), for error messages
        lines = _field_counts(text, sep, name, len(frame))
        frame.insert(0, "_line", lines if lines is not None else np.arange(2, len(frame) + 2))
    return _rename(frame, name)


def _field_counts(text: str, sep: str, name: str, n_rows: int) -> np.ndarray | None:
    """The line number of each of the ``n_rows`` rows pandas parsed, after checking that every
    line has the header's number of fields (pandas pads a short line silently); None for a
    quoted CSV, which pandas' parser checks. One count of the separators settles the usual,
    well-formed case; only a file failing it (or holding blank lines) is scanned line by
    line."""
    if sep == "," and '"' in text:
        return None
    per_line = text[: text.find("\n") if "\n" in text else len(text)].count(sep)
    blank = "\n\n" in text or "\n\r\n" in text or "\n \n" in text or "\n\t\n" in text
    if text.count(sep) == per_line * (n_rows + 1) and not blank:
        return np.arange(2, n_rows + 2)
    numbers, rows = [], 0
    for number, line in enumerate(text.split("\n"), start=1):  # the slow path: a defect
        if not line.strip():
            continue
        if line.count(sep) != per_line:
            raise SchemaError(
                f"{name}, line {number}: {line.count(sep) + 1} fields where the header has "
                f"{per_line + 1}: {line[:120]!r}."
            )
        rows += 1
        numbers.append(number)
    return np.asarray(numbers[1:], dtype=np.int64)


def _rename(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    lowered = {str(c).lower(): c for c in frame.columns}
    ids = [s for s in SPELLINGS["query"][1:] if s in lowered]
    if "query" in lowered and ids:
        # nuggetizer's and NIST's records: ``query`` is the query's text beside its id
        frame = frame.drop(columns=lowered.pop("query"))
    renames = {}
    for column, spellings in SPELLINGS.items():
        if column in frame.columns:
            continue
        for spelling in spellings:
            if spelling in lowered and lowered[spelling] not in renames:
                renames[lowered[spelling]] = column
                break
    if "doc" not in frame.columns and "reference" in lowered and "citation_id" in lowered:
        renames.pop(lowered["citation_id"], None)  # the cited document, not the citation slot
    return frame.rename(columns=renames)


def require_table_columns(frame: pd.DataFrame, needed, name: str, kind: str) -> None:
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        shown = [c for c in frame.columns if c != "_line"]
        raise SchemaError(
            f"{name}: a {kind} table needs the columns {list(needed)}; {missing} not found "
            f"among {shown} (recognised spellings: "
            + "; ".join(f"{c}: {', '.join(SPELLINGS[c])}" for c in missing if c in SPELLINGS)
            + ")."
        )


def refuse_blank(frame: pd.DataFrame, columns, name: str, kind: str) -> None:
    """An empty id in a required column is an error naming the line."""
    for column in columns:
        values = frame[column]
        empty = values.isna().to_numpy() | (values.astype(str).str.strip() == "").to_numpy()
        if empty.any():
            line = int(frame["_line"].to_numpy()[np.flatnonzero(empty)[0]])
            raise SchemaError(
                f"{name}, line {line}: the {kind} row has an empty {column!r} "
                f"({int(empty.sum())} rows do); every row needs one."
            )


def as_id_series(values) -> pd.Series:
    """Ids as pdireval's id dtype (integers written without a decimal point: a JSON ``3.0`` is
    the id ``"3"``); each distinct value is converted once."""
    codes, uniques = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=True)
    text = [str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in uniques]
    table = pd.array(text + [pd.NA], dtype=ID_DTYPE)
    return pd.Series(table.take(np.where(codes < 0, len(text), codes)), dtype=ID_DTYPE)


def sniff_format(text: str, name: str, candidates: dict, kind: str, formats) -> str:
    """The one format whose test passes, or an error listing the candidates."""
    fits = [fmt for fmt, test in candidates.items() if test(text)]
    if len(fits) == 1:
        return fits[0]
    head = text.lstrip().split("\n", 1)[0][:100]
    if not fits:
        raise SchemaError(
            f"{name}: cannot tell which {kind} format this file is (first line {head!r}). "
            f"Pass format= one of {', '.join(repr(f) for f in formats)}."
        )
    raise SchemaError(
        f"{name}: this file could be {' or '.join(repr(f) for f in fits)} {kind} output "
        f"(first line {head!r}). Pass format= one of {', '.join(repr(f) for f in fits)}."
    )


def first_record(text: str) -> dict | None:
    first = text.lstrip().split("\n", 1)[0].strip()
    try:
        item = json.loads(first)
    except ValueError:
        try:
            item = json.loads(text)
        except ValueError:
            return None
    if isinstance(item, list):
        item = item[0] if item else None
    return item if isinstance(item, dict) else None


def is_nuggetizer(text: str) -> bool:
    record = first_record(text)
    return record is not None and isinstance(record.get("nuggets"), list)


def is_nuggetbank(text: str) -> bool:
    record = first_record(text)
    return record is not None and bool(
        {"nugget_bank", "claim_bank", "format_version", "title_query"} & set(record)
    )


def is_table(text: str) -> bool:
    record = first_record(text)
    if record is not None:
        return not any(isinstance(v, (list, dict)) for v in record.values())
    first = text.lstrip().split("\n", 1)[0]
    return "\t" in first or "," in first


def is_trec_rag_support(text: str) -> bool:
    record = first_record(text)
    return record is not None and isinstance(record.get("sentences"), list)


def query_of(record: dict, name: str, number: int):
    """A record's query id: ``qid`` (nuggetizer) first, then the other spellings (the
    nuggetizer records' ``query`` is the query's text, not its id)."""
    for key in ("qid", "topic_id", "query_id", "narrative_id", "request_id"):
        if key in record:
            return record[key]
    raise SchemaError(
        f"{name}, line {number}: the record has no query id (qid, topic_id, query_id, "
        f"narrative_id or request_id); it has {sorted(record)[:12]}."
    )


def is_blank(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or str(value) == ""


def table_header(text: str) -> list[str]:
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith("{"):
        record = first_record(text) or {}
        return [str(k).lower() for k in record]
    sep = "\t" if "\t" in first else ","
    return [c.strip().strip('"').lower() for c in first.split(sep)]


def output_path(path, what: str) -> Path:
    target = as_path(path, what)
    if target.is_dir():
        raise OptionError(f"the {what} path {str(target)!r} is a folder; give a file name.")
    return target


def write_text(target: Path, text: str) -> None:
    if target.name.endswith(".gz"):
        with gzip.open(target, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        target.write_text(text, encoding="utf-8")


def json_value(value):
    """A frame cell as a JSON value (numpy scalars as Python ones, missing as None)."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


def jsonl_text(records) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
