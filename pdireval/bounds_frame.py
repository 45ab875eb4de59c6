"""Run (+ qrels) -> per-query bound frame: value, ideal, random and worst value of each measure."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .errors import MeasureError, OptionError, check_option
from .evaluate import prepare, scores_frame
from .measures import compute, parse_measures
from .measures.bounds import BOUNDED, LB, RLB_POOLS, measure_bounds, normalise

__all__ = ["bounds"]


def _override(m, lb, rlb_pool, n_resamples, seed):
    if m.name not in BOUNDED:
        raise MeasureError(
            f"{m} has no bounds: the bound frame covers {', '.join(BOUNDED)} (any parameters, "
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


def bounds(
    run: pd.DataFrame,
    measures,
    *,
    qrels: pd.DataFrame | None = None,
    lb: str | None = None,
    rlb_pool: str | None = None,
    n_resamples: int | None = None,
    rng=None,
    missing: str = "zero",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    order: str = "score",
) -> pd.DataFrame:
    """Per (system, query, measure): the value and its ideal, random and worst values.

    For a measure A@k and a query (methods-spec §2.4, §3, §4; Karmaker & Feng 2022, seed 000;
    Gienapp et al. 2020, seed 002):

    * ``ideal`` (IUB): A of the ideal ranking of the judged pool — IDCG@k for DCG,
      ``min(k, Np)`` for SP@k (seed 000 writes k, right only when Np >= k), 1 for nDCG;
    * ``random`` (RLB): the expectation of A under a uniformly random permutation of the pool,
      exactly (``lb="exact"``: E[DCG@k] = ḡ·Σ_{i<=min(k,n)} w_i; E[SP@k] =
      p·Σ_{i<=min(k,N)} [1 + (i−1)(Np−1)/(N−1)]/i; Bestgen's E[AP]), as published by seed 000
      (``lb="paper"``: eq. 7 summing to k even past n, and the k·p² of §4.5.1, which is
      wrong — see :func:`pdireval.measures.bounds.expected_sp_paper`), or by Monte-Carlo
      (``lb="mc"``, any measure);
    * ``worst`` (WLB): A of the worst ranking — WDCG@k (pool sorted ascending, seed 002), SP of
      the all-non-relevant-first ranking.

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
        ``system``, ``query``, ``measure`` (canonical spelling), ``value`` (the measure, as
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
    if n_resamples is not None and (isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 2):
        raise OptionError(f"n_resamples= must be a whole number >= 2 (Monte-Carlo permutations per query); got {n_resamples!r}.")
    seed = None
    if isinstance(rng, np.random.Generator):
        seed = int(rng.integers(0, 2**31))
    elif rng is not None:
        if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)) or rng < 0:
            raise TypeError(f"rng= must be a non-negative int seed or a numpy Generator, got {rng!r}")
        seed = int(rng)
    parsed = [_override(m, lb, rlb_pool, n_resamples, seed) for m in parse_measures(measures)]
    parsed = list(dict.fromkeys(parsed))
    prepared = prepare(run, qrels=qrels, missing=missing, columns=columns, qrels_columns=qrels_columns, order=order)
    segments = prepared.segments
    cols = {name: [] for name in ("value", "ideal", "random", "random_se", "worst")}
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
            cols["random"].append(normalise(b.random, b.ideal, b.random, b.worst, kind, lower=lower))
            cols["random_se"].append(np.full(len(value), np.nan if m.get("lb") == "mc" else 0.0))
            cols["worst"].append(normalise(b.worst, b.ideal, b.random, b.worst, kind, lower=lower))
        cols["value"].append(value)
    frame = scores_frame(segments, parsed, cols["value"])
    for name in ("ideal", "random", "random_se", "worst"):
        frame[name] = scores_frame(segments, parsed, cols[name])["value"].to_numpy()
    return frame
