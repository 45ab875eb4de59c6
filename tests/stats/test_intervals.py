"""Intervals of means (pdireval.stats.intervals): equal to scipy / statsmodels, and coverage."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pdireval.stats.intervals import (
    anova_interval,
    bootstrap_interval,
    column_quantiles,
    degenerate_columns,
    t_interval,
)
from pdireval.stats.paired_tests import bootstrap_counts


def test_t_interval_equals_scipy():
    rng = np.random.default_rng(1)
    x = rng.beta(2, 5, size=(25, 7))
    mean, sd, n = x.mean(axis=0), x.std(axis=0, ddof=1), np.full(7, 25)
    se, low, high = t_interval(mean, sd, n, 0.9)
    for j in range(7):
        lo, hi = stats.t.interval(0.9, 24, loc=mean[j], scale=stats.sem(x[:, j]))
        assert low[j] == pytest.approx(lo, rel=1e-12)
        assert high[j] == pytest.approx(hi, rel=1e-12)
        assert se[j] == pytest.approx(stats.sem(x[:, j]), rel=1e-12)


def test_anova_interval_equals_statsmodels():
    smf = pytest.importorskip("statsmodels.formula.api")
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(2)
    n, m = 15, 6
    x = rng.normal(size=(n, m)) + rng.normal(size=(n, 1)) + np.arange(m) * 0.3
    long = pd.DataFrame({"value": x.ravel(), "query": np.repeat(np.arange(n), m).astype(str),
                         "system": np.tile(np.arange(m), n).astype(str)})
    table = sm.stats.anova_lm(smf.ols("value ~ C(system) + C(query)", data=long).fit())
    v_e = table.loc["Residual", "mean_sq"]
    df = table.loc["Residual", "df"]
    moe = stats.t.ppf(0.975, df) * np.sqrt(v_e / n)
    mean, se, low, high = anova_interval(x, 0.95)
    assert df == (n - 1) * (m - 1)
    np.testing.assert_allclose(high - mean, moe, rtol=1e-10)
    np.testing.assert_allclose(mean - low, moe, rtol=1e-10)
    np.testing.assert_allclose(se, np.sqrt(v_e / n), rtol=1e-10)


SCIPY_RNG = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"


@pytest.mark.parametrize("interval", ["percentile", "bca"])
def test_bootstrap_agrees_with_scipy(interval):
    rng = np.random.default_rng(3)
    x = rng.gamma(2.0, 0.1, size=(40, 3))
    b = 20000
    counts = bootstrap_counts(np.random.default_rng(4), 40, b)
    se, low, high = bootstrap_interval(x, counts, 0.95, interval)
    for j in range(3):
        # scipy >= 1.15 spells the generator rng=, the oldest scipy we support random_state=
        seed = {SCIPY_RNG: np.random.default_rng(5 + j)}
        res = stats.bootstrap((x[:, j],), np.mean, n_resamples=b, method=interval, **seed)
        sem = stats.sem(x[:, j])
        # Monte-Carlo sd of a 2.5% quantile with B = 20000 is about 0.02 se per estimate
        assert abs(low[j] - res.confidence_interval.low) < 0.15 * sem
        assert abs(high[j] - res.confidence_interval.high) < 0.15 * sem
        assert se[j] == pytest.approx(res.standard_error, rel=0.05)


def test_bootstrap_equals_plain_loop():
    rng = np.random.default_rng(6)
    x = rng.random((12, 4))
    x[3, 1] = np.nan  # a NaN value is skipped in every resample, as in the mean
    idx = np.random.default_rng(7).integers(0, 12, size=(300, 12))
    counts = bootstrap_counts(np.random.default_rng(7), 12, 300)
    se, low, high = bootstrap_interval(x, counts, 0.9, "percentile")
    for j in range(4):
        reps = np.array([np.nanmean(x[row, j]) for row in idx])
        assert low[j] == pytest.approx(np.quantile(reps, 0.05), rel=1e-12)
        assert high[j] == pytest.approx(np.quantile(reps, 0.95), rel=1e-12)
        assert se[j] == pytest.approx(reps.std(ddof=1), rel=1e-10)


def test_degenerate_columns_give_nan():
    x = np.array([[1.0, 0.2, 0.5], [1.0, 0.4, np.nan], [1.0, 0.9, np.nan]])
    assert degenerate_columns(x).tolist() == [True, False, True]
    counts = bootstrap_counts(np.random.default_rng(0), 3, 50)
    _, low, high = bootstrap_interval(x, counts, 0.95)
    assert np.isnan(low[[0, 2]]).all() and np.isfinite(low[1])
    _, low, _ = t_interval([1.0, 0.5], [0.0, np.nan], [3, 1], 0.95)
    assert np.isnan(low).all()
    _, _, low, _ = anova_interval(np.ones((4, 3)) + np.arange(3), 0.95)  # additive: V_E = 0
    assert np.isnan(low).all()


def test_column_quantiles_equal_numpy():
    rng = np.random.default_rng(8)
    x = np.sort(rng.random((37, 5)), axis=0)
    q = np.array([0.0, 0.1, 0.5, 0.975, 1.0])
    got = column_quantiles(x, np.full(5, 37), q)
    want = [np.quantile(x[:, j], q[j]) for j in range(5)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


# --------------------------------------------------------------------------- coverage
N_SIM = 2000


def _binomial_ok(hits, lo, hi):
    rate = hits.mean()
    assert lo <= rate <= hi, rate


def test_t_coverage():
    rng = np.random.default_rng(11)
    n, true = 30, 0.4
    x = true + rng.normal(0, 0.2, size=(n, N_SIM))
    _, low, high = t_interval(x.mean(axis=0), x.std(axis=0, ddof=1), np.full(N_SIM, n), 0.95)
    _binomial_ok((low <= true) & (true <= high), 0.93, 0.97)


def test_anova_coverage():
    # x_ts = mu_s + q_t + e_ts with the queries a fixed effect (Sakai's model): the interval
    # is for mu_s + mean(q_t) over the queries drawn in that simulation.
    rng = np.random.default_rng(12)
    n, m = 25, 4
    mu = np.array([0.2, 0.3, 0.35, 0.5])
    hits = []
    for _ in range(N_SIM):
        q = rng.normal(0, 0.15, size=(n, 1))
        x = mu + q + rng.normal(0, 0.1, size=(n, m))
        _, _, low, high = anova_interval(x, 0.95)
        truth = mu + q.mean()
        hits.append(((low <= truth) & (truth <= high)).mean())
    _binomial_ok(np.array(hits), 0.93, 0.97)


@pytest.mark.parametrize("interval", ["percentile", "bca"])
def test_bootstrap_coverage(interval):
    rng = np.random.default_rng(13)
    n, true, chunk = 50, 0.3, 200
    hits = []
    for _ in range(0, N_SIM, chunk):
        x = true + rng.normal(0, 0.2, size=(n, chunk))
        counts = bootstrap_counts(rng, n, 1000)
        _, low, high = bootstrap_interval(x, counts, 0.95, interval)
        hits.append((low <= true) & (true <= high))
    _binomial_ok(np.concatenate(hits), 0.93, 0.97)
