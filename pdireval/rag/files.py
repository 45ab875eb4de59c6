"""The files of RAG evaluation tools, read into pdireval's frames and written from them.

=====================  ==================================================================
reader                 formats (``format=``; None sniffs it when only one fits)
=====================  ==================================================================
:func:`read_nuggets`   ``"nuggetizer"``: castorini/nuggetizer's JSONL (``create`` output, or
                       the nuggets embedded in its ``assign`` output and in the TREC RAG
                       2024 / 2025 NIST assignment files); ``"nuggetbank"``: TREC AutoJudge
                       NuggetBank v3 JSON / JSONL (question and claim nuggets, AND / OR
                       sub-nuggets); ``"table"``: one nugget a row (TSV, CSV or JSONL)
:func:`read_assignments`  ``"nuggetizer"``: nuggetizer's ``assign`` output = the TREC RAG
                       NIST nugget assignment files (one record per answer); ``"table"``
:func:`read_support`   ``"trec_rag"``: the TREC RAG NIST citation support judgments (one
                       record per answer, its sentences and their citations); ``"table"``
:func:`read_rag_scores`  ``"nuggetizer"``: ``nuggetizer metrics`` output; AutoJudge
                       leaderboards ``"autojudge_tot"``, ``"autojudge_ir_measures"``,
                       ``"autojudge_rag4reports"``, ``"autojudge_jsonl"``;
                       ``"open_rag_eval"``: vectara/open-rag-eval's results CSV
=====================  ==================================================================

Writers: :func:`write_nuggets` (nuggetizer JSONL, table), :func:`write_assignments`
(nuggetizer / NIST JSONL, table), :func:`write_support` (NIST JSONL, table) and
:func:`write_rag_scores` (nuggetizer metrics, AutoJudge leaderboards).

Every reader returns the canonical frame of ``pdireval.rag`` (validated there); a malformed
line raises a :class:`~pdireval.errors.SchemaError` naming the file and the line.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE
from pdireval.errors import OptionError, SchemaError, check_option
from pdireval.io.files import as_path, check_text, require_file

if TYPE_CHECKING:
    from pdireval.types import PathArg

__all__ = [
    "read_nuggets",
    "read_assignments",
    "read_support",
    "read_rag_scores",
    "write_nuggets",
    "write_assignments",
    "write_support",
    "write_rag_scores",
    "NUGGETS_FORMATS",
    "ASSIGNMENTS_FORMATS",
    "SUPPORT_FORMATS",
    "RAG_SCORES_FORMATS",
    "RAG_SCORES_WRITE_FORMATS",
]

#: What :func:`read_nuggets` reads (and, but ``"nuggetbank"``, :func:`write_nuggets` writes).
NUGGETS_FORMATS = ("nuggetizer", "nuggetbank", "table")
#: What :func:`read_assignments` reads and :func:`write_assignments` writes.
ASSIGNMENTS_FORMATS = ("nuggetizer", "table")
#: What :func:`read_support` reads and :func:`write_support` writes.
SUPPORT_FORMATS = ("trec_rag", "table")
#: What :func:`read_rag_scores` reads.
RAG_SCORES_FORMATS = (
    "nuggetizer",
    "autojudge_tot",
    "autojudge_ir_measures",
    "autojudge_rag4reports",
    "autojudge_jsonl",
    "open_rag_eval",
)
#: What :func:`write_rag_scores` writes.
RAG_SCORES_WRITE_FORMATS = (
    "nuggetizer",
    "autojudge_tot",
    "autojudge_ir_measures",
    "autojudge_rag4reports",
    "autojudge_jsonl",
)

NuggetsFormat = Literal["nuggetizer", "nuggetbank", "table"]
NuggetsWriteFormat = Literal["nuggetizer", "table"]
AssignmentsFormat = Literal["nuggetizer", "table"]
SupportFormat = Literal["trec_rag", "table"]
RagScoresFormat = Literal[
    "nuggetizer",
    "autojudge_tot",
    "autojudge_ir_measures",
    "autojudge_rag4reports",
    "autojudge_jsonl",
    "open_rag_eval",
]
RagScoresWriteFormat = Literal[
    "nuggetizer",
    "autojudge_tot",
    "autojudge_ir_measures",
    "autojudge_rag4reports",
    "autojudge_jsonl",
]

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

#: the per-query scores of ``nuggetizer metrics`` (in its output order)
NUGGETIZER_METRICS = ("strict_vital_score", "strict_all_score", "vital_score", "all_score")

#: an AutoJudge leaderboard's columns, per format (AutoJudge's ``Leaderboard.load``)
LEADERBOARD_COLUMNS = {
    "autojudge_tot": ("system", "measure", "query", "value"),
    "autojudge_ir_measures": ("system", "query", "measure", "value"),
    "autojudge_rag4reports": ("query", "system", "measure", "value"),
}

#: the query id of summary rows (means over queries), left out when reading scores
SUMMARY = "all"


# --------------------------------------------------------------------------- reading text


def _read_text(path, kind: str) -> tuple[str, str]:
    """(text, name) of a UTF-8 file (plain or .gz), checked before parsing."""
    where = as_path(path, kind)
    require_file(where, kind)
    check_text(where, kind, spaces=False)  # free text (nugget texts) may hold any space
    opener = gzip.open if where.name.endswith(".gz") else open
    with opener(where, "rt", encoding="utf-8-sig") as handle:
        return handle.read(), str(where)


def _stem(name: str) -> str:
    """A system name from a file name: without folders and the usual suffixes."""
    base = Path(name).name
    for suffix in (".gz", ".jsonl", ".jl", ".json", ".tsv", ".csv", ".txt"):
        if base.lower().endswith(suffix):
            base = base[: -len(suffix)]
    return base or "system"


def _json_records(text: str, name: str) -> list[tuple[int, dict]]:
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


def _get(record: dict, column: str, name: str, number: int, required: bool = True):
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


def _list_field(record: dict, key: str, name: str, number: int) -> list:
    value = record.get(key)
    if not isinstance(value, list):
        raise SchemaError(
            f"{name}, line {number}: the record's {key!r} field must be a list, got "
            f"{type(value).__name__ if key in record else 'nothing'}."
        )
    return value


def _table(text: str, name: str) -> pd.DataFrame:
    """A header-led TSV / CSV (or flat JSONL) as a frame of strings, with the tools' spellings
    renamed to the canonical columns."""
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith("{") or first.startswith("["):
        records = _json_records(text, name)
        frame = pd.DataFrame.from_records([r for _, r in records])
        frame.insert(0, "_line", [n for n, _ in records])
    else:
        sep = "\t" if "\t" in first else ","
        lines = _field_counts(text, sep, name)
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
            raise SchemaError(
                f"{name}: malformed table ({exc}); every line holds the header's fields."
            ) from None
        # the physical line of each row (1-based), for error messages
        frame.insert(0, "_line", lines if lines is not None else np.arange(2, len(frame) + 2))
    return _rename(frame, name)


def _field_counts(text: str, sep: str, name: str) -> np.ndarray | None:
    """Check that every line of a table without quoting has the header's number of fields
    (pandas pads short lines silently) and return the line numbers of its rows; None for a
    quoted CSV, which pandas' parser checks."""
    if sep == "," and '"' in text:
        return None
    lines = np.array(text.split("\n"), dtype=object)
    numbers = np.arange(1, len(lines) + 1)
    filled = np.char.str_len(np.char.strip(lines.astype(str))) > 0
    lines, numbers = lines[filled], numbers[filled]
    counts = np.char.count(lines.astype(str), sep)
    wrong = np.flatnonzero(counts != counts[0])
    if len(wrong):
        at = wrong[0]
        raise SchemaError(
            f"{name}, line {numbers[at]}: {counts[at] + 1} fields where the header has "
            f"{counts[0] + 1}: {str(lines[at])[:120]!r}."
        )
    return numbers[1:]


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


def _require(frame: pd.DataFrame, needed, name: str, kind: str) -> None:
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        shown = [c for c in frame.columns if c != "_line"]
        raise SchemaError(
            f"{name}: a {kind} table needs the columns {list(needed)}; {missing} not found "
            f"among {shown} (recognised spellings: "
            + "; ".join(f"{c}: {', '.join(SPELLINGS[c])}" for c in missing if c in SPELLINGS)
            + ")."
        )


def _blank(frame: pd.DataFrame, columns, name: str, kind: str) -> None:
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


def _ids(values) -> pd.Series:
    """Ids as pdireval's id dtype (integers written without a decimal point)."""
    series = pd.Series(values, dtype=object)
    text = series.map(lambda v: str(int(v)) if isinstance(v, float) and v.is_integer() else v)
    return text.astype(str).astype(ID_DTYPE)


def _sniff(text: str, name: str, candidates: dict, kind: str, formats) -> str:
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


def _first_record(text: str) -> dict | None:
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


def _is_nuggetizer(text: str) -> bool:
    record = _first_record(text)
    return record is not None and isinstance(record.get("nuggets"), list)


def _is_nuggetbank(text: str) -> bool:
    record = _first_record(text)
    return record is not None and bool(
        {"nugget_bank", "claim_bank", "format_version", "title_query"} & set(record)
    )


def _is_table(text: str) -> bool:
    record = _first_record(text)
    if record is not None:
        return not any(isinstance(v, (list, dict)) for v in record.values())
    first = text.lstrip().split("\n", 1)[0]
    return "\t" in first or "," in first


def _is_trec_rag_support(text: str) -> bool:
    record = _first_record(text)
    return record is not None and isinstance(record.get("sentences"), list)


# --------------------------------------------------------------------------- nuggets


def _nuggets_from_nuggetizer(text: str, name: str) -> pd.DataFrame:
    """Each record's ``nuggets`` list (``text``, ``importance``); a nugget's id is its position
    in the list (0-based), as the TREC RAG files and nuggetizer's ``assign`` output keep it."""
    queries, nuggets, texts, importance, lines = [], [], [], [], []
    for number, record in _json_records(text, name):
        query = _query_of(record, name, number)
        items = _list_field(record, "nuggets", name, number)
        for position, item in enumerate(items):
            if not isinstance(item, dict) or "text" not in item:
                raise SchemaError(
                    f"{name}, line {number}: nugget {position} of the record is not an object "
                    f"with a 'text' field: {str(item)[:100]!r}."
                )
            queries.append(query)
            nuggets.append(position)
            texts.append(item["text"])
            importance.append(item.get("importance"))
            lines.append(number)
    frame = pd.DataFrame(
        {"query": queries, "nugget": nuggets, "importance": importance, "text": texts}
    )
    frame["_line"] = lines
    return _one_nugget_list(frame, name)


def _query_of(record: dict, name: str, number: int):
    """A record's query id: ``qid`` (nuggetizer) first, then the other spellings (the
    nuggetizer records' ``query`` is the query's text, not its id)."""
    for key in ("qid", "topic_id", "query_id", "narrative_id", "request_id"):
        if key in record:
            return record[key]
    raise SchemaError(
        f"{name}, line {number}: the record has no query id (qid, topic_id, query_id, "
        f"narrative_id or request_id); it has {sorted(record)[:12]}."
    )


def _one_nugget_list(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """The nuggets of a file that repeats each query's list (once per answer): the lists must
    agree, position by position."""
    if frame.empty:
        raise SchemaError(f"{name}: the file holds no nugget.")
    frame = frame.assign(query=_ids(frame["query"]), nugget=_ids(frame["nugget"]))
    distinct = frame.drop_duplicates(["query", "nugget", "text", "importance"])
    clash = distinct.duplicated(["query", "nugget"], keep=False).to_numpy()
    if clash.any():
        rows = distinct[clash].head(4)
        raise SchemaError(
            f"{name}, lines {', '.join(str(v) for v in rows['_line'])}: query "
            f"{rows['query'].iloc[0]!r} has differing nuggets at position "
            f"{rows['nugget'].iloc[0]} ({rows['text'].iloc[0]!r} vs {rows['text'].iloc[1]!r}, "
            "or another importance) in different records; the nugget ids are the positions "
            "in each record's list, so every record of a query must list the same nuggets in "
            "the same order."
        )
    return distinct.reset_index(drop=True)


def _nuggets_from_table(text: str, name: str) -> pd.DataFrame:
    frame = _table(text, name)
    _require(frame, ("query", "nugget"), name, "nuggets")
    _blank(frame, ("query", "nugget"), name, "nuggets")
    keep = [
        c for c in ("query", "nugget", "importance", "text", "group", "rule") if c in frame.columns
    ]
    out = frame[["_line", *keep]].copy()
    for column in ("text", "group", "rule"):
        if column in out.columns:
            out[column] = out[column].map(lambda v: None if _empty(v) else v)
    if "importance" not in out.columns:
        out["importance"] = None
    else:
        out["importance"] = _number_or_text(out["importance"])
    out["query"] = _ids(out["query"])
    out["nugget"] = _ids(out["nugget"])
    return out


def _number_or_text(series: pd.Series) -> pd.Series:
    """Importance as the file gives it: a number where it is one, else the word (``vital``);
    an empty cell is missing."""
    as_text = series.astype(object).where(series.notna(), None)
    numbers = pd.to_numeric(series, errors="coerce")
    out = as_text.where(numbers.isna(), numbers.astype(object))
    return out.map(lambda v: None if isinstance(v, str) and not v.strip() else v)


def _nuggets_from_nuggetbank(text: str, name: str) -> pd.DataFrame:
    """NuggetBank v3 (TREC AutoJudge): one bank per query; ``nugget_bank`` (questions) and
    ``claim_bank`` (claims); a nugget with ``sub_nuggets`` becomes a group of its sub-nuggets
    combined by its ``aggregator_type`` (AND / OR)."""
    rows: list[dict] = []
    for number, bank in _json_records(text, name):
        query = bank.get("query_id")
        if query is None:
            if "title_query" not in bank:
                raise SchemaError(
                    f"{name}, line {number}: the record is not a NuggetBank (no query_id and "
                    "no title_query)."
                )
            query = hashlib.md5(str(bank["title_query"]).encode()).hexdigest()
        for key, kind in (("nugget_bank", "question"), ("claim_bank", "claim")):
            entries = bank.get(key) or {}
            if not isinstance(entries, dict):
                raise SchemaError(
                    f"{name}, line {number}: the bank's {key!r} must be an object (text -> "
                    f"nugget), got {type(entries).__name__}."
                )
            for nugget in entries.values():
                rows.extend(_bank_rows(nugget, kind, query, bank, name, number))
    if not rows:
        raise SchemaError(f"{name}: the NuggetBank file holds no nugget.")
    frame = pd.DataFrame(rows)
    frame["query"] = _ids(frame["query"])
    frame["nugget"] = _ids(frame["nugget"])
    return frame


def _bank_text_id(nugget: dict, kind: str, name: str, number: int) -> tuple[str, str]:
    """(text, id) of a NuggetBank question or claim; the id is the tool's default (the MD5 of
    the text) when the file gives none."""
    if not isinstance(nugget, dict):
        raise SchemaError(f"{name}, line {number}: a NuggetBank nugget must be an object.")
    if "question" in nugget:
        text_, key = nugget["question"], nugget.get("question_id")
    elif "claim" in nugget:
        text_, key = nugget["claim"], nugget.get("claim_id")
    else:
        raise SchemaError(
            f"{name}, line {number}: a NuggetBank {kind} has neither 'question' nor 'claim': "
            f"{str(nugget)[:100]!r}."
        )
    return str(text_), str(key) if key is not None else hashlib.md5(str(text_).encode()).hexdigest()


def _bank_rows(nugget, kind: str, query, bank: dict, name: str, number: int) -> list[dict]:
    text_, key = _bank_text_id(nugget, kind, name, number)
    importance = nugget.get("importance", bank.get("importance"))
    subs = nugget.get("sub_nuggets")
    if not subs:
        return [
            {
                "_line": number,
                "query": nugget.get("query_id", query),
                "nugget": key,
                "importance": importance,
                "text": text_,
                "group": None,
                "rule": None,
            }
        ]
    rule = str(nugget.get("aggregator_type") or "OR").upper()
    if rule == "DEFAULT":
        rule = "OR"  # AutoJudge reads an unset / Default aggregator as OR (nugget_to_dict)
    if rule not in ("AND", "OR"):
        raise SchemaError(
            f"{name}, line {number}: nugget {text_[:60]!r} combines its sub-nuggets with "
            f"{rule}; pdireval scores AND and OR groups only."
        )
    rows = []
    for sub in subs:
        sub_text, sub_key = _bank_text_id(sub, kind, name, number)
        if isinstance(sub, dict) and sub.get("sub_nuggets"):
            raise SchemaError(
                f"{name}, line {number}: sub-nugget {sub_text[:60]!r} of {text_[:60]!r} has "
                "sub-nuggets of its own; pdireval reads one level of AND / OR groups."
            )
        rows.append(
            {
                "_line": number,
                "query": sub.get("query_id", query),
                "nugget": sub_key,
                "importance": sub.get("importance", importance),
                "text": sub_text,
                "group": key,
                "rule": rule.lower(),
            }
        )
    return rows


def read_nuggets(
    path: PathArg,
    format: NuggetsFormat | None = None,
    *,
    importance: str | float | None = None,
) -> pd.DataFrame:
    """Read a nuggets file (nuggetizer, TREC RAG, AutoJudge NuggetBank, or a table) as a
    nuggets frame.

    Formats (``format=``; None sniffs it from the content when only one format fits, and
    otherwise raises an error listing the candidates):

    * ``"nuggetizer"`` — castorini/nuggetizer's JSONL: one record per query (``nuggetizer
      create`` output: ``qid``, ``query``, ``nuggets: [{text, importance}]``) or per answer
      (its ``assign`` output, which is also the format of the TREC 2024 / 2025 RAG NIST nugget
      assignment files: ``qid``, ``run_id``, ``nuggets: [{text, importance, assignment}]``).
      A nugget's id is its position in the list (``"0"``, ``"1"``, ...), as in those files;
      the lists of one query's records must agree.
    * ``"nuggetbank"`` — TREC AutoJudge's NuggetBank v3 (JSON, JSONL or ``.gz``; one bank per
      query): each question (``nugget_bank``) or claim (``claim_bank``) is a nugget with id
      ``question_id`` / ``claim_id`` (the MD5 of its text when absent, as AutoJudge does). A
      nugget with ``sub_nuggets`` becomes one row per sub-nugget sharing ``group`` = its id
      and ``rule`` = its ``aggregator_type`` (``"and"`` / ``"or"``; unset or ``Default`` is
      ``"or"``, as AutoJudge reads it); sub-nuggets inherit its importance.
    * ``"table"`` — one nugget a row: TSV, CSV (a header line) or flat JSONL records, with
      the columns ``query, nugget[, importance, text, group, rule]`` under pdireval's names
      or the tools' (``qid``, ``topic_id``, ``nugget_id``, ...).

    Parameters
    ----------
    path
        The file (plain or ``.gz``).
    format
        One of ``NUGGETS_FORMATS``, or None to sniff it.
    importance
        The importance of nuggets whose file gives none (NuggetBank nuggets often have
        none): ``"vital"``, ``"okay"`` or a weight. None (default) leaves it missing, which
        the nuggets frame's validation refuses, naming the nuggets.

    Returns
    -------
    DataFrame
        The canonical nuggets frame of ``pdireval.validate_nuggets``: ``query``, ``nugget``
        (ids), ``importance`` (``vital`` / ``okay`` or a number), ``text``, and ``group`` /
        ``rule`` when the file has groups; in file order.

    Raises
    ------
    SchemaError
        A missing, undecodable or malformed file (its line named), a format that cannot be
        told, disagreeing nugget lists, an aggregator other than AND / OR, or an invalid
        nuggets frame.

    References
    ----------
    Pradeep, R., Thakur, N., Upadhyay, S., Campos, D., Craswell, N., Lin, J. (2024). Initial
    nugget evaluation results for the TREC 2024 RAG Track with the AutoNuggetizer framework.
    arXiv:2411.09607.
    """
    if format is not None:
        check_option("format", format, NUGGETS_FORMATS)
    text, name = _read_text(path, "nuggets")
    fmt = format or _sniff(
        text,
        name,
        {"nuggetizer": _is_nuggetizer, "nuggetbank": _is_nuggetbank, "table": _is_table},
        "nuggets",
        NUGGETS_FORMATS,
    )
    reader = {
        "nuggetizer": _nuggets_from_nuggetizer,
        "nuggetbank": _nuggets_from_nuggetbank,
        "table": _nuggets_from_table,
    }[fmt]
    frame = reader(text, name)
    if importance is not None:
        frame["importance"] = frame["importance"].where(frame["importance"].notna(), importance)
    columns = ["query", "nugget", "importance", "text"]
    if "group" in frame.columns and frame["group"].notna().any():
        columns += ["group", "rule"]
    out = frame[[c for c in columns if c in frame.columns]].reset_index(drop=True)
    return _validated("nuggets", out, name)


def _validated(kind: str, frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """The frame through ``pdireval.rag``'s validation, its errors prefixed by the file."""
    from pdireval.rag import frames

    check = {
        "nuggets": frames.validate_nuggets,
        "assignments": frames.validate_assignments,
        "support": frames.validate_support,
    }[kind]
    try:
        return check(frame)
    except SchemaError as exc:
        raise SchemaError(f"{name}: {exc}", getattr(exc, "failure_cases", None)) from None


# --------------------------------------------------------------------------- assignments


def _assignments_from_nuggetizer(text: str, name: str, system: str | None) -> pd.DataFrame:
    """One record per answer (``qid``, ``run_id``, ``nuggets: [{..., assignment}]``)."""
    systems, queries, nuggets, labels, lines = [], [], [], [], []
    default = system if system is not None else None
    for number, record in _json_records(text, name):
        query = _query_of(record, name, number)
        items = _list_field(record, "nuggets", name, number)
        for position, item in enumerate(items):
            if not isinstance(item, dict) or "assignment" not in item:
                raise SchemaError(
                    f"{name}, line {number}: nugget {position} of the answer record has no "
                    f"'assignment' (a nuggets file, not an assignments file?): "
                    f"{str(item)[:100]!r}."
                )
        run = default if default is not None else _get(record, "system", name, number, False)
        if run is None:
            raise SchemaError(
                f"{name}, line {number}: the answer record has no run_id (nor system, runtag); "
                "pass system= to name the system of every record."
            )
        for position, item in enumerate(items):
            systems.append(run)
            queries.append(query)
            nuggets.append(position)
            labels.append(item["assignment"])
            lines.append(number)
    if not labels:
        raise SchemaError(f"{name}: the file holds no assignment.")
    return pd.DataFrame(
        {
            "_line": lines,
            "system": _ids(systems),
            "query": _ids(queries),
            "nugget": _ids(nuggets),
            "label": labels,
        }
    )


def _judge_columns(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """A table with one label column per judge (``human_label``, ``llm_label``) in long form:
    one row per judge, with a ``judge`` column."""
    if "label" in frame.columns:
        return frame
    judged = [c for c in frame.columns if str(c).lower().endswith("_label")]
    if not judged:
        return frame
    parts = [
        frame.drop(columns=judged).assign(judge=str(c)[: -len("_label")], label=frame[c])
        for c in judged
    ]
    return pd.concat(parts, ignore_index=True)


def _assignments_from_table(text: str, name: str, system: str | None) -> pd.DataFrame:
    frame = _judge_columns(_table(text, name), name)
    if system is not None:
        frame["system"] = system
    _require(frame, ("system", "query", "nugget", "label"), name, "assignments")
    _blank(frame, ("system", "query", "nugget", "label"), name, "assignments")
    out = frame[["_line", "system", "query", "nugget", "label"]].copy()
    out["label"] = _number_or_text(out["label"])
    for column in ("system", "query", "nugget"):
        out[column] = _ids(out[column])
    if "judge" in frame.columns:
        out["judge"] = _ids(frame["judge"])
    return out


def read_assignments(
    path: PathArg,
    format: AssignmentsFormat | None = None,
    *,
    system: str | None = None,
    judge: str | None = None,
) -> pd.DataFrame:
    """Read nugget assignments (nuggetizer / TREC RAG, or a table) as an assignments frame.

    Formats (``format=``; None sniffs it when only one format fits):

    * ``"nuggetizer"`` — castorini/nuggetizer's ``assign`` output, which is also the format of
      the TREC 2024 / 2025 RAG NIST nugget assignment files (``nugget_assignment.*.jsonl``):
      one record per answer with ``qid``, ``run_id`` and ``nuggets: [{text, importance,
      assignment}]``. The nugget ids are the positions in the list (read the nuggets of the
      same file with :func:`read_nuggets`).
    * ``"table"`` — one assignment a row: TSV, CSV or flat JSONL with ``system, query, nugget,
      label[, judge]`` or the tools' spellings (``run_id``, ``qid``, ``nugget_id``,
      ``assignment``). A table with one label column per judge (``human_label``,
      ``llm_label``) and no ``label`` column is read in long form, with ``judge`` = the
      column's prefix.

    Labels are kept as written (``support`` / ``partial_support`` / ``not_support`` or 1 /
    0.5 / 0); the frame's validation refuses any other.

    Parameters
    ----------
    path
        The file (plain or ``.gz``).
    format
        One of ``ASSIGNMENTS_FORMATS``, or None to sniff it.
    system
        The system of every row (a file without run ids, e.g. nuggetizer's output for one
        run); by default the file's ``run_id``.
    judge
        A ``judge`` column holding this name on every row (e.g. ``"nist"``, ``"gpt-4o"``),
        so that files of several judges concatenate into one frame.

    Returns
    -------
    DataFrame
        The canonical assignments frame of ``pdireval.validate_assignments``: ``system``,
        ``query``, ``nugget``, ``label`` (and ``judge``), in file order.

    Raises
    ------
    SchemaError
        A missing, undecodable or malformed file (its line named), a record without run id
        (and no ``system=``), a format that cannot be told, or an invalid assignments frame.
    """
    if format is not None:
        check_option("format", format, ASSIGNMENTS_FORMATS)
    text, name = _read_text(path, "assignments")
    fmt = format or _sniff(
        text,
        name,
        {"nuggetizer": _is_nuggetizer, "table": _is_table},
        "assignments",
        ASSIGNMENTS_FORMATS,
    )
    reader = _assignments_from_nuggetizer if fmt == "nuggetizer" else _assignments_from_table
    frame = reader(text, name, system)
    if judge is not None:
        frame["judge"] = _ids([str(judge)] * len(frame))
    columns = ["system", "query", "nugget", "label"] + (["judge"] if "judge" in frame else [])
    return _validated("assignments", frame[columns].reset_index(drop=True), name)


# --------------------------------------------------------------------------- support


def _support_label(value, name: str, number: int):
    """A NIST support grade (0 / 1 / 2, as text or number) as pdireval's support label."""
    if value is None:
        return None
    number_like = isinstance(value, (int, float)) and not isinstance(value, bool)
    key = str(int(value)) if number_like and float(value).is_integer() else str(value).strip()
    if key in SUPPORT_GRADES:
        return SUPPORT_GRADES[key]
    raise SchemaError(
        f"{name}, line {number}: citation support {value!r} is not a NIST grade (0 = no, "
        "1 = partial, 2 = full support). Fix or drop the citation."
    )


def _support_from_trec_rag(text: str, name: str, system: str | None) -> pd.DataFrame:
    """One record per answer (``topic_id``, ``run_id``, ``sentences: [{sentenceID,
    citations: [{citationID, reference, support}]}]``); an uncited sentence is one row with no
    document and no label."""
    rows: dict[str, list] = {k: [] for k in ("_line", "system", "query", "sentence", "doc")}
    labels: list = []
    for number, record in _json_records(text, name):
        query = _query_of(record, name, number)
        run = system if system is not None else _get(record, "system", name, number, False)
        if run is None:
            raise SchemaError(
                f"{name}, line {number}: the answer record has no run_id; pass system=."
            )
        for position, sentence in enumerate(_list_field(record, "sentences", name, number)):
            if not isinstance(sentence, dict):
                raise SchemaError(f"{name}, line {number}: sentence {position} is not an object.")
            key = sentence.get("sentenceID", sentence.get("sentence_id", position))
            citations = sentence.get("citations") or []
            if not citations:
                cited = [(None, None)]
            else:
                cited = []
                for citation in citations:
                    if not isinstance(citation, dict) or "reference" not in citation:
                        raise SchemaError(
                            f"{name}, line {number}: a citation of sentence {key} has no "
                            f"'reference' (the cited document): {str(citation)[:100]!r}."
                        )
                    grade = citation.get("support")
                    cited.append(
                        (
                            citation["reference"],
                            None if grade is None else _support_label(grade, name, number),
                        )
                    )
            for doc, label in cited:
                rows["_line"].append(number)
                rows["system"].append(run)
                rows["query"].append(query)
                rows["sentence"].append(key)
                rows["doc"].append(doc)
                labels.append(label)
    frame = pd.DataFrame(rows)
    if frame.empty:
        raise SchemaError(f"{name}: the file holds no sentence.")
    frame["label"] = labels
    return frame


def _support_from_table(text: str, name: str, system: str | None) -> pd.DataFrame:
    header = _table_header(text)
    grades = "support" in header and "label" not in header  # NIST's grades 0 / 1 / 2
    frame = _judge_columns(_table(text, name), name)
    if system is not None:
        frame["system"] = system
    _require(frame, ("system", "query", "sentence", "doc", "label"), name, "support")
    _blank(frame, ("system", "query", "sentence"), name, "support")
    out = frame[["_line", "system", "query", "sentence", "doc", "label"]].copy()
    lines = out["_line"].to_numpy()
    values = out["label"].to_numpy(dtype=object)
    if grades:
        out["label"] = [
            None if _empty(v) else _support_label(v, name, int(n)) for v, n in zip(values, lines)
        ]
    else:
        out["label"] = [
            None if _empty(v) else SUPPORT_LETTERS.get(str(v).strip().upper(), v) for v in values
        ]
        out["label"] = _number_or_text(out["label"])
    out["doc"] = out["doc"].map(lambda v: None if _empty(v) else v)
    if "judge" in frame.columns:
        out["judge"] = frame["judge"]
    return out


def _empty(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or str(value) == ""


def _table_header(text: str) -> list[str]:
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith("{"):
        record = _first_record(text) or {}
        return [str(k).lower() for k in record]
    sep = "\t" if "\t" in first else ","
    return [c.strip().strip('"').lower() for c in first.split(sep)]


def read_support(
    path: PathArg,
    format: SupportFormat | None = None,
    *,
    system: str | None = None,
    judge: str | None = None,
) -> pd.DataFrame:
    """Read citation support judgments (TREC RAG, or a table) as a support frame.

    Formats (``format=``; None sniffs it when only one format fits):

    * ``"trec_rag"`` — the TREC 2024 RAG NIST citation support files
      (``final.citation_judgments_*.jsonl``): one record per answer with ``topic_id``,
      ``run_id`` and ``sentences: [{sentenceID, text, citations: [{citationID, reference,
      support}]}]``; ``support`` is NIST's grade 0 (no), 1 (partial), 2 (full support). One
      row per (sentence, citation), ``doc`` = the cited ``reference``; a sentence citing
      nothing is one row with no ``doc`` and no label (support recall counts it).
    * ``"table"`` — one citation a row: TSV, CSV or flat JSONL with ``system, query,
      sentence, doc, label[, judge]`` or the tools' spellings (``run_id``, ``topic_id``,
      ``sentence_id`` / ``sentence_index``, ``reference`` / ``citation_slot``, and a
      ``support`` column of NIST grades 0 / 1 / 2). Labels ``FS`` / ``PS`` / ``NS`` (full,
      partial, no support) are understood; a table with one label column per judge
      (``human_label``, ``llm_label``) is read in long form with a ``judge`` column.

    Parameters
    ----------
    path
        The file (plain or ``.gz``).
    format
        One of ``SUPPORT_FORMATS``, or None to sniff it.
    system
        The system of every row; by default the file's ``run_id``.
    judge
        A ``judge`` column holding this name on every row.

    Returns
    -------
    DataFrame
        The canonical support frame of ``pdireval.validate_support``: ``system``, ``query``,
        ``sentence``, ``doc`` (missing for an uncited sentence), ``label``
        (``full_support`` / ``partial_support`` / ``no_support``, or the numbers a table
        holds) and ``judge`` when given; in file order.

    Raises
    ------
    SchemaError
        A missing, undecodable or malformed file (its line named), a grade outside 0 / 1 / 2,
        a citation without reference, a format that cannot be told, or an invalid support
        frame.

    References
    ----------
    Thakur, N., Pradeep, R., Upadhyay, S., Campos, D., Craswell, N., Soboroff, I., Dang, H. T.,
    Lin, J. (2025). Support evaluation for the TREC 2024 RAG Track: comparing human versus
    LLM judges. SIGIR 2025.
    """
    if format is not None:
        check_option("format", format, SUPPORT_FORMATS)
    text, name = _read_text(path, "support")
    fmt = format or _sniff(
        text,
        name,
        {"trec_rag": _is_trec_rag_support, "table": _is_table},
        "support",
        SUPPORT_FORMATS,
    )
    reader = _support_from_trec_rag if fmt == "trec_rag" else _support_from_table
    frame = reader(text, name, system)
    for column in ("system", "query", "sentence"):
        frame[column] = _ids(frame[column])
    frame["doc"] = pd.Series(
        [None if _empty(v) else str(v) for v in frame["doc"]], dtype=ID_DTYPE, index=frame.index
    )
    if judge is not None:
        frame["judge"] = str(judge)
    columns = ["system", "query", "sentence", "doc", "label"]
    if "judge" in frame.columns:
        frame["judge"] = _ids(frame["judge"])
        columns.append("judge")
    return _validated("support", frame[columns].reset_index(drop=True), name)


# --------------------------------------------------------------------------- scores


def _scores_from_nuggetizer(text: str, name: str, system: str) -> pd.DataFrame:
    """``nuggetizer metrics`` output: one record per answer (``qid`` and the four scores),
    then the means (``qid`` ``all``); the file names no run."""
    queries, measures, values, lines = [], [], [], []
    for number, record in _json_records(text, name):
        query = _query_of(record, name, number)
        for measure in NUGGETIZER_METRICS:
            if measure not in record:
                raise SchemaError(
                    f"{name}, line {number}: the metrics record has no {measure!r} "
                    f"(nuggetizer metrics output holds {', '.join(NUGGETIZER_METRICS)})."
                )
            queries.append(query)
            measures.append(measure)
            values.append(record[measure])
            lines.append(number)
    frame = pd.DataFrame({"_line": lines, "query": queries, "measure": measures, "value": values})
    frame["system"] = system
    per_query = frame[frame["query"].astype(str) != SUMMARY]
    twice = per_query.duplicated(["query", "measure"]).to_numpy()
    if twice.any():
        row = per_query[twice].iloc[0]
        raise SchemaError(
            f"{name}, line {row['_line']}: query {row['query']!r} appears twice. nuggetizer's "
            "metrics output names no run, so one file holds one run's answers: split the "
            "assignments by run_id before `nuggetizer metrics`, or read the assignments with "
            "pdireval.read_assignments and score them with pdireval.evaluate_nuggets."
        )
    return frame


def _scores_from_leaderboard(text: str, name: str, fmt: str) -> pd.DataFrame:
    """AutoJudge's whitespace-separated leaderboards (``Leaderboard.write``)."""
    columns = LEADERBOARD_COLUMNS[fmt]
    rows, lines = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 4:
            raise SchemaError(
                f"{name}, line {number}: {len(parts)} fields where an AutoJudge {fmt[10:]} "
                f"leaderboard line has 4 ({' '.join(columns)}): {line[:120]!r}."
            )
        rows.append(parts)
        lines.append(number)
    if not rows:
        raise SchemaError(f"{name}: the leaderboard holds no line.")
    frame = pd.DataFrame(rows, columns=list(columns))
    frame["_line"] = lines
    return frame


def _scores_from_autojudge_jsonl(text: str, name: str) -> pd.DataFrame:
    rows = []
    for number, record in _json_records(text, name):
        missing = [k for k in ("run_id", "topic_id", "measure", "value") if k not in record]
        if missing:
            raise SchemaError(
                f"{name}, line {number}: the leaderboard record lacks {missing} (AutoJudge's "
                "jsonl leaderboard records hold run_id, topic_id, measure, value)."
            )
        rows.append(
            (number, record["run_id"], record["topic_id"], record["measure"], record["value"])
        )
    return pd.DataFrame(rows, columns=["_line", "system", "query", "measure", "value"])


#: open-rag-eval's score columns read as measures: column (after ``run_N_``) -> how
OPEN_RAG_EVAL_SCALARS = (
    "retrieval_score_mean_umbrela_score",
    "generation_score_mean_nugget_assignment_score",
    "generation_score_vital_nuggetizer_score",
    "generation_score_hallucination_score",
    "generation_score_citation_f1_score",
)


def _open_rag_eval_measures(column: str, cell) -> list[tuple[str, float]]:
    """The measures of one open-rag-eval cell (a JSON value)."""
    if column in OPEN_RAG_EVAL_SCALARS:
        return [(column.split("_score_", 1)[1], cell)]
    if not isinstance(cell, dict):
        return []
    if column == "generation_score_autonugget_scores":
        scores = cell.get("nuggetizer_scores") or {}
        return [(f"nugget_{k.lower().replace(' ', '_')}", v) for k, v in scores.items()]
    if column == "generation_score_citation_scores":
        return [
            (f"citation_{k}", cell[k])
            for k in ("weighted_precision", "weighted_recall")
            if k in cell
        ]
    if column == "retrieval_score_precision_metrics":
        out = []
        for key, value in cell.items():
            if isinstance(value, dict):
                out += [(f"{key}{k}", v) for k, v in value.items()]
            else:
                out.append((key, value))
        return out
    if column == "generation_score_no_answer_score" and "query_answered" in cell:
        answered = str(cell["query_answered"]).strip().lower()
        return [("query_answered", {"yes": 1.0, "no": 0.0}.get(answered, np.nan))]
    return []


def _scores_from_open_rag_eval(text: str, name: str, system: str) -> pd.DataFrame:
    """open-rag-eval's TREC evaluator results CSV: one row per query, one JSON cell per score
    (``run_N_`` prefixes when the queries were answered several times)."""
    try:
        table = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise SchemaError(f"{name}: malformed CSV ({exc}).") from None
    if "query_id" not in table.columns:
        raise SchemaError(
            f"{name}: no query_id column; open-rag-eval's results CSV starts with query_id, query."
        )
    rows = []
    for position, record in enumerate(table.to_dict("records")):
        number = position + 2
        for column, cell in record.items():
            repeat, base = 1, str(column)
            if base.startswith("run_") and base[4:].split("_", 1)[0].isdigit():
                head, base = base[4:].split("_", 1)
                repeat = int(head)
            if not (base.startswith("retrieval_score_") or base.startswith("generation_score_")):
                continue
            if not str(cell).strip():
                continue  # a query this repeat did not score
            try:
                value = json.loads(cell)
            except ValueError:
                raise SchemaError(
                    f"{name}, line {number}: column {column!r} holds {str(cell)[:80]!r}, not "
                    "the JSON open-rag-eval writes."
                ) from None
            for measure, number_ in _open_rag_eval_measures(base, value):
                rows.append((number, record["query_id"], repeat, measure, number_))
    if not rows:
        raise SchemaError(f"{name}: no score column (retrieval_score_*, generation_score_*).")
    frame = pd.DataFrame(rows, columns=["_line", "query", "repeat", "measure", "value"])
    frame["system"] = system
    if frame["repeat"].nunique() == 1:
        frame = frame.drop(columns="repeat")
    return frame


def _leaderboard_candidates(text: str) -> list[str]:
    """The whitespace leaderboard formats a 4-column file may be: the column holding the
    summary query ``all`` tells them apart."""
    rows = [line.split() for line in text.splitlines()[:5000] if line.strip()]
    if not rows or {len(r) for r in rows} != {4}:
        return []
    with_all = {i for r in rows for i, field in enumerate(r) if field == SUMMARY}
    fits = []
    for fmt, columns in LEADERBOARD_COLUMNS.items():
        if with_all and with_all == {columns.index("query")}:
            fits.append(fmt)
    return fits or list(LEADERBOARD_COLUMNS)


def _sniff_scores(text: str, name: str) -> str:
    first = text.lstrip().split("\n", 1)[0]
    record = _first_record(text)
    if record is not None:
        if set(NUGGETIZER_METRICS) <= set(record):
            return "nuggetizer"
        if {"run_id", "topic_id", "measure", "value"} <= set(record):
            return "autojudge_jsonl"
    elif first.startswith("query_id,") or ",query_id," in first:
        return "open_rag_eval"
    else:
        fits = _leaderboard_candidates(text)
        if len(fits) == 1:
            return fits[0]
        if fits:
            raise SchemaError(
                f"{name}: this leaderboard could be {' or '.join(repr(f) for f in fits)} (4 "
                "columns, no 'all' summary rows to tell where the query is). Pass format= one "
                f"of {', '.join(repr(f) for f in fits)}."
            )
    raise SchemaError(
        f"{name}: cannot tell which scores format this file is (first line {first[:100]!r}). "
        f"Pass format= one of {', '.join(repr(f) for f in RAG_SCORES_FORMATS)}."
    )


def _values(frame: pd.DataFrame, name: str) -> np.ndarray:
    """The values as float64; AutoJudge's booleans (``True`` / ``False``) read as 1 / 0."""
    raw = frame["value"].to_numpy(dtype=object)
    out = np.empty(len(raw), dtype=np.float64)
    for i, v in enumerate(raw):  # per row: the cells are text or JSON numbers
        if isinstance(v, bool):
            out[i] = float(v)
            continue
        if isinstance(v, str) and v.strip() in ("True", "False"):
            out[i] = 1.0 if v.strip() == "True" else 0.0
            continue
        try:
            out[i] = np.nan if v is None else float(v)
        except (TypeError, ValueError):
            raise SchemaError(
                f"{name}, line {frame['_line'].iloc[i]}: value {v!r} of measure "
                f"{frame['measure'].iloc[i]!r} is not a number."
            ) from None
    return out


def read_rag_scores(
    path: PathArg,
    format: RagScoresFormat | None = None,
    *,
    system: str | None = None,
    all_rows: Literal["drop", "keep"] = "drop",
) -> pd.DataFrame:
    """Read the per-query scores of a RAG evaluation tool (nuggetizer, AutoJudge, open-rag-eval)
    as a scores frame.

    Formats (``format=``; None sniffs it when only one format fits):

    * ``"nuggetizer"`` — ``nuggetizer metrics`` output (JSONL): per answer ``qid``,
      ``strict_vital_score``, ``strict_all_score``, ``vital_score``, ``all_score``, then the
      means (``qid`` ``all``). The file names no run: the system is ``system=`` or the file
      name, and a query twice in one file is an error.
    * AutoJudge leaderboards (``Leaderboard.write`` / ``load`` of TREC AutoJudge), whitespace
      separated: ``"autojudge_tot"`` (``run measure topic value``), ``"autojudge_ir_measures"``
      (``run topic measure value``), ``"autojudge_rag4reports"`` (``topic run measure
      value``), and ``"autojudge_jsonl"`` (records ``run_id, topic_id, measure, value``).
      The 4-column formats are told apart by the column of the ``all`` summary rows
      AutoJudge writes; without them pass ``format=``. ``True`` / ``False`` values read as
      1 / 0. (Its 3-column ``trec_eval`` format is :func:`pdireval.read_scores`'.)
    * ``"open_rag_eval"`` — vectara/open-rag-eval's TREC evaluator results CSV (one row per
      query, JSON cells): ``mean_umbrela_score``, ``mean_nugget_assignment_score``,
      ``vital_nuggetizer_score``, ``hallucination_score``, ``citation_f1_score``; the
      AutoNuggetizer scores ``nugget_all``, ``nugget_all_strict``, ``nugget_vital``,
      ``nugget_vital_strict``, ``nugget_weighted``, ``nugget_weighted_strict``;
      ``citation_weighted_precision`` / ``_recall``; the UMBRELA-based ``precision@k``,
      ``AP@k``, ``MRR``; ``query_answered`` (1 / 0). Per-passage and per-citation numbers are
      left out. With several answers per query (``run_1_``, ``run_2_`` column prefixes) a
      ``repeat`` column (1, 2, ...) tells them apart; it is a grouping column of the scores
      frame. The system is ``system=`` or the file name.

    Measure names are kept as the tools write them.

    Parameters
    ----------
    path
        The file (plain or ``.gz``).
    format
        One of ``RAG_SCORES_FORMATS``, or None to sniff it.
    system
        The system of every row; by default the file's run ids, or the file name without
        folders and suffixes when the format names no run.
    all_rows
        ``"drop"`` (default): summary rows (query ``all``) are left out; ``"keep"``: kept.

    Returns
    -------
    DataFrame
        A scores frame: ``system``, ``query``, ``measure`` (ids), ``value`` (float64), and
        ``repeat`` for open-rag-eval files of several answers per query; in file order.

    Raises
    ------
    SchemaError
        A missing, undecodable or malformed file (its line named), a format that cannot be
        told, a non-numeric value, or a nuggetizer metrics file holding a query twice.
    """
    if format is not None:
        check_option("format", format, RAG_SCORES_FORMATS)
    check_option("all_rows", all_rows, ("drop", "keep"))
    text, name = _read_text(path, "scores")
    fmt = format or _sniff_scores(text, name)
    if fmt == "nuggetizer":
        frame = _scores_from_nuggetizer(text, name, system or _stem(name))
    elif fmt == "autojudge_jsonl":
        frame = _scores_from_autojudge_jsonl(text, name)
    elif fmt == "open_rag_eval":
        frame = _scores_from_open_rag_eval(text, name, system or _stem(name))
    else:
        frame = _scores_from_leaderboard(text, name, fmt)
    if system is not None:
        frame["system"] = system
    frame["value"] = _values(frame, name)
    if all_rows == "drop":
        frame = frame[frame["query"].astype(str) != SUMMARY]
        if frame.empty:
            raise SchemaError(
                f"{name}: the file holds only summary rows (query 'all'); pass all_rows='keep' "
                "to read them (the meta-evaluation functions need per-query values)."
            )
    columns = ["system", "query", "measure", "value"]
    extra = ["repeat"] if "repeat" in frame.columns else []
    out = frame[columns + extra].reset_index(drop=True)
    for column in ("system", "query", "measure"):
        out[column] = _ids(out[column])
    return out


# --------------------------------------------------------------------------- writing


def _target(path, what: str) -> Path:
    target = as_path(path, what)
    if target.is_dir():
        raise OptionError(f"the {what} path {str(target)!r} is a folder; give a file name.")
    return target


def _write_text(target: Path, text: str) -> None:
    if target.name.endswith(".gz"):
        with gzip.open(target, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        target.write_text(text, encoding="utf-8")


def _plain(value):
    """A frame cell as a JSON value (numpy scalars as Python ones, missing as None)."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


def _jsonl(records) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def _positions(nuggets: pd.DataFrame, what: str) -> None:
    """nuggetizer's files identify nuggets by their position: the ids must be 0, 1, 2, ..."""
    order = nuggets.groupby("query", sort=False).cumcount().astype(str)
    wrong = order.to_numpy() != nuggets["nugget"].astype(str).to_numpy()
    if wrong.any():
        row = nuggets[wrong].iloc[0]
        raise SchemaError(
            f"{what} in nuggetizer's format identify a nugget by its position in the query's "
            f"list, but nugget {row['nugget']!r} of query {row['query']!r} is not at position "
            "its id says (ids 0, 1, 2, ... in order). Renumber the nuggets (and assignments), "
            "or write format='table'."
        )


def write_nuggets(
    nuggets: pd.DataFrame, path: PathArg, *, format: NuggetsWriteFormat = "nuggetizer"
) -> None:
    """Write a nuggets frame as nuggetizer's JSONL (``nuggetizer create`` output) or a TSV table.

    ``"nuggetizer"`` writes one record per query, ``{"qid", "nuggets": [{"text",
    "importance"}]}`` (plus ``query`` when the frame has a ``query_text`` column), nuggets in
    the frame's order; nuggetizer identifies a nugget by its position, so the frame's nugget
    ids must be ``0, 1, 2, ...`` per query (as :func:`read_nuggets` gives them for its
    files). ``"table"`` writes every column as a tab-separated table with a header, which
    :func:`read_nuggets` reads back (ids, groups and numeric weights included).

    Parameters
    ----------
    nuggets
        A nuggets frame.
    path
        Output file (``.gz`` compresses).
    format
        ``"nuggetizer"`` or ``"table"``.

    Raises
    ------
    SchemaError
        An invalid nuggets frame, or (``"nuggetizer"``) nugget ids that are not positions or
        groups, which nuggetizer's format cannot hold.
    OptionError
        An unknown format, or a folder as path.
    """
    from pdireval.rag import frames

    check_option("format", format, ("nuggetizer", "table"))
    frame = frames.validate_nuggets(nuggets)
    target = _target(path, "nuggets")
    if format == "table":
        _write_text(target, frame.to_csv(sep="\t", index=False, lineterminator="\n"))
        return
    if "group" in frame.columns and frame["group"].notna().any():
        raise SchemaError(
            "nuggetizer's nugget format has no AND / OR groups; write format='table'."
        )
    _positions(frame, "nuggets")
    records = []
    for query, block in frame.groupby("query", sort=False):
        texts = block["text"] if "text" in block.columns else pd.Series([""] * len(block))
        items = [
            {"text": _plain(t) or "", "importance": _plain(i)}
            for t, i in zip(texts, block["importance"])
        ]
        records.append({"qid": str(query), "nuggets": items})
    _write_text(target, _jsonl(records))


def write_assignments(
    assignments: pd.DataFrame,
    path: PathArg,
    *,
    nuggets: pd.DataFrame | None = None,
    format: AssignmentsFormat = "nuggetizer",
) -> None:
    """Write an assignments frame as nuggetizer's ``assign`` output (the TREC RAG NIST format)
    or a TSV table.

    ``"nuggetizer"`` writes one record per (system, query) answer, ``{"qid", "run_id",
    "nuggets": [{"text", "importance", "assignment"}]}``, the nuggets in the order of
    ``nuggets`` (required: the records carry each nugget's text and importance; ids must be
    positions ``0, 1, 2, ...``); labels are written as nuggetizer's words (1 / 0.5 / 0 as
    ``support`` / ``partial_support`` / ``not_support``). ``nuggetizer metrics`` and
    :func:`read_assignments` read the file. ``"table"`` writes the frame as a tab-separated
    table with a header.

    Parameters
    ----------
    assignments
        An assignments frame (one judge: write one file per judge).
    path
        Output file (``.gz`` compresses).
    nuggets
        The nuggets frame (``"nuggetizer"`` only).
    format
        ``"nuggetizer"`` or ``"table"``.

    Raises
    ------
    SchemaError
        Invalid frames, several judges in nuggetizer's format, an answer lacking some of its
        query's nuggets, or nugget ids that are not positions.
    OptionError
        An unknown format, a folder as path, or no ``nuggets`` for ``"nuggetizer"``.
    """
    from pdireval.rag import frames

    check_option("format", format, ASSIGNMENTS_FORMATS)
    frame = frames.validate_assignments(assignments)
    target = _target(path, "assignments")
    if format == "table":
        _write_text(target, frame.to_csv(sep="\t", index=False, lineterminator="\n"))
        return
    if nuggets is None:
        raise OptionError(
            "write_assignments(format='nuggetizer') needs nuggets=: each record carries its "
            "nuggets' texts and importance."
        )
    if "judge" in frame.columns and frame["judge"].nunique() > 1:
        raise SchemaError(
            f"the assignments hold {frame['judge'].nunique()} judges; nuggetizer's format "
            "holds one: write one file per judge (frame[frame.judge == name])."
        )
    table = frames.validate_nuggets(nuggets)
    _positions(table, "assignments")
    words = {1.0: "support", 0.5: "partial_support", 0.0: "not_support"}
    label = frame["label"].map(lambda v: words.get(v, v) if not isinstance(v, str) else v)
    merged = frame.assign(label=label).merge(
        table.assign(_order=np.arange(len(table))), on=["query", "nugget"], how="left"
    )
    counts = merged.groupby(["system", "query"], sort=False)["nugget"].size()
    expected = table.groupby("query")["nugget"].size()
    short = counts[
        counts.to_numpy() != expected.reindex(counts.index.get_level_values(1)).to_numpy()
    ]
    if len(short):
        system, query = short.index[0]
        raise SchemaError(
            f"the answer of system {system!r} to query {query!r} has {short.iloc[0]} "
            f"assignments for the query's {expected.get(query, 0)} nuggets; nuggetizer's records "
            "list every nugget of the query (write format='table' for partial assignments)."
        )
    merged = merged.sort_values(["_order"], kind="stable")
    records = []
    order = pd.unique(pd.Series(list(zip(frame["system"], frame["query"]))))
    blocks = dict(list(merged.groupby(["system", "query"], sort=False)))
    for system, query in order:
        block = blocks[(system, query)]
        texts = block["text"] if "text" in block.columns else [""] * len(block)
        items = [
            {"text": _plain(t) or "", "importance": _plain(i), "assignment": a}
            for t, i, a in zip(texts, block["importance"], block["label"])
        ]
        records.append({"qid": str(query), "run_id": str(system), "nuggets": items})
    _write_text(target, _jsonl(records))


def write_support(
    support: pd.DataFrame, path: PathArg, *, format: SupportFormat = "trec_rag"
) -> None:
    """Write a support frame as the TREC RAG NIST citation judgments JSONL or a TSV table.

    ``"trec_rag"`` writes one record per (system, query) answer, ``{"topic_id", "run_id",
    "sentences": [{"sentenceID", "citations": [{"citationID", "reference", "support"}]}]}``
    with NIST's grades (2 full, 1 partial, 0 no support); an uncited sentence gets an empty
    ``citations`` list; sentences and citations keep the frame's order. The sentence texts
    are not in a support frame and are left out. ``"table"`` writes the frame as a
    tab-separated table with a header. :func:`read_support` reads both back.

    Parameters
    ----------
    support
        A support frame (one judge for ``"trec_rag"``).
    path
        Output file (``.gz`` compresses).
    format
        ``"trec_rag"`` or ``"table"``.

    Raises
    ------
    SchemaError
        An invalid support frame, or several judges in NIST's format.
    OptionError
        An unknown format, or a folder as path.
    """
    from pdireval.rag import frames

    check_option("format", format, SUPPORT_FORMATS)
    frame = frames.validate_support(support)
    target = _target(path, "support")
    if format == "table":
        _write_text(target, frame.to_csv(sep="\t", index=False, lineterminator="\n"))
        return
    if "judge" in frame.columns and frame["judge"].nunique() > 1:
        raise SchemaError(
            f"the support frame holds {frame['judge'].nunique()} judges; NIST's format holds "
            "one: write one file per judge."
        )
    records = []
    for (system, query), block in frame.groupby(["system", "query"], sort=False):
        sentences = []
        for sentence, rows in block.groupby("sentence", sort=False):
            citations = [
                {"citationID": i, "reference": str(doc), "support": str(GRADE_OF[_plain(lab)])}
                for i, (doc, lab) in enumerate(
                    (d, lab) for d, lab in zip(rows["doc"], rows["label"]) if not pd.isna(d)
                )
            ]
            sentences.append({"sentenceID": _sentence_id(sentence), "citations": citations})
        records.append({"topic_id": str(query), "run_id": str(system), "sentences": sentences})
    _write_text(target, _jsonl(records))


def _sentence_id(value):
    text = str(value)
    return int(text) if text.isdigit() else text


def write_rag_scores(
    scores: pd.DataFrame,
    path: PathArg,
    *,
    format: RagScoresWriteFormat = "autojudge_tot",
    all_rows: Literal["add", "none"] = "add",
) -> None:
    """Write a scores frame as an AutoJudge leaderboard or as ``nuggetizer metrics`` output.

    The AutoJudge formats are those :func:`read_rag_scores` reads (``"autojudge_tot"``,
    ``"autojudge_ir_measures"``, ``"autojudge_rag4reports"``: tab-separated, values written
    with ``repr`` precision; ``"autojudge_jsonl"``); with ``all_rows="add"`` each system's
    mean over its queries follows as query ``all``, as AutoJudge's builder writes it.
    ``"nuggetizer"`` writes one system's four nugget scores per query (measures named
    ``strict_vital_score``, ``strict_all_score``, ``vital_score``, ``all_score``) and, with
    ``all_rows="add"``, the means record ``{"qid": "all", ...}``.

    Parameters
    ----------
    scores
        A scores frame without grouping columns.
    path
        Output file (``.gz`` compresses).
    format
        One of ``RAG_SCORES_WRITE_FORMATS``.
    all_rows
        ``"add"`` (default): the means as query ``all``; ``"none"``: per-query rows only.

    Raises
    ------
    SchemaError
        An invalid scores frame, grouping columns, or (``"nuggetizer"``) several systems or a
        measure other than nuggetizer's four.
    OptionError
        An unknown format or a folder as path.
    """
    from pdireval.core.schema import canonical_scores

    check_option("format", format, RAG_SCORES_WRITE_FORMATS)
    check_option("all_rows", all_rows, ("add", "none"))
    frame = canonical_scores(scores)
    extra = [c for c in frame.columns if c not in ("system", "query", "measure", "value")]
    if extra:
        raise SchemaError(
            f"the scores frame has grouping columns {extra}; a leaderboard holds one value per "
            "(system, query, measure): write one group at a time."
        )
    target = _target(path, "scores")
    means = frame.groupby(["system", "measure"], sort=False)["value"].mean().reset_index()
    means.insert(1, "query", SUMMARY)
    if format == "nuggetizer":
        if frame["system"].nunique() > 1:
            raise SchemaError(
                "nuggetizer's metrics output holds one run: write one file per system."
            )
        other = sorted(set(frame["measure"].astype(str)) - set(NUGGETIZER_METRICS))
        if other:
            raise SchemaError(
                f"nuggetizer's metrics output holds {', '.join(NUGGETIZER_METRICS)}; the "
                f"frame also has {other}."
            )
        wide = frame.pivot_table(
            index="query", columns="measure", values="value", aggfunc="first", sort=False
        )
        wide.columns = wide.columns.astype(str)
        records = [
            {"qid": str(q), **{m: _plain(row.get(m)) for m in NUGGETIZER_METRICS}}
            for q, row in wide.iterrows()
        ]
        if all_rows == "add":
            records.append(
                {
                    "qid": SUMMARY,
                    **{m: _plain(wide[m].mean()) for m in NUGGETIZER_METRICS if m in wide},
                }
            )
        _write_text(target, _jsonl(records))
        return
    both = pd.concat([frame, means], ignore_index=True) if all_rows == "add" else frame
    if format == "autojudge_jsonl":
        records = [
            {"run_id": str(s), "topic_id": str(q), "measure": str(m), "value": _plain(v)}
            for s, q, m, v in zip(both["system"], both["query"], both["measure"], both["value"])
        ]
        _write_text(target, _jsonl(records))
        return
    columns = list(LEADERBOARD_COLUMNS[format])
    out = both.assign(value=[repr(float(v)) for v in both["value"]])[columns]
    text = out.to_csv(
        sep="\t", header=False, index=False, lineterminator="\n", quoting=csv.QUOTE_NONE
    )
    _write_text(target, text)
