"""Hand-computed values for every registered measure and its edge cases.

Every expected value is worked out in the test from the definition (arithmetic visible),
never copied from pdireval's output. Conventions: rank i is 1-based, log2 discount
w_i = 1/log2(i + 1); by default a run lists documents best first (scores n, n-1, ..., 1).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import MeasureError

EPS = 1e-5  # trec_eval's infAP epsilon


def lg(i: int) -> float:
    """log2 discount weight of rank i."""
    return 1.0 / math.log2(i + 1)


def make_run(docs, *, scores=None, query="q", system="s", ranks=None) -> pd.DataFrame:
    scores = list(range(len(docs), 0, -1)) if scores is None else scores
    frame = pd.DataFrame({"system": system, "query": query, "doc": list(docs), "score": [float(x) for x in scores]})
    if ranks is not None:
        frame["rank"] = ranks
    return frame


def make_qrels(labels: dict, query="q") -> pd.DataFrame:
    return pd.DataFrame({"query": query, "doc": list(labels), "label": [float(v) for v in labels.values()]})


def value(measure: str, docs, labels: dict, **kwargs) -> float:
    """The single per-query value of ``measure`` for one ranking of one query."""
    run_kwargs = {k: kwargs.pop(k) for k in ("scores", "ranks") if k in kwargs}
    scores = pdireval.evaluate(make_run(docs, **run_kwargs), [measure], qrels=make_qrels(labels), **kwargs)
    assert len(scores) == 1
    return float(scores["value"].iloc[0])


def values(measures, docs, labels: dict, **kwargs) -> dict:
    scores = pdireval.evaluate(make_run(docs), list(measures), qrels=make_qrels(labels), **kwargs)
    return dict(zip(scores["measure"], scores["value"]))


# --------------------------------------------------------------------------- a binary example
# qrels: r1, r2, r3 relevant (R = 3), n1, n2 judged non-relevant (N = 2); u1 is not in the
# qrels (unjudged); r3 is never retrieved. Ranking: n1 r1 u1 r2 n2 (relevant at ranks 2, 4).
B_LABELS = {"r1": 1, "r2": 1, "r3": 1, "n1": 0, "n2": 0}
B_DOCS = ["n1", "r1", "u1", "r2", "n2"]


@pytest.mark.parametrize(
    "measure, expected",
    [
        ("P@1", 0 / 1),
        ("P@2", 1 / 2),
        ("P@5", 2 / 5),
        ("P@10", 2 / 10),  # beyond depth: trec_eval divides by k, not by the list length
        ("R@2", 1 / 3),
        ("R@10", 2 / 3),
        ("R", 2 / 3),
        ("AP", (1 / 2 + 2 / 4) / 3),
        ("AP@2", (1 / 2) / 3),
        ("AP@3", (1 / 2) / 3),
        ("AP@1000", (1 / 2 + 2 / 4) / 3),
        ("SP@2", 1 / 2),
        ("SP@5", 1 / 2 + 2 / 4),
        ("SP", 1 / 2 + 2 / 4),
        ("RR", 1 / 2),
        ("RR@1", 0.0),
        ("RR@2", 1 / 2),
        ("Rprec", 1 / 3),  # top R = 3: n1 r1 u1
        ("Success@1", 0.0),
        ("Success@2", 1.0),
        ("Success@100", 1.0),
        ("NumRet", 5.0),
        ("NumRet@3", 3.0),
        ("NumRet@50", 5.0),
        ("NumRel", 3.0),
        ("NumRelRet", 2.0),
        ("NumRelRet@2", 1.0),
        ("Judged@2", 2 / 2),
        ("Judged@3", 2 / 3),
        ("Judged@5", 4 / 5),
        ("Judged@10", 4 / 5),  # divides by min(k, L)
        ("Judged", 4 / 5),
        # bpref: min(N, R) = 2; r1 and r2 each have n1 above them: 1 - 1/2
        ("Bpref", ((1 - 1 / 2) + (1 - 1 / 2)) / 3),
        # infAP: r1 at j=1 has n1 above (r=0, nn=1, pooled 1); r2 at j=3 has n1, r1 in the
        # pool above it (u1 is outside the pool): r=1, nn=1, pooled 2
        ("infAP", ((1 / 2 + (1 / 2) * (1 / 1) * (EPS / (1 + 2 * EPS))) + (1 / 4 + (3 / 4) * (2 / 3) * ((1 + EPS) / (2 + 2 * EPS)))) / 3),
        ("RBP(p=0.5)", (1 - 0.5) * (0.5**1 + 0.5**3)),
        ("RBP", (1 - 0.8) * (0.8**1 + 0.8**3)),
        ("RBP@3", (1 - 0.8) * 0.8**1),
        # residual: weight of the unjudged rank 3 plus everything past rank 5
        ("RBPResidual(p=0.5)", (1 - 0.5) * 0.5**2 + 0.5**5),
        ("RBPResidual(p=0.5)@2", 0.5**2),  # only ranks 1-2 are inside: the rest is residual
        # ERR with g_max = 1 (largest label): R = (2^1 - 1)/2^1 = 1/2 for a relevant document
        ("ERR(max_grade=qrels)", (1 / 2) * (1 / 2) + (1 / 4) * (1 / 2) * (1 - 1 / 2)),
        ("ERR(max_grade=qrels)@1", 0.0),
        ("ERR(max_grade=qrels)@3", (1 / 2) * (1 / 2)),
        ("GAP", (1 / 2 + 2 / 4) / 3),  # a single relevant grade: GAP = AP
        ("DCG", lg(2) + lg(4)),
        ("DCG@3", lg(2)),
        ("nDCG", (lg(2) + lg(4)) / (lg(1) + lg(2) + lg(3))),
        ("nDCG@2", lg(2) / (lg(1) + lg(2))),
    ],
)
def test_binary_example(measure, expected):
    assert value(measure, B_DOCS, B_LABELS) == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------------- edge cases

ALL = [
    "AP", "AP@3", "P@3", "R@3", "RR", "Rprec", "SP@3", "Success@3", "nDCG", "nDCG@3", "DCG@3",
    "Bpref", "infAP", "ERR@3", "RBP", "GAP", "NumRelRet", "NumRet", "NumRel", "Judged@3",
    "RBPResidual",
]


def test_no_relevant_document():
    # qrels n1, n2 both 0: R = 0 and IDCG = 0 -> every normalised measure is 0 (trec_eval)
    got = values(ALL, ["n1", "x", "n2"], {"n1": 0, "n2": 0})
    expected = dict.fromkeys(ALL, 0.0)
    expected["NumRet"] = 3.0
    expected["Judged@3"] = 2 / 3
    expected["RBPResidual"] = 1 - (1 - 0.8) * (0.8**0 + 0.8**2)  # judged ranks 1 and 3
    assert got == pytest.approx(expected, abs=1e-12)


def test_query_whose_labels_are_all_negative():
    # trec_eval reads a negative label as pooled but unjudged: nothing is judged, R = 0
    got = values(ALL, ["a", "b"], {"a": -1, "b": -2})
    expected = dict.fromkeys(ALL, 0.0)
    expected["NumRet"] = 2.0
    expected["RBPResidual"] = 1.0  # no judged rank at all
    assert got == pytest.approx(expected, abs=1e-12)


def test_unanswered_query_gets_the_empty_value():
    # system s answers q1 only; q2 (R = 2) is judged but unanswered
    run = make_run(["a"], query="q1")
    qrels = pd.concat([make_qrels({"a": 1}, "q1"), make_qrels({"b": 1, "c": 2}, "q2")])
    scores = pdireval.evaluate(run, ALL, qrels=qrels)
    q2 = scores[scores["query"] == "q2"].set_index("measure")["value"].to_dict()
    expected = dict.fromkeys(ALL, 0.0)
    expected["NumRel"] = 2.0  # R: trec_eval -c
    expected["RBPResidual"] = 1.0  # nothing judged was retrieved: all weight is residual
    assert q2 == expected
    dropped = pdireval.evaluate(run, ALL, qrels=qrels, missing="drop")
    assert set(dropped["query"]) == {"q1"}
    assert len(dropped) == len(ALL)


def test_unanswered_query_order_and_count():
    run = pd.concat([make_run(["a"], query="q1", system="s1"), make_run(["b"], query="q2", system="s2")])
    qrels = pd.concat([make_qrels({"a": 1}, "q1"), make_qrels({"b": 1}, "q2")])
    scores = pdireval.evaluate(run, "AP", qrels=qrels)
    assert scores[["system", "query"]].astype(str).values.tolist() == [["s1", "q1"], ["s1", "q2"], ["s2", "q1"], ["s2", "q2"]]
    assert scores["value"].tolist() == [1.0, 0.0, 0.0, 1.0]


def test_all_relevant():
    labels = {"a": 1, "b": 1, "c": 1}
    got = values(["AP", "P@3", "P@5", "R@3", "Rprec", "RR", "nDCG", "Bpref", "infAP", "ERR(max_grade=qrels)", "GAP", "Success@1", "RBP(p=0.5)", "RBPResidual(p=0.5)", "SP@3"], ["a", "b", "c"], labels)
    r_stop = 1 / 2  # ERR: g_max = 1
    expected = {
        "AP": 1.0,
        "P@3": 1.0,
        "P@5": 3 / 5,
        "R@3": 1.0,
        "Rprec": 1.0,
        "RR": 1.0,
        "nDCG": 1.0,
        "Bpref": 1.0,  # N = 0: no non-relevant document above any relevant one
        # infAP: b at j=1 (r=1 above), c at j=2 (r=2 above); nn = 0
        "infAP": (1 + (1 / 2 + (1 / 2) * (1 / 1) * ((1 + EPS) / (1 + 2 * EPS))) + (1 / 3 + (2 / 3) * (2 / 2) * ((2 + EPS) / (2 + 2 * EPS)))) / 3,
        "ERR(max_grade=qrels)": r_stop + (1 / 2) * r_stop * (1 - r_stop) + (1 / 3) * r_stop * (1 - r_stop) ** 2,
        "GAP": 1.0,
        "Success@1": 1.0,
        "RBP(p=0.5)": (1 - 0.5) * (1 + 0.5 + 0.25),
        "RBPResidual(p=0.5)": 0.5**3,  # only the ranks past the list
        "SP@3": 1 / 1 + 2 / 2 + 3 / 3,
    }
    assert got == pytest.approx(expected, abs=1e-12)


def test_cutoff_beyond_depth():
    # list of 2 (relevant, unjudged); R = 2 (c never retrieved)
    docs, labels = ["a", "u"], {"a": 2, "c": 1}
    assert value("P@10", docs, labels) == pytest.approx(1 / 10)
    assert value("AP@10", docs, labels) == pytest.approx(1 / 2)
    assert value("R@10", docs, labels) == pytest.approx(1 / 2)
    assert value("NumRet@10", docs, labels) == 2.0
    assert value("Judged@10", docs, labels) == pytest.approx(1 / 2)
    # nDCG@10: the ideal list has both judged documents (gains 2, 1), the run only one
    assert value("nDCG@10", docs, labels) == pytest.approx(2 * lg(1) / (2 * lg(1) + 1 * lg(2)))
    assert value("SP@10", docs, labels) == pytest.approx(1.0)
    assert value("RBP(p=0.5)@10", docs, labels) == pytest.approx(0.5)


# --------------------------------------------------------------------------- ties and order


def test_score_ties_are_broken_by_doc_id_descending():
    # all four tied: trec_eval orders d, c, b, a -> the relevant b is at rank 3
    docs, labels = ["a", "b", "c", "d"], {"b": 1, "a": 0}
    assert value("RR", docs, labels, scores=[1, 1, 1, 1]) == pytest.approx(1 / 3)
    # string order, not numeric: "d9" > "d10" > "d1", so d9 d10 d1
    assert value("RR", ["d1", "d10", "d9"], {"d10": 1}, scores=[5, 5, 5]) == pytest.approx(1 / 2)
    # a tie only at float32 precision (trec_eval stores scores as C floats)
    assert value("RR", ["a", "b"], {"a": 1}, scores=[1.0 + 1e-9, 1.0]) == pytest.approx(1 / 2)
    # a difference float32 keeps is not a tie
    assert value("RR", ["a", "b"], {"a": 1}, scores=[1.0 + 1e-6, 1.0]) == pytest.approx(1.0)


def test_scores_order_the_list_not_the_row_order():
    # rows given worst first; scores say c(3) a(2) b(1)
    assert value("RR", ["b", "a", "c"], {"a": 1}, scores=[1, 2, 3]) == pytest.approx(1 / 2)


def test_order_rank():
    docs, labels = ["a", "b", "c"], {"c": 1}
    # ranks 3 2 1 put c first although its score is the lowest
    assert value("RR", docs, labels, scores=[3, 2, 1], ranks=[3, 2, 1], order="rank") == 1.0
    assert value("RR", docs, labels, scores=[3, 2, 1], ranks=[3, 2, 1]) == pytest.approx(1 / 3)
    # tied ranks: doc id ascending -> a, b, c
    assert value("RR", docs, labels, scores=[1, 2, 3], ranks=[1, 1, 1], order="rank") == pytest.approx(1 / 3)


# --------------------------------------------------------------------------- negative labels
# Worked example: qrels {a:2, b:0, c:1, d:-1, e:0}, run [c, d, a, b], linear gain, log2.
N_LABELS = {"a": 2, "b": 0, "c": 1, "d": -1, "e": 0}
N_DOCS = ["c", "d", "a", "b"]


def test_methods_spec_worked_example_ndcg_org_and_ndcg_0():
    # k = 3, labels kept: DCG = 1*w1 + (-1)*w2 + 2*w3; ideal gains 2, 1, 0 (-1 is last)
    dcg3 = 1 * lg(1) + (-1) * lg(2) + 2 * lg(3)
    idcg3 = 2 * lg(1) + 1 * lg(2) + 0 * lg(3)
    assert dcg3 == pytest.approx(1.3690702464, abs=1e-10)
    assert idcg3 == pytest.approx(2.6309297536, abs=1e-10)
    assert value("DCG(negatives=keep)@3", N_DOCS, N_LABELS) == pytest.approx(dcg3, abs=1e-12)
    assert value("nDCG(negatives=keep)@3", N_DOCS, N_LABELS) == pytest.approx(0.5203750669, abs=1e-10)
    # NDCG_0: negative labels become 0 before the gain -> DCG = 1 + 0 + 2*w3 = 2
    assert value("nDCG(negatives=nonrel)@3", N_DOCS, N_LABELS) == pytest.approx(0.7601875334, abs=1e-10)
    assert value("nDCG(negatives=nonrel)@3", N_DOCS, N_LABELS) == pytest.approx((1 + 2 * lg(3)) / idcg3, abs=1e-12)
    # k = 5: the ideal list holds all five judged documents: 2, 1, 0, 0, -1
    idcg5 = 2 * lg(1) + 1 * lg(2) + 0 + 0 + (-1) * lg(5)
    assert idcg5 == pytest.approx(2.2440769463, abs=1e-9)
    assert value("nDCG(negatives=keep)@5", N_DOCS, N_LABELS) == pytest.approx(0.6100816858, abs=1e-10)
    assert value("nDCG(negatives=keep)@5", N_DOCS, N_LABELS) == pytest.approx(dcg3 / idcg5, abs=1e-12)


def test_negative_labels_default_reading_is_trec_evals():
    # default negatives=unjudged: d is pooled but unjudged -> gain 0, not in the ideal list
    assert value("nDCG@3", N_DOCS, N_LABELS) == pytest.approx((1 + 2 * lg(3)) / (2 + lg(2)), abs=1e-12)
    # nDCG@5 ideal: judged pool a b c e only -> 2, 1, 0, 0
    assert value("nDCG@5", N_DOCS, N_LABELS) == pytest.approx((1 + 2 * lg(3)) / (2 + lg(2)), abs=1e-12)
    assert value("nDCG(negatives=keep)@5", N_DOCS, N_LABELS) != pytest.approx(value("nDCG@5", N_DOCS, N_LABELS))


@pytest.mark.parametrize(
    "negatives, expected",
    [
        # unjudged: d skipped; N = 2 (b, e); c and a have no non-relevant above: 1 + 1
        ("unjudged", (1 + 1) / 2),
        # nonrel / keep: d is judged non-relevant above a; N = 3, min(N, R) = 2
        ("nonrel", (1 + (1 - 1 / 2)) / 2),
        ("keep", (1 + (1 - 1 / 2)) / 2),
    ],
)
def test_bpref_under_each_negatives_reading(negatives, expected):
    assert value(f"Bpref(negatives={negatives})", N_DOCS, N_LABELS) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "negatives, a_term",
    [
        # a at j=2; above: c (relevant) and d. unjudged: d pooled-unjudged (r=1, nn=0, pooled 2)
        ("unjudged", 1 / 3 + (2 / 3) * (2 / 2) * ((1 + EPS) / (1 + 0 + 2 * EPS))),
        # judged non-relevant: r=1, nn=1
        ("nonrel", 1 / 3 + (2 / 3) * (2 / 2) * ((1 + EPS) / (1 + 1 + 2 * EPS))),
        ("keep", 1 / 3 + (2 / 3) * (2 / 2) * ((1 + EPS) / (1 + 1 + 2 * EPS))),
    ],
)
def test_infap_under_each_negatives_reading(negatives, a_term):
    assert value(f"infAP(negatives={negatives})", N_DOCS, N_LABELS) == pytest.approx((1 + a_term) / 2, abs=1e-12)


@pytest.mark.parametrize("negatives, judged", [("unjudged", 3 / 4), ("nonrel", 4 / 4), ("keep", 4 / 4)])
def test_judged_and_residual_under_each_negatives_reading(negatives, judged):
    assert value(f"Judged(negatives={negatives})@4", N_DOCS, N_LABELS) == pytest.approx(judged)
    p = 0.5
    unjudged_weight = (1 - p) * p**1 if negatives == "unjudged" else 0.0  # d at rank 2
    assert value(f"RBPResidual(p=0.5,negatives={negatives})", N_DOCS, N_LABELS) == pytest.approx(unjudged_weight + p**4)


@pytest.mark.parametrize("negatives", ["unjudged", "nonrel", "keep"])
def test_binary_measures_never_count_a_negative_label_as_relevant(negatives):
    # relevant: c (rank 1), a (rank 3); R = 2 under every reading
    got = values([f"AP(negatives={negatives})", f"P(negatives={negatives})@2", f"NumRel(negatives={negatives})", f"RR(negatives={negatives})"], N_DOCS, N_LABELS)
    assert list(got.values()) == pytest.approx([(1 / 1 + 2 / 3) / 2, 1 / 2, 2.0, 1.0])


def test_dcg_and_err_with_negative_labels_kept():
    # exp gain with a kept -1: 2^-1 - 1 = -0.5
    assert value("DCG(gain=exp,negatives=keep)@3", N_DOCS, N_LABELS) == pytest.approx(1 * lg(1) - 0.5 * lg(2) + 3 * lg(3))
    # ERR: a negative label stops nobody (R = 0) under any reading; g_max = 2
    r_c, r_a = (2**1 - 1) / 2**2, (2**2 - 1) / 2**2
    for negatives in ("unjudged", "nonrel", "keep"):
        assert value(f"ERR(max_grade=qrels,negatives={negatives})", N_DOCS, N_LABELS) == pytest.approx(r_c + (1 / 3) * r_a * (1 - r_c))


# --------------------------------------------------------------------------- condensed lists


def test_judged_only_condenses_the_list():
    # run c d u a b (u not in the qrels); unjudged reading: d and u removed -> c a b
    docs = ["c", "d", "u", "a", "b"]
    assert value("AP(judged_only=true)", docs, N_LABELS) == pytest.approx((1 / 1 + 2 / 2) / 2)
    assert value("AP", docs, N_LABELS) == pytest.approx((1 / 1 + 2 / 4) / 2)
    assert value("P(judged_only=true)@2", docs, N_LABELS) == pytest.approx(2 / 2)
    # normaliser unchanged: IDCG@3 of the judged pool (2, 1, 0)
    assert value("nDCG(judged_only=true)@3", docs, N_LABELS) == pytest.approx((1 * lg(1) + 2 * lg(2)) / (2 + lg(2)))
    assert value("NumRet(judged_only=true)", docs, N_LABELS) == 3.0
    # nonrel reading: d is judged and stays -> c d a b
    assert value("AP(judged_only=true,negatives=nonrel)", docs, N_LABELS) == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert value("RR(judged_only=true)", ["u", "v", "c"], N_LABELS) == 1.0


# --------------------------------------------------------------------------- gains and discounts
# graded example without negatives: qrels {a:2, b:0, c:1, d:0, e:0}, run [c, b, a, d, e]
#: gains by rank, linear 1 0 2 0 0; ideal 2 1 0 0 0.
G_LABELS = {"a": 2, "b": 0, "c": 1, "d": 0, "e": 0}
G_DOCS = ["c", "b", "a", "d", "e"]


@pytest.mark.parametrize(
    "measure, dcg, idcg",
    [
        ("nDCG@3", 1 * lg(1) + 2 * lg(3), 2 * lg(1) + 1 * lg(2)),
        # exp gain 2^l - 1: 1, 0, 3 / ideal 3, 1 (worked example: DCG 2.5, IDCG 3.6309297536)
        ("nDCG(gain=exp)@3", 1 * lg(1) + 3 * lg(3), 3 * lg(1) + 1 * lg(2)),
        # a mapping; labels it does not list gain 0
        ("nDCG(gain={1:1,2:5})@3", 1 * lg(1) + 5 * lg(3), 5 * lg(1) + 1 * lg(2)),
        ("nDCG(gain={2:4})@3", 4 * lg(3), 4 * lg(1)),
        ("nDCG(discount=zipf)@3", 1 / 1 + 2 / 3, 2 / 1 + 1 / 2),
        # linear: (k + 1 - i)/k with k = 3 -> 3/3, 2/3, 1/3
        ("nDCG(discount=linear)@3", 1 * 3 / 3 + 2 * 1 / 3, 2 * 3 / 3 + 1 * 2 / 3),
        # jk: 1/max(1, log2 i) -> 1, 1, 1/log2 3
        ("nDCG(discount=jk)@3", 1 * 1 + 2 / math.log2(3), 2 * 1 + 1 * 1),
        ("nDCG(discount=jk)", 1 * 1 + 2 / math.log2(3), 2 * 1 + 1 * 1),
        # vector: ranks past its end weigh 0
        ("nDCG(discount=[1,0.5])", 1 * 1 + 0, 2 * 1 + 1 * 0.5),
        ("nDCG(discount=[1,0.5,0.25,0.125])@10", 1 * 1 + 2 * 0.25, 2 * 1 + 1 * 0.5),
        ("nDCG(gain=exp,discount=zipf)", 1 / 1 + 3 / 3, 3 / 1 + 1 / 2),
    ],
)
def test_gains_and_discounts(measure, dcg, idcg):
    assert value(measure, G_DOCS, G_LABELS) == pytest.approx(dcg / idcg, abs=1e-12)
    assert value(measure.replace("nDCG", "DCG"), G_DOCS, G_LABELS) == pytest.approx(dcg, abs=1e-12)


def test_methods_spec_exp_gain_numbers():
    assert value("DCG(gain=exp)@3", G_DOCS, G_LABELS) == pytest.approx(2.5, abs=1e-12)
    assert value("nDCG(gain=exp)@3", G_DOCS, G_LABELS) == pytest.approx(2.5 / 3.6309297536, abs=1e-10)
    # Karmaker & Feng (2022): SP@3 = Prec(1) + Prec(3) = 1 + 2/3 = 1.6666666667
    assert value("SP@3", G_DOCS, G_LABELS) == pytest.approx(1.6666666667, abs=1e-10)


def test_linear_discount_needs_a_cutoff():
    with pytest.raises(MeasureError, match="needs a cut-off"):
        value("nDCG(discount=linear)", G_DOCS, G_LABELS)


# --------------------------------------------------------------------------- ERR, RBP


def test_err_graded():
    # g_max = 2 (largest label): R(c) = (2^1 - 1)/4 = 1/4, R(b) = 0, R(a) = (2^2 - 1)/4 = 3/4
    r_c, r_a = 1 / 4, 3 / 4
    assert value("ERR(max_grade=qrels)", G_DOCS, G_LABELS) == pytest.approx(1 * r_c + (1 / 3) * r_a * (1 - r_c))
    assert value("ERR(max_grade=qrels)@2", G_DOCS, G_LABELS) == pytest.approx(r_c)
    # g_max = 4 (the default: gdeval's and ir_measures' fixed scale)
    r_c, r_a = 1 / 16, 3 / 16
    assert value("ERR", G_DOCS, G_LABELS) == pytest.approx(r_c + (1 / 3) * r_a * (1 - r_c))
    assert value("ERR(max_grade=4)", G_DOCS, G_LABELS) == pytest.approx(r_c + (1 / 3) * r_a * (1 - r_c))
    # a label above max_grade stops the user for sure (R = 1): nothing below it counts
    assert value("ERR(max_grade=1)", ["a", "c"], G_LABELS) == pytest.approx(1.0)
    assert value("ERR(max_grade=1)", ["c", "a", "x"], G_LABELS) == pytest.approx(1 / 2 + (1 / 2) * 1 * (1 - 1 / 2))


def test_err_is_not_poisoned_by_a_certain_stop_in_another_query():
    run = pd.concat([make_run(["a", "b"], query="1"), make_run(["b", "a"], query="2")])
    qrels = pd.concat([make_qrels({"a": 3, "b": 1}, "1"), make_qrels({"a": 3, "b": 1}, "2")])
    scores = pdireval.evaluate(run, "ERR(max_grade=2)", qrels=qrels)
    r_b = (2**1 - 1) / 2**2  # a: 2^3 - 1 > 2^2 -> R = 1
    assert scores["value"].tolist() == pytest.approx([1.0, r_b + (1 / 2) * 1.0 * (1 - r_b)])


def test_rbp_rel_threshold():
    # rel=2: only a (rank 3) is relevant
    assert value("RBP(p=0.5,rel=2)", G_DOCS, G_LABELS) == pytest.approx((1 - 0.5) * 0.5**2)


# --------------------------------------------------------------------------- GAP


def test_gap_equals_ap_with_one_relevant_grade():
    assert value("GAP", B_DOCS, B_LABELS) == pytest.approx(value("AP", B_DOCS, B_LABELS))


def test_gap_graded_by_hand():
    # GAP (Robertson, Kanoulas & Yilmaz 2010) on run [c, b, a] with grades c = 1, a = 2; default g = (1/2, 1/2),
    # G(1) = 1/2, G(2) = 1.
    # n = 1 (c): (1/1)·G(min(1,1)) = 1/2
    # n = 3 (a): (1/3)·[G(min(1,2)) + G(min(2,2))] = (1/3)(1/2 + 1) = 1/2
    # denominator: G(2) for a + G(1) for c = 3/2
    assert value("GAP", ["c", "b", "a"], G_LABELS) == pytest.approx((1 / 2 + 1 / 2) / (3 / 2))
    # g = (1/4, 3/4): G(1) = 1/4, G(2) = 1
    # n=1: 1/4; n=3: (1/3)(1/4 + 1) = 5/12; denominator 1 + 1/4
    assert value("GAP(probs=[0.25,0.75])", ["c", "b", "a"], G_LABELS) == pytest.approx((1 / 4 + 5 / 12) / (5 / 4))
    # all weight on one grade -> AP at that relevance threshold
    assert value("GAP(probs=[1,0])", ["c", "b", "a"], G_LABELS) == pytest.approx(value("AP", ["c", "b", "a"], G_LABELS))
    assert value("GAP(probs=[0,1])", ["c", "b", "a"], G_LABELS) == pytest.approx(value("AP(rel=2)", ["c", "b", "a"], G_LABELS))
    assert value("AP(rel=2)", ["c", "b", "a"], G_LABELS) == pytest.approx(1 / 3)
    # GAP@2: only c is inside
    assert value("GAP@2", ["c", "b", "a"], G_LABELS) == pytest.approx((1 / 2) / (3 / 2))


# --------------------------------------------------------------------------- many segments at once


def test_segments_do_not_leak_into_each_other():
    # two systems x two queries evaluated together: each value is its own hand value
    run = pd.concat(
        [
            make_run(["r1", "n1"], query="1", system="A"),  # AP 1
            make_run(["n1", "r1"], query="1", system="B"),  # AP 1/2
            make_run(["x", "y", "r2"], query="2", system="A"),  # AP 1/3
            make_run(["r2"], query="2", system="B"),  # AP 1
        ]
    )
    qrels = pd.concat([make_qrels({"r1": 1, "n1": 0}, "1"), make_qrels({"r2": 1}, "2")])
    scores = pdireval.evaluate(run, ["AP", "RR", "nDCG"], qrels=qrels)
    ap = scores[scores["measure"] == "AP"]["value"].tolist()
    assert ap == pytest.approx([1.0, 1 / 3, 1 / 2, 1.0])
    ndcg = scores[scores["measure"] == "nDCG"]["value"].tolist()
    assert ndcg == pytest.approx([1.0, lg(3), lg(2), 1.0])
    assert np.all(scores["value"].to_numpy() <= 1.0)
