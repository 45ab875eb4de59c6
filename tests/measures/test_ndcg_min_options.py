"""NDCG_min's degenerate= (Gienapp et al. 2020): the value where every ordering of the pool
scores the same (IDCG = WDCG)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval


def test_degenerate_sets_only_the_flat_queries():
    # query q: one distinct label (every ordering scores the same); query r: two labels
    qrels = pd.DataFrame({"query": ["q", "q", "r", "r"], "doc": ["a", "b", "a", "b"], "label": [1, 1, 2, 0]})
    run = pd.DataFrame({"system": "s", "query": ["q", "q", "r", "r"], "doc": ["a", "b", "b", "a"], "score": [2.0, 1.0, 2.0, 1.0]})
    names = ["nDCG(bounds=minmax)", "nDCG(bounds=minmax,degenerate=zero)", "nDCG(bounds=minmax,degenerate=one)"]
    got = pdireval.evaluate(run, names, qrels=qrels).pivot_table(index="query", columns="measure", values="value", dropna=False)
    assert np.isnan(got.loc["q", names[0]])
    assert got.loc["q", names[1]] == 0.0 and got.loc["q", names[2]] == 1.0
    # r is not degenerate: the worst ordering is the one ranked, so NDCG_min = 0 whatever degenerate=
    assert (got.loc["r", names] == 0.0).all()


def test_degenerate_needs_minmax():
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=2, depth=5, rng=0)
    with pytest.raises(pdireval.MeasureError, match="needs bounds=minmax"):
        pdireval.evaluate(run, "nDCG(degenerate=one)@5", qrels=qrels)


def test_pool_retrieved_uses_the_judged_documents_some_run_retrieved():
    # judged pool {a:3, b:-2, c:1, d:0}; runs retrieve {a, b} and {b, x}: retrieved pool {a:3, b:-2}
    qrels = pd.DataFrame({"query": "q", "doc": ["a", "b", "c", "d"], "label": [3, -2, 1, 0]})
    run = pd.DataFrame({"system": ["s1", "s1", "s2", "s2"], "query": "q", "doc": ["a", "b", "b", "x"], "score": [2.0, 1.0, 2.0, 1.0]})
    m = "nDCG(bounds=minmax,negatives=keep,pool=retrieved)@2"
    got = pdireval.evaluate(run, m, qrels=qrels).set_index("system")["value"]
    w = 1 / np.log2(3)
    ideal, worst = 3 + (-2) * w, -2 + 3 * w
    assert got["s1"] == pytest.approx(((3 - 2 * w) - worst) / (ideal - worst))  # s1 is the ideal: 1
    assert got["s1"] == pytest.approx(1.0)
    assert got["s2"] == pytest.approx((-2 - worst) / (ideal - worst))
    # with the judged pool of the qrels the ideal holds a and c
    qrels_pool = pdireval.evaluate(run, "nDCG(bounds=minmax,negatives=keep)@2", qrels=qrels).set_index("system")["value"]
    assert qrels_pool["s1"] < 1.0
    # pool_depth=1: only rank-1 documents (a, b) count, the same pool here
    depth1 = pdireval.evaluate(run, "nDCG(bounds=minmax,negatives=keep,pool=retrieved,pool_depth=1)@2", qrels=qrels)
    np.testing.assert_allclose(depth1["value"].to_numpy(), got.sort_index().to_numpy())


def test_pool_retrieved_needs_minmax_dcg():
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=2, depth=5, rng=0)
    with pytest.raises(pdireval.MeasureError, match="pool=retrieved"):
        pdireval.evaluate(run, "nDCG(pool=retrieved)@5", qrels=qrels)
    with pytest.raises(pdireval.MeasureError, match="pool_depth= needs"):
        pdireval.evaluate(run, "nDCG(bounds=minmax,pool_depth=3)@5", qrels=qrels)
