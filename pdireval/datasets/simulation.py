"""The seeded simulator of TREC-like test collections (:func:`simulate`) and the ranking
helpers the diversity simulator shares."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE
from pdireval.errors import check_int, check_real, check_rng, group_generator

if TYPE_CHECKING:
    from pdireval.types import RngLike

__all__ = ["simulate", "EXAMPLE"]

#: The built-in example collection: what ``pdireval evaluate`` and ``pdireval report`` (and
#: ``pdireval.report()``) use when given no run, and what the README's tour evaluates, so the
#: README's numbers can be found in the report.
EXAMPLE = {"n_systems": 5, "n_queries": 50, "depth": 100, "rng": 42}


def ranked_run(order: np.ndarray, scores: np.ndarray, doc_names: np.ndarray):
    """The run frame of simulated rankings: ``order[s, q]`` are the candidate indices system s
    ranks for query q (best first), ``scores`` their scores, ``doc_names[q, c]`` the ids.
    Systems are named sys01, sys02, ...; returns ``(run, system_names)``."""
    n_systems, n_queries, depth = order.shape
    s_idx = np.repeat(np.arange(n_systems), n_queries * depth)
    q_idx = np.tile(np.repeat(np.arange(n_queries), depth), n_systems)
    width = max(2, len(str(n_systems)))
    system_names = np.array([f"sys{i + 1:0{width}d}" for i in range(n_systems)])
    run = pd.DataFrame(
        {
            "system": pd.array(system_names[s_idx], dtype=ID_DTYPE),
            "query": pd.array((q_idx + 1).astype(str), dtype=ID_DTYPE),
            "doc": pd.array(doc_names[q_idx, order.reshape(-1)], dtype=ID_DTYPE),
            "rank": np.tile(np.arange(1, depth + 1), n_systems * n_queries).astype(np.int64),
            "score": scores.reshape(-1),
        }
    )
    return run, system_names


def pooled_candidates(order: np.ndarray, n_candidates: int, pool_depth: int | None) -> np.ndarray:
    """TREC pooling: bool (query, candidate), True for the candidates some system ranks in its
    top ``pool_depth`` (every ranked candidate when None)."""
    n_queries, depth = order.shape[1], order.shape[2]
    pool = np.zeros((n_queries, n_candidates), dtype=bool)
    pooled = order[:, :, : depth if pool_depth is None else min(pool_depth, depth)]
    qq = np.broadcast_to(np.arange(n_queries)[None, :, None], pooled.shape)
    pool[qq.reshape(-1), pooled.reshape(-1)] = True
    return pool


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
    quality_spread: float = 0.8,
    interaction: float = 0.3,
    query_spread: float = 0.8,
    rng: RngLike = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Simulate a TREC-like collection: runs of several systems and their qrels.

    The model, per query q and candidate document d (``n_candidates`` per query):

    - **labels**: the query draws a relevance rate from Beta(1.2, 6) (so queries have very
      different numbers of relevant documents); d is relevant at that rate, with grade
      ``1 + floor(max_label · u²)`` (higher grades rarer); a ``negative_rate`` share of the
      non-relevant documents is spam (label -1); the rest are 0.
    - **systems**: system s has a quality ``a_s`` spread evenly over
      ``[0.4, 0.4 + quality_spread]`` (assigned to the systems in shuffled order). Its skill
      on query q is ``max(a_s + N(0, interaction), 0) · exp(N(0, query_spread))``: systems
      are better on some queries than on others, and some queries are easy for every
      system. It scores d as ``5 · (skill · grade_d + N(0, 1)) + 20`` (spam scores like a
      grade-0.5 document, as spam is built to rank), rounded to ``score_decimals``
      decimals (so exact score ties occur), and returns its top ``depth``.
    - **pooling**: the qrels judge the union of every system's top ``pool_depth``; other
      retrieved documents are unjudged (absent from the qrels), and relevant documents no
      system pooled are missing, as in real pooled collections.
    - **ids**: documents are drawn from one collection of ``20 · n_candidates`` ids, so the
      same doc id occurs under many queries.

    With the defaults, the variance components of per-query AP (system, query,
    interaction) come out near those of TREC 2003 Robust (roughly 8 %, 67 %, 25 %).

    Parameters
    ----------
    n_systems, n_queries, depth : int
        Collection size; every system retrieves ``depth`` documents per query.
    n_candidates : int, optional
        Documents per query (default ``3 * depth``); at least ``depth``.
    max_label : int
        Largest relevance grade (>= 1).
    negative_rate : float
        Share of non-relevant candidates labelled -1, in [0, 1].
    pool_depth : int or None
        Pooling depth of the judgments (None: judge everything retrieved).
    score_decimals : int or None
        Rounding of scores (None: no rounding, so ties are unlikely).
    quality_spread : float
        Range of system qualities (0: all systems equal in expectation).
    interaction : float
        Standard deviation of the per-(system, query) change of quality.
    query_spread : float
        Standard deviation of the log of the per-query ease.
    rng : int, numpy Generator or None
        Seed or Generator; the same seed gives identical frames.

    Returns
    -------
    run : DataFrame
        ``system`` (str: "sys01", ...), ``query`` (str: "1", ...), ``doc`` (str),
        ``rank`` (int64: 1..depth), ``score`` (float64); ordered by system, query, rank.
        Tied scores are ranked in an arbitrary order (as in real runs), which need not be
        trec_eval's (doc id descending). ``run.attrs["quality"]`` maps each system to its
        quality ``a_s``.
    qrels : DataFrame
        ``query, doc`` (str), ``label`` (float64; -1 = spam): the judged documents, ordered
        by query.

    Raises
    ------
    TypeError
        A size or option of the wrong type.
    OptionError
        A size or option out of range.

    Examples
    --------
    >>> run, qrels = simulate(n_systems=3, n_queries=5, depth=10, rng=0)
    >>> sorted(run["system"].unique())
    ['sys01', 'sys02', 'sys03']
    """
    check_int("n_systems", n_systems, minimum=1)
    check_int("n_queries", n_queries, minimum=1)
    check_int("depth", depth, minimum=1)
    check_int("max_label", max_label, minimum=1)
    if n_candidates is not None:
        check_int("n_candidates", n_candidates, minimum=depth)
    if pool_depth is not None:
        check_int("pool_depth", pool_depth, minimum=1)
    if score_decimals is not None:
        check_int("score_decimals", score_decimals, minimum=0)
    check_real("negative_rate", negative_rate, low=0, high=1)
    check_real("quality_spread", quality_spread, low=0)
    check_real("interaction", interaction, low=0)
    check_real("query_spread", query_spread, low=0)
    gen = group_generator(check_rng(rng))
    n_cand = int(n_candidates) if n_candidates is not None else 3 * depth

    # latent grades per (query, candidate)
    rate = gen.beta(1.2, 6.0, size=(n_queries, 1))
    u = gen.random((n_queries, n_cand))
    relevant = u < rate
    grade_draw = gen.random((n_queries, n_cand))
    grades = np.where(relevant, 1 + np.floor(max_label * grade_draw**2).astype(np.int64), 0)
    grades = np.minimum(grades, max_label)
    spam = (gen.random((n_queries, n_cand)) < negative_rate) & ~relevant
    labels = np.where(spam, -1, grades)
    # ids from one collection: distinct within a query, shared across queries
    n_docs = 20 * n_cand
    start = gen.integers(0, n_docs, size=(n_queries, 1))
    stride = 7919 if n_docs % 7919 else 7907  # a prime not dividing n_docs: distinct ids
    doc_ids = (start + np.arange(n_cand)[None, :] * stride) % n_docs
    rng_docs = np.char.add("D", np.char.zfill(doc_ids.astype(str), len(str(n_docs - 1))))

    quality = 0.4 + quality_spread * np.linspace(0, 1, n_systems)
    gen.shuffle(quality)
    # how well system s separates relevant documents on query q: its quality, perturbed per
    # query (system x query interaction), times the query's ease (query difficulty)
    ease = np.exp(gen.normal(0, query_spread, size=(1, n_queries)))
    skill = np.maximum(
        quality[:, None] + gen.normal(0, interaction, size=(n_systems, n_queries)), 0
    )
    skill = skill * ease
    signal = np.where(labels < 0, 0.5, labels).astype(np.float64)
    noise = gen.normal(0, 1, size=(n_systems, n_queries, n_cand))
    scores = skill[:, :, None] * signal[None] + noise
    scores = scores * 5 + 20  # positive, TREC-like magnitudes
    if score_decimals is not None:
        scores = np.round(scores, score_decimals)
    order = np.argsort(-scores, axis=2, kind="stable")[:, :, :depth]
    top_scores = np.take_along_axis(scores, order, axis=2)

    run, system_names = ranked_run(order, top_scores, rng_docs)
    jq, jc = np.nonzero(pooled_candidates(order, n_cand, pool_depth))
    qrels = pd.DataFrame(
        {
            "query": pd.array((jq + 1).astype(str), dtype=ID_DTYPE),
            "doc": pd.array(rng_docs[jq, jc], dtype=ID_DTYPE),
            "label": labels[jq, jc].astype(np.float64),
        }
    )
    run.attrs["quality"] = dict(zip(system_names.tolist(), quality.tolist()))
    return run, qrels
