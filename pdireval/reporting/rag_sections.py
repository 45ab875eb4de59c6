"""The report's section on RAG answers: nugget scores given to :func:`pdireval.report`.

The scores come from :func:`pdireval.evaluate_nuggets` (or :func:`pdireval.evaluate_support`):
any scores frame works. The section shows the per-system means with t intervals, Holm-corrected
paired t-tests of every pair of systems, and, when the scores carry a ``judge`` column (e.g.
NIST assessors and an LLM), how alike the judges rank the systems.
"""

from __future__ import annotations

import pandas as pd

from pdireval.reporting.context import ALPHA, Context, count_words
from pdireval.reporting.html import Section

__all__ = ["nuggets_section"]


def nuggets_section(ctx: Context) -> Section | None:
    """Per-system nugget scores with intervals, paired tests, and judge agreement."""
    if ctx.nugget_scores is None:
        return None
    from pdireval.meta.aggregate import aggregate
    from pdireval.meta.leaderboard import leaderboard_agreement
    from pdireval.meta.significance import compare

    scores = ctx.nugget_scores
    has_judge = "judge" in scores.columns
    labels = ["means", "paired tests"] + (["judges"] if has_judge else [])
    step = ctx.steps("RAG answers", labels)
    step("means")
    means = aggregate(scores, method="t")
    keep = [c for c in means.columns if c not in ("ci_method", "confidence_level", "summary")]
    means = means[keep]
    measures = list(pd.unique(scores["measure"]))
    systems = scores["system"].nunique()
    tables = {"rag_means": means}
    captions = {
        "rag_means": "Nugget / support scores per system: mean over queries with a 95% t interval"
    }
    notes = []
    step("paired tests")
    if systems >= 2:
        tests = compare(scores, method="t", correction="holm")
        cols = ["measure", "system_a", "system_b", "mean_a", "mean_b", "p_value", "p_adjusted"]
        lead = [c for c in tests.columns if c not in cols and c in ("judge",)]
        tables["rag_tests"] = tests[lead + cols]
        captions["rag_tests"] = (
            "Paired t-tests of every pair of systems per score, Holm-corrected over the "
            f"pairs of each score (α = {ALPHA})"
        )
    else:
        notes.append("Paired tests: one system only, nothing to compare.")
    text = (
        f"Scores of the generated answers ({count_words(systems, 'system')}, "
        f"{', '.join(measures)}): A, V and W are the nugget scores of the TREC 2024 RAG track "
        "(Pradeep et al. 2024; nuggetizer's all_score and vital_score, and the weighted "
        "score), support_* the citation support scores (Thakur et al. 2025). Every query "
        "weighs the same."
    )
    if has_judge:
        step("judges")
        judges = scores["judge"].nunique()
        if judges >= 2 and systems >= 2:
            board = leaderboard_agreement(scores)
            tables["rag_judges"] = board
            captions["rag_judges"] = (
                "How alike each pair of judges ranks the systems (Kendall's τ_b, τ_AP, "
                "rank-biased overlap, agreement of paired t-test decisions)"
            )
            text += (
                f" The scores come from {judges} judges: the last table compares their "
                "leaderboards."
            )
        else:
            notes.append("Judge agreement: one judge (or one system) only.")
    return Section(
        key="rag",
        title="RAG answers: nugget and support scores",
        text=text,
        tables=tables,
        captions=captions,
        notes=notes,
    )
