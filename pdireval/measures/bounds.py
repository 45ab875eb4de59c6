"""Bounds of a measure per query, and bound-normalised measures (seeds 000 and 002).

For a measure A@k and a query, three reference values:

* **IUB** (ideal upper bound): A of the ideal ranking of the judged pool (labels or gains
  sorted descending) — IDCG@k for DCG, ``min(k, Np)`` for SP@k (Karmaker & Feng (2022) write k,
  which is
  right only when Np >= k).
* **WLB** (worst lower bound): A of the worst ranking (sorted ascending) — WDCG@k for DCG
  (Gienapp et al. 2020), the all-non-relevant-first ranking for SP.
* **RLB** (random lower bound): the expectation of A under a uniformly random permutation of
  the pool — exactly where a closed form exists (E[DCG@k], E[SP@k], Bestgen's E[AP]), as
  published (Karmaker & Feng 2022, ``lb=paper``), or by a vectorized Monte-Carlo estimate for any
  registered measure (``lb=mc``).

Every measure that supports bounds takes the parameters ``bounds`` (``max`` = the ordinary
measure, ``minmax`` = Gienapp et al.'s (2020) NDCG_min, ``ul1`` / ``ul2`` = Karmaker & Feng's (2022)
V1 / V2), ``lb``
(``exact`` / ``paper`` / ``mc``), ``lower`` (``paper`` / ``worst``, V2's lower branch),
``rlb_pool`` (``qrels`` / ``run``), ``mc_samples`` and ``mc_seed``, and ``clip`` (NDCG_min
clipped to [0, 1]; off by default).

Units: the DCG family is normalised in DCG units (A = DCG@k, IUB = IDCG@k, RLB = E[DCG@k],
WLB = WDCG@k), the AP family in SP units (AP@k = SP@k / R). Every normalisation here is
invariant to a positive rescaling of (A, IUB, RLB, WLB), so ``nDCG(bounds=ul2)@10`` equals
``DCG(bounds=ul2)@10`` and ``AP(bounds=ul1)@10`` equals ``SP(bounds=ul1)@10`` (for R > 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdireval.core.segments import Segments
from pdireval.errors import MeasureError
from pdireval.measures.params import (
    BOUND_PARAM_NAMES,
    BOUNDS,
    LB,
    LOWER,
    RLB_POOLS,
)
from pdireval.measures.registry import REGISTRY, Measure, build_measure, thaw
from pdireval.measures.standard.kernels import dcg_values, ordered_pool_dcg
from pdireval.measures.toolkit import relevant, view_for
from pdireval.measures.view import (
    View,
    discount_weights,
    gain_values,
    read_negatives,
    sorted_per_query,
)

__all__ = [
    "BOUNDS",
    "LB",
    "LOWER",
    "RLB_POOLS",
    "Bounds",
    "bounded_names",
    "bounded_values",
    "check_combination",
    "measure_bounds",
    "normalise",
    "expected_dcg",
    "expected_sp",
    "expected_sp_paper",
    "expected_ap",
    "worst_sp",
    "monte_carlo",
]

#: relative tolerance of the degenerate case of the UL normalisation (IUB - RLB <= TOL·max(1,
#: |IUB|))
TOL = 1e-12


def _bounded():
    """The measures that take bounds=, in registration order."""
    return [d for d in REGISTRY.values() if d.bounded is not None]


def bounded_names() -> list[str]:
    """The names of the measures declared ``bounded`` (they take ``bounds=``)."""
    return [d.name for d in _bounded()]


# --------------------------------------------------------------------------- helpers


def _harmonic(n: np.ndarray) -> np.ndarray:
    """H_n = sum_{i=1}^{n} 1/i for real n >= 0 (H_0 = 0), via the digamma function."""
    from scipy.special import digamma  # on first need: scipy.special costs ~0.3 s to import

    n = np.asarray(n, dtype=np.float64)
    return digamma(n + 1.0) + np.euler_gamma


def _div(num, den) -> np.ndarray:
    """num / den, 0 where den == 0 (the measures' own convention, e.g. nDCG with IDCG = 0)."""
    num, den = np.broadcast_arrays(
        np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    )
    out = np.zeros(num.shape, dtype=np.float64)
    ok = den != 0
    out[ok] = num[ok] / den[ok]
    return out


def _base_name(m: Measure) -> str:
    """The measure whose units the bounds live in (its declared ``base``: DCG for nDCG, SP for
    AP), else the measure itself."""
    return REGISTRY[m.name.lower()].bounded.base or m.name


def _plain(m: Measure, name: str | None = None) -> Measure:
    """``m`` (or its base measure) without bound parameters: the ordinary measure."""
    params = {k: thaw(v) for k, v in m.params if k not in BOUND_PARAM_NAMES}
    definition = REGISTRY[(name or m.name).lower()]
    declared = {p.name for p in definition.params}
    return build_measure(
        definition.name, {k: v for k, v in params.items() if k in declared}, m.cutoff
    )


def _judged_q(v: View) -> np.ndarray:
    """Mask of qrels rows that are in the judged pool under the view's label reading."""
    return ~np.isnan(v.q_label)


def retrieved_pool_dcg(v: View, m: Measure, depth, *, descending: bool = True) -> np.ndarray:
    """Per query: DCG@k of the gains of the distinct judged documents that at least one of the
    evaluated runs retrieved (at a rank <= ``depth``; all ranks when None), sorted descending
    (IDCG) or ascending (WDCG): Gienapp et al.'s (2020) pool, counted once per document."""
    seg = v.segments
    if seg.hit_qrow is None:
        raise MeasureError(
            "pool=retrieved needs the qrels row of each retrieved document; evaluate the run "
            "itself."
        )
    labels = read_negatives(seg.hit_label, v.negatives)
    keep = ~np.isnan(labels)
    if depth is not None:
        keep &= seg.hit_pos < depth
    qrow = np.unique(seg.hit_qrow[keep])
    rq = seg.judgments.row_query[qrow]
    gains = gain_values(v.q_label[qrow], m.get("gain"))
    rq, gains, pos = sorted_per_query(rq, gains, descending=descending)
    inside = np.ones(len(pos), dtype=bool) if m.cutoff is None else pos < m.cutoff
    weights = discount_weights(pos[inside], m.get("discount"), m.cutoff)
    return np.bincount(rq[inside], weights=gains[inside] * weights, minlength=v.n_queries)


def _pool_counts(v: View, m: Measure, pool: str):
    """(N, Np) per segment: pool size and relevant documents (label >= rel) in it."""
    rel = m.get("rel", 1.0)
    if pool == "qrels":
        judged = _judged_q(v)
        N = v.per_query_count(judged)[v.seg_query]
        Np = v.num_rel(rel)[v.seg_query]
    else:
        N = v.seg_len.astype(np.float64)
        Np = np.bincount(v.hit_seg[relevant(v, rel)], minlength=v.n_seg).astype(np.float64)
    return N, Np


def _discount_table(m: Measure, upto: int) -> np.ndarray:
    """W[j] = sum_{i=1}^{j} w_i for j = 0..upto (the discount of the measure)."""
    w = discount_weights(np.arange(max(upto, 0)), m.get("discount"), m.cutoff)
    return np.concatenate([[0.0], np.cumsum(w)])


# --------------------------------------------------------------------------- closed forms


def expected_dcg(v: View, m: Measure, *, pool: str = "qrels", paper: bool = False) -> np.ndarray:
    """E[DCG@k] of a uniformly random ranking, per segment.

    Exactly, for any gain and discount (negative gains too): every position i <= n holds a
    uniformly random document of the pool, so

        E[DCG@k] = ḡ · Σ_{i=1}^{min(k, n)} w_i,    ḡ = (1/n) Σ_{d in pool} gain(ℓ_d),

    and 0 for an empty pool. ``paper=True`` gives Karmaker & Feng's (2022) eq. 7 literally, which
    sums the
    discounts to k even when k > n and then overstates the expectation; for k <= n both agree.
    ``pool="qrels"``: the judged documents of the query
    (n = |D(q)|); ``pool="run"``: the documents the run ranks (n = list length, unjudged
    documents with gain 0).
    """
    gain = m.get("gain")
    if pool == "qrels":
        judged = _judged_q(v)
        rq = v.q_row_query[judged]
        gsum = np.bincount(rq, weights=gain_values(v.q_label[judged], gain), minlength=v.n_queries)
        n = np.bincount(rq, minlength=v.n_queries).astype(np.int64)
        gsum, n = gsum[v.seg_query], n[v.seg_query]
    else:
        gsum = np.bincount(v.hit_seg, weights=gain_values(v.hit_label, gain), minlength=v.n_seg)
        n = v.seg_len.astype(np.int64)
    k = m.cutoff
    depth = n if k is None else (np.full_like(n, k) if paper else np.minimum(n, k))
    table = _discount_table(m, int(depth.max()) if len(depth) else 0)
    return _div(gsum, n) * table[depth]


def expected_sp(N, Np, k) -> np.ndarray:
    """Exact E[SP@k] of a random permutation of N documents, Np relevant.

    With p = Np/N and m = min(k, N) (k = None: m = N)::

        E[SP@k] = p · Σ_{i=1}^{m} [1 + (i − 1)(Np − 1)/(N − 1)] / i
                = p · [H_m (N − Np)/(N − 1) + m (Np − 1)/(N − 1)]      (N >= 2)

    p for N = 1, 0 for N = 0. Karmaker & Feng (2022) assumes Prec(i) and R_i independent and gets
    k p², which underestimates the baseline for every k < N (see :func:`expected_sp_paper`).
    """
    N = np.asarray(N, dtype=np.float64)
    Np = np.asarray(Np, dtype=np.float64)
    m = N if k is None else np.minimum(N, float(k))
    p = _div(Np, N)
    safe = np.where(N >= 2, N - 1.0, 1.0)
    many = p * (_harmonic(m) * (N - Np) / safe + m * (Np - 1.0) / safe)
    return np.where(N >= 2, many, np.where(N == 1, p, 0.0))


def expected_sp_paper(N, Np, k) -> np.ndarray:
    """Karmaker & Feng's (2022) published E[SP@k] ≈ k·(Np/N)² (their Section 4.5.1; k = None
    reads as k = N).

    It rests on the false assumption that Prec(i) and R_i are independent; the gap to the
    exact value is E[SP@k] − k p² = p·Nn/(N − 1)·(H_k − k/N) >= 0 for k <= N, and for k > N the
    literal k p² keeps growing while the truth stops at m = N.
    """
    N = np.asarray(N, dtype=np.float64)
    p = _div(Np, N)
    kk = N if k is None else float(k)
    return kk * p * p


def expected_ap(N, Np) -> np.ndarray:
    """Exact E[AP] (full depth, divided by Np) of a random ranking (Bestgen 2015):
    E[SP@N]/Np = (N − Np)·H_N/(N(N − 1)) + (Np − 1)/(N − 1); NaN for Np = 0. The folk value
    Np/N is only an approximation."""
    N = np.asarray(N, dtype=np.float64)
    Np = np.asarray(Np, dtype=np.float64)
    out = np.full(N.shape, np.nan)
    ok = Np > 0
    out[ok] = expected_sp(N[ok], Np[ok], None) / Np[ok]
    return out


def worst_sp(N, Np, k) -> np.ndarray:
    """WLB[SP@k]: SP@k of the ranking that puts every non-relevant document first.

    With Nn = N − Np and c = max(0, min(k, N) − Nn) relevant documents inside the top k,
    WLB = Σ_{j=1}^{c} j/(Nn + j) = c − Nn·(H_{Nn+c} − H_{Nn}).
    """
    N = np.asarray(N, dtype=np.float64)
    Np = np.asarray(Np, dtype=np.float64)
    Nn = N - Np
    m = N if k is None else np.minimum(N, float(k))
    c = np.maximum(0.0, m - Nn)
    return np.where(c > 0, c - Nn * (_harmonic(Nn + c) - _harmonic(Nn)), 0.0)


def _expected_precision(N, Np, k):
    """E[P@k] = (Np/N)·min(k, N)/k: each of the first min(k, N) positions is relevant with
    probability Np/N (trec_eval's P@k divides by k even when the list is shorter)."""
    return _div(Np, N) * np.minimum(N, float(k)) / float(k)


def _expected_recall(N, Np, k):
    """E[R@k] = min(k, N)/N when Np > 0 (each relevant document is in the top k with
    probability min(k, N)/N), 0 when Np = 0 (trec_eval's convention)."""
    m = N if k is None else np.minimum(N, float(k))
    return np.where(Np > 0, _div(m, N), 0.0)


# --------------------------------------------------------------------------- synthetic rankings


def _pool_rows(v: View, pool: str):
    """The documents a random ranking permutes, grouped: (group of each document, raw label
    of each document or NaN for an unjudged filler, is-hit mask, group starts, group query)."""
    segments = v.segments
    raw_q = segments.judgments.label
    if pool == "qrels":
        judged = _judged_q(v)
        grp = v.q_row_query[judged]
        lab = raw_q[judged]
        hit = np.ones(len(grp), dtype=bool)
        counts = np.bincount(grp, minlength=v.n_queries)
        gq = np.arange(v.n_queries)
    else:
        if v.judged_only:
            keep = ~np.isnan(read_negatives(segments.hit_label, v.negatives))
            hseg, hlab = segments.hit_seg[keep], segments.hit_label[keep]
        else:
            hseg, hlab = segments.hit_seg, segments.hit_label
        n_hits = np.bincount(hseg, minlength=v.n_seg)
        fill = np.maximum(v.seg_len - n_hits, 0)
        grp = np.concatenate([hseg, np.repeat(np.arange(v.n_seg), fill)])
        lab = np.concatenate([hlab, np.full(int(fill.sum()), np.nan)])
        hit = np.concatenate([np.ones(len(hseg), bool), np.zeros(int(fill.sum()), bool)])
        o = np.argsort(grp, kind="stable")
        grp, lab, hit = grp[o], lab[o], hit[o]
        counts = np.bincount(grp, minlength=v.n_seg)
        gq = v.seg_query
    start = np.concatenate([[0], np.cumsum(counts)])
    return grp, lab, hit, start, gq


def _synthetic(segments: Segments, gq, glen, hit_seg, hit_pos, hit_label) -> Segments:
    n = len(gq)
    return Segments(
        systems=pd.Index(["_"], name="system"),
        seg_system=np.zeros(n, dtype=np.int64),
        seg_query=np.asarray(gq, dtype=np.int64),
        seg_len=np.asarray(glen, dtype=np.int64),
        hit_seg=hit_seg.astype(np.int64),
        hit_pos=hit_pos.astype(np.int64),
        hit_label=hit_label,
        judgments=segments.judgments,
    )


def _ordered_value(v: View, m: Measure, descending: bool) -> np.ndarray:
    """A generic ideal / worst value per segment: ``m`` on the judged pool sorted by label
    (descending = ideal, ascending = worst), for measures without a dedicated form."""
    grp, lab, hit, start, gq = _pool_rows(v, "qrels")
    shown = read_negatives(lab, v.negatives)
    o = np.lexsort((-shown if descending else shown, grp))
    pos = np.arange(len(grp)) - start[grp]
    seg = _synthetic(v.segments, gq, np.diff(start), grp, pos, lab[o])
    values = REGISTRY[m.name.lower()].kernel(seg, m)
    return values[v.seg_query]


#: above this many drawn positions the Monte-Carlo shuffle sorts random keys instead
FISHER_YATES_MAX = 64


def monte_carlo(
    v: View,
    m: Measure,
    *,
    pool: str = "qrels",
    n_samples: int = 1000,
    seed=0,
    max_cells: int = 4_000_000,
):
    """Monte-Carlo estimate of E[m] under a uniformly random ranking, per segment.

    Draw protocol (so that a seed reproduces the numbers): ``rng = default_rng(seed)``;
    permutations are drawn in chunks of B = min(n_samples, max(1, max_cells // D)) (D = pool
    documents over all groups; a group is a query for pool ``qrels``, a segment for pool
    ``run``). Within a chunk, every group's documents are shuffled by a partial Fisher–Yates
    pass over the first m = min(k, n_g) positions (all n_g without a cut-off): for
    j = 0, 1, ..., ``u = rng.random((B, G))`` and position j of group g swaps with position
    j + floor(u·(n_g − j)) (groups with n_g <= j are left alone). When more than
    ``FISHER_YATES_MAX`` (64) positions are needed (deep cut-offs, full-depth measures), the
    chunk is instead shuffled at once: ``keys = rng.random((B, D)) + group index`` and each
    row is ordered by ``argsort`` (groups stay contiguous). The measure's own kernel
    then scores all B × G synthetic rankings at once. Returns ``(mean, standard error)`` per
    segment, the standard error being the sample standard deviation (ddof 1) over √B.
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    kernel = REGISTRY[m.name.lower()].kernel
    grp, lab, hit, start, gq = _pool_rows(v, pool)
    n_docs, n_grp = len(grp), len(gq)
    glen = np.diff(start)
    first = start[:-1]
    k = m.cutoff
    depth = glen if k is None else np.minimum(glen, k)
    # the columns that end up in the evaluated top: group g's positions 0..depth_g - 1
    top_grp = np.repeat(np.arange(n_grp), depth)
    top_pos = np.arange(len(top_grp)) - np.repeat(np.cumsum(depth) - depth, depth)
    top_col = first[top_grp] + top_pos
    steps = int(depth.max()) if n_grp else 0
    total = np.zeros(n_grp)
    total_sq = np.zeros(n_grp)
    chunk = max(1, min(n_samples, max_cells // max(n_docs, 1)))
    done = 0
    while done < n_samples:
        b = min(chunk, n_samples - done)
        if steps > FISHER_YATES_MAX:  # deep lists: shuffle whole groups by sorting keys
            arr = np.argsort(rng.random((b, n_docs)) + grp, axis=1)
        else:
            arr = np.broadcast_to(np.arange(n_docs, dtype=np.int64), (b, n_docs)).copy()
            rows = np.arange(b)[:, None]
            # a loop over rank positions (<= the cut-off), vectorized over permutations and groups
            for j in range(steps):
                u = rng.random((b, n_grp))
                live = glen > j
                p = first[live] + j
                q = p + np.floor(u[:, live] * (glen[live] - j)).astype(np.int64)
                a = arr[rows, p]
                arr[rows, p] = arr[rows, q]
                arr[rows, q] = a
        sub = arr[:, top_col]
        r_idx, c_idx = np.nonzero(hit[sub])
        seg = _synthetic(
            v.segments,
            np.tile(gq, b),
            np.tile(glen, b),
            r_idx * n_grp + top_grp[c_idx],
            top_pos[c_idx],
            lab[sub[r_idx, c_idx]],
        )
        values = kernel(seg, m).reshape(b, n_grp)
        total += values.sum(axis=0)
        total_sq += (values * values).sum(axis=0)
        done += b
    mean = total / n_samples
    var = np.maximum(total_sq - n_samples * mean * mean, 0.0) / (n_samples - 1)
    se = np.sqrt(var / n_samples)
    if pool == "qrels":
        return mean[v.seg_query], se[v.seg_query]
    return mean, se


# --------------------------------------------------------------------------- bounds per segment


@dataclass
class Bounds:
    """Per segment, in the units of the measure's base (DCG for nDCG, SP for AP):
    ``value`` A, ``ideal`` IUB, ``random`` RLB (``random_se`` its Monte-Carlo standard error,
    0 for a closed form), ``worst`` WLB, and ``scale`` (multiply to get the measure's own
    units: 1/IDCG for nDCG, 1/R for AP, else 1; 0 where the measure divides by 0)."""

    value: np.ndarray
    ideal: np.ndarray
    random: np.ndarray
    random_se: np.ndarray
    worst: np.ndarray
    scale: np.ndarray


def measure_bounds(segments: Segments, m: Measure, *, worst: bool = True) -> Bounds:
    """Value, IUB, RLB and WLB of ``m`` per segment (see :class:`Bounds`).

    ``worst=False`` skips the WLB (NaN), which only ``bounds=minmax`` and ``lower=worst``
    need: for the DCG family it costs a second sort of the pool.
    """
    name = m.name
    definition = REGISTRY[name.lower()]
    if definition.bounded is None:
        names = ", ".join(d.name for d in _bounded())
        raise MeasureError(f"{name} has no bounds; measures with bounds: {names}.")
    key = ("bounds", m.replace(bounds="max", lower="paper", clip=False))
    cached = segments.cache.get(key)
    if cached is not None and (cached[1] or not worst):
        return cached[0]
    want_worst = worst
    v = view_for(segments, m)
    base = _plain(m, _base_name(m))
    lb, pool = m.get("lb"), m.get("rlb_pool")
    if lb == "exact" and not definition.bounded.exact:
        raise MeasureError(
            f"{name} has no closed-form random lower bound (in {str(m)!r}): estimate it by "
            f"Monte-Carlo with lb=mc, e.g. '{str(m.replace(lb='mc'))}'. Closed forms exist for "
            f"{', '.join(sorted(d.name for d in _bounded() if d.bounded.exact))}."
        )
    if lb == "paper" and not definition.bounded.paper:
        published = ", ".join(d.name for d in _bounded() if d.bounded.paper)
        raise MeasureError(
            f"Karmaker & Feng (2022) publish a random lower bound only for {published}, not "
            f"for {name} "
            f"(in {str(m)!r}): use lb=exact or lb=mc."
        )
    n = v.n_seg
    se = np.zeros(n)
    form = definition.bounded.form
    # a measure declared with a base is its base divided by the form's normaliser
    normalised = bool(definition.bounded.base)
    if form == "dcg" and m.get("pool") == "retrieved":
        value = dcg_values(v, base)
        ideal = retrieved_pool_dcg(v, base, m.get("pool_depth"))[v.seg_query]
        worst_value = retrieved_pool_dcg(v, base, m.get("pool_depth"), descending=False)[
            v.seg_query
        ]
        scale = _div(1.0, ideal) if normalised else np.ones(n)
        random = np.full(n, np.nan)  # minmax only: no random bound
    elif form == "dcg":
        value = dcg_values(v, base)
        ideal = ordered_pool_dcg(v, base)[v.seg_query]
        worst_value = (
            ordered_pool_dcg(v, base, descending=False)[v.seg_query]
            if want_worst
            else np.full(n, np.nan)
        )
        scale = _div(1.0, ideal) if normalised else np.ones(n)
        if lb == "mc":
            random, se = monte_carlo(
                v, base, pool=pool, n_samples=m.get("mc_samples"), seed=m.get("mc_seed")
            )
        else:
            random = expected_dcg(v, base, pool=pool, paper=lb == "paper")
    elif form == "sp":
        k, rel = m.cutoff, m.get("rel")
        value = base.definition.kernel(segments, base)
        N, Np = _pool_counts(v, m, "qrels")
        ideal = Np if k is None else np.minimum(Np, float(k))
        worst_value = worst_sp(N, Np, k) if want_worst else np.full(n, np.nan)
        scale = _div(1.0, v.num_rel(rel)[v.seg_query]) if normalised else np.ones(n)
        if lb == "mc":
            random, se = monte_carlo(
                v, base, pool=pool, n_samples=m.get("mc_samples"), seed=m.get("mc_seed")
            )
        else:
            rN, rNp = (N, Np) if pool == "qrels" else _pool_counts(v, m, "run")
            random = (expected_sp_paper if lb == "paper" else expected_sp)(rN, rNp, k)
            if normalised:
                random = np.where(Np > 0, random, np.nan)  # Bestgen: E[AP] undefined for Np = 0
    else:
        plain = _plain(m)
        value = REGISTRY[name.lower()].kernel(segments, plain)
        ideal = _ordered_value(v, plain, descending=True)
        worst_value = (
            _ordered_value(v, plain, descending=False) if want_worst else np.full(n, np.nan)
        )
        scale = np.ones(n)
        if lb == "mc":
            random, se = monte_carlo(
                v, plain, pool=pool, n_samples=m.get("mc_samples"), seed=m.get("mc_seed")
            )
        elif form == "ordered":  # no closed form (lb=exact and lb=paper refused above)
            random = np.full(n, np.nan)
        else:
            N, Np = _pool_counts(v, m, pool)
            expected = _expected_precision if form == "precision" else _expected_recall
            random = expected(N, Np, m.cutoff)
    out = Bounds(value, ideal, random, se, worst_value, scale)
    segments.cache[key] = (out, want_worst)
    return out


def normalise(A, iub, rlb, wlb, bounds: str, *, lower: str = "paper") -> np.ndarray:
    """Bound-normalise values A given IUB, RLB and WLB (all arrays of one shape).

    ``minmax`` (Gienapp et al.'s (2020) NDCG_min)::

        (A − WLB) / (IUB − WLB),  NaN when IUB − WLB <= 1e−12·max(1, |IUB|)

    ``ul1`` (Karmaker & Feng's (2022) V1)::

        V1 = (A / IUB) · (A / (A + RLB))

    Its true range is [0, IUB/(IUB + RLB)], not the claimed [0, 1].

    ``ul2`` (Karmaker & Feng's (2022) V2)::

        V2 = (A − RLB)/(IUB − RLB)  if A >= RLB,  else (A − RLB)/RLB   (lower="paper")
                                                       (A − RLB)/(RLB − WLB) (lower="worst")

    Edge cases: V1 is NaN when IUB <= 0 or A < 0 or RLB < 0,
    0 when A = 0 (and RLB = 0), 0.5 when every permutation scores the same
    (IUB − RLB <= 1e−12·max(1, |IUB|)); V2 is NaN in that degenerate case (which includes
    IUB = RLB = 0), and NaN below the random level when RLB <= 0 (``lower="paper"``) or
    RLB − WLB is degenerate (``lower="worst"``).
    """
    A, iub, rlb, wlb = (
        np.asarray(x, dtype=np.float64) for x in np.broadcast_arrays(A, iub, rlb, wlb)
    )
    tol = TOL * np.maximum(1.0, np.abs(iub))
    out = np.full(A.shape, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        if bounds == "minmax":
            den = iub - wlb
            ok = den > tol
            out[ok] = (A[ok] - wlb[ok]) / den[ok]
        elif bounds == "ul1":
            ok = (iub > 0) & (A >= 0) & (rlb >= 0)
            degenerate = ok & (iub - rlb <= tol)
            zero = ok & ~degenerate & (A == 0)
            rest = ok & ~degenerate & ~zero
            out[degenerate] = 0.5
            out[zero] = 0.0
            out[rest] = (A[rest] / iub[rest]) * (A[rest] / (A[rest] + rlb[rest]))
        elif bounds == "ul2":
            live = iub - rlb > tol
            up = live & (A >= rlb)
            out[up] = (A[up] - rlb[up]) / (iub[up] - rlb[up])
            down = live & (A < rlb)
            if lower == "paper":
                d = down & (rlb > 0)
                out[d] = (A[d] - rlb[d]) / rlb[d]
            else:
                den = rlb - wlb
                d = down & (den > TOL * np.maximum(1.0, np.abs(rlb)))
                out[d] = (A[d] - rlb[d]) / den[d]
        elif bounds == "max":
            return A.copy()
        else:  # pragma: no cover - the parser checks choices
            raise MeasureError(f"unknown bounds={bounds!r}; choose one of {', '.join(BOUNDS)}")
    return out


def check_combination(m: Measure) -> None:
    """A MeasureError for bound options that need another option (clip= without minmax, ...)."""
    bounds = m.get("bounds")
    if m.get("clip") and bounds != "minmax":
        raise MeasureError(
            "clip=true clips Gienapp et al.'s (2020) NDCG_min to [0, 1], so it needs "
            "bounds=minmax (in "
            f"{str(m)!r}): write '{str(m.replace(bounds='minmax'))}' or drop clip=true."
        )
    form = m.definition.bounded.form
    if m.get("pool") != "qrels" and (bounds != "minmax" or form != "dcg"):
        raise MeasureError(
            "pool=retrieved is the pool of Gienapp et al.'s (2020) NDCG_min, so it needs DCG or "
            "nDCG with "
            f"bounds=minmax (in {str(m)!r}): write e.g. 'nDCG(bounds=minmax,pool=retrieved)@10'."
        )
    if m.get("pool_depth") is not None and m.get("pool") != "retrieved":
        raise MeasureError(f"pool_depth= needs pool=retrieved (in {str(m)!r}).")
    if m.get("degenerate") != "nan" and bounds != "minmax":
        raise MeasureError(
            "degenerate= sets Gienapp et al.'s (2020) NDCG_min where IUB = WLB, so it needs "
            "bounds=minmax "
            f"(in {str(m)!r}): write '{str(m.replace(bounds='minmax'))}' or drop degenerate=."
        )
    if m.get("lower") == "worst" and bounds != "ul2":
        raise MeasureError(
            f"lower=worst chooses V2's branch below the random level, so it needs bounds=ul2 "
            f"(in {str(m)!r}): write '{str(m.replace(bounds='ul2'))}' or drop lower=worst."
        )


def bounded_values(segments, m: Measure) -> np.ndarray:
    """The values of a measure declared ``bounded``: checks its bound options, then the
    ordinary kernel (``bounds=max``) or the bound-normalised value (:func:`normalise`)."""
    check_combination(m)
    bounds = m.get("bounds")
    kernel = REGISTRY[m.name.lower()].kernel
    if bounds == "max":
        return kernel(segments, m)
    need_worst = bounds == "minmax" or m.get("lower") == "worst"
    b = measure_bounds(segments, m, worst=need_worst)
    out = normalise(b.value, b.ideal, b.random, b.worst, bounds, lower=m.get("lower"))
    if bounds == "minmax" and m.get("degenerate") != "nan":
        iub = np.asarray(b.ideal, dtype=np.float64)
        wlb = np.asarray(b.worst, dtype=np.float64)
        iub, wlb = np.broadcast_arrays(iub, wlb)
        flat = ~(iub - wlb > TOL * np.maximum(1.0, np.abs(iub)))
        out = np.where(flat, 0.0 if m.get("degenerate") == "zero" else 1.0, out)
    return np.clip(out, 0.0, 1.0) if m.get("clip") else out
