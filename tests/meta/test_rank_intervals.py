"""rank_uncertainty: rank intervals, P(best), expected rank and the top group."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
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
