"""The nuggets, assignments and support frames: canonical copies, the tools' spellings, and a
clear error for each bad input (nothing silently dropped)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import SchemaError


def test_nuggetizer_and_trec_spellings_are_recognised():
    nuggets = pd.DataFrame(
        {"qid": [2, 2, 10], "query": ["text"] * 3, "nugget_id": [1, 0, 0],
         "importance": ["Vital", "okay", "vital"], "text": ["b", "a", "c"]}
    )
    out = pdireval.validate_nuggets(nuggets)
    assert list(out.columns) == ["query", "nugget", "importance", "text"]
    assert list(out["query"]) == ["2", "2", "10"]  # natural order, the query text dropped
    assert list(out["nugget"]) == ["0", "1", "0"] and list(out["importance"]) == [
        "okay", "vital", "vital"]
    assignments = pd.DataFrame(
        {"qid": ["q1", "q1"], "run_id": ["r", "r"], "nugget_id": [0, 1],
         "assignment": ["SUPPORT", "partial_support"], "response_length": [9, 9]}
    )
    out = pdireval.validate_assignments(assignments)
    assert list(out.columns) == ["system", "query", "nugget", "label"]
    assert out["label"].tolist() == [1.0, 0.5]
    support = pd.DataFrame(
        {"topic_id": ["t"] * 3, "run_id": "r", "sentence_id": [0, 0, 1],
         "reference": ["d2", "d1", None], "support": ["FS", "no_support", None]}
    )
    out = pdireval.validate_support(support)
    assert list(out.columns) == ["system", "query", "sentence", "doc", "label"]
    assert out["doc"].tolist()[:2] == ["d1", "d2"] and pd.isna(out["doc"].iloc[2])
    assert out["label"].tolist()[:2] == [0.0, 1.0] and np.isnan(out["label"].iloc[2])


def test_numeric_labels_and_judges():
    frame = pd.DataFrame({"system": "s", "query": "q", "nugget": ["a", "b", "c", "a"],
                          "label": [1, 0.5, False, 0], "judge": ["j1", "j1", "j1", "j2"]})
    out = pdireval.validate_assignments(frame)
    assert list(out.columns) == ["judge", "system", "query", "nugget", "label"]
    assert out["label"].tolist() == [1.0, 0.5, 0.0, 0.0]


def test_the_caller_frame_is_not_modified():
    frame = pd.DataFrame({"qid": [1], "nugget_id": [0], "importance": ["vital"]})
    before = frame.copy()
    pdireval.validate_nuggets(frame)
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize(
    "frame, match",
    [
        (pd.DataFrame({"query": ["q"], "nugget": ["n"], "importance": [None]}),
         "no importance"),
        (pd.DataFrame({"query": ["q"], "nugget": ["n"], "importance": ["crucial"]}),
         "neither 'vital' / 'okay' nor a finite number"),
        (pd.DataFrame({"query": ["q", "q"], "nugget": ["n", "m"], "importance": ["vital", 2]}),
         "numeric importances beside"),
        (pd.DataFrame({"query": ["q", "q"], "nugget": ["n", "n"],
                       "importance": ["vital", "okay"]}), "differently"),
        (pd.DataFrame({"query": ["q"], "nugget": ["n"], "importance": ["vital"],
                       "group": ["g"]}), "no 'rule' column"),
        (pd.DataFrame({"query": ["q"], "nugget": ["n"], "importance": ["vital"],
                       "group": ["g"], "rule": ["xor"]}), "other than 'and' / 'or'"),
        (pd.DataFrame({"query": ["q", "q"], "nugget": ["n", "m"], "importance": ["vital"] * 2,
                       "group": ["g", "g"], "rule": ["and", "or"]}), "differ in rule"),
        (pd.DataFrame({"query": ["q", "q"], "nugget": ["n", None],
                       "importance": ["vital"] * 2, "group": [None, "g"],
                       "rule": [None, "and"]}), "group\\(s\\) with no members"),
        (pd.DataFrame({"query": ["q"], "nugget": ["n"], "importance": ["vital"],
                       "group": [None], "rule": ["and"]}), "rule but no group"),
        (pd.DataFrame({"query": ["q"], "nugget": [None], "importance": ["vital"]}),
         "missing value"),
    ],
)
def test_bad_nuggets(frame, match):
    with pytest.raises(SchemaError, match=match) as info:
        pdireval.validate_nuggets(frame)
    assert info.value.failure_cases is None or len(info.value.failure_cases) >= 1


@pytest.mark.parametrize(
    "label, match",
    [("supported", "outside the vocabulary"), (2, "outside the vocabulary"),
     (0.7, "outside the vocabulary"), (None, "missing label")],
)
def test_bad_assignment_labels(label, match):
    frame = pd.DataFrame({"system": "s", "query": "q", "nugget": ["a", "b"],
                          "label": ["support", label]})
    with pytest.raises(SchemaError, match=match) as info:
        pdireval.validate_assignments(frame)
    assert len(info.value.failure_cases) == 1


def test_duplicate_assignments():
    frame = pd.DataFrame({"system": "s", "query": "q", "nugget": ["a", "a", "b", "b"],
                          "label": ["support", 1, "support", "not_support"]})
    with pytest.raises(SchemaError, match="different labels") as info:
        pdireval.validate_assignments(frame)
    assert info.value.failure_cases["nugget"].tolist() == ["b", "b"]
    merged = pdireval.validate_assignments(frame.iloc[:3])
    assert merged["nugget"].tolist() == ["a", "b"]
    judged = pdireval.validate_assignments(frame.assign(judge=["x", "x", "x", "y"]))
    assert len(judged) == 3  # b is labelled once by each judge


def support_frame():
    return pd.DataFrame({"system": "s", "query": "q", "sentence": [0, 0, 1],
                         "doc": ["d1", "d2", None], "label": ["FS", "PS", None]})


@pytest.mark.parametrize(
    "change, match",
    [
        ({"label": ["FS", "PS", "NS"]}, "citing nothing: a label but no doc"),
        ({"label": ["FS", None, None]}, "citation\\(s\\) with no label"),
        ({"label": ["FS", 2, None]}, "2 / 1 / 0"),
        ({"sentence": [0, 0, 0]}, "also cite documents"),
        ({"doc": ["d1", "d1", None]}, "different labels"),
    ],
)
def test_bad_support(change, match):
    with pytest.raises(SchemaError, match=match):
        pdireval.validate_support(support_frame().assign(**change))


def test_ambiguous_spellings_are_an_error():
    frame = pd.DataFrame({"qid": ["q"], "topic_id": ["q"], "nugget": ["n"],
                          "importance": ["vital"]})
    with pytest.raises(SchemaError, match="could be its 'query' column"):
        pdireval.validate_nuggets(frame)
    ok = pdireval.validate_nuggets(frame, columns={"query": "qid"})
    assert ok["query"].tolist() == ["q"]
