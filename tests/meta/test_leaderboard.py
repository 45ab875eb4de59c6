"""pdireval.leaderboard_agreement and correlate(method="rbo"): against scipy and by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import pdireval
from pdireval.errors import OptionError, SchemaError
from pdireval.meta.leaderboard import LEADERBOARD_STATISTICS


def _frame(x, measure="AP", systems=None):
    n_q, n_s = x.shape
    systems = systems or [f"s{i:02d}" for i in range(n_s)]
    return pd.DataFrame({
        "system": np.tile(systems, n_q),
        "query": np.repeat([str(q) for q in range(n_q)], n_s),
        "measure": measure,
        "value": x.ravel(),
    })


@pytest.fixture(scope="module")
def two():
    rng = np.random.default_rng(0)
    base = rng.uniform(0.1, 0.5, 8)
    xa = np.clip(base + rng.normal(0, 0.15, (30, 8)), 0, 1)
    xb = np.clip(xa + rng.normal(0, 0.1, (30, 8)) + np.linspace(0, 0.1, 8), 0, 1)  # biased judge
    return xa, xb


def _rbo_direct(order_a, order_b, p):
    k = len(order_a)
    agree = [len(set(order_a[:d]) & set(order_b[:d])) / d for d in range(1, k + 1)]
    return agree[-1] * p**k + (1 - p) / p * sum(agree[d - 1] * p**d for d in range(1, k + 1))


def test_statistics_against_scipy_and_by_hand(two):
    xa, xb = two
    res = pdireval.leaderboard_agreement(_frame(xa), _frame(xb), p=0.8, k=3)
    assert list(res["statistic"]) == list(LEADERBOARD_STATISTICS)
    v = res.set_index("statistic")["value"]
    ma, mb = xa.mean(axis=0), xb.mean(axis=0)
    assert v["kendall_tau_b"] == pytest.approx(scipy.stats.kendalltau(ma, mb).statistic)
    assert v["tau_ap"] == pytest.approx(pdireval.stats.rank_correlation.tau_ap(mb, ma))
    oa, ob = list(np.argsort(-ma)), list(np.argsort(-mb))
    assert v["rbo"] == pytest.approx(_rbo_direct(oa, ob, 0.8))
    assert v["top_k_overlap"] == pytest.approx(len(set(oa[:3]) & set(ob[:3])) / 3)
    assert v["max_rank_change"] == max(abs(oa.index(s) - ob.index(s)) for s in range(8))
    assert v["score_pearson"] == pytest.approx(scipy.stats.pearsonr(xa.ravel(), xb.ravel()).statistic)
    per_q = [scipy.stats.kendalltau(xa[q], xb[q]).statistic for q in range(30)]
    assert v["query_kendall_mean"] == pytest.approx(np.nanmean(per_q))
    sig_a, sig_b, same = [], [], []
    for i in range(8):
        for j in range(i + 1, 8):
            ta = scipy.stats.ttest_rel(xa[:, i], xa[:, j])
            tb = scipy.stats.ttest_rel(xb[:, i], xb[:, j])
            sig_a.append(ta.pvalue < 0.05)
            sig_b.append(tb.pvalue < 0.05)
            same.append(np.sign(ta.statistic) == np.sign(tb.statistic))
    sig_a, sig_b, same = map(np.array, (sig_a, sig_b, same))
    assert v["sig_both_same"] == pytest.approx(np.mean(sig_a & sig_b & same))
    assert v["sig_both_flipped"] == pytest.approx(np.mean(sig_a & sig_b & ~same))
    assert v["sig_only_scores"] == pytest.approx(np.mean(sig_a & ~sig_b))
    assert v["sig_only_other"] == pytest.approx(np.mean(~sig_a & sig_b))
    assert v["sig_neither"] == pytest.approx(np.mean(~sig_a & ~sig_b))
    assert v["sig_agreement"] == pytest.approx(v["sig_both_same"] + v["sig_neither"])
    assert (res["n_systems"] == 8).all() and (res["n_queries"] == 30).all()


def test_identical_frames(two):
    xa, _ = two
    v = pdireval.leaderboard_agreement(_frame(xa), _frame(xa)).set_index("statistic")["value"]
    for s in ("kendall_tau_b", "tau_ap", "rbo", "top_k_overlap", "score_pearson",
              "query_kendall_mean", "sig_agreement"):
        assert v[s] == pytest.approx(1.0), s
    assert v["max_rank_change"] == 0 and v["sig_both_flipped"] == 0


def test_two_measures_without_other_and_per_system(two):
    xa, xb = two
    frame = pd.concat([_frame(xa, "AP"), _frame(xb, "nDCG")], ignore_index=True)
    res = pdireval.leaderboard_agreement(frame)
    assert set(zip(res["measure_a"], res["measure_b"])) == {("AP", "nDCG")}
    same = pdireval.leaderboard_agreement(_frame(xa), _frame(xb, "AP"))
    np.testing.assert_allclose(res["value"], same["value"])
    table = pdireval.leaderboard_agreement(_frame(xa), _frame(xb), per_system=True)
    assert list(table["rank_a"]) == list(range(1, 9))
    assert (table["rank_change"] == table["rank_a"] - table["rank_b"]).all()
    np.testing.assert_allclose(table.set_index("system")["mean_b"].sort_index(), xb.mean(axis=0))


def test_queries_are_matched_and_systems_must_match(two):
    xa, xb = two
    fa, fb = _frame(xa), _frame(xb)
    fewer = fb[fb["query"].astype(int) < 20]
    res = pdireval.leaderboard_agreement(fa, fewer)
    assert (res["n_queries"] == 20).all()
    with pytest.raises(SchemaError, match="different systems"):
        pdireval.leaderboard_agreement(fa, fb[fb["system"] != "s00"])
    with pytest.raises(OptionError, match="one measure"):
        pdireval.leaderboard_agreement(fa)
    with pytest.raises(OptionError, match="p="):
        pdireval.leaderboard_agreement(fa, fb, p=1.0)


def test_robust03_leaderboard_under_perturbed_qrels(robust03):
    run, qrels = robust03
    rng = np.random.default_rng(1)
    other = qrels.copy()
    flip = rng.random(len(other)) < 0.1
    other.loc[flip, "label"] = 1.0 - np.minimum(other.loc[flip, "label"], 1.0)
    a = pdireval.evaluate(run, "AP", qrels=qrels)
    b = pdireval.evaluate(run, "AP", qrels=other)
    v = pdireval.leaderboard_agreement(a, b).set_index("statistic")["value"]
    ma = a.groupby("system")["value"].mean()
    mb = b.groupby("system")["value"].mean().loc[ma.index]
    assert v["kendall_tau_b"] == pytest.approx(scipy.stats.kendalltau(ma, mb).statistic)
    assert 0.0 <= v["rbo"] <= 1.0


def test_correlate_rbo(two):
    xa, xb = two
    frame = pd.concat([_frame(xa, "AP"), _frame(xb, "nDCG")], ignore_index=True)
    res = pdireval.correlate(frame, method="rbo", p=0.8)
    oa, ob = list(np.argsort(-xa.mean(axis=0))), list(np.argsort(-xb.mean(axis=0)))
    assert res["statistic"].iloc[0] == pytest.approx(_rbo_direct(oa, ob, 0.8))
    assert np.isnan(res["p_value"].iloc[0])
    lead = pdireval.leaderboard_agreement(frame, p=0.8).set_index("statistic")["value"]["rbo"]
    assert res["statistic"].iloc[0] == pytest.approx(lead)


def test_paired_t_constant_differences():
    """Copies and constant shifts: the covariance shortcut must not turn 0/0 into noise."""
    from pdireval.meta.leaderboard import _paired_t_pvalues

    rng = np.random.default_rng(3)
    base = rng.uniform(0, 1, 40)
    x = np.column_stack([base, base.copy(), base + 0.05, rng.uniform(0, 1, 40)])
    i, j = np.triu_indices(4, 1)
    p, diff = _paired_t_pvalues(x, i, j)
    got = dict(zip(zip(i.tolist(), j.tolist()), p))
    assert got[0, 1] == 1.0  # identical systems
    assert got[0, 2] == 0.0 and got[1, 2] == 0.0  # a constant non-zero difference
    for (a, b), value in got.items():
        if b == 3:
            assert value == pytest.approx(scipy.stats.ttest_rel(x[:, a], x[:, b]).pvalue, rel=1e-9)
