"""evaluate_support: weighted precision, recall and F1 over (sentence, citation) labels, against
a hand-computed table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import MeasureError
from tests.helpers import shared_path


def support():
    return pd.DataFrame(
        {
            "system": ["a"] * 5 + ["b"],
            "query": ["q1"] * 4 + ["q2", "q1"],
            "sentence": [0, 0, 1, 2, 0, 0],
            "doc": ["d1", "d2", "d3", None, None, "d1"],
            "label": ["full_support", "partial_support", "no_support", None, None, "PS"],
        }
    )


def test_hand_computed_table():
    scores = pdireval.evaluate_support(support())
    got = scores.pivot(index=["system", "query"], columns="measure", values="value")
    # a, q1: citations 1, .5, 0 -> P = 1.5 / 3; sentences best 1, 0, 0 (uncited) -> R = 1 / 3
    # a, q2: one uncited sentence -> P = 0 / 0 (empty: 0), R = 0; b, q1: P = R = .5
    # b, q2: no answer (missing="zero") -> every score empty (0)
    p, r = 0.5, 1 / 3
    expected = {
        ("a", "q1"): (p, r, 2 * p * r / (p + r)),
        ("a", "q2"): (0.0, 0.0, 0.0),
        ("b", "q1"): (0.5, 0.5, 0.5),
        ("b", "q2"): (0.0, 0.0, 0.0),
    }
    assert list(got.index) == list(expected)
    for key, values in expected.items():
        row = got.loc[key, ["support_precision", "support_recall", "support_f1"]]
        assert row.tolist() == pytest.approx(values, abs=1e-15)
    assert list(scores.columns) == ["system", "query", "measure", "value"]


def test_empty_nan_and_missing_drop():
    nan = pdireval.evaluate_support(support(), empty="nan")
    v = nan.set_index(["system", "query", "measure"])["value"]
    assert np.isnan(v[("a", "q2", "support_precision")]) and v[("a", "q2", "support_recall")] == 0
    assert np.isnan(v[("a", "q2", "support_f1")]) and np.isnan(v[("b", "q2", "support_recall")])
    dropped = pdireval.evaluate_support(support(), "f1", missing="drop")
    assert list(zip(dropped["system"], dropped["query"])) == [("a", "q1"), ("a", "q2"),
                                                              ("b", "q1")]


def test_names_judges_and_errors():
    two = pd.concat([support().assign(judge="nist"), support().assign(judge="llm")])
    scores = pdireval.evaluate_support(two, ["weighted_recall", "precision"])
    assert list(scores.columns) == ["judge", "system", "query", "measure", "value"]
    assert list(scores["measure"][:2]) == ["support_recall", "support_precision"]
    with pytest.raises(MeasureError, match="unknown support measure"):
        pdireval.evaluate_support(support(), "nDCG@10")


@pytest.mark.slow
def test_trec_2024_support_file():
    path = shared_path("rag", "trec-rag24", "citation_support.postedit.tsv")
    frame = pd.read_csv(path, sep="\t", dtype={"reference": str})
    frame["support"] = frame["support"].map({2: 1.0, 1: 0.5, 0: 0.0})
    scores = pdireval.evaluate_support(frame.drop(columns="citation_id"), missing="drop")
    # the staged file has one citation per sentence and no uncited sentence: P = R = F1 =
    # the mean label of the answer's citations
    mean = frame.groupby(["run_id", "topic_id"])["support"].mean()
    got = scores.pivot(index=["system", "query"], columns="measure", values="value")
    assert len(got) == len(mean)
    for name in ("support_precision", "support_recall", "support_f1"):
        np.testing.assert_allclose(got[name].to_numpy(), mean.to_numpy(), rtol=1e-12)


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def answers(draw):
    """(system, query, sentence, doc or None, label or None) rows: 1-2 systems x 1-3 queries,
    1-4 sentences, each citing 0-3 of 4 documents."""
    rows = []
    for s in range(draw(st.integers(1, 2))):
        for q in range(draw(st.integers(1, 3))):
            for i in range(draw(st.integers(1, 4))):
                docs = draw(st.lists(st.sampled_from("wxyz"), max_size=3, unique=True))
                for d in docs:
                    rows.append((f"s{s}", f"q{q}", i, d, draw(st.sampled_from((0, 0.5, 1)))))
                if not docs:
                    rows.append((f"s{s}", f"q{q}", i, None, None))
    return rows


@settings(max_examples=25, deadline=None)
@given(answers(), st.sampled_from(("zero", "nan")))
def test_equals_the_definitions(rows, empty):
    frame = pd.DataFrame(rows, columns=["system", "query", "sentence", "doc", "label"])
    scores = pdireval.evaluate_support(frame, empty=empty, missing="drop")
    got = scores.set_index(["system", "query", "measure"])["value"]
    nothing = 0.0 if empty == "zero" else np.nan
    for (s, q), answer in frame.groupby(["system", "query"]):
        cited = answer["label"].dropna().tolist()
        best = [g["label"].max() if g["label"].notna().any() else 0.0
                for _, g in answer.groupby("sentence")]
        p = sum(cited) / len(cited) if cited else nothing
        r = sum(best) / len(best)
        f1 = 2 * p * r / (p + r) if p + r > 0 else (np.nan if np.isnan(p) else nothing)
        for name, value in (("support_precision", p), ("support_recall", r), ("support_f1", f1)):
            assert got[(s, q, name)] == pytest.approx(value, abs=1e-12, nan_ok=True)
    assert len(got) == 3 * frame.groupby(["system", "query"]).ngroups
