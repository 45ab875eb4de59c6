"""Metasearch (rank fusion) baselines and Montague's upper bounds (methods-spec §6.5).

Seed 001 §6 compares the joint RIC of a group of systems with the RIC of their fused run.
All methods work per query on U, the union of the documents the input systems retrieved.
A system ranks every document it retrieved above every document it did not; for a pair
that it retrieved neither of, it abstains.

* Score-based (Shaw & Fox 1994), fully vectorised: scores min-max normalised per
  (system, query), (s − min)/(max − min), 1.0 for every document when max = min.
  CombSUM(d) = Σ_systems normalised score (0 when not retrieved); CombMNZ = CombSUM × the
  number of systems that retrieved d; CombANZ = CombSUM / that number. (Shaw & Fox count
  "non-zero scores"; after min-max normalisation the last document of every list scores 0,
  so pdireval counts retrieving systems instead.)
* Comparator-based: ``sorted(U in doc-id ascending order, key=cmp_to_key(cmp))`` — Python's
  sort, deterministic, and part of the definition because the comparators need not be
  transitive. v12 = number of systems ranking d1 above d2.

  - ``condorcet`` (CondorcetFuse; Montague & Aslam 2002): d1 first if v12 > v21, d2 first
    if v21 > v12, else equal. No relevance information.
  - ``naive`` (Montague): relevance comparison only — higher qrels label first; unjudged
    (and, as in trec_eval, negatively labelled) documents compare like label 0.
  - ``pareto``: d1 first if *every* system ranks it above d2 (an abstaining system breaks
    unanimity), symmetric for d2, otherwise relevance comparison.
  - ``majoritarian``: d1 first if v12 ≥ n/2 and v12 > v21 (the strict second condition
    resolves seed 001's "at least half", which with an even n can hold both ways;
    methods-spec §10 #13), symmetric for d2, otherwise relevance comparison.

  n is the number of systems fused; a system with no list for a query abstains on every
  pair of that query (so it breaks Pareto unanimity there).

  The sort is inherently sequential (a comparator sort over m = |U| documents, about
  m·log2(m) comparisons per query); each comparison compares two precomputed tuples of
  ranks with C-level ``map(operator.lt, ...)``. This per-query sort is the only Python loop.
"""

from __future__ import annotations

from functools import cmp_to_key
from operator import lt

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE, canonical_qrels, canonical_run, qrels_from_run
from pdireval.core.segments import natural_order
from pdireval.errors import OptionError, SchemaError
from pdireval.measures.view import read_negatives

__all__ = ["fuse", "FUSION_METHODS"]

SCORE_METHODS = {"combsum": "CombSUM", "combmnz": "CombMNZ", "combanz": "CombANZ"}
COMPARATOR_METHODS = {"condorcet": "CondorcetFuse", "naive": "Naive", "pareto": "Pareto", "majoritarian": "Majoritarian"}
FUSION_METHODS = tuple(SCORE_METHODS) + tuple(COMPARATOR_METHODS)
_NEEDS_QRELS = ("naive", "pareto", "majoritarian")
_BIG = np.int64(1) << 40


def _ordered(run: pd.DataFrame) -> pd.DataFrame:
    """Canonical run in trec_eval order per (system, query), with a 0-based ``pos``."""
    if "score" in run.columns:
        key = -run["score"].to_numpy(dtype=np.float64).astype(np.float32).astype(np.float64)
        frame = run.assign(_k=key)
        frame = frame.sort_values(["system", "query", "_k", "doc"], ascending=[True, True, True, False], kind="stable")
    else:
        frame = run.sort_values(["system", "query", "rank", "doc"], kind="stable")
    frame = frame.reset_index(drop=True)
    seg = frame.groupby(["system", "query"], sort=False, observed=True).ngroup().to_numpy()
    first = np.r_[True, seg[1:] != seg[:-1]]
    starts = np.maximum.accumulate(np.where(first, np.arange(len(seg)), 0))
    frame["pos"] = np.arange(len(seg)) - starts
    return frame.drop(columns=[c for c in ("_k",) if c in frame.columns])


def _output(query, doc, score, name) -> pd.DataFrame:
    """The fused run: trec_eval order (score desc at float32, ties doc id desc), rank 1.."""
    frame = pd.DataFrame({"query": pd.array(query, dtype=ID_DTYPE), "doc": pd.array(doc, dtype=ID_DTYPE), "score": np.asarray(score, dtype=np.float64)})
    q_codes, q_uniques = pd.factorize(frame["query"])
    q_rank = np.empty(len(q_uniques), dtype=np.int64)
    q_rank[natural_order(q_uniques)] = np.arange(len(q_uniques))
    doc_codes, _ = pd.factorize(frame["doc"], sort=True)
    o = np.lexsort((-doc_codes, -frame["score"].to_numpy().astype(np.float32), q_rank[q_codes]))
    frame = frame.iloc[o].reset_index(drop=True)
    qs = q_rank[q_codes][o]
    first = np.r_[True, qs[1:] != qs[:-1]]
    starts = np.maximum.accumulate(np.where(first, np.arange(len(qs)), 0))
    frame["rank"] = (np.arange(len(qs)) - starts + 1).astype(np.int64)
    frame.insert(0, "system", pd.array([name] * len(frame), dtype=ID_DTYPE))
    return frame


def _score_fusion(frame: pd.DataFrame, method: str, name: str) -> pd.DataFrame:
    if "score" not in frame.columns:
        raise SchemaError(
            f"{SCORE_METHODS[method]} fuses scores, but the run has only a 'rank' column. Add "
            "a 'score' column, or use a rank-based method (method='condorcet')."
        )
    score = frame["score"].to_numpy(dtype=np.float64)
    grp = frame.groupby(["system", "query"], sort=False, observed=True)["score"]
    lo = grp.transform("min").to_numpy(dtype=np.float64)
    hi = grp.transform("max").to_numpy(dtype=np.float64)
    span = hi - lo
    norm = np.where(span > 0, (score - lo) / np.where(span > 0, span, 1.0), 1.0)
    per_doc = frame.assign(_n=norm).groupby(["query", "doc"], sort=False, observed=True)["_n"].agg(["sum", "count"])
    total = per_doc["sum"].to_numpy()
    count = per_doc["count"].to_numpy(dtype=np.float64)
    fused = {"combsum": total, "combmnz": total * count, "combanz": total / count}[method]
    idx = per_doc.index
    return _output(idx.get_level_values(0).to_numpy(dtype=object), idx.get_level_values(1).to_numpy(dtype=object), fused, name)


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


def _comparator_fusion(frame: pd.DataFrame, labels: pd.DataFrame | None, method: str, name: str) -> pd.DataFrame:
    systems = pd.Index(sorted(pd.unique(frame["system"])))
    n_sys = len(systems)
    # U per query, doc ids ascending (plain string comparison)
    u = frame[["query", "doc"]].drop_duplicates()
    u = u.assign(_d=u["doc"].to_numpy(dtype=object)).sort_values(["query", "_d"], kind="stable").drop(columns="_d").reset_index(drop=True)
    u["u"] = np.arange(len(u))
    joined = frame[["system", "query", "doc", "pos"]].merge(u, on=["query", "doc"], how="left")
    pos = np.full((len(u), n_sys), _BIG, dtype=np.int64)
    pos[joined["u"].to_numpy(), systems.get_indexer(joined["system"])] = joined["pos"].to_numpy()
    rel = np.zeros(len(u))
    if labels is not None:
        lab = u.merge(labels, on=["query", "doc"], how="left")["label"].to_numpy(dtype=np.float64)
        lab = read_negatives(lab, "unjudged")
        rel = np.where(np.isnan(lab), 0.0, lab)
    qv = u["query"].to_numpy(dtype=object)
    bounds = np.flatnonzero(np.r_[True, qv[1:] != qv[:-1], True])
    order = np.empty(len(u), dtype=np.int64)
    for lo, hi in zip(bounds[:-1], bounds[1:]):  # per query: the sort is sequential by definition
        m = hi - lo
        if method == "naive":
            local = np.argsort(-rel[lo:hi], kind="stable")  # = sorted() with the relevance comparator
        else:
            rows = list(map(tuple, pos[lo:hi].tolist()))
            cmp = _comparator(rows, rel[lo:hi].tolist(), n_sys, method)
            local = np.array(sorted(range(m), key=cmp_to_key(cmp)), dtype=np.int64)
        order[lo:hi] = lo + local
        # score m − position: unique, so evaluate() keeps this order
    position = np.empty(len(u), dtype=np.int64)
    rank_in_query = np.arange(len(u)) - np.repeat(bounds[:-1], np.diff(bounds))
    position[order] = rank_in_query
    size = np.repeat(np.diff(bounds), np.diff(bounds))
    score = (size - position).astype(np.float64)
    return _output(u["query"].to_numpy(dtype=object), u["doc"].to_numpy(dtype=object), score, name)


def fuse(run: pd.DataFrame, method: str = "combmnz", *, qrels: pd.DataFrame | None = None, systems=None, name: str | None = None) -> pd.DataFrame:
    """Fuse the systems of a run into one ranked list per query (metasearch).

    Methods of methods-spec §6.5 (see the module docstring for the exact definitions):
    ``"combsum"``, ``"combmnz"``, ``"combanz"`` (Shaw & Fox 1994, min-max normalised
    scores), ``"condorcet"`` (CondorcetFuse, Montague & Aslam 2002), and Montague's upper
    bounds ``"naive"``, ``"pareto"``, ``"majoritarian"``, which also read the qrels. The
    result is a run frame, so it evaluates like any run (``pdireval.evaluate(fused, ...)``)
    and can be concatenated with the inputs.

    Parameters
    ----------
    run
        Run frame (``system, query, doc`` and ``score`` and/or ``rank``). Each list is read in
        trec_eval order (score descending, ties by doc id descending; or by rank).
    method
        One of ``FUSION_METHODS`` (case-insensitive). Default ``"combmnz"``.
    qrels
        Judgments for the upper bounds (naive, pareto, majoritarian); default: the run's
        ``label`` column. Ignored by the other methods.
    systems
        ``None`` (all systems of the run) or a list of system names to fuse.
    name
        System name of the fused run; default the method's name (e.g. ``"CombMNZ"``).

    Returns
    -------
    DataFrame
        A run frame: ``system`` (str, ``name``), ``query``, ``doc`` (str), ``score`` (float64:
        the fused score for Comb*, ``m − position`` for the comparator methods, m = |U|),
        ``rank`` (int64, 1 = top). One row per document of U, queries in natural order,
        each in trec_eval order of ``score`` (so ``evaluate`` sees exactly this order).

    Raises
    ------
    SchemaError
        Unknown systems, Comb* on a run without scores, a bound without judgments.
    ValueError
        Unknown method.

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=2, depth=10, rng=1)
    >>> fused = pdireval.fuse(run, "combsum")
    >>> fused["system"].iloc[0], list(fused.columns)
    ('CombSUM', ['system', 'query', 'doc', 'score', 'rank'])

    References
    ----------
    J. A. Shaw and E. A. Fox. Combination of multiple searches. TREC-2, 1994.
    M. Montague and J. A. Aslam. Condorcet fusion for improved retrieval. CIKM 2002.
    M. Montague. Metasearch: Data Fusion for Document Retrieval. PhD thesis, Dartmouth, 2002.
    """
    if not isinstance(method, str) or method.lower() not in FUSION_METHODS:
        raise OptionError(f"method= must be one of {FUSION_METHODS}, got {method!r}")
    method = method.lower()
    canonical = canonical_run(run)
    if systems is not None:
        names = [systems] if isinstance(systems, str) else [str(s) for s in systems]
        known = set(pd.unique(canonical["system"]))
        unknown = [s for s in names if s not in known]
        if unknown:
            raise SchemaError(
                f"systems= names {len(unknown)} system(s) the run does not have (first: "
                f"{unknown[0]!r}); the run has {sorted(known)[:10]}. Fix the names."
            )
        canonical = canonical[canonical["system"].isin(names).to_numpy()].reset_index(drop=True)
    label = name or SCORE_METHODS.get(method) or COMPARATOR_METHODS[method]
    frame = _ordered(canonical)
    if method in SCORE_METHODS:
        return _score_fusion(frame, method, label)
    labels = None
    if method in _NEEDS_QRELS:
        if qrels is not None:
            labels = canonical_qrels(qrels)
        elif "label" in canonical.columns:
            labels = qrels_from_run(canonical)
        else:
            raise SchemaError(
                f"method={method!r} is an upper bound that reads the judgments: pass qrels= (a "
                "frame with query, doc, label), or give the run a 'label' column."
            )
        labels = labels.assign(query=labels["query"].astype(object), doc=labels["doc"].astype(object))
    frame = frame.assign(query=frame["query"].astype(object), doc=frame["doc"].astype(object))
    return _comparator_fusion(frame, labels, method, label)
