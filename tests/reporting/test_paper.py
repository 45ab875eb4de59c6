"""paper_table: one tidy frame, three renderings, markers equal to compare()'s decisions."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import OptionError, SchemaError
from pdireval.reporting.paper import paper_table


@pytest.fixture(scope="module")
def scores():
    run, qrels = pdireval.datasets.simulate(n_systems=6, n_queries=30, depth=50, rng=3)
    return pdireval.evaluate(run, ["nDCG@10", "AP", "P@10"], qrels=qrels)


def _decisions_from_table(table):
    """(measure, winner, loser) triples read back from the letters."""
    by_letter = dict(zip(table["letter"], table["system"]))
    return {
        (m, s, by_letter[ch])
        for s, m, letters in zip(table["system"], table["measure"], table["better_than"])
        for ch in letters
    }


def _decisions_from_compare(tests, alpha):
    sig = tests[tests["p_adjusted" if "p_adjusted" in tests else "p_value"] < alpha]
    out = set()
    for r in sig.itertuples(index=False):
        winner, loser = (r.system_a, r.system_b) if r.mean_diff > 0 else (r.system_b, r.system_a)
        out.add((r.measure, winner, loser))
    return out


@pytest.mark.parametrize("method,correction", [("t", "holm"), ("wilcoxon", "bh"), ("t", None)])
def test_markers_equal_compare_decisions(scores, method, correction):
    table = paper_table(scores, method=method, correction=correction)
    tests = pdireval.compare(scores, method=method, correction=correction)
    expected = _decisions_from_compare(tests, 0.05)
    assert expected, "the fixture must have significant pairs for this test to mean something"
    assert _decisions_from_table(table) == expected


def test_markers_reuse_a_bootstrap_compare_and_baseline(scores):
    tests = pdireval.compare(scores, method="bootstrap", correction="holm", n_resamples=500, rng=1)
    table = paper_table(scores, tests=tests, alpha=0.01)
    assert _decisions_from_table(table) == _decisions_from_compare(tests, 0.01)
    assert "bootstrap" in table.attrs["caption"] and "α = 0.01" in table.attrs["caption"]
    base = paper_table(scores, baseline="sys03")
    base_tests = pdireval.compare(scores, method="t", correction="holm", baseline="sys03")
    got = _decisions_from_table(base)
    assert got == _decisions_from_compare(base_tests, 0.05)
    assert all("sys03" in (w, lo) for _, w, lo in got)
    assert "baseline sys03" in base.attrs["caption"]


def test_best_is_the_highest_unrounded_mean(scores):
    table = paper_table(scores, decimals=2)
    means = scores.groupby(["measure", "system"])["value"].mean()
    for m, part in table.groupby("measure"):
        assert part.loc[part["best"], "system"].tolist() == [means[m].idxmax()]
        np.testing.assert_allclose(part["mean"].to_numpy(), means[m].loc[part["system"]].to_numpy(), rtol=0, atol=1e-15)
    assert all(re.fullmatch(r"\d\.\d\d", t) for t in table["text"])


def test_latex_is_balanced_booktabs(scores):
    tex = paper_table(scores, format="latex", label="tab:main", decimals=3)
    assert tex.count("{") == tex.count("}")
    assert re.findall(r"\\(begin|end)\{(\w+)\}", tex) == [
        ("begin", "table"), ("begin", "tabular"), ("end", "tabular"), ("end", "table")]
    rules = [line for line in tex.splitlines() if line in (r"\toprule", r"\midrule", r"\bottomrule")]
    assert rules == [r"\toprule", r"\midrule", r"\bottomrule"]
    body = tex.split("\\midrule\n")[1].split("\\bottomrule")[0].strip().splitlines()
    assert len(body) == scores["system"].nunique()
    assert all(row.count("&") == 1 + 3 and row.endswith(r"\\") for row in body)
    assert tex.count(r"\textbf{") == 3  # one best per measure
    assert r"\label{tab:main}" in tex and r"$\alpha$" in tex


def test_latex_escapes_special_characters():
    frame = pd.DataFrame({"system": ["run_1&x", "b%2"] * 3, "query": np.repeat(["1", "2", "3"], 2),
                          "measure": "P_10", "value": [0.1, 0.2, 0.3, 0.2, 0.5, 0.1]})
    tex = paper_table(frame, format="latex")
    assert r"run\_1\&x" in tex and r"b\%2" in tex and r"P\_10" in tex


def test_markdown_and_html_agree_with_the_frame(scores):
    table = paper_table(scores)
    md = paper_table(scores, format="markdown")
    lines = md.splitlines()
    rows = [ln for ln in lines if ln.startswith("| ") and not ln.startswith("|  | System")]
    assert len(rows) == 6 and all(ln.count("|") == 3 + 3 for ln in rows)
    assert md.count("**") == 2 * int(table["best"].sum())
    assert lines[-1] == "Table: " + table.attrs["caption"]

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.bold, self.sup, self.stack = [], 0, [], []

        def handle_starttag(self, tag, attrs):
            self.stack.append(tag)
            if tag == "tr":
                self.rows.append([])
            if tag == "b":
                self.bold += 1

        def handle_endtag(self, tag):
            assert self.stack.pop() == tag  # well nested

        def handle_data(self, data):
            if self.stack and self.stack[-1] == "sup":
                self.sup.append(data)

    parser = Cells()
    parser.feed(paper_table(scores, format="html"))
    assert parser.stack == []
    assert len(parser.rows) == 1 + 6
    assert parser.bold == int(table["best"].sum())
    assert sorted(parser.sup) == sorted(t for t in table["better_than"] if t)


def test_order_selection_and_no_mutation(scores):
    before = scores.copy()
    table = paper_table(scores, measures=["AP"], systems=["sys05", "sys01"])
    pd.testing.assert_frame_equal(scores, before)
    assert table["system"].tolist() == ["sys05", "sys01"] and table["letter"].tolist() == ["a", "b"]


def test_bad_input(scores):
    with pytest.raises(OptionError, match="format"):
        paper_table(scores, format="pdf")
    with pytest.raises(SchemaError, match="nDCG@20"):
        paper_table(scores, measures=["nDCG@20"])
    with pytest.raises(SchemaError, match="grouping column"):
        paper_table(scores.assign(k=1))
    tests = pdireval.compare(scores)
    with pytest.raises(OptionError, match="tests="):
        paper_table(scores, tests=tests, method="wilcoxon")
    with pytest.raises(SchemaError, match="compare"):
        paper_table(scores, tests=tests.drop(columns="p_value"))
    with pytest.raises(OptionError, match="alpha"):
        paper_table(scores, alpha=1.5)


def test_maxt_and_bayes_markers_equal_compare(scores):
    """correction='maxt' marks compare()'s maxT decisions; method='bayes' marks the pairs whose
    posterior probability of being better is at least 1 - alpha, and says so in the caption."""
    table = paper_table(scores, correction="maxt", n_resamples=500, rng=4)
    tests = pdireval.compare(scores, method="t", correction="maxt", n_resamples=500, rng=4)
    assert _decisions_from_table(table) == _decisions_from_compare(tests, 0.05)
    assert "maxT" in paper_table(scores, correction="maxt", n_resamples=500, rng=4,
                                 format="markdown")
    table = paper_table(scores, method="bayes", alpha=0.1)
    tests = pdireval.compare(scores, method="bayes")
    want = set()
    for r in tests.itertuples(index=False):
        if r.prob_a_better >= 0.9:
            want.add((r.measure, r.system_a, r.system_b))
        elif r.prob_a_better <= 0.1:
            want.add((r.measure, r.system_b, r.system_a))
    assert want and _decisions_from_table(table) == want
    assert "posterior probability at least 0.9" in paper_table(
        scores, method="bayes", alpha=0.1, format="markdown"
    )
@pytest.fixture(scope="module")
def many():
    run, qrels = pdireval.datasets.simulate(n_systems=17, n_queries=25, depth=40, rng=5)
    return pdireval.evaluate(run, ["AP", "P@10"], qrels=qrels)


def _caption_family(caption):
    found = re.search(r"over (?:all )?the (\d+) comparisons|over all (\d+) comparisons", caption)
    return int(next(g for g in found.groups() if g))


def test_caption_states_the_family_of_the_tests_given_not_of_the_systems_shown(many):
    """Issue 33: Holm over the 136 pairs of 17 systems passed by tests=, five systems shown:
    the superscripts follow the 136-pair family, and so must the caption (it said 10)."""
    five = sorted(many["system"].unique())[:5]
    tests = pdireval.compare(many, method="t", correction="holm")
    table = paper_table(many, tests=tests, systems=five)
    caption = table.attrs["caption"]
    assert _caption_family(caption) == 136 == len(tests) // 2
    assert "Holm (1979) correction over the 136 comparisons of each measure" in caption
    assert "between the 17 systems tested, of which 5 are shown" in caption
    assert "10 comparisons" not in caption
    # the markers follow the same family: compare()'s decisions on the 136 pairs, shown ones
    shown = tests[tests["system_a"].isin(five) & tests["system_b"].isin(five)]
    assert _decisions_from_table(table) == _decisions_from_compare(shown, 0.05)
    tex = paper_table(many, tests=tests, systems=five, format="latex")
    assert "correction over the 136 comparisons of each measure" in tex
    # tests run by paper_table itself are on the shown systems: 10 pairs
    own = paper_table(many, systems=five, method="t", correction="holm").attrs["caption"]
    assert _caption_family(own) == 10 and "systems tested" not in own


@pytest.mark.parametrize(
    "kwargs, family, words",
    [
        ({"correction": "bh", "family": "all"}, 272,
         "Benjamini–Hochberg (1995) false-discovery-rate adjustment over all 272 comparisons "
         "of the 2 measures"),
        ({"correction": "bonferroni", "baseline": "sys02"}, 16,
         "Bonferroni correction over the 16 comparisons of each measure"),
        ({"correction": "hommel"}, 136, "Hommel (1988) correction over the 136 comparisons"),
        ({"correction": "maxt", "n_resamples": 200, "rng": 1}, 136,
         "Westfall–Young (1993) step-down maxT adjustment over the 136 comparisons"),
        ({"correction": None}, None, "no correction for multiple comparisons, α"),
    ],
)
def test_caption_family_follows_the_tests_frame(many, kwargs, family, words):
    five = sorted(many["system"].unique())[:5]
    tests = pdireval.compare(many, method="t", **kwargs)
    caption = paper_table(many, tests=tests, systems=five).attrs["caption"]
    assert words in caption
    if family is not None:
        assert _caption_family(caption) == family


def test_a_filtered_tests_frame_gives_no_family_size_and_a_warning(many):
    five = sorted(many["system"].unique())[:5]
    tests = pdireval.compare(many, method="t", correction="holm")
    shown = tests[tests["system_a"].isin(five) & tests["system_b"].isin(five)]
    with pytest.warns(pdireval.PdirevalWarning, match="without its number of comparisons"):
        caption = paper_table(many, tests=shown, systems=five).attrs["caption"]
    assert "Holm (1979) correction, α = 0.05" in caption
    assert not re.search(r"\d+ comparisons", caption)


def test_tukey_caption_says_the_hsd_controls_the_family_not_no_correction(many):
    """The randomised Tukey HSD runs with correction=None because it controls the family-wise
    error over all pairs itself: the caption said "no correction for multiple comparisons"."""
    five = sorted(many["system"].unique())[:5]
    own = paper_table(many, systems=five, method="tukey", correction=None, n_resamples=200,
                      rng=1).attrs["caption"]
    assert "no correction" not in own
    assert "HSD test controlling the family-wise error over the 10 comparisons" in own
    tests = pdireval.compare(many, method="tukey", n_resamples=200, rng=1)
    given = paper_table(many, tests=tests, systems=five).attrs["caption"]
    assert "over the 136 comparisons of each measure between the 17 systems tested" in given
    plain = paper_table(many, systems=five, method="t", correction=None).attrs["caption"]
    assert "paired t-test, no correction for multiple comparisons" in plain
