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

from pdireval import plot
from pdireval.evaluation import bounds, evaluate
from pdireval.meta.aggregate import aggregate
from pdireval.meta.correlation import correlate
from pdireval.meta.information_tau import information_tau
from pdireval.meta.power import asl_curve, conflicts, discriminative_power
from pdireval.meta.reliability import d_study, reliability
from pdireval.meta.significance import compare
from pdireval.meta.stability import error_rate, swap_difference, swap_rate
from pdireval.reporting.html import Section
from pdireval.runs.joint_ric import information_difference, joint_ric

__all__ = ["Context", "SECTIONS"]

ALPHA = 0.05


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
    other_qrels: pd.DataFrame | None = None  # a second set of judgments (judgments section)

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
    """Per-system means with significance against the best system of each measure."""
    summary = aggregate(ctx.scores)
    rows = []
    for measure in ctx.measure_names:
        part = summary[summary["measure"] == measure]
        best = part.sort_values(["mean", "system"], ascending=[False, True])["system"].iloc[0]
        tests = compare(
            ctx.scores[ctx.scores["measure"] == measure], method="bootstrap", baseline=best,
            correction="holm", n_resamples=ctx.n_resamples, rng=ctx.seed(), progress=False,
        )
        against = tests.assign(system=np.where(tests["system_a"] == best, tests["system_b"], tests["system_a"]))
        rows.append(
            part.merge(against[["system", "p_value"]], on="system", how="left").assign(best=best)
        )
    summary = pd.concat(rows, ignore_index=True)
    summary["rank"] = summary.groupby("measure", sort=False)["mean"].rank(ascending=False, method="min").astype(np.int64)
    summary["worse_than_best"] = summary["p_value"].lt(ALPHA)
    summary = summary.rename(columns={"p_value": "p_vs_best"})
    wide = summary.pivot(index="system", columns="measure", values="mean")[ctx.measure_names]
    marks = summary.pivot(index="system", columns="measure", values="worse_than_best")[ctx.measure_names]
    for measure in ctx.measure_names:
        wide[f"{measure} vs best"] = np.where(marks[measure].astype(bool), "▼", "")
    wide = wide[[c for m in ctx.measure_names for c in (m, f"{m} vs best")]]
    wide = wide.sort_values(ctx.measure_names[0], ascending=False)
    wide.columns.name = None
    wide = wide.reset_index()
    return Section(
        key="systems",
        title="Systems",
        text=(
            "Mean over queries of each measure (queries a system did not answer score 0), "
            f"sorted by {ctx.measure_names[0]}. ▼ marks a system significantly worse than the "
            f"best system of that measure (Sakai's paired bootstrap test, {ctx.n_resamples} "
            f"resamples, Holm-corrected over the comparisons with the best, α = {ALPHA})."
        ),
        tables={"systems": wide, "summary": summary},
        captions={
            "systems": "Mean per system and measure; ▼ = significantly worse than the best",
            "summary": "Per system and measure: mean, std, queries, rank, p-value against the best (Holm)",
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


BOUND_MEASURES = {
    "nDCG(gain=exp)@10": "nDCG@10 (exp gain)",
    "nDCG(bounds=ul1,gain=exp)@10": "DCG-UL V1",
    "nDCG(bounds=ul2,gain=exp)@10": "DCG-UL V2",
    "SP@10": "SP@10",
    "SP(bounds=ul1)@10": "SP-UL V1",
    "SP(bounds=ul2)@10": "SP-UL V2",
    "nDCG(negatives=keep)@10": "NDCG_org",
    "nDCG(negatives=nonrel)@10": "NDCG_0",
    "nDCG(bounds=minmax,negatives=keep)@10": "NDCG_min",
}


def bounds_section(ctx: Context) -> Section:
    """Bound-normalised measures (seeds 000 and 002) and the random baseline per query."""
    variants = evaluate(ctx.run, list(BOUND_MEASURES), qrels=ctx.qrels, columns=ctx.columns)
    means = aggregate(variants)
    wide = means.pivot(index="system", columns="measure", values="mean")
    wide = wide[[m for m in pd.unique(variants["measure"])]].reset_index()
    wide.columns.name = None
    corr = correlate(variants, method="kendall_b")
    base = {"nDCG(bounds=ul1,gain=exp)@10": "nDCG(gain=exp)@10", "nDCG(bounds=ul2,gain=exp)@10": "nDCG(gain=exp)@10",
            "SP(bounds=ul1)@10": "SP@10", "SP(bounds=ul2)@10": "SP@10",
            "nDCG(bounds=minmax,negatives=keep)@10": "nDCG(negatives=keep)@10", "nDCG(negatives=nonrel)@10": "nDCG(negatives=keep)@10"}
    keep = [(corr["measure_a"] == a) & (corr["measure_b"] == b) | (corr["measure_a"] == b) & (corr["measure_b"] == a) for a, b in base.items()]
    corr = corr[np.logical_or.reduce(keep)].reset_index(drop=True)
    expected = bounds(ctx.run, ["nDCG(gain=exp)@10", "SP@10"], qrels=ctx.qrels, columns=ctx.columns)
    per_query = (
        expected.groupby(["measure", "query"], sort=False)[["value", "ideal", "random", "worst"]]
        .agg({"value": "mean", "ideal": "first", "random": "first", "worst": "first"})
        .reset_index()
        .rename(columns={"value": "mean_value"})
    )
    figures, captions = {}, {}
    ndcg_bounds = expected[expected["measure"] == "nDCG(gain=exp)@10"]
    figures["expected_ndcg"] = ctx.save(_figure(plot.expected_histogram(ndcg_bounds)), "expected_ndcg")
    captions["expected_ndcg"] = "Expected nDCG@10 (exp gain) under a random ranking of the judged pool, per query"
    captions.update({
        "bound_means": "Mean per system of each bound-normalised variant",
        "bound_tau": "Kendall τ_b between the system rankings of a measure and its normalised variant",
        "random_baseline": "Per query: mean value over systems, ideal (IUB), random expectation (RLB), worst (WLB)",
    })
    return Section(
        key="bounds",
        title="Bound-normalised measures",
        text=(
            "Karmaker & Feng's (2022) joint upper/lower-bound normalisation (V1, V2) with the exact expected "
            "value under a random ranking, and Gienapp et al.'s (2020) readings of negative labels "
            "(NDCG_org keeps negative gains, NDCG_0 zeroes them, NDCG_min normalises between "
            "the worst and the ideal ranking)."
        ),
        tables={"bound_means": wide, "bound_tau": corr, "random_baseline": per_query},
        figures=figures,
        captions=captions,
    )


def power_section(ctx: Context) -> Section:
    """Discriminative power (Sakai 2006), ASL curves and significance conflicts."""
    seed = ctx.seed()
    power = discriminative_power(ctx.scores, n_resamples=ctx.n_resamples, rng=seed, progress=False)
    curve = asl_curve(ctx.scores, n_resamples=ctx.n_resamples, rng=seed, progress=False)
    clash = conflicts(ctx.scores, n_resamples=ctx.n_resamples, rng=seed, progress=False)
    figures = {
        "asl_curves": ctx.save(_figure(plot.asl_curves(curve)), "asl_curves"),
        "discriminative_power": ctx.save(_figure(plot.discriminative_power_bars(power)), "discriminative_power"),
    }
    captions = {
        "asl_curves": "Achieved significance level of every system pair, sorted (ASL curves)",
        "discriminative_power": f"Share of system pairs significant at α = {ALPHA}",
    }
    captions.update({
        "power": f"Discriminative power: share of system pairs with ASL < {ALPHA} (paired bootstrap, B = {ctx.n_resamples})",
        "asl_curve": "Sorted ASL of every system pair per measure",
        "conflicts": "Pairs whose significance decision differs between two measures",
    })
    return Section(
        key="power",
        title="Discriminative power",
        text=(
            "How many system pairs each measure tells apart, by Sakai's studentised paired "
            "bootstrap test with one set of resamples shared by all pairs; 'required_diff' is "
            "Sakai's estimate of the difference in means needed for significance."
        ),
        tables={"power": power, "asl_curve": curve, "conflicts": clash},
        figures=figures,
        captions=captions,
    )


def correlation_section(ctx: Context) -> Section:
    """Rank correlations between the system rankings induced by the measures."""
    corr = correlate(ctx.scores, method=["kendall_b", "tau_ap_sym", "spearman"])
    info = information_tau(ctx.scores, ctx.measure_names, ctx.measure_names) if len(ctx.measure_names) > 1 else None
    tables = {"correlations": corr}
    captions = {"correlations": "Correlation between system rankings (means over queries) of every pair of measures"}
    if info is not None:
        info = info[info["measure_a"] < info["measure_b"]].reset_index(drop=True)
        tables["information_tau"] = info
        captions["information_tau"] = "Information τ (bits) between the per-query system orderings of two measures (Golbus & Aslam 2013)"
    figures = {}
    if len(ctx.measure_names) > 1:
        a, b = ctx.measure_names[:2]
        figures["measure_scatter"] = ctx.save(_figure(plot.measure_scatter(ctx.scores, a, b)), "measure_scatter")
        captions["measure_scatter"] = f"System means: {a} against {b}, with Kendall's τ"
        per_query = information_tau(ctx.scores, a, b, per_query=True)
        figures["information_tau_per_query"] = ctx.save(_figure(plot.information_tau_per_query(per_query)), "information_tau_per_query")
        captions["information_tau_per_query"] = f"Information τ between the system orderings of {a} and {b} on each query (Golbus & Aslam 2013, Figure 1)"
    return Section(
        key="correlations",
        title="Correlations between measures",
        text="Do the measures rank the systems alike? Kendall's τ_b, the symmetric AP correlation τ_AP and Spearman's ρ over system means.",
        tables=tables,
        figures=figures,
        captions=captions,
    )


def reliability_section(ctx: Context) -> Section:
    """Generalizability theory: variance components, Φ, Eρ², queries needed, D-study curve."""
    rel = reliability(ctx.scores)
    n_obs = ctx.scores["query"].nunique()
    n_queries = sorted({1, 5, 10, 25, 50, 100, 200, n_obs})
    curve = d_study(ctx.scores, n_queries)
    figures, captions = {}, {}
    figures["d_study"] = ctx.save(_figure(plot.d_study_curve(curve, target=0.95)), "d_study")
    captions["d_study"] = "Dependability Φ against the number of queries (D-study), with confidence bands"
    captions.update({
        "reliability": "Variance components, Φ and Eρ² at the observed number of queries, queries needed for Φ = 0.95",
        "d_study": "D-study: Φ and Eρ² (with confidence intervals) for other numbers of queries",
    })
    return Section(
        key="reliability",
        title="Reliability (generalizability theory)",
        text=(
            "Two-way ANOVA of system × query scores (Brennan): how much of the variance is due "
            "to systems rather than queries, and how many queries a stable comparison needs."
        ),
        tables={"reliability": rel, "d_study": curve},
        figures=figures,
        captions=captions,
    )


def information_section(ctx: Context) -> Section:
    """Relevance information correlation, joint RIC and information difference (Golbus & Aslam 2013)."""
    ric = evaluate(ctx.run, ["RIC"], qrels=ctx.qrels, columns=ctx.columns)
    ric_means = aggregate(ric)
    joint = joint_ric(ctx.run, qrels=ctx.qrels)
    joint = joint[joint["query"] == "all"].reset_index(drop=True)
    diff = information_difference(ctx.run, qrels=ctx.qrels, rank=True)
    both = pd.concat([ctx.scores[ctx.scores["measure"] == ctx.measure_names[0]], ric], ignore_index=True)
    figures = {"ric_scatter": ctx.save(_figure(plot.ric_scatter(both, ctx.measure_names[0])), "ric_scatter")}
    return Section(
        key="information",
        title="Information-theoretic analysis",
        text=(
            "RIC is the mutual information (bits) between a system's condensed, truncated ranking "
            "and the qrels over ordered document pairs; joint RIC of all systems bounds what "
            "metasearch could reach; the information difference says how differently two "
            "systems rank (smallest first)."
        ),
        tables={"ric": ric_means, "joint_ric": joint, "information_difference": diff.head(50)},
        figures=figures,
        captions={
            "ric_scatter": f"Mean RIC against mean {ctx.measure_names[0]} per system, with Kendall's τ (Golbus & Aslam 2013, Figure 2)",
            "ric": "Mean RIC per system",
            "joint_ric": "Joint RIC of all systems (mean over queries)",
            "information_difference": "System pairs by information difference, smallest first (top 50)",
        },
    )


def stability_section(ctx: Context) -> Section:
    """Swap rates (Voorhees & Buckley 2002) and error rates (Buckley & Voorhees 2000)."""
    n_queries = ctx.scores["query"].nunique()
    trials = min(ctx.n_resamples, 200)
    half = n_queries // 2
    swap_sizes = sorted({s for s in (5, 10, 25, half) if 2 <= s <= half})
    tables, captions = {}, {}
    if swap_sizes:
        swaps = swap_rate(ctx.scores, n_queries=swap_sizes, n_resamples=trials, rng=ctx.seed(), progress=False)
        tables["swap_rate"] = swaps
        tables["swap_difference"] = swap_difference(swaps)
        captions["swap_rate"] = f"Swap rate by difference in means, query splits of each size ({trials} trials)"
        captions["swap_difference"] = "Difference in means needed for a swap rate of at most 5%"
    err_sizes = sorted({s for s in (5, 10, 15, 20, 25, 30, 40, 50, 75, 100, n_queries) if 2 <= s <= n_queries})
    errors = error_rate(ctx.scores, n_queries=err_sizes, n_resamples=trials, rng=ctx.seed(), progress=False)
    tables["error_rate"] = errors
    captions["error_rate"] = f"Buckley–Voorhees error rate (fuzziness 5%) by number of queries ({trials} trials)"
    figures = {"error_rate": ctx.save(_figure(plot.error_rate_curves(errors)), "error_rate")}
    if swap_sizes:
        figures["swap_rate"] = ctx.save(_figure(plot.swap_rate_curves(swaps, n_queries=max(swap_sizes))), "swap_rate")
    return Section(
        key="stability",
        title="Stability: swap and error rates",
        text=(
            "How often would a comparison of two systems flip on another set of queries? "
            "Swap rates split the queries into two disjoint halves; error rates draw query "
            "subsets of each size and count minority decisions."
        ),
        tables=tables,
        figures=figures,
        captions=captions,  # a table and its figure share a name, hence a caption
    )


def _figure(result):
    """A Figure from what a plot function returns (a Figure or an Axes)."""
    return getattr(result, "figure", result)


def judgments_section(ctx: Context) -> Section | None:
    """Agreement of two sets of judgments (``other_qrels``): labels and leaderboards."""
    if ctx.other_qrels is None or ctx.qrels is None:
        return None
    from pdireval.meta.leaderboard import leaderboard_agreement
    from pdireval.runs.judgment_agreement import agreement, judgment_confusion

    agree = agreement(ctx.qrels, ctx.other_qrels, n_resamples=min(ctx.n_resamples, 1000), rng=ctx.seed())
    # the confusion table as a square: qrels labels down, other labels across
    long = judgment_confusion(ctx.qrels, ctx.other_qrels)
    name = {v: f"other {v:g}" for v in long["other_label"].dropna().unique()}
    long = long.assign(label=long["label"].map(lambda v: "not judged" if np.isnan(v) else f"{v:g}"),
                       other=long["other_label"].map(lambda v: "other: not judged" if np.isnan(v) else name[v]))
    confusion = long.pivot(index="label", columns="other", values="count")
    confusion = confusion.loc[list(pd.unique(long["label"])), list(pd.unique(long["other"]))]
    confusion = confusion.fillna(0).astype(np.int64).reset_index()
    confusion.columns.name = None
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
                "leaderboard_agreement": board, "leaderboard_changes": changes},
        captions={
            "judgment_agreement": "Agreement statistics of the other qrels against the qrels (pairs both judged)",
            "judgment_confusion": "Label confusion table: qrels labels down, other qrels labels across (pairs judged by one side only in the 'not judged' row and column)",
            "leaderboard_agreement": "Leaderboards under the qrels and the other qrels, one column per measure (sig_*: shares of system pairs by paired t-test decisions)",
            "leaderboard_changes": "System means and ranks under both qrels (rank_change > 0: higher under the other qrels)",
        },
    )


SECTIONS = [
    systems_section,
    per_query_section,
    bounds_section,
    power_section,
    correlation_section,
    reliability_section,
    stability_section,
    information_section,
    judgments_section,
]
