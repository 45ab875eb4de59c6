"""Rank correlations: worked examples, scipy oracles, brute-force references, frame API."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

import pdireval
from pdireval.errors import PdirevalError, SchemaError
from pdireval.stats.rank_correlation import kendall_tau, rank_correlation, tau_ap


def brute_counts(x, y):
    c = d = n1 = n2 = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        sx = np.sign(x[i] - x[j])
        sy = np.sign(y[i] - y[j])
        c += sx * sy > 0
        d += sx * sy < 0
        n1 += sx == 0
        n2 += sy == 0
    return c, d, n1, n2, len(x) * (len(x) - 1) // 2


def test_worked_example_tau():
    assert kendall_tau([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.6)
    for v in ("a", "b", "gamma"):
        assert kendall_tau([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], variant=v) == pytest.approx(0.6)


def test_worked_example_tau_ap():
    x = [5, 4, 3, 2, 1]
    assert tau_ap(x, [4, 5, 3, 2, 1]) == pytest.approx(0.5)
    assert tau_ap(x, [5, 4, 3, 1, 2]) == pytest.approx(0.875)
    assert kendall_tau(x, [4, 5, 3, 2, 1]) == pytest.approx(0.8)


def brute_tau_ap(x, y):
    order = sorted(range(len(x)), key=lambda i: -x[i])
    total = 0.0
    for pos in range(1, len(order)):
        item = order[pos]
        c = sum(y[order[k]] > y[item] for k in range(pos))
        total += c / pos
    return 2 / (len(x) - 1) * total - 1


@settings(max_examples=50, deadline=None)
@given(hs.integers(2, 15), hs.integers(0, 2**16))
def test_tau_ap_matches_brute_force_and_identity(n, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.permutation(n).astype(float), rng.permutation(n).astype(float)
    assert tau_ap(x, y) == pytest.approx(brute_tau_ap(x, y))
    assert tau_ap(x, x) == pytest.approx(1.0)
    assert tau_ap(x, y, symmetric=True) == pytest.approx((brute_tau_ap(x, y) + brute_tau_ap(y, x)) / 2)


def test_tau_ap_ties_are_an_error():
    with pytest.raises(PdirevalError, match="ties"):
        tau_ap([1, 1, 2], [1, 2, 3])


@settings(max_examples=60, deadline=None)
@given(hs.integers(2, 20), hs.integers(0, 2**16))
def test_kendall_variants_match_definitions_and_scipy(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, n).astype(float)
    y = rng.integers(0, 5, n).astype(float)
    c, d, n1, n2, n0 = brute_counts(x, y)
    tau_a = kendall_tau(x, y, "a")
    assert tau_a == pytest.approx((c - d) / n0)
    gamma = kendall_tau(x, y, "gamma")
    if c + d:
        assert gamma == pytest.approx((c - d) / (c + d))
    else:
        assert np.isnan(gamma)
    tau_b = kendall_tau(x, y, "b")
    ref = st.kendalltau(x, y).statistic if (n0 - n1) and (n0 - n2) else np.nan
    if np.isnan(ref):
        assert np.isnan(tau_b)
    else:
        assert tau_b == pytest.approx(ref, abs=1e-12)


def test_rank_correlation_p_values_match_scipy():
    rng = np.random.default_rng(0)
    x, y = rng.random(12), rng.random(12)
    assert rank_correlation(x, y, "kendall_b") == pytest.approx(tuple(st.kendalltau(x, y)))
    assert rank_correlation(x, y, "spearman") == pytest.approx(tuple(st.spearmanr(x, y)))
    assert rank_correlation(x, y, "pearson") == pytest.approx(tuple(st.pearsonr(x, y)))
    stat, p = rank_correlation(x, y, "kendall_a")  # no ties: tau_a = tau_b
    assert (stat, p) == pytest.approx(tuple(st.kendalltau(x, y)))
    assert np.isnan(rank_correlation(x, y, "gamma")[1])


def _scores(means, measure, n_queries=3, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for s, mu in means.items():
        noise = rng.normal(0, 0.01, n_queries)
        noise -= noise.mean()
        for q in range(n_queries):
            rows.append((s, f"q{q}", measure, mu + noise[q]))
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])


def test_correlate_frame():
    a = {"s1": 0.1, "s2": 0.2, "s3": 0.3, "s4": 0.4, "s5": 0.5}
    b = {"s1": 0.2, "s2": 0.1, "s3": 0.4, "s4": 0.3, "s5": 0.5}
    scores = pd.concat([_scores(a, "AP"), _scores(b, "P@10", seed=1), _scores(a, "nDCG@10", seed=2)])
    res = pdireval.correlate(scores)
    assert list(res.columns) == ["measure_a", "measure_b", "method", "statistic", "p_value", "n_systems"]
    assert list(zip(res.measure_a, res.measure_b)) == [("AP", "P@10"), ("AP", "nDCG@10"), ("P@10", "nDCG@10")]
    np.testing.assert_allclose(res.statistic, [0.6, 1.0, 0.6])
    assert (res.n_systems == 5).all()
    multi = scores.ireval.correlate(method=["kendall_b", "tau_ap", "spearman"])
    assert len(multi) == 9
    row = multi[(multi.measure_a == "AP") & (multi.method == "tau_ap") & (multi.measure_b == "P@10")]
    xa = np.array(list(a.values()))
    xb = np.array(list(b.values()))
    assert row.statistic.item() == pytest.approx(tau_ap(xa, xb))


def test_correlate_two_frames_and_groups():
    a = {"s1": 0.1, "s2": 0.2, "s3": 0.3}
    b = {"s1": 0.3, "s2": 0.2, "s3": 0.1}
    left = _scores(a, "AP")
    right = _scores(b, "AP")
    res = pdireval.correlate(left, right)
    assert res.statistic.item() == pytest.approx(-1.0)
    left["collection"] = "x"
    with pytest.raises(SchemaError, match="grouping columns"):
        pdireval.correlate(left, right)
    right["collection"] = "x"
    assert pdireval.correlate(left, right).collection.item() == "x"
    with pytest.raises(SchemaError, match="different systems"):
        pdireval.correlate(left, right[right.system != "s1"])


def test_correlate_errors():
    scores = _scores({"s1": 0.1, "s2": 0.2}, "AP")
    with pytest.raises(ValueError, match="method="):
        pdireval.correlate(scores, method="kendall")
    other = _scores({"s1": 0.1}, "P@5")
    with pytest.raises(SchemaError, match="every system a mean"):
        pdireval.correlate(pd.concat([scores, other]))


def test_tied_means_give_nan_tau_ap_in_correlate_as_in_leaderboard_agreement():
    """Issue 29: given tied means, correlate(method="tau_ap") raised while
    leaderboard_agreement returned NaN; both now answer NaN (τ_AP assumes total orders)."""
    import pandas as pd

    import pdireval

    ap = pd.DataFrame({"system": ["a", "b", "c"] * 2, "query": ["1"] * 3 + ["2"] * 3, "measure": "AP",
                       "value": [0.5, 0.5, 0.2, 0.1, 0.1, 0.3]})  # a and b tie at 0.3
    p10 = ap.assign(measure="P@10", value=[0.3, 0.2, 0.1, 0.3, 0.2, 0.1])
    corr = pdireval.correlate(pd.concat([ap, p10]), method=["tau_ap", "tau_ap_sym", "kendall_b"])
    assert corr.loc[corr["method"] != "kendall_b", "statistic"].isna().all()
    assert corr.loc[corr["method"] == "kendall_b", "statistic"].notna().all()
    board = pdireval.leaderboard_agreement(ap, p10.assign(measure="AP"))
    assert np.isnan(board.loc[board["statistic"] == "tau_ap", "value"].item())
    untied = pdireval.correlate(pd.concat([p10, p10.assign(measure="P@5")]), method="tau_ap")
    assert untied["statistic"].item() == pytest.approx(1.0)


def _rbo_ext_lists(a, b, p):
    """Webber, Moffat & Zobel's (2010) eq. 32 for two full lists of the same items."""
    k = len(a)
    agree = [len(set(a[:d]) & set(b[:d])) / d for d in range(1, k + 1)]
    return agree[-1] * p**k + (1 - p) / p * sum(x * p**d for d, x in enumerate(agree, 1))


def _orders(means):
    """Every ranking by ``means`` descending, tied systems in every order."""
    levels = sorted(set(means.values()), reverse=True)
    groups = [[s for s in means if means[s] == v] for v in levels]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [s for part in parts for s in part]


def test_correlate_rbo_averages_every_order_of_tied_systems_not_name_order():
    """Issue 33: the docstring said tied systems go in name order; the code (rightly) takes
    the mean over every order of the tied systems, here against enumeration."""
    m1 = {"a": 0.5, "b": 0.5, "c": 0.2, "d": 0.1, "e": 0.1}
    m2 = {"a": 0.2, "b": 0.2, "c": 0.4, "d": 0.2, "e": 0.3}
    scores = pd.DataFrame(
        [(s, "q1", m, v) for m, means in (("m1", m1), ("m2", m2)) for s, v in means.items()],
        columns=["system", "query", "measure", "value"],
    )
    got = pdireval.correlate(scores, method="rbo", p=0.8)["statistic"].item()
    values = [
        _rbo_ext_lists(a, b, 0.8) for a in _orders(m1) for b in _orders(m2)
    ]
    assert len(values) == 4 * 6
    assert got == pytest.approx(np.mean(values), abs=1e-12)
    in_name_order = _rbo_ext_lists(["a", "b", "c", "d", "e"], ["c", "e", "a", "b", "d"], 0.8)
    assert abs(got - in_name_order) > 1e-3
    renamed = scores.replace({"system": {"a": "z", "e": "0"}})
    assert pdireval.correlate(renamed, method="rbo", p=0.8)["statistic"].item() == got
    assert "every order" in pdireval.correlate.__doc__
