"""Measures trec_eval lacks, cross-checked against ir_measures where it implements them.

* ``ERR@k`` and ``nDCG(gain=exp)@k`` against ir_measures' ``ERR@k`` and
  ``nDCG(dcg='exp-log2')@k`` (its gdeval provider; gdeval prints 5 decimals and fixes the
  top grade at 4, which is our default ``max_grade``; ``ERR(max_grade=qrels)``, the qrels'
  largest label, is tested by hand in test_measures_hand.py);
* ``Judged@k`` against ir_measures' ``Judged@k`` (which counts every qrels entry as judged,
  negative labels included: our ``negatives=nonrel``/``keep`` readings; the default reading
  follows trec_eval and counts them as unjudged);
* ``RR@k`` against ir_measures' msmarco provider;
* ``nDCG(gain={...})@k`` against ir_measures' ``nDCG(gains={...})@k`` when the mapping lists
  every label (ir_measures keeps an unlisted label as its own gain, pdireval gives it 0 as
  the gain definition says).

ir_measures breaks score ties by doc id ascending (trec_eval and pdireval: descending), so
the runs here have distinct scores within each ranking. RBP has no available ir_measures
provider here (cwl_eval is not installed); it is tested by hand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pdireval
from tests.helpers import collections

ir_measures = pytest.importorskip("ir_measures")

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def untied(run: pd.DataFrame, qrels: pd.DataFrame, *, positive: bool = False):
    """Numeric query ids (gdeval needs them), distinct scores per ranking; with ``positive``
    only queries that have a label > 0 (gdeval divides by the ideal DCG)."""
    keep = qrels.groupby("query")["label"].max() > 0 if positive else qrels.groupby("query")["label"].size() > 0
    keep = set(keep[keep].index)
    qrels = qrels[qrels["query"].isin(keep)]
    run = run[run["query"].isin(keep)]
    qmap = {q: str(i + 1) for i, q in enumerate(sorted(keep))}
    run = run.assign(query=run["query"].map(qmap), score=-run.groupby(["system", "query"]).cumcount().astype(float))
    return run.reset_index(drop=True), qrels.assign(query=qrels["query"].map(qmap)).reset_index(drop=True)


def theirs(run: pd.DataFrame, qrels: pd.DataFrame, measures: dict) -> pd.DataFrame:
    """ir_measures' per-query values; ``measures`` maps our measure string -> theirs."""
    parsed = {ir_measures.parse_measure(t): ours for ours, t in measures.items()}
    ir_qrels = qrels.rename(columns={"query": "query_id", "doc": "doc_id", "label": "relevance"}).astype({"relevance": int})
    rows = []
    for system, sys_run in run.groupby("system"):
        ir_run = sys_run.rename(columns={"query": "query_id", "doc": "doc_id"})[["query_id", "doc_id", "score"]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # their dependencies' deprecation warnings
            for metric in ir_measures.iter_calc(list(parsed), ir_qrels, ir_run):
                rows.append((system, metric.query_id, parsed[metric.measure], metric.value))
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])


def compare(run, qrels, measures: dict, atol: float):
    # ir_measures, like pdireval's default missing="zero", scores unanswered judged queries 0
    ours = pdireval.evaluate(run, list(measures), qrels=qrels)
    expected = theirs(run, qrels, measures)
    keys = ["system", "query", "measure"]
    merged = ours.astype({k: str for k in keys}).merge(expected, on=keys, how="outer", indicator=True)
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"]
    diff = np.abs(merged["value_x"] - merged["value_y"])
    assert (diff <= atol).all(), merged[diff > atol]


@pytest.mark.slow  # over 3 s; CI's second step runs it
@SETTINGS
@given(collections(labels=st.integers(0, 4), require_judged=True))
def test_err_and_exp_ndcg_match_gdeval(data):
    run, qrels = untied(*data, positive=True)
    assume(len(run))
    measures = {}
    for k in (1, 3, 20):
        measures[f"ERR@{k}"] = f"ERR@{k}"  # same name, same number
        measures[f"nDCG(gain=exp)@{k}"] = f"nDCG(dcg='exp-log2')@{k}"
    compare(run, qrels, measures, atol=5.1e-6)  # gdeval prints %.5f


@pytest.mark.slow  # 2-3 s of hypothesis examples; CI's second step runs it
@SETTINGS
@given(collections(labels=st.integers(-2, 3), require_judged=True))
def test_judged_matches_ir_measures(data):
    run, qrels = untied(*data)
    measures = {f"Judged(negatives=nonrel)@{k}": f"Judged@{k}" for k in (1, 3, 5, 20)}
    measures.update({f"Judged(negatives=keep)@{k}": f"Judged@{k}" for k in (2,)})
    compare(run, qrels, measures, atol=1e-12)
    # the default (trec_eval) reading differs exactly on negatively labelled documents
    if not (qrels["label"] < 0).any():
        compare(run, qrels, {"Judged@5": "Judged@5"}, atol=1e-12)


@pytest.mark.slow  # 2-3 s of hypothesis examples; CI's second step runs it
@SETTINGS
@given(collections(labels=st.integers(-1, 3), require_judged=True))
def test_rr_at_k_matches_msmarco(data):
    run, qrels = untied(*data)
    compare(run, qrels, {"RR@1": "RR@1", "RR@3": "RR@3", "RR@10": "RR@10", "RR(rel=2)@10": "RR(rel=2)@10"}, atol=1e-12)


@pytest.mark.slow  # 2-3 s of hypothesis examples; CI's second step runs it
@SETTINGS
@given(collections(labels=st.integers(0, 3), require_judged=True), st.sampled_from([(0, 1, 3, 7), (0, 2, 2, 9), (0, 0, 1, 1)]))
def test_ndcg_gain_mapping_matches_ir_measures(data, gains):
    run, qrels = untied(*data)
    mapping = dict(enumerate(gains))  # lists every label 0..3
    ours_map = "{" + ",".join(f"{k}:{v}" for k, v in mapping.items()) + "}"
    measures = {f"nDCG(gain={ours_map})@{k}": f"nDCG(gains={mapping})@{k}" for k in (1, 3, 10)}
    measures[f"nDCG(gain={ours_map})"] = f"nDCG(gains={mapping})"
    compare(run, qrels, measures, atol=1e-9)


def test_err_default_is_gdeval_and_the_qrels_reading_is_explicit():
    # labels 0..2: the default g_max is 4 as in gdeval / ir_measures (R = 3/16 for a 2);
    # max_grade=qrels takes the qrels' largest label, 2 (R = 3/4)
    run = pd.DataFrame({"system": "s", "query": "1", "doc": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query": "1", "doc": ["a", "b"], "label": [2, 0]})
    ours = pdireval.evaluate(run, ["ERR@5", "ERR(max_grade=qrels)@5"], qrels=qrels)["value"].tolist()
    assert ours == pytest.approx([3 / 16, 3 / 4])
    assert theirs(run, qrels, {"ERR@5": "ERR@5"})["value"].tolist() == pytest.approx([3 / 16], abs=5e-6)


def test_unlisted_label_gain_differs_from_ir_measures_by_design():
    # mapping lists only label 2: pdireval gives label 1 gain 0, ir_measures keeps gain 1
    run = pd.DataFrame({"system": "s", "query": "1", "doc": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query": "1", "doc": ["a", "b"], "label": [1, 2]})
    ours = pdireval.evaluate(run, "nDCG(gain={2:5})", qrels=qrels)["value"].iloc[0]
    assert ours == pytest.approx((0 * 1 + 5 / np.log2(3)) / 5)
    other = theirs(run, qrels, {"nDCG(gain={2:5})": "nDCG(gains={2:5})"})["value"].iloc[0]
    assert other == pytest.approx((1 * 1 + 5 / np.log2(3)) / (5 + 1 / np.log2(3)))
