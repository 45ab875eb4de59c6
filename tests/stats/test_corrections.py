"""Multiple-comparison corrections: every method against statsmodels' multipletests, by hand,
and the properties every adjustment must have."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdireval.errors import OptionError
from pdireval.stats.corrections import CORRECTIONS, adjust_pvalues

STATSMODELS = {
    "bonferroni": "bonferroni",
    "sidak": "sidak",
    "holm": "holm",
    "holm-sidak": "holm-sidak",
    "hochberg": "simes-hochberg",
    "hommel": "hommel",
    "bh": "fdr_bh",
    "by": "fdr_by",
}


def families():
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 5, 17, 136, 400):
        yield rng.random(n) ** 3  # many small p-values
        yield np.round(rng.random(n), 2)  # ties
        p = rng.random(n)
        p[: n // 2] = 1e-12  # tiny values (Šidák's 1 − (1 − p)^m must not lose them)
        yield p


@pytest.mark.parametrize("method", sorted(STATSMODELS))
def test_matches_statsmodels(method):
    from statsmodels.stats.multitest import multipletests

    for p in families():
        with np.errstate(divide="ignore"):  # statsmodels' log1p(-1) for p = 1
            expected = multipletests(p, method=STATSMODELS[method])[1]
        np.testing.assert_allclose(adjust_pvalues(p, method), expected, rtol=1e-12, atol=1e-300)


def test_hand_computed():
    p = np.array([0.01, 0.04, 0.03, 0.20])
    m = 4
    np.testing.assert_allclose(adjust_pvalues(p, "sidak"), 1 - (1 - p) ** m)
    # Holm–Šidák: sorted 0.01, 0.03, 0.04, 0.20 with exponents 4, 3, 2, 1, then running max
    hs = [1 - 0.99**4, 1 - 0.97**3, 1 - 0.96**2, 0.20]
    hs = np.maximum.accumulate(hs)
    np.testing.assert_allclose(adjust_pvalues(p, "holm-sidak"), [hs[0], hs[2], hs[1], hs[3]])
    # Hochberg: (m − j + 1)·p_(j) = 0.04, 0.09, 0.08, 0.20, running min from the top
    np.testing.assert_allclose(adjust_pvalues(p, "hochberg"), [0.04, 0.08, 0.08, 0.20])
    # BY = BH × (1 + 1/2 + 1/3 + 1/4); BH: 0.04, 0.0533.., 0.0533.., 0.20
    c = 1 + 1 / 2 + 1 / 3 + 1 / 4
    np.testing.assert_allclose(adjust_pvalues(p, "by"), np.minimum(1, c * np.array([0.04, 0.16 / 3, 0.16 / 3, 0.2])))
    # Hommel with two p-values: p_(2) stays, p_(1) -> max(p_(1)... ) = min(2 p_(1), p_(2)) bounded below by p_(1)
    np.testing.assert_allclose(adjust_pvalues([0.01, 0.04], "hommel"), [0.02, 0.04])
    np.testing.assert_allclose(adjust_pvalues([0.03, 0.04], "hommel"), [0.04, 0.04])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=40), st.sampled_from([c for c in CORRECTIONS if c]))
def test_properties(values, method):
    p = np.array(values)
    adj = adjust_pvalues(p, method)
    assert np.all(adj >= p - 1e-15) and np.all(adj <= 1.0)
    # monotone: a smaller p-value never gets a larger adjusted value
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adj[order]) >= -1e-12)


def test_nan_left_out_and_order_kept():
    p = np.array([0.2, np.nan, 0.01, 0.03])
    for method in CORRECTIONS[1:]:
        adj = adjust_pvalues(p, method)
        assert np.isnan(adj[1])
        np.testing.assert_allclose(adj[[0, 2, 3]], adjust_pvalues(p[[0, 2, 3]], method))


def test_unknown_method():
    with pytest.raises(OptionError, match="correction= must be one of"):
        adjust_pvalues([0.1], "fdr")
