"""Query-bootstrap intervals of correlate() and leaderboard_agreement()."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import OptionError, PdirevalWarning
from pdireval.stats.rank_correlation import rank_correlation
from pdireval.stats.rank_overlap import rbo_ext, top_k_overlap
from tests.helpers import random_matrix, scores_from_matrix

N, M, B = 30, 7, 200


@pytest.fixture
def two():
    x = random_matrix(n=N, m=M, seed=1, ties=False)
    y = x + np.random.default_rng(2).normal(0, 0.15, size=x.shape)
    return x, y


def _positions(v):
    pos = np.empty(len(v), dtype=np.int64)
    pos[np.argsort(-v, kind="stable")] = np.arange(len(v))
    return pos[None]


def test_correlate_interval_equals_plain_loop(two):
    x, y = two
    frame = pd.concat([scores_from_matrix(x, "AP"), scores_from_matrix(y, "P@10")],
                      ignore_index=True)
    methods = ["kendall_b", "tau_ap_b", "rbo", "spearman"]
    out = pdireval.correlate(frame, method=methods, confidence_level=0.9, n_resamples=B, rng=4)
    idx = np.random.default_rng(4).integers(0, N, size=(B, N))  # the same queries, both sides
    for row in out.itertuples():
        reps = [rank_correlation(x[r].mean(axis=0), y[r].mean(axis=0), row.method)[0]
                for r in idx]
        lo, hi = np.quantile(reps, [0.05, 0.95])
        assert row.ci_low == pytest.approx(lo, abs=1e-12)
        assert row.ci_high == pytest.approx(hi, abs=1e-12)
    assert "ci_low" not in pdireval.correlate(frame).columns


def test_leaderboard_interval_equals_plain_loop(two):
    x, y = two
    a, b = scores_from_matrix(x), scores_from_matrix(y)
    before = a.copy()
    out = pdireval.leaderboard_agreement(a, b, confidence_level=0.95, n_resamples=B, k=3, rng=5)
    pd.testing.assert_frame_equal(a, before)
    got = out.set_index("statistic")
    idx = np.random.default_rng(5).integers(0, N, size=(B, N))
    reps = {"kendall_tau_b": [], "tau_ap": [], "tau_ap_b": [], "rbo": [], "top_k_overlap": []}
    for r in idx:
        ma, mb = x[r].mean(axis=0), y[r].mean(axis=0)
        reps["kendall_tau_b"].append(rank_correlation(ma, mb, "kendall_b")[0])
        reps["tau_ap"].append(rank_correlation(mb, ma, "tau_ap")[0])
        reps["tau_ap_b"].append(rank_correlation(ma, mb, "tau_ap_b")[0])
        reps["rbo"].append(rbo_ext(_positions(ma), _positions(mb), 0.9)[0])
        reps["top_k_overlap"].append(top_k_overlap(_positions(ma), _positions(mb), 3)[0])
    for name, values in reps.items():
        lo, hi = np.quantile(values, [0.025, 0.975])
        assert got.loc[name, "ci_low"] == pytest.approx(lo, abs=1e-12), name
        assert got.loc[name, "ci_high"] == pytest.approx(hi, abs=1e-12), name
        assert got.loc[name, "ci_low"] <= got.loc[name, "ci_high"]
    assert got[["ci_low", "ci_high"]].loc["max_rank_change"].isna().all()


def test_tau_ap_b_in_leaderboard_and_tied_replicates_warn():
    # 0/1 values (like P@1): distinct observed means, tied means in many replicates
    rng = np.random.default_rng(3)
    x = np.zeros((12, 6))
    for s in range(6):
        x[rng.permutation(12)[: s + 3], s] = 1.0
    a, b = scores_from_matrix(x), scores_from_matrix(x * 0.9)
    with pytest.warns(PdirevalWarning, match="tau_ap_b"):
        out = pdireval.leaderboard_agreement(a, b, confidence_level=0.95, n_resamples=300)
    got = out.set_index("statistic")
    assert np.isfinite(got.loc["tau_ap_b", ["ci_low", "ci_high"]].astype(float)).all()


def test_bad_options(two):
    x, _ = two
    frame = scores_from_matrix(x)
    with pytest.raises(OptionError, match="confidence_level"):
        pdireval.leaderboard_agreement(frame, frame, confidence_level=1.5)
    with pytest.raises(OptionError, match="n_resamples"):
        pdireval.correlate(frame, frame, confidence_level=0.9, n_resamples=1)


def _tied_matrix(seed):
    """P@10-like values with planted exact ties: s01 is s00 with two queries swapped (a tie in
    every resample drawing both equally often), s04 is s00 in another query order."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 11, size=(8, 5)) / 10
    x[:, 1] = x[:, 0]
    x[[0, 1], 1] = x[[1, 0], 0]
    x[:, 4] = x[rng.permutation(8), 0]
    return x


def _exact_replicate_means(x, idx):
    """Correctly rounded means (exact Fraction sums of the doubles, rounded once, / count) of
    every replicate: the definition the observed leaderboards use."""
    from fractions import Fraction

    frac = [[Fraction(v) for v in row] for row in x]
    return [np.array([float(sum(frac[r][j] for r in rows)) / len(rows) for j in range(x.shape[1])])
            for rows in idx]


def test_intervals_tie_replicate_means_as_the_observed_means_tie():
    x, y = _tied_matrix(1), _tied_matrix(2)
    frame = pd.concat([scores_from_matrix(x, "AP"), scores_from_matrix(y, "P@10")], ignore_index=True)
    methods = ["kendall_b", "tau_ap_b", "spearman"]
    out = pdireval.correlate(frame, method=methods, confidence_level=0.9, n_resamples=B, rng=4)
    idx = np.random.default_rng(4).integers(0, 8, size=(B, 8))
    ma, mb = _exact_replicate_means(x, idx), _exact_replicate_means(y, idx)
    for row in out.itertuples():
        reps = [rank_correlation(a, b, row.method)[0] for a, b in zip(ma, mb)]
        lo, hi = np.quantile(reps, [0.05, 0.95])
        assert (row.ci_low, row.ci_high) == pytest.approx((lo, hi), abs=1e-12), row.method
    agree = pdireval.leaderboard_agreement(scores_from_matrix(x), scores_from_matrix(y), confidence_level=0.9,
                                           n_resamples=B, rng=4).set_index("statistic")
    for name, method in (("kendall_tau_b", "kendall_b"), ("tau_ap_b", "tau_ap_b")):
        reps = [rank_correlation(a, b, method)[0] for a, b in zip(ma, mb)]
        lo, hi = np.quantile(reps, [0.05, 0.95])
        assert tuple(agree.loc[name, ["ci_low", "ci_high"]]) == pytest.approx((lo, hi), abs=1e-12), name


def test_one_query_gives_nan_intervals_with_aggregates_warning():
    """One query: every replicate is the observed leaderboard, so an interval would have zero
    width; NaN with the warning aggregate() gives (the same rule everywhere)."""
    x = np.array([[0.1, 0.2, 0.3]])
    y = np.array([[0.3, 0.1, 0.2]])
    two = pd.concat([scores_from_matrix(x, "AP"), scores_from_matrix(y, "P@10")], ignore_index=True)
    with pytest.warns(PdirevalWarning, match=r"1 measure pair\(s\) with a single query have no bootstrap "
                      r"interval \(ci_low and ci_high are NaN\): measures 'AP' and 'P@10'"):
        out = pdireval.correlate(two, method=["kendall_b", "rbo"], confidence_level=0.9, rng=1)
    assert out[["ci_low", "ci_high"]].isna().all().all() and out["statistic"].notna().all()
    with pytest.warns(PdirevalWarning, match="single query have no bootstrap interval"):
        other = pdireval.correlate(scores_from_matrix(x), scores_from_matrix(random_matrix(n=5, m=3)),
                                   confidence_level=0.9, rng=1)
    assert other[["ci_low", "ci_high"]].isna().all().all()
    with pytest.warns(PdirevalWarning, match=r"1 group\(s\) with a single query have no bootstrap interval "
                      r"\(ci_low and ci_high are NaN\): measures 'AP' and 'AP'. An interval needs variation"):
        agree = pdireval.leaderboard_agreement(scores_from_matrix(x), scores_from_matrix(y), confidence_level=0.9,
                                               rng=1)
    assert agree[["ci_low", "ci_high"]].isna().all().all()
    # aggregate's wording, which the two share
    with pytest.warns(PdirevalWarning, match="have no bootstrap interval .ci_low and ci_high are NaN.: .* An "
                      "interval needs variation across queries"):
        pdireval.aggregate(scores_from_matrix(x), confidence_level=0.9, method="bootstrap")
