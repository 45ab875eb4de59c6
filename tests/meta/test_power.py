"""Discriminative power, ASL curves and conflicts between measures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import OptionError
from tests.helpers import random_matrix, scores_from_matrix


def two_measures():
    x = random_matrix(n=20, m=6, seed=4)
    noise = np.random.default_rng(1).normal(0, 0.05, x.shape)
    return pd.concat([scores_from_matrix(x, "AP"), scores_from_matrix(x + noise, "P@10")], ignore_index=True)


def test_discriminative_power_counts_compare_rows():
    scores = two_measures()
    for method in ("bootstrap", "t", "sign", "tukey"):
        power = pdireval.discriminative_power(scores, method=method, alpha=0.1, n_resamples=300, rng=2)
        res = pdireval.compare(scores, method=method, n_resamples=300, rng=2)
        expected = res.groupby("measure", sort=False).p_value.apply(lambda p: int((p < 0.1).sum()))
        assert list(power.measure) == ["AP", "P@10"]
        assert list(power.n_significant) == list(expected)
        assert (power.n_pairs == 15).all()
        np.testing.assert_allclose(power.power, power.n_significant / 15)
        assert power.required_diff.notna().all() == (method in ("bootstrap", "tukey"))


def test_tukey_required_diff_is_the_significance_threshold():
    scores = two_measures()
    power = pdireval.discriminative_power(scores, method="tukey", n_resamples=400, rng=3)
    res = pdireval.compare(scores, method="tukey", n_resamples=400, rng=3)
    for m, req in zip(power.measure, power.required_diff):
        r = res[res.measure == m]
        sig = r.p_value < 0.05
        assert (r.statistic[sig] >= req - 1e-9).all() and (r.statistic[~sig] < req + 1e-9).all()


def test_asl_curve_is_sorted_compare():
    scores = two_measures()
    curve = pdireval.asl_curve(scores, n_resamples=200, rng=5)
    res = pdireval.compare(scores, n_resamples=200, rng=5)
    assert list(curve.columns) == ["measure", "method", "rank", "system_a", "system_b", "p_value"]
    for m in ("AP", "P@10"):
        c = curve[curve.measure == m]
        assert list(c["rank"]) == list(range(1, 16))
        assert c.p_value.is_monotonic_increasing
        np.testing.assert_array_equal(np.sort(res[res.measure == m].p_value), c.p_value)


def test_conflicts_match_decisions():
    scores = two_measures()
    conf = scores.ireval.decision_conflicts(method="t", alpha=0.05)
    res = pdireval.compare(scores, method="t")
    a = res[res.measure == "AP"].p_value.to_numpy() < 0.05
    b = res[res.measure == "P@10"].p_value.to_numpy() < 0.05
    row = conf.iloc[0]
    assert (row.measure_a, row.measure_b) == ("AP", "P@10")
    assert row.n_conflicts == int((a != b).sum())
    assert row.n_both == int((a & b).sum())
    assert row.n_significant_a == a.sum() and row.n_significant_b == b.sum()
    assert row.conflict_rate == pytest.approx(row.n_conflicts / 15)
    same = pdireval.decision_conflicts(pd.concat([scores_from_matrix(random_matrix(10, 4), m) for m in ("A", "B")]), method="t")
    assert same.n_conflicts.item() == 0


def test_alpha_validation():
    with pytest.raises(ValueError, match="alpha"):
        pdireval.discriminative_power(two_measures(), alpha=5)


def test_a_compare_result_is_reused_not_rerun(monkeypatch):
    import pdireval.meta.power as power_module

    scores = two_measures()
    tests = pdireval.compare(scores, n_resamples=300, rng=4)
    expected_curve = pdireval.asl_curve(scores, n_resamples=300, rng=4)
    expected_conf = pdireval.decision_conflicts(scores, n_resamples=300, rng=4)
    expected_power = pdireval.discriminative_power(scores, n_resamples=300, rng=4)

    def no_rerun(*args, **kwargs):
        raise AssertionError("compare() was rerun")

    monkeypatch.setattr(power_module, "compare", no_rerun)
    pd.testing.assert_frame_equal(pdireval.asl_curve(tests), expected_curve)
    pd.testing.assert_frame_equal(pdireval.decision_conflicts(tests), expected_conf)
    got = pdireval.discriminative_power(tests)
    pd.testing.assert_frame_equal(got.drop(columns="required_diff"), expected_power.drop(columns="required_diff"))
    assert got["required_diff"].isna().all()
    with pytest.raises(OptionError, match="compare\\(\\) result"):
        pdireval.asl_curve(tests, n_resamples=50)
    with pytest.raises(OptionError, match="rng"):
        pdireval.decision_conflicts(tests, rng=1)


def test_a_compare_result_with_alpha_carries_sakais_required_difference(monkeypatch):
    import pdireval.meta.power as power_module

    scores = two_measures()
    expected = pdireval.discriminative_power(scores, alpha=0.1, n_resamples=300, rng=4)
    tests = pdireval.compare(scores, required_diff_alpha=0.1, n_resamples=300, rng=4)
    assert (tests["required_alpha"] == 0.1).all() and tests["required_diff"].notna().all()

    def no_rerun(*args, **kwargs):
        raise AssertionError("compare() was rerun")

    monkeypatch.setattr(power_module, "compare", no_rerun)
    got = pdireval.discriminative_power(tests, alpha=0.1)
    pd.testing.assert_frame_equal(got, expected)  # required_diff included: one bootstrap, same number
    # computed at another alpha: Sakai's estimate is not that of alpha=0.05, so NaN (not a wrong number)
    assert pdireval.discriminative_power(tests, alpha=0.05)["required_diff"].isna().all()
    tukey = pdireval.compare(scores, method="tukey", required_diff_alpha=0.05, n_resamples=400, rng=3)
    np.testing.assert_array_equal(
        pdireval.discriminative_power(tukey)["required_diff"],
        pdireval.discriminative_power(scores, method="tukey", n_resamples=400, rng=3)["required_diff"])


def test_compare_required_diff_only_where_it_is_defined():
    scores = two_measures()
    plain = pdireval.compare(scores, n_resamples=300, rng=4)
    assert plain["required_diff"].isna().all() and plain["required_alpha"].isna().all()
    assert pdireval.compare(scores, method="t", required_diff_alpha=0.05)["required_diff"].isna().all()
    one_sided = pdireval.compare(scores, required_diff_alpha=0.05, alternative="greater", n_resamples=300, rng=4)
    assert one_sided["required_diff"].isna().all()
    with pytest.raises(ValueError, match="alpha"):
        pdireval.compare(scores, required_diff_alpha=1.5)
