"""evaluate_nuggets: nuggetizer's numbers exactly (its sample record, the TREC 2024 RAG
assignments, generated answers), W and the AND/OR groups against hand-computed tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import MeasureError, OptionError, PdirevalWarning, SchemaError
from tests.helpers import shared_path

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NUGGETIZER = {  # nuggetizer's field -> pdireval's canonical name
    "strict_vital_score": "V_strict",
    "strict_all_score": "A_strict",
    "vital_score": "V",
    "all_score": "A",
}


def nuggetizer_metrics():
    metrics = pytest.importorskip(
        "nuggetizer.core.metrics",
        reason="nuggetizer (pip install nuggetizer, or the 'test' dependency group) is the "
        "oracle of the nugget scores",
    )
    return metrics.calculate_nugget_scores


def records_to_frame(records):
    """nuggetizer's assignment records (one per answer) as an assignments frame."""
    rows = [
        {
            "run_id": r.get("run_id", "run"),
            "qid": r["qid"],
            "nugget_id": i,
            "importance": n["importance"],
            "assignment": n["assignment"],
        }
        for r in records
        for i, n in enumerate(r["nuggets"])
    ]
    return pd.DataFrame(rows)


def assert_equals_nuggetizer(records, scores):
    calculate = nuggetizer_metrics()
    got = scores.set_index(["system", "query", "measure"])["value"]
    n = 0
    for r in records:
        expected = calculate(r["qid"], r["nuggets"])
        for field, name in NUGGETIZER.items():
            assert got[(r.get("run_id", "run"), str(r["qid"]), name)] == getattr(expected, field)
            n += 1
    assert n == 4 * len(records) and len(got) == n


def test_nuggetizer_sample_record():
    # the "Assign Output - Answers" example of nuggetizer's documentation (castorini/nuggetizer,
    # .claude/skills/nuggetizer-quickstart/references/input-output-examples.md, Apache-2.0)
    record = {
        "qid": "q1",
        "run_id": "run-123",
        "nuggets": [
            {"text": "Python is a high-level programming language", "importance": "vital",
             "assignment": "support"},
            {"text": "Python was created by Guido van Rossum", "importance": "vital",
             "assignment": "support"},
            {"text": "Python is used for data science", "importance": "okay",
             "assignment": "partial_support"},
            {"text": "Python supports multithreading", "importance": "okay",
             "assignment": "not_support"},
        ],
    }
    scores = pdireval.evaluate_nuggets(records_to_frame([record]), list(NUGGETIZER))
    assert_equals_nuggetizer([record], scores)
    values = scores.set_index("measure")["value"]
    assert values["A"] == 2.5 / 4 and values["V_strict"] == 1.0  # by hand, too


@pytest.mark.slow
def test_trec_2024_rag_assignments_equal_nuggetizer():
    path = shared_path("rag", "trec-rag24", "assignments.tsv")
    frame = pd.read_csv(path, sep="\t", dtype={"qid": str, "nugget_id": str})
    records = [
        {"qid": q, "run_id": r, "nuggets": g[["importance", "assignment"]].to_dict("records")}
        for (q, r), g in frame.groupby(["qid", "run_id"], sort=False)
    ]
    scores = pdireval.evaluate_nuggets(frame, list(NUGGETIZER), missing="drop")
    assert_equals_nuggetizer(records, scores)
    # the same with the nuggets file: every answer was assigned every nugget of its topic
    nuggets = pd.read_json(shared_path("rag", "trec-rag24", "nuggets.jsonl"), lines=True)
    again = pdireval.evaluate_nuggets(
        frame.drop(columns="importance"), list(NUGGETIZER), nuggets=nuggets, missing="drop"
    )
    pd.testing.assert_frame_equal(again, scores)


LABELS = ("support", "partial_support", "not_support")


@st.composite
def answers(draw):
    """nuggetizer records: 1-3 systems x 1-4 queries, 1-6 nuggets per query (the same nuggets
    for every system's answer), some answers absent."""
    records = []
    n_queries = draw(st.integers(1, 4))
    for q in range(n_queries):
        importance = draw(st.lists(st.sampled_from(("vital", "okay")), min_size=1, max_size=6))
        for s in range(draw(st.integers(1, 3))):
            labels = draw(st.lists(st.sampled_from(LABELS), min_size=len(importance),
                                   max_size=len(importance)))
            records.append(
                {
                    "qid": f"q{q}",
                    "run_id": f"s{s}",
                    "nuggets": [
                        {"importance": i, "assignment": a} for i, a in zip(importance, labels)
                    ],
                }
            )
    return records


@settings(max_examples=40, deadline=None)
@given(answers())
def test_generated_answers_equal_nuggetizer(records):
    frame = records_to_frame(records)
    scores = pdireval.evaluate_nuggets(frame, list(NUGGETIZER), missing="drop")
    assert_equals_nuggetizer(records, scores)


def hand_nuggets():
    return pd.DataFrame(
        {
            "query": ["q1"] * 4 + ["q2"] * 2,
            "nugget": ["n1", "n2", "n3", "n4", "m1", "m2"],
            "importance": ["vital", "vital", "okay", "okay", "okay", "okay"],
        }
    )


def hand_assignments():
    return pd.DataFrame(
        {
            "system": ["a"] * 6 + ["b"] * 4,
            "query": ["q1"] * 4 + ["q2"] * 2 + ["q1"] * 4,
            "nugget": ["n1", "n2", "n3", "n4", "m1", "m2", "n1", "n2", "n3", "n4"],
            "label": ["support", "partial_support", "support", "not_support", "support",
                      "not_support", 1, 1, 0, 0.5],
        }
    )


def test_hand_computed_table():
    scores = pdireval.evaluate_nuggets(hand_assignments(), nuggets=hand_nuggets())
    got = scores.pivot(index=["system", "query"], columns="measure", values="value")
    # a, q1: s = 1, .5, 1, 0 with weights 1, 1, .5, .5
    # b, q2: no answer (missing="zero": 0 everywhere); a, q2 has no vital nugget (empty: 0)
    expected = pd.DataFrame(
        {
            "A": [2.5 / 4, 1 / 2, 2.5 / 4, 0.0],
            "A_strict": [2 / 4, 1 / 2, 2 / 4, 0.0],
            "V": [1.5 / 2, 0.0, 2 / 2, 0.0],
            "V_strict": [1 / 2, 0.0, 2 / 2, 0.0],
            "W": [(1 + 0.5 + 0.5) / 3, 0.5 / 1, (1 + 1 + 0.25) / 3, 0.0],
            "W_strict": [(1 + 0.5) / 3, 0.5 / 1, 2 / 3, 0.0],
        },
        index=pd.MultiIndex.from_tuples(
            [("a", "q1"), ("a", "q2"), ("b", "q1"), ("b", "q2")], names=["system", "query"]
        ),
    )
    pd.testing.assert_frame_equal(got[expected.columns], expected, check_names=False,
                                  check_index_type=False, check_column_type=False, rtol=0,
                                  atol=1e-15)
    assert list(scores.columns) == ["system", "query", "measure", "value"]
    assert list(scores["measure"][:6]) == ["A", "A_strict", "V", "V_strict", "W", "W_strict"]


def test_empty_missing_and_weights_options():
    a, n = hand_assignments(), hand_nuggets()
    nan = pdireval.evaluate_nuggets(a, ["V", "W"], nuggets=n, empty="nan")
    v = nan.set_index(["system", "query", "measure"])["value"]
    assert np.isnan(v[("a", "q2", "V")]) and v[("a", "q2", "W")] == 0.5
    assert np.isnan(v[("b", "q2", "V")]) and v[("b", "q2", "W")] == 0.0
    dropped = pdireval.evaluate_nuggets(a, "W", nuggets=n, missing="drop")
    assert list(zip(dropped["system"], dropped["query"])) == [("a", "q1"), ("a", "q2"),
                                                              ("b", "q1")]
    even = pdireval.evaluate_nuggets(a, "W", nuggets=n, weights={"vital": 1, "okay": 1})
    assert even["value"].iloc[0] == 2.5 / 4  # equal weights: W = A
    with pytest.raises(OptionError, match="empty="):
        pdireval.evaluate_nuggets(a, nuggets=n, empty="zeros")
    with pytest.raises(OptionError, match="weights="):
        pdireval.evaluate_nuggets(a, nuggets=n, weights={"vital": 1})


def test_names_and_aliases():
    a, n = hand_assignments(), hand_nuggets()
    aliases = ["vital_strict", "STRICT_VITAL_SCORE", "v_strict", "all_score", "weighted"]
    scores = pdireval.evaluate_nuggets(a, aliases, nuggets=n)
    assert list(scores["measure"].unique()) == ["V_strict", "A", "W"]
    with pytest.raises(MeasureError, match="Did you mean 'V_strict'"):
        pdireval.evaluate_nuggets(a, "vital_strit", nuggets=n)


def test_numeric_importance_is_the_weight():
    nuggets = pd.DataFrame({"query": "q", "nugget": ["x", "y", "z"], "importance": [2, 1, 1.0]})
    assignments = pd.DataFrame({"query": "q", "nugget": ["x", "y", "z"],
                                "label": ["support", "partial_support", "not_support"]})
    scores = pdireval.evaluate_nuggets(assignments, nuggets=nuggets)
    assert scores.set_index("measure")["value"].to_dict() == {
        "A": 1.5 / 3, "A_strict": 1 / 3, "W": 2.5 / 4, "W_strict": 2 / 4}
    assert set(scores["system"]) == {"run"}  # no system column: one system
    with pytest.raises(MeasureError, match="vital"):
        pdireval.evaluate_nuggets(assignments, "V", nuggets=nuggets)


def test_and_or_groups():
    nuggets = pd.DataFrame(
        {
            "query": "q",
            "nugget": ["n1", "n2", "n3", "n4", "n5"],
            "importance": ["vital", "vital", "okay", "okay", "vital"],
            "group": ["g1", "g1", "g2", "g2", None],
            "rule": ["and", "and", "or", "or", None],
        }
    )
    assignments = pd.DataFrame(
        {"system": "s", "query": "q", "nugget": ["n1", "n2", "n3", "n4", "n5"],
         "label": ["support", "partial_support", "not_support", "support", "not_support"]}
    )
    got = pdireval.evaluate_nuggets(assignments, nuggets=nuggets)
    # units: g1 (vital, AND: min(1, .5) = .5), g2 (okay, OR: max(0, 1) = 1), n5 (vital, 0)
    assert got.set_index("measure")["value"].to_dict() == pytest.approx(
        {"A": 1.5 / 3, "A_strict": 1 / 3, "V": 0.5 / 2, "V_strict": 0.0,
         "W": (0.5 + 0.5) / 2.5, "W_strict": 0.5 / 2.5}, abs=1e-15)


def test_judges_are_a_grouping_key():
    a = hand_assignments()
    two = pd.concat([a.assign(judge="human"), a.assign(judge="llm", label="support")])
    scores = pdireval.evaluate_nuggets(two, "A", nuggets=hand_nuggets())
    assert list(scores.columns) == ["judge", "system", "query", "measure", "value"]
    llm = scores[scores["judge"] == "llm"].set_index(["system", "query"])["value"]
    assert llm[("a", "q1")] == 1.0 and llm[("b", "q2")] == 0.0


def test_bad_inputs_are_named():
    a, n = hand_assignments(), hand_nuggets()
    with pytest.raises(SchemaError, match="name a nugget that the nuggets frame does not have"):
        pdireval.evaluate_nuggets(a, nuggets=n[n["nugget"] != "n4"])
    with pytest.raises(SchemaError, match="lack a label for some nuggets"):
        pdireval.evaluate_nuggets(a.iloc[1:], nuggets=n)
    with pytest.raises(SchemaError, match="no 'importance' column"):
        pdireval.evaluate_nuggets(a)
    imp = a.assign(importance=["vital"] * 6 + ["okay"] * 4)
    with pytest.raises(SchemaError, match="different importances"):
        pdireval.evaluate_nuggets(imp)
    with pytest.raises(SchemaError, match="outside the vocabulary"):
        pdireval.evaluate_nuggets(a.assign(label=["supported"] + list(a["label"][1:])),
                                  nuggets=n)
    with pytest.raises(SchemaError, match="different labels"):
        pdireval.evaluate_nuggets(pd.concat([a, a.iloc[[0]].assign(label=0)]), nuggets=n)
    with pytest.warns(PdirevalWarning, match="no assignment at all"):
        extra = pd.concat([n, pd.DataFrame({"query": ["q9"], "nugget": ["z"],
                                            "importance": ["vital"]})])
        scores = pdireval.evaluate_nuggets(a, nuggets=extra)
    assert "q9" not in set(scores["query"])


def test_exact_duplicates_merge_and_the_input_is_unchanged():
    a, n = hand_assignments(), hand_nuggets()
    before = a.copy()
    once = pdireval.evaluate_nuggets(a, nuggets=n)
    twice = pdireval.evaluate_nuggets(pd.concat([a, a.iloc[:3]]), nuggets=n)
    pd.testing.assert_frame_equal(once, twice)
    pd.testing.assert_frame_equal(a, before)


def test_accessor_method():
    a = hand_assignments()
    pd.testing.assert_frame_equal(
        a.ireval.evaluate_nuggets("A", nuggets=hand_nuggets()),
        pdireval.evaluate_nuggets(a, "A", nuggets=hand_nuggets()),
    )


def test_bad_arguments_are_named():
    a, n = hand_assignments(), hand_nuggets()
    with pytest.raises(TypeError, match="score name or a list"):
        pdireval.evaluate_nuggets(a, 5, nuggets=n)
    with pytest.raises(OptionError, match="keys 'vital' and 'okay'"):
        pdireval.evaluate_nuggets(a, nuggets=n, weights=[1])
    with pytest.raises(MeasureError, match="no nugget measure"):
        pdireval.evaluate_nuggets(a, [], nuggets=n)
