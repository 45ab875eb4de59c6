"""The files of RAG evaluation tools, read into pdireval's frames and written from them.

=====================  ==================================================================
reader                 formats (``format=``; None sniffs it when only one fits)
=====================  ==================================================================
:func:`read_nuggets`   ``"nuggetizer"``: castorini/nuggetizer's JSONL (``create`` output, or
                       the nuggets embedded in its ``assign`` output and in the TREC 2024
                       RAG NIST assignment files); ``"nuggetbank"``: TREC AutoJudge
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

import hashlib
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.errors import SchemaError, check_option
from pdireval.io.files import as_path
from pdireval.rag.file_text import (
    ASSIGNMENTS_FORMATS,
    NUGGETS_FORMATS,
    SUPPORT_FORMATS,
    SUPPORT_GRADES,
    SUPPORT_LETTERS,
    AssignmentsFormat,
    NuggetsFormat,
    SupportFormat,
    as_id_series,
    get_field,
    is_blank,
    is_nuggetbank,
    is_nuggetizer,
    is_table,
    is_trec_rag_support,
    json_records,
    list_field,
    query_of,
    read_table,
    read_text,
    refuse_blank,
    require_table_columns,
    sniff_format,
    table_header,
)

if TYPE_CHECKING:
    from pdireval.types import PathArg

__all__ = ["read_nuggets", "read_assignments", "read_support"]


def _nuggets_from_nuggetizer(text: str, name: str) -> pd.DataFrame:
    """Each record's ``nuggets`` list (``text``, ``importance``); a nugget's id is its position
    in the list (0-based), as the TREC RAG files and nuggetizer's ``assign`` output keep it."""
    queries, nuggets, texts, importance, lines = [], [], [], [], []
    for number, record in json_records(text, name):
        query = query_of(record, name, number)
        items = list_field(record, "nuggets", name, number)
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


def _one_nugget_list(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """The nuggets of a file that repeats each query's list (once per answer): the lists must
    agree, position by position."""
    if frame.empty:
        raise SchemaError(f"{name}: the file holds no nugget.")
    frame = frame.assign(query=as_id_series(frame["query"]), nugget=as_id_series(frame["nugget"]))
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
    frame = read_table(text, name)
    require_table_columns(frame, ("query", "nugget"), name, "nuggets")
    refuse_blank(frame, ("query", "nugget"), name, "nuggets")
    keep = [
        c for c in ("query", "nugget", "importance", "text", "group", "rule") if c in frame.columns
    ]
    out = frame[["_line", *keep]].copy()
    for column in ("text", "group", "rule"):
        if column in out.columns:
            out[column] = out[column].map(lambda v: None if is_blank(v) else v)
    if "importance" not in out.columns:
        out["importance"] = None
    else:
        out["importance"] = out["importance"].mask(out["importance"] == "")
    return out


def _nuggets_from_nuggetbank(text: str, name: str) -> pd.DataFrame:
    """NuggetBank v3 (TREC AutoJudge): one bank per query; ``nugget_bank`` (questions) and
    ``claim_bank`` (claims); a nugget with ``sub_nuggets`` becomes a group of its sub-nuggets
    combined by its ``aggregator_type`` (AND / OR)."""
    rows: list[dict] = []
    for number, bank in json_records(text, name):
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
    frame["query"] = as_id_series(frame["query"])
    frame["nugget"] = as_id_series(frame["nugget"])
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
      (its ``assign`` output, which is also the format of the TREC 2024 RAG NIST nugget
      assignment files: ``qid``, ``run_id``, ``nuggets: [{text, importance, assignment}]``;
      the 2025 track judged with the same AutoNuggetizer framework; no 2025 file was at hand
      to check).
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
        The file (plain or ``.gz``), or a folder of such files (AutoJudge's layout of one
        NuggetBank per query, ``<query>.json.gz``): its ``.json``, ``.jsonl`` and ``.gz``
        files, in name order, each sniffed on its own unless ``format`` is given.
    format
        One of ``NUGGETS_FORMATS``, or None to sniff it.
    importance
        The importance of nuggets whose file gives none (NuggetBank nuggets often have
        none): ``"vital"``, ``"okay"`` or a weight. None (default) leaves it missing, which
        the nuggets frame's validation refuses, naming the nuggets.

    Returns
    -------
    DataFrame
        The canonical nuggets frame of :func:`pdireval.validate_nuggets`: ``query``,
        ``nugget`` (strings), ``importance`` (``'vital'`` / ``'okay'``, or float64 weights),
        ``text``, and ``group`` / ``rule`` when the file has groups; in its order (query, then
        nugget, natural order).

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
    folder = as_path(path, "nuggets")
    if folder.is_dir():  # AutoJudge's "directory" layout: one bank file per query
        files = sorted(
            p
            for p in folder.iterdir()
            if p.is_file() and p.name.endswith(BANK_SUFFIXES) and not p.name.startswith(".")
        )
        if not files:
            raise SchemaError(
                f"{folder}: the folder holds no nuggets file ({', '.join(BANK_SUFFIXES)})."
            )
        frame = pd.concat([_nugget_rows(p, format) for p in files], ignore_index=True)
        name = str(folder)
    else:
        frame = _nugget_rows(path, format)
        name = str(folder)
    if importance is not None:
        frame["importance"] = frame["importance"].where(frame["importance"].notna(), importance)
    columns = ["query", "nugget", "importance", "text"]
    if "group" in frame.columns and frame["group"].notna().any():
        columns += ["group", "rule"]
    out = frame[[c for c in columns if c in frame.columns]].reset_index(drop=True)
    return _validated("nuggets", out, name)


#: the files of a folder of nugget banks (AutoJudge writes ``<query>.json.gz``)
BANK_SUFFIXES = (".json", ".json.gz", ".jsonl", ".jsonl.gz")


def _nugget_rows(path, format) -> pd.DataFrame:
    """The nugget rows of one file (its format given or sniffed), not yet validated."""
    text, name = read_text(path, "nuggets")
    fmt = format or sniff_format(
        text,
        name,
        {"nuggetizer": is_nuggetizer, "nuggetbank": is_nuggetbank, "table": is_table},
        "nuggets",
        NUGGETS_FORMATS,
    )
    reader = {
        "nuggetizer": _nuggets_from_nuggetizer,
        "nuggetbank": _nuggets_from_nuggetbank,
        "table": _nuggets_from_table,
    }[fmt]
    return reader(text, name)


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


def _assignments_from_nuggetizer(text: str, name: str, system: str | None) -> pd.DataFrame:
    """One record per answer (``qid``, ``run_id``, ``nuggets: [{..., assignment}]``)."""
    systems, queries, nuggets, labels, lines = [], [], [], [], []
    default = system if system is not None else None
    for number, record in json_records(text, name):
        query = query_of(record, name, number)
        items = list_field(record, "nuggets", name, number)
        for position, item in enumerate(items):
            if not isinstance(item, dict) or "assignment" not in item:
                raise SchemaError(
                    f"{name}, line {number}: nugget {position} of the answer record has no "
                    f"'assignment' (a nuggets file, not an assignments file?): "
                    f"{str(item)[:100]!r}."
                )
        run = default if default is not None else get_field(record, "system", name, number, False)
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
            "system": as_id_series(systems),
            "query": as_id_series(queries),
            "nugget": as_id_series(nuggets),
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


def _judged_table(text: str, name: str, system, required: tuple, not_blank: tuple, kind: str):
    """The ``_line`` and ``required`` columns of a table of judgments (one label column per
    judge read in long form, with its ``judge`` column), ``system`` on every row when given;
    a missing column, or a blank in a ``not_blank`` one, is an error."""
    frame = _judge_columns(read_table(text, name), name)
    if system is not None:
        frame["system"] = system
    require_table_columns(frame, required, name, kind)
    refuse_blank(frame, not_blank, name, kind)
    out = frame[["_line", *required]].copy()
    if "judge" in frame.columns:
        out["judge"] = frame["judge"]
    return out


def _assignments_from_table(text: str, name: str, system: str | None) -> pd.DataFrame:
    required = ("system", "query", "nugget", "label")
    out = _judged_table(text, name, system, required, required, "assignments")
    out["label"] = out["label"].mask(out["label"] == "")  # read by the frame's validation
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
      the TREC 2024 RAG NIST nugget assignment files (``nugget_assignment.*.jsonl``):
      one record per answer with ``qid``, ``run_id`` and ``nuggets: [{text, importance,
      assignment}]``. The nugget ids are the positions in the list (read the nuggets of the
      same file with :func:`read_nuggets`).
    * ``"table"`` — one assignment a row: TSV, CSV or flat JSONL with ``system, query, nugget,
      label[, judge]`` or the tools' spellings (``run_id``, ``qid``, ``nugget_id``,
      ``assignment``). A table with one label column per judge (``human_label``,
      ``llm_label``) and no ``label`` column is read in long form, with ``judge`` = the
      column's prefix.

    Labels (``support`` / ``partial_support`` / ``not_support``, or 1 / 0.5 / 0) are read
    into the numbers 1 / 0.5 / 0 by the frame's validation, which refuses any other.

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
        The canonical assignments frame of :func:`pdireval.validate_assignments`:
        ``system``, ``query``, ``nugget`` (strings), ``label`` (float64: 1, 0.5, 0) and
        ``judge`` when given; in its order.

    Raises
    ------
    SchemaError
        A missing, undecodable or malformed file (its line named), a record without run id
        (and no ``system=``), a format that cannot be told, or an invalid assignments frame.
    """
    readers = {"nuggetizer": _assignments_from_nuggetizer, "table": _assignments_from_table}
    sniffers = {"nuggetizer": is_nuggetizer, "table": is_table}
    kind = ("assignments", ASSIGNMENTS_FORMATS)
    frame, name = _judged_rows(path, format, kind, readers, sniffers, system, judge)
    return _judged_frame("assignments", frame, ["system", "query", "nugget", "label"], name)


def _judged_rows(path, format, kind: tuple, readers: dict, sniffers: dict, system, judge):
    """(rows, file name) of an assignments or support file, ``kind`` = (what it holds, its
    formats): the format given or sniffed by ``sniffers``, read by its reader in ``readers``,
    ``judge`` on every row when given; not yet validated."""
    what, formats = kind
    if format is not None:
        check_option("format", format, formats)
    text, name = read_text(path, what)
    fmt = format or sniff_format(text, name, sniffers, what, formats)
    frame = readers[fmt](text, name, system)
    if judge is not None:
        frame["judge"] = str(judge)
    return frame, name


def _judged_frame(kind: str, frame: pd.DataFrame, columns: list, name: str) -> pd.DataFrame:
    """The frame's ``columns`` (and ``judge`` when it has one), validated as ``kind``."""
    if "judge" in frame.columns:
        columns = [*columns, "judge"]
    return _validated(kind, frame[columns].reset_index(drop=True), name)


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
    for number, record in json_records(text, name):
        query = query_of(record, name, number)
        run = system if system is not None else get_field(record, "system", name, number, False)
        if run is None:
            raise SchemaError(
                f"{name}, line {number}: the answer record has no run_id; pass system=."
            )
        for position, sentence in enumerate(list_field(record, "sentences", name, number)):
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
    header = table_header(text)
    grades = "support" in header and "label" not in header  # NIST's grades 0 / 1 / 2
    required = ("system", "query", "sentence", "doc", "label")
    out = _judged_table(text, name, system, required, required[:3], "support")
    # each distinct label is read once (the first line holding it names a bad one)
    codes, uniques = pd.factorize(out["label"].astype(object), use_na_sentinel=True)
    first = pd.Series(out["_line"].to_numpy()).groupby(codes).first()
    if grades:
        words = [
            None if is_blank(v) else _support_label(v, name, int(first[i]))
            for i, v in enumerate(uniques)
        ]
    else:
        words = [
            None if is_blank(v) else SUPPORT_LETTERS.get(str(v).strip().upper(), v) for v in uniques
        ]
    table = np.array(words + [None], dtype=object)
    out["label"] = table[np.where(codes < 0, len(words), codes)]
    return out


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
        The canonical support frame of :func:`pdireval.validate_support`: ``system``,
        ``query``, ``sentence``, ``doc`` (strings; missing for an uncited sentence),
        ``label`` (float64: 1 full, 0.5 partial, 0 no support; NaN for an uncited sentence)
        and ``judge`` when given; in its order.

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
    readers = {"trec_rag": _support_from_trec_rag, "table": _support_from_table}
    sniffers = {"trec_rag": is_trec_rag_support, "table": is_table}
    kind = ("support", SUPPORT_FORMATS)
    frame, name = _judged_rows(path, format, kind, readers, sniffers, system, judge)
    frame["doc"] = frame["doc"].mask(frame["doc"].isna() | (frame["doc"].astype(str) == ""))
    return _judged_frame("support", frame, ["system", "query", "sentence", "doc", "label"], name)
