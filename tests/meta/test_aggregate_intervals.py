"""aggregate(confidence_level=, method=): intervals of every mean, on scores frames."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdireval
from pdireval.errors import OptionError, PdirevalWarning, SchemaError
from pdireval.stats.intervals import anova_interval
from tests.helpers import random_matrix, scores_from_matrix


@pytest.fixture
def scores():
    a = scores_from_matrix(random_matrix(n=20, m=5, seed=1, ties=False), measure="AP")
    b = scores_from_matrix(random_matrix(n=20, m=5, seed=2, ties=False), measure="nDCG@10")
    return pd.concat([a, b], ignore_index=True)


def test_default_is_unchanged(scores):
    out = pdireval.aggregate(scores)
    assert list(out.columns) == ["system", "measure", "mean", "std", "n_queries", "summary"]


def test_t_equals_scipy_per_system(scores):
    before = scores.copy()
    out = pdireval.aggregate(scores, confidence_level=0.9)
    pd.testing.assert_frame_equal(scores, before)
    assert list(out.columns[-5:]) == ["se", "ci_low", "ci_high", "ci_method", "confidence_level"]
    assert (out["ci_method"] == "t").all()
    for row in out.itertuples():
        v = scores[(scores.system == row.system) & (scores.measure == row.measure)]["value"]
        lo, hi = stats.t.interval(0.9, len(v) - 1, loc=v.mean(), scale=stats.sem(v))
        assert row.ci_low == pytest.approx(lo, rel=1e-12)
        assert row.ci_high == pytest.approx(hi, rel=1e-12)


def test_anova_per_group(scores):
    out = pdireval.aggregate(scores, method="anova")
    for measure, block in out.groupby("measure", sort=False):
        x = scores[scores.measure == measure].pivot(index="query", columns="system", values="value")
        _, se, low, high = anova_interval(x.to_numpy(), 0.95)
        np.testing.assert_allclose(block["ci_low"], low, rtol=1e-12)
        np.testing.assert_allclose(block["se"], se, rtol=1e-12)
        width = block["ci_high"].sub(block["ci_low"]).to_numpy()
        np.testing.assert_allclose(width, width[0], rtol=1e-12)  # one width per group


def test_bootstrap_shared_resamples_and_seeded(scores):
    one = pdireval.aggregate(scores, method="bootstrap", n_resamples=500, rng=3)
    two = pdireval.aggregate(scores, method="bootstrap", n_resamples=500, rng=3)
    pd.testing.assert_frame_equal(one, two)
    # a group's intervals do not depend on the other groups in the frame
    alone = pdireval.aggregate(scores[scores.measure == "nDCG@10"], method="bootstrap",
                               n_resamples=500, rng=3)
    np.testing.assert_array_equal(alone["ci_low"], one[one.measure == "nDCG@10"]["ci_low"])
    # plain loop over the documented draw: rng.integers(0, n, size=(B, n)) per group
    x = scores[scores.measure == "AP"].pivot(index="query", columns="system", values="value")
    idx = np.random.default_rng(3).integers(0, 20, size=(500, 20))
    reps = np.array([x.to_numpy()[row].mean(axis=0) for row in idx])
    ap = one[one.measure == "AP"]
    np.testing.assert_allclose(ap["ci_low"], np.quantile(reps, 0.025, axis=0), rtol=1e-12)
    bca = pdireval.aggregate(scores, method="bootstrap", bootstrap_interval="bca", rng=3)
    assert (bca["ci_method"] == "bca").all()
    assert (bca["ci_low"] < bca["mean"]).all() and (bca["mean"] < bca["ci_high"]).all()


def test_degenerate_cases_warn_and_give_nan():
    x = random_matrix(n=6, m=3, seed=4, ties=False)
    x[:, 1] = 0.5  # a constant column
    frame = scores_from_matrix(x)
    for method in ("t", "bootstrap"):
        with pytest.warns(PdirevalWarning, match="s01"):
            out = pdireval.aggregate(frame, method=method)
        assert np.isnan(out.loc[1, ["ci_low", "ci_high"]].astype(float)).all()
        assert np.isfinite(out.loc[[0, 2], "ci_low"]).all()
    one = frame[frame["query"] == "q000"]
    with pytest.warns(PdirevalWarning, match="fewer than two"):
        out = pdireval.aggregate(one, method="t")
    assert out["ci_low"].isna().all()
    with pytest.warns(PdirevalWarning, match="residual variance"):
        pdireval.aggregate(one, method="anova")


def test_bad_options(scores):
    with pytest.raises(OptionError, match="method="):
        pdireval.aggregate(scores, method="normal")
    with pytest.raises(OptionError, match="wide=True"):
        pdireval.aggregate(scores, method="t", wide=True)
    with pytest.raises(OptionError, match="confidence_level"):
        pdireval.aggregate(scores, confidence_level=95)
    with pytest.raises(OptionError, match="n_resamples"):
        pdireval.aggregate(scores, method="bootstrap", n_resamples=10**7)
    gappy = scores.drop(index=3)
    with pytest.raises(SchemaError, match="complete"):
        pdireval.aggregate(gappy, method="anova")
    assert pdireval.aggregate(gappy, method="t")["ci_low"].notna().all()  # t needs no matrix


def test_accessor_and_cli(scores, capsys, tmp_path):
    out = scores.ireval.aggregate(method="anova")
    assert "ci_low" in out
    from pdireval.cli import main

    assert main(["evaluate", "--ci", "t", "--format", "csv"]) == 0
    text = capsys.readouterr().out
    assert "ci_low" in text.splitlines()[0]
    assert main(["evaluate", "--ci", "anova"]) == 0
    table = capsys.readouterr().out
    line = next(t for t in table.splitlines() if t.startswith("AP"))
    value, interval = line.split("\t")[2:]
    low, high = (float(v) for v in interval.strip("[]").split(","))
    assert low < float(value) < high


def test_anova_covers_the_mean_on_this_query_set_not_over_queries():
    """Issue 33: the docs now say which mean the ANOVA interval covers. 300 simulated
    collections x_ts = μ_s + β_t + e_ts with queries of varying difficulty β_t: the 95%
    ANOVA interval covers μ_s + mean(β) of the queries at hand about 95% of the time and
    μ_s (the mean over the population of queries) far less; the t interval covers μ_s."""
    rng = np.random.default_rng(0)
    reps, n, m = 300, 30, 4
    mu = np.array([0.2, 0.3, 0.35, 0.5])
    beta = rng.normal(0.0, 0.15, (reps, n))
    x = mu[None, None, :] + beta[:, :, None] + rng.normal(0.0, 0.05, (reps, n, m))
    r, q, s = np.meshgrid(np.arange(reps), np.arange(n), np.arange(m), indexing="ij")
    scores = pd.DataFrame({"system": [f"s{i}" for i in s.ravel()], "query": q.ravel().astype(str),
                           "measure": "M", "collection": r.ravel(), "value": x.ravel()})
    covered = {}
    for method in ("anova", "t"):
        ci = pdireval.aggregate(scores, method=method)
        system = ci["system"].str[1:].astype(int).to_numpy()
        on_these = mu[system] + beta.mean(axis=1)[ci["collection"].to_numpy()]
        for name, target in (("these", on_these), ("population", mu[system])):
            covered[method, name] = ((ci["ci_low"] <= target) & (target <= ci["ci_high"])).mean()
    assert 0.92 <= covered["anova", "these"] <= 0.98
    assert covered["anova", "population"] < 0.6
    assert covered["t", "population"] > 0.88
    doc = " ".join(pdireval.aggregate.__doc__.split())
    assert "**on this query set**, not its mean over queries" in doc
