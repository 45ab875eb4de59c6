"""Cohen's κ and Krippendorff's α from contingency tables, against scikit-learn and krippendorff."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdireval.stats import interrater

LEVELS = np.array([-2.0, 0.0, 1.0, 2.0, 3.0])


def _table(a, b, k=5):
    return interrater.contingency_tables(a, b, np.zeros(len(a), dtype=np.int64), 1, k)[0]


def _random_pairs(rng, n, k, agree):
    a = rng.integers(0, k, n)
    b = np.where(rng.random(n) < agree, a, rng.integers(0, k, n))
    return a, b


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_matches_scikit_learn(weights):
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(7)
    for trial in range(60):
        a, b = _random_pairs(rng, int(rng.integers(2, 60)), len(LEVELS), agree=trial / 60)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sklearn warns where κ is undefined (NaN)
            ref = cohen_kappa_score(LEVELS[a], LEVELS[b], labels=LEVELS, weights=weights)
        got = interrater.cohen_kappa(_table(a, b), weights)
        if np.isnan(ref):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_matches_krippendorff_package(level):
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(11)
    checked = 0
    for trial in range(60):
        a, b = _random_pairs(rng, int(rng.integers(2, 60)), len(LEVELS), agree=trial / 60)
        data = np.vstack([LEVELS[a], LEVELS[b]])
        if len(np.unique(data)) < 2:
            continue  # the package refuses a single value; ours is NaN (tested below)
        ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        got = interrater.krippendorff_alpha(_table(a, b), level, values=LEVELS)
        assert got == pytest.approx(ref, abs=1e-12)
        checked += 1
    assert checked > 50


def test_hand_computed_two_by_two():
    # 20 items: 10 both yes, 5 both no, 3 yes/no, 2 no/yes (levels no=0, yes=1)
    t = np.array([[5.0, 2.0], [3.0, 10.0]])
    p_o = 15 / 20
    p_e = (7 / 20) * (8 / 20) + (13 / 20) * (12 / 20)
    assert interrater.cohen_kappa(t) == pytest.approx((p_o - p_e) / (1 - p_e))
    assert interrater.observed_agreement(t) == pytest.approx(0.75)
    # α nominal: o = N + Nᵀ = [[10, 5], [5, 20]], n_c = (15, 25), n = 40
    assert interrater.krippendorff_alpha(t) == pytest.approx(1 - 39 * 10 / (2 * 15 * 25))
    tp, fp, fn, tn = interrater.binary_counts(t, np.array([False, True]))
    assert (tp, fp, fn, tn) == (10, 2, 3, 5)


def test_undefined_is_nan():
    one_level = np.array([[0.0, 0.0], [0.0, 7.0]])
    assert np.isnan(interrater.cohen_kappa(one_level))
    assert np.isnan(interrater.krippendorff_alpha(one_level))
    empty = np.zeros((3, 3))
    assert np.isnan(interrater.cohen_kappa(empty, "quadratic"))
    assert np.isnan(interrater.observed_agreement(empty))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=40))
def test_identical_raters_agree_perfectly(codes):
    a = np.array(codes)
    t = _table(a, a, 4)
    if len(np.unique(a)) > 1:
        for w in interrater.KAPPA_WEIGHTS:
            assert interrater.cohen_kappa(t, w) == pytest.approx(1.0)
        for level in interrater.ALPHA_LEVELS:
            assert interrater.krippendorff_alpha(t, level) == pytest.approx(1.0)
    assert interrater.observed_agreement(t) == 1.0


def test_stacks_equal_one_by_one():
    rng = np.random.default_rng(3)
    tables = rng.integers(0, 9, size=(6, 4, 4)).astype(float)
    for fn in (lambda t: interrater.cohen_kappa(t, "linear"),
               lambda t: interrater.krippendorff_alpha(t, "ordinal")):
        stacked = fn(tables)
        assert stacked.shape == (6,)
        np.testing.assert_allclose(stacked, [fn(t) for t in tables], rtol=0, atol=1e-14)
