"""Westfall-Young maxT and closed testing: loop references from Westfall & Young (1993) on the
same resamples, and calibration (family-wise error on null data, power against Holm)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats as st

from pdireval.errors import OptionError
from pdireval.stats.corrections import adjust_pvalues, canonical_correction
from pdireval.stats.multiplicity import resampling_adjust

# ------------------------------------------------------------------ loop references


def draws(method, n, n_res, seed):
    """The documented resamples, drawn independently of pdireval: the bootstrap index matrix
    ``rng.integers(0, n, (B, n))`` or the sign flips ``2 * rng.integers(0, 2, (B, n)) - 1``
    (all 2^n vectors, bit t of row b = 1 meaning a flip, when 2^n <= B)."""
    rng = np.random.default_rng(seed)
    if method == "bootstrap":
        return rng.integers(0, n, size=(n_res, n)), False
    if 2**n <= n_res:
        rows = [[1.0 - 2.0 * ((b >> t) & 1) for t in range(n)] for b in range(2**n)]
        return np.array(rows), True
    return 2.0 * rng.integers(0, 2, size=(n_res, n)) - 1.0, False


def statistic(z, method):
    """The test statistic of one pair's differences z, from the definitions."""
    n = len(z)
    if method == "randomization":
        return z.sum()
    if method == "t":
        if np.all(z == z[0]):
            return math.copysign(math.inf, z[0]) if z[0] != 0 else 0.0
        return z.mean() / (z.std(ddof=1) / math.sqrt(n))
    nz = z[z != 0]
    if len(nz) == 0:
        return 0.0
    if method == "sign":
        return np.sign(nz).sum() / math.sqrt(len(nz))
    ranks = st.rankdata(np.abs(nz))  # wilcoxon: ranks among the non-zero differences
    return (np.sign(nz) * ranks).sum() / math.sqrt((ranks**2).sum())


def boot_statistic(z, idx):
    """Studentised mean of the null-centred differences drawn by ``idx`` (Sakai 2006)."""
    w = (z - z.mean())[idx]
    if np.all(w == w[0]):
        return math.copysign(math.inf, w[0]) if w[0] != 0 else 0.0
    return w.mean() / (w.std(ddof=1) / math.sqrt(len(w)))


def reference(d, method, n_res, seed, correction="maxt", alternative="two-sided"):
    """Westfall & Young (1993), Algorithm 2.8 (step-down maxT), its single-step form, and
    closed testing with the sum-of-squares local test, one resample and one pair at a time."""
    n, p = d.shape
    resamples, exact = draws(method, n, n_res, seed)
    orient = {"two-sided": abs, "greater": lambda v: v, "less": lambda v: -v}[alternative]
    obs = np.array(
        [
            orient(statistic(d[:, k], method))
            if method != "bootstrap"
            else orient(statistic(d[:, k], "t"))
            for k in range(p)
        ]
    )
    b_count = len(resamples)
    rep = np.empty((b_count, p))
    for b in range(b_count):
        for k in range(p):
            if method == "bootstrap":
                rep[b, k] = orient(boot_statistic(d[:, k], resamples[b]))
            else:
                rep[b, k] = orient(statistic(resamples[b] * d[:, k], method))
    tol = 1e-9 * np.maximum(np.abs(np.where(np.isfinite(obs), obs, 0)), 1e-300)

    def ratio(count):
        if exact or method == "bootstrap":
            return count / b_count
        return (count + 1) / (b_count + 1)

    if correction == "maxt-single":
        return np.array(
            [ratio(sum(rep[b].max() >= obs[k] - tol[k] for b in range(b_count))) for k in range(p)]
        )
    if correction == "closed":
        pos = np.clip(obs, 0, 1e150)
        adj = np.zeros(p)
        for size in range(1, p + 1):
            for subset in itertools.combinations(range(p), size):
                s = list(subset)
                t_obs = (pos[s] ** 2).sum()
                count = sum(
                    (np.clip(rep[b, s], 0, 1e150) ** 2).sum() >= t_obs * (1 - 1e-9)
                    for b in range(b_count)
                )
                for k in s:
                    adj[k] = max(adj[k], ratio(count))
        return adj
    order = sorted(range(p), key=lambda k: -obs[k])
    adj = np.empty(p)
    running = 0.0
    for i, k in enumerate(order):
        count = 0
        for b in range(b_count):
            if max(rep[b, order[j]] for j in range(i, p)) >= obs[k] - tol[k]:
                count += 1
        running = max(running, ratio(count))
        adj[k] = running
    return adj


def differences(n=20, m=4, seed=0, shift=0.3):
    """Per-query differences of all pairs of m correlated systems (a shared query effect)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 1)) + 0.5 * rng.normal(size=(n, m)) + np.linspace(0, shift, m)
    i, j = np.triu_indices(m, 1)
    return x[:, i] - x[:, j]


# --------------------------------------------------------------------- reference checks


@pytest.mark.parametrize("method", ["t", "randomization", "wilcoxon", "sign", "bootstrap"])
@pytest.mark.parametrize("correction", ["maxt", "maxt-single", "closed"])
def test_equals_westfall_young_reference(method, correction):
    d = differences(n=15, m=4, seed=1, shift=0.8)
    d[:3] = np.round(d[:3], 1)  # ties and zero differences for the rank tests
    d[0, 1] = 0.0
    got = resampling_adjust(d, method=method, correction=correction, n_resamples=300, rng=7)
    want = reference(d, method, 300, 7, correction)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_equals_reference(alternative):
    d = differences(n=12, m=3, seed=4, shift=0.6)
    for method in ("t", "bootstrap"):
        got = resampling_adjust(d, method=method, alternative=alternative, n_resamples=250, rng=2)
        np.testing.assert_allclose(
            got, reference(d, method, 250, 2, "maxt", alternative), rtol=0, atol=1e-12
        )


def test_exact_enumeration_equals_reference():
    """2^n <= B: every sign vector once, p = count / 2^n."""
    d = differences(n=8, m=3, seed=2, shift=1.0)
    got = resampling_adjust(d, method="randomization", n_resamples=1000, rng=0)
    np.testing.assert_allclose(got, reference(d, "randomization", 1000, 0), rtol=0, atol=1e-12)
    assert np.all(np.round(got * 256) == got * 256)


def test_step_down_properties():
    """Step-down never exceeds single-step, never falls below the unadjusted (one-pair)
    p-value, and is monotone in the observed statistic; a pair of identical systems gets 1."""
    d = differences(n=25, m=5, seed=3, shift=0.6)
    d[:, 2] = 0.0
    down = resampling_adjust(d, method="t", n_resamples=2000, rng=1)
    single = resampling_adjust(d, method="t", correction="maxt-single", n_resamples=2000, rng=1)
    alone = np.array(
        [resampling_adjust(d[:, k], method="t", n_resamples=2000, rng=1)[0] for k in range(10)]
    )
    assert np.all(down <= single + 1e-12)
    assert np.all(down >= alone - 1e-12)
    assert down[2] == 1.0
    t = np.abs(d.mean(axis=0) / (d.std(axis=0, ddof=1) + 1e-300))
    order = np.argsort(-t)
    assert np.all(np.diff(down[order]) >= -1e-12)


def test_chunked_equals_unchunked(monkeypatch):
    import pdireval.stats.multiplicity as mult

    d = differences(n=20, m=5, seed=5)
    whole = resampling_adjust(d, method="bootstrap", n_resamples=500, rng=3)
    monkeypatch.setattr(mult, "CHUNK_CELLS", 4 * 10 * 3)  # chunks of 3 resamples
    np.testing.assert_array_equal(
        resampling_adjust(d, method="bootstrap", n_resamples=500, rng=3), whole
    )


def test_errors():
    d = differences(n=10, m=5)  # 10 pairs
    with pytest.raises(OptionError, match="correction='maxt'"):
        resampling_adjust(d, correction="closed")
    with pytest.raises(OptionError, match="complete"):
        resampling_adjust(np.where(d > 1, np.nan, d))
    with pytest.raises(OptionError, match="compare"):
        adjust_pvalues([0.1, 0.2], "maxt")
    with pytest.raises(OptionError, match="method"):
        resampling_adjust(d, method="tukey")
    assert canonical_correction("Westfall-Young", resampling=True) == "maxt"


# ------------------------------------------------------------------------ calibration


def correlated_systems(rng, n, m, effects):
    """Queries x systems: a strong shared query effect, small system noise, system effects."""
    return 2.0 * rng.normal(size=(n, 1)) + 0.4 * rng.normal(size=(n, m)) + effects


def test_family_wise_error_on_null_data():
    """No system differs: the share of simulations with any rejection at alpha = 0.1 stays at
    or below alpha within 3 Monte-Carlo standard errors (Westfall & Young 1993: strong
    control under subset pivotality)."""
    rng = np.random.default_rng(11)
    alpha, n_sim, m = 0.1, 300, 5
    i, j = np.triu_indices(m, 1)
    errors = 0
    for s in range(n_sim):
        x = correlated_systems(rng, 25, m, np.zeros(m))
        errors += (resampling_adjust(x[:, i] - x[:, j], n_resamples=200, rng=s) <= alpha).any()
    rate = errors / n_sim
    assert rate <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / n_sim)
    assert rate >= 0.02  # not vacuously conservative


def test_power_at_least_holm_on_correlated_systems():
    """Correlated comparisons: maxT rejects at least as many false nulls as Holm on the same
    tests (Holm ignores the correlation)."""
    rng = np.random.default_rng(5)
    alpha, m = 0.05, 6
    i, j = np.triu_indices(m, 1)
    effects = np.array([0.0, 0.0, 0.15, 0.15, 0.3, 0.3])
    false_null = effects[i] != effects[j]
    maxt = holm = 0
    for s in range(60):
        x = correlated_systems(rng, 30, m, effects)
        d = x[:, i] - x[:, j]
        p_maxt = resampling_adjust(d, method="t", n_resamples=500, rng=s)
        p_holm = adjust_pvalues(st.ttest_1samp(d, 0.0).pvalue, "holm")
        maxt += (p_maxt[false_null] <= alpha).sum()
        holm += (p_holm[false_null] <= alpha).sum()
    assert maxt >= holm
    assert maxt > 0
