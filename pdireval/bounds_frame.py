"""Run (+ qrels) -> per-query measure values with their ideal, random and worst bounds:
:func:`bounds` (Karmaker & Feng 2022; Gienapp et al. 2020) and the report's shortcut on
prepared segments, :func:`bounds_of_segments`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.segments import Segments
from pdireval.errors import MeasureError, check_int, check_option, check_rng, options_by_name
from pdireval.evaluation import prepare, scores_frame
from pdireval.measures import compute
from pdireval.measures.bounds import bounded_names, measure_bounds, normalise
from pdireval.measures.params import LB, MAX_MC_SAMPLES, RLB_POOLS
from pdireval.measures.registry import labelled_measures

if TYPE_CHECKING:
    from typing import Literal

    from pdireval.types import Measures, Missing, Order, RngLike

__all__ = ["bounds", "bounds_of_segments"]


def _override(m, lb, rlb_pool, n_resamples, seed):
    if m.name not in bounded_names():
        raise MeasureError(
            f"{m} has no bounds: the bound frame covers {', '.join(bounded_names())} (any "
            "parameters, "
            "e.g. 'nDCG(gain=exp)@10', 'SP@10', 'RR(lb=mc)')."
        )
    changes = {}
    if lb is not None:
        changes["lb"] = lb
    if rlb_pool is not None:
        changes["rlb_pool"] = rlb_pool
    if n_resamples is not None:
        changes["mc_samples"] = n_resamples
    if seed is not None:
        changes["mc_seed"] = seed
    return m.replace(**changes) if changes else m


@options_by_name
def bounds(
    run: pd.DataFrame,
    measures: Measures,
    *,
    qrels: pd.DataFrame | None = None,
    lb: Literal["exact", "paper", "mc"] | None = None,
    rlb_pool: Literal["qrels", "run"] | None = None,
    n_resamples: int | None = None,
    rng: RngLike = None,
    missing: Missing = "zero",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    order: Order = "score",
) -> pd.DataFrame:
    """Per (system, query, measure): the value and its ideal, random and worst values.

    For a measure A@k and a query (Karmaker & Feng 2022;
    Gienapp et al. 2020):

    * ``ideal`` (IUB): A of the ideal ranking of the judged pool — IDCG@k for DCG,
      ``min(k, Np)`` for SP@k (Karmaker & Feng (2022) write k, right only when Np >= k), 1 for nDCG;
    * ``random`` (RLB): the expectation of A under a uniformly random permutation of the pool,
      exactly (``lb="exact"``: E[DCG@k] = ḡ·Σ_{i<=min(k,n)} w_i; E[SP@k] =
      p·Σ_{i<=min(k,N)} [1 + (i−1)(Np−1)/(N−1)]/i; Bestgen's E[AP]), as published by Karmaker &
      Feng (2022) (``lb="paper"``: eq. 7 summing to k even past n, and the k·p² of its Section
      4.5.1, which is wrong — see :func:`pdireval.measures.bounds.expected_sp_paper`), or by
      Monte-Carlo (``lb="mc"``, any measure);
    * ``worst`` (WLB): A of the worst ranking — WDCG@k (pool sorted ascending; Gienapp et al.
      2020), SP of the all-non-relevant-first ranking.

    Measures other than DCG/nDCG/SP/AP take their ideal and worst values from the pool sorted
    by label (descending / ascending). For a bound-normalised measure (``bounds=`` minmax, ul1
    or ul2) ``value``, ``ideal``, ``random`` and ``worst`` are the normalised values of A, IUB,
    RLB and WLB (for ul2: 1 and 0 for ideal and random by construction).

    Parameters
    ----------
    run
        Run frame (see :func:`pdireval.evaluate`).
    measures
        Measure string(s) among DCG, nDCG, SP, AP, P, R (closed forms) and RR, Rprec,
        Success, ERR, RBP, GAP (``lb=mc``), e.g. ``"nDCG(gain=exp)@10"``, ``"SP@10"``.
    qrels
        Judgments; when omitted, the run's ``label`` column (the re-ranking case).
    lb, rlb_pool, n_resamples, rng
        Override the measures' ``lb``, ``rlb_pool``, ``mc_samples`` and ``mc_seed``
        parameters: ``lb`` in exact / paper / mc; ``rlb_pool`` = ``"qrels"`` (a random
        permutation of the judged pool of the query, default) or ``"run"`` (of the documents
        the run ranks, unjudged ones with gain 0 — for re-ranking data both coincide);
        ``n_resamples`` Monte-Carlo permutations; ``rng`` a seed (int) or a numpy Generator
        (one seed is drawn from it). The ``measure`` column shows the overridden spelling.
    missing, columns, qrels_columns, order
        As in :func:`pdireval.evaluate`.

    Returns
    -------
    DataFrame
        ``system``, ``query``, ``measure`` (the name as given, as in :func:`evaluate`;
        the canonical spelling when ``lb``, ``rlb_pool``, ``n_resamples`` or ``rng``
        override a parameter), ``value`` (the measure, as
        :func:`pdireval.evaluate` gives it), ``ideal``, ``random``, ``random_se`` (Monte-Carlo
        standard error of ``random``: 0 for a closed form, NaN for a bound-normalised measure
        estimated by Monte-Carlo), ``worst`` (float64); rows ordered as :func:`evaluate`.
        The values are in the measure's own units (nDCG: divided by IDCG; AP: by R; 0 where
        the measure divides by 0). NaN: undefined, e.g. E[AP] with no relevant document.

    Raises
    ------
    OptionError
        An invalid ``lb``, ``rlb_pool`` or ``n_resamples``.
    MeasureError
        A measure without bounds, ``lb="exact"`` for a measure without a closed form (use
        ``"mc"``), ``lb="paper"`` outside DCG/nDCG/SP/AP.

    References
    ----------
    Karmaker, S. K., & Feng, D. (2022). Joint Upper & Lower Bound Normalization for IR Evaluation.
    Preprint. Gienapp, L., Fröbe, M., Hagen, M., & Potthast, M. (2020). The Impact of Negative
    Relevance Judgments on NDCG. CIKM 2020. Bestgen, Y. (2015). Exact Expected Average Precision
    of the Random Baseline for System Evaluation. The Prague Bulletin of Mathematical Linguistics
    103.

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=3, depth=20, rng=1)
    >>> frame = pdireval.bounds(run, "nDCG(gain=exp)@10", qrels=qrels)
    >>> list(frame.columns)
    ['system', 'query', 'measure', 'value', 'ideal', 'random', 'random_se', 'worst']
    """
    if lb is not None:
        check_option("lb", lb, LB)
    if rlb_pool is not None:
        check_option("rlb_pool", rlb_pool, RLB_POOLS)
    if n_resamples is not None:  # Monte-Carlo permutations per query
        n_resamples = check_int("n_resamples", n_resamples, minimum=2, maximum=MAX_MC_SAMPLES)
    seed = None if rng is None else check_rng(rng)
    changed = lb is not None or rlb_pool is not None or n_resamples is not None or seed is not None
    named: dict = {}
    for label, m in labelled_measures(measures):
        m = _override(m, lb, rlb_pool, n_resamples, seed)
        named.setdefault(str(m) if changed else label, m)  # overridden: the new spelling
    prepared = prepare(
        run, qrels=qrels, missing=missing, columns=columns, qrels_columns=qrels_columns, order=order
    )
    return bounds_of_segments(prepared.segments, list(named.values()), list(named))


def bounds_of_segments(segments: Segments, parsed, labels=None) -> pd.DataFrame:
    """The frame of :func:`bounds` for parsed measures on already prepared segments (a
    report that evaluated the run reuses its segments: no second validation or join);
    ``labels``: the ``measure`` column's name of each (default: canonical)."""
    names = ("value", "ideal", "random", "random_se", "worst")
    cols: dict[str, list] = {name: [] for name in names}
    for m in parsed:
        value = compute(segments, m)
        b = measure_bounds(segments, m)
        kind = m.get("bounds")
        if kind == "max":
            cols["ideal"].append(b.ideal * b.scale)
            cols["random"].append(b.random * b.scale)
            cols["random_se"].append(b.random_se * b.scale)
            cols["worst"].append(b.worst * b.scale)
        else:
            lower = m.get("lower")
            cols["ideal"].append(normalise(b.ideal, b.ideal, b.random, b.worst, kind, lower=lower))
            cols["random"].append(
                normalise(b.random, b.ideal, b.random, b.worst, kind, lower=lower)
            )
            cols["random_se"].append(np.full(len(value), np.nan if m.get("lb") == "mc" else 0.0))
            cols["worst"].append(normalise(b.worst, b.ideal, b.random, b.worst, kind, lower=lower))
        cols["value"].append(value)
    frame = scores_frame(segments, parsed, cols["value"], labels)
    for name in ("ideal", "random", "random_se", "worst"):
        frame[name] = scores_frame(segments, parsed, cols[name], labels)["value"].to_numpy()
    return frame


# --------------------------------------------------------------------------- unjudged bounds
