"""The sections of a report: each builder takes the shared :class:`Context` and returns a
:class:`~pdireval.report.html.Section` (tables + figures + explanation), or None to skip.

Builders only call public pdireval functions and plot functions; they add no statistics of
their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..evaluate import evaluate
from ..meta.aggregate import aggregate
from .html import Section

__all__ = ["Context", "SECTIONS"]


@dataclass
class Context:
    """Inputs and shared results of one report."""

    run: pd.DataFrame
    qrels: pd.DataFrame | None
    measures: list
    figures_dir: Path
    n_resamples: int
    rng: np.random.Generator
    columns: dict | None = None
    scores: pd.DataFrame | None = None
    measure_names: list[str] = field(default_factory=list)

    def prepare(self) -> None:
        self.scores = evaluate(self.run, self.measures, qrels=self.qrels, columns=self.columns)
        self.measure_names = list(pd.unique(self.scores["measure"]))

    def seed(self) -> int:
        """A fresh integer seed drawn from the report's generator (one per analysis)."""
        return int(self.rng.integers(0, 2**31 - 1))

    def save(self, fig, name: str) -> Path:
        """Save a matplotlib figure as PNG (returned) and SVG, then close it."""
        import matplotlib.pyplot as plt

        png = self.figures_dir / f"{name}.png"
        fig.savefig(png, dpi=110)
        fig.savefig(self.figures_dir / f"{name}.svg")
        plt.close(fig)
        return png


def systems_section(ctx: Context) -> Section:
    """Per-system means, one column per measure, best system first."""
    summary = aggregate(ctx.scores)
    wide = summary.pivot(index="system", columns="measure", values="mean")[ctx.measure_names]
    wide = wide.sort_values(ctx.measure_names[0], ascending=False)
    wide.columns.name = None
    wide = wide.reset_index()
    return Section(
        key="systems",
        title="Systems",
        text=(
            "Mean over queries of each measure (queries a system did not answer score 0). "
            f"Systems are sorted by {ctx.measure_names[0]}."
        ),
        tables={"systems": wide, "summary": summary},
        captions={
            "systems": "Mean per system and measure",
            "summary": "Mean, standard deviation and number of queries per system and measure (tidy)",
        },
    )


def per_query_section(ctx: Context) -> Section:
    """The per-query scores frame (tidy), shown truncated on the page."""
    return Section(
        key="per-query",
        title="Per-query scores",
        text="Every (system, query, measure) value; the workbook holds all rows.",
        tables={"per_query": ctx.scores},
        captions={"per_query": "Per-query scores (system, query, measure, value)"},
        preview_rows=20,
    )


SECTIONS = [systems_section, per_query_section]
