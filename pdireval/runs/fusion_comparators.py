"""The comparator methods of :func:`pdireval.fuse`: CondorcetFuse and Montague's upper bounds
(naive, Pareto, majoritarian), which sort each query's documents with a pairwise comparator."""

from __future__ import annotations

from functools import cmp_to_key
from operator import lt

import numpy as np
import pandas as pd

from pdireval.core.schema import canonical_qrels, qrels_from_run
from pdireval.core.segments import build_judgments, judged_hits
from pdireval.errors import SchemaError
from pdireval.io import as_frame
from pdireval.measures.view import read_negatives
from pdireval.runs.fusion_lists import FusionLists, run_frame

__all__ = ["fuse_comparator", "comparator_fusion"]

_NEEDS_QRELS = ("naive", "pareto", "majoritarian")
_BIG = np.int64(1) << 40


def _comparator(rows: list, rel: list, n: int, method: str):
    """cmp(i, j) over the documents of one query: −1 = i first, 1 = j first, 0 = equal.

    ``rows[i]`` is the tuple of document i's ranks in every system (a large number when not
    retrieved), so v12 = Σ_s [r_i,s < r_j,s] counts the systems ranking i above j (an
    abstaining system counts for neither)."""

    def relevance(i, j):
        a, b = rel[i], rel[j]
        return -1 if a > b else (1 if b > a else 0)

    if method == "condorcet":

        def cmp(i, j):
            a, b = rows[i], rows[j]
            v12 = sum(map(lt, a, b))
            v21 = sum(map(lt, b, a))
            return -1 if v12 > v21 else (1 if v21 > v12 else 0)

    elif method == "pareto":

        def cmp(i, j):
            a, b = rows[i], rows[j]
            if all(map(lt, a, b)):
                return -1
            if all(map(lt, b, a)):
                return 1
            return relevance(i, j)

    else:  # majoritarian

        def cmp(i, j):
            a, b = rows[i], rows[j]
            v12 = sum(map(lt, a, b))
            v21 = sum(map(lt, b, a))
            if 2 * v12 >= n and v12 > v21:
                return -1
            if 2 * v21 >= n and v21 > v12:
                return 1
            return relevance(i, j)

    return cmp


def comparator_fusion(lists: FusionLists, rel: np.ndarray, method: str, name: str) -> pd.DataFrame:
    """Sort every query's documents U with the method's comparator (Python's stable sort over
    U in doc-id order, so equal documents keep that order) and score them |U| − position."""
    n_sys = len(lists.systems)
    pos = np.full((lists.n_u, n_sys), _BIG, dtype=np.int64)
    pos[lists.u, lists.system] = lists.pos
    u_sorted = np.lexsort((lists.u_doc, lists.u_query))  # per query, doc ids ascending
    qs = lists.u_query[u_sorted]
    bounds = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1], True])
    position = np.empty(lists.n_u, dtype=np.int64)
    for lo, hi in zip(bounds[:-1], bounds[1:]):  # per query: the sort is sequential by definition
        members = u_sorted[lo:hi]
        if method == "naive":
            local = np.argsort(
                -rel[members], kind="stable"
            )  # = sorted() with the relevance comparator
        else:
            rows = list(map(tuple, pos[members].tolist()))
            cmp = _comparator(rows, rel[members].tolist(), n_sys, method)
            local = np.array(sorted(range(hi - lo), key=cmp_to_key(cmp)), dtype=np.int64)
        position[members[local]] = np.arange(hi - lo)
    size = lists.n_u_query[lists.u_query]
    score = (size - position).astype(np.float64)  # unique per query, so evaluate() keeps this order
    return run_frame(lists, score, name)


def labels_of_documents(lists: FusionLists, keys, labels: pd.DataFrame) -> np.ndarray:
    """Label of every document of U (0 when unjudged or negative), read through the one
    run–qrels join of :func:`pdireval.core.segments.judged_hits`."""
    judgments = build_judgments(labels)
    rows, qrow = judged_hits(keys, judgments)
    if lists.row_order is not None:
        list_row = np.empty(len(lists.row_order), dtype=np.int64)
        list_row[lists.row_order] = np.arange(len(lists.row_order))
        rows = list_row[rows]
    rel = np.zeros(lists.n_u)
    label = read_negatives(judgments.label[qrow], "unjudged")
    rel[lists.u[rows]] = np.where(np.isnan(label), 0.0, label)
    return rel


def fuse_comparator(canonical, keys, method, qrels, label):
    lists = FusionLists(canonical, keys)
    rel = np.zeros(lists.n_u)
    if method in _NEEDS_QRELS:
        if qrels is not None:
            labels = canonical_qrels(as_frame(qrels, "qrels"))
        elif "label" in canonical.columns:
            labels = qrels_from_run(canonical)
        else:
            raise SchemaError(
                f"method={method!r} is an upper bound that reads the judgments: pass qrels= (a "
                "frame with query, doc, label), or give the run a 'label' column."
            )
        rel = labels_of_documents(lists, keys, labels)
    return comparator_fusion(lists, rel, method, label)
