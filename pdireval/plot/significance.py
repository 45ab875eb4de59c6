"""Figures for significance and stability meta-evaluation (Sakai 2006; Voorhees & Buckley 2002).

* :func:`asl_curves` — ASL (p-value) of every system pair, sorted, per measure, from
  :func:`pdireval.asl_curve` (Sakai's ASL curves: lower = more discriminative).
* :func:`discriminative_power_bars` — share of significant pairs per measure, from
  :func:`pdireval.discriminative_power`.
* :func:`error_rate_curves` — error rate against query-set size, from :func:`pdireval.error_rate`.
* :func:`swap_rate_curves` — swap rate against the difference between means, from
  :func:`pdireval.swap_rate` (query splits).
* :func:`measure_scatter` — system means under two measures with Kendall's τ, from a scores frame.

Each takes our tidy frames and returns a matplotlib Figure (or the ``ax`` given).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.errors import SchemaError, renamed_options
from pdireval.plot._base import new_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "asl_curves",
    "discriminative_power_bars",
    "error_rate_curves",
    "swap_rate_curves",
    "measure_scatter",
]


def _need(frame, columns, producer):
    if not isinstance(frame, pd.DataFrame) or not set(columns) <= set(frame.columns):
        have = list(getattr(frame, "columns", []))
        raise SchemaError(
            f"this plot needs the frame returned by {producer} (columns {sorted(columns)}); "
            f"got columns {have}"
        )


def _series(frame, keys):
    """(label, part) per combination of the label keys, in order of appearance."""
    keys = [
        k
        for k in keys
        if k in frame.columns and (k == "measure" or frame[k].nunique(dropna=False) > 1)
    ]
    if not keys:
        yield "", frame
        return
    for key, part in frame.groupby(keys, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        yield ", ".join(str(k) for k in key), part


def _label_keys(frame, data_columns):
    return [c for c in frame.columns if c not in data_columns]


def _finish(fig, ax, given, legend=True):
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(frameon=False, fontsize="small")
    return given if given is not None else fig


def asl_curves(
    curve: pd.DataFrame, *, alpha: float | None = 0.05, ax: Axes | None = None
) -> Figure | Axes:
    """Sakai's ASL curves: each pair's ASL against its rank, one line per measure.

    Parameters
    ----------
    curve
        The frame of :func:`pdireval.asl_curve`.
    alpha
        Draw the significance level as a horizontal line (None: no line).
    ax
        Axes to draw on (default: a new figure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    _need(curve, {"rank", "p_value", "system_a", "system_b"}, "pdireval.asl_curve")
    fig, axes = new_axes(ax)
    keys = _label_keys(curve, {"rank", "p_value", "system_a", "system_b", "method"})
    for label, part in _series(curve, keys):
        axes.plot(part["rank"], part["p_value"], label=label, linewidth=1.5)
    if alpha is not None:
        axes.axhline(alpha, color="0.5", linestyle="--", linewidth=0.8)
    method = curve["method"].iloc[0] if "method" in curve and len(curve) else ""
    axes.set_xlabel("system pairs sorted by ASL")
    axes.set_ylabel(f"ASL ({method})" if method else "ASL")
    axes.set_ylim(0, None)
    return _finish(fig, axes, ax)


def discriminative_power_bars(power: pd.DataFrame, *, ax: Axes | None = None) -> Figure | Axes:
    """Bar chart of the share of significant system pairs per measure.

    Parameters
    ----------
    power
        The frame of :func:`pdireval.discriminative_power`.
    ax
        Axes to draw on (default: a new figure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    _need(power, {"power", "n_pairs", "n_significant"}, "pdireval.discriminative_power")
    fig, axes = new_axes(ax)
    keys = _label_keys(power, {"power", "n_pairs", "n_significant", "required_diff", "method"})
    labels = [", ".join(str(v) for v in row) for row in power[keys].itertuples(index=False)]
    axes.bar(range(len(power)), power["power"].to_numpy() * 100)
    axes.set_xticks(
        range(len(power)),
        labels,
        rotation=30 if len(power) > 4 else 0,
        ha="right" if len(power) > 4 else "center",
    )
    axes.set_ylabel("significant pairs (%)")
    return _finish(fig, axes, ax, legend=False)


@renamed_options(ties="tie_rate")
def error_rate_curves(
    errors: pd.DataFrame, *, tie_rate: bool = False, ax: Axes | None = None
) -> Figure | Axes:
    """Error rate (and optionally tie rate) against the query-set size, one line per measure.

    Parameters
    ----------
    errors
        The frame of :func:`pdireval.error_rate`.
    tie_rate
        Also draw the tie rate (dashed; ``ties=`` before 0.2, deprecated).
    ax
        Axes to draw on (default: a new figure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    _need(errors, {"n_queries", "error_rate", "tie_rate"}, "pdireval.error_rate")
    fig, axes = new_axes(ax)
    keys = _label_keys(
        errors,
        {
            "n_queries",
            "error_rate",
            "tie_rate",
            "n_comparisons",
            "n_resamples",
            "unit",
            "fuzziness",
        },
    )
    for label, part in _series(errors, keys):
        part = part.sort_values("n_queries")
        (line,) = axes.plot(
            part["n_queries"], part["error_rate"], marker="o", markersize=3, label=label
        )
        if tie_rate:
            axes.plot(part["n_queries"], part["tie_rate"], linestyle="--", color=line.get_color())
    axes.set_xlabel("query-set size")
    axes.set_ylabel("error rate" + (" (dashed: tie rate)" if tie_rate else ""))
    axes.set_ylim(0, None)
    return _finish(fig, axes, ax)


def swap_rate_curves(
    swaps: pd.DataFrame, *, n_queries: int | None = None, ax: Axes | None = None
) -> Figure | Axes:
    """Swap rate against the difference of means (bin lower edge), one line per measure.

    Parameters
    ----------
    swaps
        The query-split frame of :func:`pdireval.swap_rate`.
    n_queries
        Which query-set size to draw (default: the largest).
    ax
        Axes to draw on (default: a new figure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    _need(
        swaps,
        {"n_queries", "bin", "diff_low", "swap_rate", "n_comparisons"},
        "pdireval.swap_rate(scores)",
    )
    fig, axes = new_axes(ax)
    size = int(swaps["n_queries"].max()) if n_queries is None else int(n_queries)
    part_all = swaps[swaps["n_queries"] == size]
    if part_all.empty:
        raise SchemaError(
            f"no rows for n_queries={size}; the sizes are "
            f"{sorted(int(s) for s in swaps['n_queries'].unique())}"
        )
    keys = _label_keys(
        swaps, {"n_queries", "bin", "diff_low", "swap_rate", "n_comparisons", "n_swaps"}
    )
    for label, part in _series(part_all, keys):
        part = part[part["n_comparisons"] > 0].sort_values("bin")
        axes.plot(part["diff_low"], part["swap_rate"], marker="o", markersize=3, label=label)
    axes.axhline(0.05, color="0.5", linestyle="--", linewidth=0.8)
    axes.set_xlabel(f"difference of means (bin lower edge), {size} queries per set")
    axes.set_ylabel("swap rate")
    return _finish(fig, axes, ax)


def measure_scatter(
    scores: pd.DataFrame, measure_a: str, measure_b: str, *, ax: Axes | None = None
) -> Figure | Axes:
    """System means under two measures, one point per system, with Kendall's τ_b in the title.

    Parameters
    ----------
    scores
        A scores frame holding both measures (one value of any other grouping column).
    measure_a, measure_b
        The measures on the x and y axes.
    ax
        Axes to draw on (default: a new figure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    from pdireval.meta.inputs import meta_scores
    from pdireval.stats.rank_correlation import kendall_tau

    frame = meta_scores(scores, function="measure_scatter")
    means = frame.groupby(["measure", "system"], sort=True)["value"].mean().unstack("measure")
    for m in (measure_a, measure_b):
        if m not in means.columns:
            raise SchemaError(
                f"measure {m!r} is not in the scores; the measures are {list(means.columns)}"
            )
    pair = means[[measure_a, measure_b]].dropna()
    fig, axes = new_axes(ax)
    axes.scatter(pair[measure_a], pair[measure_b], s=18)
    tau = kendall_tau(pair[measure_a].to_numpy(), pair[measure_b].to_numpy())
    axes.set_xlabel(f"mean {measure_a}")
    axes.set_ylabel(f"mean {measure_b}")
    axes.set_title(
        f"{len(pair)} systems, Kendall τ = {tau:.3f}"
        if np.isfinite(tau)
        else f"{len(pair)} systems"
    )
    return _finish(fig, axes, ax, legend=False)
