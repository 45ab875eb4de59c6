"""The closed forms of Q, nDCG(gains=...), ndcg_p, Rndcg, relative_P, F, Rprec_mult, ERR,
nERR, GAP, ndcg_rel and infAP: declared as closed forms; parameter combinations beyond the
registry-driven test (tests/measures/test_ties.py) equal to the mean over every ordering of
the tied documents (brute force), on lists with graded, negative and missing labels and
cut-offs inside groups; long groups against every placement; the fallbacks."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

import pdireval
from pdireval.evaluation import prepare
from pdireval.measures.registry import parse_measure
from pdireval.measures.standard import ties as standard_ties
from pdireval.measures.ties import method_kind as method_of
from tests.helpers import (
    assert_every_ordering,
    expected_name,
    tied_case,
    tied_runs,
)

#: parameter settings and combinations the registry-driven test (test_ties.py) does not
#: generate; it checks every measure's defaults, each parameter alone and several cut-offs
MEASURES = [
    "Q(beta=0.5)", "Q(gain=exp)@5", "Q(rel=2)", "Q(judged_only=true)", "Q(negatives=keep,rel=0)",
    "Q(beta=0)@4", "Q(beta=0.7,gain={1:0.5,2:1.25,3:2.5})", "nDCG(gains={1:1,2:3,3:4})",
    "nDCG(gains={1:2,2:5},judged_only=true)@2", "ndcg_p(gains={0:1,1:-1,2:4})",
    "relative_P(judged_only=true)@2", "F(beta=2)@1", "F(judged_only=true)@2",
    "ERR(max_grade=qrels)", "ERR(negatives=keep)", "nERR@2", "nERR(max_grade=2)@5",
    "GAP(probs=[0.2,0.3,0.5])", "GAP(judged_only=true)", "GAP(negatives=keep)@4",
    "ndcg_rel(negatives=keep,gains={-1:0,0:0})",
]
#: the measures of this family's closed forms
FAMILY = ["Q", "nDCG(gains={1:1})", "ndcg_p", "Rndcg", "relative_P@3", "F@3", "Rprec_mult@0.5",
          "ERR", "nERR", "GAP", "ndcg_rel", "infAP"]


def check(run, qrels, measures=MEASURES, atol=1e-10):
    assert_every_ordering(run, qrels, measures, atol)


def case(seed: int, labels=(-1, 0, 1, 1, 2, 3)):
    return tied_case(seed, labels, max_judged=8)


def test_every_measure_here_is_a_closed_form():
    for text in MEASURES + FAMILY:
        assert method_of(parse_measure(expected_name(text))) == "closed", text
    assert method_of(parse_measure("F(ties=expected)")) == "invariant"  # order-free without a cut-off


@pytest.mark.parametrize("seed, labels", [(0, (-1, 0, 1, 1, 2, 3)), (1, (-1, 0, 1, 1, 2, 3)), (2, (0, 1, 2)), (3, (0, 1)), (4, (0, 0, 1))])
def test_closed_forms_equal_the_mean_over_every_ordering(seed, labels):
    # binary labels: one ideal gain value, read off one table shared by every query
    run, qrels = case(seed, labels)
    sizes = run.groupby(["system", "query", "score"]).size()
    assert sizes.max() >= 4  # tie groups that cut-offs 1-5 fall inside
    check(run, qrels)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs())
def test_closed_forms_on_generated_lists(data):
    run, qrels = data
    check(run, qrels)


def plain_q(labels, rel_pos_gain, ideal, beta):
    """Q of one list (gains of its relevant documents at their 0-based positions), by hand."""
    total, count, cg = 0.0, 0, 0.0
    ideal_cum = np.cumsum(ideal)
    for p in sorted(rel_pos_gain):
        count += 1
        cg += rel_pos_gain[p]
        star = ideal_cum[min(p + 1, len(ideal)) - 1]
        total += (beta * cg + count) / (beta * star + p + 1.0)
    return total / labels


def test_q_on_a_long_tie_group_against_every_placement():
    # 2 relevant documents above, then 30 tied documents holding 3 relevant ones (gains
    # 1, 2, 3) far past the ideal list's end: harmonic numbers (β·G* = 10, an integer) and
    # the digamma function (β·G* = 23.5) over a long group
    labels = {"r1": 3.0, "r2": 1.0, "t0": 1.0, "t1": 2.0, "t2": 3.0, "j": 0.0}
    qrels = pd.DataFrame({"query": "q", "doc": list(labels), "label": list(labels.values())})
    tied = ["t0", "t1", "t2", "j"] + [f"u{i:02d}" for i in range(26)]
    run = pd.DataFrame({"system": "s", "query": "q", "doc": ["r1", "r2", "x"] + tied,
                        "score": [9.0, 8.0, 7.0] + [1.0] * 30})
    ideal = sorted([v for v in labels.values() if v >= 1], reverse=True)
    for beta, text in [(1.0, "Q(ties=expected)"), (2.35, "Q(beta=2.35,ties=expected)")]:
        got = pdireval.evaluate(run, text, qrels=qrels)["value"].iloc[0]
        total, n = 0.0, 0
        for slots in itertools.combinations(range(30), 3):
            for gains in itertools.permutations([1.0, 2.0, 3.0]):
                placed = {0: 3.0, 1: 1.0} | {3 + t: g for t, g in zip(slots, gains)}
                total += plain_q(len(ideal), placed, ideal, beta)
                n += 1
        assert got == pytest.approx(total / n, abs=1e-13)


def test_rndcg_by_segment_and_level_pairs():
    # past a few R-levels per query Rndcg looks each (segment, level) depth up instead
    run, qrels = case(5)
    names = ["Rndcg", "Rndcg(gains={1:2,2:5})", "Rndcg(judged_only=true)", "Rndcg(negatives=keep)"]
    assert_every_ordering(run, qrels, names, 1e-10, form_options={"max_level_passes": 0})


def test_err_falls_back_to_enumeration_past_many_stoppers():
    run, qrels = case(6)
    segments = prepare(run, qrels=qrels).segments
    m = parse_measure("ERR(ties=expected)")
    assert method_of(m) == "closed" and standard_ties.err(segments, m, max_stoppers=1) is None
    assert_every_ordering(run, qrels, ["ERR", "nERR@3"], 1e-10, form_options={"max_stoppers": 1})


def test_err_on_a_long_tie_group_against_every_placement():
    # a relevant document above, then 12 tied documents holding stoppers of labels 1, 2, 4
    # (4 = max_grade: R = 15/16) and a judged non-relevant one, cut at 10
    labels = {"top": 2.0, "a": 1.0, "b": 2.0, "c": 4.0, "z": 0.0}
    qrels = pd.DataFrame({"query": "q", "doc": list(labels), "label": list(labels.values())})
    tied = ["a", "b", "c", "z"] + [f"u{i:02d}" for i in range(8)]
    run = pd.DataFrame({"system": "s", "query": "q", "doc": ["top"] + tied, "score": [2.0] + [1.0] * 12})
    got = pdireval.evaluate(run, "ERR(ties=expected)@10", qrels=qrels)["value"].iloc[0]
    stop = {g: (2.0**g - 1.0) / 16.0 for g in (1.0, 2.0, 4.0)}
    total, count = 0.0, 0
    for slots in itertools.permutations(range(12), 3):  # the slots of a, b, c
        at = {1 + t: stop[g] for t, g in zip(slots, (1.0, 2.0, 4.0))}
        value, go = stop[2.0], 1.0 - stop[2.0]
        for pos in range(1, 10):
            if pos in at:
                value += go * at[pos] / (pos + 1.0)
                go *= 1.0 - at[pos]
        total += value
        count += 1
    assert got == pytest.approx(total / count, abs=1e-13)


def test_infap_on_a_long_tie_group_against_every_placement():
    # a relevant document above, then 12 tied documents: 2 relevant, 1 judged non-relevant, 1
    # pooled but unjudged (label -1), 8 outside the qrels
    labels = {"top": 1.0, "a": 1.0, "b": 2.0, "z": 0.0, "p": -1.0}
    qrels = pd.DataFrame({"query": "q", "doc": list(labels), "label": list(labels.values())})
    tied = ["a", "b", "z", "p"] + [f"u{i:02d}" for i in range(8)]
    run = pd.DataFrame({"system": "s", "query": "q", "doc": ["top"] + tied, "score": [2.0] + [1.0] * 12})
    got = pdireval.evaluate(run, "infAP(ties=expected)", qrels=qrels)["value"].iloc[0]
    eps = 1e-5
    total, count = 0.0, 0
    for slots in itertools.permutations(range(12), 4):  # the slots of a, b, z, p
        kind = {1 + t: k for t, k in zip(slots, "rrnp")}
        value, r, nn, pooled = 1.0, 1, 0, 1  # "top" at position 0
        for j in range(1, 13):
            k = kind.get(j)
            if k == "r":
                value += (1.0 + pooled * (r + eps) / (r + nn + 2 * eps)) / (j + 1.0)
            r, nn, pooled = r + (k == "r"), nn + (k == "n"), pooled + (k is not None)
        total += value / 3.0  # R = 3
        count += 1
    assert got == pytest.approx(total / count, abs=1e-13)


def test_infap_falls_back_to_enumeration_past_many_terms():
    run, qrels = case(7)
    segments = prepare(run, qrels=qrels).segments
    assert standard_ties.inferred_ap(segments, parse_measure("infAP"), max_terms=1) is None
    names = ["infAP", "infAP(negatives=nonrel)"]
    assert_every_ordering(run, qrels, names, 1e-10, form_options={"max_terms": 1})
