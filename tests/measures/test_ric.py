"""RIC as a registered measure (Golbus & Aslam 2013, Section 5).

Oracle: the direct maximum-likelihood MI over explicitly enumerated *ordered* pairs
(written here from the definitions, independent of pdireval's closed form).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pdireval
from tests.helpers import EXAMPLE, NAN, direct_ric, frames, list_variable, random_ric_case


def test_worked_examples_of_methods_spec():
    run, qrels = frames({"s1": list("bcuad"), "s2": list("aeb")}, EXAMPLE)
    scores = pdireval.evaluate(run, "RIC", qrels=qrels)
    values = dict(zip(scores.system, scores.value))
    assert values["s1"] == pytest.approx(0.0129253810, abs=1e-10)
    assert values["s2"] == pytest.approx(1.0, abs=1e-12)
    assert direct_ric(list("bcuad"), EXAMPLE) == pytest.approx(0.0129253810, abs=1e-10)


def test_closed_form_equals_direct_mle_on_random_cases():
    rng = np.random.default_rng(11)
    for rel in (1.0, 2.0):
        runs, qrels, cases = [], [], {}
        for case in range(100):
            rankings, labels = random_ric_case(rng)
            rankings = {s: r for s, r in rankings.items() if r}
            if not rankings:
                continue
            run, qr = frames(rankings, labels, query=str(case))
            runs.append(run)
            qrels.append(qr)
            cases[str(case)] = (rankings, labels)
        measure = "RIC" if rel == 1.0 else "RIC(rel=2)"
        scores = pdireval.evaluate(pd.concat(runs), measure, qrels=pd.concat(qrels), missing="drop")
        assert len(scores) == sum(len(r) for r, _ in cases.values())
        checked = 0
        for row in scores.itertuples():
            rankings, labels = cases[row.query]
            expected = direct_ric(rankings[row.system], labels, rel)
            if math.isnan(expected):
                assert math.isnan(row.value), row
            else:
                assert row.value == pytest.approx(expected, abs=1e-12), row
                checked += 1
        assert checked > 60


def test_score_order_and_ties_follow_trec_eval():
    labels = {"a": 1, "b": 0, "c": 0, "d": 1}
    # score ties broken by doc id descending: d before c before b before a
    run = pd.DataFrame({"system": "s", "query": "1", "doc": list("abcd"), "score": [1.0, 1.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"query": "1", "doc": list(labels), "label": list(labels.values())})
    got = pdireval.evaluate(run, "RIC", qrels=qrels)["value"].iloc[0]
    assert got == pytest.approx(direct_ric(list("dcba"), labels), abs=1e-12)


def test_edge_cases():
    labels = {"a": 1, "b": 1, "c": 0, "d": 0}
    perfect, _ = frames({"p": list("ab")}, labels)
    _, qrels = frames({}, labels)
    assert pdireval.evaluate(perfect, "RIC", qrels=qrels)["value"].iloc[0] == pytest.approx(1.0)
    # nothing relevant retrieved: the truncated list is empty -> 0
    norel, _ = frames({"n": list("cd")}, labels)
    assert pdireval.evaluate(norel, "RIC", qrels=qrels)["value"].iloc[0] == 0.0
    # a reversed list is rewarded like a correct one (c <-> d symmetry, documented)
    rev = {"a": 0, "b": 0, "c": 1, "d": 1}
    run_rev, qrels_rev = frames({"r": list("abcd")}, rev)
    assert pdireval.evaluate(run_rev, "RIC", qrels=qrels_rev)["value"].iloc[0] == pytest.approx(direct_ric(list("abcd"), rev))
    # one label only: no different-label pair -> NaN
    run1, qrels1 = frames({"s": list("ab")}, {"a": 1, "b": 1})
    assert math.isnan(pdireval.evaluate(run1, "RIC", qrels=qrels1)["value"].iloc[0])
    # an unanswered judged query scores the empty value 0 (missing="zero")
    run2 = pd.concat([frames({"s": list("ab")}, labels)[0], frames({"t": list("ab")}, labels, query="2")[0]])
    qrels2 = pd.concat([qrels, frames({}, labels, query="2")[1]])
    scores = pdireval.evaluate(run2, "RIC", qrels=qrels2)
    assert scores.set_index(["system", "query"]).loc[("s", "2"), "value"] == 0.0
    assert len(pdireval.evaluate(run2, "RIC", qrels=qrels2, missing="drop")) == 2


def test_negative_labels_follow_negatives_param():
    labels = {"a": 1, "b": 0, "c": -1}
    run, qrels = frames({"s": list("cab")}, labels)
    default = pdireval.evaluate(run, "RIC", qrels=qrels)["value"].iloc[0]
    assert default == pytest.approx(direct_ric(list("cab"), {"a": 1, "b": 0, "c": NAN}))
    keep = pdireval.evaluate(run, "RIC(negatives=keep)", qrels=qrels)["value"].iloc[0]
    assert keep == pytest.approx(direct_ric(list("cab"), labels))
    nonrel = pdireval.evaluate(run, "RIC(negatives=nonrel)", qrels=qrels)["value"].iloc[0]
    assert nonrel == pytest.approx(direct_ric(list("cab"), {"a": 1, "b": 0, "c": 0}))


def test_cutoff_limits_the_list_before_condensing():
    rankings, labels = {"s": ["x", "a", "c", "b", "d"]}, {"a": 1, "b": 1, "c": 0, "d": 0}
    run, qrels = frames(rankings, labels)
    got = pdireval.evaluate(run, "RIC@3", qrels=qrels)["value"].iloc[0]
    assert got == pytest.approx(direct_ric(["x", "a", "c"], labels))


def test_registered_and_listed():
    table = pdireval.measures()
    row = table[table.measure == "RIC"].iloc[0]
    assert "Golbus" in row["citation"]
    assert str(pdireval.parse_measure("ric")) == "RIC"


def test_simulated_collection_matches_oracle():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=3, depth=15, rng=5)
    scores = pdireval.evaluate(run, "RIC", qrels=qrels)
    from pdireval.evaluation import prepare

    prepared = prepare(run, qrels=qrels)
    canonical = prepared.run
    order_col = "score" if "score" in canonical.columns else "rank"
    for row in scores.itertuples():
        sub = canonical[(canonical.system == row.system) & (canonical["query"] == row.query)]
        if order_col == "score":
            sub = sub.assign(s32=sub.score.astype(np.float32)).sort_values(["s32", "doc"], ascending=[False, False])
        else:
            sub = sub.sort_values("rank")
        q = prepared.qrels[prepared.qrels["query"] == row.query]
        labels = {d: (NAN if g < 0 else g) for d, g in zip(q.doc, q.label)}
        expected = direct_ric(sub.doc.tolist(), labels)
        assert row.value == pytest.approx(expected, abs=1e-12, nan_ok=True)


@pytest.mark.slow
def test_robust03_matches_vectorised_oracle(robust03):
    run, qrels = robust03
    systems = sorted(run.system.unique())[:2]
    queries = ["303", "650"]
    sub = run[run.system.isin(systems) & run["query"].isin(queries)]
    scores = pdireval.evaluate(sub, "RIC", qrels=qrels[qrels["query"].isin(queries)])
    for row in scores.itertuples():
        docs = sub[(sub.system == row.system) & (sub["query"] == row.query)]
        docs = docs.assign(s32=docs.score.astype(np.float32)).sort_values(["s32", "doc"], ascending=[False, False])
        q = qrels[qrels["query"] == row.query]
        lab = dict(zip(q.doc, q.label))
        # vectorised direct MLE over ordered pairs (numpy enumeration)
        judged = np.array(list(lab))
        g = np.array([lab[d] for d in judged])
        rank = list_variable(docs.doc.tolist(), lab)
        r = np.array([rank.get(d, np.inf) for d in judged])
        i, j = np.nonzero(g[:, None] != g[None, :])
        both_inf = np.isinf(r[i]) & np.isinf(r[j])
        rv = np.where(both_inf, 0, np.where(r[i] < r[j], 1, -1))
        qv = (g[i] > g[j]).astype(int)
        joint = np.zeros((3, 2))
        np.add.at(joint, (rv + 1, qv), 1.0)
        p = joint / joint.sum()
        pr, pq = p.sum(axis=1, keepdims=True), p.sum(axis=0, keepdims=True)
        nz = p > 0
        expected = float((p[nz] * np.log2(p[nz] / (pr @ pq)[nz])).sum())
        assert row.value == pytest.approx(expected, abs=1e-12)
