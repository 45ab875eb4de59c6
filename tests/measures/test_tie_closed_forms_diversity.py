"""The closed forms of pdireval.measures.diversity.ties (alpha_DCG, alpha_nDCG,
ERR_IA, nERR_IA, NRBP, nNRBP, P_IA, StRecall, AP_IA) and tie_closed_forms_cwl (INSQ, SDCG,
NERR8-11, INST, BPM):
equal to the mean over every ordering of the tied documents (brute force), on lists with
several documents relevant to one subtopic in a group, graded and unjudged documents, and
cut-offs inside groups."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.evaluation import prepare
from pdireval.measures.cwl.ties import bpm, inst, nerr10
from pdireval.measures.registry import parse_measure
from pdireval.measures.ties import method_kind as method_of
from tests.helpers import assert_every_ordering, expected_name

DIVERSITY = [
    "alpha_DCG@3", "alpha_DCG@1", "alpha_DCG(alpha=0.2)@5", "alpha_nDCG@4", "alpha_nDCG(rel=2)@6",
    "alpha_nDCG(judged_only=true)@3", "ERR_IA@3", "ERR_IA@1", "nERR_IA@5", "nERR_IA(judged_only=true)@2",
    "NRBP", "NRBP(alpha=0,beta=0.9)", "NRBP(alpha=1)", "nNRBP", "nNRBP(alpha=0.3,beta=0.7,rel=2)",
    "P_IA@3", "P_IA(judged_only=true)@2", "StRecall@2", "StRecall@5", "StRecall(rel=2)@3",
    "AP_IA", "AP_IA(rel=2)", "AP_IA(judged_only=true)",
]
CWL = ["INSQ", "INSQ(T=2)", "INSQ(min_rel=1,max_rel=2)", "INSQ(min_rel=-1,max_rel=3)", "SDCG@3",
       "SDCG@1", "SDCG(min_rel=1)@5", "SDCG(max_rel=2)@6"]
PLACED = ["INST", "INST(T=2)", "INST(min_rel=1)", "INST(T=0.5,max_rel=2)", "BPM(T=1)@3",
          "BPM(T=2,max_rel=3)@4", "BPM(T=0)@2", "BPM@1"]
NERR = ["NERR10", "NERR10(p=0.5)", "NERR11(T=2)", "NERR8@3", "NERR8@1", "NERR9@4", "NERR9(max_rel=2)@6"]


def check(run, qrels, measures, atol=1e-12):
    assert_every_ordering(run, qrels, measures, atol)


def case(seed: int, subtopics: bool = True):
    """Two queries, two systems; lists of 7 of 10 documents (one group of 4-6 tied documents
    among 2-3 groups), up to 3 subtopics judged 0-2 on 6 documents (a document relevant to
    several, several to one), 4 documents never judged."""
    gen = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in ("1", "2"):
        docs = [f"d{i}" for i in range(10)]
        for sub in ("1", "2", "3") if subtopics else ("0",):
            judged = gen.choice(docs[:6], size=int(gen.integers(3, 6)), replace=False)
            qrels += [(q, sub, d, float(gen.choice([0, 1, 1, 2]))) for d in judged]
        for s in ("a", "b"):
            picked = gen.choice(docs, size=7, replace=False)
            big = int(gen.integers(4, 7))
            scores = [3.0] * int(gen.integers(0, 8 - big)) + [2.0] * big
            scores += [1.0] * (7 - len(scores))
            runs += [(s, q, d, sc) for d, sc in zip(picked, scores)]
    qrels = pd.DataFrame(qrels, columns=["query", "subtopic", "doc", "label"])
    if not subtopics:
        qrels = qrels.drop(columns="subtopic")
    return pd.DataFrame(runs, columns=["system", "query", "doc", "score"]), qrels


def test_every_measure_here_is_a_closed_form():
    for text in DIVERSITY + CWL + NERR + PLACED:
        assert method_of(parse_measure(expected_name(text))) == "closed", text


def several_relevant_in_a_group(run, qrels, rel=1.0) -> bool:
    """Whether some tie group holds two documents relevant to one subtopic (the a >= 2 path)."""
    key = ["query", "subtopic"] if "subtopic" in qrels else ["query"]
    relevant = qrels[qrels["label"] >= rel]
    joined = run.merge(relevant, on=["query", "doc"])
    return bool((joined.groupby(["system", "score"] + key).size() >= 2).any())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_diversity_closed_forms_equal_the_mean_over_every_ordering(seed):
    run, qrels = case(seed)
    assert several_relevant_in_a_group(run, qrels)
    check(run, qrels, DIVERSITY)


def test_diversity_closed_forms_without_subtopics():
    run, qrels = case(5, subtopics=False)  # every query is one subtopic
    assert several_relevant_in_a_group(run, qrels)
    check(run, qrels, DIVERSITY)


@pytest.mark.parametrize("seed", [3, 4])
def test_cwl_closed_forms_equal_the_mean_over_every_ordering(seed):
    run, qrels = case(seed, subtopics=False)
    qrels = qrels.assign(label=qrels["label"] - (qrels.index % 3 == 0))  # negative labels too
    check(run, qrels, CWL)


def test_units_expanded_in_chunks():
    # a tiny chunk: every unit with a >= 2 expanded on its own, the same values
    run, qrels = case(1)
    segments = prepare(run, qrels=qrels).segments
    for text in ("alpha_nDCG@6", "NRBP", "ERR_IA@4"):
        m = parse_measure(expected_name(text))
        whole = m.definition.ties.form(segments, m)
        segments.cache.clear()
        np.testing.assert_array_equal(m.definition.ties.form(segments, m, chunk_terms=1), whole)


def test_long_group_against_the_hypergeometric_sum_by_hand():
    # 40 tied documents, 4 relevant to subtopic "x" (one of them also to "y"): E[NRBP raw]
    # by the order statistics of a uniformly random 4-subset of the 40 slots
    from math import comb

    docs = [f"t{i:02d}" for i in range(40)]
    qrels = pd.DataFrame({"query": "q", "subtopic": ["x"] * 4 + ["y"], "doc": docs[:4] + docs[:1], "label": 1.0})
    run = pd.DataFrame({"system": "s", "query": "q", "doc": ["top"] + docs, "score": [2.0] + [1.0] * 40})
    alpha, beta = 0.5, 0.8
    got = pdireval.evaluate(run, f"NRBP(alpha={alpha},beta={beta},ties=expected)", qrels=qrels)["value"].iloc[0]
    # subtopic x: the i-th relevant document (0-based) at slot t with probability
    # C(t, i)·C(39 − t, 3 − i)/C(40, 4); subtopic y: one document, uniform over the slots
    x = sum((1 - alpha) ** i * beta ** (1 + t) * comb(t, i) * comb(39 - t, 3 - i) / comb(40, 4) for i in range(4) for t in range(40))
    y = sum(beta ** (1 + t) for t in range(40)) / 40
    assert got == pytest.approx((1 - (1 - alpha) * beta) / 2 * (x + y), rel=1e-13)


def takes_the_closed_form(run, qrels) -> bool:
    segments = prepare(run, qrels=qrels).segments
    return nerr10(segments, parse_measure("NERR10(ties=expected)")) is not None


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_nerr_closed_form_equals_the_mean_over_every_ordering(seed):
    # binary labels: full gains (several in one group, under and across the cut-offs), zeros
    # and unjudged documents; the closed form covers every list
    run, qrels = case(seed, subtopics=False)
    qrels = qrels.assign(label=(qrels["label"] >= 1).astype(float) - (qrels.index % 4 == 0))
    assert takes_the_closed_form(run, qrels)
    check(run, qrels, NERR)


def test_nerr_falls_back_to_the_enumeration_with_partial_gains_that_move():
    run, qrels = case(4, subtopics=False)  # labels 0-2: half gains in tie groups
    assert not takes_the_closed_form(run, qrels)
    check(run, qrels, NERR)


def test_nerr_on_a_long_group_against_every_placement():
    # a half gain above, then 30 tied documents holding 3 full gains: E over the C(30, 3)
    # placements, NERR10 by its definition
    from itertools import combinations

    docs = [f"t{i:02d}" for i in range(30)]
    qrels = pd.DataFrame({"query": "q", "doc": ["h", "z"] + docs[:3], "label": [1.0, 0.0, 2.0, 2.0, 2.0]})
    run = pd.DataFrame({"system": "s", "query": "q", "doc": ["z", "h"] + docs, "score": [3.0, 2.0] + [1.0] * 30})
    assert takes_the_closed_form(run, qrels)
    got = pdireval.evaluate(run, "NERR10(p=0.8,ties=expected)", qrels=qrels)["value"].iloc[0]

    def nerr10_of(gains, p=0.8, depth=1000):
        gains = list(gains) + [0.0] * (depth - len(gains))
        P, num, den = 1.0, 0.0, 0.0
        for g in gains:
            num += P * g
            den += P
            P *= p * (1.0 - g)
        return num / den

    values = []
    for slots in combinations(range(30), 3):
        tied = [1.0 if t in slots else 0.0 for t in range(30)]
        values.append(nerr10_of([0.0, 0.5] + tied))
    assert got == pytest.approx(np.mean(values), rel=1e-12)


def sparse_case(seed: int):
    """Three queries, two systems; three relevant documents (labels 1-3) per query, each at its
    own score level, with zero, negative and unjudged documents tied around them: every tie
    group holds at most one positive gain, several groups of a list can move."""
    gen = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in ("1", "2", "3"):
        docs = [f"d{i}" for i in range(10)]
        rel = list(gen.choice(docs, size=3, replace=False))
        qrels += [(q, d, float(gen.choice([1, 2, 3]))) for d in rel]
        qrels += [(q, d, float(gen.choice([0, -1]))) for d in docs[:4] if d not in rel]
        others = [d for d in docs if d not in rel]
        for s in ("a", "b"):
            picked = rel + list(gen.choice(others, size=5, replace=False))
            level = {d: float(i + 1) for i, d in enumerate(rel)}
            runs += [(s, q, d, level.get(d, float(gen.integers(1, 4)))) for d in picked]
    return pd.DataFrame(runs, columns=["system", "query", "doc", "score"]), pd.DataFrame(qrels, columns=["query", "doc", "label"])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_inst_and_bpm_over_every_placement_equal_the_mean_over_every_ordering(seed):
    run, qrels = sparse_case(seed)
    segments = prepare(run, qrels=qrels).segments
    assert inst(segments, parse_measure("INST(ties=expected)")) is not None
    assert bpm(segments, parse_measure("BPM(ties=expected)@3")) is not None
    moving = run.merge(qrels, on=["query", "doc"], how="left").assign(pos=lambda f: f["label"] > 0)
    groups = moving.groupby(["system", "query", "score"]).agg(n=("doc", "size"), pos=("pos", "sum"))
    per_list = groups[(groups["n"] > 1) & (groups["pos"] == 1)].groupby(["system", "query"]).size()
    assert per_list.max() >= 2  # several groups of one list move (mixed radix)
    check(run, qrels, PLACED)


def test_inst_and_bpm_fall_back_to_the_enumeration():
    run, qrels = case(0, subtopics=False)  # groups holding several positive gains
    segments = prepare(run, qrels=qrels).segments
    assert inst(segments, parse_measure("INST(ties=expected)")) is None
    check(run, qrels, PLACED)


def test_placements_past_the_limit_fall_back():
    run, qrels = sparse_case(1)
    segments = prepare(run, qrels=qrels).segments
    assert inst(segments, parse_measure("INST(ties=expected)"), placement_limit=2) is None
    names = ["INST", "BPM(T=1)@3"]
    assert_every_ordering(run, qrels, names, 1e-9, form_options={"placement_limit": 2})
