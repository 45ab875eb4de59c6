"""Figures for the information-theoretic analyses of Golbus & Aslam (2013)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.errors import SchemaError
from pdireval.plot._base import new_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["information_tau_per_query", "ric_scatter", "fusion_scatter"]


def _require(frame: pd.DataFrame, columns, what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise SchemaError(
            f"{what} needs the columns {missing} (it has {list(frame.columns)}): pass the frame "
            "returned by the function named in the docstring."
        )


def information_tau_per_query(table: pd.DataFrame, *, ax: Axes | None = None) -> Figure | Axes:
    """Per-query information τ, one strip of points per conditioning set (Golbus & Aslam 2013,
    Figure 1).

    Parameters
    ----------
    table
        The frame of ``pdireval.information_tau(..., per_query=True)``, possibly with several
        ``given`` sets (and several measure pairs: one strip per (a, b, given)).
    ax
        Axes to draw on (default: a new figure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    _require(
        table,
        ["measure_a", "measure_b", "given", "query", "information_tau"],
        "information_tau_per_query",
    )
    fig, axes = new_axes(ax, figsize=(6, 3.5))
    keys = table[["measure_a", "measure_b", "given"]].drop_duplicates().itertuples(index=False)
    labels = []
    for i, (a, b, given) in enumerate(keys):
        part = table[(table.measure_a == a) & (table.measure_b == b) & (table.given == given)]
        values = part["information_tau"].to_numpy(dtype=np.float64)
        jitter = np.linspace(-0.25, 0.25, len(values)) if len(values) > 1 else np.zeros(len(values))
        axes.scatter(i + jitter, values, s=10, alpha=0.7)
        axes.hlines(np.nanmean(values), i - 0.3, i + 0.3, color="black", linewidth=1.5)
        labels.append(f"τI({a}; {b}" + (f" | {given})" if given else ")"))
    axes.set_xticks(range(len(labels)), labels, rotation=15, ha="right", fontsize="small")
    axes.set_ylabel("information τ (bits), per query")
    axes.set_ylim(-0.02, 1.02)
    return ax if ax is not None else fig


def ric_scatter(
    scores: pd.DataFrame, measure: str = "AP", *, ric: str = "RIC", ax: Axes | None = None
) -> Figure | Axes:
    """Mean RIC of each system against its mean under another measure (Golbus & Aslam 2013, Figure
    2), with Kendall's τ_b in the title.

    Parameters
    ----------
    scores
        A scores frame holding ``ric`` and ``measure``.
    measure, ric
        The measure on the x axis and the RIC spelling on the y axis.
    ax
        Axes to draw on (default: a new figure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    from pdireval.plot.significance import measure_scatter

    return measure_scatter(scores, measure, ric, ax=ax)


def fusion_scatter(
    points: pd.DataFrame,
    *,
    x: str = "joint_ric",
    y: str = "fused_ric",
    by: str = "method",
    ax: Axes | None = None,
) -> Figure | Axes:
    """RIC of fused runs against the joint RIC of their inputs (Golbus & Aslam 2013, Figure 3): one
    colour per fusion method, with the diagonal y = x.

    Parameters
    ----------
    points
        A frame with columns ``x``, ``y`` and ``by`` (e.g. one row per group of systems and
        method, merged from :func:`pdireval.joint_ric` and ``evaluate(fuse(...), "RIC")``).
    x, y, by
        Column names.
    ax
        Axes to draw on (default: a new figure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    _require(points, [x, y, by], "fusion_scatter")
    fig, axes = new_axes(ax, figsize=(5, 4.5))
    for name, part in points.groupby(by, sort=False):
        axes.scatter(part[x], part[y], s=14, label=str(name), alpha=0.8)
    lo = float(np.nanmin(points[[x, y]].to_numpy())) if len(points) else 0.0
    hi = float(np.nanmax(points[[x, y]].to_numpy())) if len(points) else 1.0
    axes.plot([lo, hi], [lo, hi], color="grey", linewidth=0.8, linestyle="--")
    axes.set_xlabel("joint RIC of the input systems (bits)")
    axes.set_ylabel("RIC of the fused run (bits)")
    axes.legend(frameon=False, fontsize="small")
    return ax if ax is not None else fig
