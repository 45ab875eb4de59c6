"""One family of comparisons per report (issue 28): the paper table and the Systems table's
p-values against the best come from the same tests and the same Holm family, so the report
never marks a pair one way in one table and the other way in another."""

from __future__ import annotations

import numpy as np
import pytest

from pdireval.reporting.sections import ALPHA, Context, systems_section


@pytest.mark.slow
def test_robust03_systems_and_paper_table_mark_every_pair_alike(robust03, tmp_path):
    """On Robust 2003 the paper table (Holm over all 136 pairs) did not mark THUIRr0301 better
    than fub03IeOLKe3 or uic0301 on nDCG@10, while the table below said both were worse than
    the best (Holm over the 16 comparisons with the best only)."""
    run, qrels = robust03
    ctx = Context(run=run, qrels=qrels, measures=["nDCG@10", "AP"], figures_dir=tmp_path / "figures",
                  n_resamples=1000, rng=np.random.default_rng(0))
    ctx.figures_dir.mkdir()
    ctx.prepare()
    section = systems_section(ctx)
    summary, paper = section.tables["summary"], section.tables["paper_table"]
    letter = dict(zip(paper["system"], paper["letter"]))
    n_marked = 0
    for measure in ("nDCG@10", "AP"):
        rows = summary[summary["measure"] == measure]
        best = rows["best"].iloc[0]
        marked = paper[(paper["measure"] == measure) & (paper["system"] == best)]["better_than"].item()
        for system, worse in zip(rows["system"], rows["worse_than_best"]):
            if system != best:
                assert worse == (letter[system] in marked), (measure, best, system)
                n_marked += worse
        # every later table states its family and the number of comparisons
        assert "Holm (1979) correction over all 136 system pairs" in section.captions["summary"]
        assert "over the 136 comparisons of each measure" in paper.attrs["caption"]
        # and every superscript of any system is a Holm decision of the same tests
        tests = ctx.tests[ctx.tests["measure"] == measure]
        significant = tests[(tests["p_adjusted"] < ALPHA) & (tests["mean_diff"] != 0)]
        winners = np.where(significant["mean_diff"] > 0, significant["system_a"], significant["system_b"])
        losers = np.where(significant["mean_diff"] > 0, significant["system_b"], significant["system_a"])
        want = {(w, letter[lo]) for w, lo in zip(winners, losers)}
        got = {(s, c) for s, cs in zip(paper.loc[paper["measure"] == measure, "system"],
                                        paper.loc[paper["measure"] == measure, "better_than"]) for c in cs}
        assert got == want
    assert n_marked > 0  # the check compared real decisions
