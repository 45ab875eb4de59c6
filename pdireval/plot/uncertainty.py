"""Figures of uncertainty: intervals of means, rank intervals, a critical-difference diagram.

* :func:`forest_plot` — every system's mean with its confidence interval, sorted, one panel
  per measure, from :func:`pdireval.aggregate` with ``confidence_level=`` / ``method=``.
* :func:`rank_interval_plot` — observed rank, rank interval and expected rank of every
  system, the top group highlighted, from :func:`pdireval.rank_uncertainty`.
* :func:`critical_difference_diagram` — systems on a line by mean, bars joining the runs of
  systems whose pairwise differences are not significant (Demšar 2006's diagram, drawn from
  :func:`pdireval.compare`'s all-pairs decisions instead of a Nemenyi critical difference).

Each returns a matplotlib Figure (or the ``ax`` given, for one measure).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.errors import OptionError, SchemaError
from pdireval.meta.significance import decision_p
from pdireval.plot._base import new_axes, require_matplotlib

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["forest_plot", "rank_interval_plot", "critical_difference_diagram", "not_different_runs"]


def _require(frame, columns, producer):
    if not isinstance(frame, pd.DataFrame) or not set(columns) <= set(frame.columns):
        have = sorted(getattr(frame, "columns", []))
        raise SchemaError(
            f"this plot needs the frame returned by {producer} (columns {sorted(columns)}); "
            f"got columns {have}."
        )


def _measures(frame, measure, ax):
    """The measures to draw (one when ``measure`` or ``ax`` is given)."""
    have = list(pd.unique(frame["measure"]))
    if measure is not None:
        if measure not in have:
            raise SchemaError(f"measure={measure!r} is not in the frame; it has {have}.")
        return [measure]
    if ax is not None and len(have) > 1:
        raise OptionError(
            f"ax= draws one measure, but the frame has {len(have)} ({have}); pass measure=."
        )
    return have


def _panels(n, ax, height):
    """(figure, list of n axes): one row per measure, or the given ``ax``."""
    if ax is not None:
        return ax.figure, [ax]
    plt = require_matplotlib()
    fig, axes = plt.subplots(n, 1, figsize=(6.5, height), layout="constrained", squeeze=False)
    return fig, list(axes[:, 0])


def forest_plot(
    intervals: pd.DataFrame, *, measure: str | None = None, ax: Axes | None = None
) -> Figure | Axes:
    """Forest plot: each system's mean with its confidence interval, best at the top.

    Parameters
    ----------
    intervals
        The frame of :func:`pdireval.aggregate` called with ``confidence_level=`` or
        ``method=`` (columns ``system, measure, mean, ci_low, ci_high``). One group per
        measure (filter other grouping columns first).
    measure
        Draw this measure only (required with ``ax=`` when the frame has several).
    ax
        Axes to draw on (default: a new figure, one panel per measure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    _require(
        intervals,
        {"system", "measure", "mean", "ci_low", "ci_high"},
        "pdireval.aggregate(..., confidence_level=...)",
    )
    measures = _measures(intervals, measure, ax)
    n_sys = intervals["system"].nunique()
    fig, axes = _panels(len(measures), ax, max(2.5, 0.28 * n_sys + 1.2) * len(measures))
    for m, axis in zip(measures, axes):
        part = intervals[intervals["measure"] == m].sort_values(
            ["mean", "system"], ascending=[True, False]
        )
        y = np.arange(len(part))
        mean = part["mean"].to_numpy(np.float64)
        low = part["ci_low"].to_numpy(np.float64)
        high = part["ci_high"].to_numpy(np.float64)
        axis.hlines(y, low, high, color="C0", linewidth=2)
        axis.plot(mean, y, "o", color="C0", markersize=5)
        axis.set_yticks(y, part["system"].astype(str))
        level = part["confidence_level"].iloc[0] if "confidence_level" in part else None
        how = part["ci_method"].iloc[0] if "ci_method" in part else ""
        what = f"{level:.0%} interval ({how})" if level is not None else "interval"
        axis.set_xlabel(f"mean {m} with its {what}")
        axis.grid(axis="x", color="0.9")
    return ax if ax is not None else fig


def rank_interval_plot(
    ranks: pd.DataFrame, *, measure: str | None = None, ax: Axes | None = None
) -> Figure | Axes:
    """Rank intervals: each system's observed rank (dot), bootstrap rank interval (bar) and
    expected rank (cross); systems in the top group in a darker colour.

    Parameters
    ----------
    ranks
        The frame of :func:`pdireval.rank_uncertainty`.
    measure
        Draw this measure only (required with ``ax=`` when the frame has several).
    ax
        Axes to draw on (default: a new figure, one panel per measure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    _require(
        ranks,
        {"system", "measure", "rank", "rank_low", "rank_high", "expected_rank", "in_top_group"},
        "pdireval.rank_uncertainty",
    )
    measures = _measures(ranks, measure, ax)
    n_sys = ranks["system"].nunique()
    fig, axes = _panels(len(measures), ax, max(2.5, 0.28 * n_sys + 1.2) * len(measures))
    for m, axis in zip(measures, axes):
        part = ranks[ranks["measure"] == m].sort_values(
            ["rank", "system"], ascending=[False, False]
        )
        y = np.arange(len(part))
        top = part["in_top_group"].to_numpy(bool)
        colours = np.where(top, "C3", "0.55")
        axis.hlines(y, part["rank_low"], part["rank_high"], colors=colours, linewidth=2)
        axis.scatter(part["rank"], y, color=colours, s=22, zorder=3, label="observed rank")
        axis.scatter(
            part["expected_rank"], y, marker="x", color="k", s=18, zorder=4, label="expected rank"
        )
        axis.set_yticks(y, part["system"].astype(str))
        axis.set_xlabel(f"rank under {m} (1 = best); red: top group")
        axis.invert_xaxis()
        axis.grid(axis="x", color="0.9")
        axis.legend(frameon=False, fontsize="small", loc="upper left")
    return ax if ax is not None else fig


def not_different_runs(means, significant) -> list[tuple[int, int]]:
    """Maximal runs [i, j] (i < j) of systems, in the order of ``means`` descending, in which
    no pair is significantly different. ``significant``: m × m boolean matrix (symmetric)
    in the order of ``means``. A run contained in a longer one is left out."""
    means = np.asarray(means, dtype=np.float64)
    sig = np.asarray(significant, dtype=bool)
    order = np.argsort(-means, kind="stable")
    s = sig[np.ix_(order, order)]
    m = len(order)
    runs = []
    end_prev = -1
    for i in range(m):
        j = i
        while j + 1 < m and not s[i : j + 2, i : j + 2].any():
            j += 1
        if j > i and j > end_prev:
            runs.append((i, j))
            end_prev = j
    return runs


def critical_difference_diagram(
    pairs: pd.DataFrame, *, measure: str | None = None, alpha: float = 0.05, ax: Axes | None = None
) -> Figure | Axes:
    """Critical-difference-style diagram of one measure from :func:`pdireval.compare`.

    Systems sit on a horizontal axis at their mean (best on the left); a thick bar joins every
    maximal run of consecutive systems in which no pair is significantly different
    (``p_adjusted >= alpha``), as Demšar's (2006) diagram does with the Nemenyi test's
    critical difference.

    Parameters
    ----------
    pairs
        The frame of :func:`pdireval.compare` on all pairs (no ``baseline=``).
    measure
        The measure to draw (required when the frame has several).
    alpha
        Significance level of the decisions.
    ax
        Axes to draw on (default: a new figure).

    Returns
    -------
    Figure, or ``ax`` when given.

    References
    ----------
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. JMLR 7.
    """
    _require(
        pairs,
        {"measure", "system_a", "system_b", "mean_a", "mean_b", "p_value"},
        "pdireval.compare",
    )
    have = list(pd.unique(pairs["measure"]))
    if measure is None:
        if len(have) > 1:
            raise OptionError(f"the frame has {len(have)} measures ({have}); pass measure=.")
        measure = have[0]
    elif measure not in have:
        raise SchemaError(f"measure={measure!r} is not in the frame; it has {have}.")
    part = pairs[pairs["measure"] == measure]
    names = sorted(set(part["system_a"]) | set(part["system_b"]))
    where = {s: i for i, s in enumerate(names)}
    means = np.full(len(names), np.nan)
    means[[where[s] for s in part["system_a"]]] = part["mean_a"].to_numpy(np.float64)
    means[[where[s] for s in part["system_b"]]] = part["mean_b"].to_numpy(np.float64)
    m = len(names)
    n_pairs = m * (m - 1) // 2
    if len(part) != n_pairs:
        raise SchemaError(
            f"the diagram needs every pair of systems ({n_pairs} for {m} systems) but the frame "
            f"holds {len(part)} for {measure!r}: run compare() without baseline=."
        )
    sig = np.zeros((m, m), dtype=bool)
    ia = np.array([where[s] for s in part["system_a"]])
    ib = np.array([where[s] for s in part["system_b"]])
    flag = decision_p(part).to_numpy(np.float64) < alpha
    sig[ia, ib] = flag
    sig[ib, ia] = flag
    order = np.argsort(-means, kind="stable")
    runs = not_different_runs(means, sig)
    fig, axis = new_axes(ax, figsize=(7, 1.6 + 0.22 * m + 0.2 * len(runs)))
    x = means[order]
    axis.hlines(0, x.min(), x.max(), color="k", linewidth=1)
    for k, idx in enumerate(order):
        side = 1 if k % 2 == 0 else -1
        y = side * (0.6 + 0.35 * (k // 2))
        axis.plot([means[idx]] * 2, [0, y], color="0.4", linewidth=0.8)
        axis.text(
            means[idx],
            y,
            f" {names[idx]} ({means[idx]:.3f})",
            va="center",
            ha="left" if side > 0 else "right",
            fontsize="small",
            rotation=0,
        )
    for r, (i, j) in enumerate(runs):
        y = -0.25 - 0.18 * r
        axis.hlines(y, x[i], x[j], color="C3", linewidth=4)
    axis.set_yticks([])
    axis.invert_xaxis()
    axis.set_xlabel(f"mean {measure} (bars: not significantly different, α = {alpha:g})")
    for spine in ("left", "right", "top"):
        axis.spines[spine].set_visible(False)
    return ax if ax is not None else fig
