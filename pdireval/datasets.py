"""Embedded data: a seeded simulator of realistic TREC-like test collections.

The README's example, the docs and the report run on :func:`simulate` when no real data is
given. The model is deliberately simple but has everything real collections have and
naive code gets wrong: graded labels (0..``max_label``) with a few negative (spam) labels,
queries of varied difficulty and numbers of relevant documents, systems of varied quality,
shallow pooling (documents below ``pool_depth`` that no system ranked higher are unjudged),
exact score ties, and doc ids shared across queries.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .schema import ID_DTYPE

__all__ = ["simulate"]


def _rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)


def simulate(
    n_systems: int = 10,
    n_queries: int = 50,
    depth: int = 100,
    *,
    n_candidates: int | None = None,
    max_label: int = 2,
    negative_rate: float = 0.02,
    pool_depth: int | None = 20,
    score_decimals: int | None = 2,
    quality_spread: float = 1.0,
    rng=None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Simulate a TREC-like collection: runs of several systems and their qrels.

    Per query, ``n_candidates`` documents get a latent grade: each query draws a relevance
    rate from Beta(1.2, 6) (varied difficulty), documents are relevant at that rate with
    grades 1..``max_label`` (higher grades rarer), a ``negative_rate`` share gets label -1
    (spam), the rest 0. System s has a quality ``a_s`` drawn evenly over
    ``[0.2, 0.2 + quality_spread]`` (shuffled); it scores document d of query q as
    ``a_s · grade_d + per-query system effect + N(0, 1)`` (spam scores like a grade-0.5
    document, as spam is built to rank), keeps the top ``depth`` and rounds scores to
    ``score_decimals`` (ties). The qrels judge the union of every system's top
    ``pool_depth`` (all retrieved documents when None); other documents are unjudged.

    Parameters
    ----------
    n_systems, n_queries, depth
        Collection size; every system retrieves ``depth`` documents per query.
    n_candidates
        Documents per query (default ``3 * depth``).
    max_label
        Largest relevance grade.
    negative_rate
        Share of candidates labelled -1.
    pool_depth
        Pooling depth of the judgments (None: judge everything retrieved).
    score_decimals
        Rounding of scores (None: no rounding, so no ties).
    quality_spread
        Range of system qualities (0: all systems equal in expectation).
    rng
        Seed or numpy Generator; the same seed gives identical frames.

    Returns
    -------
    run : DataFrame
        ``system`` ("sys01", ...), ``query`` ("1", ...), ``doc``, ``rank`` (1..depth),
        ``score``; ordered by system, query, rank.
    qrels : DataFrame
        ``query, doc, label`` (float64; -1 = spam), judged documents only, sorted.

    Examples
    --------
    >>> run, qrels = simulate(n_systems=3, n_queries=5, depth=10, rng=0)
    >>> sorted(run["system"].unique())
    ['sys01', 'sys02', 'sys03']
    """
    for name, value, low in (("n_systems", n_systems, 1), ("n_queries", n_queries, 1), ("depth", depth, 1)):
        if not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")
    gen = _rng(rng)
    n_cand = int(n_candidates) if n_candidates is not None else 3 * depth
    if n_cand < depth:
        raise ValueError(f"n_candidates ({n_cand}) must be at least depth ({depth})")

    # latent grades per (query, candidate)
    rate = gen.beta(1.2, 6.0, size=(n_queries, 1))
    u = gen.random((n_queries, n_cand))
    relevant = u < rate
    grade_draw = gen.random((n_queries, n_cand))
    grades = np.where(relevant, 1 + np.floor(max_label * grade_draw**2).astype(np.int64), 0)
    grades = np.minimum(grades, max_label)
    spam = (gen.random((n_queries, n_cand)) < negative_rate) & ~relevant
    labels = np.where(spam, -1, grades)
    doc_ids = gen.choice(50 * n_cand + 10_000, size=(n_queries, n_cand), replace=True)
    # make doc ids distinct within a query
    doc_ids = doc_ids + np.arange(n_cand)[None, :] * (50 * n_cand + 10_000)
    rng_docs = np.char.add("D", doc_ids.astype(str))

    quality = 0.2 + quality_spread * np.linspace(0, 1, n_systems)
    gen.shuffle(quality)
    effect = gen.normal(0, 0.3, size=(n_systems, n_queries, 1))
    signal = np.where(labels < 0, 0.5, labels).astype(np.float64)
    scores = quality[:, None, None] * signal[None] + effect + gen.normal(0, 1, size=(n_systems, n_queries, n_cand))
    scores = scores * 5 + 20  # positive, TREC-like magnitudes
    if score_decimals is not None:
        scores = np.round(scores, score_decimals)
    order = np.argsort(-scores, axis=2, kind="stable")[:, :, :depth]
    top_scores = np.take_along_axis(scores, order, axis=2)

    s_idx = np.repeat(np.arange(n_systems), n_queries * depth)
    q_idx = np.tile(np.repeat(np.arange(n_queries), depth), n_systems)
    cand = order.reshape(-1)
    width = len(str(n_systems))
    system_names = np.array([f"sys{i + 1:0{max(2, width)}d}" for i in range(n_systems)])
    run = pd.DataFrame(
        {
            "system": pd.array(system_names[s_idx], dtype=ID_DTYPE),
            "query": pd.array((q_idx + 1).astype(str), dtype=ID_DTYPE),
            "doc": pd.array(rng_docs[q_idx, cand], dtype=ID_DTYPE),
            "rank": np.tile(np.arange(1, depth + 1), n_systems * n_queries).astype(np.int64),
            "score": top_scores.reshape(-1),
        }
    )

    pool = np.zeros((n_queries, n_cand), dtype=bool)
    pd_depth = depth if pool_depth is None else min(pool_depth, depth)
    pooled = order[:, :, :pd_depth]
    qq = np.broadcast_to(np.arange(n_queries)[None, :, None], pooled.shape)
    pool[qq.reshape(-1), pooled.reshape(-1)] = True
    jq, jc = np.nonzero(pool)
    qrels = pd.DataFrame(
        {
            "query": pd.array((jq + 1).astype(str), dtype=ID_DTYPE),
            "doc": pd.array(rng_docs[jq, jc], dtype=ID_DTYPE),
            "label": labels[jq, jc].astype(np.float64),
        }
    )
    return run, qrels
