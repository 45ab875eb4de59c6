"""Swap rates and the Buckley–Voorhees error rate: loop references on the same draws, properties."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import pdireval
from pdireval.errors import PdirevalError, SchemaError, group_generator
from pdireval.stats.rank_correlation import kendall_tau
from tests.helpers import random_matrix, scores_from_matrix


def loop_vb_swaps(x, n_queries, n_resamples, seed, sampling="split", width=0.01, n_bins=21):
    n, m = x.shape
    out = {}
    for c in n_queries:
        rng = group_generator(seed, c)  # every size starts from the seed and its own key
        comps = np.zeros(n_bins, int)
        swaps = np.zeros(n_bins, int)
        for _ in range(n_resamples):
            if sampling == "split":
                perm = rng.permutation(n)
                t1, t2 = perm[:c], perm[c:2 * c]
            else:
                t1 = rng.integers(0, n, c)
                t2 = rng.integers(0, n, c)
            for i, j in itertools.combinations(range(m), 2):
                d1 = x[t1, i].mean() - x[t1, j].mean()
                d2 = x[t2, i].mean() - x[t2, j].mean()
                b = min(int(np.floor(abs(d1) / width)), n_bins - 1)
                comps[b] += 1
                swaps[b] += d1 * d2 < 0
        out[c] = (comps, swaps)
    return out


@pytest.mark.parametrize("sampling", ["split", "replacement"])
def test_vb_swap_rate_equals_loop_on_same_draws(sampling):
    x = random_matrix(n=30, m=5, seed=2, ties=False)
    res = pdireval.swap_rate(scores_from_matrix(x), n_queries=[5, 10, 15], n_resamples=40, rng=7, sampling=sampling)
    ref = loop_vb_swaps(x, [5, 10, 15], 40, 7, sampling)
    assert list(res.columns) == ["measure", "n_queries", "bin", "diff_low", "n_comparisons", "n_swaps", "swap_rate"]
    for c, (comps, swaps) in ref.items():
        r = res[res["n_queries"] == c]
        np.testing.assert_array_equal(r.n_comparisons, comps)
        np.testing.assert_array_equal(r.n_swaps, swaps)
        assert r.n_comparisons.sum() == 40 * 10
    need = pdireval.swap_difference(res, min_comparisons=3)
    for c, (comps, swaps) in ref.items():
        # the smallest bin from which every bin with >= 3 comparisons has a rate <= 5 %
        dense = [b for b in range(21) if comps[b] >= 3]
        ok = [b for b in dense if all(swaps[d] / comps[d] <= 0.05 for d in dense if d >= b)]
        got = need.loc[need["n_queries"] == c, "diff_needed"].item()
        assert (np.isnan(got) and not ok) or got == pytest.approx(ok[0] * 0.01)


def _swaps(comparisons, swaps):
    """A swap_rate frame of one measure and size from per-bin counts."""
    comparisons, swaps = np.asarray(comparisons), np.asarray(swaps)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(comparisons > 0, swaps / np.maximum(comparisons, 1), np.nan)
    return pd.DataFrame({"measure": "RR", "n_queries": 2, "bin": np.arange(len(swaps)),
                         "diff_low": np.arange(len(swaps)) * 0.01, "n_comparisons": comparisons,
                         "n_swaps": swaps, "swap_rate": rate})


def test_swap_difference_is_the_monotone_envelope_with_reasons():
    """A low rate in the zero bin (exact ties) followed by high rates at larger differences is
    not 'the difference needed' (it was 0.00 when the first bin at or under 5 % counted)."""
    tied_zero = pdireval.swap_difference(_swaps([100, 0, 0, 50, 40], [4, 0, 0, 15, 12]))
    assert np.isnan(tied_zero["diff_needed"].item())
    assert tied_zero["reason"].item() == ("the swap rate is above 0.05 in the bin from 0.04, the last "
                                          "with 10 comparisons or more")
    # the rate dips under 5 % at 0.01, rises at 0.02, stays under from 0.03: 0.03
    dip = pdireval.swap_difference(_swaps([100, 100, 100, 100, 100], [30, 3, 20, 5, 0]))
    assert dip["diff_needed"].item() == pytest.approx(0.03) and dip["reason"].item() == ""
    # a sparse bin (under min_comparisons) neither confirms nor refutes
    sparse = pdireval.swap_difference(_swaps([100, 100, 3, 100], [30, 2, 3, 0]))
    assert sparse["diff_needed"].item() == pytest.approx(0.01)
    empty = pdireval.swap_difference(_swaps([5, 3, 0, 0], [0, 0, 0, 0]))
    assert np.isnan(empty["diff_needed"].item())
    assert empty["reason"].item() == "too sparse: no bin has 10 comparisons or more"
    assert list(empty.columns) == ["measure", "n_queries", "diff_needed", "reason"]


@pytest.mark.slow
def test_swap_difference_of_rr_on_robust03(robust03):
    """Robust 2003, RR: at 2 queries exact ties fill the zero bin (rate about 4 %) while every
    later bin swaps far more often; the difference needed is NaN with its reason, not 0."""
    run, qrels = robust03
    scores = pdireval.evaluate(run, "RR", qrels=qrels)
    swaps = pdireval.swap_rate(scores, n_queries=[2, 50], n_resamples=200, rng=0)
    at2 = swaps[swaps["n_queries"] == 2]
    assert at2["swap_rate"].iloc[0] <= 0.05 and (at2["swap_rate"].iloc[1:].dropna() > 0.05).any()
    need = pdireval.swap_difference(swaps)
    row = need[need["n_queries"] == 2].iloc[0]
    assert np.isnan(row["diff_needed"]) and row["reason"].startswith("the swap rate is above 0.05")


def test_swap_rate_sizes_validated():
    scores = scores_from_matrix(random_matrix(n=10, m=3))
    with pytest.raises(PdirevalError, match="size 6 is impossible"):
        pdireval.swap_rate(scores, n_queries=[6])
    with pytest.raises(ValueError, match="sampling="):
        pdireval.swap_rate(scores, sampling="bootstrap")


def test_swap_rate_between_experiments():
    x = random_matrix(n=12, m=8, seed=1, ties=False)
    a = scores_from_matrix(x)
    assert pdireval.swap_rate(a, a).swap_rate.item() == 0.0
    rng = np.random.default_rng(3)
    b = scores_from_matrix(x + rng.normal(0, 0.05, x.shape))
    res = a.ireval.swap_rate(b)
    tau = kendall_tau(x.mean(axis=0), pdireval.aggregate(b)["mean"].to_numpy(), "a")
    assert res.swap_rate.item() == pytest.approx((1 - tau) / 2)
    assert res.n_pairs.item() == 28


@settings(max_examples=30, deadline=None)
@given(hs.integers(2, 9), hs.integers(0, 2**16))
def test_property_swap_rate_is_one_minus_tau_over_two(m, seed):
    rng = np.random.default_rng(seed)
    x = rng.random((4, m))
    y = rng.random((4, m))
    res = pdireval.swap_rate(scores_from_matrix(x), scores_from_matrix(y))
    ma, mb = x.mean(axis=0), y.mean(axis=0)
    if len(np.unique(ma)) == m and len(np.unique(mb)) == m:
        assert res.swap_rate.item() == pytest.approx((1 - kendall_tau(ma, mb)) / 2)


def test_swap_rate_ties_option():
    a = scores_from_matrix(np.array([[0.1, 0.1, 0.3]]))
    b = scores_from_matrix(np.array([[0.2, 0.1, 0.3]]))
    assert pdireval.swap_rate(a, b).n_pairs.item() == 3
    assert pdireval.swap_rate(a, b, tied_pairs="drop").n_pairs.item() == 2
    with pytest.raises(SchemaError, match="different systems"):
        pdireval.swap_rate(a, scores_from_matrix(np.array([[0.2, 0.1]])))


def loop_error_rate(x, n_queries, n_resamples, f, seed, unit, mean=np.mean):
    n, m = x.shape
    out = {}
    for c in n_queries:
        rng = group_generator(seed, c)  # every size starts from the seed and its own key
        acc = {p: [0, 0, 0] for p in itertools.combinations(range(m), 2)}
        for _ in range(n_resamples):
            topics = rng.permutation(n)[:c]
            for i, j in acc:
                pairs = [(mean(x[topics, i]), mean(x[topics, j]))] if unit == "query_set" else [
                    (x[t, i], x[t, j]) for t in topics]
                for a, b in pairs:
                    if abs(a - b) <= f * max(abs(a), abs(b)):
                        acc[(i, j)][2] += 1
                    elif a > b:
                        acc[(i, j)][0] += 1
                    else:
                        acc[(i, j)][1] += 1
        total = sum(sum(v) for v in acc.values())
        out[c] = (sum(min(v[0], v[1]) for v in acc.values()) / total, sum(v[2] for v in acc.values()) / total)
    return out


@pytest.mark.parametrize("unit", ["query_set", "query"])
def test_error_rate_equals_loop_on_same_draws(unit):
    x = random_matrix(n=25, m=5, seed=4)
    res = pdireval.error_rate(scores_from_matrix(x), n_queries=[3, 10, 25], n_resamples=30, rng=11, unit=unit)
    ref = loop_error_rate(x, [3, 10, 25], 30, 0.05, 11, unit)
    assert list(res["n_queries"]) == [3, 10, 25]
    for row in res.itertuples():
        assert row.error_rate == pytest.approx(ref[row.n_queries][0])
        assert row.tie_rate == pytest.approx(ref[row.n_queries][1])
        assert row.n_comparisons == 30 * 10 * (row.n_queries if unit == "query" else 1)


def test_error_rate_ties_are_the_exact_ties_of_the_drawn_means():
    # s01 is s00 with two queries swapped, s02 s00 in another order (P@10-like values): with
    # fuzziness=0 they tie on a query set exactly when their drawn values have equal sums
    rng = np.random.default_rng(3)
    x = rng.integers(0, 11, size=(12, 4)) / 10
    x[:, 1] = x[:, 0]
    x[[0, 1], 1] = x[[1, 0], 0]
    x[:, 2] = x[rng.permutation(12), 0]
    res = pdireval.error_rate(scores_from_matrix(x), n_queries=[4, 8, 12], n_resamples=200, rng=11, fuzziness=0)

    def rounded_mean(v):  # the correctly rounded mean: exact sum of the doubles, rounded once
        return float(sum(map(Fraction, v))) / len(v)

    ref = loop_error_rate(x, [4, 8, 12], 200, 0.0, 11, "query_set", mean=rounded_mean)
    for row in res.itertuples():
        assert (row.error_rate, row.tie_rate) == pytest.approx(ref[row.n_queries], abs=1e-12)
    assert res["tie_rate"].iloc[-1] == 0.5  # all 12 queries: s00, s01, s02 tie (3 of 6 pairs)


def test_error_rate_defaults_groups_and_reproducibility():
    x = random_matrix(n=20, m=4, seed=1)
    scores = pd.concat([scores_from_matrix(x, "AP"), scores_from_matrix(x ** 2, "P@5")], ignore_index=True)
    a = pdireval.error_rate(scores, n_resamples=20, rng=3)
    b = scores.ireval.error_rate(n_resamples=20, rng=3)
    pd.testing.assert_frame_equal(a, b)
    assert list(a["n_queries"]) == [5, 10, 15, 20] * 2
    assert list(a.measure) == ["AP"] * 4 + ["P@5"] * 4
    assert a.error_rate.between(0, 0.5).all() and a.tie_rate.between(0, 1).all()
    # all topics: every trial sees the same means, so no pair ever flips
    assert a.loc[a["n_queries"] == 20, "error_rate"].eq(0).all()
    with pytest.raises(ValueError, match="fuzziness"):
        pdireval.error_rate(scores, fuzziness=-1)
    with pytest.raises(PdirevalError, match="size 21 is impossible"):
        pdireval.error_rate(scores, n_queries=[21])


def test_a_size_does_not_depend_on_the_other_sizes_requested():
    x = random_matrix(n=30, m=4, seed=5)
    scores = scores_from_matrix(x)
    alone = pdireval.error_rate(scores, n_queries=[15], n_resamples=20, rng=3)
    both = pdireval.error_rate(scores, n_queries=[10, 15], n_resamples=20, rng=3)
    pd.testing.assert_frame_equal(alone, both[both["n_queries"] == 15].reset_index(drop=True))
    alone = pdireval.swap_rate(scores, n_queries=[10], n_resamples=20, rng=3)
    both = pdireval.swap_rate(scores, n_queries=[5, 10], n_resamples=20, rng=3)
    pd.testing.assert_frame_equal(alone, both[both["n_queries"] == 10].reset_index(drop=True))
