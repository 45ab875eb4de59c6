"""Frames and inputs as other tools give them evaluate to the canonical numbers."""

from __future__ import annotations

import os
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import PdirevalWarning, SchemaError

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "NumRelRet"]


@pytest.fixture(scope="module")
def collection():
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=8, depth=30, rng=4)
    return run, qrels, pdireval.evaluate(run, MEASURES, qrels=qrels)


def values(scores):
    return scores.sort_values(["query", "measure"], ignore_index=True)["value"].to_numpy()


def pyterrier_frame(run):
    """PyTerrier's results shape: qid, docid (int), docno, score, rank (0-based), query (text)."""
    frame = run.drop(columns="system").rename(columns={"query": "qid", "doc": "docno"})
    return frame.assign(rank=frame["rank"] - 1, query="text " + frame["qid"].astype(str), docid=np.arange(len(frame)))


def test_pyterrier_frame_with_ir_datasets_qrels(collection):
    run, qrels, expected = collection
    frame = pyterrier_frame(run)
    assert frame["rank"].min() == 0 and "system" not in frame
    before = frame.copy()
    ir_qrels = qrels.rename(columns={"query": "query_id", "doc": "doc_id", "label": "relevance"}).assign(iteration="0")
    got = pdireval.evaluate(frame, MEASURES, qrels=ir_qrels)
    assert set(got["system"]) == {"run"}
    np.testing.assert_array_equal(values(got), values(expected))
    pd.testing.assert_frame_equal(frame, before)  # never mutated
    # ordered by the 0-based rank column: the same ranking as by score here
    by_rank = pdireval.evaluate(frame.drop(columns="score"), MEASURES, qrels=ir_qrels)
    by_rank_ref = pdireval.evaluate(run.drop(columns="score"), MEASURES, qrels=qrels)
    np.testing.assert_array_equal(values(by_rank), values(by_rank_ref))


def test_ir_measures_frames(collection):
    run, qrels, expected = collection
    frame = run.rename(columns={"query": "query_id", "doc": "doc_id"}).drop(columns=["system", "rank"])
    ir_qrels = qrels.rename(columns={"query": "query_id", "doc": "doc_id", "label": "relevance"})
    np.testing.assert_array_equal(values(pdireval.evaluate(frame, MEASURES, qrels=ir_qrels)), values(expected))


def test_read_csv_trec_run_with_zero_based_ranks(collection, tmp_path):
    run, qrels, expected = collection
    lines = [f"{q} Q0 {d} {r - 1} {s} tagA" for q, d, r, s in zip(run["query"], run["doc"], run["rank"], run["score"])]
    (tmp_path / "run.txt").write_text("\n".join(lines) + "\n")
    frame = pd.read_csv(tmp_path / "run.txt", sep=" ", names=["qid", "Q0", "docno", "rank", "score", "tag"])
    assert frame["rank"].min() == 0
    got = pdireval.evaluate(frame, MEASURES, qrels=qrels)
    assert set(got["system"]) == {"tagA"}  # the run tag names the system
    np.testing.assert_array_equal(values(got), values(expected))
    got = pdireval.evaluate(frame, MEASURES, qrels=qrels, order="rank")
    np.testing.assert_array_equal(values(got), values(pdireval.evaluate(run, MEASURES, qrels=qrels, order="rank")))


def test_qrels_as_path_records_and_dict_of_dicts(collection, tmp_path):
    run, qrels, expected = collection
    pdireval.write_qrels(qrels, tmp_path / "qrels.txt")
    Qrel = namedtuple("TrecQrel", ["query_id", "doc_id", "relevance", "iteration"])  # ir_datasets' record
    records = (Qrel(q, d, int(label), "0") for q, d, label in zip(qrels["query"], qrels["doc"], qrels["label"]))
    nested = {q: dict(zip(g["doc"], g["label"].astype(int))) for q, g in qrels.groupby("query")}
    dicts = qrels.to_dict("records")
    tuples = list(zip(qrels["query"], qrels["doc"], qrels["label"]))
    for given in (str(tmp_path / "qrels.txt"), tmp_path / "qrels.txt", records, nested, dicts, tuples):
        got = pdireval.evaluate(run, MEASURES, qrels=given)
        np.testing.assert_array_equal(values(got), values(expected))


def test_run_as_path_and_dict_of_dicts(collection, tmp_path):
    run, qrels, expected = collection
    pdireval.write_run(run, tmp_path / "run.txt")
    np.testing.assert_array_equal(values(pdireval.evaluate(os.fspath(tmp_path / "run.txt"), MEASURES, qrels=qrels)), values(expected))
    nested = {q: dict(zip(g["doc"], g["score"])) for q, g in run.groupby("query")}
    got = pdireval.evaluate(nested, MEASURES, qrels=qrels)
    assert set(got["system"]) == {"run"}
    np.testing.assert_array_equal(values(got), values(expected))


def test_precedence_and_ambiguity():
    qrels = pd.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "label": [1, 0]})
    # docno wins over an integer docid; a query column beside qid is text
    frame = pd.DataFrame({"qid": "1", "query": "some text", "docno": ["b", "a"], "docid": [0, 1], "score": [2.0, 1.0]})
    assert pdireval.evaluate(frame, "RR", qrels=qrels)["value"].item() == 0.5
    # an explicit columns= wins
    swapped = frame.assign(other=["a", "b"])
    assert pdireval.evaluate(swapped, "RR", qrels=qrels, columns={"doc": "other"})["value"].item() == 1.0
    # two spellings of the query id: an error listing both and the columns= to pass
    both = frame.assign(query_id="1")
    with pytest.raises(SchemaError, match=r"'qid', 'query_id'.*columns=\{'query': 'qid'\}"):
        pdireval.evaluate(both, "RR", qrels=qrels)
    # name, run and tag are all system spellings
    with pytest.raises(SchemaError, match="could be its 'system' column"):
        pdireval.evaluate(frame.assign(name="x", tag="y"), "RR", qrels=qrels)


def test_unusable_rank_is_ignored_when_ordering_by_score():
    qrels = pd.DataFrame({"query": "1", "doc": ["a", "b"], "label": [1, 0]})
    run = pd.DataFrame({"system": "s", "query": "1", "doc": ["a", "b"], "score": [1.0, 2.0], "rank": [np.nan, 1.5]})
    assert pdireval.evaluate(run, "RR", qrels=qrels)["value"].item() == 0.5
    with pytest.raises(SchemaError, match="'rank' must hold whole numbers >= 0"):
        pdireval.evaluate(run, "RR", qrels=qrels, order="rank")


def test_scores_frames_from_other_tools_in_meta_functions():
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=25, depth=50, rng=9)
    ours = pdireval.evaluate(run, ["AP", "nDCG@10"], qrels=qrels)
    pyterrier = ours.rename(columns={"system": "name", "query": "qid"})  # pt.Experiment(perquery=True)
    ir_measures_like = ours.rename(columns={"query": "query_id", "system": "run"})
    for frame in (pyterrier, ir_measures_like):
        pd.testing.assert_frame_equal(pdireval.compare(frame, method="t"), pdireval.compare(ours, method="t"))
        pd.testing.assert_frame_equal(pdireval.reliability(frame), pdireval.reliability(ours))
        pd.testing.assert_frame_equal(pdireval.correlate(frame), pdireval.correlate(ours))
        pd.testing.assert_frame_equal(frame.ireval.aggregate(), ours.ireval.aggregate())
    # ir_measures' iter_calc rows name the measure with its own object
    import ir_measures

    one = run[run["system"] == "sys01"].rename(columns={"query": "query_id", "doc": "doc_id"})
    ir_q = qrels.rename(columns={"query": "query_id", "doc": "doc_id", "label": "relevance"}).astype({"relevance": int})
    rows = pd.DataFrame(ir_measures.iter_calc([ir_measures.AP], ir_q, one[["query_id", "doc_id", "score"]]))
    summary = rows.ireval.aggregate()
    expected = pdireval.evaluate(run[run["system"] == "sys01"], "AP", qrels=qrels, missing="drop")
    assert summary["measure"].tolist() == ["AP"]
    assert summary["mean"].item() == pytest.approx(expected["value"].mean(), abs=1e-12)


def test_run_frame_passed_as_scores_says_evaluate_first(collection):
    run = collection[0]
    with pytest.raises(SchemaError, match="evaluate it first"):
        run.ireval.aggregate()


def test_missing_zero_says_how_many_pairs_it_filled():
    qrels = pd.DataFrame({"query": ["1", "2", "3"], "doc": "a", "label": 1})
    run = pd.DataFrame({"system": ["s", "t"], "query": "1", "doc": "a", "score": 1.0})
    with pytest.warns(PdirevalWarning, match=r"missing='zero': 4 \(system, query\) pairs .* out of 6"):
        pdireval.evaluate(run, "AP", qrels=qrels)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdireval.evaluate(run, "AP", qrels=qrels, missing="drop")  # no warning


def test_columns_everywhere_on_scores_frames():
    """Every public function taking a scores frame takes columns= (names no rule knows)."""
    import inspect

    from pdireval.public import EXPORTS, FRAME_FUNCTIONS

    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=20, depth=30, rng=3)
    ours = pdireval.evaluate(run, ["AP", "nDCG@10"], qrels=qrels)
    odd = ours.rename(columns={"system": "engine", "query": "topic_no", "measure": "metric_name", "value": "val"})
    mapping = {"system": "engine", "query": "topic_no", "measure": "metric_name", "value": "val"}
    calls = {
        "compare": {"method": "t"}, "reliability": {}, "correlate": {}, "aggregate": {},
        "discriminative_power": {"method": "t"}, "information_tau": {"a": "AP", "b": "nDCG@10"},
    }
    for name, options in calls.items():
        function = getattr(pdireval, name)
        pd.testing.assert_frame_equal(function(odd, columns=mapping, **options), function(ours, **options))
    lacking = [
        name for name in FRAME_FUNCTIONS
        if "columns" not in inspect.signature(getattr(__import__(EXPORTS[name], fromlist=[name]), name)).parameters
    ]
    # results frames of training runs and run-level analyses keep their own column names;
    # excel_safe takes any frame; the RAG writers take frames their validators read (with the
    # producing tools' column names recognised)
    assert set(lacking) <= {"training_stability", "stability_sign_test", "swap_difference", "joint_ric",
                            "information_difference", "optimize", "excel_safe", "write_nuggets",
                            "write_assignments", "write_support", "write_rag_scores"}, lacking
