"""Paired significance tests: worked examples, scipy/pingouin oracles, loop references."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

import pdireval
from pdireval.errors import PdirevalError, SchemaError
from pdireval.stats.corrections import adjust_pvalues
from pdireval.stats.paired_tests import (
    bootstrap_test,
    paired_t,
    randomization_test,
    sign_test,
    tukey_hsd,
    wilcoxon,
)
from tests.helpers import quietly, random_matrix, scores_from_matrix

X_EX = [0.5, 0.6, 0.4, 0.7, 0.55]
Y_EX = [0.45, 0.5, 0.42, 0.6, 0.5]


# ------------------------------------------------------------------ loop references


def loop_bootstrap(z, idx, alpha=None, level=None):
    """Straightforward per-pair loop of Sakai's (2006) bootstrap and required difference on a given index matrix."""
    n = len(z)
    zbar = z.mean()
    sd = z.std(ddof=1)
    if np.all(z == 0):
        asl = 1.0
    elif np.all(z == z[0]):
        asl = 0.0
    else:
        asl = None
    t_obs = abs(zbar) / (sd / math.sqrt(n)) if asl is None else np.nan
    w = z - zbar
    tstar = np.empty(len(idx))
    means = np.empty(len(idx))
    for b in range(len(idx)):
        s = w[idx[b]]
        means[b] = s.mean()
        if np.all(s == s[0]):
            tstar[b] = np.inf if s[0] != 0 else 0.0
        else:
            tstar[b] = abs(s.mean()) / (s.std(ddof=1) / math.sqrt(n))
    if asl is None:
        asl = float(np.sum(tstar >= t_obs)) / len(idx)
    out = {"asl": asl}
    if alpha is not None:
        order = sorted(range(len(idx)), key=lambda b: (-tstar[b], b))
        k = math.ceil(alpha * len(idx) - 1e-9)
        kth = tstar[order[k - 1]]
        first = min(b for b in range(len(idx)) if tstar[b] == kth)
        out["required"] = abs(means[first])
    if level is not None:
        tail = (1 - level) / 2
        out["ci"] = np.quantile(zbar + means, [tail, 1 - tail])
    return out


# ------------------------------------------------------------------ worked example


def test_bootstrap_worked_example_asl():
    res = bootstrap_test(X_EX, Y_EX, n_resamples=1000, rng=42)
    assert res.p_value == pytest.approx(0.075, abs=1e-12)


def test_bootstrap_worked_example_by_loop():
    # the same number from the protocol written out literally
    z = np.array(X_EX) - np.array(Y_EX)
    idx = np.random.default_rng(42).integers(0, 5, size=(1000, 5))
    assert loop_bootstrap(z, idx)["asl"] == pytest.approx(0.075)


def test_compare_bootstrap_worked_example():
    scores = scores_from_matrix(np.column_stack([X_EX, Y_EX]), systems=["x", "y"])
    res = pdireval.compare(scores, method="bootstrap", n_resamples=1000, rng=42)
    assert len(res) == 1
    row = res.iloc[0]
    assert (row.system_a, row.system_b) == ("x", "y")
    assert row.p_value == pytest.approx(0.075)
    assert row.mean_diff == pytest.approx(np.mean(np.subtract(X_EX, Y_EX)))


# ------------------------------------------------------------------ bootstrap vs loop


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bootstrap_vectorized_equals_loop_on_same_draws(seed):
    x = random_matrix(n=15, m=5, seed=seed)
    x[:, 4] = x[:, 3]  # identical systems: all z = 0
    x[:, 1] = np.arange(15) / 16  # dyadic values: the difference below is exactly constant
    x[:, 2] = x[:, 1] + 0.125  # constant non-zero difference
    scores = scores_from_matrix(x)
    B = 300
    res = pdireval.compare(scores, method="bootstrap", n_resamples=B, rng=seed)
    idx = np.random.default_rng(seed).integers(0, 15, size=(B, 15))
    pairs = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    assert list(zip(res.system_a, res.system_b)) == [(f"s{i:02d}", f"s{j:02d}") for i, j in pairs]
    for row, (i, j) in zip(res.itertuples(), pairs):
        ref = loop_bootstrap(x[:, i] - x[:, j], idx, level=0.95)
        assert row.p_value == ref["asl"], (i, j)
        if not np.all(x[:, i] == x[:, j]):
            np.testing.assert_allclose([row.ci_low, row.ci_high], ref["ci"], rtol=1e-9, atol=1e-12)
    assert res.loc[(res.system_a == "s03") & (res.system_b == "s04"), "p_value"].item() == 1.0
    assert res.loc[(res.system_a == "s01") & (res.system_b == "s02"), "p_value"].item() == 0.0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_bootstrap_equals_loop_with_many_degenerate_replicates(n):
    # with very few topics many replicates draw one topic n times (s* = 0, t* = inf or 0)
    x = np.round(random_matrix(n=n, m=6, seed=n, ties=False), 2)
    B = 500
    res = pdireval.compare(scores_from_matrix(x), n_resamples=B, rng=n)
    disc = pdireval.discriminative_power(scores_from_matrix(x), n_resamples=B, rng=n, alpha=0.1)
    idx = np.random.default_rng(n).integers(0, n, size=(B, n))
    refs = []
    for row in res.itertuples():
        i, j = int(row.system_a[1:]), int(row.system_b[1:])
        ref = loop_bootstrap(x[:, i] - x[:, j], idx, alpha=0.1)
        refs.append(ref["required"])
        assert row.p_value == ref["asl"], (i, j)
    assert disc.required_diff.item() == pytest.approx(max(refs), rel=1e-12)


def test_compare_required_diff_per_pair_equals_loop():
    # Sakai's (2006) estimated difference required, per pair, from compare's single bootstrap,
    # against the protocol written out literally on the same draws
    x = random_matrix(n=12, m=5, seed=7)
    B = 200
    res = pdireval.compare(scores_from_matrix(x), required_diff_alpha=0.05, n_resamples=B, rng=3)
    idx = np.random.default_rng(3).integers(0, 12, size=(B, 12))
    for row in res.itertuples():
        i, j = int(row.system_a[1:]), int(row.system_b[1:])
        ref = loop_bootstrap(x[:, i] - x[:, j], idx, alpha=0.05)
        assert row.p_value == ref["asl"]
        assert row.required_diff == pytest.approx(ref["required"], rel=1e-12), (i, j)
    assert (res["required_alpha"] == 0.05).all()


def test_discriminative_power_required_diff_equals_loop():
    x = random_matrix(n=12, m=5, seed=7)
    scores = scores_from_matrix(x)
    B = 200
    res = pdireval.discriminative_power(scores, alpha=0.05, n_resamples=B, rng=3)
    idx = np.random.default_rng(3).integers(0, 12, size=(B, 12))
    refs = [loop_bootstrap(x[:, i] - x[:, j], idx, alpha=0.05) for i in range(5) for j in range(i + 1, 5)]
    assert res.n_pairs.item() == 10
    assert res.n_significant.item() == sum(r["asl"] < 0.05 for r in refs)
    assert res.power.item() == pytest.approx(res.n_significant.item() / 10)
    assert res.required_diff.item() == pytest.approx(max(r["required"] for r in refs), rel=1e-12)


def test_bootstrap_many_pairs_chunked(monkeypatch):
    # chunking over pairs does not change the numbers
    import pdireval.core.chunking as common

    x = random_matrix(n=10, m=12, seed=5)
    scores = scores_from_matrix(x)
    whole = pdireval.compare(scores, n_resamples=100, rng=1)
    monkeypatch.setattr(common, "CHUNK_CELLS", 50)
    chunked = pdireval.compare(scores, n_resamples=100, rng=1)
    pd.testing.assert_frame_equal(whole, chunked)


# ------------------------------------------------------------------ scipy / pingouin oracles


@pytest.mark.parametrize("seed", range(4))
def test_t_matches_scipy_and_pingouin(seed):
    import pingouin

    x = random_matrix(n=25, m=2, seed=seed)
    res = paired_t(x[:, 0], x[:, 1])
    ref = st.ttest_rel(x[:, 0], x[:, 1])
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    pg = pingouin.ttest(x[:, 0], x[:, 1], paired=True)
    assert res.statistic == pytest.approx(float(pg["T"].iloc[0]), rel=1e-6)
    assert res.p_value == pytest.approx(float(pg["p_val"].iloc[0] if "p_val" in pg else pg["p-val"].iloc[0]), rel=1e-6)


def test_t_degenerate_cases():
    assert paired_t([1, 2, 3], [1, 2, 3]) == (0.0, 1.0)
    res = paired_t([1, 2, 3], [0, 1, 2])
    assert res.statistic == np.inf and res.p_value == 0.0


@pytest.mark.parametrize("seed", range(4))
def test_wilcoxon_matches_scipy(seed):
    x = random_matrix(n=30, m=4, seed=seed)
    for j in range(1, 4):
        res = wilcoxon(x[:, 0], x[:, j])
        ref = quietly(st.wilcoxon, x[:, 0], x[:, j])
        assert res.statistic == ref.statistic
        assert res.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    assert wilcoxon([1, 2], [1, 2]) == (0.0, 1.0)


def test_wilcoxon_compare_matches_pingouin():
    import pingouin

    x = random_matrix(n=20, m=3, seed=11, ties=False)
    res = pdireval.compare(scores_from_matrix(x), method="wilcoxon")
    for row in res.itertuples():
        i, j = int(row.system_a[1:]), int(row.system_b[1:])
        pg = pingouin.wilcoxon(x[:, i], x[:, j])
        pcol = "p_val" if "p_val" in pg else "p-val"
        assert row.p_value == pytest.approx(float(pg[pcol].iloc[0]), rel=1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_sign_matches_binomtest(seed):
    x = random_matrix(n=30, m=3, seed=seed)
    for j in (1, 2):
        res = sign_test(x[:, 0], x[:, j])
        a = int(np.sum(x[:, 0] > x[:, j]))
        b = int(np.sum(x[:, 0] < x[:, j]))
        assert (res.n_greater, res.n_less) == (a, b)
        assert res.p_value == pytest.approx(st.binomtest(a, a + b).pvalue, rel=1e-12)


def test_sign_discards_equal_and_infinite_ties():
    res = sign_test([np.inf, 1.0, 2.0, 3.0], [np.inf, 1.0, 1.0, 1.0])
    assert (res.n_greater, res.n_less) == (2, 0)
    assert res.p_value == pytest.approx(0.5)
    assert sign_test([1.0], [1.0]).p_value == 1.0


# He et al. (2008) (He, Macdonald & Ounis 2008), Tables 4 and 5: counts a/b and the printed marks
# (">" p < 0.05, ">>" p < 0.01, "" not significant), typed in from the paper.
SEED004_TABLES = [
    # Table 4
    (34, 30, ""), (49, 15, ">>"), (45, 19, ">>"), (36, 28, ""), (52, 12, ">>"), (52, 12, ">>"),
    (18, 6, ">"), (22, 2, ">>"), (21, 3, ">>"), (13, 11, ""), (21, 3, ">>"), (19, 5, ">>"),
    (16, 24, ""), (27, 13, ">"), (24, 16, ""), (23, 17, ""), (31, 9, ">>"), (33, 7, ">>"),
    # Table 5
    (57, 7, ">>"), (60, 4, ">>"), (54, 10, ">>"), (55, 9, ">>"), (59, 5, ">>"), (58, 6, ">>"),
    (24, 0, ">>"), (22, 2, ">>"), (17, 7, ""), (23, 1, ">>"), (23, 1, ">>"), (20, 4, ">>"),
    (33, 7, ">>"), (38, 2, ">>"), (37, 3, ">>"), (32, 8, ">>"), (36, 4, ">>"), (38, 2, ">>"),
]


def test_seed004_sign_test_marks_reproduced():
    a = np.array([r[0] for r in SEED004_TABLES])
    b = np.array([r[1] for r in SEED004_TABLES])
    # build paired samples with exactly a wins and b losses (plus a few ties, discarded)
    marks = []
    for wins, losses, _ in SEED004_TABLES:
        first = np.r_[np.ones(wins), np.zeros(losses), np.full(3, 0.5)]
        second = np.r_[np.zeros(wins), np.ones(losses), np.full(3, 0.5)]
        p = sign_test(first, second).p_value
        marks.append(">>" if p < 0.01 else ">" if p < 0.05 else "")
    assert marks == [r[2] for r in SEED004_TABLES]
    assert len(a) == len(b) == 36


def test_randomization_exact_matches_scipy_permutation_test():
    rng = np.random.default_rng(4)
    for _ in range(3):
        a = rng.random(9)
        b = a + rng.normal(0.05, 0.1, 9)
        res = randomization_test(a, b, n_resamples=1000)  # 2^9 = 512 <= 1000: exact
        ref = st.permutation_test(
            (a, b), lambda u, v, axis: np.mean(u - v, axis=axis),
            permutation_type="samples", n_resamples=np.inf,
        )
        assert res.p_value == pytest.approx(ref.pvalue, rel=1e-12)


def test_randomization_monte_carlo_equals_loop_on_same_signs():
    x = random_matrix(n=20, m=4, seed=2)
    B = 500
    res = pdireval.compare(scores_from_matrix(x), method="randomization", n_resamples=B, rng=9)
    signs = 2.0 * np.random.default_rng(9).integers(0, 2, size=(B, 20)) - 1.0
    for row in res.itertuples():
        i, j = int(row.system_a[1:]), int(row.system_b[1:])
        z = x[:, i] - x[:, j]
        obs = abs(z.sum())
        count = sum(abs((signs[b] * z).sum()) >= obs - 1e-10 * np.abs(z).sum() for b in range(B))
        assert row.p_value == pytest.approx((count + 1) / (B + 1))


def test_tukey_equals_loop_on_same_draws():
    x = random_matrix(n=10, m=5, seed=8)
    B = 400
    p = tukey_hsd(x, n_resamples=B, rng=5)
    rng = np.random.default_rng(5)
    hsd = []
    for _ in range(B):
        xb = rng.permuted(x, axis=1)
        means = xb.mean(axis=0)
        hsd.append(means.max() - means.min())
    hsd = np.array(hsd)
    means = x.mean(axis=0)
    scale = np.abs(x).mean(axis=0)
    for i in range(5):
        for j in range(5):
            thr = abs(means[i] - means[j]) - 1e-10 * (scale[i] + scale[j])
            assert p[i, j] == pytest.approx(np.mean(hsd >= thr)), (i, j)
    res = pdireval.compare(scores_from_matrix(x), method="tukey", n_resamples=B, rng=5)
    for row in res.itertuples():
        assert row.p_value == pytest.approx(p[int(row.system_a[1:]), int(row.system_b[1:])])


@pytest.mark.parametrize("method", ["bonferroni", "holm", "bh"])
def test_corrections_match_statsmodels(method):
    from statsmodels.stats.multitest import multipletests

    p = np.random.default_rng(1).random(17) ** 2
    sm = {"bonferroni": "bonferroni", "holm": "holm", "bh": "fdr_bh"}[method]
    np.testing.assert_allclose(adjust_pvalues(p, method), multipletests(p, method=sm)[1], rtol=1e-12)


# ------------------------------------------------------------------ compare frame


def test_compare_frame_shape_and_groups():
    x = random_matrix(n=10, m=4, seed=1)
    a = scores_from_matrix(x, "AP")
    b = scores_from_matrix(x[:, ::-1], "P@10")
    scores = pd.concat([b, a], ignore_index=True)
    scores["k"] = 5
    res = pdireval.compare(scores, method="t")
    assert list(res.columns[:4]) == ["measure", "k", "system_a", "system_b"]
    for col in ["mean_a", "mean_b", "mean_diff", "statistic", "p_value", "method", "n_queries",
                "ci_low", "ci_high", "effect_size"]:
        assert col in res.columns
    assert "p_adjusted" not in res.columns and "family_size" not in res.columns  # no correction
    assert list(res.measure.unique()) == ["P@10", "AP"]  # order of first appearance
    assert len(res) == 12 and (res.n_queries == 10).all()
    assert isinstance(res.index, pd.RangeIndex)
    np.testing.assert_allclose(res.mean_diff, res.mean_a - res.mean_b, atol=1e-15)
    assert (res.ci_low <= res.mean_diff).all() and (res.mean_diff <= res.ci_high).all()


def test_compare_baseline_and_correction():
    x = random_matrix(n=15, m=5, seed=3)
    scores = scores_from_matrix(x)
    res = pdireval.compare(scores, method="t", baseline="s02", correction="holm")
    assert list(res.system_a) == ["s00", "s01", "s03", "s04"]
    assert (res.system_b == "s02").all()
    for row in res.itertuples():
        i = int(row.system_a[1:])
        assert row.p_value == pytest.approx(st.ttest_rel(x[:, i], x[:, 2]).pvalue, rel=1e-10)
    from statsmodels.stats.multitest import multipletests

    np.testing.assert_allclose(res.p_adjusted, multipletests(res.p_value, method="holm")[1])


def test_compare_family_all():
    x = random_matrix(n=15, m=4, seed=3)
    scores = pd.concat([scores_from_matrix(x, "AP"), scores_from_matrix(x ** 2, "P@5")])
    res = pdireval.compare(scores, method="t", correction="bonferroni", family="all")
    np.testing.assert_allclose(res.p_adjusted, np.minimum(1, res.p_value * 12))


def test_compare_rng_reproducible_and_input_unchanged():
    x = random_matrix(n=12, m=4, seed=6)
    scores = scores_from_matrix(x)
    before = scores.copy()
    for method in ("bootstrap", "randomization", "tukey"):
        a = pdireval.compare(scores, method=method, n_resamples=200, rng=123)
        b = pdireval.compare(scores, method=method, n_resamples=200, rng=123)
        pd.testing.assert_frame_equal(a, b)
        # a Generator gives one seed draw: the same Generator state gives the same result
        c = scores.ireval.compare(method=method, n_resamples=200, rng=np.random.default_rng(123))
        d = scores.ireval.compare(method=method, n_resamples=200, rng=np.random.default_rng(123))
        pd.testing.assert_frame_equal(c, d)
    pd.testing.assert_frame_equal(scores, before)


def test_compare_row_order_invariance():
    x = random_matrix(n=12, m=4, seed=6)
    scores = scores_from_matrix(x)
    shuffled = scores.sample(frac=1.0, random_state=1)
    pd.testing.assert_frame_equal(
        pdireval.compare(scores, rng=1, n_resamples=100), pdireval.compare(shuffled, rng=1, n_resamples=100)
    )


def test_compare_errors_are_clear():
    x = random_matrix(n=6, m=3, seed=0)
    scores = scores_from_matrix(x)
    with pytest.raises(PdirevalError, match="method="):
        pdireval.compare(scores, method="anova")
    with pytest.raises(SchemaError, match="baseline='nope'.*s00"):
        pdireval.compare(scores, baseline="nope")
    with pytest.raises(PdirevalError, match="correction=None"):
        pdireval.compare(scores, method="tukey", correction="holm")
    with pytest.raises(ValueError, match="correction="):
        pdireval.compare(scores, correction="fdr")
    with pytest.raises(SchemaError, match="complete system x query matrix"):
        pdireval.compare(scores.iloc[1:])
    with pytest.raises(ValueError, match="n_resamples"):
        pdireval.compare(scores, n_resamples=0)
    with pytest.raises(TypeError, match="rng="):
        pdireval.compare(scores, rng="seed")


@pytest.mark.slow  # 2-3 s of hypothesis examples; CI's second step runs it
@settings(max_examples=25, deadline=None)
@given(
    hs.integers(2, 12),
    hs.integers(2, 5),
    hs.integers(0, 2**16),
    hs.sampled_from(["bootstrap", "t", "wilcoxon", "sign", "randomization", "tukey"]),
)
def test_property_p_values_in_unit_interval_and_self_never_significant(n, m, seed, method):
    rng = np.random.default_rng(seed)
    x = np.round(rng.random((n, m)), 2)
    x[:, -1] = x[:, 0]  # a system compared with itself
    scores = scores_from_matrix(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = pdireval.compare(scores, method=method, n_resamples=64, rng=seed)
    assert res.p_value.between(0, 1).all()
    self_row = res[(res.system_a == "s00") & (res.system_b == f"s{m - 1:02d}")]
    assert (self_row.p_value == 1.0).all()


def test_compare_edge_cases_and_progress(capsys):
    one_system = scores_from_matrix(random_matrix(n=5, m=1))
    for method in ("bootstrap", "t", "wilcoxon", "sign", "randomization", "tukey"):
        res = pdireval.compare(one_system, method=method, n_resamples=20, rng=1)
        assert len(res) == 0 and "p_value" in res.columns
    one_query = scores_from_matrix(random_matrix(n=1, m=3))
    with pytest.warns(pdireval.PdirevalWarning, match="3 pair.s. compared on fewer than two"):
        res = pdireval.compare(one_query, method="t")
    assert res.p_value.isna().all() and (res.n_queries == 1).all()
    # progress bars: shown on request, no warnings, same numbers
    scores = scores_from_matrix(random_matrix(n=8, m=4))
    shown = pdireval.compare(scores, method="tukey", n_resamples=50, rng=2, progress=True)
    assert "Tukey HSD" in capsys.readouterr().err
    pd.testing.assert_frame_equal(shown, pdireval.compare(scores, method="tukey", n_resamples=50, rng=2))


def test_family_size_counts_what_was_adjusted_together():
    """With a correction, family_size says over how many p-values it was computed: the pairs
    of one group, or every row with family="all"; p_adjusted equals statsmodels' over them."""
    from statsmodels.stats.multitest import multipletests

    a = scores_from_matrix(random_matrix(n=12, m=5, seed=3), "AP")
    b = scores_from_matrix(random_matrix(n=12, m=5, seed=4), "P@10")
    scores = pd.concat([a, b], ignore_index=True)
    group = pdireval.compare(scores, method="t", correction="holm")
    assert (group["family_size"] == 10).all()
    for _, part in group.groupby("measure"):
        np.testing.assert_allclose(part["p_adjusted"], multipletests(part["p_value"], method="holm")[1])
    every = pdireval.compare(scores, method="t", correction="bonferroni", family="all")
    assert (every["family_size"] == 20).all()
    np.testing.assert_allclose(every["p_adjusted"], np.minimum(1, every["p_value"] * 20))
    against = pdireval.compare(scores, method="t", correction="holm", baseline="s0" if "s0" in set(a["system"]) else sorted(set(a["system"]))[0])
    assert (against["family_size"] == 4).all()


def test_one_query_gives_nan_intervals_with_aggregates_warning():
    """Issue 33 item 5: the same rule everywhere: a pair compared on one query has a NaN
    interval and the warning aggregate gives, naming the pair."""
    scores = pd.DataFrame({"system": ["a", "b"], "query": "1", "measure": "AP", "value": [0.5, 0.2]})
    with pytest.warns(pdireval.PdirevalWarning, match=r"1 pair\(s\) compared on fewer than two queries have no t interval .*a vs b"):
        out = pdireval.compare(scores, method="t")
    assert out[["ci_low", "ci_high"]].isna().all().all()
