"""Figures for generalizability theory and stability-optimal nDCG (Kanoulas & Aslam 2009, Figures
2–4).

* :func:`d_study_curve` — Φ(n′) or Eρ²(n′) against the number of queries, from
  :func:`pdireval.d_study`, one line (and confidence band) per measure.
* :func:`optimal_discounts` — the optimal discount factors beside the log2, zipf and linear
  discounts normalised to sum 1 (Kanoulas & Aslam 2009, Figures 2 and 3), from
  :func:`pdireval.optimize`.
* :func:`optimal_gains` — the optimal gains per relevance grade beside linear and exp.
* :func:`stability_curves` — Φ(n′) of nDCG under the optimal and the standard functions
  against the number of queries (Kanoulas & Aslam 2009, Figure 4).
* :func:`phi_contours` — contours of Φ (or Eρ²) over numbers of queries × judges (or
  seeds), from the three-facet :func:`pdireval.d_study` grid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.errors import OptionError
from pdireval.plot._base import new_axes

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Literal

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from pdireval.runs.optimize import OptimizeResult

__all__ = [
    "d_study_curve",
    "optimal_discounts",
    "optimal_gains",
    "stability_curves",
    "phi_contours",
]

_KEYS_SKIP = {
    "n_queries",
    "phi",
    "phi_ci_low",
    "phi_ci_high",
    "e_rho2",
    "e_rho2_ci_low",
    "e_rho2_ci_high",
}


def _finish(fig, ax, given):
    return ax if given is not None else fig


def d_study_curve(
    curve: pd.DataFrame,
    *,
    coefficient: Literal["phi", "e_rho2"] = "phi",
    band: bool = True,
    target: float | None = None,
    ax: Axes | None = None,
) -> Figure | Axes:
    """Plot Φ(n′) (or Eρ²(n′)) against the query-set size n′ for each measure.

    Parameters
    ----------
    curve
        The frame of :func:`pdireval.d_study` (grouping keys, ``n_queries``, ``phi``, ...).
    coefficient
        ``"phi"`` or ``"e_rho2"``.
    band
        Shade the confidence interval (``*_ci_low`` to ``*_ci_high``).
    target
        Draw a horizontal line at this coefficient (e.g. 0.95).
    ax
        Axes to draw on (default: a new figure).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    if coefficient not in ("phi", "e_rho2"):
        raise OptionError(f"coefficient= must be 'phi' or 'e_rho2', got {coefficient!r}")
    fig, axes = new_axes(ax)
    keys = [c for c in curve.columns if c not in _KEYS_SKIP]
    groups = curve.groupby(keys, sort=False, dropna=False) if keys else [((), curve)]
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(str(k) for k in key) or coefficient
        part = part.sort_values("n_queries")
        (line,) = axes.plot(part["n_queries"], part[coefficient], label=label)
        if band and f"{coefficient}_ci_low" in part:
            axes.fill_between(
                part["n_queries"],
                part[f"{coefficient}_ci_low"],
                part[f"{coefficient}_ci_high"],
                color=line.get_color(),
                alpha=0.15,
                linewidth=0,
            )
    if target is not None:
        axes.axhline(target, color="grey", linestyle=":", linewidth=1)
    axes.set_xlabel("number of queries n′")
    axes.set_ylabel("Φ (dependability)" if coefficient == "phi" else "Eρ² (generalizability)")
    axes.set_ylim(0, 1.02)
    axes.legend(fontsize="small")
    return _finish(fig, axes, ax)


def optimal_discounts(
    result: OptimizeResult, *, ax: Axes | None = None, title: str | None = None
) -> Figure | Axes:
    """The optimal discount factors of :func:`pdireval.optimize` beside the log2
    (1/log2(r+1)), zipf (1/r) and linear ((K+1−r)/K) discounts, all normalised to sum 1
    over ranks 1..K (Kanoulas & Aslam 2009, Figures 2–3; markers as in the paper).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    fig, axes = new_axes(ax)
    d = result.discounts
    axes.plot(d["rank"], d["discount"], "o-", label="optimal", color="tab:blue")
    axes.plot(d["rank"], d["log2"], "^-", label="log2", color="navy", markersize=4)
    axes.plot(d["rank"], d["zipf"], "+-", label="zipf", color="tab:green")
    axes.plot(d["rank"], d["linear"], "x-", label="linear", color="m")
    from matplotlib.ticker import MaxNLocator

    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("rank")
    axes.set_ylabel("discount factor (sum 1)")
    if title:
        axes.set_title(title)
    axes.legend(fontsize="small")
    return _finish(fig, axes, ax)


def optimal_gains(
    result: OptimizeResult, *, ax: Axes | None = None, title: str | None = None
) -> Figure | Axes:
    """Gains per relevance grade (normalised to sum 1): optimal, linear and exp, as bars,
    with the optimal ratio gain(highest)/gain(lowest relevant) in the legend.

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    fig, axes = new_axes(ax)
    g = result.gains
    x = np.arange(len(g))
    width = 0.27
    ratio = result.summary["gain_ratio"].iloc[0]
    axes.bar(x - width, g["gain"], width, label=f"optimal (ratio {ratio:.2f})")
    axes.bar(x, g["linear"], width, label="linear (ratio 2)" if len(g) == 2 else "linear")
    axes.bar(x + width, g["exp"], width, label="exp (ratio 3)" if len(g) == 2 else "exp")
    axes.set_xticks(x, [f"grade {gr:g}" for gr in g["grade"]])
    axes.set_ylabel("gain (sum 1)")
    if title:
        axes.set_title(title)
    axes.legend(fontsize="small")
    return _finish(fig, axes, ax)


def stability_curves(
    result: OptimizeResult,
    n_queries: Iterable[float] | None = None,
    *,
    objective: int = 0,
    target: float | None = 0.95,
    ax: Axes | None = None,
) -> Figure | Axes:
    """Φ(n′) of nDCG under the optimal and the standard gain/discount functions against the
    number of queries (Kanoulas & Aslam 2009, Figure 4), from ``result.comparison``'s variance
    components.

    Parameters
    ----------
    result
        An :class:`~pdireval.runs.optimize.OptimizeResult`.
    n_queries
        query-set sizes (default 1..2·observed).
    objective
        Which objective (row block of ``result.summary``) to draw, when there are several.
    target
        Horizontal reference line (None: none).

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    from pdireval.stats.gtheory import phi

    fig, axes = new_axes(ax)
    comp = result.comparison
    n_funcs = len(comp) // len(result.summary)
    block = comp.iloc[objective * n_funcs : (objective + 1) * n_funcs]
    if n_queries is None:
        n_queries = np.arange(1, 2 * int(block["n_queries_observed"].iloc[0]) + 1)
    n_queries = np.asarray(n_queries, dtype=np.float64)
    for _, row in block.iterrows():
        label = (
            row["discount"]
            if result.what == "discount"
            else row["gain"]
            if result.what == "gain"
            else f"{row['gain']} / {row['discount']}"
        )
        axes.plot(
            n_queries,
            phi(row["var_system"], row["var_query"], row["var_residual"], n_queries),
            label=str(label),
            linewidth=2 if "optimal" in str(label) else 1,
        )
    if target is not None:
        axes.axhline(target, color="grey", linestyle=":", linewidth=1)
    axes.set_xlabel("number of queries n′")
    axes.set_ylabel("Φ")
    axes.legend(fontsize="small")
    return _finish(fig, axes, ax)


def phi_contours(
    grid: pd.DataFrame,
    *,
    coefficient: Literal["phi", "e_rho2"] = "phi",
    levels: Sequence[float] = (0.5, 0.7, 0.8, 0.9, 0.95),
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure | Axes:
    """Contours of Φ (or Eρ²) over the number of queries × the number of judges (or seeds).

    Parameters
    ----------
    grid
        The frame of :func:`pdireval.d_study` with ``facets=("query", "judge")`` (or
        ``"seed"``) and lists of ``n_queries`` and ``n_judges`` (``n_seeds``): one group
        (select one measure first, e.g. ``grid[grid["measure"] == "AP"]``).
    coefficient
        ``"phi"`` or ``"e_rho2"``.
    levels
        The coefficient values to draw a labelled contour at.
    ax, title
        Axes to draw on (default: a new figure) and its title.

    Returns
    -------
    Figure, or ``ax`` when given.
    """
    if coefficient not in ("phi", "e_rho2"):
        raise OptionError(f"coefficient= must be 'phi' or 'e_rho2', got {coefficient!r}")
    facet = next((c for c in ("n_judges", "n_seeds") if c in grid.columns), None)
    if facet is None or "n_queries" not in grid.columns or coefficient not in grid.columns:
        raise OptionError(
            "phi_contours needs the grid of pdireval.d_study(scores, n_queries=[...], "
            "facets=('query', 'judge'), n_judges=[...]) (columns n_queries, n_judges or "
            f"n_seeds, {coefficient}); got columns {list(grid.columns)!r}."
        )
    keys = [c for c in grid.columns if c not in ("n_queries", facet, "phi", "e_rho2")]
    if keys and len(grid[keys].drop_duplicates()) > 1:
        raise OptionError(
            f"phi_contours draws one group, but the grid holds {len(grid[keys].drop_duplicates())} "
            f"({', '.join(keys)}): select one first, e.g. grid[grid['{keys[0]}'] == "
            f"{grid[keys[0]].iloc[0]!r}]."
        )
    table = grid.pivot_table(index=facet, columns="n_queries", values=coefficient, sort=True)
    if table.shape[0] < 2 or table.shape[1] < 2:
        raise OptionError(
            "phi_contours needs at least 2 numbers of queries and 2 of judges (seeds)."
        )
    fig, axes = new_axes(ax)
    x = table.columns.to_numpy(dtype=np.float64)
    y = table.index.to_numpy(dtype=np.float64)
    filled = axes.contourf(x, y, table.to_numpy(), levels=np.linspace(0.0, 1.0, 21), cmap="viridis")
    lines = axes.contour(
        x, y, table.to_numpy(), levels=sorted(levels), colors="white", linewidths=1
    )
    axes.clabel(lines, fmt="%.2f", fontsize="small")
    fig.colorbar(filled, ax=axes, label="Φ" if coefficient == "phi" else "Eρ²")
    axes.set_xlabel("number of queries n′")
    axes.set_ylabel("number of " + facet[2:] + " n′")
    if title:
        axes.set_title(title)
    return _finish(fig, axes, ax)
