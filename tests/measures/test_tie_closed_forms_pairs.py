"""The closed forms of pdireval.measures.pairs.ties (Accuracy, Compat): equal to the mean
over every ordering of the tied documents (brute force), on lists with graded, negative and
missing labels and cut-offs inside and at the edge of tie groups."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

import pdireval
from pdireval.measures.registry import REGISTRY, parse_measure
from pdireval.measures.ties import method_kind as method_of
from tests.helpers import (
    assert_every_ordering,
    expected_name,
    tied_case,
    tied_runs,
)

#: cut-offs and parameter values the registry-driven test (test_ties.py) does not generate
MEASURES = [
    "Accuracy@2", "Accuracy@4", "Accuracy@8", "Accuracy(rel=2)", "Accuracy(rel=0.5)@6",
    "Compat(p=0.5)", "Compat(p=0.8,normalize=false)", "Compat(p=0.99)",
]


def check(run, qrels, measures=MEASURES, atol=1e-12):
    assert_every_ordering(run, qrels, measures, atol)


def case(seed: int, labels=(-1, 0, 1, 1, 2, 3)):
    return tied_case(seed, labels, max_judged=9)


def test_every_measure_here_is_a_closed_form():
    for text in MEASURES:
        assert method_of(parse_measure(expected_name(text))) == "closed", text
    assert REGISTRY["accuracy"].describe_ties() == REGISTRY["compat"].describe_ties() == "closed form"


@pytest.mark.parametrize("seed, labels", [(0, (-1, 0, 1, 1, 2, 3)), (1, (-1, 0, 1, 1, 2, 3)), (2, (0, 1, 2)),
                                          (3, (0, 1)), (4, (1, 1, 2)), (5, (-1, 0, 0, 1))])
def test_closed_forms_equal_the_mean_over_every_ordering(seed, labels):
    run, qrels = case(seed, labels)
    # the case must cut groups: a group straddling some cut-off 1..5 holding a relevant document
    ranked = run.sort_values(["system", "query", "score"], ascending=[True, True, False])
    sizes = ranked.groupby(["system", "query", "score"], sort=False).size()
    assert sizes.max() >= 3
    check(run, qrels)


def test_a_cut_off_inside_a_long_group_against_every_placement():
    # 1 relevant document above, then 12 tied documents holding 3 relevant ones, 2 judged
    # non-relevant (one negative) and 7 unjudged; k = 6 cuts the group after 5 of its slots
    labels = {"r0": 1.0, "t0": 1.0, "t1": 2.0, "t2": 1.0, "n0": 0.0, "n1": -1.0}
    qrels = pd.DataFrame({"query": "q", "doc": list(labels), "label": list(labels.values())})
    tied = ["t0", "t1", "t2", "n0", "n1"] + [f"u{i}" for i in range(7)]
    run = pd.DataFrame({"system": "s", "query": "q", "doc": ["r0"] + tied, "score": [2.0] + [1.0] * 12})
    for k in (3, 6, 9, 13):
        got = pdireval.evaluate(run, f"Accuracy(ties=expected)@{k}", qrels=qrels)["value"].iloc[0]
        total, count = 0.0, 0
        for slots in itertools.combinations(range(12), 3):  # the relevant documents' slots
            ranks = [0] + [1 + t for t in slots]  # 0-based ranks of the relevant documents
            inside = [p for p in ranks if p < k]
            non = min(k, 13) - len(inside)
            mis = sum(p - i for i, p in enumerate(inside))
            total += 1.0 if non == 0 else 1.0 - mis / (non * len(inside))
            count += 1
        assert got == pytest.approx(total / count, abs=1e-13), k


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs())
def test_closed_forms_on_generated_lists(data):
    run, qrels = data
    check(run, qrels)


def test_compat_on_a_long_group_of_alike_documents_against_every_placement():
    # R = 9 relevant documents: five of label 2 (a0, a1 above the group, t0-t2 in it), four
    # of label 1 (x above the group, t3, t4 in it, o unretrieved); the group of 14 also holds
    # judged non-relevant (0, -1) and unjudged documents. The ideal lists label 2 then label 1,
    # each in run order: a0, a1, then the group's label-2 documents; x, the group's, then o.
    labels = {"a0": 2.0, "a1": 2.0, "x": 1.0, "t0": 2.0, "t1": 2.0, "t2": 2.0, "t3": 1.0, "t4": 1.0,
              "n0": 0.0, "n1": -1.0, "o": 1.0}
    qrels = pd.DataFrame({"query": "q", "doc": list(labels), "label": list(labels.values())})
    tied = ["t0", "t1", "t2", "t3", "t4", "n0", "n1"] + [f"u{i}" for i in range(7)]
    run = pd.DataFrame({"system": "s", "query": "q", "doc": ["a0", "x", "a1"] + tied,
                        "score": [3.0, 2.5, 2.0] + [1.0] * 14})
    p, depth = 0.9, 17

    def F(x):  # Σ_{x<=i<D} p^i/(i + 1): document at depth max(r, q) + 1 on
        return sum(p**i / (i + 1) for i in range(x, depth))

    best = sum(p**i * min(i + 1, 9) / (i + 1) for i in range(depth))
    got = pdireval.evaluate(run, "Compat(p=0.9,ties=expected)", qrels=qrels)["value"].iloc[0]
    total, count = 0.0, 0
    for slots in itertools.combinations(range(14), 5):
        for grades in set(itertools.permutations([2, 2, 2, 1, 1])):
            score = F(0) + F(max(1, 5)) + F(max(2, 1))  # a0, x, a1
            seen = {2: 2, 1: 6}  # next ideal position of each label
            for t, g in zip(slots, grades):
                score += F(max(3 + t, seen[g]))
                seen[g] += 1
            total += score / best
            count += 1
    assert got == pytest.approx(total / count, abs=1e-13)
