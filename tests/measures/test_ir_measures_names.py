"""ir_measures' names for the set measures (trec_eval's set_*) and its Accuracy give
ir_measures' numbers, per query."""

from __future__ import annotations

import pandas as pd
import pytest

import pdireval
from pdireval.measures import parse_measure
from tests.helpers import assert_same_values, graded_collection, ir_measures_values

pytest.importorskip("ir_measures")

SET_MEASURES = {
    "SetP": "SetP",
    "SetP(rel=2)": "SetP(rel=2)",
    "SetP(relative=true)": "SetP(relative=True)",
    "SetR": "SetR",
    "SetF": "SetF",
    "SetF(beta=0.5)": "SetF(beta=0.5)",
    "SetAP": "SetAP",
    "SetAP(rel=2)": "SetAP(rel=2)",
}
ACCURACY = {"Accuracy": "Accuracy", "Accuracy@10": "Accuracy@10", "Accuracy(rel=2)@20": "Accuracy(rel=2)@20"}


@pytest.mark.parametrize("seed", [0, 1])
def test_set_measures_under_ir_measures_names(seed):
    run, qrels = graded_collection(seed)
    ours = pdireval.evaluate(run, list(SET_MEASURES), qrels=qrels)
    # one measure per call: pytrec_eval computes set_F for a single beta per invocation
    theirs = pd.concat([ir_measures_values(run, qrels, {o: t}) for o, t in SET_MEASURES.items()])
    assert_same_values(ours, theirs)


def test_relative_set_precision_is_set_relative_p():
    assert parse_measure("SetP(relative=true)") != parse_measure("SetRelP")
    run, qrels = graded_collection(2, n_queries=6)
    a = pdireval.evaluate(run, "SetP(relative=true)", qrels=qrels)["value"]
    b = pdireval.evaluate(run, "set_relative_P", qrels=qrels)["value"]
    pd.testing.assert_series_equal(a, b)


@pytest.mark.parametrize("seed", [0, 1])
def test_accuracy_matches_ir_measures(seed):
    run, qrels = graded_collection(seed)
    ours = pdireval.evaluate(run, list(ACCURACY), qrels=qrels)
    theirs = ir_measures_values(run, qrels, ACCURACY)
    # ir_measures reports nothing for a ranking without a relevant document (pdireval: 0),
    # and divides by zero when every retrieved document is relevant (none here)
    keys = ["system", "query", "measure"]
    ours = ours.astype({k: str for k in keys})
    reported = ours.merge(theirs[keys], on=keys, how="left", indicator=True)["_merge"].eq("both").to_numpy()
    assert (ours["value"][~reported] == 0).all() and reported.sum() > 20
    assert_same_values(ours[reported], theirs)


def test_accuracy_by_hand():
    qrels = pd.DataFrame({"query": "1", "doc": ["a", "b", "c"], "label": [1, 0, 1]})
    run = pd.DataFrame({"system": "s", "query": "1", "doc": ["b", "a", "x", "c"], "score": [4.0, 3.0, 2.0, 1.0]})
    # relevant a (1 non-relevant above), c (2 above); N = 2 non-relevant (b, unjudged x)
    assert pdireval.evaluate(run, "Accuracy", qrels=qrels)["value"].iloc[0] == pytest.approx(1 - 3 / 4)
    all_relevant = run[run["doc"].isin(["a", "c"])]
    assert pdireval.evaluate(all_relevant, "Accuracy", qrels=qrels)["value"].iloc[0] == 1.0
