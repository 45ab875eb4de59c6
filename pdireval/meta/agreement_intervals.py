"""Query-bootstrap intervals of leaderboard agreement statistics (one job: the ``ci_low``,
``ci_high`` columns of :func:`pdireval.correlate` and :func:`pdireval.leaderboard_agreement`)."""

from __future__ import annotations

import warnings

import numpy as np

from pdireval.errors import PdirevalWarning, check_int, check_real
from pdireval.stats.means import exact_resampled_means

__all__ = [
    "check_ci_options",
    "percentile_interval",
    "CorrelationBootstrap",
    "MAX_RESAMPLES",
]

#: ceiling on ``n_resamples`` (B × m replicate leaderboards, B × m² pair counts for τ_AP)
MAX_RESAMPLES = 10**5


def check_ci_options(confidence_level, n_resamples):
    """Validate ``confidence_level`` (None: no interval) and ``n_resamples``; return both."""
    n_res = check_int("n_resamples", n_resamples, minimum=2, maximum=MAX_RESAMPLES)
    if confidence_level is None:
        return None, n_res
    return check_real(
        "confidence_level", confidence_level, low=0.0, high=1.0, inclusive=False
    ), n_res


def percentile_interval(reps: np.ndarray, confidence_level: float, *, point: float, what: str):
    """(low, high): the α/2 and 1 − α/2 quantiles (numpy's linear) of the replicate values.

    NaN when some replicate is undefined (e.g. τ_AP on a replicate with tied means), with a
    :class:`pdireval.PdirevalWarning` when the observed value itself is defined.
    """
    bad = ~np.isfinite(reps)
    if bad.any():
        if np.isfinite(point):
            why = (
                "tied means, which τ_AP does not allow); its interval is NaN. Use tau_ap_b, "
                "which handles ties, or kendall_b."
                if what in ("tau_ap", "tau_ap_sym")
                else "e.g. every system tied in a resampled leaderboard, or a statistic whose "
                "denominator is 0 there); its interval is NaN. More queries, or systems whose "
                "means differ more, make every replicate defined."
            )
            warnings.warn(
                f"{int(bad.sum())} of {len(reps)} bootstrap replicates of {what} are undefined "
                f"({why}",
                PdirevalWarning,
                stacklevel=4,
            )
        return np.nan, np.nan
    tail = (1.0 - confidence_level) / 2.0
    low, high = np.quantile(reps, [tail, 1.0 - tail])
    return float(low), float(high)


class CorrelationBootstrap:
    """Replicate leaderboards of two frames (or of one frame's measures) on resampled queries.

    One index matrix per query count n, ``group_generator(seed).integers(0, n, size=(B, n))``
    (as every query bootstrap of pdireval), shared by both sides when they have the same
    queries; a side with other queries draws from the keyed stream ``(seed, "other")``.
    """

    def __init__(self, frame_a, frame_b, extra, *, n_resamples: int, rng, p: float, k: int = 10):
        from pdireval.core.groups import group_matrices
        from pdireval.errors import check_rng

        by = ["measure", *extra]
        self.a = {
            tuple(kk.values()): m
            for kk, m in group_matrices(frame_a, by=by, what="scores", allow_nan=True)
        }
        self.b = (
            self.a
            if frame_b is None
            else {
                tuple(kk.values()): m
                for kk, m in group_matrices(frame_b, by=by, what="other scores", allow_nan=True)
            }
        )
        self.seed = check_rng(rng)
        self.n_res, self.p, self.k = n_resamples, p, k
        self._counts: dict = {}

    def counts(self, n: int, other: bool = False) -> np.ndarray:
        """The B × n resample counts (cached per n and stream)."""
        from pdireval.errors import group_generator
        from pdireval.stats.paired_tests import bootstrap_counts

        key = (n, other)
        if key not in self._counts:
            gen = group_generator(self.seed, "other") if other else group_generator(self.seed)
            self._counts[key] = bootstrap_counts(gen, n, self.n_res)
        return self._counts[key]

    def replicates(self, key: tuple, measure_a, measure_b, systems):
        """(B × m, B × m) replicate means of the two sides, systems in the given order: exact
        means (:func:`pdireval.stats.means.exact_resampled_means`, NaN skipped), so replicate
        leaderboards tie exactly where the observed ones (exact means) do. None when a side
        has a single query: every replicate would be the observed leaderboard, an interval of
        zero width that says nothing (NaN, as :func:`pdireval.aggregate`'s)."""
        ma = self.a[(measure_a,) + tuple(key)][systems]
        mb = self.b[(measure_b,) + tuple(key)][systems]
        if min(len(ma), len(mb)) < 2:
            return None
        same = ma.index.equals(mb.index)
        ca = self.counts(len(ma))
        cb = ca if same else self.counts(len(mb), other=True)
        return (
            exact_resampled_means(ma.to_numpy(np.float64), ca),
            exact_resampled_means(mb.to_numpy(np.float64), cb),
        )

    def interval(self, reps, method: str, point: float, level: float):
        """The percentile interval of ``method`` over the replicate pairs ``reps``."""
        from pdireval.stats.correlation_rows import correlation_rows

        values = correlation_rows(method, reps[0], reps[1], p=self.p, k=self.k)
        return percentile_interval(values, level, point=point, what=method)
