"""The sections of a report: each builder takes the shared :class:`Context` and returns a
:class:`~pdireval.reporting.html.Section` (tables + figures + explanation).

Builders only call pdireval's functions and plot functions; they add no statistics of their
own. A section whose analysis cannot run on the collection (one system, too few queries, no
relevant document) still appears, with a one-line note saying why, and never an empty table
or a one-point curve.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from pdireval.evaluation import Prepared, prepare, scores_frame
from pdireval.reporting.html import Section
from pdireval.reporting.progress import Progress, Steps

__all__ = ["Context", "SECTIONS"]

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
    columns: dict | None = None
    prepared: Prepared | None = None
    scores: pd.DataFrame | None = None
    measure_names: list[str] = field(default_factory=list)
    systems: list[str] = field(default_factory=list)  # in the Systems table's order
    other_qrels: pd.DataFrame | None = None  # a second set of judgments (judgments section)
    svg: bool = False
    progress: Progress | None = None  # the report's progress bars (None: none shown)

    @property
    def show(self) -> bool:
        """Whether progress bars are shown (passed on as the analyses' ``progress=``)."""
        return self.progress is not None and self.progress.show

    def steps(self, section: str, labels) -> Steps:
        """The steps of a section as an inner progress bar (see :class:`Progress`)."""
        return self.progress.steps(section, labels) if self.progress is not None else Steps(None, section)

    def prepare(self) -> None:
        step = self.steps("evaluation", ["validating and joining run and qrels", "measures"])
        step("validating and joining run and qrels")
        self.prepared = prepare(self.run, qrels=self.qrels, columns=self.columns)
        step("measures")
        self.scores = self.evaluate(self.measures)
        self.measure_names = list(pd.unique(self.scores["measure"]))
        first = self.scores[self.scores["measure"] == self.measure_names[0]]
        means = first.groupby("system", sort=True)["value"].mean()
        order = sorted(means.index, key=lambda s: (-np.nan_to_num(means[s], nan=-np.inf), s))
        self.systems = list(order)

    def evaluate(self, measures) -> pd.DataFrame:
        """Scores of ``measures`` on the prepared run (validated and joined once)."""
        from pdireval.measures import parse_measures

        parsed = parse_measures(measures)
        return scores_frame(self.prepared.segments, parsed, [self.prepared.values(m) for m in parsed])

    @cached_property
    def constant_measures(self) -> list[str]:
        """Measures with the same value on every system and query (e.g. no relevant
        document anywhere): they tell no systems apart, so meta-evaluation skips them."""
        spread = self.scores.groupby("measure", sort=False)["value"].agg(lambda v: v.max() - v.min() if v.notna().any() else 0.0)
        return [m for m in self.measure_names if not spread[m] > 0]

    @cached_property
    def meta_scores(self) -> pd.DataFrame:
        """The scores of the measures that vary (the input of the meta-evaluation sections)."""
        return self.scores[~self.scores["measure"].isin(self.constant_measures)].reset_index(drop=True)

    @property
    def meta_measures(self) -> list[str]:
        return [m for m in self.measure_names if m not in self.constant_measures]

    def constant_note(self) -> list[str]:
        if not self.constant_measures:
            return []
        return [f"Left out: {', '.join(self.constant_measures)} (the same value on every system and query, "
                "so it tells no systems apart)."]

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
        conflicts (Holm-corrected over the pairs of each measure in ``p_adjusted``)."""
        from pdireval.meta.significance import compare

        return compare(self.meta_scores, method="bootstrap", correction="holm", n_resamples=self.n_resamples,
                       alpha=ALPHA, rng=self.seed(), progress=self.show)

    def in_order(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Rows sorted by the Systems table's order of ``system`` (stable: other keys keep
        their order). Pair tables: see :meth:`pairs_in_order`."""
        rank = {s: i for i, s in enumerate(self.systems)}
        cols = [c for c in ("system", "system_a", "system_b") if c in frame.columns]
        if not cols:
            return frame
        keys = [frame[c].map(rank).to_numpy() for c in reversed(cols)]
        lead = [c for c in frame.columns if c not in cols and c in ("measure", "measure_a", "measure_b", "k")]
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


def _plot():
    from pdireval import plot

    return plot


def _figure(result):
    """A Figure from what a plot function returns (a Figure or an Axes)."""
    return getattr(result, "figure", result)


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


# --------------------------------------------------------------------------- sections


def _nothing_varies(ctx: Context, key: str, title: str, text: str) -> Section | None:
    """The skipped section when no measure varies (else None)."""
    if ctx.meta_measures:
        return None
    return Section(key=key, title=title, text=text, notes=[
        "Skipped: every measure has the same value on every system and query (no relevant document?), "
        "so nothing tells the systems apart."])


def _too_small(ctx: Context, key: str, title: str, text: str, needs: str, min_queries: int = 2) -> Section | None:
    """The skipped section when no measure varies, or with fewer than two systems or fewer
    than ``min_queries`` queries (``needs`` says what the analysis needs), else None."""
    skipped = _nothing_varies(ctx, key, title, text)
    if skipped is not None:
        return skipped
    if ctx.n_systems >= 2 and ctx.n_queries >= min_queries:
        return None
    why = _count(ctx.n_systems, "system") if ctx.n_systems < 2 else _count(ctx.n_queries, "query", "queries")
    return Section(key=key, title=title, text=text, notes=[f"Skipped: {why}; {needs}."])


def systems_section(ctx: Context) -> Section:
    """Per-system means, significance against the best, and the table for a paper."""
    from pdireval.meta.aggregate import aggregate
    from pdireval.reporting.paper import paper_table
    from pdireval.stats.corrections import adjust_pvalues

    step = ctx.steps("systems", ["means", "bootstrap tests", "table for a paper"])
    step("means")
    summary = ctx.in_order(aggregate(ctx.scores))
    wide = summary.pivot(index="system", columns="measure", values="mean").loc[ctx.systems, ctx.measure_names]
    wide.columns.name = None
    wide = wide.reset_index()
    notes = []
    tables = {"systems": wide}
    captions = {"systems": f"Mean per system and measure over {_count(ctx.n_queries, 'query', 'queries')}; "
                           f"systems by mean {ctx.measure_names[0]}"}
    extra_html = ""
    if ctx.n_systems >= 2 and ctx.n_queries >= 2 and ctx.meta_measures:
        step("bootstrap tests")
        tests = ctx.tests
        rows = []
        for measure in ctx.meta_measures:
            part = summary[summary["measure"] == measure]
            best = part.sort_values(["mean", "system"], ascending=[False, True])["system"].iloc[0]
            t = tests[(tests["measure"] == measure) & ((tests["system_a"] == best) | (tests["system_b"] == best))]
            other = np.where(t["system_a"] == best, t["system_b"], t["system_a"])
            p = pd.Series(adjust_pvalues(t["p_value"].to_numpy(), "holm"), index=other)
            rows.append(part.assign(p_vs_best=part["system"].map(p).astype(np.float64), best=best))
        for measure in ctx.constant_measures:
            rows.append(summary[summary["measure"] == measure].assign(p_vs_best=np.nan, best=""))
        summary = ctx.in_order(pd.concat(rows, ignore_index=True))
        summary["rank"] = summary.groupby("measure", sort=False)["mean"].rank(ascending=False, method="min").astype(np.int64)
        summary["worse_than_best"] = summary["p_vs_best"].lt(ALPHA)
        tables["summary"] = summary
        captions["summary"] = "Per system and measure: mean, standard deviation, queries, rank, p-value against the best (Holm)"
        step("table for a paper")
        frame = paper_table(ctx.scores, tests=tests, systems=ctx.systems, measures=ctx.measure_names, decimals=3)
        tables["paper_table"] = frame
        captions["paper_table"] = "The table for a paper (tidy form; paper_table.tex / .md beside the report)"
        extra_html = paper_table(ctx.scores, tests=tests, systems=ctx.systems, measures=ctx.measure_names, format="html")
        (ctx.figures_dir.parent / "paper_table.tex").write_text(
            paper_table(ctx.scores, tests=tests, systems=ctx.systems, measures=ctx.measure_names, format="latex"), encoding="utf-8")
        (ctx.figures_dir.parent / "paper_table.md").write_text(
            paper_table(ctx.scores, tests=tests, systems=ctx.systems, measures=ctx.measure_names, format="markdown"), encoding="utf-8")
        text = (
            "Mean of each measure over the queries (a query a system did not answer scores 0), "
            "the systems ordered by their mean on the first measure; every later table lists the "
            "systems in this order. The table below is ready for a paper: the best system of each "
            "measure in bold, and superscript letters naming the systems a cell is significantly "
            f"better than by Sakai's (2006) paired bootstrap test ({ctx.n_resamples} resamples, "
            f"Holm (1979) correction over the pairs of each measure, α = {ALPHA}), as in ranx "
            "(Bassani 2022) and PyTerrier tables."
        )
    else:
        tables["summary"] = summary
        captions["summary"] = "Per system and measure: mean, standard deviation, queries"
        if not ctx.meta_measures:
            notes.append("No significance test: every measure has the same value on every system and query.")
        else:
            why = "one system" if ctx.n_systems < 2 else "one query"
            notes.append(f"No significance test: the collection has {why}; tests need two systems and two queries.")
        text = "Mean of each measure over the queries (a query a system did not answer scores 0)."
    return Section(key="systems", title="Systems", text=text, tables=tables, captions=captions,
                   notes=notes, html=extra_html)


def uncertainty_section(ctx: Context) -> Section:
    """Intervals of every mean, rank intervals, P(best) and the top group."""
    import warnings

    from pdireval.errors import PdirevalWarning
    from pdireval.meta.aggregate import aggregate
    from pdireval.meta.rank_intervals import rank_uncertainty

    title = "Uncertainty"
    text = (
        "How sure are these numbers? Each mean with its 95% Student t interval over the "
        "queries (the forest plot), and each system's rank with its 95% query-bootstrap rank "
        f"interval ({ctx.n_resamples} resamples of the queries, every system's queries "
        "resampled together), its expected rank and its probability of being best. The top "
        "group holds the systems not significantly worse than the best one (one-sided paired "
        f"t-tests against it, Holm (1979) correction, α = {ALPHA})."
    )
    skipped = _too_small(ctx, "uncertainty", title, text, "intervals need two systems and two queries")
    if skipped is not None:
        return skipped
    step = ctx.steps("uncertainty", ["intervals", "rank intervals", "figures"])
    step("intervals")
    notes = ctx.constant_note()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PdirevalWarning)
        intervals = aggregate(ctx.meta_scores, method="t", confidence_level=1 - ALPHA)
    notes += [str(w.message) for w in caught if issubclass(w.category, PdirevalWarning)]
    intervals = ctx.in_order(intervals.drop(columns=["summary"]))
    step("rank intervals")
    ranks = rank_uncertainty(ctx.meta_scores, n_resamples=ctx.n_resamples, rng=ctx.seed(),
                             confidence_level=1 - ALPHA, test="t", correction="holm")
    step("figures")
    figures = {
        "forest_plot": ctx.save(_figure(_plot().forest_plot(intervals)), "forest_plot"),
        "rank_intervals": ctx.save(_figure(_plot().rank_interval_plot(ranks)), "rank_intervals"),
    }
    top = ranks[ranks["in_top_group"]].groupby("measure", sort=False)["system"].agg(", ".join)
    notes += [f"Top group under {m}: {names}." for m, names in top.items()]
    return Section(
        key="uncertainty", title=title, text=text,
        tables={"intervals": intervals, "rank_uncertainty": ranks},
        captions={
            "intervals": "Mean, standard error and 95% t interval per system and measure",
            "rank_uncertainty": "Observed rank, 95% bootstrap rank interval, expected rank, P(best) and the top group",
            "forest_plot": "Means with their 95% t intervals, best at the top",
            "rank_intervals": "Rank intervals (bars), observed (dots) and expected (crosses) ranks; red: the top group",
        },
        figures=figures, notes=notes,
    )


def per_query_section(ctx: Context) -> Section:
    """The per-query scores frame (tidy), shown truncated on the page."""
    return Section(
        key="per-query",
        title="Per-query scores",
        text=("Every (system, query, measure) value, as trec_eval computes it per query; the "
              "workbook holds all rows."),
        tables={"per_query": ctx.in_order(ctx.scores)},
        captions={"per_query": "Per-query scores (system, query, measure, value)"},
        preview_rows=20,
    )


BOUND_MEASURES = {
    "nDCG(gain=exp)@10": "nDCG@10 (exp)",
    "nDCG(bounds=ul1,gain=exp)@10": "DCG-UL V1",
    "nDCG(bounds=ul2,gain=exp)@10": "DCG-UL V2",
    "SP@10": "SP@10",
    "SP(bounds=ul1)@10": "SP-UL V1",
    "SP(bounds=ul2)@10": "SP-UL V2",
    "nDCG(negatives=keep)@10": "NDCG_org",
    "nDCG(negatives=nonrel)@10": "NDCG_0",
    "nDCG(bounds=minmax,negatives=keep)@10": "NDCG_min",
}
BOUND_BASE = {
    "DCG-UL V1": "nDCG@10 (exp)", "DCG-UL V2": "nDCG@10 (exp)", "SP-UL V1": "SP@10", "SP-UL V2": "SP@10",
    "NDCG_0": "NDCG_org", "NDCG_min": "NDCG_org",
}


def bounds_section(ctx: Context) -> Section:
    """Bound-normalised measures and the random baseline per query."""
    from pdireval.evaluation import bounds_of_segments
    from pdireval.measures import parse_measures
    from pdireval.meta.aggregate import aggregate
    from pdireval.meta.correlation import correlate

    step = ctx.steps("bounds", ["normalised measures", "rank correlations", "random baseline"])
    step("normalised measures")
    variants = ctx.evaluate(list(BOUND_MEASURES))
    variants["measure"] = variants["measure"].map(BOUND_MEASURES)
    defined = variants.groupby("measure", sort=False)["value"].apply(lambda v: v.notna().any())
    notes = []
    undefined = [m for m in BOUND_MEASURES.values() if not defined.get(m, False)]
    if undefined:
        notes.append(f"Undefined on every query (no relevant document, or one label only): {', '.join(undefined)}.")
        variants = variants[~variants["measure"].isin(undefined)]
    tables, captions, figures = {}, {}, {}
    legend = "; ".join(f"{short} = {long}" for long, short in BOUND_MEASURES.items() if short != long)
    if len(variants):
        means = ctx.in_order(aggregate(variants.dropna(subset=["value"])))
        wide = means.pivot(index="system", columns="measure", values="mean")
        wide = wide.loc[ctx.systems, [m for m in pd.unique(variants["measure"])]].reset_index()
        wide.columns.name = None
        tables["bound_means"] = wide
        captions["bound_means"] = f"Mean per system of each variant ({legend})"
    step("rank correlations")
    if ctx.n_systems >= 3 and len(variants):
        complete = variants.groupby("measure").filter(
            lambda g: g["value"].notna().all() and g["value"].max() > g["value"].min())  # defined and varying
        if complete["measure"].nunique() >= 2:
            corr = correlate(complete, method="kendall_b")
            keep = np.zeros(len(corr), dtype=bool)
            for a, b in BOUND_BASE.items():
                keep |= ((corr["measure_a"] == a) & (corr["measure_b"] == b)) | ((corr["measure_a"] == b) & (corr["measure_b"] == a))
            corr = corr[keep].reset_index(drop=True)
            if len(corr):
                tables["bound_tau"] = corr
                captions["bound_tau"] = "Kendall's τ_b between the system rankings of a measure and its normalised variant"
    elif ctx.n_systems < 3:
        notes.append("No rank correlation between the variants: it needs three or more systems.")
    step("random baseline")
    expected = bounds_of_segments(ctx.prepared.segments, parse_measures(["nDCG(gain=exp)@10", "SP@10"]))
    per_query = (
        expected.groupby(["measure", "query"], sort=False)[["value", "ideal", "random", "worst"]]
        .agg({"value": "mean", "ideal": "first", "random": "first", "worst": "first"})
        .reset_index()
        .rename(columns={"value": "mean_value"})
    )
    per_query = per_query[per_query["ideal"] > 0].reset_index(drop=True)
    if len(per_query):
        tables["random_baseline"] = per_query
        captions["random_baseline"] = "Per query: mean over systems, ideal (IUB), random expectation (RLB), worst (WLB)"
        ndcg_bounds = expected[(expected["measure"] == "nDCG(gain=exp)@10") & (expected["ideal"] > 0)]
        if ndcg_bounds["query"].nunique() >= 2:
            figures["expected_ndcg"] = ctx.save(_figure(_plot().expected_histogram(ndcg_bounds)), "expected_ndcg")
            captions["expected_ndcg"] = "Expected nDCG@10 (exp gain) under a random ranking of the judged pool, per query"
    else:
        notes.append("No random baseline: no query has a relevant document.")
    return Section(
        key="bounds",
        title="Bound-normalised measures",
        text=(
            "Karmaker Santu & Feng (2022) normalise a measure between the ideal ranking and the "
            "exact expected value of a random ranking of the judged pool: V1 rescales the measure "
            "by the ideal, V2 subtracts the random expectation as well, so a negative V2 value means "
            "a system ranks below chance on that query. SP@10 is their unnormalised sum of "
            "precisions at the relevant ranks (from 0 to 10, not 0 to 1). Gienapp et al. (2020) "
            "read negative labels three ways: NDCG_org keeps negative gains, NDCG_0 zeroes them, "
            "NDCG_min maps the worst ranking to 0."
        ),
        tables=tables,
        figures=figures,
        captions=captions,
        notes=notes,
    )


def power_section(ctx: Context) -> Section:
    """Discriminative power, ASL curves and significance conflicts, from one bootstrap."""
    from pdireval.meta.power import asl_curve, conflicts, discriminative_power

    text = (
        "How many system pairs each measure tells apart (Sakai 2006): Sakai's studentised paired "
        f"bootstrap test with {ctx.n_resamples} resamples shared by all pairs, run once for this "
        "report. A pair of systems is counted once (unordered: m(m − 1)/2 pairs for m systems); it "
        f"is significant when its achieved significance level (ASL) is below α = {ALPHA}. The "
        "difference required is Sakai's (2006) estimate, from the same resamples, of how large a "
        "difference in means must be for the test to call it significant with this many queries."
    )
    skipped = _too_small(ctx, "power", "Discriminative power", text,
                         "a paired test needs two systems and two queries")
    if skipped is not None:
        return skipped
    step = ctx.steps("power", ["discriminative power", "ASL curves", "conflicts"])
    step("discriminative power")
    tests = ctx.tests
    power = discriminative_power(tests, alpha=ALPHA)  # required_diff from compare's one bootstrap
    step("ASL curves")
    curve = ctx.pairs_in_order(asl_curve(tests), by="p_value")
    tables = {"power": power, "asl_curve": curve}
    captions = {
        "power": (f"Discriminative power: share of the system pairs with ASL < {ALPHA}; difference required: "
                  "Sakai's (2006) estimate of the smallest difference in means the test finds significant "
                  "(the largest over the pairs)"),
        "asl_curve": "ASL of every system pair per measure, sorted increasingly",
    }
    notes, figures = ctx.constant_note(), {}
    n_pairs = ctx.n_systems * (ctx.n_systems - 1) // 2
    if n_pairs >= 2:
        figures["asl_curves"] = ctx.save(_figure(_plot().asl_curves(curve)), "asl_curves")
        captions["asl_curves"] = "ASL curves: the ASL of every system pair, sorted (lower = more pairs told apart)"
    else:
        notes.append("No ASL curve: two systems make a single pair, a single point.")
    step("conflicts")
    if len(ctx.meta_measures) >= 2:
        figures["discriminative_power"] = ctx.save(_figure(_plot().discriminative_power_bars(power)), "discriminative_power")
        captions["discriminative_power"] = f"Share of system pairs significant at α = {ALPHA}"
        tables["conflicts"] = conflicts(tests, alpha=ALPHA)
        captions["conflicts"] = "System pairs whose significance decision differs between two measures (Sakai 2006)"
    else:
        notes.append("No conflicts between measures: the report evaluates one measure.")
    return Section(key="power", title="Discriminative power", text=text, tables=tables, figures=figures,
                   captions=captions, notes=notes)


def correlation_section(ctx: Context) -> Section:
    """Rank correlations between the system rankings induced by the measures."""
    from pdireval.meta.correlation import correlate
    from pdireval.meta.information_tau import information_tau

    text = (
        "Do the measures rank the systems alike? Kendall's τ_b and Spearman's ρ between the "
        "system rankings by mean, and τ_AP (Yilmaz et al. 2008, symmetric form), which weighs "
        "disagreements at the top more; information τ (Golbus & Aslam 2013) is the mutual "
        "information, in bits, between the two rankings' orderings of the system pairs, over the "
        "rankings by mean (table) and per query (figure)."
    )
    skipped = _nothing_varies(ctx, "correlations", "Correlations between measures", text)
    if skipped is not None:
        return skipped
    if len(ctx.meta_measures) < 2:
        return Section(key="correlations", title="Correlations between measures", text=text,
                       notes=["Skipped: the report evaluates one measure; correlations compare two or more."])
    if ctx.n_systems < 3:
        return Section(key="correlations", title="Correlations between measures", text=text,
                       notes=[f"Skipped: {_count(ctx.n_systems, 'system')}; a rank correlation needs three or more."])
    methods = ["kendall_b", "spearman"]
    notes = ctx.constant_note()
    means = ctx.meta_scores.groupby(["measure", "system"])["value"].mean()
    if (means.groupby(level="measure").nunique() < 2).all():
        return Section(key="correlations", title="Correlations between measures", text=text,
                       notes=["Skipped: every system has the same mean under every measure, so there is no ranking to correlate."])
    if means.groupby(level="measure").apply(lambda v: v.duplicated().any()).any():
        notes.append("No τ_AP: tied system means (τ_AP assumes total orders, Yilmaz et al. 2008).")
    else:
        methods.insert(1, "tau_ap_sym")
    step = ctx.steps("correlations", ["rank correlations", "information τ", "figures"])
    step("rank correlations")
    corr = correlate(ctx.meta_scores, method=methods)
    tables = {"correlations": corr}
    captions = {"correlations": "Correlation between the system rankings (means over queries) of every pair of measures"}
    step("information τ")
    info = information_tau(ctx.meta_scores, ctx.meta_measures, ctx.meta_measures)
    position = {m: i for i, m in enumerate(ctx.meta_measures)}  # each unordered pair once, in the measure order
    info = info[info["measure_a"].map(position) < info["measure_b"].map(position)].reset_index(drop=True)
    tables["information_tau"] = info
    captions["information_tau"] = ("Information τ (bits) between the system rankings (by mean) of two measures; "
                                   "n_pairs counts the ordered system pairs left after ties, at most m(m − 1)")
    step("figures")
    a, b = ctx.meta_measures[:2]
    figures = {"measure_scatter": ctx.save(_figure(_plot().measure_scatter(ctx.meta_scores, a, b)), "measure_scatter")}
    captions["measure_scatter"] = f"System means: {a} against {b}, with Kendall's τ"
    per_query = information_tau(ctx.meta_scores, a, b, per_query=True) if ctx.n_queries >= 2 else None
    if per_query is not None and per_query["information_tau"].notna().sum() >= 2:
        figures["information_tau_per_query"] = ctx.save(_figure(_plot().information_tau_per_query(per_query)), "information_tau_per_query")
        captions["information_tau_per_query"] = f"Information τ between the system orderings of {a} and {b} on each query (Golbus & Aslam 2013)"
    return Section(key="correlations", title="Correlations between measures", text=text, tables=tables,
                   figures=figures, captions=captions, notes=notes)


def reliability_section(ctx: Context) -> Section:
    """Generalizability theory: variance components, Φ, Eρ², queries needed, D-study curve."""
    from pdireval.meta.reliability import d_study, reliability

    text = (
        "Generalizability theory (Brennan 2001; Bodoff & Li 2007; Urbano et al. 2013): a two-way "
        "ANOVA of the system × query scores splits the variance into systems, queries and "
        "residual; Φ (dependability) and Eρ² (generalizability) say how stable the comparison "
        "is with this many queries, 'queries needed' how many queries Φ = 0.95 takes."
    )
    skipped = _too_small(ctx, "reliability", "Reliability (generalizability theory)", text,
                         "the ANOVA needs two or more systems and queries")
    if skipped is not None:
        return skipped
    step = ctx.steps("reliability", ["variance components", "D-study", "figure"])
    step("variance components")
    rel = reliability(ctx.meta_scores)
    n_obs = ctx.n_queries
    sizes = sorted({s for s in (5, 10, 25, 50, 100, 200) if s != n_obs} | {1, n_obs})
    step("D-study")
    curve = d_study(ctx.meta_scores, sizes)
    step("figure")
    figures = {"d_study": ctx.save(_figure(_plot().d_study_curve(curve, target=0.95)), "d_study")}
    captions = {
        "d_study": "D-study: Φ and Eρ² (with confidence intervals) for other numbers of queries",
        "reliability": "Variance components, Φ and Eρ² at the observed number of queries, queries needed for Φ = 0.95",
    }
    return Section(key="reliability", title="Reliability (generalizability theory)", text=text,
                   tables={"reliability": rel, "d_study": curve}, figures=figures, captions=captions,
                   notes=ctx.constant_note())


def stability_section(ctx: Context) -> Section:
    """Swap rates (Voorhees & Buckley 2002) and error rates (Buckley & Voorhees 2000)."""
    from pdireval.meta.stability import error_rate, swap_difference, swap_rate

    n_queries = ctx.n_queries
    half = n_queries // 2
    trials = min(ctx.n_resamples, 200)
    text = (
        "Would a comparison of two systems flip on other queries? Error rates (Buckley & "
        "Voorhees 2000) draw query subsets of each size and count minority decisions over the "
        "unordered system pairs; swap rates (Voorhees & Buckley 2002) split the queries into two "
        "disjoint halves and count the pairs whose order flips. Both use subsets of up to half "
        "the queries, as in those papers: with larger subsets the draws overlap so much that the "
        "rates fall to 0 by construction."
    )
    skipped = _too_small(ctx, "stability", "Stability: swap and error rates", text,
                         "these rates need two systems and at least four queries (subsets of two)",
                         min_queries=4)
    if skipped is not None:
        return skipped
    sizes = sorted({s for s in (2, 5, 10, 15, 20, 25, 30, 40, 50, 75, 100) if s <= half} | {half})
    tables, captions, figures, notes = {}, {}, {}, ctx.constant_note()
    step = ctx.steps("stability", ["error rates", "swap rates"])
    step("error rates")
    errors = error_rate(ctx.meta_scores, n_queries=sizes, n_resamples=trials, rng=ctx.seed(), progress=ctx.show)
    tables["error_rate"] = errors
    captions["error_rate"] = f"Buckley–Voorhees error rate (fuzziness 5%) by number of queries ({trials} trials)"
    if len(sizes) >= 2:
        figures["error_rate"] = ctx.save(_figure(_plot().error_rate_curves(errors)), "error_rate")
    else:
        notes.append("No error-rate curve: one subset size only.")
    step("swap rates")
    swaps = swap_rate(ctx.meta_scores, n_queries=sizes, n_resamples=trials, rng=ctx.seed(), progress=ctx.show)
    tables["swap_rate"] = swaps
    captions["swap_rate"] = f"Swap rate by difference in means, disjoint query halves of each size ({trials} trials)"
    needed = swap_difference(swaps)
    if len(needed):
        tables["swap_difference"] = needed
        captions["swap_difference"] = "Difference in means needed for a swap rate of at most 5%"
    figures["swap_rate"] = ctx.save(_figure(_plot().swap_rate_curves(swaps, n_queries=max(sizes))), "swap_rate")
    captions["swap_rate"] = captions["swap_rate"]
    return Section(key="stability", title="Stability: swap and error rates", text=text, tables=tables,
                   figures=figures, captions=captions, notes=notes)


def information_section(ctx: Context) -> Section:
    """Relevance information correlation, joint RIC and information difference."""
    from pdireval.meta.aggregate import aggregate
    from pdireval.runs.joint_ric import (
        information_difference_of,
        joint_ric_of,
        judged_lists_of,
        pair_pass,
    )

    text = (
        "Golbus & Aslam (2013): RIC is the mutual information (bits) between a system's "
        "ranking, condensed to judged documents and cut after its last relevant one, and the "
        "qrels, over the ordered pairs of judged documents with different labels (each "
        "unordered pair counted in both orders); the joint RIC of all systems bounds what "
        "metasearch could reach; the information difference says how differently two systems "
        "rank (smallest first)."
    )
    step = ctx.steps("information", ["RIC", "judged lists", "document pairs", "joint RIC",
                                     "information differences", "figure"])
    step("RIC")
    ric = ctx.evaluate(["RIC"])
    if ric["value"].isna().all():
        return Section(key="information", title="Information-theoretic analysis", text=text,
                       notes=["Skipped: no query has two judged documents with different labels, so RIC is undefined."])
    tables = {"ric": ctx.in_order(aggregate(ric.dropna(subset=["value"])))}
    captions = {"ric": "Mean RIC per system (queries where it is defined)"}
    notes, figures = [], {}
    if ctx.n_systems >= 2:
        step("judged lists")
        lists = judged_lists_of(ctx.prepared)
        step("document pairs")
        pair_pass(lists, np.arange(len(lists.systems)), codes=True, bits=True)  # one pass for both tables
        step("joint RIC")
        joint = joint_ric_of(lists)
        tables["joint_ric"] = joint[joint["query"] == "all"].reset_index(drop=True)
        captions["joint_ric"] = "Joint RIC of all systems (mean over queries); n_pairs counts ordered document pairs"
        step("information differences")
        diff = ctx.pairs_in_order(information_difference_of(lists, rank=True), by="information_difference")
        tables["information_difference"] = diff
        captions["information_difference"] = "System pairs by information difference, smallest first"
    else:
        notes.append("No joint RIC or information difference: they combine or compare two or more systems.")
    if ctx.n_systems >= 2:
        step("figure")
        both = pd.concat([ctx.scores[ctx.scores["measure"] == ctx.measure_names[0]], ric], ignore_index=True)
        figures["ric_scatter"] = ctx.save(_figure(_plot().ric_scatter(both, ctx.measure_names[0])), "ric_scatter")
        captions["ric_scatter"] = f"Mean RIC against mean {ctx.measure_names[0]} per system, with Kendall's τ (Golbus & Aslam 2013, Figure 2)"
    return Section(key="information", title="Information-theoretic analysis", text=text, tables=tables,
                   figures=figures, captions=captions, notes=notes)


def judgments_section(ctx: Context) -> Section | None:
    """Agreement of two sets of judgments (``other_qrels``): labels and leaderboards."""
    if ctx.other_qrels is None or ctx.qrels is None:
        return None
    from pdireval.evaluation import evaluate
    from pdireval.meta.leaderboard import leaderboard_agreement
    from pdireval.runs.judgment_agreement import agreement, judgment_confusion

    step = ctx.steps("judgments", ["label agreement", "confusion table", "leaderboards"])
    step("label agreement")
    agree = agreement(ctx.qrels, ctx.other_qrels, n_resamples=min(ctx.n_resamples, 1000), rng=ctx.seed())
    step("confusion table")
    # the confusion table as a square: qrels labels down, other labels across
    long = judgment_confusion(ctx.qrels, ctx.other_qrels)
    name = {v: f"other {v:g}" for v in long["other_label"].dropna().unique()}
    long = long.assign(label=long["label"].map(lambda v: "not judged" if np.isnan(v) else f"{v:g}"),
                       other=long["other_label"].map(lambda v: "other: not judged" if np.isnan(v) else name[v]))
    confusion = long.pivot(index="label", columns="other", values="count")
    confusion = confusion.loc[list(pd.unique(long["label"])), list(pd.unique(long["other"]))]
    confusion = confusion.fillna(0).astype(np.int64).reset_index()
    confusion.columns.name = None
    step("leaderboards")
    other_scores = evaluate(ctx.run, ctx.measures, qrels=ctx.other_qrels, columns=ctx.columns)
    long_board = leaderboard_agreement(ctx.scores, other_scores)
    board = long_board.pivot(index="statistic", columns="measure_a", values="value")
    board = board.loc[list(pd.unique(long_board["statistic"])), list(pd.unique(long_board["measure_a"]))]
    board = board.reset_index()
    board.columns.name = None
    changes = leaderboard_agreement(ctx.scores, other_scores, per_system=True)
    return Section(
        key="judgments",
        title="Agreement of the two sets of judgments",
        text=(
            "The qrels against the other qrels (e.g. human vs LLM judgments): Cohen's κ and "
            "Krippendorff's α on the pairs both judged (Cohen 1960; Krippendorff 2004), with "
            "query-bootstrap intervals, and how alike the two rank the systems: Kendall's τ_b, "
            "τ_AP (Yilmaz et al. 2008), rank-biased overlap (Webber et al. 2010) and the share "
            "of system pairs with the same paired t-test decision."
        ),
        tables={"judgment_agreement": agree, "judgment_confusion": confusion,
                "leaderboard_agreement": board, "leaderboard_changes": ctx.in_order(changes)},
        captions={
            "judgment_agreement": "Agreement statistics of the other qrels against the qrels (pairs both judged)",
            "judgment_confusion": "Label confusion table: qrels labels down, other qrels labels across (pairs judged by one side only in the 'not judged' row and column)",
            "leaderboard_agreement": "Leaderboards under the qrels and the other qrels, one column per measure (sig_*: shares of system pairs by paired t-test decisions)",
            "leaderboard_changes": "System means and ranks under both qrels (rank_change > 0: higher under the other qrels)",
        },
    )


SECTIONS = [
    systems_section,
    uncertainty_section,
    per_query_section,
    bounds_section,
    power_section,
    correlation_section,
    reliability_section,
    stability_section,
    information_section,
    judgments_section,
]
