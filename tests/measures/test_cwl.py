"""The C/W/L family (INSQ, INST, BPM, SDCG, NERR8-11) against cwl_eval through ir_measures,
per query, on generated collections with graded and negative labels, unjudged documents,
unanswered queries and lists longer than cwl_eval's 1000 ranks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import MeasureError
from pdireval.measures import parse_measure
from tests.helpers import assert_same_values, graded_collection, ir_measures_values

pytest.importorskip("ir_measures")
pytest.importorskip("cwl")

# ours -> ir_measures' spelling (ir_measures wants floats for T/p and ints for min/max_rel)
MEASURES = {
    "INSQ(max_rel=3)": "INSQ(max_rel=3)",
    "INSQ(T=2.5,max_rel=3)": "INSQ(T=2.5,max_rel=3)",
    "INST(max_rel=3)": "INST(max_rel=3)",
    "INST(T=0.7,max_rel=3)": "INST(T=0.7,max_rel=3)",
    "INST(T=3,max_rel=2,min_rel=1)": "INST(T=3.0,max_rel=2,min_rel=1)",
    "BPM(max_rel=3)@10": "BPM(max_rel=3)@10",
    "BPM(T=2,max_rel=3)@100": "BPM(T=2.0,max_rel=3)@100",
    "BPM(max_rel=3)@2000": "BPM(T=1.0,max_rel=3)@2000",
    "SDCG(max_rel=3)@10": "SDCG(max_rel=3)@10",
    "SDCG(max_rel=2,min_rel=1)@1500": "SDCG(max_rel=2,min_rel=1)@1500",
    "NERR8(max_rel=3)@10": "NERR8(max_rel=3)@10",
    "NERR9(max_rel=3)@20": "NERR9(max_rel=3)@20",
    "NERR10(max_rel=3)": "NERR10(max_rel=3)",
    "NERR10(max_rel=2,p=0.5)": "NERR10(p=0.5,max_rel=2)",
    "NERR11(max_rel=3)": "NERR11(max_rel=3)",
    "NERR11(T=2,max_rel=3)": "NERR11(T=2.0,max_rel=3)",
}


@pytest.mark.parametrize("seed", [0, 1])
def test_cwl_family_matches_cwl_eval_per_query(seed):
    run, qrels = graded_collection(seed, long_lists=seed == 1)
    ours = pdireval.evaluate(run, list(MEASURES), qrels=qrels)
    assert_same_values(ours, ir_measures_values(run, qrels, MEASURES))


def test_bpm_stops_exactly_where_the_running_gain_reaches_T():
    # gains 1/3 each (max_rel=3, label 1): 1/3 + 1/3 + 1/3 == 1.0 when summed left to right,
    # not after a global cumulative sum minus an offset; the first segment offsets the sums
    docs = [f"d{i}" for i in range(8)]
    qrels = pd.DataFrame({"query": ["1"] * 8 + ["2"] * 8, "doc": docs * 2, "label": [3, 2, 1, 3, 2, 1, 1, 3] + [1] * 8})
    run = pd.DataFrame({"system": "s", "query": ["1"] * 8 + ["2"] * 8, "doc": docs * 2, "score": list(range(8, 0, -1)) * 2})
    ours = pdireval.evaluate(run, ["BPM(max_rel=3)@8"], qrels=qrels)
    # query 2: the user stops at rank 3 (gain 1/3 + 1/3 + 1/3 = 1 = T): BPM = 1 / 3
    assert ours["value"].iloc[1] == pytest.approx(1 / 3, abs=1e-15)
    assert_same_values(ours, ir_measures_values(run, qrels, {"BPM(max_rel=3)@8": "BPM(T=1.0,max_rel=3)@8"}))


def test_insq_closed_form_by_hand():
    # one relevant document (gain 1) at rank 2: W_i ∝ (2T/(i+2T-1))^2 over 1000 ranks
    run = pd.DataFrame({"system": "s", "query": "1", "doc": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query": "1", "doc": ["b"], "label": [1]})
    value = pdireval.evaluate(run, "INSQ(max_rel=1)", qrels=qrels)["value"].iloc[0]
    i = np.arange(1, 1001)
    w = (2.0 / (i + 1.0)) ** 2
    assert value == pytest.approx(w[1] / w.sum(), rel=1e-12)


def test_max_rel_defaults_to_the_largest_label():
    run, qrels = graded_collection(3, n_queries=5)
    a = pdireval.evaluate(run, ["INST", "NERR8@5"], qrels=qrels)["value"].to_numpy()
    b = pdireval.evaluate(run, ["INST(max_rel=3)", "NERR8(max_rel=3)@5"], qrels=qrels)["value"].to_numpy()
    np.testing.assert_array_equal(a, b)


def test_parameter_names_keep_ir_measures_spelling():
    assert str(parse_measure("inst(t=2, MAX_REL=3)")) == "INST(T=2,max_rel=3)"


def test_min_rel_not_below_max_rel_is_a_measure_error():
    run, qrels = graded_collection(4, n_queries=3)
    with pytest.raises(MeasureError, match="min_rel=3 must be below max_rel=3"):
        pdireval.evaluate(run, "INST(min_rel=3,max_rel=3)", qrels=qrels)


def test_goal_must_be_positive():
    with pytest.raises(MeasureError, match="positive"):
        parse_measure("INST(T=0)")


def test_default_max_rel_without_a_positive_label_gives_zero():
    qrels = pd.DataFrame({"query": "1", "doc": ["a", "b"], "label": [0, -1]})
    run = pd.DataFrame({"system": "s", "query": "1", "doc": ["a", "b"], "score": [2.0, 1.0]})
    values = pdireval.evaluate(run, ["INST", "BPM@5", "NERR10", "SDCG@5"], qrels=qrels)["value"]
    assert (values == 0).all()


def _direct_cwl(run, qrels, continuation, *, min_rel=0.0, max_rel=None):
    """EU = Σ P_i g_i / Σ P_i over N = 1000 ranks, P_1 = 1, P_{i+1} = P_i·C_i, stepping
    rank by rank as cwl_eval does: the reference the closed forms are checked against."""
    labels = {(q, d): lab for q, d, lab in qrels[["query", "doc", "label"]].itertuples(index=False)}
    top = max_rel if max_rel is not None else max(qrels["label"].max(), min_rel + 1)
    out = {}
    for (s, q), rows in run.groupby(["system", "query"], sort=False):
        docs = rows.sort_values("score", ascending=False)["doc"].tolist()[:1000]
        lab = np.array([labels.get((q, d), np.nan) for d in docs] + [np.nan] * (1000 - len(docs)))
        lab = np.where(np.isnan(lab), min_rel, np.maximum(lab, 0.0))
        g = (np.clip(lab, min_rel, top) - min_rel) / (top - min_rel)
        p, num, den, total_gain = 1.0, 0.0, 0.0, 0.0
        for i in range(1, 1001):
            num += p * g[i - 1]
            den += p
            total_gain += g[i - 1]
            p *= continuation(i, g[i - 1], total_gain)
        out[(s, q)] = num / den
    return out


def _inst_continuation(T):
    def c(i, g, G):
        a = i + 2.0 * T - G
        return ((a - 1.0) / a) ** 2

    return c


@pytest.mark.parametrize(
    "measure, T, min_rel, max_rel, scale",
    [
        ("INST(max_rel=3)", 1.0, 0.0, 3.0, 1.0),  # ψ₁ from 3 tables (gains on a grid of 1/3)
        ("INST(T=0.5,max_rel=2)", 0.5, 0.0, 2.0, 1.0),  # 2T − 1 = 0: a factor can vanish
        ("INST(T=0.25,min_rel=-1,max_rel=3)", 0.25, -1.0, 3.0, 1.0),  # 4 tables, labels -1 count
        ("INST(T=2,max_rel=20)", 2.0, 0.0, 20.0, 1.0),  # too many grid steps: ψ₁ per argument
        ("INST(T=1.5,max_rel=1.5)", 1.5, 0.0, 1.5, 0.5),  # fractional labels: ψ₁ per argument
    ],
)
def test_inst_closed_form_matches_rank_by_rank_continuation(measure, T, min_rel, max_rel, scale):
    run, qrels = graded_collection(5, n_queries=8, long_lists=True)
    qrels = qrels.assign(label=qrels["label"] * scale)
    ours = pdireval.evaluate(run, measure, qrels=qrels, missing="drop")
    direct = _direct_cwl(run, qrels, _inst_continuation(T), min_rel=min_rel, max_rel=max_rel)
    got = {(s, q): v for s, q, v in ours[["system", "query", "value"]].itertuples(index=False)}
    assert got.keys() == direct.keys()
    for key, value in direct.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key


def test_nerr_stops_after_a_full_gain_and_multiplies_partial_ones():
    # gains 1/3, 2/3, 1, then 1/3: Q = 1, 2/3, 2/9, 0 (nothing after the full gain counts)
    docs = ["a", "b", "c", "d", "e"]
    qrels = pd.DataFrame({"query": "1", "doc": docs[:4], "label": [1, 2, 3, 1]})
    run = pd.DataFrame({"system": "s", "query": "1", "doc": docs, "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    value = pdireval.evaluate(run, "NERR10(max_rel=3,p=0.5)", qrels=qrels)["value"].iloc[0]
    P = np.array([1.0, 0.5 * 2 / 3, 0.25 * 2 / 9])  # P_i = p^(i-1)·Q_i, 0 from rank 4 on
    g = np.array([1 / 3, 2 / 3, 1.0])
    assert value == pytest.approx((P * g).sum() / P.sum(), rel=1e-13)


def test_inst_of_a_list_does_not_depend_on_the_other_lists():
    # query 1's labels become 0.5, 1, 1.5 (non-integer gain units with max_rel=3): its lists
    # evaluate ψ₁ per argument, every other list reads the tables, bit for bit as alone
    run, qrels = graded_collection(6, n_queries=6)
    qrels = qrels.assign(label=qrels["label"].astype(float).where(qrels["query"] != "1", qrels["label"] * 0.5))
    mixed = pdireval.evaluate(run, "INST(max_rel=3)", qrels=qrels, missing="drop")
    alone = pdireval.evaluate(run[run["query"] != "1"], "INST(max_rel=3)", qrels=qrels[qrels["query"] != "1"], missing="drop")
    others = mixed[mixed["query"] != "1"].reset_index(drop=True)
    np.testing.assert_array_equal(others["value"].to_numpy(), alone["value"].to_numpy())
    direct = _direct_cwl(run, qrels, _inst_continuation(1.0), max_rel=3.0)
    for s, q, value in mixed[["system", "query", "value"]].itertuples(index=False):
        assert value == pytest.approx(direct[(s, q)], rel=1e-12, abs=1e-15), (s, q)
