"""Calibration: under a true null hypothesis the paired tests reject at their nominal level, and
the multiple-comparison corrections control the error rate they promise.

These are checks of statistical truth, not of our own implementation: each expected rate comes
from the theory of the procedure (the test's exact size, 1 − (1 − α/m)^m for Bonferroni on m
independent tests, π0·α for Benjamini–Hochberg, …), never from pdireval. Every check simulates K
independent experiments at once (arrays of queries × experiments; the array-level tests take one
column per experiment) and accepts a rejection rate within a binomial tolerance of Z standard
errors around the truth. Z = 4 makes a false alarm of one check about 6e-5; the simulations are
seeded, so the suite is deterministic.

Null model: the systems are exchangeable within each query — score = query effect + independent
noise, no system effect. "normal": Gaussian noise (the t-test is then exact); "ir": scores
clipped to [0, 1], so many queries score exactly 0 or 1 for both systems (ties, zero
differences, skew: the case of real per-query IR scores).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from pdireval.stats.corrections import adjust_pvalues
from pdireval.stats.paired_tests import (
    bootstrap_test,
    paired_t,
    randomization_test,
    sign_test,
    tukey_hsd,
    wilcoxon,
)

ALPHAS = (0.01, 0.05, 0.10)
Z = 4.0  # tolerance in standard errors of the simulated rate
K = 4000  # simulated experiments per check
N_QUERIES = 50


def null_scores(rng, n_queries, n_experiments, n_systems=2, kind="normal"):
    """Scores (n_systems, n_queries, n_experiments) with a query effect and no system effect."""
    query = rng.beta(2.0, 5.0, size=(1, n_queries, n_experiments))
    if kind == "normal":
        return query + rng.normal(0.0, 0.1, size=(n_systems, n_queries, n_experiments))
    noise = rng.normal(0.0, 0.25, size=(n_systems, n_queries, n_experiments))
    return np.clip(query - 0.1 + noise, 0.0, 1.0)


def assert_rate(rejected, expected, what):
    """The share of ``rejected`` (bool, one per experiment) is within Z standard errors of
    ``expected`` (a rate, or one rejection probability per experiment)."""
    rejected = np.asarray(rejected, dtype=bool)
    expected = np.broadcast_to(np.asarray(expected, dtype=np.float64), rejected.shape)
    k = rejected.size
    rate, truth = rejected.mean(), expected.mean()
    se = np.sqrt((expected * (1.0 - expected)).sum()) / k
    assert abs(rate - truth) <= Z * se, (
        f"{what}: rejection rate {rate:.4f} over {k} null experiments, expected {truth:.4f} "
        f"± {Z * se:.4f}"
    )


def batched(test, a, b, *, n_batches=40, **kwargs):
    """p-values of a resampling test, experiments in batches with their own seed, so that the
    experiments do not all share one set of resamples."""
    parts = np.array_split(np.arange(a.shape[1]), n_batches)
    return np.concatenate([test(a[:, i], b[:, i], rng=seed, **kwargs).p_value for seed, i in enumerate(parts)])


@pytest.fixture(scope="module", params=["normal", "ir"])
def null_pair(request):
    rng = np.random.default_rng(20261123 if request.param == "normal" else 20261124)
    a, b = null_scores(rng, N_QUERIES, K, kind=request.param)
    return request.param, a, b


# ------------------------------------------------------------------------ the paired tests


def test_paired_t_is_exact_under_normal_differences():
    rng = np.random.default_rng(1)
    a, b = null_scores(rng, N_QUERIES, K, kind="normal")
    p = paired_t(a, b).p_value
    for alpha in ALPHAS:
        assert_rate(p < alpha, alpha, f"paired t, alpha={alpha}")
    # p-values of an exact test are uniform: a Kolmogorov–Smirnov check of the whole distribution
    assert stats.kstest(p, "uniform").pvalue > 1e-4


def test_paired_t_is_close_to_nominal_on_ir_like_scores():
    rng = np.random.default_rng(2)
    a, b = null_scores(rng, N_QUERIES, K, kind="ir")
    p = paired_t(a, b).p_value
    for alpha in ALPHAS:
        assert_rate(p < alpha, alpha, f"paired t (ir scores), alpha={alpha}")


def test_wilcoxon_rejects_at_alpha(null_pair):
    kind, a, b = null_pair
    p = wilcoxon(a, b).p_value
    for alpha in ALPHAS:
        assert_rate(p < alpha, alpha, f"Wilcoxon ({kind}), alpha={alpha}")


def _sign_test_size(n_nonzero, alpha):
    """Exact size of the two-sided sign test among n non-zero differences: the probability,
    under Binomial(n, 1/2), of the counts whose p-value min(1, 2·P(X ≥ max(k, n − k))) is < α."""
    out = np.zeros(len(n_nonzero))
    for n in np.unique(n_nonzero):
        k = np.arange(n + 1)
        p = np.minimum(1.0, 2.0 * stats.binom.sf(np.maximum(k, n - k) - 1, n, 0.5))
        out[n_nonzero == n] = stats.binom.pmf(k, n, 0.5)[p < alpha].sum() if n > 0 else 0.0
    return out


def test_sign_test_has_its_exact_size(null_pair):
    """The sign test is discrete: its size is the binomial mass of the rejected counts (about
    0.03 at α = 0.05 with 50 queries), given each experiment's number of non-tied queries."""
    kind, a, b = null_pair
    p = sign_test(a, b).p_value
    n_nonzero = (a != b).sum(axis=0)
    for alpha in ALPHAS:
        assert_rate(p < alpha, _sign_test_size(n_nonzero, alpha), f"sign test ({kind}), alpha={alpha}")


def test_randomization_test_rejects_at_alpha(null_pair):
    """Monte-Carlo randomisation (B = 1000): p = (1 + #{|Σ s z| ≥ |Σ z|}) / (B + 1) < α has
    probability ⌈α(B + 1)⌉ − 1 over B + 1 (the observed sum is exchangeable with the B
    resampled ones), i.e. α to within 1/(B + 1)."""
    kind, a, b = null_pair
    n_res = 1000
    p = batched(randomization_test, a, b, n_resamples=n_res)
    for alpha in ALPHAS:
        size = (np.ceil(alpha * (n_res + 1) - 1e-9) - 1) / (n_res + 1)
        assert_rate(p < alpha, size, f"randomisation test ({kind}), alpha={alpha}")


def test_exact_randomization_test_has_its_exact_size():
    """With 10 queries all 2^10 sign vectors are enumerated. The counts come in ± pairs, so
    p = 2j / 1024 with j uniform on 1..512 under the null: P(p < α) = (⌈512 α⌉ − 1) / 512."""
    rng = np.random.default_rng(3)
    a, b = null_scores(rng, 10, K, kind="normal")
    p = randomization_test(a, b, n_resamples=2**10, rng=0).p_value
    for alpha in ALPHAS:
        assert_rate(p < alpha, (np.ceil(512 * alpha) - 1) / 512, f"exact randomisation, alpha={alpha}")


def test_bootstrap_test_rejects_at_about_alpha(null_pair):
    """Sakai's studentised bootstrap (B = 1000) is an approximate test: its size at 50 queries
    is within the binomial tolerance of α."""
    kind, a, b = null_pair
    p = batched(bootstrap_test, a, b, n_resamples=1000)
    for alpha in ALPHAS:
        assert_rate(p < alpha, alpha, f"bootstrap test ({kind}), alpha={alpha}")


def test_tukey_hsd_controls_the_family_wise_error():
    """Randomised Tukey HSD over 5 systems (10 pairs): the probability that *any* pair is
    declared significant is α (max − min of the system means is exchangeable with its
    row-permuted copies under the null)."""
    rng = np.random.default_rng(4)
    n_exp, n_sys, n_q = 1500, 5, 30
    x = null_scores(rng, n_q, n_exp, n_systems=n_sys, kind="normal")
    upper = np.triu_indices(n_sys, 1)
    min_p = np.array([tukey_hsd(x[:, :, e].T, n_resamples=400, rng=e)[upper].min() for e in range(n_exp)])
    for alpha in (0.05, 0.10):
        assert_rate(min_p < alpha, alpha, f"Tukey HSD family-wise error, alpha={alpha}")
    # the per-pair t-test without correction does not control it (so the check above has teeth)
    pairs_p = paired_t(x[upper[0]].transpose(1, 0, 2).reshape(n_q, -1),
                       x[upper[1]].transpose(1, 0, 2).reshape(n_q, -1)).p_value.reshape(len(upper[0]), n_exp)
    assert (pairs_p.min(axis=0) < 0.05).mean() > 0.05 + Z * np.sqrt(0.05 * 0.95 / n_exp)


# ------------------------------------------------------------------------- the corrections


@pytest.fixture(scope="module")
def families():
    """K families of m = 10 paired t-tests on independent data (exactly uniform null p-values):
    ``null`` all true hypotheses; ``mixed`` the first m1 = 4 false (a large system effect, always
    rejected), the other m0 = 6 true."""
    rng = np.random.default_rng(5)
    m, m1, n = 10, 4, 30
    x = null_scores(rng, n, K * (m + m1), kind="normal")
    p = paired_t(x[0], x[1]).p_value.reshape(K, m + m1)
    null = p[:, :m]
    effect = 0.2  # 0.2 / (0.1·√2 / √30) ≈ 11 standard errors
    y = null_scores(rng, n, K * m1, kind="normal")
    false = paired_t(y[0], y[1] + effect).p_value.reshape(K, m1)
    mixed = np.concatenate([false, p[:, m : m + m - m1]], axis=1)
    return null, mixed, m1


def _adjusted(p, method):
    return np.stack([adjust_pvalues(row, method) for row in p])


@pytest.mark.parametrize("alpha", (0.05, 0.10))
def test_corrections_under_the_global_null(families, alpha):
    """All m = 10 hypotheses true: Bonferroni and Holm reject anything iff min p < α/m,
    probability 1 − (1 − α/m)^m; Benjamini–Hochberg's FDR (here equal to its FWER) is exactly α
    for independent tests (Simes' equality)."""
    null, _, _ = families
    m = null.shape[1]
    bonferroni_fwer = 1 - (1 - alpha / m) ** m
    for method, truth in (("bonferroni", bonferroni_fwer), ("holm", bonferroni_fwer), ("bh", alpha)):
        rejected_any = (_adjusted(null, method) < alpha).any(axis=1)
        assert_rate(rejected_any, truth, f"{method}, global null, alpha={alpha}")
    # without a correction the family-wise error is far above alpha (the checks have teeth)
    assert_rate((null < alpha).any(axis=1), 1 - (1 - alpha) ** m, f"uncorrected, alpha={alpha}")


@pytest.mark.parametrize("alpha", (0.05, 0.10))
def test_corrections_with_false_hypotheses(families, alpha):
    """m1 = 4 false hypotheses (always rejected) and m0 = 6 true ones. Bonferroni's FWER is
    1 − (1 − α/m)^m0; Holm's, once the false ones are out, 1 − (1 − α/m0)^m0 (≤ α, and larger
    than Bonferroni's: Holm is the more powerful); BH's FDR is π0·α = (m0/m)·α."""
    _, p, m1 = families
    m = p.shape[1]
    m0 = m - m1
    for method in ("bonferroni", "holm", "bh"):
        assert (_adjusted(p, method)[:, :m1] < alpha).all(), f"{method} missed a false hypothesis"
    bonf = (_adjusted(p, "bonferroni")[:, m1:] < alpha).any(axis=1)
    assert_rate(bonf, 1 - (1 - alpha / m) ** m0, f"Bonferroni FWER, alpha={alpha}")
    holm = (_adjusted(p, "holm")[:, m1:] < alpha).any(axis=1)
    assert_rate(holm, 1 - (1 - alpha / m0) ** m0, f"Holm FWER, alpha={alpha}")
    rejected = _adjusted(p, "bh") < alpha
    fdp = rejected[:, m1:].sum(axis=1) / np.maximum(rejected.sum(axis=1), 1)
    se = fdp.std(ddof=1) / np.sqrt(len(fdp))
    assert abs(fdp.mean() - m0 / m * alpha) <= Z * se, (
        f"BH false discovery rate {fdp.mean():.4f}, expected {m0 / m * alpha:.4f} ± {Z * se:.4f}"
    )
