"""Joint RIC and information difference on TREC 2003 Robust against a numpy enumeration of
every ordered different-label pair (two topics, three systems)."""

from __future__ import annotations

import numpy as np
import pytest

import pdireval


def _ranks(run, qrels, system, query, judged_docs):
    docs = run[(run.system == system) & (run["query"] == query)]
    docs = docs.assign(s32=docs.score.astype(np.float32)).sort_values(["s32", "doc"], ascending=[False, False])
    lab = dict(zip(qrels.doc, qrels.label))
    condensed = [d for d in docs.doc if d in lab]
    rel = [i for i, d in enumerate(condensed) if lab[d] >= 1]
    condensed = condensed[: rel[-1] + 1] if rel else []
    rank = {d: i for i, d in enumerate(condensed)}
    return np.array([rank.get(d, np.inf) for d in judged_docs])


def _mi(codes, q):
    values, inv = np.unique(codes, return_inverse=True)
    joint = np.zeros((len(values), 2))
    np.add.at(joint, (inv.reshape(-1), q), 1.0)
    p = joint / joint.sum()
    pr, pq = p.sum(axis=1, keepdims=True), p.sum(axis=0, keepdims=True)
    nz = p > 0
    return float((p[nz] * np.log2(p[nz] / (pr @ pq)[nz])).sum())


@pytest.mark.slow
def test_joint_ric_and_difference_match_enumeration(robust03):
    run, qrels = robust03
    systems = sorted(run.system.unique())[3:6]
    queries = ["307", "320"]
    sub = run[run.system.isin(systems) & run["query"].isin(queries)]
    qsub = qrels[qrels["query"].isin(queries)]
    joint = pdireval.joint_ric(sub, qrels=qsub).set_index("query")["joint_ric"]
    diff = pdireval.information_difference(sub, qrels=qsub).set_index(["system_a", "system_b", "query"])
    for query in queries:
        q = qsub[(qsub["query"] == query) & (qsub.label >= 0)]
        docs, g = q.doc.to_numpy(), q.label.to_numpy(dtype=float)
        i, j = np.nonzero(g[:, None] != g[None, :])
        outcome = {}
        for s in systems:
            r = _ranks(sub, q, s, query, docs)
            outcome[s] = np.where(np.isinf(r[i]) & np.isinf(r[j]), 0, np.where(r[i] < r[j], 1, -1))
        qv = (g[i] > g[j]).astype(int)
        code = sum((outcome[s] + 1) * 3**k for k, s in enumerate(systems))
        assert joint[query] == pytest.approx(_mi(code, qv), abs=1e-12)
        a, b = systems[0], systems[2]
        pair = _mi((outcome[a] + 1) * 3 + outcome[b] + 1, qv)
        expected = 2 * pair - _mi(outcome[a], qv) - _mi(outcome[b], qv)
        assert diff.loc[(a, b, query), "information_difference"] == pytest.approx(expected, abs=1e-12)
