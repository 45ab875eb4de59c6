"""Nuggets, assignments and support frames written in the tools' formats: nuggetizer's JSONL,
the TREC RAG NIST citation judgments, and tab-separated tables (:func:`write_nuggets`,
:func:`write_assignments`, :func:`write_support`); :mod:`pdireval.rag.file_readers` reads them
back."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.errors import OptionError, SchemaError, check_option
from pdireval.rag.file_text import (
    ASSIGNMENTS_FORMATS,
    GRADE_OF,
    SUPPORT_FORMATS,
    AssignmentsFormat,
    NuggetsWriteFormat,
    SupportFormat,
    json_value,
    jsonl_text,
    output_path,
    write_text,
)

if TYPE_CHECKING:
    from pdireval.types import PathArg

__all__ = ["write_nuggets", "write_assignments", "write_support"]


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
    target = output_path(path, "nuggets")
    if format == "table":
        write_text(target, frame.to_csv(sep="\t", index=False, lineterminator="\n"))
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
            {"text": json_value(t) or "", "importance": json_value(i)}
            for t, i in zip(texts, block["importance"])
        ]
        records.append({"qid": str(query), "nuggets": items})
    write_text(target, jsonl_text(records))


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
    target = output_path(path, "assignments")
    if format == "table":
        write_text(target, frame.to_csv(sep="\t", index=False, lineterminator="\n"))
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
            {"text": json_value(t) or "", "importance": json_value(i), "assignment": a}
            for t, i, a in zip(texts, block["importance"], block["label"])
        ]
        records.append({"qid": str(query), "run_id": str(system), "nuggets": items})
    write_text(target, jsonl_text(records))


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
    target = output_path(path, "support")
    if format == "table":
        write_text(target, frame.to_csv(sep="\t", index=False, lineterminator="\n"))
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
                {"citationID": i, "reference": str(doc), "support": str(GRADE_OF[json_value(lab)])}
                for i, (doc, lab) in enumerate(
                    (d, lab) for d, lab in zip(rows["doc"], rows["label"]) if not pd.isna(d)
                )
            ]
            sentences.append({"sentenceID": _sentence_id(sentence), "citations": citations})
        records.append({"topic_id": str(query), "run_id": str(system), "sentences": sentences})
    write_text(target, jsonl_text(records))


def _sentence_id(value):
    text = str(value)
    return int(text) if text.isdigit() else text
