"""Seeded benchmark collections (see benchmarks/README.md, "Data").

``msmarco_like``: one system, ~7,000 queries x 1,000 documents (MS MARCO passage dev size),
sparse binary qrels (about 1.07 relevant passages per query, ~85% of them retrieved),
scores rounded to 2 decimals so exact ties are common, rows in file order
(query, then rank). ``trec_like``: ``pdireval.datasets.simulate`` with 100 systems x 50
topics x 1,000 documents, graded labels, judgments pooled to depth 30 (calibrated to the
judged share and tie rate of the Robust 2003 runs).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

N_PASSAGES = 8_841_823  # size of the MS MARCO passage collection


def _ids(values) -> pd.api.extensions.ExtensionArray:
    """Integers -> pandas' default (pyarrow-backed) string array, converted by pyarrow."""
    return pd.array(pc.cast(pa.array(np.asarray(values, dtype=np.int64)), pa.string()), dtype="str")


def msmarco_like(n_queries: int = 7000, depth: int = 1000, *, rng=0):
    """Return ``(run, qrels)`` frames shaped like a BM25 run on MS MARCO passage dev.

    run: ``system, query, doc`` (pandas' default pyarrow-backed ``str``), ``rank`` (int64),
    ``score`` (float64); qrels: ``query, doc, label``.
    """
    gen = np.random.default_rng(rng)
    qids = np.sort(gen.choice(1_100_000, size=n_queries, replace=False))
    # distinct passage ids within a query: strictly increasing draws, then shuffled
    step = gen.integers(1, max(2, N_PASSAGES // depth), size=(n_queries, depth))
    ids = np.cumsum(step, axis=1)
    perm = np.argsort(gen.random((n_queries, depth)), axis=1)
    ids = np.take_along_axis(ids, perm, axis=1)
    # BM25-like scores, descending, rounded to 2 decimals -> exact ties
    base = gen.uniform(12, 30, size=(n_queries, 1))
    decay = np.log1p(np.arange(depth))[None, :] * gen.uniform(1.0, 2.0, size=(n_queries, 1))
    scores = np.round(base - decay - 0.3 * np.sort(gen.random((n_queries, depth)), axis=1), 2)
    scores = -np.sort(-scores, axis=1)
    run = pd.DataFrame(
        {
            "system": pd.array(np.full(n_queries * depth, "bm25"), dtype="str"),
            "query": _ids(np.repeat(qids, depth)),
            "doc": _ids(ids.reshape(-1)),
            "rank": np.tile(np.arange(1, depth + 1, dtype=np.int64), n_queries),
            "score": scores.reshape(-1),
        }
    )
    # sparse qrels: 1 relevant passage per query, a second one for 6.5% of queries
    n_rel = 1 + (gen.random(n_queries) < 0.065)
    q_of = np.repeat(np.arange(n_queries), n_rel)
    retrieved = gen.random(len(q_of)) < 0.85
    # rank of a retrieved relevant passage: log-uniform over 1..depth (top-heavy)
    rank = np.minimum(depth, np.exp(gen.random(len(q_of)) * np.log(depth)).astype(np.int64))
    rel_doc = ids[q_of, rank - 1]
    # a second relevant passage of the same query must differ from the first
    clash = np.r_[False, (q_of[1:] == q_of[:-1]) & (rel_doc[1:] == rel_doc[:-1])]
    rel_doc[clash] = ids[q_of[clash], (rank[clash] % depth)]
    rel_doc = np.where(retrieved, rel_doc, N_PASSAGES + np.arange(len(q_of)))
    qrels = pd.DataFrame(
        {
            "query": _ids(qids[q_of]),
            "doc": _ids(rel_doc),
            "label": np.ones(len(q_of)),
        }
    )
    return run, qrels


def trec_like(n_systems: int = 100, n_queries: int = 50, depth: int = 1000, *, rng=0):
    """Return ``(run, qrels)`` from :func:`pdireval.datasets.simulate` (TREC-sized).

    Pooled to depth 30 with scores rounded to 3 decimals, which gives what the 17 Robust 2003
    runs have: about half of the retrieved rows judged (48% here, 45% in Robust 2003),
    ~1,200 judged documents per topic (1,288) and a tenth of the rows in score ties (11%;
    17% in Robust 2003).
    """
    import pdireval

    return pdireval.datasets.simulate(
        n_systems=n_systems, n_queries=n_queries, depth=depth, pool_depth=30, score_decimals=3, rng=rng
    )
