"""qrels_overlap and corrected_relevant_rate: set precision / recall / F1 / Jaccard against a
transcription of autojudge-evaluate's per-topic code (the package downloads NLTK data when
imported, so it cannot run offline), the adjusted Rand index against scikit-learn, a
hand-computed table, the Rogan–Gladen frame against its formula, and bad inputs."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import adjusted_rand_score

from pdireval.errors import PdirevalWarning, SchemaError
from pdireval.runs.prevalence import corrected_relevant_rate
from pdireval.runs.qrels_overlap import adjusted_rand_binary, qrels_overlap


def _autojudge_tables(truth, predicted, threshold=1, default_grade=0):
    """autojudge_evaluate.nugget_doc_eval.set_overlap and grade_agreement (1.1.0,
    on_missing='default'), transcribed: per topic (P, R, F1 or None, Jaccard, ARI)."""
    t_rel, p_rel = defaultdict(set), defaultdict(set)
    t_all, p_all = defaultdict(dict), defaultdict(dict)
    for q, d, g in truth:
        t_all[q][d] = g
        if g >= threshold:
            t_rel[q].add(d)
    for q, d, g in predicted:
        p_all[q][d] = g
        if g >= threshold:
            p_rel[q].add(d)
    out = {}
    for q in sorted(set(t_all) | set(p_all)):
        prf = None
        if q in t_rel or q in p_rel:
            tp = len(t_rel[q] & p_rel[q])
            fp, fn = len(p_rel[q] - t_rel[q]), len(t_rel[q] - p_rel[q])
            p = tp / (tp + fp) if tp + fp else 0.0
            r = tp / (tp + fn) if tp + fn else 0.0
            prf = (p, r, 2 * p * r / (p + r) if p + r else 0.0)
        docs = sorted(set(t_all[q]) | set(p_all[q]))
        tv = np.array([t_all[q].get(d, default_grade) >= threshold for d in docs])
        pv = np.array([p_all[q].get(d, default_grade) >= threshold for d in docs])
        tp, fp, fn = (tv & pv).sum(), (~tv & pv).sum(), (tv & ~pv).sum()
        jac = tp / (tp + fp + fn) if tp + fp + fn else float("nan")
        out[q] = (prf, jac, adjusted_rand_score(tv.astype(int), pv.astype(int)))
    return out


def _random_qrels(seed, n_queries=12):
    rng = np.random.default_rng(seed)
    rows_a, rows_b = [], []
    for q in range(n_queries):
        docs = rng.choice(200, size=rng.integers(1, 40), replace=False)
        base = rng.beta(1, 3, len(docs))
        la = np.digitize(base, [0.3, 0.6, 0.85])
        lb = np.clip(la + rng.choice([-1, 0, 0, 1], len(docs)), 0, 3)
        keep_a, keep_b = rng.random(len(docs)) < 0.9, rng.random(len(docs)) < 0.9
        if q == 0:
            la[:] = 0  # a query with no relevant document on either side
            lb[:] = 0
        rows_a += [(f"q{q}", f"d{d}", int(g)) for d, g, k in zip(docs, la, keep_a) if k]
        rows_b += [(f"q{q}", f"d{d}", int(g)) for d, g, k in zip(docs, lb, keep_b) if k]
    return rows_a, rows_b


def _frame(rows):
    return pd.DataFrame(rows, columns=["query", "doc", "label"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_the_autojudge_tables(seed):
    rows_a, rows_b = _random_qrels(seed)
    got = qrels_overlap(_frame(rows_a), _frame(rows_b)).set_index("query")
    want = _autojudge_tables(rows_a, rows_b)
    assert set(got.index) == set(want)
    for q, (prf, jac, ari) in want.items():
        row = got.loc[q]
        if prf is None:
            assert row[["precision", "recall", "f1"]].isna().all()
        else:
            assert tuple(row[["precision", "recall", "f1"]]) == pytest.approx(prf, abs=1e-15)
        assert row["jaccard"] == pytest.approx(jac, abs=1e-15, nan_ok=True)
        assert row["ari"] == pytest.approx(ari, abs=1e-12)


def test_hand_table():
    # q1: human relevant {a, b, c}, LLM relevant {b, c, d}; e judged non-relevant by both
    human = _frame([("q1", "a", 2), ("q1", "b", 1), ("q1", "c", 1), ("q1", "e", 0)])
    llm = _frame([("q1", "b", 1), ("q1", "c", 3), ("q1", "d", 1), ("q1", "e", 0), ("q2", "x", 1)])
    got = qrels_overlap(human, llm).set_index("query")
    assert tuple(got.loc["q1", ["tp", "fp", "fn", "n_docs"]]) == (2, 1, 1, 5)
    assert got.loc["q1", "precision"] == pytest.approx(2 / 3)
    assert got.loc["q1", "f1"] == pytest.approx(2 / 3)
    assert got.loc["q1", "jaccard"] == pytest.approx(0.5)
    # ARI of [1,1,1,0,0] vs [0,1,1,1,0] (docs a..e; Hubert & Arabie's form): the 2x2 table is
    # n11 = 2, n10 = 1, n01 = 1, n00 = 1; index = C(2,2) = 1, row and column sums (3, 2) give
    # C(3,2) + C(2,2) = 4 each, expected = 4 * 4 / C(5,2) = 1.6, max = 4: (1 - 1.6)/(4 - 1.6)
    assert got.loc["q1", "ari"] == pytest.approx(-0.25, abs=1e-15)
    assert adjusted_rand_score([1, 1, 1, 0, 0], [0, 1, 1, 1, 0]) == pytest.approx(-0.25)
    # q2: only the LLM judged it; human relevant set empty: P = R = F1 = 0
    assert tuple(got.loc["q2", ["precision", "recall", "f1", "jaccard"]]) == (0.0, 0.0, 0.0, 0.0)
    skip = qrels_overlap(human, llm, missing="skip")
    assert list(skip["query"]) == ["q1"]
    with pytest.raises(SchemaError, match="one side only.*q2"):
        qrels_overlap(human, llm, missing="error")
    strict = qrels_overlap(human, llm, rel=2, other_rel=3).set_index("query")  # {a} vs {c}
    assert tuple(strict.loc["q1", ["tp", "fp", "fn"]]) == (0, 1, 1)


def test_adjusted_rand_binary_equals_sklearn_on_random_tables():
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 30))
        a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
        if rng.random() < 0.2:
            b = a.copy()
        counts = [((a == x) & (b == y)).sum() for x, y in ((1, 1), (1, 0), (0, 1), (0, 0))]
        assert adjusted_rand_binary(*counts) == pytest.approx(adjusted_rand_score(a, b), abs=1e-12)


def test_corrected_relevant_rate():
    rng = np.random.default_rng(6)
    n = 5000
    truth = rng.random(n) < 0.3
    called = np.where(truth, rng.random(n) < 0.8, rng.random(n) < 0.15)
    judge = pd.DataFrame({"query": "q", "doc": [f"d{i}" for i in range(n)], "label": called * 1})
    sample = rng.choice(n, 600, replace=False)
    human = pd.DataFrame({"query": "q", "doc": [f"d{i}" for i in sample], "label": truth[sample] * 1})
    out = corrected_relevant_rate(human, judge).iloc[0]
    t, c = truth[sample], called[sample]
    se_, sp_, p = c[t].mean(), (~c[~t]).mean(), called.mean()
    pi = (p + sp_ - 1) / (se_ + sp_ - 1)
    var = (p * (1 - p) / n + pi**2 * se_ * (1 - se_) / t.sum() + (1 - pi) ** 2 * sp_ * (1 - sp_) / (~t).sum()) / (se_ + sp_ - 1) ** 2
    assert out["estimate"] == pytest.approx(pi, abs=1e-14)
    assert out["se"] == pytest.approx(np.sqrt(var), abs=1e-14)
    assert (out["n_pairs"], out["n_positive"]) == (n, t.sum())
    assert out["ci_low"] < truth.mean() < out["ci_high"]  # the true rate, not the apparent one
    assert not out["ci_low"] < p < out["ci_high"]
    extra = pd.concat([human, pd.DataFrame({"query": ["q"], "doc": ["new"], "label": [1]})])
    with pytest.warns(PdirevalWarning, match="no label in other"):
        corrected_relevant_rate(extra, judge)
    with pytest.raises(SchemaError, match="0 relevant"):
        corrected_relevant_rate(human.assign(label=0), judge)
    with pytest.raises(SchemaError, match="share no judged"):
        with pytest.warns(PdirevalWarning):
            corrected_relevant_rate(human.assign(query="other"), judge)
