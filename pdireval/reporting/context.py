"""The shared state of one report (:class:`Context`: inputs and results computed once)
and the helpers every section builder uses."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from pdireval.evaluation import Prepared, prepare, scores_frame
from pdireval.reporting.html import Section
from pdireval.reporting.progress import Progress, Steps

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pdireval.types import Correction, ResamplingCorrection

__all__ = [
    "ALPHA",
    "Context",
    "plot_module",
    "as_figure",
    "count_words",
    "nothing_varies",
    "too_small",
]


ALPHA = 0.05


@dataclass
class Context:
    """Inputs and shared results of one report (each computed once, on first use)."""

    run: pd.DataFrame
    qrels: pd.DataFrame | None
    measures: list
    figures_dir: Path
    n_resamples: int
    rng: np.random.Generator
    columns: Mapping[str, str] | None = None
    measure_names: list[str] = field(default_factory=list)
    systems: list[str] = field(default_factory=list)  # in the Systems table's order
    score_precision: str = "float32"  # how run scores are compared (see pdireval.evaluate)
    correction: str = "holm"  # the family-wise correction of the pair tests (compare())
    warn_precision: bool = True  # warn when float32 ties change a value (no precision chosen)
    other_qrels: pd.DataFrame | None = None  # a second set of judgments (judgments section)
    nugget_scores: pd.DataFrame | None = None  # scores of RAG answers (RAG section)
    svg: bool = False
    progress: Progress | None = None  # the report's progress bars (None: none shown)
    _prepared: Prepared | None = field(default=None, init=False, repr=False)
    _scores: pd.DataFrame | None = field(default=None, init=False, repr=False)

    @property
    def prepared(self) -> Prepared:
        """The validated and joined run and qrels (set by :meth:`prepare`)."""
        if self._prepared is None:
            raise RuntimeError("Context.prepare() has not run yet")
        return self._prepared

    @property
    def scores(self) -> pd.DataFrame:
        """The scores of the report's measures (set by :meth:`prepare`)."""
        if self._scores is None:
            raise RuntimeError("Context.prepare() has not run yet")
        return self._scores

    @property
    def show(self) -> bool:
        """Whether progress bars are shown (passed on as the analyses' ``progress=``)."""
        return self.progress is not None and self.progress.show

    def steps(self, section: str, labels) -> Steps:
        """The steps of a section as an inner progress bar (see :class:`Progress`)."""
        return (
            self.progress.steps(section, labels)
            if self.progress is not None
            else Steps(None, section)
        )

    def prepare(self) -> None:
        step = self.steps("evaluation", ["validating and joining run and qrels", "measures"])
        step("validating and joining run and qrels")
        self._prepared = prepare(
            self.run, qrels=self.qrels, columns=self.columns, score_precision=self.score_precision
        )
        step("measures")
        self._scores = self.evaluate(self.measures)
        if self.prepared.recheck is not None and self.warn_precision:
            self.warn_float32()
        self.measure_names = list(pd.unique(self.scores["measure"]))
        first = self.scores[self.scores["measure"] == self.measure_names[0]]
        means = first.groupby("system", sort=True)["value"].mean()
        order = sorted(means.index, key=lambda s: (-np.nan_to_num(means[s], nan=-np.inf), s))
        self.systems = list(order)

    def warn_float32(self) -> None:
        """One warning when float32 ties change a value of the report's measures."""
        from pdireval.errors import warn_caller
        from pdireval.evaluation import PRECISION_ADVICE, float32_changes, float32_message
        from pdireval.measures.registry import labelled_measures

        labels, parsed = zip(*labelled_measures(self.measures))
        values = [self.prepared.values(m) for m in parsed]
        changes = float32_changes(self.prepared, parsed, values, labels)
        if len(changes):
            message = float32_message(changes, len(self.scores), PRECISION_ADVICE)
            warn_caller(message, once="float32")

    def evaluate(self, measures) -> pd.DataFrame:
        """Scores of ``measures`` on the prepared run (validated and joined once), each
        measure named as given."""
        from pdireval.measures.registry import labelled_measures

        labels, parsed = zip(*labelled_measures(measures))
        values = [self.prepared.values(m) for m in parsed]
        return scores_frame(self.prepared.segments, parsed, values, labels)

    @cached_property
    def constant_measures(self) -> list[str]:
        """Measures with the same value on every system and query (e.g. no relevant
        document anywhere): they tell no systems apart, so meta-evaluation skips them."""
        spread = self.scores.groupby("measure", sort=False)["value"].agg(
            lambda v: v.max() - v.min() if v.notna().any() else 0.0
        )
        return [m for m in self.measure_names if not spread[m] > 0]

    @cached_property
    def meta_scores(self) -> pd.DataFrame:
        """The scores of the measures that vary (the input of the meta-evaluation sections)."""
        return self.scores[~self.scores["measure"].isin(self.constant_measures)].reset_index(
            drop=True
        )

    @property
    def meta_measures(self) -> list[str]:
        return [m for m in self.measure_names if m not in self.constant_measures]

    def constant_note(self) -> list[str]:
        if not self.constant_measures:
            return []
        return [
            f"Left out: {', '.join(self.constant_measures)} (the same value on every system "
            "and query, "
            "so it tells no systems apart)."
        ]

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def n_queries(self) -> int:
        return int(self.scores["query"].nunique())

    def seed(self) -> int:
        """A fresh integer seed drawn from the report's generator (one per analysis)."""
        return int(self.rng.integers(0, 2**31 - 1))

    @cached_property
    def tests(self) -> pd.DataFrame:
        """Sakai's paired bootstrap test of every pair of systems per measure, run once and
        shared by the Systems table, the paper table, discriminative power, ASL curves and
        conflicts (corrected by ``correction``, Holm by default, over the pairs of each measure
        in ``p_adjusted``)."""
        from pdireval.meta.significance import compare

        return compare(
            self.meta_scores,
            method="bootstrap",
            correction=cast("Correction | ResamplingCorrection", self.correction),
            n_resamples=self.n_resamples,
            required_diff_alpha=ALPHA,
            rng=self.seed(),
            progress=self.show,
        )

    def in_order(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Rows sorted by the Systems table's order of ``system`` (stable: other keys keep
        their order). Pair tables: see :meth:`pairs_in_order`."""
        rank = {s: i for i, s in enumerate(self.systems)}
        cols = [c for c in ("system", "system_a", "system_b") if c in frame.columns]
        if not cols:
            return frame
        keys = [frame[c].map(rank).to_numpy() for c in reversed(cols)]
        lead = [
            c
            for c in frame.columns
            if c not in cols and c in ("measure", "measure_a", "measure_b", "k")
        ]
        for c in reversed(lead):
            codes = pd.factorize(frame[c], sort=False)[0]
            keys.append(codes)
        order = np.lexsort(keys)
        return frame.iloc[order].reset_index(drop=True)

    def pairs_in_order(self, frame: pd.DataFrame, by: str) -> pd.DataFrame:
        """A table of symmetric system-pair results in the Systems table's order.

        Each pair is written with ``system_a`` before ``system_b`` in the Systems table (the
        ``*_a`` / ``*_b`` columns swapped with them; ``by`` and every other column must not
        depend on the pair's direction, e.g. a two-sided p-value or an information
        difference); rows are sorted per measure (in the report's measure order) by ``by``,
        ties by the Systems table's order of ``system_a`` then ``system_b``; a ``rank`` column
        is renumbered 1, 2, ... in that order.
        """
        pos = {s: i for i, s in enumerate(self.systems)}
        out = frame.copy()
        pa = out["system_a"].map(pos).to_numpy()
        pb = out["system_b"].map(pos).to_numpy()
        swap = pa > pb
        for col in out.columns:
            if col.endswith("_a") and col[:-2] + "_b" in out.columns:
                other = col[:-2] + "_b"
                a, b = out[col].to_numpy(copy=True), out[other].to_numpy(copy=True)
                a[swap], b[swap] = out[other].to_numpy()[swap], out[col].to_numpy()[swap]
                out[col], out[other] = a, b
        pa, pb = np.where(swap, pb, pa), np.where(swap, pa, pb)
        keys = [pb, pa, out[by].to_numpy()]
        if "measure" in out.columns:
            measure_pos = {m: i for i, m in enumerate(self.measure_names)}
            keys.append(out["measure"].map(measure_pos).to_numpy())
        order = np.lexsort(keys)
        out = out.iloc[order].reset_index(drop=True)
        if "rank" in out.columns:
            group = out["measure"] if "measure" in out.columns else pd.Series(0, index=out.index)
            out["rank"] = (group.groupby(group, sort=False).cumcount() + 1).astype(np.int64)
        return out

    def save(self, fig, name: str) -> Path:
        """Save a matplotlib figure as PNG (returned; and SVG with ``svg=True``), then close it."""
        import matplotlib.pyplot as plt

        png = self.figures_dir / f"{name}.png"
        fig.savefig(png, dpi=110)
        if self.svg:
            fig.savefig(self.figures_dir / f"{name}.svg")
        plt.close(fig)
        return png


def names_as_text():
    """A context in which matplotlib draws every text as it is, never as mathtext: the
    figures show system and query names from other people's files, and a name such as
    ``$\\input{x}$`` would otherwise stop the report ("Unknown symbol")."""
    import matplotlib

    return matplotlib.rc_context({"text.parse_math": False})


def plot_module():
    from pdireval import plot

    return plot


def as_figure(result):
    """A Figure from what a plot function returns (a Figure or an Axes)."""
    return getattr(result, "figure", result)


def count_words(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def nothing_varies(ctx: Context, key: str, title: str, text: str) -> Section | None:
    """The skipped section when no measure varies (else None)."""
    if ctx.meta_measures:
        return None
    return Section(
        key=key,
        title=title,
        text=text,
        notes=[
            "Skipped: every measure has the same value on every system and query (no relevant "
            "document?), "
            "so nothing tells the systems apart."
        ],
    )


def too_small(
    ctx: Context, key: str, title: str, text: str, needs: str, min_queries: int = 2
) -> Section | None:
    """The skipped section when no measure varies, or with fewer than two systems or fewer
    than ``min_queries`` queries (``needs`` says what the analysis needs), else None."""
    skipped = nothing_varies(ctx, key, title, text)
    if skipped is not None:
        return skipped
    if ctx.n_systems >= 2 and ctx.n_queries >= min_queries:
        return None
    why = (
        count_words(ctx.n_systems, "system")
        if ctx.n_systems < 2
        else count_words(ctx.n_queries, "query", "queries")
    )
    return Section(key=key, title=title, text=text, notes=[f"Skipped: {why}; {needs}."])
