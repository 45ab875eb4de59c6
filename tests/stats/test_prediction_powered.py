"""Prediction-powered inference and the Rogan–Gladen correction (pdireval.stats.prediction_powered): equal to
ppi-python, the paired form equal to PPI on the differences, stratified PPI equal to its
definition on ppi-python's per-stratum numbers, the delta-method variance against Monte Carlo,
and the intervals' coverage with a known truth."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from pdireval.errors import OptionError
from pdireval.stats.prediction_powered import (
    ppi_mean,
    ppi_mean_differences,
    ppi_mean_stratified,
    rogan_gladen,
)


def _data(seed, n=40, big_n=300, k=5, bias=0.05, noise=0.1):
    rng = np.random.default_rng(seed)
    truth = rng.beta(2, 3, size=(n + big_n, k)) + np.linspace(0, 0.2, k)
    pred = np.clip(truth + rng.normal(bias, noise, size=truth.shape), 0, 1.5)
    return truth[:n], pred[:n], pred[n:]


def _ppi_py():
    pytest.importorskip("ppi_py", reason="ppi-python is the reference (pip install ppi-python)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import ppi_py
    return ppi_py


def _reference(ppi_py, y, yhat, u, lam, alpha):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = float(np.ravel(ppi_py.ppi_mean_pointestimate(y, yhat, u, lam=lam))[0])
        low, high = ppi_py.ppi_mean_ci(y, yhat, u, alpha=alpha, lam=lam)
    return est, float(np.ravel(low)[0]), float(np.ravel(high)[0])


@pytest.mark.parametrize("lam", [None, 1.0, 0.0, 0.37])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ppi_mean_equals_ppi_python(lam, seed):
    ppi_py = _ppi_py()
    y, yhat, u = _data(seed, n=15 + 10 * seed, big_n=200 + 50 * seed)
    got = ppi_mean(y, yhat, u, lam=lam, confidence_level=0.9)
    for c in range(y.shape[1]):
        est, low, high = _reference(ppi_py, y[:, c], yhat[:, c], u[:, c], lam, 0.1)
        assert got.estimate[c] == pytest.approx(est, abs=1e-12)
        assert got.ci_low[c] == pytest.approx(low, abs=1e-12)
        assert got.ci_high[c] == pytest.approx(high, abs=1e-12)


def test_power_tuned_lambda_is_the_ppi_plus_plus_formula():
    """λ̂ = Cov_n(Y, Ŷ) / ((1 + n/N) Var_{n+N}(Ŷ)), clipped to [0, 1] (written out here)."""
    y, yhat, u = _data(3, n=30, big_n=120, k=4)
    n, big_n = len(y), len(u)
    for c in range(4):
        cov = np.mean((y[:, c] - y[:, c].mean()) * (yhat[:, c] - yhat[:, c].mean()))
        pooled = np.var(np.concatenate([yhat[:, c], u[:, c]]), ddof=1)
        want = np.clip(cov / ((1 + n / big_n) * pooled), 0, 1)
        assert ppi_mean(y, yhat, u).lam[c] == pytest.approx(want, abs=1e-14)
    # a useless judge (predictions independent of the truth) gets λ̂ near 0
    rng = np.random.default_rng(4)
    noise = rng.random((50, 1))
    assert ppi_mean(rng.random((50, 1)), noise, rng.random((500, 1))).lam[0] < 0.3


@pytest.mark.parametrize("lam", [None, 1.0])
def test_pairs_equal_ppi_on_the_differences(lam):
    y, yhat, u = _data(5, n=25, big_n=150, k=6)
    i, j = np.triu_indices(6, 1)
    got = ppi_mean_differences(y, yhat, u, i, j, lam=lam)
    want = ppi_mean(y[:, i] - y[:, j], yhat[:, i] - yhat[:, j], u[:, i] - u[:, j], lam=lam)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-13)


def test_pairs_equal_ppi_python_on_the_differences():
    ppi_py = _ppi_py()
    y, yhat, u = _data(6, n=20, big_n=90, k=4)
    i, j = np.array([0, 2, 3]), np.array([1, 1, 0])
    got = ppi_mean_differences(y, yhat, u, i, j, lam=None, confidence_level=0.95)
    for p in range(3):
        d = (y[:, i[p]] - y[:, j[p]], yhat[:, i[p]] - yhat[:, j[p]], u[:, i[p]] - u[:, j[p]])
        est, low, high = _reference(ppi_py, *d, None, 0.05)
        assert (got.estimate[p], got.ci_low[p], got.ci_high[p]) == pytest.approx(
            (est, low, high), abs=1e-12
        )


@pytest.mark.parametrize("lam", [None, 1.0])
def test_stratified_equals_the_weighted_per_stratum_ppi_python(lam):
    """Fisch et al. (2024): θ̂ = Σ w_k θ̂_k, se² = Σ w_k² se_k², w_k = (n_k + N_k)/(n + N);
    ppi-python has no stratified estimator, so each stratum's numbers are ppi-python's."""
    ppi_py = _ppi_py()
    y, yhat, u = _data(7, n=60, big_n=400, k=3)
    rng = np.random.default_rng(8)
    s_l, s_u = rng.integers(0, 3, len(y)), rng.integers(0, 3, len(u))
    got = ppi_mean_stratified(y, yhat, u, s_l, s_u, lam=lam, confidence_level=0.9)
    z = 1.6448536269514722  # norm.ppf(0.95)
    total = len(y) + len(u)
    for c in range(3):
        est = var = 0.0
        for k in range(3):
            w = ((s_l == k).sum() + (s_u == k).sum()) / total
            e, low, high = _reference(
                ppi_py, y[s_l == k, c], yhat[s_l == k, c], u[s_u == k, c], lam, 0.1
            )
            est += w * e
            var += w**2 * ((high - low) / (2 * z)) ** 2
        assert got.estimate[c] == pytest.approx(est, abs=1e-12)
        assert got.se[c] == pytest.approx(np.sqrt(var), abs=1e-12)
    pairs = ppi_mean_stratified(y, yhat, u, s_l, s_u, pairs=([0, 1], [2, 2]), lam=lam)
    diff = ppi_mean_stratified(
        y[:, [0, 1]] - y[:, [2]], yhat[:, [0, 1]] - yhat[:, [2]], u[:, [0, 1]] - u[:, [2]],
        s_l, s_u, lam=lam,
    )
    np.testing.assert_allclose(pairs.estimate, diff.estimate, atol=1e-13)
    np.testing.assert_allclose(pairs.se, diff.se, atol=1e-13)


def test_degenerate_cases():
    y, yhat, u = _data(9, n=1, big_n=30, k=2)
    one = ppi_mean(y, yhat, u)
    assert np.isfinite(one.estimate).all() and np.isnan(one.se).all() and np.isnan(one.ci_low).all()
    y, yhat, _ = _data(9, n=12, big_n=0, k=2)
    none = ppi_mean(y, yhat, np.empty((0, 2)))
    np.testing.assert_allclose(none.estimate, y.mean(axis=0))
    assert (none.lam == 0).all()
    assert np.isnan(ppi_mean(y, yhat, np.empty((0, 2)), lam=1.0).estimate).all()
    const = ppi_mean(y, np.ones_like(y), np.ones((40, 2)))  # predictions that never vary
    np.testing.assert_allclose(const.estimate, y.mean(axis=0), atol=1e-15)
    assert (const.lam == 0).all()
    with pytest.raises(OptionError, match="same shape"):
        ppi_mean(y, yhat[:5], u)
    with pytest.raises(OptionError, match="NaN"):
        ppi_mean(np.array([np.nan, 1.0]), np.array([0.0, 1.0]), np.zeros(3))
    with pytest.raises(OptionError, match="empty"):
        ppi_mean(np.empty((0, 1)), np.empty((0, 1)), np.zeros((3, 1)))


# ----------------------------------------------------------------------- coverage (known truth)
N_SIM = 2000


@pytest.mark.parametrize("lam", [None, 1.0])
def test_ppi_covers_the_true_mean(lam):
    """K simulated experiments at once (one column each): a biased, noisy judge whose LLM scores
    are off by +0.08 on average; the naive LLM mean misses the truth, PPI's 90% interval covers
    it at about the nominal rate (within 4 binomial standard errors)."""
    rng = np.random.default_rng(20261206)
    n, big_n, true = 80, 800, 0.4
    truth = true + rng.normal(0, 0.15, size=(n + big_n, N_SIM))
    pred = 0.7 * truth + 0.2 + rng.normal(0, 0.08, size=truth.shape)  # mean 0.48
    res = ppi_mean(truth[:n], pred[:n], pred[n:], lam=lam, confidence_level=0.9)
    hits = (res.ci_low <= true) & (true <= res.ci_high)
    tol = 4 * np.sqrt(0.9 * 0.1 / N_SIM)
    assert abs(hits.mean() - 0.9) <= tol, hits.mean()
    naive_se = pred.std(axis=0) / np.sqrt(n + big_n)
    naive = np.abs(pred.mean(axis=0) - true) <= 1.645 * naive_se
    assert naive.mean() < 0.05  # the uncorrected LLM mean is biased: its interval misses


def test_stratified_ppi_covers_the_true_mean():
    rng = np.random.default_rng(20261207)
    n_l, n_u = np.array([30, 50]), np.array([300, 500])
    means = np.array([0.2, 0.6])
    true = ((n_l + n_u) * means).sum() / (n_l + n_u).sum()  # the population share of each stratum
    parts_y, parts_h, parts_u, s_l, s_u = [], [], [], [], []
    for k in range(2):
        t = means[k] + rng.normal(0, 0.15, size=(n_l[k] + n_u[k], N_SIM))
        p = t + 0.1 * (k + 1) + rng.normal(0, 0.1, size=t.shape)
        parts_y.append(t[: n_l[k]])
        parts_h.append(p[: n_l[k]])
        parts_u.append(p[n_l[k] :])
        s_l += [k] * n_l[k]
        s_u += [k] * n_u[k]
    res = ppi_mean_stratified(
        np.concatenate(parts_y), np.concatenate(parts_h), np.concatenate(parts_u),
        np.array(s_l), np.array(s_u), confidence_level=0.9,
    )
    hits = (res.ci_low <= true) & (true <= res.ci_high)
    assert abs(hits.mean() - 0.9) <= 4 * np.sqrt(0.09 / N_SIM), hits.mean()


# ----------------------------------------------------------------------- Rogan–Gladen


def test_rogan_gladen_hand_values():
    # p = 0.3, Se = 0.8, Sp = 0.9: π = (0.3 + 0.9 - 1) / 0.7 = 0.2 / 0.7
    res = rogan_gladen(0.3, 1000, 0.8, 200, 0.9, 300)
    pi = 0.2 / 0.7
    var = (0.3 * 0.7 / 1000 + pi**2 * 0.8 * 0.2 / 200 + (1 - pi) ** 2 * 0.9 * 0.1 / 300) / 0.49
    assert res.estimate == pytest.approx(pi, abs=1e-15)
    assert res.se == pytest.approx(np.sqrt(var), abs=1e-15)
    assert res.ci_high - res.estimate == pytest.approx(1.959963984540054 * np.sqrt(var))
    chance = rogan_gladen(0.3, 100, 0.5, 10, 0.5, 10)  # Se + Sp = 1: no information
    assert np.isnan(chance.estimate) and np.isnan(chance.se)


def test_rogan_gladen_delta_variance_against_monte_carlo():
    """Draw the apparent rate, Se and Sp as the binomial proportions they are; the spread of
    π̂ over 200,000 draws matches the delta-method standard error within 2%."""
    rng = np.random.default_rng(11)
    pi, se_true, sp_true = 0.3, 0.85, 0.9
    big_n, n_pos, n_neg, draws = 4000, 400, 600, 200_000
    p_true = pi * se_true + (1 - pi) * (1 - sp_true)
    p = rng.binomial(big_n, p_true, draws) / big_n
    se = rng.binomial(n_pos, se_true, draws) / n_pos
    sp = rng.binomial(n_neg, sp_true, draws) / n_neg
    res = rogan_gladen(p, big_n, se, n_pos, sp, n_neg)
    assert res.estimate.mean() == pytest.approx(pi, abs=2e-3)
    one = rogan_gladen(p_true, big_n, se_true, n_pos, sp_true, n_neg)
    assert res.estimate.std() == pytest.approx(float(one.se), rel=0.02)
    covered = (res.ci_low <= pi) & (pi <= res.ci_high)
    assert abs(covered.mean() - 0.95) < 0.01
