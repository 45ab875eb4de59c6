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


def test_variance_is_the_two_way_anova_residual(scores):
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    res = pdireval.query_set_size(scores)
    ap = scores[scores["measure"] == "AP"]
    table = anova_lm(smf.ols("value ~ C(system) + C(query)", data=ap).fit())
    assert res.iloc[0]["variance"] == pytest.approx(table.loc["Residual", "mean_sq"])
    assert list(res["measure"]) == ["AP", "P@10"]


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
    res = pdireval.query_set_size(scores, method=["ttest", "anova"], min_difference=0.05).set_index("method")
    table = anova_lm(smf.ols("value ~ C(system) + C(query)", data=scores).fit())
    var = table.loc["Residual", "mean_sq"]
    assert res.loc["ttest", "variance"] == pytest.approx(var)
    d = 0.05 / np.sqrt(2 * var)
    assert res.loc["ttest", "n_queries"] == np.ceil(pingouin.power_ttest(d=d, power=0.8, contrast="paired"))
    f2 = 0.05**2 / (2 * 17 * var)
    n = pingouin.power_anova(eta_squared=f2 / (1 + f2), k=17, power=0.8)
    assert res.loc["anova", "n_queries"] == np.ceil(n)
