"""pdireval.query_set_size (Sakai 2016) against pingouin, statsmodels and closed forms."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import pdireval
from pdireval.errors import OptionError
from pdireval.meta.set_size import _ci_factor, _expected_width


@pytest.fixture(scope="module")
def scores():
    run, qrels = pdireval.datasets.simulate(n_systems=8, n_queries=40, rng=5)
    return pdireval.evaluate(run, ["AP", "P@10"], qrels=qrels)


def test_variance_is_sakais_one_way_v_e_by_default_and_both_are_reported(scores):
    """Sakai (2016, IRJ) estimates σ² by the one-way ANOVA's V_E (systems as the factor, the
    query variance included); the two-way residual is his (2014) EVIA variant, on request."""
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    res = pdireval.query_set_size(scores)
    two = pdireval.query_set_size(scores, variance="two-way")
    ap = scores[scores["measure"] == "AP"]
    one_way = anova_lm(smf.ols("value ~ C(system)", data=ap).fit()).loc["Residual", "mean_sq"]
    two_way = anova_lm(smf.ols("value ~ C(system) + C(query)", data=ap).fit()).loc["Residual", "mean_sq"]
    for frame in (res, two):
        assert frame.iloc[0]["variance_one_way"] == pytest.approx(one_way)
        assert frame.iloc[0]["variance_two_way"] == pytest.approx(two_way)
    assert res.iloc[0]["variance"] == pytest.approx(one_way) and res.iloc[0]["variance_estimate"] == "one-way"
    assert two.iloc[0]["variance"] == pytest.approx(two_way) and two.iloc[0]["variance_estimate"] == "two-way"
    assert res.iloc[0]["n_queries"] > two.iloc[0]["n_queries"]  # the query variance counts
    given = pdireval.query_set_size(scores, variance=0.04)
    assert (given["variance"] == 0.04).all() and (given["variance_estimate"] == "given").all()
    assert list(res["measure"]) == ["AP", "P@10"]
    with pytest.raises(OptionError, match="variance="):
        pdireval.query_set_size(scores, variance="three-way")


@pytest.mark.slow
def test_robust03_one_way_and_two_way_sizes(robust03):
    """Issue 29: on Robust 2003 (AP, minD 0.05, paired t-test, α 0.05, power 0.8) Sakai's
    one-way V_E asks 256 queries, the two-way residual 65."""
    run, qrels = robust03
    ap = pdireval.evaluate(run, "AP", qrels=qrels)
    assert pdireval.query_set_size(ap)["n_queries"].item() == 256
    assert pdireval.query_set_size(ap, variance="two-way")["n_queries"].item() == 65


def test_ttest_size_is_the_smallest_reaching_the_power(scores):
    import pingouin

    res = pdireval.query_set_size(scores, method="ttest", min_difference=[0.02, 0.05, 0.1], power=0.8)
    for row in res.itertuples():
        d = row.min_difference / np.sqrt(2 * row.variance)
        n = int(row.n_queries)
        assert pingouin.power_ttest(d=d, n=n, contrast="paired") >= 0.8
        assert pingouin.power_ttest(d=d, n=n - 1, contrast="paired") < 0.8
        assert row.achieved_power == pytest.approx(pingouin.power_ttest(d=d, n=n, contrast="paired"))
        assert n == int(np.ceil(pingouin.power_ttest(d=d, power=0.8, contrast="paired")))
    # a smaller difference needs more queries
    ap = res[res["measure"] == "AP"]["n_queries"].to_numpy()
    assert (np.diff(ap) < 0).all()


def test_anova_with_two_systems_is_the_two_sample_t_test():
    """Sakai (2016): one-way ANOVA with m = 2 equals the two-sample t-test (same power)."""
    import pingouin

    frame = pd.DataFrame({"system": ["a", "b"] * 3, "query": np.repeat(["1", "2", "3"], 2),
                          "measure": "AP", "value": [0.1, 0.3, 0.2, 0.5, 0.4, 0.4]})
    res = pdireval.query_set_size(frame, method="anova", variance=0.04, min_difference=0.1)
    n = int(res["n_queries"].iloc[0])
    d = 0.1 / np.sqrt(0.04)
    assert pingouin.power_ttest(d=d, n=n, contrast="two-samples") >= 0.8
    assert pingouin.power_ttest(d=d, n=n - 1, contrast="two-samples") < 0.8


def test_power_increases_with_queries_and_methods(scores):
    import pingouin

    res = pdireval.query_set_size(scores, method=["ttest", "anova", "rm_anova", "ci"], min_difference=0.05)
    assert list(res["method"])[:4] == ["ttest", "anova", "rm_anova", "ci"]
    for row in res[res["method"].isin(["anova", "rm_anova"])].itertuples():
        f2 = 0.05**2 / (2 * row.n_systems * row.variance)
        eta2 = f2 / (1 + f2)
        n = int(row.n_queries)
        power = (pingouin.power_anova(eta_squared=eta2, k=row.n_systems, n=np.arange(2, n + 1)) if row.method == "anova"
                 else [pingouin.power_rm_anova(eta_squared=eta2, m=row.n_systems, n=k, corr=0.0) for k in range(2, n + 1)])
        power = np.asarray(power)
        assert (np.diff(power) > 0).all()  # power grows with the number of queries
        assert power[-1] >= 0.8 > power[-2]
    ci = res[res["method"] == "ci"].iloc[0]
    sd = np.sqrt(2 * ci["variance"])
    n = int(ci["n_queries"])
    assert _expected_width(n, sd, 0.05) <= 0.05 < _expected_width(n - 1, sd, 0.05)
    assert ci["expected_ci_width"] == pytest.approx(_expected_width(n, sd, 0.05))
    assert np.isnan(ci["achieved_power"])


def test_ci_factor_is_the_mean_of_the_sample_sd():
    n = np.array([2, 5, 30, 200])
    ref = scipy.stats.chi(n - 1).mean() / np.sqrt(n - 1)
    np.testing.assert_allclose(_ci_factor(n), ref, rtol=1e-12)


def test_bad_input(scores):
    with pytest.raises(OptionError, match="method"):
        pdireval.query_set_size(scores, method="anova2")
    with pytest.raises(OptionError, match="min_difference"):
        pdireval.query_set_size(scores, min_difference=0)
    with pytest.raises(OptionError, match="power"):
        pdireval.query_set_size(scores, power=1.0)


def test_robust03_sizes_against_pingouin_and_statsmodels(robust03):
    import pingouin
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    run, qrels = robust03
    scores = pdireval.evaluate(run, "AP", qrels=qrels)
    res = pdireval.query_set_size(scores, method=["ttest", "anova"], min_difference=0.05,
                                  variance="two-way").set_index("method")
    table = anova_lm(smf.ols("value ~ C(system) + C(query)", data=scores).fit())
    var = table.loc["Residual", "mean_sq"]
    assert res.loc["ttest", "variance"] == pytest.approx(var)
    d = 0.05 / np.sqrt(2 * var)
    assert res.loc["ttest", "n_queries"] == np.ceil(pingouin.power_ttest(d=d, power=0.8, contrast="paired"))
    f2 = 0.05**2 / (2 * 17 * var)
    n = pingouin.power_anova(eta_squared=f2 / (1 + f2), k=17, power=0.8)
    assert res.loc["anova", "n_queries"] == np.ceil(n)
