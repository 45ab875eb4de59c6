"""Figures for bound frames (Karmaker & Feng's (2022) Figures 2 and 3: histograms of expected
values)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.errors import SchemaError
from pdireval.plot._base import new_axes

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Literal

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["expected_histogram"]


def expected_histogram(
    frame: pd.DataFrame,
    *,
    column: Literal["random", "ideal", "worst", "value"] = "random",
    bins: int | Sequence[float] | str = 20,
    ax: Axes | None = None,
    **hist_kwargs: Any,
) -> Figure | Axes:
    """Histogram of per-query expected values, one panel-line per measure (Karmaker & Feng 2022,
    Figure 2, 3).

    Parameters
    ----------
    frame
        The frame :func:`pdireval.bounds` returns (``query``, ``measure`` and ``column``).
        Each query counts once per measure: its values are averaged over systems (they are
        equal for the default ``rlb_pool="qrels"``).
    column
        Which column to histogram: ``random`` (default, the expected value of a random
        ranking), ``ideal``, ``worst`` or ``value``.
    bins
        Passed to ``Axes.hist``; the same bin edges are used for every measure.
    ax
        Axes to draw on (a new figure when omitted).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (the axes when ``ax`` is given).
    """
    missing = [c for c in ("query", "measure", column) if c not in frame.columns]
    if missing:
        raise SchemaError(
            f"expected_histogram needs the columns query, measure and {column!r} (the output of "
            f"pdireval.bounds); missing: {missing}."
        )
    per_query = (
        frame.groupby(["measure", "query"], sort=False, observed=True)[column].mean().reset_index()
    )
    fig, axes = new_axes(ax)
    values = per_query[column].to_numpy(dtype=np.float64)
    finite = values[np.isfinite(values)]
    edges = np.histogram_bin_edges(finite, bins=bins) if len(finite) else bins
    for measure, group in per_query.groupby("measure", sort=False, observed=True):
        v = group[column].to_numpy(dtype=np.float64)
        axes.hist(v[np.isfinite(v)], bins=edges, alpha=0.6, label=str(measure), **hist_kwargs)
    axes.set_xlabel(f"{column} value per query")
    axes.set_ylabel("queries")
    axes.legend(frameon=False)
    return axes if ax is not None else fig
