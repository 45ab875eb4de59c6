"""Stability of system rankings: swap rates and the Buckley–Voorhees error rate
with fuzziness, vectorized over trials and system pairs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from pdireval.core.chunking import progress_bar
from pdireval.core.groups import (
    check_same_grouping,
    check_same_systems,
    check_shared_groups,
    group_columns,
    group_matrices,
    pair_indices,
    require_complete,
    system_means,
)
from pdireval.docstrings import shared_docs
from pdireval.errors import (
    OptionError,
    SchemaError,
    check_int,
    check_option,
    check_real,
    check_rng,
    group_generator,
    renamed_options,
)
from pdireval.meta.inputs import meta_scores
from pdireval.stats.means import exact_resampled_means
from pdireval.stats.rank_correlation import concordance_counts
from pdireval.types import Columns, RngLike, TiedPairs

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["swap_rate", "swap_difference", "error_rate"]


def _check_sizes(n_queries, n_total, limit, what):
    n_queries = np.atleast_1d(np.asarray(n_queries))
    if n_queries.size == 0 or not np.issubdtype(n_queries.dtype, np.integer):
        raise OptionError(
            f"n_queries= must be a non-empty list of integers, got {n_queries.tolist()!r}"
        )
    bad = n_queries[(n_queries < 1) | (n_queries > limit)]
    if bad.size:
        raise OptionError(
            f"query-set size {int(bad[0])} is impossible with {n_total} queries: {what} needs "
            f"1 <= size <= {limit}; pass smaller n_queries="
        )
    return [int(c) for c in n_queries]


# ------------------------------------------------------------------------- swap rates


def _swaps_between(scores, other, tied_pairs):
    frame_a = meta_scores(scores, function="swap_rate")
    frame_b = meta_scores(other, function="swap_rate")
    require_complete(frame_a, "scores")
    require_complete(frame_b, "other scores")
    keys_a, keys_b = group_columns(frame_a), group_columns(frame_b)
    check_same_grouping(keys_a, keys_b)
    left = system_means(frame_a)
    right = {tuple(sorted(k)): v for k, v in system_means(frame_b).items()}
    check_shared_groups([tuple(sorted(k)) for k in left], list(right))
    rows = []
    for key, a in left.items():
        b = right.get(tuple(sorted(key)))
        if b is None:
            continue
        check_same_systems(a.index, b.index, f" for {dict(key)}")
        b = b.loc[a.index]
        av, bv = a.to_numpy(dtype=np.float64), b.to_numpy(dtype=np.float64)
        concordant, swaps, _, _, n_all = concordance_counts(av, bv)
        # "drop": pairs tied in either
        n_pairs = concordant + swaps if tied_pairs == "drop" else n_all
        row = dict(key)
        row.update(
            n_systems=len(av),
            n_pairs=n_pairs,
            n_swaps=swaps,
            swap_rate=swaps / n_pairs if n_pairs else np.nan,
        )
        rows.append(row)
    cols = keys_a + ["n_systems", "n_pairs", "n_swaps", "swap_rate"]
    out = pd.DataFrame(rows, columns=cols)
    for c in ("n_systems", "n_pairs", "n_swaps"):
        out[c] = out[c].astype(np.int64)
    out["swap_rate"] = out["swap_rate"].astype(np.float64)
    return out


@renamed_options(ties="tied_pairs")
@shared_docs
def swap_rate(
    scores: pd.DataFrame,
    other: pd.DataFrame | None = None,
    *,
    n_queries: int | Iterable[int] | None = None,
    n_resamples: int = 100,
    sampling: Literal["split", "replacement"] = "split",
    bin_width: float = 0.01,
    n_bins: int = 21,
    tied_pairs: TiedPairs = "keep",
    rng: RngLike = None,
    progress: bool | None = None,
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Swap rates: between two experiments, or Voorhees–Buckley query splits.

    **Between two experiments** (``other`` given; Karmaker & Feng's (2022) usage): per group, the
    mean score of each system in ``scores`` (a_i) and in ``other`` (b_i) over the same systems. A
    pair swaps iff (a_i − a_j)(b_i − b_j) < 0; rate = swaps / C(m, 2). Pairs tied in either
    experiment are not swaps and stay in the denominator (``tied_pairs="drop"`` removes them).
    Without ties the rate is (1 − τ)/2.

    **Voorhees & Buckley (2002) swap method** (``other=None``): for each query-set size c (with
    its own stream ``group_generator(seed, c)``) and trial, ``perm = rng.permutation(n)`` over
    the n queries, T1 = perm[:c], T2 = perm[c:2c] (drawn as one
    ``rng.permuted`` call on stacked ranges, which consumes the stream exactly as successive
    ``permutation`` calls; trials in order). For every system pair,
    d1, d2 are the differences of the mean scores on T1 and T2; the comparison falls in bin
    ⌊|d1| / bin_width⌋ capped at ``n_bins − 1``, and is a swap iff d1·d2 < 0.
    ``sampling="replacement"`` draws T1 and T2 with ``rng.integers(0, n, c)`` each (one
    call of shape (n_resamples, 2, c), the same stream), an option the seeds do not define.
    See :func:`swap_difference` for the difference needed for a 5 % swap rate.

    Parameters
    ----------
    scores, other
        Scores frames (``other`` only for the between-experiments rate).
    n_queries
        Query-set sizes c (default 5, 10, ... up to n // 2; c ≤ n // 2 for
        ``"split"``).
    n_resamples
        Trials per size.
    sampling
        ``"split"`` (disjoint halves, default) or ``"replacement"``.
    bin_width, n_bins
        Bins of |d1| (default 0.01 wide, 21 bins, the last one open).
    tied_pairs
        ``"keep"`` (default) or ``"drop"`` tied pairs from the between-experiments
        denominator (``ties=`` before 0.2, deprecated).
    rng
        None, an int seed, a SeedSequence or a Generator; every group and size starts from the
        seed alone (see :func:`pdireval.errors.check_rng`).
    {progress}
    {columns}

    Returns
    -------
    DataFrame
        Between experiments: the grouping keys, ``n_systems``, ``n_pairs`` (the denominator),
        ``n_swaps``, ``swap_rate``. Query splits: one row per (group, size, bin) with the
        grouping keys, ``n_queries``, ``bin`` (0-based), ``diff_low`` (lower edge of the bin),
        ``n_comparisons``, ``n_swaps``, ``swap_rate`` (NaN for an empty bin).

    References
    ----------
    Voorhees, E. M., Buckley, C. (2002). The effect of topic set size on retrieval experiment
    error. SIGIR.
    """
    check_option("tied_pairs", tied_pairs, ("keep", "drop"))
    if other is not None:
        return _swaps_between(scores, other, tied_pairs)
    check_option("sampling", sampling, ("split", "replacement"))
    n_resamples = check_int("n_resamples", n_resamples, minimum=1)
    n_bins = check_int("n_bins", n_bins, minimum=1)
    check_real("bin_width", bin_width, low=0, inclusive=False)
    frame = meta_scores(scores, columns, function="swap_rate")
    keys_cols = group_columns(frame)
    seed = check_rng(rng)
    parts = []
    for keys, matrix in group_matrices(frame):
        x = matrix.to_numpy(dtype=np.float64)
        n, m = x.shape
        limit = n // 2 if sampling == "split" else n
        cs = _check_sizes(
            n_queries
            if n_queries is not None
            else (list(range(5, n // 2 + 1, 5)) or [max(1, n // 2)]),
            n,
            max(limit, 0),
            "the swap method" if sampling == "split" else "sampling",
        )
        pi, pj = pair_indices(m)
        for c in progress_bar(cs, desc="swap rate", progress=progress):
            gen = group_generator(seed, int(c))
            if sampling == "split":
                perm = gen.permuted(np.broadcast_to(np.arange(n), (n_resamples, n)), axis=1)
                t1, t2 = perm[:, :c], perm[:, c : 2 * c]
            else:
                draw = gen.integers(0, n, size=(n_resamples, 2, c))
                t1, t2 = draw[:, 0], draw[:, 1]
            mean1 = _subset_means(x, t1)
            mean2 = _subset_means(x, t2)
            d1 = mean1[:, pi] - mean1[:, pj]
            d2 = mean2[:, pi] - mean2[:, pj]
            bins = np.minimum(np.floor(np.abs(d1) / bin_width), n_bins - 1).astype(np.int64).ravel()
            comparisons = np.bincount(bins, minlength=n_bins)
            swaps = np.bincount(bins, weights=(d1 * d2 < 0).ravel(), minlength=n_bins).astype(
                np.int64
            )
            with np.errstate(invalid="ignore", divide="ignore"):
                rate = np.where(comparisons > 0, swaps / np.maximum(comparisons, 1), np.nan)
            part: dict[str, object] = {k: [keys[k]] * n_bins for k in keys_cols}
            part.update(
                n_queries=np.full(n_bins, c, dtype=np.int64),
                bin=np.arange(n_bins, dtype=np.int64),
                diff_low=np.arange(n_bins) * float(bin_width),
                n_comparisons=comparisons.astype(np.int64),
                n_swaps=swaps,
                swap_rate=rate,
            )
            parts.append(pd.DataFrame(part))
    return pd.concat(parts, ignore_index=True)


def _subset_means(x, idx):
    """Means over the queries idx[t] (trials x c, repeats allowed) for every trial: trials x
    systems."""
    n_resamples, c = idx.shape
    n = x.shape[0]
    flat = idx + (np.arange(n_resamples) * n)[:, None]
    counts = np.bincount(flat.ravel(), minlength=n_resamples * n).reshape(n_resamples, n)
    # exact means: systems whose drawn values have equal exact sums tie (not an ulp apart)
    return exact_resampled_means(x, counts)


def swap_difference(
    swaps: pd.DataFrame, *, max_rate: float = 0.05, min_comparisons: int = 10
) -> pd.DataFrame:
    """The difference from which the swap rate stays at or under ``max_rate`` (Voorhees &
    Buckley 2002).

    From a :func:`swap_rate` query-split frame, per group and size: the lower edge of the
    smallest bin ``b`` such that ``b`` and every later bin with at least ``min_comparisons``
    comparisons have a swap rate ≤ ``max_rate`` — the monotone envelope of the rate curve,
    so a low rate in a small-difference bin (e.g. exact ties filling the zero bin) followed
    by higher rates at larger differences does not count. Bins with fewer comparisons are
    too sparse to confirm or refute the rate and are skipped; NaN, with the reason, when no
    bin qualifies.

    Parameters
    ----------
    swaps : DataFrame
        The result of :func:`swap_rate` with ``sampling="split"``.
    max_rate : float
        The largest acceptable swap rate, in (0, 1).
    min_comparisons : int
        Bins with fewer comparisons are skipped (default 10).

    Returns
    -------
    DataFrame
        The grouping keys, ``n_queries``, ``diff_needed`` (float64; NaN when no bin
        qualifies), ``reason`` (str: empty when ``diff_needed`` is a number, else why not —
        no bin with ``min_comparisons`` comparisons, or a rate above ``max_rate`` in the last
        bin with that many).

    References
    ----------
    Voorhees, E. M., & Buckley, C. (2002). The Effect of Topic Set Size on Retrieval Experiment
    Error. SIGIR 2002.
    """
    need = {"n_queries", "bin", "diff_low", "n_comparisons", "swap_rate"}
    if not isinstance(swaps, pd.DataFrame) or not need <= set(swaps.columns):
        raise SchemaError(
            "swap_difference needs the frame returned by swap_rate(scores) without other= "
            f"(columns {sorted(need)}); got columns {list(getattr(swaps, 'columns', []))}"
        )
    check_real("max_rate", max_rate, low=0, high=1, inclusive=False)
    min_comparisons = check_int("min_comparisons", min_comparisons, minimum=1)
    keys = list(swaps.columns[: list(swaps.columns).index("n_queries")])
    rows = []
    for key, group in swaps.groupby(keys + ["n_queries"], sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        g = group.sort_values("bin")
        dense = g["n_comparisons"].to_numpy() >= min_comparisons
        low = g["diff_low"].to_numpy(dtype=np.float64)
        bad = np.flatnonzero(dense & ~(g["swap_rate"].to_numpy(dtype=np.float64) <= max_rate))
        after = np.arange(len(g)) > (bad[-1] if len(bad) else -1)
        good = np.flatnonzero(dense & after)
        if len(good):
            rows.append(list(key) + [float(low[good[0]]), ""])
        elif not dense.any():
            rows.append(
                list(key)
                + [np.nan, f"too sparse: no bin has {min_comparisons} comparisons or more"]
            )
        else:
            rows.append(
                list(key)
                + [
                    np.nan,
                    f"the swap rate is above {max_rate:g} in the bin from "
                    f"{low[bad[-1]]:g}, the last with {min_comparisons} "
                    "comparisons or more",
                ]
            )
    out = pd.DataFrame(rows, columns=keys + ["n_queries", "diff_needed", "reason"])
    out["n_queries"] = out["n_queries"].astype(np.int64)
    out["diff_needed"] = out["diff_needed"].astype(np.float64)
    return out


# ------------------------------------------------------------------------- error rate


@shared_docs
def error_rate(
    scores: pd.DataFrame,
    *,
    fuzziness: float = 0.05,
    n_resamples: int = 200,
    n_queries: int | Iterable[int] | None = None,
    unit: Literal["query_set", "query"] = "query_set",
    rng: RngLike = None,
    progress: bool | None = None,
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Buckley–Voorhees error rate with fuzziness, as a curve over query-set sizes.

    For each size c, with its own stream ``rng = group_generator(seed, c)`` (so a size's
    numbers do not depend on the other sizes requested), trial t draws
    T_c = ``rng.permutation(n_queries)[:c]`` (all trials in one ``rng.permuted`` call on stacked
    ranges, which consumes the stream exactly as successive ``permutation`` calls; everything
    after the draw is vectorised over trials and pairs). With
    ``unit="query_set"`` (default; Buckley & Voorhees 2000) the systems' **mean** scores over
    T_c are compared, one comparison per pair per trial; with ``unit="query"`` (Gienapp et al.
    2020) the scores on each query of T_c, c comparisons per pair per trial. A comparison of a and
    b is a tie iff |a − b| ≤ f·max(|a|, |b|). Accumulating |A>B|, |A<B|, |A=B| per pair over all
    trials:

    .. math:: \mathrm{ErrorRate} = \frac{\sum_{pairs} \min(|A>B|, |A<B|)}
                                        {\sum_{pairs} (|A>B| + |A<B| + |A=B|)},
              \qquad \mathrm{TieRate} = \frac{\sum_{pairs} |A=B|}{\text{same}} .

    Parameters
    ----------
    scores
        Scores frame (a complete query × system matrix per group).
    fuzziness
        f ≥ 0 (default 0.05).
    n_resamples
        Trials per size (default 200, as in Gienapp, Fröbe, Hagen & Potthast 2020).
    n_queries
        Query-set sizes (default 5, 10, ..., n).
    unit
        ``"query_set"`` or ``"query"``.
    rng
        None, an int seed, a SeedSequence or a Generator; every group and size starts from the
        seed alone (see :func:`pdireval.errors.check_rng`).
    {progress}
    {columns}

    Returns
    -------
    DataFrame
        One row per (group, size): the grouping keys, ``n_queries``, ``unit``, ``fuzziness``,
        ``n_resamples``, ``n_comparisons`` (the denominator), ``error_rate``, ``tie_rate``.

    References
    ----------
    Buckley, C., Voorhees, E. M. (2000). Evaluating evaluation measure stability. SIGIR.
    """
    check_option("unit", unit, ("query_set", "query"))
    n_resamples = check_int("n_resamples", n_resamples, minimum=1)
    fuzziness = check_real("fuzziness", fuzziness, low=0)
    frame = meta_scores(scores, columns, function="error_rate")
    keys_cols = group_columns(frame)
    seed = check_rng(rng)
    rows = []
    for keys, matrix in group_matrices(frame):
        x = matrix.to_numpy(dtype=np.float64)
        n, m = x.shape
        cs = _check_sizes(
            n_queries if n_queries is not None else (list(range(5, n + 1, 5)) or [n]),
            n,
            n,
            "sampling",
        )
        pi, pj = pair_indices(m)
        if unit == "query":
            gt_t, lt_t, eq_t = _outcomes(x[:, pi], x[:, pj], fuzziness)  # n x P
        for c in progress_bar(cs, desc="error rate", progress=progress):
            gen = group_generator(seed, int(c))
            idx = gen.permuted(np.broadcast_to(np.arange(n), (n_resamples, n)), axis=1)[:, :c]
            if unit == "query_set":
                means = _subset_means(x, idx)
                gt, lt, eq = (
                    o.sum(axis=0) for o in _outcomes(means[:, pi], means[:, pj], fuzziness)
                )
            else:
                k = np.bincount(idx.ravel(), minlength=n).astype(np.float64)
                gt, lt, eq = (k @ o for o in (gt_t, lt_t, eq_t))
            total = float(np.sum(gt + lt + eq))
            row = {k: keys[k] for k in keys_cols}
            row.update(
                n_queries=c,
                unit=unit,
                fuzziness=float(fuzziness),
                n_resamples=n_resamples,
                n_comparisons=int(total),
                error_rate=float(np.sum(np.minimum(gt, lt)) / total) if total else np.nan,
                tie_rate=float(np.sum(eq) / total) if total else np.nan,
            )
            rows.append(row)
    out = pd.DataFrame(
        rows,
        columns=keys_cols
        + [
            "n_queries",
            "unit",
            "fuzziness",
            "n_resamples",
            "n_comparisons",
            "error_rate",
            "tie_rate",
        ],
    )
    for c in ("n_queries", "n_resamples", "n_comparisons"):
        out[c] = out[c].astype(np.int64)
    return out


def _outcomes(a, b, f):
    """(a > b, a < b, tie) as float arrays, tie iff |a - b| <= f * max(|a|, |b|)."""
    tie = np.abs(a - b) <= f * np.maximum(np.abs(a), np.abs(b))
    return (
        ((a > b) & ~tie).astype(np.float64),
        ((a < b) & ~tie).astype(np.float64),
        tie.astype(np.float64),
    )
