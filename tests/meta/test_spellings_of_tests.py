"""Other tools' spellings of tests and corrections (statsmodels, PyTerrier, ranx) give identical
results to pdireval's names; the PyTerrier callable follows scipy.stats.ttest_rel's contract."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdireval
import pdireval.pyterrier
from pdireval.errors import OptionError
from pdireval.meta.significance import METHOD_ALIASES
from pdireval.stats.corrections import CORRECTION_ALIASES, adjust_pvalues, canonical_correction
from tests.helpers import quietly


@pytest.fixture(scope="module")
def scores():
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=25, depth=30, rng=3)
    return pdireval.evaluate(run, ["AP", "P@10"], qrels=qrels)


@pytest.mark.parametrize("alias", sorted(CORRECTION_ALIASES))
def test_correction_aliases_give_identical_frames(scores, alias):
    canonical = CORRECTION_ALIASES[alias]
    want = pdireval.compare(scores, method="t", correction=canonical)
    for spelling in (alias, alias.upper()):
        got = pdireval.compare(scores, method="t", correction=spelling)
        pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize("alias", ["fdr_bh", "fdr_by", "holm-sidak", "hs", "simes-hochberg",
                                   "hommel", "sidak", "b"])
def test_corrections_equal_statsmodels_under_its_own_names(alias):
    from statsmodels.stats.multitest import multipletests

    p = np.random.default_rng(5).uniform(0, 0.2, size=40)
    np.testing.assert_allclose(adjust_pvalues(p, alias), multipletests(p, method=alias)[1],
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("alias", sorted(METHOD_ALIASES))
def test_method_aliases_give_identical_frames(scores, alias):
    want = pdireval.compare(scores, method=METHOD_ALIASES[alias], n_resamples=200, rng=1)
    got = pdireval.compare(scores, method=alias.upper(), n_resamples=200, rng=1)
    pd.testing.assert_frame_equal(got, want)
    assert set(got["method"]) == {METHOD_ALIASES[alias]}


def test_method_aliases_in_discriminative_power(scores):
    want = pdireval.discriminative_power(scores, method="randomization", n_resamples=200, rng=1)
    got = pdireval.discriminative_power(scores, method="fisher", n_resamples=200, rng=1)
    pd.testing.assert_frame_equal(got, want)


def test_unknown_spellings_name_the_accepted_ones(scores):
    with pytest.raises(OptionError, match="fdr_bh"):
        pdireval.compare(scores, correction="fdr_bhx")
    with pytest.raises(OptionError, match="not provided.*'bh'"):
        canonical_correction("fdr_tsbh")
    with pytest.raises(OptionError, match="student"):
        pdireval.compare(scores, method="studentt")


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_pyterrier_callables_follow_scipy_contract(alternative):
    rng = np.random.default_rng(11)
    a = rng.uniform(size=30)
    b = np.clip(a - rng.normal(0.05, 0.1, size=30), 0, 1)
    t = pdireval.pyterrier.test("t", alternative=alternative)(a, b)
    want = stats.ttest_rel(a, b, alternative=alternative)
    assert t[1] == pytest.approx(want.pvalue, rel=1e-12)
    assert t.statistic == pytest.approx(want.statistic, rel=1e-12)
    w = pdireval.pyterrier.test("wilcoxon", alternative=alternative)(a, b)
    assert w[1] == pytest.approx(quietly(stats.wilcoxon, a, b, alternative=alternative).pvalue, rel=1e-12)
    s = pdireval.pyterrier.test("sign", alternative=alternative)(a, b)
    k = int((a > b).sum())
    n = int((a != b).sum())
    want_sign = stats.binomtest(k, n, alternative=alternative).pvalue
    assert s[1] == pytest.approx(want_sign, rel=1e-12)


def test_pyterrier_resampling_callables_are_reproducible_and_match_compare_formulas(scores):
    ap = scores[scores["measure"] == "AP"].pivot(index="query", columns="system", values="value")
    a, b = ap.iloc[:, 0].to_numpy(), ap.iloc[:, 1].to_numpy()
    for method in ("bootstrap", "randomization", "fisher"):
        f = pdireval.pyterrier.test(method, n_resamples=500, rng=7)
        first, second = f(a, b), f(a, b)
        assert first == second  # same resamples on every call
        assert 0 <= first[1] <= 1
    # the bootstrap's statistic is the studentised mean difference, as in compare()
    d = a - b
    stat = pdireval.pyterrier.test("bootstrap", n_resamples=100, rng=7)(a, b).statistic
    assert stat == pytest.approx(d.mean() / (d.std(ddof=1) / np.sqrt(len(d))), rel=1e-12)
    # a clearly better system is significant under every callable
    better = np.clip(b + 0.3, 0, 2)
    for method in pdireval.pyterrier.TESTS:
        assert pdireval.pyterrier.test(method, rng=7)(better, b)[1] < 0.01


def test_pyterrier_refuses_tukey_and_unknown_tests():
    with pytest.raises(OptionError, match="Tukey HSD"):
        pdireval.pyterrier.test("tukey")
    with pytest.raises(OptionError, match="method="):
        pdireval.pyterrier.test("z")
    with pytest.raises(OptionError, match="alternative"):
        pdireval.pyterrier.test("t", alternative="bigger")


@pytest.mark.slow  # importing PyTerrier takes about a minute
def test_pyterrier_experiment_accepts_the_callable():
    pt = pytest.importorskip("pyterrier", reason="PyTerrier is an optional oracle (the test group)")

    rng = np.random.default_rng(2)
    qids = [f"q{i}" for i in range(20)]
    topics = pd.DataFrame({"qid": qids, "query": ["x"] * 20})
    qrels = pd.DataFrame({"qid": qids, "docno": ["d1"] * 20, "label": [1] * 20})

    def result(score_d1):
        rows = []
        for q, s in zip(qids, score_d1):
            rows += [(q, "d1", s), (q, "d2", 0.5)]
        return pd.DataFrame(rows, columns=["qid", "docno", "score"])

    base = result(rng.uniform(0, 1, 20))
    other = result(rng.uniform(0.3, 1.3, 20))
    callable_ = pdireval.pyterrier.test("t")
    got = pt.Experiment([base, other], topics, qrels, ["map"], baseline=0, test=callable_)
    want = pt.Experiment([base, other], topics, qrels, ["map"], baseline=0, test="t")
    np.testing.assert_allclose(got["map p-value"].to_numpy(dtype=float),
                               want["map p-value"].to_numpy(dtype=float), equal_nan=True)
