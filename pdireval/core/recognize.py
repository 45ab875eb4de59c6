"""Frames and inputs as users have them: column recognition and input coercion.

pdireval's own names are ``system, query, doc, score, rank, label`` (run), ``query, doc,
label`` (qrels) and ``system, query, measure, value`` (scores). Frames from other tools
use other names; :func:`recognize` maps them without ``columns=``, by these rules (also in
docs/data-model.md):

1. An explicit ``columns={canonical: yours}`` wins, for the names it maps.
2. A column with pdireval's own name is used, except that a ``query`` column beside a
   ``qid``, ``query_id`` or ``q_id`` column is the query *text* (PyTerrier, ir_datasets):
   the id is taken from the other column and the text is ignored.
3. Otherwise the one column among the known spellings is used:

   =========  =============================================================
   canonical  spellings (first wins only where a tie-break is listed)
   =========  =============================================================
   query      ``qid`` (PyTerrier, TREC), ``query_id`` (ir_measures, ir_datasets), ``q_id`` (ranx)
   doc        ``docno`` (PyTerrier, TREC) over ``doc_id`` (ir_measures, ir_datasets, ranx)
              over ``docid`` (PyTerrier's integer index)
   system     ``name`` (PyTerrier), ``run``, ``runid``, ``run_id``, ``tag``
   label      ``relevance`` (ir_measures, ir_datasets), ``rel``; in qrels also ``score``
              (ranx's qrels frames; not in a frame with a rank or system column: a run)
   measure    ``metric``
   =========  =============================================================

   The RAG frames of :mod:`pdireval.rag` add ``topic_id`` (TREC RAG) for the query,
   ``nugget_id``, ``assignment`` (nuggetizer's label), ``sentence_id`` / ``sentence_index``,
   ``reference`` (a TREC RAG citation's document), ``support`` (a citation's label),
   ``judge_id`` / ``assessor`` and ``group_id`` / ``group_rule`` (:data:`SPELLINGS`).

   Two spellings of the same column without a tie-break (``qid`` and ``query_id``, or
   ``name`` and ``run``) are ambiguous: a SchemaError lists them and the ``columns=`` to
   pass.
4. A run, scores, assignments or support frame without any system column holds one
   system, named :data:`DEFAULT_SYSTEM` (``"run"``).

Columns pdireval does not use (``Q0``, ``iter``, ``iteration``, PyTerrier's ``query``
text, ...) are ignored in runs and qrels; in a scores frame, other columns are grouping
keys, so a displaced query-text column is dropped there.

The other inputs users have (a path, a pytrec_eval dict of dicts, an iterable of records)
become frames in :func:`pdireval.io.as_frame`, before the frame reaches this module.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from pdireval.errors import SchemaError

__all__ = ["DEFAULT_SYSTEM", "SPELLINGS", "recognize"]

#: the system name given to a run or scores frame that has no system column
DEFAULT_SYSTEM = "run"

_QUERY_IDS = ("qid", "query_id", "q_id")

#: canonical -> other spellings, by frame kind (order = tie-break where TIE_BREAKS allows)
SPELLINGS: dict[str, dict[str, tuple[str, ...]]] = {
    "run": {
        "system": ("name", "run", "runid", "run_id", "tag"),
        "query": _QUERY_IDS,
        "doc": ("docno", "doc_id", "docid"),
        "score": (),
        "rank": (),
        "label": ("relevance", "rel"),
    },
    "qrels": {
        "query": _QUERY_IDS,
        "doc": ("docno", "doc_id", "docid"),
        "label": ("relevance", "rel", "score"),
    },
    "scores": {
        "system": ("name", "run", "runid", "run_id", "tag"),
        "query": _QUERY_IDS,
        "measure": ("metric",),
        "value": (),
    },
    # RAG frames (pdireval.rag): nuggetizer, TREC RAG 2024/25 and AutoJudge spellings
    "nuggets": {
        "query": _QUERY_IDS + ("topic_id",),
        "nugget": ("nugget_id",),
        "importance": ("nugget_importance",),
        "text": ("nugget_text",),
        "group": ("group_id",),
        "rule": ("group_rule",),
    },
    "assignments": {
        "system": ("name", "run", "runid", "run_id", "tag"),
        "query": _QUERY_IDS + ("topic_id",),
        "nugget": ("nugget_id",),
        "label": ("assignment",),
        "judge": ("judge_id", "assessor"),
        "importance": ("nugget_importance",),
    },
    "support": {
        "system": ("name", "run", "runid", "run_id", "tag"),
        "query": _QUERY_IDS + ("topic_id",),
        "sentence": ("sentence_id", "sentence_index"),
        "doc": ("docno", "doc_id", "docid", "reference"),
        "label": ("support",),
        "judge": ("judge_id", "assessor"),
    },
}

#: frame kinds whose rows belong to systems: without a system column, one system
_SYSTEM_KINDS = ("run", "scores", "assignments", "support")

#: columns only a run has: a qrels frame with one of these is not read as ranx's qrels
_RUN_ONLY = ("rank", "system", "name", "run", "runid", "run_id", "tag")

#: spellings that win over others when both are present (the rest are ambiguous)
TIE_BREAKS = {
    "doc": ("docno", "doc_id", "docid"),
    "label": ("relevance", "rel", "score"),
}


class Recognized:
    """What :func:`recognize` found: ``columns`` {canonical: the frame's column},
    ``drop`` (columns to ignore: a displaced query text), ``add_system`` (no system
    column: one system named :data:`DEFAULT_SYSTEM`)."""

    def __init__(self, columns: dict, drop: list, add_system: bool):
        self.columns = columns
        self.drop = drop
        self.add_system = add_system


def recognize(
    frame: pd.DataFrame, kind: str, columns: Mapping[str, str] | None = None
) -> Recognized:
    """Map a frame's columns to pdireval's names (the rules in this module's docstring).

    Parameters
    ----------
    frame
        A run, qrels or scores frame as the user has it.
    kind
        ``"run"``, ``"qrels"`` or ``"scores"``.
    columns
        The user's explicit ``{canonical: their column}`` mapping (wins), or None.

    Returns
    -------
    Recognized
        The full mapping (explicit entries first), the columns to drop, and whether a
        system column must be added.

    Raises
    ------
    SchemaError
        Two spellings of one column and no rule to choose (the message lists them and
        the ``columns=`` to pass).
    """
    explicit = dict(columns or {})
    present = [str(c) for c in frame.columns]
    taken = set(explicit.values())
    mapping = dict(explicit)
    drop: list[str] = []
    for canonical, spellings in SPELLINGS[kind].items():
        if canonical in explicit:
            continue
        if canonical == "query" and canonical in present and canonical not in taken:
            ids = [s for s in _QUERY_IDS if s in present and s not in taken]
            if ids:  # PyTerrier / ir_datasets: 'query' is the query text beside the id
                if len(ids) > 1:
                    raise _ambiguous(kind, canonical, ids)
                mapping[canonical] = ids[0]
                taken.add(ids[0])
                drop.append("query")
                continue
        if canonical in present and canonical not in taken:
            continue  # already pdireval's name
        found = [s for s in spellings if s in present and s not in taken]
        if (
            kind == "qrels"
            and canonical == "label"
            and "score" in found
            and any(c in present for c in _RUN_ONLY)
        ):
            found.remove("score")  # a run's score is not a label (ranx qrels: q_id, doc_id, score)
        if not found:
            continue
        if len(found) > 1 and canonical not in TIE_BREAKS:
            raise _ambiguous(kind, canonical, found)
        mapping[canonical] = found[0]
        taken.add(found[0])
    add_system = kind in _SYSTEM_KINDS and "system" not in mapping and "system" not in present
    # a column that is not mapped but carries a canonical name another column now takes
    for canonical, user in mapping.items():
        if (
            canonical != user
            and canonical in present
            and canonical not in mapping.values()
            and canonical not in drop
        ):
            drop.append(canonical)
    return Recognized({k: v for k, v in mapping.items() if k != v}, drop, add_system)


def _ambiguous(kind: str, canonical: str, found: list[str]) -> SchemaError:
    options = " or ".join(f"columns={{{canonical!r}: {name!r}}}" for name in found)
    return SchemaError(
        f"the {kind} frame has {len(found)} columns that could be its {canonical!r} column: "
        f"{', '.join(repr(f) for f in found)}. Say which with {options} (or drop the other)."
    )
