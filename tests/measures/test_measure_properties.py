"""Property tests (hypothesis) of the measure engine.

Bounds, invariance to row order and to renaming ids, systems evaluated together equal
systems evaluated apart, nDCG of the ideal ordering is 1, and the caller's frames are left
untouched. Collections come from tests/helpers.py (graded and negative labels, unjudged
documents, score ties, unanswered queries, documents shared across queries).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pdireval
from tests.helpers import collections

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

UNIT = [  # measures documented to lie in [0, 1]
    "AP", "AP@3", "P@1", "P@5", "R@3", "R", "RR", "RR@2", "Rprec", "nDCG", "nDCG@3",
    "nDCG(gain=exp)@5", "nDCG(discount=zipf)", "nDCG(discount=jk)@3", "nDCG(discount=linear)@4",
    "nDCG(negatives=nonrel)@5", "nDCG(judged_only=true)", "nDCG(gain={0:0,1:1,2:3,3:7})@3",
    "Bpref", "Bpref(negatives=nonrel)", "infAP", "infAP(negatives=nonrel)", "Success@3",
    "Judged@5", "Judged(negatives=keep)@5", "ERR@5", "ERR(max_grade=1)", "RBP", "RBP(p=0.5)@4",
    "RBPResidual", "RBPResidual(p=0.95)@3", "GAP", "GAP(probs=[0.2,0.3,0.5])",
    "AP(judged_only=true)", "AP(rel=2)",
]
COUNTS = ["NumRet", "NumRet@3", "NumRel", "NumRelRet", "NumRelRet@3", "SP@3", "SP", "DCG@5", "DCG(gain=exp)"]
MEASURES = UNIT + COUNTS


def wide(scores: pd.DataFrame) -> pd.DataFrame:
    return scores.astype({"system": str, "query": str, "measure": str}).pivot(
        index=["system", "query"], columns="measure", values="value"
    )


@pytest.mark.slow  # 2-3 s of hypothesis examples; CI's second step runs it
@SETTINGS
@given(collections())
def test_values_within_documented_bounds(data):
    run, qrels = data
    w = wide(pdireval.evaluate(run, MEASURES, qrels=qrels))
    assert not w.isna().any().any()
    for m in UNIT:
        assert ((w[m] >= 0) & (w[m] <= 1 + 1e-12)).all(), m
    depth = run.groupby(["system", "query"]).size()
    n_ret = depth.reindex(w.index, fill_value=0).to_numpy(float)
    assert np.array_equal(w["NumRet"].to_numpy(), n_ret)
    assert np.array_equal(w["NumRet@3"].to_numpy(), np.minimum(n_ret, 3))
    assert (w["NumRelRet"] <= np.minimum(w["NumRel"], w["NumRet"])).all()
    assert (w["NumRelRet@3"] <= w["NumRelRet"]).all()
    assert ((w["SP@3"] >= 0) & (w["SP@3"] <= np.minimum(3, w["NumRelRet@3"]) + 1e-12)).all()
    assert (w["SP"] <= w["NumRelRet"] + 1e-12).all()
    assert ((w["DCG@5"] >= 0) & (w["DCG(gain=exp)"] >= 0)).all()
    # relations between measures that hold by definition
    assert np.allclose(w["AP"] * w["NumRel"], w["SP"])
    assert (w["P@5"] * 5 <= w["NumRelRet"] + 1e-12).all()
    assert (w["Success@3"] == (w["NumRelRet@3"] > 0)).all()
    assert (w["RR@2"] <= w["RR"]).all() and (w["AP@3"] <= w["AP"] + 1e-12).all()
    assert (w["RBP"] <= 1 - w["RBPResidual"] + 1e-12).all()


def _shuffle(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@SETTINGS
@given(collections(), st.integers(0, 2**31))
def test_row_order_does_not_matter(data, seed):
    run, qrels = data
    expected = pdireval.evaluate(run, MEASURES, qrels=qrels)
    got = pdireval.evaluate(_shuffle(run, seed), MEASURES, qrels=_shuffle(qrels, seed + 1))
    pd.testing.assert_frame_equal(got, expected)


@pytest.mark.slow
@SETTINGS
@given(collections(), st.data())
def test_renaming_ids_does_not_matter(data, draw):
    """A consistent relabelling of query, doc and system ids gives the same values.

    Doc ids take part in trec_eval's tie-breaking (doc id descending), so with score ties
    the doc renaming must keep their string order (a common prefix does); without ties
    (``untie``) any bijection of doc ids is allowed. Query and system renaming is an
    arbitrary bijection.
    """
    run, qrels = data
    untie = draw.draw(st.booleans())
    if untie:  # distinct scores within every segment: doc ids no longer matter for order
        run = run.assign(score=-run.groupby(["system", "query"]).cumcount().astype(float))
    queries = sorted(set(qrels["query"]))
    new_q = draw.draw(st.permutations([f"t{i}" for i in range(len(queries))]))
    qmap = dict(zip(queries, new_q))
    systems = sorted(set(run["system"]))
    new_s = draw.draw(st.permutations([f"run-{i}" for i in range(len(systems))]))
    smap = dict(zip(systems, new_s))
    prefix = draw.draw(st.sampled_from(["", "doc/", "ZZ"]))
    docs = sorted(set(run["doc"]) | set(qrels["doc"]))
    dmap = dict(zip(docs, draw.draw(st.permutations(docs)))) if untie else {d: prefix + d for d in docs}

    def rename(frame):
        out = frame.copy()
        out["query"] = out["query"].map(qmap)
        out["doc"] = out["doc"].map(dmap)
        if "system" in out:
            out["system"] = out["system"].map(smap)
        return out

    expected = pdireval.evaluate(run, MEASURES, qrels=qrels)
    got = pdireval.evaluate(rename(run), MEASURES, qrels=rename(qrels))
    back_q = {v: k for k, v in qmap.items()}
    back_s = {v: k for k, v in smap.items()}
    got = got.astype({"system": str, "query": str}).assign(
        system=lambda f: f["system"].map(back_s), query=lambda f: f["query"].map(back_q)
    )
    keys = ["system", "query", "measure"]
    exp = expected.astype({"system": str, "query": str, "measure": str}).sort_values(keys).reset_index(drop=True)
    got = got.astype({"measure": str}).sort_values(keys).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, exp)


@pytest.mark.slow
@SETTINGS
@given(collections(max_systems=4), st.sampled_from(["zero", "drop"]))
def test_systems_together_equal_systems_apart(data, missing):
    run, qrels = data
    together = pdireval.evaluate(run, MEASURES, qrels=qrels, missing=missing)
    apart = pd.concat(
        [pdireval.evaluate(run[run["system"] == s], MEASURES, qrels=qrels, missing=missing) for s in sorted(run["system"].unique())],
        ignore_index=True,
    )
    pd.testing.assert_frame_equal(together, apart)


GAINS = {"linear": lambda lab: lab, "exp": lambda lab: 2.0**lab - 1, "{0:0,1:1,2:4,3:9}": {0: 0, 1: 1, 2: 4, 3: 9}.get}
DISCOUNTS = ["log2", "zipf", "jk", "linear", "[1,0.6,0.6,0.3,0.1]"]


@pytest.mark.slow  # 2-3 s of hypothesis examples; CI's second step runs it
@settings(max_examples=60, deadline=None)
@given(
    collections(labels=st.integers(-2, 3)),
    st.sampled_from(sorted(GAINS)),
    st.sampled_from(DISCOUNTS),
    st.sampled_from(["unjudged", "nonrel", "keep"]),
    st.integers(1, 6),
)
def test_ndcg_of_the_ideal_ordering_is_one(data, gain, discount, negatives, k):
    """Ranking each query's judged documents by gain (descending) scores nDCG = 1 whenever
    the ideal DCG is positive (and 0, the empty value, when nothing has a positive gain)."""
    _, qrels = data
    labels = qrels["label"].astype(float)
    if negatives == "unjudged":
        judged = qrels[labels >= 0]  # negative labels are pooled but unjudged
    elif negatives == "nonrel":
        judged = qrels.assign(label=labels.clip(lower=0))
    else:
        judged = qrels
    assume(len(judged))
    g = judged["label"].map(lambda lab: GAINS[gain](lab) or 0.0).astype(float)
    ideal = judged.assign(gain=g, system="ideal").sort_values(["query", "gain"], ascending=[True, False])
    ideal["score"] = -ideal.groupby("query").cumcount().astype(float)  # strictly decreasing
    measure = f"nDCG(gain={gain},discount={discount},negatives={negatives})@{k}"
    scores = pdireval.evaluate(ideal[["system", "query", "doc", "score"]], measure, qrels=qrels, missing="drop")
    top_gain = ideal.groupby("query")["gain"].max()
    # the ideal DCG is positive when a gain is and no negative gain (negatives="keep") falls in
    # the top k; otherwise it can be <= 0 (1 - 1 with the JK discount), and nDCG = DCG / IDCG of
    # the same ordering is 1 or the empty value 0 (second assertion)
    no_negative = ideal.groupby("query").head(k).groupby("query")["gain"].min() >= 0
    by_query = scores["query"].astype(str)
    positive = (top_gain.reindex(by_query).to_numpy() > 0) & no_negative.reindex(by_query).to_numpy()
    got = scores["value"].to_numpy()
    assert np.allclose(got[positive], 1.0, rtol=0, atol=1e-12), (measure, scores)
    assert np.all((got[~positive] == 0.0) | np.isclose(got[~positive], 1.0))


@pytest.mark.slow  # 2-3 s of hypothesis examples; CI's second step runs it
@SETTINGS
@given(collections(with_rank=True), st.booleans())
def test_callers_frames_are_unchanged(data, foreign):
    run, qrels = data
    kwargs = {}
    if foreign:  # other column names, integer-like ids kept as object, extra columns
        run = run.rename(columns={"query": "qid", "doc": "docno", "system": "tag"}).assign(extra=1)
        qrels = qrels.rename(columns={"query": "qid", "doc": "docno", "label": "rel"})
        kwargs = {"columns": {"query": "qid", "doc": "docno", "system": "tag"}, "qrels_columns": {"query": "qid", "doc": "docno", "label": "rel"}}
    run_before, qrels_before = run.copy(deep=True), qrels.copy(deep=True)
    dtypes_run, dtypes_qrels = run.dtypes.copy(), qrels.dtypes.copy()
    pdireval.evaluate(run, MEASURES, qrels=qrels, **kwargs)
    pdireval.evaluate(run, ["AP", "nDCG@3"], qrels=qrels, order="rank", missing="drop", **kwargs)
    run.ireval.evaluate(["RR"], qrels=qrels, **kwargs)
    pd.testing.assert_frame_equal(run, run_before, check_exact=True)
    pd.testing.assert_frame_equal(qrels, qrels_before, check_exact=True)
    assert run.dtypes.equals(dtypes_run) and qrels.dtypes.equals(dtypes_qrels)
    assert run.index.equals(run_before.index) and qrels.index.equals(qrels_before.index)


@pytest.mark.parametrize("measure", ["AP", "nDCG@10", "Bpref", "ERR@5"])
def test_judgments_from_the_run_label_column(measure):
    """Without qrels=, the run's label column supplies the judgments (re-ranking case)."""
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=3, depth=15, rng=3)
    labelled = run.merge(qrels, on=["query", "doc"], how="left")
    # every retrieved document is a candidate judged by the qrels or unjudged (NaN)
    got = pdireval.evaluate(labelled, measure)
    pool = labelled.dropna(subset=["label"])[["query", "doc", "label"]].drop_duplicates()
    expected = pdireval.evaluate(run, measure, qrels=pool)
    pd.testing.assert_frame_equal(got, expected)
