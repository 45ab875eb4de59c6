"""A seeded simulator of diversity (intent-aware) test collections: runs and per-subtopic qrels."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE
from pdireval.datasets.simulation import pooled_candidates, ranked_run
from pdireval.errors import check_int, check_rng, group_generator

if TYPE_CHECKING:
    from pdireval.types import RngLike

__all__ = ["simulate_diversity"]


def simulate_diversity(
    n_systems: int = 5,
    n_queries: int = 20,
    depth: int = 50,
    *,
    n_candidates: int | None = None,
    max_subtopics: int = 6,
    max_label: int = 2,
    pool_depth: int | None = 20,
    rng: RngLike = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Simulate a diversity (intent-aware) collection: runs and per-subtopic qrels.

    Shaped like the TREC Web track's diversity task: each query has 2..``max_subtopics``
    subtopics of unequal popularity; a candidate document is relevant to subtopic j with a
    per-(query, subtopic) rate drawn from Beta(1, 8), with grade ``1 + floor(max_label ·
    u²)``, so some documents cover several subtopics and some subtopics are rare. System s
    scores a document ``skill · Σ_j grade_j · w_j + N(0, 1)`` (``w_j`` the system's
    random interest in subtopic j, so systems favour different intents) and returns its top
    ``depth``. The pool of every system's top ``pool_depth`` is judged for every subtopic
    of the query (label 0 where not relevant). Scores are distinct even at single
    precision, so every tool (trec_eval compares scores as C floats) ranks alike.

    Parameters
    ----------
    n_systems, n_queries, depth : int
        Collection size; every system retrieves ``depth`` documents per query.
    n_candidates : int, optional
        Documents per query (default ``3 * depth``); at least ``depth``.
    max_subtopics : int
        Largest number of subtopics of a query (>= 2).
    max_label : int
        Largest relevance grade (>= 1).
    pool_depth : int or None
        Pooling depth of the judgments (None: judge everything retrieved).
    rng : int, numpy Generator or None
        Seed or Generator; the same seed gives identical frames.

    Returns
    -------
    run : DataFrame
        ``system`` (str), ``query`` (str), ``doc`` (str), ``rank`` (int64), ``score``
        (float64); ordered by system, query, rank.
    qrels : DataFrame
        ``query, subtopic, doc`` (str), ``label`` (float64): one row per judged
        (query, subtopic, doc), ordered by query, subtopic, doc.

    Examples
    --------
    >>> run, qrels = simulate_diversity(n_systems=2, n_queries=3, depth=10, rng=0)
    >>> list(qrels.columns)
    ['query', 'subtopic', 'doc', 'label']
    """
    check_int("n_systems", n_systems, minimum=1)
    check_int("n_queries", n_queries, minimum=1)
    check_int("depth", depth, minimum=1)
    check_int("max_subtopics", max_subtopics, minimum=2)
    check_int("max_label", max_label, minimum=1)
    if n_candidates is not None:
        check_int("n_candidates", n_candidates, minimum=depth)
    if pool_depth is not None:
        check_int("pool_depth", pool_depth, minimum=1)
    gen = group_generator(check_rng(rng))
    n_cand = int(n_candidates) if n_candidates is not None else 3 * depth
    S = max_subtopics
    n_sub = gen.integers(2, S + 1, size=n_queries)
    exists = np.arange(S)[None, :] < n_sub[:, None]  # (query, subtopic)
    rate = gen.beta(1.0, 8.0, size=(n_queries, S)) * exists
    relevant = gen.random((n_queries, n_cand, S)) < rate[:, None, :]
    grade = 1 + np.floor(max_label * gen.random((n_queries, n_cand, S)) ** 2).astype(np.int64)
    labels = np.where(relevant, np.minimum(grade, max_label), 0)  # (query, cand, subtopic)
    n_docs = 20 * n_cand
    start = gen.integers(0, n_docs, size=(n_queries, 1))
    stride = 7919 if n_docs % 7919 else 7907
    doc_ids = (start + np.arange(n_cand)[None, :] * stride) % n_docs
    names = np.char.add("D", np.char.zfill(doc_ids.astype(str), len(str(n_docs - 1))))

    skill = 0.3 + gen.random((n_systems, n_queries))
    interest = gen.random((n_systems, n_queries, S))
    signal = np.einsum("qcs,pqs->pqc", labels.astype(np.float64), interest)
    scores = skill[:, :, None] * signal + gen.normal(0, 1, size=(n_systems, n_queries, n_cand))
    scores = np.maximum(scores * 5 + 50, 1.0)  # positive
    order = np.argsort(-scores, axis=2, kind="stable")[:, :, :depth]
    top = np.take_along_axis(scores, order, axis=2).astype(np.float32)
    # distinct at single precision (trec_eval compares scores as C floats; peers as
    # doubles): positive float32 bit patterns order like the floats, so make them strictly
    # decreasing along each ranking
    bits = top.view(np.int32).astype(np.int64)
    idx = np.arange(depth)
    bits = np.minimum.accumulate(bits + idx, axis=2) - idx
    top = bits.astype(np.int32).view(np.float32).astype(np.float64)
    run, _ = ranked_run(order, top, names)
    pool = pooled_candidates(order, n_cand, pool_depth)
    jq, jc, js = np.nonzero(pool[:, :, None] & exists[:, None, :])
    qrels = pd.DataFrame(
        {
            "query": pd.array((jq + 1).astype(str), dtype=ID_DTYPE),
            "subtopic": pd.array((js + 1).astype(str), dtype=ID_DTYPE),
            "doc": pd.array(names[jq, jc], dtype=ID_DTYPE),
            "label": labels[jq, jc, js].astype(np.float64),
        }
    )
    qrels = qrels.sort_values(["query", "subtopic", "doc"], kind="stable", ignore_index=True)
    return run, qrels
