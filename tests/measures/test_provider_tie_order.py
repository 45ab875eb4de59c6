"""docs/coming-from.md: how each ir_measures provider orders tied scores, against pdireval's
(trec_eval's) doc-id-descending order (issue 29). One query, four documents all scored 1.0,
``a`` relevant, ``b`` judged non-relevant, ``c`` and ``d`` unjudged; the run lists them
``a, b, c, d`` or ``d, c, b, a``."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import pdireval

ir_measures = pytest.importorskip("ir_measures")

QRELS = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0]})


def theirs(provider: str, measure: str, order: list[str]) -> float:
    run = pd.DataFrame({"query_id": "1", "doc_id": order, "score": 1.0})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = list(ir_measures.providers.registry[provider].iter_calc(
            [ir_measures.parse_measure(measure)], QRELS, run))
    return found[0].value


def ours(measure: str, order: list[str]) -> float:
    run = pd.DataFrame({"system": "s", "query": "1", "doc": order, "score": 1.0})
    qrels = QRELS.rename(columns={"query_id": "query", "doc_id": "doc", "relevance": "label"})
    return pdireval.evaluate(run, measure, qrels=qrels)["value"].item()


FORWARD, BACKWARD = ["a", "b", "c", "d"], ["d", "c", "b", "a"]


@pytest.mark.parametrize(
    "provider, measure, forward, backward",
    [
        # input order: the first listed of the tied documents comes first
        ("accuracy", "Accuracy()", 1.0, 0.0),
        ("cwl_eval", "P@1", 1.0, 0.0),
        # doc id ascending (a, b, c, d) whatever the input order
        ("compat", "Compat(p=0.8)", 1.0, 1.0),
        ("judged", "Judged@1", 1.0, 1.0),
        # trec_eval's order (doc id descending: d, c, b, a), as pdireval
        ("pytrec_eval", "P@1", 0.0, 0.0),
    ],
)
def test_each_provider_orders_ties_as_documented(provider, measure, forward, backward):
    assert theirs(provider, measure, FORWARD) == pytest.approx(forward)
    assert theirs(provider, measure, BACKWARD) == pytest.approx(backward)
    ours_name = measure.replace("()", "")
    # pdireval: trec_eval's order whatever the input order (d, c, b, a: a last)
    assert ours(ours_name, FORWARD) == ours(ours_name, BACKWARD)
    if provider == "pytrec_eval":
        assert ours(ours_name, FORWARD) == pytest.approx(forward)
    else:
        assert ours(ours_name, FORWARD) != pytest.approx(forward)


def test_compat_and_judged_order_ties_by_doc_id_ascending():
    """With ``d`` the relevant (and ``c`` the judged) document instead, compat and judged put
    it last in both input orders: doc id ascending, not relevant-first."""
    global QRELS
    saved = QRELS
    QRELS = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d", "c"], "relevance": [1, 0]})
    try:
        for order in (FORWARD, BACKWARD):
            assert theirs("judged", "Judged@2", order) == 0.0  # a, b first: unjudged
            assert theirs("compat", "Compat(p=0.8)", order) < 0.5  # d at rank 4
    finally:
        QRELS = saved
