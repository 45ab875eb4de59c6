"""compare(margin=): TOST equivalence and non-inferiority tests."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import pdireval
from pdireval.errors import OptionError
from pdireval.stats.paired_tests import bootstrap_test
from tests.helpers import random_matrix, scores_from_matrix

DELTA = 0.05


@pytest.fixture
def data():
    x = random_matrix(n=25, m=4, seed=3)
    return x, scores_from_matrix(x)


def _columns(x, row):
    return x[:, int(row.system_a[1:])], x[:, int(row.system_b[1:])]


def test_tost_t_is_max_of_two_ttest_rel(data):
    x, frame = data
    out = pdireval.compare(frame, method="t", margin=DELTA)
    assert {"margin", "p_lower", "p_upper"} <= set(out.columns)
    for row in out.itertuples():
        a, b = _columns(x, row)
        p_lo = stats.ttest_rel(a + DELTA, b, alternative="greater").pvalue
        p_up = stats.ttest_rel(a - DELTA, b, alternative="less").pvalue
        assert row.p_lower == pytest.approx(p_lo, rel=1e-10)
        assert row.p_upper == pytest.approx(p_up, rel=1e-10)
        assert row.p_value == pytest.approx(max(p_lo, p_up), rel=1e-10)


def test_non_inferiority_and_superiority(data):
    x, frame = data
    greater = pdireval.compare(frame, method="t", margin=DELTA, alternative="greater")
    less = pdireval.compare(frame, method="t", margin=DELTA, alternative="less")
    for g, le in zip(greater.itertuples(), less.itertuples()):
        a, b = _columns(x, g)
        assert g.p_value == pytest.approx(
            stats.ttest_rel(a + DELTA, b, alternative="greater").pvalue, rel=1e-10)
        assert np.isnan(g.p_upper) and np.isnan(le.p_lower)
        assert le.p_value == pytest.approx(
            stats.ttest_rel(a - DELTA, b, alternative="less").pvalue, rel=1e-10)


def test_tost_wilcoxon_and_bootstrap(data):
    x, frame = data
    wil = pdireval.compare(frame, method="wilcoxon", margin=DELTA)
    boot = pdireval.compare(frame, method="bootstrap", margin=DELTA, rng=9)
    for w, bt in zip(wil.itertuples(), boot.itertuples()):
        a, b = _columns(x, w)
        p_lo = stats.wilcoxon(a - b + DELTA, alternative="greater").pvalue
        p_up = stats.wilcoxon(a - b - DELTA, alternative="less").pvalue
        assert w.p_value == pytest.approx(max(p_lo, p_up), rel=1e-10)
        # the bootstrap's one-sided tests on the shifted differences, same draws
        lo = bootstrap_test(a + DELTA, b, alternative="greater", rng=9).p_value
        up = bootstrap_test(a - DELTA, b, alternative="less", rng=9).p_value
        assert bt.p_value == max(lo, up)


def test_identical_systems_are_equivalent():
    x = random_matrix(n=20, m=2, seed=5)
    x[:, 1] = x[:, 0] + np.random.default_rng(6).normal(0.001, 0.002, size=20)
    for method in ("t", "wilcoxon", "sign", "bootstrap", "randomization"):
        out = pdireval.compare(scores_from_matrix(x), method=method, margin=DELTA)
        assert out["p_value"].iloc[0] < 0.01, method


def test_no_margin_no_new_columns(data):
    _, frame = data
    assert "margin" not in pdireval.compare(frame, method="t").columns


def test_bad_margin(data):
    _, frame = data
    with pytest.raises(OptionError, match="margin"):
        pdireval.compare(frame, method="tukey", margin=DELTA)
    with pytest.raises(OptionError, match="margin"):
        pdireval.compare(frame, method="t", margin=0)
    with pytest.raises(TypeError, match="margin"):
        pdireval.compare(frame, method="t", margin="0.1")
