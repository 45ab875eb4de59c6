"""pdireval.as_ir_measure: pdireval measures inside ir_measures, checked with ir_measures itself."""

from __future__ import annotations

import pytest

import pdireval

ir_measures = pytest.importorskip("ir_measures", reason="as_ir_measure needs the optional ir_measures")


@pytest.fixture(scope="module")
def data():
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=12, depth=40, rng=21)
    run = run[run["query"] != "1"]  # ir_measures' aggregate counts an unanswered query as 0
    ir_run = run.rename(columns={"query": "query_id", "doc": "doc_id"})[["query_id", "doc_id", "score"]]
    ir_qrels = qrels.rename(columns={"query": "query_id", "doc": "doc_id", "label": "relevance"}).astype({"relevance": int})
    return run, qrels, ir_run, ir_qrels


@pytest.mark.parametrize("measure", ["GAP", "nDCG(negatives=nonrel)@10", "RIC", "nDCG(bounds=minmax)@10", "AP"])
def test_per_query_and_aggregate_equal_pdireval(data, measure):
    run, qrels, ir_run, ir_qrels = data
    wrapped = pdireval.as_ir_measure(measure)
    assert str(wrapped) == str(pdireval.parse_measure(measure))
    expected = pdireval.evaluate(run, measure, qrels=qrels, missing="drop")
    got = {m.query_id: m.value for m in ir_measures.iter_calc([wrapped], ir_qrels, ir_run)}
    answered = dict(zip(expected["query"], expected["value"]))
    assert {q: got[q] for q in answered} == pytest.approx(answered, abs=1e-12)
    assert got["1"] == 0.0  # ir_measures scores an unanswered query 0
    aggregate = ir_measures.calc_aggregate([wrapped], ir_qrels, ir_run)[wrapped]
    assert aggregate == pytest.approx(sum(answered.values()) / len(got), abs=1e-12)


def test_ap_through_the_bridge_equals_ir_measures_own_ap(data):
    _, _, ir_run, ir_qrels = data
    ours = ir_measures.calc_aggregate([pdireval.as_ir_measure("AP")], ir_qrels, ir_run)
    theirs = ir_measures.calc_aggregate([ir_measures.AP], ir_qrels, ir_run)
    assert list(ours.values())[0] == pytest.approx(list(theirs.values())[0], abs=1e-12)


def test_bad_measure_fails_when_wrapped():
    with pytest.raises(pdireval.MeasureError, match="unknown measure"):
        pdireval.as_ir_measure("nDGC@10")
