"""The per-query scores of RAG evaluation tools read as scores frames, and scores frames written
in their formats: :func:`read_rag_scores`, :func:`write_rag_scores` (nuggetizer's metrics, TREC
AutoJudge's leaderboards, vectara/open-rag-eval's results CSV)."""

from __future__ import annotations

import csv
import io
import json
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from pdireval.core.schema import canonical_scores
from pdireval.errors import SchemaError, check_option
from pdireval.rag.file_text import (
    as_id_series,
    file_stem,
    first_record,
    json_records,
    json_value,
    jsonl_text,
    output_path,
    query_of,
    read_text,
    write_text,
)

if TYPE_CHECKING:
    from pdireval.types import PathArg

__all__ = ["read_rag_scores", "write_rag_scores", "RAG_SCORES_FORMATS", "RAG_SCORES_WRITE_FORMATS"]


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


def _scores_from_nuggetizer(text: str, name: str, system: str) -> pd.DataFrame:
    """``nuggetizer metrics`` output: one record per answer (``qid`` and the four scores),
    then the means (``qid`` ``all``); the file names no run."""
    queries, measures, values, lines = [], [], [], []
    for number, record in json_records(text, name):
        query = query_of(record, name, number)
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
    for number, record in json_records(text, name):
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
    record = first_record(text)
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
        A canonical scores frame (as :func:`pdireval.read_scores` gives): ``system``,
        ``query``, ``measure`` (strings), ``value`` (float64), and ``repeat`` (int) for
        open-rag-eval files of several answers per query; in file order.

    Raises
    ------
    SchemaError
        A missing, undecodable or malformed file (its line named), a format that cannot be
        told, a non-numeric value, or a nuggetizer metrics file holding a query twice.
    """
    if format is not None:
        check_option("format", format, RAG_SCORES_FORMATS)
    check_option("all_rows", all_rows, ("drop", "keep"))
    text, name = read_text(path, "scores")
    fmt = format or _sniff_scores(text, name)
    if fmt == "nuggetizer":
        frame = _scores_from_nuggetizer(text, name, system or file_stem(name))
    elif fmt == "autojudge_jsonl":
        frame = _scores_from_autojudge_jsonl(text, name)
    elif fmt == "open_rag_eval":
        frame = _scores_from_open_rag_eval(text, name, system or file_stem(name))
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
        out[column] = as_id_series(out[column])
    try:
        return canonical_scores(out)
    except SchemaError as exc:  # e.g. a (system, query, measure) twice
        raise SchemaError(f"{name}: {exc}", getattr(exc, "failure_cases", None)) from None


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
    check_option("format", format, RAG_SCORES_WRITE_FORMATS)
    check_option("all_rows", all_rows, ("add", "none"))
    frame = canonical_scores(scores)
    extra = [c for c in frame.columns if c not in ("system", "query", "measure", "value")]
    if extra:
        raise SchemaError(
            f"the scores frame has grouping columns {extra}; a leaderboard holds one value per "
            "(system, query, measure): write one group at a time."
        )
    target = output_path(path, "scores")
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
            {"qid": str(q), **{m: json_value(row.get(m)) for m in NUGGETIZER_METRICS}}
            for q, row in wide.iterrows()
        ]
        if all_rows == "add":
            records.append(
                {
                    "qid": SUMMARY,
                    **{m: json_value(wide[m].mean()) for m in NUGGETIZER_METRICS if m in wide},
                }
            )
        write_text(target, jsonl_text(records))
        return
    both = pd.concat([frame, means], ignore_index=True) if all_rows == "add" else frame
    if format == "autojudge_jsonl":
        records = [
            {"run_id": str(s), "topic_id": str(q), "measure": str(m), "value": json_value(v)}
            for s, q, m, v in zip(both["system"], both["query"], both["measure"], both["value"])
        ]
        write_text(target, jsonl_text(records))
        return
    columns = list(LEADERBOARD_COLUMNS[format])
    out = both.assign(value=[repr(float(v)) for v in both["value"]])[columns]
    text = out.to_csv(
        sep="\t", header=False, index=False, lineterminator="\n", quoting=csv.QUOTE_NONE
    )
    write_text(target, text)
