"""Compat (Clarke, Vtyurina & Smucker 2021) against ir_measures' compat provider, per query."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from tests.helpers import assert_same_values, graded_collection, ir_measures_values

pytest.importorskip("ir_measures")

MEASURES = {
    "Compat": "Compat",
    "Compat(p=0.8)": "Compat(p=0.8)",
    "Compat(normalize=false)": "Compat(normalize=False)",
    "Compat(normalize=false,p=0.5)": "Compat(p=0.5,normalize=False)",
}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compat_matches_ir_measures_per_query(seed):
    run, qrels = graded_collection(seed, n_queries=15)
    ours = pdireval.evaluate(run, list(MEASURES), qrels=qrels)
    assert_same_values(ours, ir_measures_values(run, qrels, MEASURES))


def test_perfect_ranking_scores_one_and_ties_in_the_ideal_follow_the_run():
    # two documents of label 2 in either order are both ideal; label 1 after them
    qrels = pd.DataFrame({"query": "1", "doc": ["a", "b", "c", "z"], "label": [2, 2, 1, 0]})
    run = pd.DataFrame({"system": "s", "query": "1", "doc": ["b", "a", "c"], "score": [3.0, 2.0, 1.0]})
    value = pdireval.evaluate(run, ["Compat"], qrels=qrels)["value"].iloc[0]
    assert value == pytest.approx(1.0, abs=1e-15)
    swapped = run.assign(doc=["c", "a", "b"])
    assert pdireval.evaluate(swapped, ["Compat"], qrels=qrels)["value"].iloc[0] < 1.0


@pytest.mark.parametrize("n_levels", [1, 2, 6])
def test_compat_ideal_positions_with_one_few_and_many_label_levels(n_levels):
    # one level: the run order alone; up to 4: counted per level; more: a stable sort
    run, qrels = graded_collection(7, n_queries=10)
    positive = qrels["label"] > 0
    levels = np.random.default_rng(n_levels).integers(1, n_levels + 1, size=int(positive.sum()))
    qrels.loc[positive, "label"] = levels
    assert qrels.loc[positive, "label"].nunique() == n_levels
    ours = pdireval.evaluate(run, list(MEASURES), qrels=qrels, missing="drop")
    theirs = ir_measures_values(run, qrels, MEASURES)
    assert_same_values(ours, theirs.merge(ours[["system", "query"]].drop_duplicates().astype(str), on=["system", "query"]))
