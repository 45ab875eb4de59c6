"""The sections of a report: each builder takes the shared :class:`Context` and returns a
:class:`~pdireval.reporting.html.Section` (tables + figures + explanation).

Builders only call pdireval's functions and plot functions; they add no statistics of their
own. A section whose analysis cannot run on the collection (one system, too few queries, no
relevant document) still appears, with a one-line note saying why, and never an empty table
or a one-point curve.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.reporting.context import (
    ALPHA,
    Context,
    as_figure,
    count_words,
    plot_module,
    too_small,
)
from pdireval.reporting.html import Section
from pdireval.reporting.meta_sections import (
    correlation_section,
    information_section,
    judgments_section,
    reliability_section,
    stability_section,
)
from pdireval.reporting.rag_sections import nuggets_section

if TYPE_CHECKING:
    from typing import Literal

__all__ = ["Context", "SECTIONS"]


# --------------------------------------------------------------------------- sections


def correction_label(ctx: Context) -> str:
    """The report's correction of the pair tests in words ("Holm (1979) correction", ...)."""
    from pdireval.reporting.paper import CORRECTION_NAMES

    return CORRECTION_NAMES.get(ctx.correction, f"{ctx.correction} correction")


def _against_best(ctx: Context, summary: pd.DataFrame) -> pd.DataFrame:
    """The summary with each system's p-value against the measure's best system and rank."""
    tests = ctx.tests
    rows = []
    for measure in ctx.meta_measures:
        part = summary[summary["measure"] == measure]
        best = part.sort_values(["mean", "system"], ascending=[False, True])["system"].iloc[0]
        t = tests[
            (tests["measure"] == measure)
            & ((tests["system_a"] == best) | (tests["system_b"] == best))
        ]
        other = np.where(t["system_a"] == best, t["system_b"], t["system_a"])
        # the paper table's family: every pair of the measure (one family per
        # report, so the two tables never mark a pair differently)
        p = pd.Series(t["p_adjusted"].to_numpy(dtype=np.float64), index=other)
        rows.append(part.assign(p_vs_best=part["system"].map(p).astype(np.float64), best=best))
    for measure in ctx.constant_measures:
        rows.append(summary[summary["measure"] == measure].assign(p_vs_best=np.nan, best=""))
    summary = ctx.in_order(pd.concat(rows, ignore_index=True))
    summary["rank"] = (
        summary.groupby("measure", sort=False)["mean"]
        .rank(ascending=False, method="min")
        .astype(np.int64)
    )
    summary["worse_than_best"] = summary["p_vs_best"].lt(ALPHA)
    return summary


def _paper_tables(ctx: Context, tables: dict[str, pd.DataFrame], captions: dict[str, str]) -> str:
    """Add the table for a paper to tables, write its .tex and .md files; return its HTML."""
    from pdireval.reporting.paper import paper_table

    table = partial(
        paper_table, ctx.scores, tests=ctx.tests, systems=ctx.systems, measures=ctx.measure_names
    )
    frame = table(decimals=3)
    tables["paper_table"] = frame
    captions["paper_table"] = (
        "The table for a paper (tidy form; paper_table.tex / .md beside the report)"
    )
    extra_html = table(format="html")
    text_formats: tuple[tuple[Literal["latex", "markdown"], str], ...] = (
        ("latex", "tex"),
        ("markdown", "md"),
    )
    for fmt, suffix in text_formats:
        (ctx.figures_dir.parent / f"paper_table.{suffix}").write_text(
            table(format=fmt), encoding="utf-8"
        )
    return extra_html


def systems_section(ctx: Context) -> Section:
    """Per-system means, significance against the best, and the table for a paper."""
    from pdireval.meta.aggregate import aggregate

    step = ctx.steps("systems", ["means", "bootstrap tests", "table for a paper"])
    step("means")
    summary = ctx.in_order(aggregate(ctx.scores))
    wide = summary.pivot(index="system", columns="measure", values="mean").loc[
        ctx.systems, ctx.measure_names
    ]
    wide.columns.name = None
    wide = wide.reset_index()
    notes = []
    tables = {"systems": wide}
    captions = {
        "systems": "Mean per system and measure over "
        f"{count_words(ctx.n_queries, 'query', 'queries')}; "
        f"systems by mean {ctx.measure_names[0]}"
    }
    extra_html = ""
    if ctx.n_systems >= 2 and ctx.n_queries >= 2 and ctx.meta_measures:
        step("bootstrap tests")
        summary = _against_best(ctx, summary)
        tables["summary"] = summary
        n_pairs = ctx.n_systems * (ctx.n_systems - 1) // 2
        captions["summary"] = (
            "Per system and measure: mean, standard deviation, queries, rank, p-value against "
            f"the best ({correction_label(ctx)} over all {n_pairs} system pairs of each measure: "
            "the family of the paper table, so 'worse than best' is exactly the best system's "
            "superscript letters)"
        )
        step("table for a paper")
        extra_html = _paper_tables(ctx, tables, captions)
        text = (
            "Mean of each measure over the queries (a query a system did not answer scores 0), "
            "the systems ordered by their mean on the first measure; every later table lists the "
            "systems in this order. The table below is ready for a paper: the best system of each "
            "measure in bold, and superscript letters naming the systems a cell is significantly "
            f"better than by Sakai's (2006) paired bootstrap test ({ctx.n_resamples} resamples, "
            f"{correction_label(ctx)} over all {n_pairs} system pairs of each measure, "
            f"α = {ALPHA}), as in ranx (Bassani 2022) and PyTerrier tables. The p-values against "
            "the best in the table after it belong to the same family of comparisons, so the two "
            "tables agree on every pair; the Discriminative power section counts uncorrected "
            "ASLs, Sakai's (2006) definition, and says so."
        )
    else:
        tables["summary"] = summary
        captions["summary"] = "Per system and measure: mean, standard deviation, queries"
        if not ctx.meta_measures:
            notes.append(
                "No significance test: every measure has the same value on every system and query."
            )
        else:
            why = "one system" if ctx.n_systems < 2 else "one query"
            notes.append(
                f"No significance test: the collection has {why}; tests need two systems "
                "and two queries."
            )
        text = "Mean of each measure over the queries (a query a system did not answer scores 0)."
    return Section(
        key="systems",
        title="Systems",
        text=text,
        tables=tables,
        captions=captions,
        notes=notes,
        html=extra_html,
    )


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
    skipped = too_small(
        ctx, "uncertainty", title, text, "intervals need two systems and two queries"
    )
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
    ranks = rank_uncertainty(
        ctx.meta_scores,
        n_resamples=ctx.n_resamples,
        rng=ctx.seed(),
        confidence_level=1 - ALPHA,
        test="t",
        correction="holm",
    )
    step("figures")
    figures = {
        "forest_plot": ctx.save(as_figure(plot_module().forest_plot(intervals)), "forest_plot"),
        "rank_intervals": ctx.save(
            as_figure(plot_module().rank_interval_plot(ranks)), "rank_intervals"
        ),
    }
    top = ranks[ranks["in_top_group"]].groupby("measure", sort=False)["system"].agg(", ".join)
    notes += [f"Top group under {m}: {names}." for m, names in top.items()]
    return Section(
        key="uncertainty",
        title=title,
        text=text,
        tables={"intervals": intervals, "rank_uncertainty": ranks},
        captions={
            "intervals": "Mean, standard error and 95% t interval per system and measure",
            "rank_uncertainty": "Observed rank, 95% bootstrap rank interval, expected rank, "
            "P(best) and the top group",
            "forest_plot": "Means with their 95% t intervals, best at the top",
            "rank_intervals": "Rank intervals (bars), observed (dots) and expected (crosses) "
            "ranks; red: the top group",
        },
        figures=figures,
        notes=notes,
    )


def per_query_section(ctx: Context) -> Section:
    """The per-query scores frame (tidy), shown truncated on the page."""
    return Section(
        key="per-query",
        title="Per-query scores",
        text=(
            "Every (system, query, measure) value, as trec_eval computes it per query; the "
            "workbook holds all rows."
        ),
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
    "DCG-UL V1": "nDCG@10 (exp)",
    "DCG-UL V2": "nDCG@10 (exp)",
    "SP-UL V1": "SP@10",
    "SP-UL V2": "SP@10",
    "NDCG_0": "NDCG_org",
    "NDCG_min": "NDCG_org",
}


def bounds_section(ctx: Context) -> Section:
    """Bound-normalised measures and the random baseline per query."""
    from pdireval.bounds_frame import bounds_of_segments
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
        notes.append(
            "Undefined on every query (no relevant document, or one label only): "
            f"{', '.join(undefined)}."
        )
        variants = variants[~variants["measure"].isin(undefined)]
    tables, captions, figures = {}, {}, {}
    legend = "; ".join(
        f"{short} = {long}" for long, short in BOUND_MEASURES.items() if short != long
    )
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
            lambda g: g["value"].notna().all() and g["value"].max() > g["value"].min()
        )  # defined and varying
        if complete["measure"].nunique() >= 2:
            corr = correlate(complete, method="kendall_b")
            keep = np.zeros(len(corr), dtype=bool)
            for a, b in BOUND_BASE.items():
                keep |= ((corr["measure_a"] == a) & (corr["measure_b"] == b)) | (
                    (corr["measure_a"] == b) & (corr["measure_b"] == a)
                )
            corr = corr[keep].reset_index(drop=True)
            if len(corr):
                tables["bound_tau"] = corr
                captions["bound_tau"] = (
                    "Kendall's τ_b between the system rankings of a measure and its normalised "
                    "variant"
                )
    elif ctx.n_systems < 3:
        notes.append("No rank correlation between the variants: it needs three or more systems.")
    step("random baseline")
    expected = bounds_of_segments(
        ctx.prepared.segments, parse_measures(["nDCG(gain=exp)@10", "SP@10"])
    )
    per_query = (
        expected.groupby(["measure", "query"], sort=False)[["value", "ideal", "random", "worst"]]
        .agg({"value": "mean", "ideal": "first", "random": "first", "worst": "first"})
        .reset_index()
        .rename(columns={"value": "mean_value"})
    )
    per_query = per_query[per_query["ideal"] > 0].reset_index(drop=True)
    if len(per_query):
        tables["random_baseline"] = per_query
        captions["random_baseline"] = (
            "Per query: mean over systems, ideal (IUB), random expectation (RLB), worst (WLB)"
        )
        ndcg_bounds = expected[
            (expected["measure"] == "nDCG(gain=exp)@10") & (expected["ideal"] > 0)
        ]
        if ndcg_bounds["query"].nunique() >= 2:
            figures["expected_ndcg"] = ctx.save(
                as_figure(plot_module().expected_histogram(ndcg_bounds)), "expected_ndcg"
            )
            captions["expected_ndcg"] = (
                "Expected nDCG@10 (exp gain) under a random ranking of the judged pool, per query"
            )
    else:
        notes.append("No random baseline: no query has a relevant document.")
    return Section(
        key="bounds",
        title="Bound-normalised measures",
        text=(
            "Karmaker Santu & Feng (2022) normalise a measure between the ideal ranking and the "
            "exact expected value of a random ranking of the judged pool: V1 rescales the measure "
            "by the ideal, V2 subtracts the random expectation as well, so a negative V2 value "
            "means "
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
    from pdireval.meta.power import asl_curve, decision_conflicts, discriminative_power

    text = (
        "How many system pairs each measure tells apart (Sakai 2006): Sakai's studentised paired "
        f"bootstrap test with {ctx.n_resamples} resamples shared by all pairs, run once for this "
        "report. A pair of systems is counted once (unordered: m(m − 1)/2 pairs for m systems); it "
        f"is significant when its achieved significance level (ASL) is below α = {ALPHA}. The "
        "difference required is Sakai's (2006) estimate, from the same resamples, of how large a "
        "difference in means must be for the test to call it significant with this many queries."
    )
    skipped = too_small(
        ctx,
        "power",
        "Discriminative power",
        text,
        "a paired test needs two systems and two queries",
    )
    if skipped is not None:
        return skipped
    step = ctx.steps("power", ["discriminative power", "ASL curves", "conflicts"])
    step("discriminative power")
    tests = ctx.tests
    power = discriminative_power(tests, alpha=ALPHA)  # required_diff from compare's one bootstrap
    step("ASL curves")
    curve = ctx.pairs_in_order(asl_curve(tests), by="p_value")
    tables = {"power": power, "asl_curve": curve}
    n_pairs = ctx.n_systems * (ctx.n_systems - 1) // 2
    captions = {
        "power": (
            f"Discriminative power: share of the {n_pairs} system pairs with an "
            f"uncorrected ASL < {ALPHA} (Sakai 2006; no multiple-comparison correction, "
            "unlike the corrected family of the Systems tables); difference required: "
            "Sakai's (2006) estimate of the smallest difference in means the test finds "
            "significant "
            "(the largest over the pairs)"
        ),
        "asl_curve": "ASL of every system pair per measure, sorted increasingly",
    }
    notes, figures = ctx.constant_note(), {}
    if n_pairs >= 2:
        figures["asl_curves"] = ctx.save(as_figure(plot_module().asl_curves(curve)), "asl_curves")
        captions["asl_curves"] = (
            "ASL curves: the ASL of every system pair, sorted (lower = more pairs told apart)"
        )
    else:
        notes.append("No ASL curve: two systems make a single pair, a single point.")
    step("conflicts")
    if len(ctx.meta_measures) >= 2:
        figures["discriminative_power"] = ctx.save(
            as_figure(plot_module().discriminative_power_bars(power)), "discriminative_power"
        )
        captions["discriminative_power"] = (
            f"Share of system pairs with an uncorrected ASL < {ALPHA}"
        )
        tables["conflicts"] = decision_conflicts(tests, alpha=ALPHA)
        captions["conflicts"] = (
            f"System pairs whose significance decision (uncorrected ASL < {ALPHA}) differs "
            "between two measures (Sakai 2006)"
        )
    else:
        notes.append("No conflicts between measures: the report evaluates one measure.")
    return Section(
        key="power",
        title="Discriminative power",
        text=text,
        tables=tables,
        figures=figures,
        captions=captions,
        notes=notes,
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
    nuggets_section,
]
