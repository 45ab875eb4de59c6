"""Q-measure, nERR and bpref-10 against plain per-query references written from the papers'
formulas, and their known identities (Q with β = 0 is AP, the ideal ranking scores 1)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pdireval


def ranked_lists(run, qrels):
    """{(system, query): ranked labels (NaN = unjudged)} in trec_eval order, {query: judged labels};
    negative labels read as pooled but unjudged (pdireval's default, trec_eval's reading)."""
    qrels = qrels[qrels["label"] >= 0]
    lab = {(q, d): v for q, d, v in zip(qrels["query"], qrels["doc"], qrels["label"])}
    out = {}
    for (s, q), seg in run.groupby(["system", "query"]):
        seg = seg.assign(s32=seg["score"].astype(np.float32)).sort_values(["s32", "doc"], ascending=[False, False])
        out[(s, q)] = [lab.get((q, d), math.nan) for d in seg["doc"]]
    judged = {q: list(g["label"]) for q, g in qrels.groupby("query")}
    return out, judged


def q_reference(ranked, judged, beta=1.0, rel=1.0):
    gains = sorted((x for x in judged if x >= rel), reverse=True)
    R = len(gains)
    total, cg, count = 0.0, 0.0, 0
    for r, x in enumerate(ranked, start=1):
        is_rel = not math.isnan(x) and x >= rel
        cg += x if is_rel else 0.0
        if is_rel:
            count += 1
            ideal = sum(gains[:r])
            total += (beta * cg + count) / (beta * ideal + r)
    return total / R if R else 0.0


def q_at_reference(ranked, judged, k, beta=1.0, rel=1.0):
    """Q@k by brute force from its definition: BR(r) = (β·cg(r) + C(r)) / (β·cg*(r) + r)
    summed over the relevant documents of the top k, divided by min(k, R); every sum is
    recomputed from scratch at each rank."""
    ideal = sorted((x for x in judged if x >= rel), reverse=True)
    R = len(ideal)
    if R == 0:
        return 0.0

    def relevant(x):
        return not math.isnan(x) and x >= rel

    total = 0.0
    for r in range(1, min(k, len(ranked)) + 1):
        if relevant(ranked[r - 1]):
            cg = sum(x for x in ranked[:r] if relevant(x))
            count = sum(1 for x in ranked[:r] if relevant(x))
            cg_ideal = sum(ideal[:r])
            total += (beta * cg + count) / (beta * cg_ideal + r)
    return total / min(k, R)


def err_reference(labels, k, gmax=4.0):
    value, survive = 0.0, 1.0
    for i, x in enumerate(labels[:k], start=1):
        g = 0.0 if math.isnan(x) else max(x, 0.0)
        stop = min((2**g - 1) / 2**gmax, 1.0)
        value += survive * stop / i
        survive *= 1 - stop
    return value


def bpref10_reference(ranked, judged, rel=1.0):
    R = sum(1 for x in judged if x >= rel)
    N = sum(1 for x in judged if x < rel)
    total, nonrel = 0.0, 0
    for x in ranked:
        if math.isnan(x):
            continue
        if x >= rel:
            total += 1.0 if nonrel == 0 else 1.0 - min(nonrel, 10 + R) / min(N, 10 + R)
        else:
            nonrel += 1
    return total / R if R else 0.0


@pytest.fixture(scope="module")
def collection():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=6, depth=60, rng=11)
    return run.assign(score=np.round(run["score"], 2)), qrels  # with ties


def test_against_references(collection):
    run, qrels = collection
    ranked, judged = ranked_lists(run, qrels)
    scores = pdireval.evaluate(run, ["Q", "Q(beta=3)", "nERR@10", "nERR", "Bpref(variant=10R)"], qrels=qrels, missing="drop")
    got = {(s, q, m): v for s, q, m, v in zip(scores["system"], scores["query"], scores["measure"], scores["value"])}
    for (s, q), labels in ranked.items():
        ideal = sorted(judged[q], reverse=True)
        assert got[(s, q, "Q")] == pytest.approx(q_reference(labels, judged[q]), abs=1e-12)
        assert got[(s, q, "Q(beta=3)")] == pytest.approx(q_reference(labels, judged[q], beta=3.0), abs=1e-12)
        for k, name in ((10, "nERR@10"), (10**9, "nERR")):
            want = err_reference(labels, k) / err_reference(ideal, k) if err_reference(ideal, k) else 0.0
            assert got[(s, q, name)] == pytest.approx(want, abs=1e-12)
        assert got[(s, q, "Bpref(variant=10R)")] == pytest.approx(bpref10_reference(labels, judged[q]), abs=1e-12)


def test_q_at_k_against_brute_force(collection):
    run, qrels = collection
    ranked, judged = ranked_lists(run, qrels)
    names = ["Q@1", "Q@5", "Q@20", "Q(beta=0.5)@10", "Q(rel=2)@10", "Q@1000"]
    scores = pdireval.evaluate(run, names, qrels=qrels, missing="drop")
    got = {(s, q, m): v for s, q, m, v in zip(scores["system"], scores["query"], scores["measure"], scores["value"])}
    checked = 0
    for (s, q), labels in ranked.items():
        for name, k, beta, rel in (("Q@1", 1, 1.0, 1.0), ("Q@5", 5, 1.0, 1.0), ("Q@20", 20, 1.0, 1.0),
                                   ("Q(beta=0.5)@10", 10, 0.5, 1.0), ("Q(rel=2)@10", 10, 1.0, 2.0)):
            assert got[(s, q, name)] == pytest.approx(q_at_reference(labels, judged[q], k, beta, rel), abs=1e-12)
            checked += got[(s, q, name)] > 0
        # a cut-off past every list and past R is Q itself
        assert got[(s, q, "Q@1000")] == pytest.approx(q_reference(labels, judged[q]), abs=1e-12)
    assert checked > 20


def test_q_and_q_at_k_match_pyntcireval(collection):
    """pyNTCIREVAL (Kato's Python port of Sakai's NTCIREVAL): QMeasure(xrelnum, grades, beta,
    cutoff) on each ranked list (unjudged documents as level 0, gains = labels)."""
    QMeasure = pytest.importorskip(
        "pyNTCIREVAL.metrics", reason="pyNTCIREVAL is an optional oracle (the test group)"
    ).QMeasure

    run, qrels = collection
    ranked, judged = ranked_lists(run, qrels)
    names = ["Q", "Q@1", "Q@3", "Q@10", "Q(beta=2)@10", "Q@50"]
    scores = pdireval.evaluate(run, names, qrels=qrels, missing="drop")
    got = {(s, q, m): v for s, q, m, v in zip(scores["system"], scores["query"], scores["measure"], scores["value"])}
    for (s, q), labels in ranked.items():
        levels = [int(x) for x in judged[q]]
        xrelnum = [levels.count(level) for level in range(max(levels) + 1)]
        grades = list(range(1, max(levels) + 1)) or [1]
        ranked_list = [(i, None if math.isnan(x) else int(x)) for i, x in enumerate(labels)]
        for name, beta, cutoff in (("Q", 1.0, None), ("Q@1", 1.0, 1), ("Q@3", 1.0, 3), ("Q@10", 1.0, 10),
                                   ("Q(beta=2)@10", 2.0, 10), ("Q@50", 1.0, 50)):
            theirs = QMeasure(xrelnum, grades, beta, cutoff=cutoff).compute(ranked_list)
            assert got[(s, q, name)] == pytest.approx(theirs, abs=1e-12), (s, q, name)


def test_identities(collection):
    run, qrels = collection
    both = pdireval.evaluate(run, ["Q(beta=0)", "AP"], qrels=qrels)
    np.testing.assert_allclose(both["value"].to_numpy()[::2], both["value"].to_numpy()[1::2], rtol=0, atol=1e-12)
    # the ideal ranking (judged pool by label, descending) scores 1 on Q and nERR
    ideal = qrels.sort_values(["query", "label"], ascending=[True, False])
    ideal = ideal.assign(system="ideal", score=-ideal.groupby("query").cumcount().astype(float))
    values = pdireval.evaluate(ideal[["system", "query", "doc", "score"]], ["Q", "nERR@5"], qrels=qrels)["value"]
    np.testing.assert_allclose(values, 1.0, rtol=0, atol=1e-12)


def test_bpref_10_differs_from_bpref_only_when_nonrelevant_outnumber_r():
    # R = 1, N = 12 judged non-relevant; the relevant document below 11 of them
    docs = [f"n{i}" for i in range(12)] + ["r"]
    qrels = pd.DataFrame({"query": "q", "doc": docs, "label": [0] * 12 + [1]})
    run = pd.DataFrame({"system": "s", "query": "q", "doc": docs[:11] + ["r"], "score": np.arange(12, 0, -1.0)})
    v = pdireval.evaluate(run, ["Bpref", "Bpref(variant=10R)"], qrels=qrels)["value"].to_numpy()
    assert v[0] == 0.0  # 1 - min(11, 1)/min(12, 1)
    assert v[1] == pytest.approx(1 - 11 / 11)  # 1 - min(11, 11)/min(12, 11)
    run2 = run.assign(doc=docs[:5] + ["r"] + docs[5:11])
    v2 = pdireval.evaluate(run2, ["Bpref", "Bpref(variant=10R)"], qrels=qrels)["value"].to_numpy()
    assert v2[0] == 0.0 and v2[1] == pytest.approx(1 - 5 / 11)
