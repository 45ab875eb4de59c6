"""Exact means (correctly rounded sums) and the tie groups every ranking by means shares."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pdireval.stats.means import (
    exact_group_means,
    exact_means,
    exact_resampled_means,
    mid_ranks,
    tie_groups,
)
from pdireval.stats.rank_overlap import rbo_ext, rbo_ext_ties, top_k_overlap, top_k_overlap_ties

values = st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(values, st.randoms(use_true_random=False))
def test_any_order_gives_the_same_mean_and_it_is_the_rounded_exact_sum(xs, random):
    ys = list(xs)
    random.shuffle(ys)
    a, b = exact_means(np.array([xs, ys]).T)
    assert a == b
    exact = sum(map(Fraction, xs))
    assert a == float(Fraction(float(exact)) / len(xs))  # fsum is the correctly rounded sum


def test_equal_exact_sums_with_other_values_tie_and_nan_is_skipped():
    # the doubles' exact sums: 0.1 + 0.7 + 0.2 = 0.2 + 0.7 + 0.1 (0.1 + 0.2 is not the double 0.3)
    m = exact_means(np.array([[0.1, 0.7, 0.2, np.nan], [0.2, 0.7, 0.1, np.nan], [0.25, 0.5, 0.25, np.nan],
                              [0.5, 0.0, 0.5, np.nan]]).T)
    assert m[0] == m[1] and m[2] == m[3] == 1 / 3
    grouped = exact_group_means([0.1, 0.2, 0.7, np.nan, 0.5], [0, 0, 1, 1, 3], 4)
    assert grouped[0] == exact_means(np.array([0.1, 0.2]))[0] and grouped[1] == 0.7
    assert np.isnan(grouped[2]) and grouped[3] == 0.5


def test_tie_groups_and_mid_ranks():
    start, size = tie_groups([0.5, 0.9, 0.5, 0.1, np.nan])
    assert start.tolist() == [1, 0, 1, 3, 4] and size.tolist() == [2, 1, 2, 1, 1]
    assert mid_ranks([0.5, 0.9, 0.5, 0.1]).tolist() == [2.5, 1.0, 2.5, 4.0]


@settings(max_examples=40, deadline=None)
@given(st.permutations(range(7)), st.permutations(range(7)), st.floats(0.05, 0.95))
def test_tie_aware_overlaps_equal_the_plain_ones_without_ties(a, b, p):
    pos_a, pos_b = np.array(a), np.array(b)
    # scores that rank item i at position pos[i]
    sa, sb = -pos_a.astype(float), -pos_b.astype(float)
    assert rbo_ext_ties(sa, sb, p) == np.float64(rbo_ext(pos_a[None], pos_b[None], p)[0]) or abs(
        rbo_ext_ties(sa, sb, p) - rbo_ext(pos_a[None], pos_b[None], p)[0]) < 1e-14
    assert top_k_overlap_ties(sa, sb, 3) == top_k_overlap(pos_a[None], pos_b[None], 3)[0]


# ------------------------------------------- resampled means: the same ties as the observed ones

finite = st.one_of(
    st.integers(0, 10).map(lambda k: k / 10),  # P@10-like values, many exact ties
    st.floats(-1e30, 1e30, allow_nan=False, allow_subnormal=False),
    st.floats(1e-100, 1e-90),
)


@settings(max_examples=80, deadline=None)
@given(st.data(), st.integers(1, 12), st.integers(1, 4), st.integers(1, 6))
def test_resampled_means_are_the_exact_means_of_the_resampled_values(data, n, m, b):
    x = np.array(data.draw(st.lists(st.one_of(finite, st.just(np.nan)), min_size=n * m, max_size=n * m)))
    x = x.reshape(n, m)
    counts = np.array(data.draw(st.lists(st.integers(0, 4), min_size=b * n, max_size=b * n))).reshape(b, n)
    got = exact_resampled_means(x, counts.astype(float))
    assert got.shape == (b, m)
    for r in range(b):
        want = exact_means(np.repeat(x, counts[r], axis=0)) if counts[r].sum() else np.full(m, np.nan)
        np.testing.assert_array_equal(got[r], want)  # bit for bit (NaN where no value)
    # every query drawn once: the observed means
    np.testing.assert_array_equal(exact_resampled_means(x, np.ones((1, n)))[0], exact_means(x))


@settings(max_examples=40, deadline=None)
@given(st.lists(finite, min_size=3, max_size=15), st.data())
def test_planted_ties_hold_in_every_resample(values, data):
    """B holds A's values with two queries swapped: wherever a resample draws both queries
    equally often, A and B have the same resampled values, so their means are equal."""
    x = np.array(values)
    n = len(x)
    i, j = data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    y = x.copy()
    y[[i, j]] = y[[j, i]]
    counts = np.random.default_rng(n).multinomial(n, np.full(n, 1 / n), size=200).astype(float)
    got = exact_resampled_means(np.c_[x, y, x[::-1]], counts)
    same = counts[:, i] == counts[:, j]
    assert (got[same, 0] == got[same, 1]).all()
    # the exact sums decide, through the correctly rounded sum: as for the observed means
    exact = [[float(sum(Fraction(v) * int(c) for v, c in zip(col, row))) / n for col in (x, y)]
             for row in counts]
    np.testing.assert_array_equal(got[:, :2], np.array(exact))


def test_resampled_means_refuse_what_they_cannot_sum_exactly():
    import pytest

    with pytest.raises(ValueError, match="non-negative integers"):
        exact_resampled_means(np.array([0.1, 0.2]), np.array([[0.5, 1.5]]))
    with pytest.raises(ValueError, match="finite"):
        exact_resampled_means(np.array([0.1, np.inf]), np.array([[1.0, 1.0]]))
    # a replicate that draws nothing has no mean
    assert np.isnan(exact_resampled_means(np.array([0.1, 0.2]), np.array([[0.0, 0.0]]))).all()
