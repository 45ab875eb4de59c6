"""compare()'s fuller table: alternative= on every test with sides (against scipy), effect
sizes and Bayes factors (against pingouin), the new corrections (against statsmodels), several
baselines, win/tie/loss counts and seeded reproducibility."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from scipy import stats

import pdireval
from pdireval.errors import OptionError
from pdireval.stats import _adapters as adapters
from pdireval.stats.paired_tests import (
    bootstrap_test,
    paired_t,
    randomization_test,
    sign_test,
    wilcoxon,
)

SIDES = ["two-sided", "greater", "less"]


def scores_from_matrix(matrix, measure="AP"):
    matrix = np.asarray(matrix, dtype=float)
    n, m = matrix.shape
    return pd.DataFrame({
        "system": np.repeat([f"s{j:02d}" for j in range(m)], n),
        "query": np.tile([f"q{i:03d}" for i in range(n)], m),
        "measure": measure,
        "value": matrix.T.ravel(),
    })


def matrix(n=25, m=5, seed=0, digits=None):
    rng = np.random.default_rng(seed)
    x = rng.beta(2, 5, size=(n, 1)) + rng.normal(0, 0.1, size=(n, m)) + np.linspace(0, 0.08, m)
    return np.round(x, digits) if digits is not None else x


# ------------------------------------------------------------------- array level vs scipy


@pytest.mark.parametrize("alternative", SIDES)
def test_array_tests_match_scipy(alternative):
    x = matrix(n=20, m=2, seed=1, digits=2)  # rounded: ties and zero differences occur
    a, b = x[:, 0], x[:, 1]
    t = paired_t(a, b, alternative=alternative)
    ref = stats.ttest_rel(a, b, alternative=alternative)
    assert t.statistic == pytest.approx(ref.statistic, rel=1e-12) and t.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    w = wilcoxon(a, b, alternative=alternative)
    with warnings.catch_warnings():  # scipy < 1.12 warns that zeros switch it to the normal
        warnings.simplefilter("ignore", UserWarning)  # approximation (the reference, not ours)
        ref = stats.wilcoxon(a, b, alternative=alternative)
    assert w.statistic == pytest.approx(ref.statistic) and w.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    s = sign_test(a, b, alternative=alternative)
    ref = stats.binomtest(s.n_greater, s.n_greater + s.n_less, alternative=alternative)
    assert s.p_value == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("alternative", SIDES)
def test_exact_randomization_matches_scipy_permutation_test(alternative):
    x = matrix(n=10, m=2, seed=2)
    a, b = x[:, 0], x[:, 1]
    ours = randomization_test(a, b, n_resamples=2**10, alternative=alternative)
    ref = stats.permutation_test((a - b,), np.sum, permutation_type="samples", alternative=alternative,
                                 n_resamples=np.inf)
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-12)


def _bootstrap_oracle(a, b, n_resamples, seed, alternative):
    """Sakai's bootstrap written the slow, obvious way: one replicate at a time."""
    z = a - b
    n = len(z)
    t_obs = z.mean() / (z.std(ddof=1) / np.sqrt(n))
    w = z - z.mean()
    idx = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))
    hits = 0
    for row in idx:
        ws = w[row]
        s = ws.std(ddof=1)
        t_star = 0.0 if ws.mean() == 0 else (np.sign(ws.mean()) * np.inf if s == 0 else ws.mean() / (s / np.sqrt(n)))
        if alternative == "two-sided":
            hits += abs(t_star) >= abs(t_obs)
        elif alternative == "greater":
            hits += t_star >= t_obs
        else:
            hits += t_star <= t_obs
    return hits / n_resamples


@pytest.mark.parametrize("alternative", SIDES)
def test_bootstrap_alternatives_match_a_loop(alternative):
    x = matrix(n=15, m=2, seed=3)
    a, b = x[:, 0], x[:, 1]
    ours = bootstrap_test(a, b, n_resamples=400, rng=9, alternative=alternative)
    assert ours.p_value == pytest.approx(_bootstrap_oracle(a, b, 400, 9, alternative), abs=1e-12)


def test_one_sided_p_values_split_the_two_sided_one():
    x = matrix(n=30, m=2, seed=4)
    a, b = x[:, 0], x[:, 1]
    g = paired_t(a, b, alternative="greater").p_value
    le = paired_t(a, b, alternative="less").p_value
    assert g + le == pytest.approx(1.0) and min(g, le) * 2 == pytest.approx(paired_t(a, b).p_value)
    g = bootstrap_test(a, b, rng=1, alternative="greater").p_value
    le = bootstrap_test(a, b, rng=1, alternative="less").p_value
    assert g + le == pytest.approx(1.0)  # no replicate equals t_obs exactly here


def test_constant_differences_follow_the_side():
    a = np.array([0.5, 0.6, 0.7])
    for test in (paired_t, bootstrap_test):
        assert test(a + 0.1, a, alternative="greater").p_value == 0.0
        assert test(a + 0.1, a, alternative="less").p_value == 1.0
        assert test(a, a, alternative="greater").p_value == 1.0


# ------------------------------------------------------------------------ compare()


@pytest.mark.parametrize("method", ["t", "wilcoxon", "sign", "randomization", "bootstrap"])
@pytest.mark.parametrize("alternative", SIDES)
def test_compare_alternative_equals_array_level(method, alternative):
    x = matrix(n=18, m=4, seed=5, digits=3)
    res = pdireval.compare(scores_from_matrix(x), method=method, alternative=alternative, n_resamples=500, rng=3)
    assert (res["alternative"] == alternative).all()
    fn = {"t": paired_t, "wilcoxon": wilcoxon, "sign": sign_test}.get(method)
    for row in res.itertuples():
        a, b = x[:, int(row.system_a[1:])], x[:, int(row.system_b[1:])]
        if fn is not None:
            assert row.p_value == pytest.approx(fn(a, b, alternative=alternative).p_value, rel=1e-12)
    if method == "t":
        for row in res.itertuples():
            a, b = x[:, int(row.system_a[1:])], x[:, int(row.system_b[1:])]
            ci = stats.ttest_rel(a, b, alternative=alternative).confidence_interval(0.95)
            assert (row.ci_low, row.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-10)
    if method == "bootstrap" and alternative != "two-sided":
        inf = res["ci_high"] if alternative == "greater" else res["ci_low"]
        assert np.isinf(inf).all()


def test_effect_sizes_and_bayes_factor_match_pingouin():
    x = matrix(n=30, m=5, seed=6)
    res = pdireval.compare(scores_from_matrix(x), method="t")
    for row in res.itertuples():
        a, b = x[:, int(row.system_a[1:])], x[:, int(row.system_b[1:])]
        try:
            d_z = pg.compute_effsize(a, b, paired=True, eftype="cohen_dz")
        except ValueError:  # pingouin < 0.6 has no "cohen_dz": its definition, mean(z) / sd(z)
            d_z = np.mean(a - b) / np.std(a - b, ddof=1)
        assert row.effect_size == pytest.approx(d_z, rel=1e-12)
        assert row.hedges_g == pytest.approx(pg.compute_effsize(a, b, paired=True, eftype="hedges"), rel=1e-12)
        t = stats.ttest_rel(a, b).statistic
        assert row.bf10 == pytest.approx(pg.bayesfactor_ttest(t, len(a), paired=True), rel=1e-6)
    one_sided = pdireval.compare(scores_from_matrix(x), method="t", alternative="greater")
    assert one_sided["bf10"].isna().all()
    np.testing.assert_array_equal(one_sided["hedges_g"], res["hedges_g"])


def test_bayes_factor_adapter_over_a_range_of_t():
    t = np.array([-8.0, -2.5, -0.3, 0.0, 0.7, 1.96, 3.0, 6.0])
    for n in (3, 12, 100):
        ours = adapters.bayes_factor_t(t, n)
        ref = [pg.bayesfactor_ttest(v, n, paired=True) for v in t]
        np.testing.assert_allclose(ours, ref, rtol=1e-6)
    assert np.isnan(adapters.bayes_factor_t(np.array([np.inf]), 10)).all()


@pytest.mark.parametrize("correction", ["sidak", "holm-sidak", "hochberg", "hommel", "by"])
def test_new_corrections_in_compare(correction):
    from statsmodels.stats.multitest import multipletests

    x = matrix(n=20, m=6, seed=7)
    res = pdireval.compare(scores_from_matrix(x), method="t", correction=correction)
    sm = {"holm-sidak": "holm-sidak", "hochberg": "simes-hochberg", "by": "fdr_by"}.get(correction, correction)
    np.testing.assert_allclose(res["p_adjusted"], multipletests(res["p_value"], method=sm)[1], rtol=1e-12)
    assert (res["correction"] == correction).all()


def test_several_baselines():
    x = matrix(n=20, m=5, seed=8)
    scores = scores_from_matrix(x)
    res = pdireval.compare(scores, method="bootstrap", baseline=["s03", "s01"], n_resamples=300, rng=4)
    pairs = list(zip(res["system_a"], res["system_b"]))
    assert pairs == [("s00", "s03"), ("s01", "s03"), ("s02", "s03"), ("s04", "s03"),
                     ("s00", "s01"), ("s02", "s01"), ("s04", "s01")]
    # each baseline's rows are those of a single-baseline call (resamples shared by all pairs)
    for base in ("s03", "s01"):
        single = pdireval.compare(scores, method="bootstrap", baseline=base, n_resamples=300, rng=4)
        mine = res[res["system_b"] == base].reset_index(drop=True)
        single = single[single["system_a"].isin(mine["system_a"])].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, single)
    with pytest.raises(OptionError, match="twice"):
        pdireval.compare(scores, baseline=["s01", "s01"])
    with pytest.raises(pdireval.SchemaError, match="not a system"):
        pdireval.compare(scores, baseline=["s01", "zz"])


def test_wins_ties_losses():
    x = matrix(n=40, m=3, seed=9, digits=1)
    res = pdireval.compare(scores_from_matrix(x), method="sign")
    for row in res.itertuples():
        a, b = x[:, int(row.system_a[1:])], x[:, int(row.system_b[1:])]
        assert (row.n_wins, row.n_ties, row.n_losses) == ((a > b).sum(), (a == b).sum(), (a < b).sum())
        assert row.statistic == row.n_wins
    assert res[["n_wins", "n_ties", "n_losses"]].sum(axis=1).eq(40).all()


@pytest.mark.parametrize("method", ["bootstrap", "randomization", "tukey"])
def test_a_seed_reproduces_the_p_values(method):
    scores = scores_from_matrix(matrix(n=25, m=4, seed=10))
    a = pdireval.compare(scores, method=method, n_resamples=300, rng=42)
    b = pdireval.compare(scores, method=method, n_resamples=300, rng=42)
    pd.testing.assert_frame_equal(a, b)


def test_columns_and_errors():
    scores = scores_from_matrix(matrix(n=10, m=3, seed=11))
    res = pdireval.compare(scores, method="t")
    assert list(res.columns) == [
        "measure", "system_a", "system_b", "mean_a", "mean_b", "mean_diff", "ci_low", "ci_high",
        "effect_size", "hedges_g", "bf10", "statistic", "p_value", "required_diff", "n_wins",
        "n_ties", "n_losses", "method", "alternative", "correction", "required_alpha", "n_queries",
    ]  # no correction: no p_adjusted (it would read as corrected)
    corrected = pdireval.compare(scores, method="t", correction="holm")
    at = list(corrected.columns).index("p_value")
    assert list(corrected.columns[at:at + 3]) == ["p_value", "p_adjusted", "family_size"]
    assert (corrected["family_size"] == 3).all() and (corrected["correction"] == "holm").all()
    with pytest.raises(OptionError, match="two-sided only"):
        pdireval.compare(scores, method="tukey", alternative="greater")
    with pytest.raises(OptionError, match="alternative= must be one of"):
        pdireval.compare(scores, alternative="larger")
    renamed = scores.rename(columns={"query": "qid"})
    pd.testing.assert_frame_equal(pdireval.compare(renamed, method="t", columns={"query": "qid"}), res)


def test_robust03_one_sided_t_against_scipy(robust03):
    run, qrels = robust03
    scores = pdireval.evaluate(run, "AP", qrels=qrels)
    res = pdireval.compare(scores, method="t", alternative="greater", baseline="uwmtCR0", correction="hommel")
    wide = scores.pivot(index="query", columns="system", values="value")
    for row in res.itertuples():
        ref = stats.ttest_rel(wide[row.system_a], wide[row.system_b], alternative="greater")
        assert row.p_value == pytest.approx(ref.pvalue, rel=1e-10)
        assert row.hedges_g == pytest.approx(
            pg.compute_effsize(wide[row.system_a], wide[row.system_b], paired=True, eftype="hedges"), rel=1e-10)
