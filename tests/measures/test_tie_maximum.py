"""IPrec@x and 11pt_avg with ties="expected" (pdireval.measures.ties.maximum): equal to the
mean over every ordering of every tie group, on lists built to take each of the closed
form's paths (one relevant document alone, a floor set by another group, several groups
left, a group straddling the recall level, sampled placements)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.measures.registry import parse_measure
from pdireval.measures.ties import maximum as tie_maximum
from tests.helpers import tie_brute_force

LEVELS = ["IPrec@0", "IPrec@0.1", "IPrec@0.25", "IPrec@0.4", "IPrec@0.5", "IPrec@0.6", "IPrec@0.8", "IPrec@1", "11pt_avg", "11pt_avg(rel=2)", "IPrec(negatives=nonrel)@0.3"]


def expected_name(text: str) -> str:
    return str(parse_measure(text).replace(ties="expected"))


def tied_lists(seed: int, n_queries: int = 8):
    """Two systems; per query 6-10 retrieved documents in tie groups of 1-3 (scores
    descending), graded, negative and missing labels, relevant documents left unretrieved
    (R larger than what is retrieved); one query holds a single relevant document."""
    gen = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(14)]
        if q == 0:  # one relevant document in the whole query
            labels = np.zeros(14)
            labels[gen.integers(0, 14)] = 1.0
        else:
            labels = gen.choice([-1.0, 0.0, 0.0, 1.0, 1.0, 2.0, np.nan], size=14)
        qrels += [(str(q), d, lab) for d, lab in zip(docs, labels) if not np.isnan(lab)]
        for s in ("a", "b"):
            sizes = []
            while sum(sizes) < gen.integers(6, 11):
                sizes.append(int(gen.integers(1, 4)))
            picked = gen.choice(docs, size=sum(sizes), replace=False)
            scores = np.repeat(np.arange(len(sizes), 0, -1, dtype=float), sizes)
            runs += [(s, str(q), d, sc) for d, sc in zip(picked, scores)]
    return (pd.DataFrame(runs, columns=["system", "query", "doc", "score"]),
            pd.DataFrame(qrels, columns=["query", "doc", "label"]))


def check(run, qrels, measures):
    reference = tie_brute_force(run, qrels, measures)
    ours = pdireval.evaluate(run, [expected_name(m) for m in measures], qrels=qrels, missing="drop")
    for text in measures:
        got = ours[ours["measure"] == expected_name(text)].set_index(["system", "query"])["value"].sort_index()
        want = reference.xs(str(parse_measure(text)), level="measure").sort_index()
        np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12, err_msg=text)


def spy(monkeypatch, name):
    calls = []
    original = getattr(tie_maximum, name)

    def wrapped(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(tie_maximum, name, wrapped)
    return calls


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_interpolated_precision_equals_the_mean_over_every_ordering(seed, monkeypatch):
    several = spy(monkeypatch, "_expected_max")  # lists keeping two groups or more
    floored = spy(monkeypatch, "_slots_above")  # one group left under another group's floor
    run, qrels = tied_lists(seed)
    check(run, qrels, LEVELS)
    assert several and floored  # the lists took the paths the test is about


def test_larger_groups_and_a_group_straddling_the_recall_level():
    # groups of 4-5 documents holding 2-3 relevant ones, R = 6: w = 2, 3, 4 falls inside them
    docs = [f"d{i}" for i in range(12)]
    qrels = pd.DataFrame({"query": "q", "doc": docs[:9], "label": [1.0, 0, 1, 1, 0, 1, 1, 0, 1]})
    run = pd.DataFrame({"system": ["s"] * 9 + ["t"] * 9, "query": "q",
                        "doc": ["d0", "d1", "d2", "d3", "d9", "d4", "d5", "d6", "d10"] + ["d11", "d0", "d2", "d3", "d1", "d5", "d6", "d4", "d8"],
                        "score": [3.0, 3, 3, 3, 2, 2, 2, 2, 2] + [4.0, 3, 3, 3, 3, 1, 1, 1, 1]})
    check(run, qrels, LEVELS[:9])


def test_sparse_judgments_take_the_one_document_form():
    # every list holds one relevant document, alone or in a tie group: no placement listed
    run = pd.DataFrame({"system": "s", "query": ["1"] * 5 + ["2"] * 4 + ["3"] * 3,
                        "doc": ["a", "b", "c", "d", "e", "a", "b", "c", "d", "a", "b", "c"],
                        "score": [2.0, 1, 1, 1, 1, 5, 5, 5, 4, 3, 2, 1]})
    qrels = pd.DataFrame({"query": ["1", "2", "3", "3"], "doc": ["c", "b", "b", "z"], "label": 1.0})
    check(run, qrels, ["IPrec@0", "IPrec@0.5", "IPrec@1", "11pt_avg"])


def test_sparse_lists_with_two_relevant_groups_take_their_closed_form(monkeypatch):
    # lists whose relevant documents sit one per group in two groups (tied or not, adjacent or
    # apart, 2/rank_2 above or below 1/rank_1), R = 2 or 3 (one unretrieved): w = 1, 2, 3
    sparse = spy(monkeypatch, "_sparse_lists")
    several = spy(monkeypatch, "_expected_max")
    shapes = {  # per query: (group sizes, the relevant document's slot in each group, ...)
        "1": ([3, 2], {0: 2, 1: 0}), "2": ([1, 4], {0: 0, 1: 3}), "3": ([2, 1, 3], {0: 1, 2: 0}),
        "4": ([4, 4], {0: 1, 1: 2}), "5": ([1, 1], {0: 0, 1: 0}), "6": ([2, 3, 4], {1: 0, 2: 3}),
        "7": ([3], {0: 1}), "8": ([1, 2, 1, 3], {1: 1, 3: 2}),
    }
    runs, qrels = [], []
    for q, (sizes, relevant) in shapes.items():
        docs = [f"{q}-{i}" for i in range(sum(sizes))]
        scores = np.repeat(np.arange(len(sizes), 0, -1, dtype=float), sizes)
        starts = np.cumsum(sizes) - sizes
        rel_docs = [docs[starts[g] + slot] for g, slot in relevant.items()]
        others = [d for d in docs if d not in rel_docs]
        qrels += [(q, d, 1.0) for d in rel_docs] + [(q, d, 0.0) for d in others[-1:]]  # and unjudged ones
        if q in ("2", "6"):
            qrels.append((q, "unretrieved", 1.0))
        runs += [("s", q, d, sc) for d, sc in zip(docs, scores)]
    run = pd.DataFrame(runs, columns=["system", "query", "doc", "score"])
    qrels = pd.DataFrame(qrels, columns=["query", "doc", "label"])
    check(run, qrels, LEVELS)
    assert sparse and not several  # every list took the sparse form


def test_suffix_maxima_at_points_equal_the_running_maximum():
    from pdireval.measures.view import within_segment_suffix_max

    gen = np.random.default_rng(3)
    for _ in range(40):
        lengths = gen.integers(1, 25, size=gen.integers(1, 40))
        first = np.cumsum(lengths) - lengths
        values = gen.integers(1, 20, size=lengths.sum()) / gen.integers(1, 40, size=lengths.sum())
        points = np.unique(gen.integers(0, lengths.sum(), size=gen.integers(1, 3 * len(lengths) + 1)))
        want = within_segment_suffix_max(np.repeat(np.arange(len(lengths)), lengths), values)[points]
        got = tie_maximum._suffix_max_at(values, np.repeat(first + lengths, lengths), points)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("R", [np.array([1.0, 2.0, 7.0, 2.0, 0.0, 10.0]), np.array([3.0, 50_000.0])])
def test_recall_cuts_by_table_or_per_list_equal_trec_eval_rounding(R):
    # few values of R: one table row per value; a huge R: one row per list
    x = np.array([0.0, 0.1, 0.25, 0.3, 0.7, 1.0])
    table, row = tie_maximum._wanted(x, R)
    direct = np.maximum(np.floor(x[None, :] * R[:, None] + 0.9), 1.0)
    np.testing.assert_array_equal(table[row], direct)
