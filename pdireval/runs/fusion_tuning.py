"""Fusion weights tuned by grid search on training queries against a measure (as ranx's
``optimize_fusion``), every candidate weight vector evaluated with pdireval's own measures."""

from __future__ import annotations

import math
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.chunking import CHUNK_CELLS, progress_bar
from pdireval.core.schema import canonical_qrels, canonical_run_keys
from pdireval.docstrings import shared_docs
from pdireval.errors import OptionError, SchemaError
from pdireval.evaluation import evaluate
from pdireval.io import as_frame
from pdireval.runs.fusion_lists import (
    SCORE_METHODS,
    WEIGHTED_METHODS,
    FusionLists,
    combine,
    fusion_contributions,
    tie_fused,
)
from pdireval.runs.fusion_options import (
    check_k,
    check_phi,
    resolve_method,
    resolve_norm,
    select_systems,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from pdireval.types import Columns, FusionNorm, WeightedFusionMethod

__all__ = ["tune_fusion"]

#: Largest grid tune_fusion evaluates (candidate weight vectors).
MAX_TRIALS = 20000
#: Rows of fused runs evaluated at once (half the one chunk budget).
_ROWS_PER_CHUNK = CHUNK_CELLS // 2


def weight_grid(n_systems: int, step: float) -> np.ndarray:
    """Every weight vector with components in {0, step, 2·step, ..., 1} summing to 1.

    The integer compositions of S = 1/step into ``n_systems`` parts (stars and bars), in
    lexicographic order of the bar positions; C(S + n − 1, n − 1) vectors.
    """
    total = round(1.0 / step)
    n_trials = math.comb(total + n_systems - 1, n_systems - 1)
    if n_trials > MAX_TRIALS:
        raise OptionError(
            f"step={step} with {n_systems} systems gives {n_trials} weight vectors (at most "
            f"{MAX_TRIALS} are evaluated). Use a larger step, or fuse fewer systems (systems=)."
        )
    bars = np.array(list(combinations(range(total + n_systems - 1), n_systems - 1)), dtype=np.int64)
    bars = bars.reshape(n_trials, n_systems - 1)
    edges = np.hstack(
        [np.full((n_trials, 1), -1), bars, np.full((n_trials, 1), total + n_systems - 1)]
    )
    counts = np.diff(edges, axis=1) - 1
    return counts / total


def _check_step(step) -> float:
    ok = (
        isinstance(step, (int, float, np.floating)) and not isinstance(step, bool) and 0 < step <= 1
    )
    if ok:
        total = 1.0 / step
        ok = abs(total - round(total)) < 1e-9
    if not ok:
        raise OptionError(f"step= must be 1/N for a whole N (0.1, 0.05, 0.25, ...); got {step!r}.")
    return float(step)


@shared_docs
def tune_fusion(
    runs: pd.DataFrame,
    qrels: pd.DataFrame,
    *,
    method: WeightedFusionMethod = "combsum",
    measure: str = "nDCG@10",
    step: float = 0.1,
    queries: Iterable[str] | None = None,
    norm: FusionNorm | None = "min-max",
    k: float = 60,
    phi: float = 0.8,
    systems: Sequence[str] | None = None,
    progress: bool | None = None,
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Tune the per-system weights of a fusion method by grid search on training queries.

    Every weight vector w with components in {0, step, 2·step, …, 1} and Σ w = 1 (the grid of
    ranx's ``optimize_fusion``) is used to fuse the training queries with
    :func:`pdireval.fuse`; the fused run is evaluated with ``measure`` against ``qrels`` and
    averaged over the training queries. Fuse the test queries with the best vector and evaluate
    them to report an unbiased result (docs/information.md shows the recipe).

    Parameters
    ----------
    runs
        Run frame of the systems to fuse.
    qrels
        Judgments (``query, doc, label``).
    method
        A method that takes weights: ``"combsum"`` (default), ``"combmnz"``, ``"borda"``,
        ``"rrf"`` or ``"rbc"`` (ranx's names accepted).
    measure
        The measure to maximise (one measure string, e.g. ``"nDCG@10"``, ``"AP"``).
    step
        Grid step, 1/N for a whole N (default 0.1: 66 vectors for 3 systems, 286 for 4).
    queries
        The training queries, each retrieved by the run and judged (default: every query of
        the run that has judgments).
    norm, k, phi
        As in :func:`pdireval.fuse`.
    systems
        Systems to fuse and weigh (default: all of the run); the others are left out, so
        ``fuse(runs, method, systems=list(best), weights=best)`` fuses the tuned ones.
    {progress}
    columns
        Optional mapping ``{canonical name: your column name}`` for ``runs``.

    Returns
    -------
    DataFrame
        One row per (trial, system), trials in grid order, systems sorted: ``trial`` (int64,
        0-based), ``system`` (str), ``weight`` (float64), ``measure`` (str), ``value``
        (float64: the mean of ``measure`` over the training queries of the run fused with the
        trial's weights), ``n_queries`` (int64, training queries), ``best`` (bool: the trial
        with the highest value; the first one in grid order on ties — ranx keeps the last).
        ``tuned[tuned.best].set_index("system")["weight"].to_dict()`` is the ``weights=`` of
        :func:`pdireval.fuse`. Each trial's scores are those :func:`pdireval.fuse` gives with
        its weights, bit for bit, and its value is ``evaluate(fused, measure, qrels=qrels)``'s
        mean (scores compared at float32, as ``evaluate`` does by default).

    Raises
    ------
    OptionError
        A method without weights, a bad step, ``queries=[]``, ``systems=[]``.
    SchemaError
        Training queries the run or the qrels does not have; unknown systems.

    References
    ----------
    Bassani, E., Romelli, L. (2022). ranx.fuse: a Python library for metasearch. CIKM.
    """
    how = resolve_method(method)
    if how not in WEIGHTED_METHODS:
        raise OptionError(
            f"tune_fusion tunes weights, and method={how!r} takes none; use one of "
            f"{', '.join(WEIGHTED_METHODS)}."
        )
    norm = resolve_norm(norm)
    k, phi = check_k(k), check_phi(phi)
    step = _check_step(step)
    if not isinstance(measure, str):
        raise TypeError(
            f"measure= must be one measure string (e.g. 'nDCG@10'), got {type(measure).__name__}"
        )
    judged = canonical_qrels(as_frame(qrels, "qrels"))
    canonical, keys = select_systems(*canonical_run_keys(as_frame(runs, "run"), columns), systems)
    if how in SCORE_METHODS and norm not in ("rank", "borda") and "score" not in canonical.columns:
        raise SchemaError(
            f"{SCORE_METHODS[how]} fuses scores, but the run has only a 'rank' column. Add a "
            "'score' column, or use norm='rank' / norm='borda', or method='rrf'."
        )
    run_queries = set(canonical["query"].astype(str))
    judged_queries = set(judged["query"].astype(str))
    if queries is None:
        train = sorted(run_queries & judged_queries)
        if not train:
            raise SchemaError(
                f"no training queries: the run and the qrels share no query (run: "
                f"{sorted(run_queries)[:5]}, qrels: {sorted(judged_queries)[:5]}). Check the query "
                "ids."
            )
    else:
        if isinstance(queries, (bytes, dict)) or not hasattr(queries, "__iter__"):
            raise TypeError(f"queries= must be a list of query ids, got {type(queries).__name__}.")
        train = [queries] if isinstance(queries, str) else [str(q) for q in queries]
        if not train:
            raise OptionError(
                "queries= is empty, so there is nothing to tune on. Pass the training query ids, "
                "or queries=None for every judged query of the run."
            )
        for where, have in (("run", run_queries), ("qrels", judged_queries)):
            unknown = [q for q in train if q not in have]
            if unknown:
                raise SchemaError(
                    f"queries= names {len(unknown)} query(s) the {where} does not have (first: "
                    f"{unknown[0]!r}; the {where} has {sorted(have)[:5]}...). Pass training "
                    "queries "
                    "that the run retrieves for and the qrels judge."
                )
    rows = np.flatnonzero(canonical["query"].astype(str).isin(train).to_numpy())
    canonical, keys = canonical.iloc[rows].reset_index(drop=True), keys.take(rows)
    judged = judged[judged["query"].astype(str).isin(train).to_numpy()]
    lists = FusionLists(canonical, keys)
    n_sys = len(lists.systems)
    grid = weight_grid(n_sys, step)
    values, dense = fusion_contributions(lists, how, norm=norm, k=k, phi=phi)
    query_ids = pd.array(np.asarray(lists.queries, dtype=object)[lists.u_query], dtype="string")
    doc_ids = pd.array(np.asarray(lists.docs, dtype=object)[lists.u_doc], dtype="string")
    per_chunk = max(1, _ROWS_PER_CHUNK // max(lists.n_u, 1))
    means = np.empty(len(grid))
    parts = [slice(s, min(s + per_chunk, len(grid))) for s in range(0, len(grid), per_chunk)]
    for part in progress_bar(parts, desc="weight grid", progress=progress):
        w = grid[part]  # trials x systems
        # the scores fuse(runs, weights=w[t]) gives, bit for bit (same sums, same rounding)
        fused = tie_fused(combine(lists, how, values, dense, w), lists.u_query)  # U x trials
        t = w.shape[0]
        run = pd.DataFrame(
            {
                "system": np.repeat(np.arange(part.start, part.stop).astype(str), lists.n_u),
                "query": np.tile(query_ids, t),
                "doc": np.tile(doc_ids, t),
                "score": fused.T.ravel(),
            }
        )
        scores = evaluate(run, measure, qrels=judged)
        got = scores.groupby("system", sort=False)["value"].mean()
        means[part] = got.reindex(np.arange(part.start, part.stop).astype(str)).to_numpy()
    best = int(np.argmax(means))
    n_t = len(grid)
    return pd.DataFrame(
        {
            "trial": np.repeat(np.arange(n_t, dtype=np.int64), n_sys),
            "system": pd.array(
                np.tile(np.asarray(lists.systems, dtype=object), n_t), dtype="string"
            ),
            "weight": grid.ravel(),
            "measure": str(scores["measure"].iloc[0]),
            "value": np.repeat(means, n_sys),
            "n_queries": np.int64(len(train)),
            "best": np.repeat(np.arange(n_t) == best, n_sys),
        }
    )
