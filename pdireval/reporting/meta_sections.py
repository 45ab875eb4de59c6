"""The report's sections on the meta-evaluation: correlations between measures, reliability,
stability, the information-theoretic analysis and the judgments (see :mod:`.sections`)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.errors import PdirevalWarning
from pdireval.reporting.context import (
    Context,
    as_figure,
    count_words,
    nothing_varies,
    plot_module,
    too_small,
)
from pdireval.reporting.html import Section

if TYPE_CHECKING:
    from pdireval.types import CorrelationMethod

__all__ = [
    "correlation_section",
    "reliability_section",
    "stability_section",
    "information_section",
    "judgments_section",
]


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
    skipped = nothing_varies(ctx, "correlations", "Correlations between measures", text)
    if skipped is not None:
        return skipped
    if len(ctx.meta_measures) < 2:
        return Section(
            key="correlations",
            title="Correlations between measures",
            text=text,
            notes=["Skipped: the report evaluates one measure; correlations compare two or more."],
        )
    if ctx.n_systems < 3:
        return Section(
            key="correlations",
            title="Correlations between measures",
            text=text,
            notes=[
                f"Skipped: {count_words(ctx.n_systems, 'system')}; a rank "
                "correlation "
                "needs three or more."
            ],
        )
    methods: list[CorrelationMethod] = ["kendall_b", "spearman"]
    notes = ctx.constant_note()
    means = ctx.meta_scores.groupby(["measure", "system"])["value"].mean()
    if (means.groupby(level="measure").nunique() < 2).all():
        return Section(
            key="correlations",
            title="Correlations between measures",
            text=text,
            notes=[
                "Skipped: every system has the same mean under every measure, so "
                "there is no ranking to correlate."
            ],
        )
    if means.groupby(level="measure").apply(lambda v: v.duplicated().any()).any():
        notes.append("No τ_AP: tied system means (τ_AP assumes total orders, Yilmaz et al. 2008).")
    else:
        methods.insert(1, "tau_ap_sym")
    step = ctx.steps("correlations", ["rank correlations", "information τ", "figures"])
    step("rank correlations")
    corr = correlate(ctx.meta_scores, method=methods)
    tables = {"correlations": corr}
    captions = {
        "correlations": "Correlation between the system rankings (means over queries) of "
        "every pair of measures"
    }
    step("information τ")
    info = information_tau(ctx.meta_scores, ctx.meta_measures, ctx.meta_measures)
    position = {
        m: i for i, m in enumerate(ctx.meta_measures)
    }  # each unordered pair once, in the measure order
    info = info[info["measure_a"].map(position) < info["measure_b"].map(position)].reset_index(
        drop=True
    )
    tables["information_tau"] = info
    captions["information_tau"] = (
        "Information τ (bits) between the system rankings (by mean) of "
        "two measures; "
        "n_pairs counts the ordered system pairs left after ties, at "
        "most m(m − 1)"
    )
    step("figures")
    a, b = ctx.meta_measures[:2]
    figures = {
        "measure_scatter": ctx.save(
            as_figure(plot_module().measure_scatter(ctx.meta_scores, a, b)), "measure_scatter"
        )
    }
    captions["measure_scatter"] = f"System means: {a} against {b}, with Kendall's τ"
    per_query = (
        information_tau(ctx.meta_scores, a, b, per_query=True) if ctx.n_queries >= 2 else None
    )
    if per_query is not None and per_query["information_tau"].notna().sum() >= 2:
        figures["information_tau_per_query"] = ctx.save(
            as_figure(plot_module().information_tau_per_query(per_query)),
            "information_tau_per_query",
        )
        captions["information_tau_per_query"] = (
            f"Information τ between the system orderings of {a} and {b} on each query (Golbus & "
            "Aslam 2013)"
        )
    return Section(
        key="correlations",
        title="Correlations between measures",
        text=text,
        tables=tables,
        figures=figures,
        captions=captions,
        notes=notes,
    )


def reliability_section(ctx: Context) -> Section:
    """Generalizability theory: variance components, Φ, Eρ², queries needed, D-study curve."""
    from pdireval.meta.reliability import d_study, reliability

    text = (
        "Generalizability theory (Brennan 2001; Bodoff & Li 2007; Urbano et al. 2013): a two-way "
        "ANOVA of the system × query scores splits the variance into systems, queries and "
        "residual; Φ (dependability) and Eρ² (generalizability) say how stable the comparison "
        "is with this many queries, 'queries needed' how many queries Φ = 0.95 takes."
    )
    skipped = too_small(
        ctx,
        "reliability",
        "Reliability (generalizability theory)",
        text,
        "the ANOVA needs two or more systems and queries",
    )
    if skipped is not None:
        return skipped
    step = ctx.steps("reliability", ["variance components", "D-study", "figure"])
    step("variance components")
    rel = reliability(ctx.meta_scores)
    # what a reader looks for first (Φ, Eρ², queries needed) on the left, visible without
    # scrolling; the variance components and the ANOVA table after them
    first = [
        "phi",
        "e_rho2",
        "queries_needed",
        "queries_needed_e_rho2",
        "n_queries_observed",
        "n_systems",
    ]
    keys = list(rel.columns[: list(rel.columns).index("n_systems")])
    rel = rel[keys + first + [c for c in rel.columns if c not in keys and c not in first]]
    n_obs = ctx.n_queries
    sizes = sorted({s for s in (5, 10, 25, 50, 100, 200) if s != n_obs} | {1, n_obs})
    step("D-study")
    curve = d_study(ctx.meta_scores, sizes)
    step("figure")
    figures = {
        "d_study": ctx.save(as_figure(plot_module().d_study_curve(curve, target=0.95)), "d_study")
    }
    captions = {
        "d_study": "D-study: Φ and Eρ² (with confidence intervals) for other numbers of queries",
        "reliability": "Variance components, Φ and Eρ² at the observed number of queries, queries "
        "needed for Φ = 0.95",
    }
    return Section(
        key="reliability",
        title="Reliability (generalizability theory)",
        text=text,
        tables={"reliability": rel, "d_study": curve},
        figures=figures,
        captions=captions,
        notes=ctx.constant_note(),
    )


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
    skipped = too_small(
        ctx,
        "stability",
        "Stability: swap and error rates",
        text,
        "these rates need two systems and at least four queries (subsets of two)",
        min_queries=4,
    )
    if skipped is not None:
        return skipped
    sizes = sorted({s for s in (2, 5, 10, 15, 20, 25, 30, 40, 50, 75, 100) if s <= half} | {half})
    tables, captions, figures, notes = {}, {}, {}, ctx.constant_note()
    step = ctx.steps("stability", ["error rates", "swap rates"])
    step("error rates")
    errors = error_rate(
        ctx.meta_scores, n_queries=sizes, n_resamples=trials, rng=ctx.seed(), progress=ctx.show
    )
    tables["error_rate"] = errors
    captions["error_rate"] = (
        f"Buckley–Voorhees error rate (fuzziness 5%) by number of queries ({trials} trials)"
    )
    if len(sizes) >= 2:
        figures["error_rate"] = ctx.save(
            as_figure(plot_module().error_rate_curves(errors)), "error_rate"
        )
    else:
        notes.append("No error-rate curve: one subset size only.")
    step("swap rates")
    swaps = swap_rate(
        ctx.meta_scores, n_queries=sizes, n_resamples=trials, rng=ctx.seed(), progress=ctx.show
    )
    tables["swap_rate"] = swaps
    captions["swap_rate"] = (
        f"Swap rate by difference in means, disjoint query halves of each size ({trials} trials)"
    )
    needed = swap_difference(swaps)
    if len(needed):
        tables["swap_difference"] = needed
        captions["swap_difference"] = (
            "Difference in means from which the swap rate stays at or under 5% (NaN: see reason)"
        )
    figures["swap_rate"] = ctx.save(
        as_figure(plot_module().swap_rate_curves(swaps, n_queries=max(sizes))), "swap_rate"
    )
    captions["swap_rate"] = captions["swap_rate"]
    return Section(
        key="stability",
        title="Stability: swap and error rates",
        text=text,
        tables=tables,
        figures=figures,
        captions=captions,
        notes=notes,
    )


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
    step = ctx.steps(
        "information",
        ["RIC", "judged lists", "document pairs", "joint RIC", "information differences", "figure"],
    )
    step("RIC")
    ric = ctx.evaluate(["RIC"])
    if ric["value"].isna().all():
        return Section(
            key="information",
            title="Information-theoretic analysis",
            text=text,
            notes=[
                "Skipped: no query has two judged documents with different labels, "
                "so RIC is undefined."
            ],
        )
    tables = {"ric": ctx.in_order(aggregate(ric.dropna(subset=["value"])))}
    captions = {"ric": "Mean RIC per system (queries where it is defined)"}
    notes, figures = [], {}
    if ctx.n_systems >= 2:
        step("judged lists")
        lists = judged_lists_of(ctx.prepared)
        step("document pairs")
        pair_pass(
            lists, np.arange(len(lists.systems)), codes=True, bits=True
        )  # one pass for both tables
        step("joint RIC")
        joint = joint_ric_of(lists)
        tables["joint_ric"] = joint[joint["query"] == "all"].reset_index(drop=True)
        captions["joint_ric"] = (
            "Joint RIC of all systems (mean over queries); n_pairs counts ordered document pairs"
        )
        step("information differences")
        diff = ctx.pairs_in_order(
            information_difference_of(lists, rank=True), by="information_difference"
        )
        tables["information_difference"] = diff
        captions["information_difference"] = (
            "System pairs by information difference, smallest first"
        )
    else:
        notes.append(
            "No joint RIC or information difference: they combine or compare two or more systems."
        )
    if ctx.n_systems >= 2:
        step("figure")
        both = pd.concat(
            [ctx.scores[ctx.scores["measure"] == ctx.measure_names[0]], ric], ignore_index=True
        )
        figures["ric_scatter"] = ctx.save(
            as_figure(plot_module().ric_scatter(both, ctx.measure_names[0])), "ric_scatter"
        )
        captions["ric_scatter"] = (
            f"Mean RIC against mean {ctx.measure_names[0]} per system, with Kendall's τ (Golbus & "
            "Aslam 2013, Figure 2)"
        )
    return Section(
        key="information",
        title="Information-theoretic analysis",
        text=text,
        tables=tables,
        figures=figures,
        captions=captions,
        notes=notes,
    )


def judgments_section(ctx: Context) -> Section | None:
    """Agreement of two sets of judgments (``other_qrels``): labels and leaderboards."""
    if ctx.other_qrels is None or ctx.qrels is None:
        return None
    from pdireval.evaluation import evaluate
    from pdireval.meta.leaderboard import leaderboard_agreement
    from pdireval.meta.leaderboard_correlation import leaderboard_correlation
    from pdireval.runs.judgment_agreement import agreement, judgment_confusion
    from pdireval.runs.qrels_overlap import qrels_overlap

    step = ctx.steps(
        "judgments",
        ["label agreement", "confusion table", "qrels overlap", "leaderboards"],
    )
    step("label agreement")
    agree = agreement(
        ctx.qrels, ctx.other_qrels, n_resamples=min(ctx.n_resamples, 1000), rng=ctx.seed()
    )
    step("confusion table")
    # the confusion table as a square: qrels labels down, other labels across
    long = judgment_confusion(ctx.qrels, ctx.other_qrels)
    name = {v: f"other {v:g}" for v in long["other_label"].dropna().unique()}
    long = long.assign(
        label=long["label"].map(lambda v: "not judged" if np.isnan(v) else f"{v:g}"),
        other=long["other_label"].map(lambda v: "other: not judged" if np.isnan(v) else name[v]),
    )
    confusion = long.pivot(index="label", columns="other", values="count")
    confusion = confusion.loc[list(pd.unique(long["label"])), list(pd.unique(long["other"]))]
    confusion = confusion.fillna(0).astype(np.int64).reset_index()
    confusion.columns.name = None
    step("qrels overlap")
    overlap = qrels_overlap(ctx.qrels, ctx.other_qrels)
    step("leaderboards")
    other_scores = evaluate(ctx.run, ctx.measures, qrels=ctx.other_qrels, columns=ctx.columns)
    with warnings.catch_warnings():  # an undefined correlation is named in the issue column
        warnings.simplefilter("ignore", PdirevalWarning)
        correlation = leaderboard_correlation(
            ctx.scores, other_scores, methods=["kendall", "kendall@10", "spearman"], missing="skip"
        )
    long_board = leaderboard_agreement(ctx.scores, other_scores)
    board = long_board.pivot(index="statistic", columns="measure_a", values="value")
    board = board.loc[
        list(pd.unique(long_board["statistic"])), list(pd.unique(long_board["measure_a"]))
    ]
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
        tables={
            "judgment_agreement": agree,
            "judgment_confusion": confusion,
            "leaderboard_agreement": board,
            "leaderboard_changes": ctx.in_order(changes),
            "leaderboard_correlation": correlation,
            "qrels_overlap": overlap,
        },
        captions={
            "judgment_agreement": "Agreement statistics of the other qrels against the qrels "
            "(pairs both judged)",
            "judgment_confusion": "Label confusion table: qrels labels down, other qrels labels "
            "across (pairs judged by one side only in the 'not judged' row "
            "and column)",
            "leaderboard_agreement": "Leaderboards under the qrels and the other qrels, one column "
            "per measure (sig_*: shares of system pairs by paired t-test "
            "decisions)",
            "leaderboard_changes": "System means and ranks under both qrels (rank_change > 0: "
            "higher under the other qrels)",
            "leaderboard_correlation": "Kendall's τ_b over all systems and over the qrels' top "
            "10 (kendall@10), Spearman's ρ, as the TREC AutoJudge organisers report them",
            "qrels_overlap": "Per query: precision, recall and F1 of the other qrels' relevant "
            "set against the qrels', Jaccard, adjusted Rand index (Hubert & Arabie 1985)",
        },
    )
