"""rank_uncertainty: rank intervals, P(best), expected rank and the top group."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import pdireval
from pdireval.errors import OptionError
from pdireval.stats.rank_bootstrap import descending_ranks
from tests.helpers import random_matrix, scores_from_matrix


def test_descending_ranks_equal_rankdata():
    rng = np.random.default_rng(0)
    v = rng.integers(0, 5, size=(50, 9)).astype(float)  # many ties
    got = descending_ranks(v)
    want = np.array([stats.rankdata(-row) for row in v])
    np.testing.assert_array_equal(got, want)


@pytest.fixture
def frame():
    x = random_matrix(n=30, m=6, seed=1)
    return x, pd.concat([scores_from_matrix(x, "AP"),
                         scores_from_matrix(random_matrix(n=30, m=6, seed=2), "P@10")],
                        ignore_index=True)


def test_properties(frame):
    _, scores = frame
    before = scores.copy()
    out = pdireval.rank_uncertainty(scores, n_resamples=400, rng=1)
    pd.testing.assert_frame_equal(scores, before)
    for _, block in out.groupby("measure"):
        assert block["p_best"].sum() == pytest.approx(1.0)
        assert block["expected_rank"].sum() == pytest.approx(6 * 7 / 2)
    assert ((out["rank_low"] <= out["rank"]) & (out["rank"] <= out["rank_high"])).all()
    assert out.groupby("measure")["in_top_group"].any().all()
    assert list(out["measure"].unique()) == ["AP", "P@10"]
    pd.testing.assert_frame_equal(out, pdireval.rank_uncertainty(scores, n_resamples=400, rng=1))


def test_dominant_system():
    x = random_matrix(n=25, m=5, seed=3, ties=False)
    x[:, 2] += 1.0
    out = pdireval.rank_uncertainty(scores_from_matrix(x), n_resamples=300)
    top = out.iloc[0]
    assert top["system"] == "s02" and top["p_best"] == 1.0
    assert top["rank_low"] == top["rank_high"] == top["expected_rank"] == 1.0
    assert out["in_top_group"].tolist() == [True, False, False, False, False]


def test_equals_plain_loop(frame):
    x, scores = frame
    n, m = x.shape
    b, level = 300, 0.9
    out = pdireval.rank_uncertainty(scores[scores.measure == "AP"], n_resamples=b, rng=7,
                                    confidence_level=level)
    idx = np.random.default_rng(7).integers(0, n, size=(b, n))
    ranks = np.empty((b, m))
    best = np.zeros(m)
    for r, row in enumerate(idx):
        means = x[row].mean(axis=0)
        ranks[r] = stats.rankdata(-means)
        winners = np.flatnonzero(means == means.max())
        best[winners] += 1.0 / len(winners)
    observed = stats.rankdata(-x.mean(axis=0))
    tail = (1 - level) / 2
    by_system = out.set_index("system")
    for j in range(m):
        row = by_system.loc[f"s{j:02d}"]
        srt = np.sort(ranks[:, j])
        low = min(srt[math.floor(tail * (b - 1))], observed[j])
        high = max(srt[math.ceil((1 - tail) * (b - 1))], observed[j])
        assert row["rank"] == observed[j]
        assert row["p_best"] == pytest.approx(best[j] / b, abs=1e-12)
        assert row["expected_rank"] == pytest.approx(ranks[:, j].mean(), abs=1e-12)
        assert (row["rank_low"], row["rank_high"]) == (low, high)


def test_top_group_is_one_sided_t_with_holm(frame):
    x, scores = frame
    from statsmodels.stats.multitest import multipletests

    out = pdireval.rank_uncertainty(scores[scores.measure == "AP"], n_resamples=50)
    best = int(np.argmax(x.mean(axis=0)))
    others = [j for j in range(x.shape[1]) if j != best]
    p = [stats.ttest_rel(x[:, j], x[:, best], alternative="less").pvalue for j in others]
    adjusted = multipletests(p, method="holm")[1]
    by_system = out.set_index("system")
    for j, pa in zip(others, adjusted):
        assert by_system.loc[f"s{j:02d}", "p_vs_top"] == pytest.approx(pa, rel=1e-10)
        assert by_system.loc[f"s{j:02d}", "in_top_group"] == (pa >= 0.05)


def test_bad_options(frame):
    _, scores = frame
    with pytest.raises(OptionError, match="test="):
        pdireval.rank_uncertainty(scores, test="tukey")
    with pytest.raises(OptionError, match="n_resamples"):
        pdireval.rank_uncertainty(scores, n_resamples=10**7)


def test_one_query_gives_nan_with_a_warning():
    from pdireval.errors import PdirevalWarning

    one = scores_from_matrix(random_matrix(n=1, m=3, seed=4, ties=False))
    with pytest.warns(PdirevalWarning, match="single query"):
        out = pdireval.rank_uncertainty(one, n_resamples=50)
    assert out[["rank_low", "rank_high", "expected_rank", "p_best"]].isna().all().all()
    assert out["rank"].tolist() == [1.0, 2.0, 3.0] and out["in_top_group"].all()


# ---------------------------------- exact ties: one definition for observed and replicate means


def fraction_oracle(x, idx, level):
    """rank, expected rank, P(best), rank interval from the correctly rounded means (exact
    Fraction sums of the doubles, rounded once, divided by the count: the definition of
    exact_means), so equal sums tie (an independent computation of rank_uncertainty's)."""
    from fractions import Fraction

    n, m = x.shape
    b = len(idx)
    frac = [[Fraction(v) for v in row] for row in x]

    def ranks_of(rows):
        sums = [float(sum(frac[r][j] for r in rows)) / len(rows) for j in range(m)]
        ranks = np.array([1 + sum(s > t for s in sums) + (sum(s == t for s in sums) - 1) / 2 for t in sums])
        top = max(sums)
        winners = [j for j in range(m) if sums[j] == top]
        return ranks, winners

    observed, _ = ranks_of(range(n))
    ranks = np.empty((b, m))
    best = np.zeros(m)
    for r, rows in enumerate(idx):
        ranks[r], winners = ranks_of(rows)
        best[winners] += 1.0 / len(winners)
    tail = (1 - level) / 2
    srt = np.sort(ranks, axis=0)
    low = np.minimum(srt[math.floor(tail * (b - 1))], observed)
    high = np.maximum(srt[math.ceil((1 - tail) * (b - 1))], observed)
    return observed, ranks.mean(axis=0), best / b, low, high


def check_against_oracle(x, b, seed, level=0.9):
    n, m = x.shape
    out = pdireval.rank_uncertainty(scores_from_matrix(x), n_resamples=b, rng=seed, confidence_level=level,
                                    test="sign")
    out = out.set_index("system").loc[[f"s{j:02d}" for j in range(m)]]
    idx = np.random.default_rng(seed).integers(0, n, size=(b, n))
    rank, expected, p_best, low, high = fraction_oracle(x, idx, level)
    np.testing.assert_array_equal(out["rank"].to_numpy(), rank)
    np.testing.assert_allclose(out["expected_rank"].to_numpy(), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out["p_best"].to_numpy(), p_best, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(out["rank_low"].to_numpy(), low)
    np.testing.assert_array_equal(out["rank_high"].to_numpy(), high)
    return out


def test_systems_with_equal_sums_tie_in_the_observed_and_every_resampled_leaderboard():
    # A and B both average exactly 0.2 (the same values in another query order); as doubles
    # their plain means differ in the last bit, and counts @ x / n splits resampled ties
    a, b = [0.4, 0.0, 0.2, 0.3, 0.1], [0.4, 0.2, 0.1, 0.0, 0.3]
    x = np.array([a, b, [0.1, 0.1, 0.0, 0.1, 0.1]]).T
    assert x[:, 0].mean() != x[:, 1].mean()  # the trap
    out = check_against_oracle(x, 2000, 1)
    assert out["rank"].tolist() == [1.5, 1.5, 3.0]
    assert out["mean"].iloc[0] == out["mean"].iloc[1]


@settings(max_examples=15, deadline=None)
@given(st.data(), st.integers(2, 7), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_property_planted_ties_match_exact_arithmetic(data, n, m, seed):
    """Random leaderboards with planted exact ties: a system holding another's values in
    another query order (ties observed), one holding another's values with two queries
    swapped (ties in every resample that draws both equally often)."""
    value = st.one_of(st.integers(0, 10).map(lambda k: k / 10), st.floats(1e-6, 1))
    x = np.array(data.draw(st.lists(value, min_size=n * m, max_size=n * m))).reshape(n, m)
    perm = data.draw(st.permutations(range(n)))
    x[:, m - 1] = x[perm, 0]
    if m > 2:
        i, j = data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
        x[:, 1] = x[:, 0]
        x[[i, j], 1] = x[[j, i], 0]
    check_against_oracle(x, 60, seed)


@pytest.mark.slow  # the 17 Robust 2003 runs
def test_robust_p10_rank_intervals_and_correlation_intervals_match_exact_arithmetic(robust03):
    """Robust 2003 P@10 (many exact ties between systems, in replicates too): expected ranks,
    P(best) and the AP-vs-P@10 τ_b interval equal exact (Fraction) arithmetic on the same
    draws; with counts @ x / n about half of the 34 values and most interval ends were off."""
    from pdireval.stats.rank_correlation import rank_correlation

    run, qrels = robust03
    scores = pdireval.evaluate(run, ["P@10", "AP"], qrels=qrels)
    p10 = scores[scores["measure"] == "P@10"]
    x = p10.pivot(index="query", columns="system", values="value")
    x = x[sorted(x.columns)].to_numpy()
    n, m = x.shape
    b = 200
    out = pdireval.rank_uncertainty(p10, n_resamples=b, rng=3, test="sign")
    out = out.set_index("system").sort_index()
    idx = np.random.default_rng(3).integers(0, n, size=(b, n))
    rank, expected, p_best, low, high = fraction_oracle(x, idx, 0.95)
    np.testing.assert_array_equal(out["rank"].to_numpy(), rank)
    np.testing.assert_allclose(out["expected_rank"].to_numpy(), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out["p_best"].to_numpy(), p_best, rtol=0, atol=1e-12)
    # correlate(AP, P@10): the τ_b interval from exactly rounded replicate means
    ap = scores[scores["measure"] == "AP"].pivot(index="query", columns="system", values="value")
    ap = ap[sorted(ap.columns)].to_numpy()
    got = pdireval.correlate(scores, confidence_level=0.9, n_resamples=b, rng=3)
    from fractions import Fraction

    def means(matrix, rows):
        return np.array([float(sum(Fraction(matrix[r, j]) for r in rows)) / len(rows) for j in range(m)])

    reps = [rank_correlation(means(x, rows), means(ap, rows), "kendall_b")[0] for rows in idx]
    lo, hi = np.quantile(reps, [0.05, 0.95])
    row = got.iloc[0]
    assert (row["measure_a"], row["measure_b"]) == ("P@10", "AP")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo, hi), abs=1e-12)
