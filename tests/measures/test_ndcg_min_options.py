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
