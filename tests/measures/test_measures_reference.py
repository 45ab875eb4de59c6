"""Differential test: the vectorised kernels against a plain, per-ranking Python transcription of
the definitions (the kernel docstrings), on hypothesis collections.

This covers what trec_eval cannot check — DCG/nDCG under every gain, discount and
``negatives=`` reading, condensed lists, ERR, RBP, RBPResidual, Judged, SP, GAP — across many
segments at once (cut-offs inside and beyond depth, unanswered queries, ties). The reference
is deliberately naive: one Python loop per ranking, written from the formulas, sharing no
code with pdireval.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdireval
from tests.helpers import collections

# --------------------------------------------------------------------------- the reference


def read(label, negatives):
    """A qrels label under a reading; None = unjudged."""
    if label is None or (isinstance(label, float) and math.isnan(label)):
        return None
    if label < 0:
        return {"unjudged": None, "nonrel": 0.0, "keep": float(label)}[negatives]
    return float(label)


def gain_of(label, gain):
    if label is None:
        return 0.0
    if gain == "linear":
        return label
    if gain == "exp":
        return 2.0**label - 1.0
    return float(gain.get(label, 0.0))


def weight(i, discount, k):
    """Weight of 1-based rank i."""
    if discount == "log2":
        return 1 / math.log2(i + 1)
    if discount == "zipf":
        return 1 / i
    if discount == "jk":
        return 1 / max(1.0, math.log2(i))
    if discount == "linear":
        return max(k + 1 - i, 0) / k
    return discount[i - 1] if i <= len(discount) else 0.0


def ranking(run_q: pd.DataFrame) -> list[str]:
    """trec_eval order: score (as a C float) descending, then doc id descending."""
    items = [(np.float32(s), d) for s, d in zip(run_q["score"], run_q["doc"])]
    items.sort(key=lambda x: (x[0], x[1]), reverse=True)
    return [d for _, d in items]


def reference(measure: str, docs: list[str], qlabels: dict, all_labels: list, p) -> float:
    """One measure on one ranking. ``p``: parsed parameters (a dict) plus 'k'."""
    neg = p.get("negatives", "unjudged")
    k = p.get("k")
    labels = [read(qlabels.get(d), neg) for d in docs]
    if p.get("judged_only"):
        labels = [lab for lab in labels if lab is not None]
    top = labels if k is None else labels[:k]
    pool = [x for x in (read(v, neg) for v in qlabels.values()) if x is not None]
    rel = p.get("rel", 1.0)
    R = sum(1 for x in pool if x >= rel)
    is_rel = [lab is not None and lab >= rel for lab in top]

    if measure in ("DCG", "nDCG"):
        gain, disc = p.get("gain", "linear"), p.get("discount", "log2")
        dcg = sum(gain_of(lab, gain) * weight(i, disc, k) for i, lab in enumerate(top, 1))
        if measure == "DCG":
            return dcg
        ideal = sorted((gain_of(x, gain) for x in pool), reverse=True)
        ideal = ideal if k is None else ideal[:k]
        idcg = sum(g * weight(i, disc, k) for i, g in enumerate(ideal, 1))
        return dcg / idcg if idcg != 0 else 0.0
    if measure == "SP":
        hits, total = 0, 0.0
        for i, r in enumerate(is_rel, 1):
            if r:
                hits += 1
                total += hits / i
        return total
    if measure == "AP":
        return reference("SP", docs, qlabels, all_labels, p) / R if R else 0.0
    if measure == "RBP":
        q = p.get("p", 0.8)
        return (1 - q) * sum(q ** (i - 1) for i, r in enumerate(is_rel, 1) if r)
    if measure == "RBPResidual":
        q = p.get("p", 0.8)
        return 1 - (1 - q) * sum(q ** (i - 1) for i, lab in enumerate(top, 1) if lab is not None)
    if measure == "Judged":
        return sum(lab is not None for lab in top) / len(top) if top else 0.0
    if measure == "ERR":
        judged = [x for x in (read(v, neg) for v in all_labels) if x is not None]
        gmax = p.get("max_grade", 4.0)
        if gmax == "qrels":
            gmax = max(judged) if judged else 0.0
        total, survive = 0.0, 1.0
        for i, lab in enumerate(top, 1):
            g = 0.0 if lab is None else max(lab, 0.0)
            r = min(max((2**g - 1) / 2**gmax, 0.0), 1.0)
            total += survive * r / i
            survive *= 1 - r
        return total
    if measure == "GAP":
        judged = [x for x in (read(v, neg) for v in all_labels) if x is not None]
        C = max(1, int(math.floor(max(judged)))) if judged else 1
        probs = p.get("probs", [1 / C] * C)
        C = len(probs)

        def grade(x):
            return 0 if x is None else min(max(int(math.floor(x)), 0), C)

        def G(c):
            return sum(probs[:c])

        grades = [grade(x) for x in top]
        num = 0.0
        for n, gn in enumerate(grades, 1):
            if gn > 0:
                num += sum(G(min(gm, gn)) for gm in grades[:n] if gm > 0) / n
        den = sum(G(grade(x)) for x in pool if grade(x) > 0)
        return num / den if den else 0.0
    if measure == "NumRet":
        return float(len(top))
    raise AssertionError(measure)


# (pdireval measure string, reference name, parameters)
CASES = [
    ("DCG@3", "DCG", {"k": 3}),
    ("DCG(gain=exp,discount=zipf)", "DCG", {"gain": "exp", "discount": "zipf"}),
    ("DCG(negatives=keep,gain=exp)@5", "DCG", {"negatives": "keep", "gain": "exp", "k": 5}),
    ("nDCG", "nDCG", {}),
    ("nDCG@1", "nDCG", {"k": 1}),
    ("nDCG@20", "nDCG", {"k": 20}),
    ("nDCG(negatives=keep)@3", "nDCG", {"negatives": "keep", "k": 3}),
    ("nDCG(negatives=keep)", "nDCG", {"negatives": "keep"}),
    ("nDCG(negatives=nonrel)@5", "nDCG", {"negatives": "nonrel", "k": 5}),
    ("nDCG(gain=exp)@5", "nDCG", {"gain": "exp", "k": 5}),
    ("nDCG(gain=exp,negatives=keep)@5", "nDCG", {"gain": "exp", "negatives": "keep", "k": 5}),
    ("nDCG(gain={-2:-3,0:0,1:1,3:10})@4", "nDCG", {"gain": {-2.0: -3.0, 0.0: 0.0, 1.0: 1.0, 3.0: 10.0}, "k": 4}),
    ("nDCG(gain={-2:-3,0:0,1:1,3:10},negatives=keep)@4", "nDCG", {"gain": {-2.0: -3.0, 0.0: 0.0, 1.0: 1.0, 3.0: 10.0}, "negatives": "keep", "k": 4}),
    ("nDCG(discount=zipf)@4", "nDCG", {"discount": "zipf", "k": 4}),
    ("nDCG(discount=jk)", "nDCG", {"discount": "jk"}),
    ("nDCG(discount=linear)@4", "nDCG", {"discount": "linear", "k": 4}),
    ("nDCG(discount=linear)@30", "nDCG", {"discount": "linear", "k": 30}),
    ("nDCG(discount=[1,0.9,0.1])", "nDCG", {"discount": [1, 0.9, 0.1]}),
    ("nDCG(discount=[1,0.9,0.1])@2", "nDCG", {"discount": [1, 0.9, 0.1], "k": 2}),
    ("nDCG(judged_only=true)@3", "nDCG", {"judged_only": True, "k": 3}),
    ("nDCG(judged_only=true,negatives=keep)@3", "nDCG", {"judged_only": True, "negatives": "keep", "k": 3}),
    ("SP@3", "SP", {"k": 3}),
    ("SP", "SP", {}),
    ("SP(rel=2)@20", "SP", {"rel": 2.0, "k": 20}),
    ("AP(judged_only=true)", "AP", {"judged_only": True}),
    ("AP(judged_only=true,negatives=nonrel)@4", "AP", {"judged_only": True, "negatives": "nonrel", "k": 4}),
    ("RBP", "RBP", {}),
    ("RBP(p=0.5,rel=2)@3", "RBP", {"p": 0.5, "rel": 2.0, "k": 3}),
    ("RBP(judged_only=true)", "RBP", {"judged_only": True}),
    ("RBPResidual", "RBPResidual", {}),
    ("RBPResidual(p=0.6)@2", "RBPResidual", {"p": 0.6, "k": 2}),
    ("RBPResidual(negatives=nonrel)", "RBPResidual", {"negatives": "nonrel"}),
    ("RBPResidual(judged_only=true)", "RBPResidual", {"judged_only": True}),
    ("Judged@1", "Judged", {"k": 1}),
    ("Judged@5", "Judged", {"k": 5}),
    ("Judged@30", "Judged", {"k": 30}),
    ("Judged(negatives=keep)@5", "Judged", {"negatives": "keep", "k": 5}),
    ("ERR", "ERR", {}),
    ("ERR@3", "ERR", {"k": 3}),
    ("ERR(max_grade=2)@5", "ERR", {"max_grade": 2.0, "k": 5}),
    ("ERR(max_grade=4)", "ERR", {"max_grade": 4.0}),
    ("ERR(max_grade=qrels)@5", "ERR", {"max_grade": "qrels", "k": 5}),
    ("ERR(negatives=keep)@5", "ERR", {"negatives": "keep", "k": 5}),
    ("ERR(judged_only=true)@3", "ERR", {"judged_only": True, "k": 3}),
    ("GAP", "GAP", {}),
    ("GAP@3", "GAP", {"k": 3}),
    ("GAP(probs=[0.5,0.25,0.25])", "GAP", {"probs": [0.5, 0.25, 0.25]}),
    ("GAP(probs=[0,1])", "GAP", {"probs": [0.0, 1.0]}),
    ("GAP(judged_only=true,negatives=nonrel)", "GAP", {"judged_only": True, "negatives": "nonrel"}),
    ("NumRet(judged_only=true)", "NumRet", {"judged_only": True}),
    ("NumRet(judged_only=true,negatives=keep)@2", "NumRet", {"judged_only": True, "negatives": "keep", "k": 2}),
]




def expected_scores(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    all_labels = list(qrels["label"].astype(float))
    by_query = {q: dict(zip(g["doc"], g["label"].astype(float))) for q, g in qrels.groupby("query")}
    rows = []
    for system in run["system"].unique():
        mine = run[run["system"] == system]
        for query, qlabels in by_query.items():
            docs = ranking(mine[mine["query"] == query])  # [] for an unanswered query
            for text, name, params in CASES:
                rows.append((system, query, text, reference(name, docs, qlabels, all_labels, params)))
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(labels=st.integers(-2, 3)))
def test_kernels_match_the_reference(data):
    run, qrels = data
    ours = pdireval.evaluate(run, [text for text, _, _ in CASES], qrels=qrels)
    expected = expected_scores(run, qrels)
    keys = ["system", "query", "measure"]
    merged = ours.astype({k: str for k in keys}).merge(expected, on=keys, how="outer", indicator=True)
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"]
    diff = np.abs(merged["value_x"] - merged["value_y"])
    bad = merged[~(diff <= 1e-9)]
    assert bad.empty, bad.to_string()


@pytest.mark.slow
def test_kernels_match_the_reference_on_robust03(robust03):
    """The same comparison on 20 (run, topic) rankings of Robust 2003 (1000 documents each),
    where long rankings and many segments would expose accumulated rounding."""
    run, qrels = robust03
    run = run.astype({"system": str, "query": str, "doc": str})
    qrels = qrels.astype({"query": str, "doc": str})
    ours = pdireval.evaluate(run, [text for text, _, _ in CASES], qrels=qrels, missing="drop")
    value = ours.astype({"system": str, "query": str, "measure": str}).set_index(["system", "query", "measure"])["value"]
    all_labels = list(qrels["label"])
    by_query = {q: dict(zip(g["doc"], g["label"])) for q, g in qrels.groupby("query")}
    pairs = run[["system", "query"]].drop_duplicates().sample(20, random_state=7)
    worst = 0.0
    for system, query in pairs.itertuples(index=False):
        docs = ranking(run[(run["system"] == system) & (run["query"] == query)])
        for text, name, params in CASES:
            expected = reference(name, docs, by_query[query], all_labels, params)
            worst = max(worst, abs(value[(system, query, text)] - expected))
    assert worst <= 1e-9
