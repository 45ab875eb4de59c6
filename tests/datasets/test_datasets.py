"""The simulated collection: reproducible, valid, and realistic in the ways that matter."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdireval
from pdireval import OptionError
from pdireval.datasets import simulate


def test_same_seed_same_frames_and_generators_work():
    a = simulate(n_systems=3, n_queries=4, depth=20, rng=11)
    b = simulate(n_systems=3, n_queries=4, depth=20, rng=11)
    c = simulate(n_systems=3, n_queries=4, depth=20, rng=np.random.default_rng(11))
    d = simulate(n_systems=3, n_queries=4, depth=20, rng=np.random.default_rng(11))
    for x, y in ((a, b), (c, d)):
        pd.testing.assert_frame_equal(x[0], y[0])
        pd.testing.assert_frame_equal(x[1], y[1])
    assert c[0].attrs["quality"] == d[0].attrs["quality"]
    other = simulate(n_systems=3, n_queries=4, depth=20, rng=12)
    assert not other[0]["score"].equals(a[0]["score"])


def test_shapes_dtypes_and_order():
    run, qrels = simulate(n_systems=4, n_queries=7, depth=25, rng=1)
    assert list(run.columns) == ["system", "query", "doc", "rank", "score"]
    assert len(run) == 4 * 7 * 25
    assert sorted(run["system"].unique()) == ["sys01", "sys02", "sys03", "sys04"]
    assert run["rank"].dtype == np.int64 and run["score"].dtype == np.float64
    assert list(qrels.columns) == ["query", "doc", "label"] and qrels["label"].dtype == np.float64
    assert not run.duplicated(["system", "query", "doc"]).any()
    assert not qrels.duplicated(["query", "doc"]).any()
    for _, group in run.groupby(["system", "query"]):
        assert group["rank"].tolist() == list(range(1, 26))
        assert (np.diff(group["score"].to_numpy()) <= 0).all()  # ranks follow scores
    assert isinstance(run.index, pd.RangeIndex) and isinstance(qrels.index, pd.RangeIndex)
    assert simulate(n_systems=12, n_queries=1, depth=1, rng=0)[0]["system"].iloc[-1] == "sys12"


def test_graded_labels_with_a_few_negatives():
    _, qrels = simulate(n_systems=5, n_queries=40, depth=50, max_label=3, rng=2)
    labels = qrels["label"]
    assert set(labels.unique()) == {-1.0, 0.0, 1.0, 2.0, 3.0}
    share = labels.value_counts(normalize=True)
    assert 0 < share[-1.0] < 0.06  # a few spam labels
    assert share[1.0] > share[2.0] > share[3.0]  # higher grades rarer
    per_query = qrels[labels > 0].groupby("query").size()
    assert per_query.max() > 3 * per_query.min()  # queries differ in their number of relevant docs
    assert (simulate(n_queries=5, negative_rate=0.0, rng=2)[1]["label"] >= 0).all()


def test_pooling_leaves_unjudged_documents():
    run, qrels = simulate(n_systems=4, n_queries=10, depth=50, pool_depth=10, rng=3)
    judged = run.merge(qrels, on=["query", "doc"], how="left")["label"].notna()
    assert 0.1 < judged.mean() < 0.9
    assert judged[run["rank"].to_numpy() <= 10].all()  # every system's top 10 is judged
    run_all, qrels_all = simulate(n_systems=4, n_queries=10, depth=50, pool_depth=None, rng=3)
    assert run_all.merge(qrels_all, on=["query", "doc"], how="left")["label"].notna().all()


def test_score_ties():
    run, _ = simulate(n_systems=3, n_queries=10, depth=100, rng=4)
    assert run.duplicated(["system", "query", "score"]).sum() > 10
    untied, _ = simulate(n_systems=3, n_queries=10, depth=100, score_decimals=None, rng=4)
    assert not untied.duplicated(["system", "query", "score"]).any()


def test_doc_ids_are_shared_across_queries():
    run, _ = simulate(n_systems=2, n_queries=20, depth=30, rng=5)
    docs = run.drop_duplicates(["query", "doc"]).groupby("doc")["query"].nunique()
    assert (docs > 1).mean() > 0.2


def test_better_systems_score_higher_on_average():
    run, qrels = simulate(n_systems=8, n_queries=100, depth=50, rng=6)
    means = pdireval.evaluate(run, "AP", qrels=qrels).groupby("system")["value"].mean()
    quality = pd.Series(run.attrs["quality"])
    rho = stats.spearmanr(quality[means.index], means).statistic
    assert rho > 0.8, (rho, quality.to_dict(), means.to_dict())
    assert quality.min() == pytest.approx(0.4) and quality.max() == pytest.approx(1.2)


def test_systems_equal_without_quality_spread():
    run, qrels = simulate(n_systems=6, n_queries=60, depth=50, quality_spread=0.0, rng=7)
    assert set(run.attrs["quality"].values()) == {0.4}
    means = pdireval.evaluate(run, "AP", qrels=qrels).groupby("system")["value"].mean()
    assert means.max() - means.min() < 0.1


def _variance_shares(scores):
    m = scores.pivot(index="query", columns="system", values="value").to_numpy()
    nq, ns = m.shape
    grand = m.mean()
    ms_s = nq * ((m.mean(0) - grand) ** 2).sum() / (ns - 1)
    ms_q = ns * ((m.mean(1) - grand) ** 2).sum() / (nq - 1)
    resid = m - m.mean(0)[None] - m.mean(1)[:, None] + grand
    ms_r = (resid**2).sum() / ((nq - 1) * (ns - 1))
    parts = np.array([max((ms_s - ms_r) / nq, 0), max((ms_q - ms_r) / ns, 0), ms_r])
    return parts / parts.sum()


def test_variance_components_resemble_trec():
    # TREC 2003 Robust, AP: system ~7 %, query ~73 %, interaction ~20 % of the variance
    run, qrels = simulate(n_systems=12, n_queries=50, depth=100, rng=8)
    system, query, interaction = _variance_shares(pdireval.evaluate(run, "AP", qrels=qrels))
    assert 0.02 < system < 0.25
    assert query > 0.4
    assert 0.1 < interaction < 0.5


def test_valid_for_evaluate_without_warnings():
    run, qrels = simulate(n_systems=3, n_queries=8, depth=30, rng=9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores = pdireval.evaluate(run, ["AP", "nDCG@10", "P@10", "Bpref"], qrels=qrels)
    assert len(scores) == 3 * 8 * 4
    assert scores["value"].between(0, 1).all()
    assert set(qrels["query"]) == set(run["query"])


@pytest.mark.parametrize(
    ("kwargs", "error", "fragment"),
    [
        ({"n_systems": 0}, OptionError, "n_systems= must be >= 1"),
        ({"n_queries": 2.5}, TypeError, "n_queries= must be an integer"),
        ({"depth": True}, TypeError, "depth= must be an integer"),
        ({"depth": 10, "n_candidates": 5}, OptionError, "n_candidates= must be >= 10"),
        ({"negative_rate": 1.5}, OptionError, "negative_rate= must be >= 0 and <= 1"),
        ({"quality_spread": -1}, OptionError, "quality_spread= must be >= 0"),
        ({"interaction": "big"}, TypeError, "interaction= must be a number"),
        ({"pool_depth": 0}, OptionError, "pool_depth= must be >= 1"),
        ({"max_label": 0}, OptionError, "max_label= must be >= 1"),
    ],
)
def test_bad_arguments(kwargs, error, fragment):
    with pytest.raises(error) as info:
        simulate(**kwargs)
    assert fragment in str(info.value)
