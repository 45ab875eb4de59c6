"""compare() with many systems: maxT / closed-testing corrections, method='bayes' against a
Monte-Carlo posterior, and the large-n advice for the Wilcoxon and sign tests."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

import pdireval
from pdireval.errors import OptionError, PdirevalWarning
from pdireval.stats.multiplicity import resampling_adjust
from tests.helpers import random_matrix, scores_from_matrix


def pair_differences(x, result):
    cols = {f"s{j:02d}": j for j in range(x.shape[1])}
    a = result["system_a"].map(cols).to_numpy()
    b = result["system_b"].map(cols).to_numpy()
    return x[:, a] - x[:, b]


@pytest.mark.parametrize("method", ["t", "randomization", "wilcoxon", "sign", "bootstrap"])
def test_maxt_equals_array_level_on_the_same_resamples(method):
    x = random_matrix(30, 5, seed=2)
    scores = scores_from_matrix(x)
    got = pdireval.compare(scores, method=method, correction="maxt", n_resamples=400, rng=9)
    want = resampling_adjust(pair_differences(x, got), method=method, n_resamples=400, rng=9)
    np.testing.assert_array_equal(got["p_adjusted"].to_numpy(), want)
    assert (got["correction"] == "maxt").all()
    assert (got["family_size"] == 10).all()
    # the unadjusted p-values are those of the test without a correction
    plain = pdireval.compare(scores, method=method, n_resamples=400, rng=9)
    np.testing.assert_array_equal(got["p_value"].to_numpy(), plain["p_value"].to_numpy())
    assert (got["p_adjusted"] >= got["p_value"] - 1e-12).all() or method in (
        "t",
        "wilcoxon",
        "sign",
    )


def test_maxt_per_measure_baseline_and_closed():
    x = random_matrix(25, 4, seed=3)
    scores = pd.concat(
        [scores_from_matrix(x, "AP"), scores_from_matrix(x[::-1] * 0.5, "P_10")],
        ignore_index=True,
    )
    out = pdireval.compare(
        scores, method="t", correction="closed", baseline="s00", n_resamples=300, rng=1
    )
    assert list(out["system_b"].unique()) == ["s00"] and len(out) == 6
    ap = out[out["measure"] == "AP"]
    want = resampling_adjust(pair_differences(x, ap), correction="closed", n_resamples=300, rng=1)
    np.testing.assert_array_equal(ap["p_adjusted"].to_numpy(), want)
    single = pdireval.compare(scores, method="t", correction="maxt-single", n_resamples=300, rng=1)
    down = pdireval.compare(scores, method="t", correction="WY", n_resamples=300, rng=1)
    assert (down["p_adjusted"] <= single["p_adjusted"] + 1e-12).all()


def test_maxt_option_errors():
    scores = scores_from_matrix(random_matrix(20, 5, seed=0))
    two = pd.concat([scores, scores.assign(measure="P_10")], ignore_index=True)
    with pytest.raises(OptionError, match="margin"):
        pdireval.compare(scores, method="t", correction="maxt", margin=0.01)
    with pytest.raises(OptionError, match="Tukey"):
        pdireval.compare(scores, method="tukey", correction="maxt")
    with pytest.raises(OptionError, match="family='group'"):
        pdireval.compare(two, method="t", correction="maxt", family="all")
    with pytest.raises(OptionError, match="correction='maxt'"):
        pdireval.compare(scores, method="t", correction="closed", n_resamples=50)
    # one group: family='all' is the group
    one = pdireval.compare(
        scores, method="t", correction="maxt", family="all", rng=0, n_resamples=100
    )
    assert one["p_adjusted"].notna().all()


# ------------------------------------------------------------------------------ bayes


def monte_carlo_posterior(z, margin, level, draws=400_000, seed=0):
    """Brute force: σ² from its scaled inverse-χ² marginal posterior, then μ | σ² normal
    (the normal-inverse-gamma posterior under p(μ, σ²) ∝ 1/σ²; Gelman et al. 2013, 3.2)."""
    rng = np.random.default_rng(seed)
    n = len(z)
    s2 = z.var(ddof=1)
    sigma2 = (n - 1) * s2 / rng.chisquare(n - 1, size=draws)
    mu = rng.normal(z.mean(), np.sqrt(sigma2 / n))
    tail = (1 - level) / 2
    return {
        "prob_a_better": (mu > 0).mean(),
        "prob_rope": (np.abs(mu) < margin).mean(),
        "ci_low": np.quantile(mu, tail),
        "ci_high": np.quantile(mu, 1 - tail),
    }


def test_bayes_matches_monte_carlo_posterior():
    x = random_matrix(15, 3, seed=5)
    x[:, 2] += 0.05
    margin = 0.03
    out = pdireval.compare(
        scores_from_matrix(x), method="bayes", margin=margin, confidence_level=0.9
    )
    d = pair_differences(x, out)
    draws = 400_000
    for k, row in out.reset_index(drop=True).iterrows():
        mc = monte_carlo_posterior(d[:, k], margin, 0.9, draws=draws, seed=k)
        for col in ("prob_a_better", "prob_rope"):
            se = np.sqrt(max(mc[col] * (1 - mc[col]), 1e-6) / draws)
            assert abs(row[col] - mc[col]) < 4 * se + 1e-9, (col, row[col], mc[col])
        width = row["ci_high"] - row["ci_low"]
        assert abs(row["ci_low"] - mc["ci_low"]) < 0.01 * width
        assert abs(row["ci_high"] - mc["ci_high"]) < 0.01 * width
    assert (out["method"] == "bayes").all() and out["p_value"].isna().all()
    assert "p_adjusted" not in out.columns
    # the posterior mean is z̄ and P(a > b) = F_{n-1}(t): the t-test's pivot
    t = pdireval.compare(scores_from_matrix(x), method="t", confidence_level=0.9)
    np.testing.assert_allclose(out["mean_diff"], t["mean_diff"])
    np.testing.assert_allclose(out["prob_a_better"], st.t.cdf(t["statistic"], 14), rtol=1e-12)
    np.testing.assert_allclose(out[["ci_low", "ci_high"]], t[["ci_low", "ci_high"]])


def test_bayes_degenerate_pairs_and_options():
    x = np.tile(np.linspace(0.1, 0.9, 10)[:, None], (1, 3))
    x[:, 1] += 0.02  # constant differences
    out = pdireval.compare(scores_from_matrix(x), method="Bayes", margin=0.05)
    assert out["prob_a_better"].tolist() == [0.0, 0.5, 1.0]
    assert out["prob_rope"].tolist() == [1.0, 1.0, 1.0]
    scores = scores_from_matrix(random_matrix(10, 3))
    for kwargs, match in (
        ({"correction": "holm"}, "not p-values"),
        ({"n_resamples": 100}, "closed-form"),
        ({"alternative": "greater"}, "alternative"),
        ({"margin": -1.0}, "margin"),
    ):
        with pytest.raises(OptionError, match=match):
            pdireval.compare(scores, method="bayes", **kwargs)
    assert "prob_rope" not in pdireval.compare(scores, method="bayes").columns


# ------------------------------------------------------------------------ large-n advice


def test_large_n_warning_once_per_call():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1001, 3))
    scores = pd.concat(
        [scores_from_matrix(x, "AP"), scores_from_matrix(x, "P_10")], ignore_index=True
    )
    with pytest.warns(PdirevalWarning, match="Ihemelandu") as record:
        pdireval.compare(scores, method="sign")
    assert len([w for w in record if issubclass(w.category, PdirevalWarning)]) == 1
    assert "margin=" in str(record[0].message) and "effect" in str(record[0].message)
    assert record[0].filename == __file__  # attributed to the caller's line
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        for _ in range(3):  # one call site: shown once
            pdireval.compare(scores, method="wilcoxon")
    assert len([w for w in seen if issubclass(w.category, PdirevalWarning)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdireval.compare(scores_from_matrix(x[:1000]), method="wilcoxon")  # 1000: no warning
        pdireval.compare(scores, method="t")
