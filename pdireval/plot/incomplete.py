"""Figures for incomplete judgments (Buckley & Voorhees 2004; He et al. 2008).

* :func:`completeness_curves` — rank correlation with the full-judgment ranking against the
  completeness level, one line per measure (mean over repeats, with the min–max band), from
  :func:`pdireval.completeness_correlation`.
* :func:`training_curves` — test effectiveness X(Y) of settings trained on subsampled
  judgments against the completeness level (He et al. 2008, Figure 2), from
  :func:`pdireval.train_by_measure`.

Each takes our tidy frames and returns a matplotlib Figure (or the ``ax`` given).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from pdireval.errors import SchemaError
from pdireval.plot._base import new_axes

if TYPE_CHECKING:
    from collections.abc import Sequence

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from pdireval.types import CorrelationMethod

__all__ = ["completeness_curves", "training_curves"]


def _log_level_axis(axes, levels) -> None:
    """Logarithmic level axis labelled with plain percentages."""
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    axes.set_xscale("log")
    lo, hi = float(min(levels)), float(max(levels))
    ticks = [t for t in (1, 2, 5, 10, 20, 50, 100) if lo <= t <= hi] or sorted(set(levels))
    axes.xaxis.set_major_locator(FixedLocator(ticks))
    axes.xaxis.set_major_formatter(ScalarFormatter())
    axes.xaxis.set_minor_formatter(NullFormatter())


def _need(frame, columns, producer):
    if not isinstance(frame, pd.DataFrame) or not set(columns) <= set(frame.columns):
        have = list(getattr(frame, "columns", []))
        raise SchemaError(
            f"this plot needs the frame returned by {producer} (columns {sorted(columns)}); got "
            f"columns {have}"
        )


def completeness_curves(
    corr: pd.DataFrame,
    *,
    method: CorrelationMethod | None = None,
    band: bool = True,
    log_x: bool = True,
    ax: Axes | None = None,
) -> Figure | Axes:
    """Correlation with the full-judgment system ranking against completeness, per measure.

    Parameters
    ----------
    corr
        The frame of :func:`pdireval.completeness_correlation` (``measure``, ``level``,
        ``repeat``, ``method``, ``statistic``).
    method
        Which correlation to draw (default: the first in ``corr``).
    band
        Shade the range (min–max) over repeats around the mean.
    log_x
        Logarithmic level axis (the low levels are where measures differ).
    ax
        Axes to draw on (default: a new figure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    _need(corr, {"measure", "level", "method", "statistic"}, "pdireval.completeness_correlation")
    method = corr["method"].iloc[0] if method is None else method
    part = corr[corr["method"] == method]
    if part.empty:
        raise SchemaError(
            f"no rows with method={method!r}; the frame has {sorted(corr['method'].unique())}"
        )
    fig, axes = new_axes(ax)
    for measure, g in part.groupby("measure", sort=False):
        stats = g.groupby("level")["statistic"].agg(["mean", "min", "max"]).sort_index()
        (line,) = axes.plot(
            stats.index, stats["mean"], marker="o", markersize=3, linewidth=1.5, label=measure
        )
        if band:
            axes.fill_between(
                stats.index,
                stats["min"],
                stats["max"],
                color=line.get_color(),
                alpha=0.12,
                linewidth=0,
            )
    if log_x:
        _log_level_axis(axes, part["level"].unique())
    axes.set_xlabel("judgments kept (%)")
    label = {
        "kendall_b": "Kendall's τ_b",
        "kendall_a": "Kendall's τ_a",
        "spearman": "Spearman's ρ",
    }.get(method, method)
    axes.set_ylabel(f"{label} with the full-judgment ranking")
    axes.grid(True, alpha=0.3)
    axes.legend(frameon=False, fontsize="small")
    return ax if ax is not None else fig


def training_curves(
    results: pd.DataFrame,
    *,
    eval_measure: str,
    train_measures: Sequence[str] | None = None,
    level: str = "level",
    ax: Axes | None = None,
) -> Figure | Axes:
    """He et al. (2008, Figure 2): X(Y) on the test queries against the completeness of the training
    judgments, one line per training measure Y (mean over repeats and folds).

    Parameters
    ----------
    results
        The frame of :func:`pdireval.train_by_measure` run with subsampled ``train_scores``.
    eval_measure
        X, the test measure drawn.
    train_measures
        The training measures Y drawn (default: all).
    level
        The completeness column.
    ax
        Axes to draw on (default: a new figure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    _need(
        results,
        {level, "train_measure", "eval_measure", "value"},
        "pdireval.train_by_measure (with train_scores)",
    )
    part = results[results["eval_measure"] == eval_measure]
    if part.empty:
        raise SchemaError(f"no rows with eval_measure={eval_measure!r}")
    if train_measures is not None:
        wanted = (
            [train_measures] if isinstance(train_measures, str) else list(train_measures)
        )  # "AP" is one measure
        part = part[part["train_measure"].isin(wanted)]
    fig, axes = new_axes(ax)
    for y, g in part.groupby("train_measure", sort=False):
        mean = g.groupby(level)["value"].mean().sort_index()
        axes.plot(
            mean.index,
            mean.to_numpy(),
            marker="o",
            markersize=3,
            linewidth=1.5,
            label=f"{eval_measure}({y})",
        )
    _log_level_axis(axes, part[level].unique())
    axes.set_xlabel("training judgments kept (%)")
    axes.set_ylabel(f"{eval_measure} on the test queries")
    axes.grid(True, alpha=0.3)
    axes.legend(frameon=False, fontsize="small")
    return ax if ax is not None else fig
