"""RIC as a registered measure (seed 001 §5; methods-spec §6.1–6.2).

Oracle: the direct maximum-likelihood MI over explicitly enumerated *ordered* pairs
(written here from the definitions of §6.1, independent of pdireval's closed form).
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import permutations

import numpy as np
import pandas as pd
import pytest

import pdireval

NAN = float("nan")


def mi(samples):
    n = len(samples)
    pxy = Counter(samples)
    px = Counter(x for x, _ in samples)
    py = Counter(y for _, y in samples)
    return sum(c / n * math.log2((c / n) / ((px[x] / n) * (py[y] / n))) for (x, y), c in pxy.items())


def list_variable(ranking, labels, rel=1.0):
    """Rank of each judged document in the condensed, truncated list (inf = not retrieved)."""
    condensed = [d for d in ranking if d in labels and not math.isnan(labels[d])]
    last = max((i for i, d in enumerate(condensed) if labels[d] >= rel), default=-1)
    return {d: i for i, d in enumerate(condensed[: last + 1])}


def r_value(rank, di, dj):
    ri, rj = rank.get(di, math.inf), rank.get(dj, math.inf)
    if math.isinf(ri) and math.isinf(rj):
        return 0
    return 1 if ri < rj else -1


def pair_sample(labels):
    judged = [d for d, g in labels.items() if not math.isnan(g)]
    return [(i, j) for i, j in permutations(judged, 2) if labels[i] != labels[j]]


def direct_ric(ranking, labels, rel=1.0):
    pairs = pair_sample(labels)
    if not pairs:
        return NAN
    rank = list_variable(ranking, labels, rel)
    return mi([(r_value(rank, i, j), int(labels[i] > labels[j])) for i, j in pairs])


def direct_joint_ric(rankings, labels, rel=1.0):
    pairs = pair_sample(labels)
    ranks = [list_variable(r, labels, rel) for r in rankings]
    return mi([(tuple(r_value(rk, i, j) for rk in ranks), int(labels[i] > labels[j])) for i, j in pairs])


def frames(rankings: dict, labels: dict, query="1"):
    run = pd.DataFrame(
        [
            {"system": s, "query": query, "doc": d, "rank": i + 1}
            for s, ranking in rankings.items()
            for i, d in enumerate(ranking)
        ]
    )
    qrels = pd.DataFrame([{"query": query, "doc": d, "label": g} for d, g in labels.items()])
    return run, qrels


EXAMPLE = {"a": 2, "b": 1, "e": 1, "c": 0, "d": 0, "u": NAN}


def test_worked_examples_of_methods_spec():
    run, qrels = frames({"s1": list("bcuad"), "s2": list("aeb")}, EXAMPLE)
    scores = pdireval.evaluate(run, "RIC", qrels=qrels)
    values = dict(zip(scores.system, scores.value))
    assert values["s1"] == pytest.approx(0.0129253810, abs=1e-10)
    assert values["s2"] == pytest.approx(1.0, abs=1e-12)
    assert direct_ric(list("bcuad"), EXAMPLE) == pytest.approx(0.0129253810, abs=1e-10)


def _random_case(rng):
    n_docs = int(rng.integers(2, 12))
    docs = [f"d{i}" for i in range(n_docs)]
    grades = rng.integers(0, int(rng.integers(2, 5)), n_docs).astype(float)
    grades[rng.random(n_docs) < 0.15] = NAN
    labels = dict(zip(docs, grades))
    pool = docs + [f"x{i}" for i in range(3)]  # x*: never judged
    rankings = {}
    for s in range(int(rng.integers(1, 4))):
        k = int(rng.integers(0, len(pool) + 1))
        rankings[f"s{s}"] = list(rng.permutation(pool)[:k])
    return rankings, labels


def test_closed_form_equals_direct_mle_on_random_cases():
    rng = np.random.default_rng(11)
    for rel in (1.0, 2.0):
        runs, qrels, cases = [], [], {}
        for case in range(100):
            rankings, labels = _random_case(rng)
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
