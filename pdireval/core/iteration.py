"""The TREC ``iteration`` column of a qrels frame read as the subtopic of diversity qrels.

ir_datasets and ir_measures keep the subtopic of a diversity qrels file (TREC Web track,
``query subtopic doc label``) in the column ``iteration`` of their qrels frames, where ad hoc
qrels hold a constant (``0``, ``Q0``). When a measure that reads subtopics is asked for,
:func:`subtopic_columns` maps that column to pdireval's ``subtopic`` as ir_measures does;
the column is left alone when it holds one value per query (ad hoc qrels).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import pandas as pd

from pdireval.core.recognize import SPELLINGS
from pdireval.errors import PdirevalWarning

__all__ = ["ITERATION_COLUMNS", "subtopic_columns"]

#: the names of the iteration column in other tools' qrels frames
ITERATION_COLUMNS = ("iteration", "iter")


def _reads_subtopics(measure) -> bool:
    extra = getattr(measure.definition, "extra", None) or {}
    return extra.get("reads") == "subtopics"


def _query_column(frame: pd.DataFrame, columns: Mapping[str, str]) -> str | None:
    if "query" in columns:
        return columns["query"]
    for name in ("query", *SPELLINGS["qrels"].get("query", ())):
        if name in frame.columns:
            return name
    return None


def subtopic_columns(
    frame: pd.DataFrame, columns: Mapping[str, str] | None, measures
) -> Mapping[str, str] | None:
    """``columns`` with ``{"subtopic": "iteration"}`` added when one of ``measures`` reads
    subtopics (its definition's ``extra["reads"] == "subtopics"``), ``frame`` (qrels, before
    validation) has no subtopic column and its ``iteration`` column holds more than one
    value in some query; else ``columns`` unchanged.

    One :class:`PdirevalWarning` when the reading is ambiguous: the column varies within
    queries but no document is judged under two of its values, as judging rounds would look.
    """
    wanted = next((str(m) for m in measures if _reads_subtopics(m)), None)
    if wanted is None:
        return columns
    given = dict(columns or {})
    if not isinstance(frame, pd.DataFrame) or "subtopic" in given or "subtopic" in frame.columns:
        return columns
    iteration = next((c for c in ITERATION_COLUMNS if c in frame.columns), None)
    query = _query_column(frame, given)
    if iteration is None or query is None or query not in frame.columns:
        return columns
    per_query = frame.groupby(query, sort=False, observed=True)[iteration].nunique()
    if len(per_query) == 0 or per_query.max() <= 1:
        return columns
    doc = given.get("doc") or next(
        (c for c in ("doc", *SPELLINGS["qrels"].get("doc", ())) if c in frame.columns), None
    )
    if doc is not None and not frame.duplicated([query, doc]).any():
        several = per_query[per_query > 1]
        warnings.warn(
            f"{wanted} reads subtopics: the qrels' {iteration!r} column is read as the "
            f"subtopic ({len(several)} queries hold several values, e.g. query "
            f"{several.index[0]!r}: {int(several.iloc[0])}), although no document is judged "
            f"under two of them; pass qrels_columns={{'subtopic': {iteration!r}}} to confirm, "
            f"or drop the column if it is not the subtopic.",
            PdirevalWarning,
            stacklevel=3,
        )
    return {**given, "subtopic": iteration}
