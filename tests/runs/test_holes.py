"""Holes in the judgments: fill_holes, and evaluate(..., unjudged="bounds")."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import OptionError, SchemaError

MONOTONE = ["P@10", "DCG@20", "RR", "Success@5", "NumRelRet", "ERR@20", "RBP(p=0.8)"]
NORMALISED = ["AP", "nDCG@10", "R@50", "Rprec"]


@pytest.fixture(scope="module")
def shallow():
    """A collection pooled to depth 10 of runs of depth 40: many unjudged documents."""
    return pdireval.datasets.simulate(n_systems=3, n_queries=6, depth=40, pool_depth=10, rng=3)


# --------------------------------------------------------------------------- fill_holes


def test_fill_holes_prefers_one_side_and_keeps_the_source():
    human = pd.DataFrame({"query": ["1", "1", "1", "2"], "doc": ["a", "b", "c", "a"],
                          "label": [2.0, 0.0, np.nan, 1.0]})
    llm = pd.DataFrame({"query": ["1", "1", "1", "2"], "doc": ["a", "c", "d", "b"],
                        "label": [0.0, 1.0, 1.0, np.nan]})
    out = pdireval.fill_holes(human, llm)
    assert list(out.columns) == ["query", "doc", "label", "source"]
    got = {(q, d): (lab, s) for q, d, lab, s in out.itertuples(index=False)}
    # a plain loop over the union of pairs, the definition written out
    h = {(q, d): lab for q, d, lab in human.itertuples(index=False)}
    o = {(q, d): lab for q, d, lab in llm.itertuples(index=False)}
    for pair in set(h) | set(o):
        if pair in h and not np.isnan(h[pair]):
            want = (h[pair], "qrels")
        elif pair in o and not np.isnan(o[pair]):
            want = (o[pair], "other")
        else:
            want = (np.nan, "qrels" if pair in h else "other")
        lab, src = got[pair]
        assert src == want[1] and (lab == want[0] or (np.isnan(lab) and np.isnan(want[0])))
    assert len(out) == len(set(h) | set(o))
    other_first = pdireval.fill_holes(human, llm, prefer="other").set_index(["query", "doc"])
    assert other_first.loc[("1", "a"), "label"] == 0.0
    assert other_first.loc[("1", "a"), "source"] == "other"
    assert other_first.loc[("1", "b"), "source"] == "qrels"


def test_fill_holes_output_is_qrels_and_bad_input(shallow):
    run, qrels = shallow
    half = qrels.iloc[::2]
    filled = pdireval.fill_holes(half, qrels)
    pd.testing.assert_frame_equal(pdireval.evaluate(run, "AP", qrels=filled),
                                  pdireval.evaluate(run, "AP", qrels=qrels))
    assert (filled["source"] == "other").sum() == len(qrels) - len(half)
    with pytest.raises(OptionError, match="prefer"):
        pdireval.fill_holes(half, qrels, prefer="human")
    with pytest.raises(SchemaError, match="2 judges"):
        pdireval.fill_holes(pd.concat([half.assign(judge="a"), half.assign(judge="b")]), qrels)


# --------------------------------------------------------------------------- bounds


def test_bounds_hold_the_value_and_collapse_on_complete_judgments(shallow):
    run, qrels = shallow
    measures = MONOTONE + NORMALISED
    b = pdireval.evaluate(run, measures, qrels=qrels, unjudged="bounds")
    plain = pdireval.evaluate(run, measures, qrels=qrels)
    pd.testing.assert_frame_equal(b[list(plain.columns)], plain)
    assert (b["value_low"] <= b["value"] + 1e-12).all()
    assert (b["value"] <= b["value_high"] + 1e-12).all()
    assert (b["value_low"] < b["value_high"]).any()  # the pool is shallow: holes matter
    # complete judgments: every retrieved document judged (0 where the pool missed it)
    seen = run[["query", "doc"]].drop_duplicates()
    complete = pdireval.fill_holes(qrels, seen.assign(label=0.0))
    full = pdireval.evaluate(run, [m for m in measures if not m.startswith("RBP")],
                             qrels=complete, unjudged="bounds")
    np.testing.assert_array_equal(full["value_low"], full["value"])
    np.testing.assert_array_equal(full["value_high"], full["value"])


def test_rbp_bounds_are_rbp_and_rbp_plus_residual(shallow):
    run, qrels = shallow
    b = pdireval.evaluate(run, ["RBP(p=0.8)", "RBP(p=0.95)@20"], qrels=qrels, unjudged="bounds")
    ref = pdireval.evaluate(run, ["RBP(p=0.8)", "RBPResidual(p=0.8)", "RBP(p=0.95)@20",
                                  "RBPResidual(p=0.95)@20"], qrels=qrels)
    wide = ref.pivot_table(index=["system", "query"], columns="measure", values="value")
    for rbp, resid in (("RBP(p=0.8)", "RBPResidual(p=0.8)"), ("RBP(p=0.95)@20", "RBPResidual(p=0.95)@20")):  # names as given
        part = b[b["measure"] == rbp].set_index(["system", "query"])
        np.testing.assert_allclose(part["value_low"], wide.loc[part.index, rbp])
        np.testing.assert_allclose(part["value_high"],
                                   wide.loc[part.index, rbp] + wide.loc[part.index, resid])


def test_bounds_are_exact_for_monotone_measures_by_enumeration():
    """Every labelling of three unjudged documents of one ranking (labels 0..2), evaluated
    one by one: the minimum and maximum of P, DCG, RR and ERR are the bounds."""
    run = pd.DataFrame({"system": "s", "query": "1", "doc": [f"d{i}" for i in range(8)],
                        "score": np.arange(8, 0, -1.0)})
    qrels = pd.DataFrame({"query": "1", "doc": ["d0", "d2", "d5", "d6", "x"],
                          "label": [1.0, 0.0, 2.0, 0.0, 2.0]})
    holes = ["d1", "d3", "d4"]  # d7 too: give it a NaN (pooled, unjudged) row
    qrels = pd.concat([qrels, pd.DataFrame({"query": ["1"], "doc": ["d7"], "label": [np.nan]})])
    holes = holes + ["d7"]
    measures = ["P@5", "DCG@8", "RR", "ERR@8", "Success@3", "NumRelRet"]
    b = pdireval.evaluate(run, measures, qrels=qrels, unjudged="bounds").set_index("measure")
    judged = qrels[qrels["label"].notna()]
    values = []
    for labels in itertools.product([0.0, 1.0, 2.0], repeat=len(holes)):
        completed = pd.concat([judged, pd.DataFrame({"query": "1", "doc": holes, "label": labels})])
        values.append(pdireval.evaluate(run, measures, qrels=completed)["value"].to_numpy())
    values = np.array(values)
    np.testing.assert_allclose(b.loc[measures, "value_low"], values.min(axis=0))
    np.testing.assert_allclose(b.loc[measures, "value_high"], values.max(axis=0))


def test_normalised_measures_take_the_two_completions_of_each_system_alone(shallow):
    run, qrels = shallow
    b = pdireval.evaluate(run, NORMALISED, qrels=qrels, unjudged="bounds")
    top = qrels["label"].max()
    for system in ("sys01", "sys03"):
        mine = run[run["system"] == system]
        unjudged = mine.merge(qrels.dropna(), on=["query", "doc"], how="left", indicator=True)
        unjudged = unjudged[unjudged["_merge"] == "left_only"][["query", "doc"]]
        rest = qrels[qrels["label"].notna()]
        v0 = pdireval.evaluate(mine, NORMALISED, qrels=pd.concat([rest, unjudged.assign(label=0.0)]))
        v1 = pdireval.evaluate(mine, NORMALISED, qrels=pd.concat([rest, unjudged.assign(label=top)]))
        got = b[b["system"] == system].reset_index(drop=True)
        np.testing.assert_allclose(got["value_low"], np.minimum(v0["value"], v1["value"]))
        np.testing.assert_allclose(got["value_high"], np.maximum(v0["value"], v1["value"]))


def test_bounds_options(shallow):
    run, qrels = shallow
    with pytest.raises(OptionError, match="unjudged"):
        pdireval.evaluate(run, "AP", qrels=qrels, unjudged="zero")
    multi = pd.concat([qrels.assign(judge="a"), qrels.assign(judge="b")])
    with pytest.raises(OptionError, match="one judge"):
        pdireval.evaluate(run, "AP", qrels=multi, unjudged="bounds")


def test_aggregate_carries_the_bounds(shallow):
    run, qrels = shallow
    b = pdireval.evaluate(run, ["P@20", "AP"], qrels=qrels, unjudged="bounds")
    agg = pdireval.aggregate(b)
    assert list(agg.columns[:5]) == ["system", "measure", "mean", "mean_low", "mean_high"]
    ref = b.groupby(["system", "measure"], observed=True)[["value_low", "value_high"]].mean()
    got = agg.set_index(["system", "measure"])
    np.testing.assert_allclose(got.loc[ref.index, "mean_low"], ref["value_low"])
    np.testing.assert_allclose(got.loc[ref.index, "mean_high"], ref["value_high"])
    assert (agg["mean_low"] <= agg["mean"] + 1e-12).all()
    assert (agg["mean"] <= agg["mean_high"] + 1e-12).all()
    # the bounds are values, not grouping keys, for every meta function
    assert len(pdireval.reliability(b)) == 2


def test_the_all_relevant_completion_can_be_the_lower_bound_of_ap_ndcg_and_recall():
    """Issue 33: docs/several-judges.md called value_low the all-non-relevant completion; for
    measures normalised by the judged pool it is the smaller of the two completions, and a
    deep hole made relevant lowers AP, nDCG and R@k (R grows more than the gain)."""
    run = pd.DataFrame({"system": "s", "query": "1", "doc": [f"d{i}" for i in range(10)],
                        "score": np.arange(10, 0, -1.0)})
    judged = pd.DataFrame({"query": "1", "doc": ["d0", "x"] + [f"d{i}" for i in range(1, 9)],
                           "label": [1.0, 1.0] + [0.0] * 8})  # d9 (rank 10) is the hole
    measures = ["AP", "nDCG", "R@5", "P@10"]
    b = pdireval.evaluate(run, measures, qrels=judged, unjudged="bounds").set_index("measure")
    hole = pd.DataFrame({"query": ["1"], "doc": ["d9"]})
    v0 = pdireval.evaluate(run, measures, qrels=pd.concat([judged, hole.assign(label=0.0)]))
    v1 = pdireval.evaluate(run, measures, qrels=pd.concat([judged, hole.assign(label=1.0)]))
    v0, v1 = v0.set_index("measure")["value"], v1.set_index("measure")["value"]
    assert v0["AP"] == pytest.approx(1 / 2) and v1["AP"] == pytest.approx((1 + 2 / 10) / 3)
    for m in ("AP", "nDCG", "R@5"):
        assert v1[m] < v0[m]
        assert (b.loc[m, "value_low"], b.loc[m, "value_high"]) == (v1[m], v0[m])
    assert (b.loc["P@10", "value_low"], b.loc["P@10", "value_high"]) == (v0["P@10"], v1["P@10"])
    page = Path(__file__).parents[2] / "docs" / "several-judges.md"
    page = " ".join(page.read_text(encoding="utf-8").split())
    assert "`value_low` is the smaller of the two values" in page
    assert "can score *lower*" in page


def test_measures_that_count_the_holes_are_named_where_value_leaves_the_bounds():
    """Judged@k and Unjudged@k count the unjudged documents: once the holes are judged they
    are 1 and 0, so the observed value lies outside the bounds, as evaluate's docstring says."""
    run = pd.DataFrame({"system": "s", "query": "1", "doc": [f"d{i}" for i in range(6)],
                        "score": np.arange(6, 0, -1.0)})
    qrels = pd.DataFrame({"query": "1", "doc": ["d0", "d2", "d4"], "label": [1.0, 0.0, 1.0]})
    b = pdireval.evaluate(run, ["Judged@5", "Unjudged@5"], qrels=qrels, unjudged="bounds")
    b = b.set_index("measure")
    assert b.loc["Judged@5", "value"] == 0.6 and b.loc["Judged@5", "value_low"] == 1.0
    assert b.loc["Unjudged@5", "value"] == pytest.approx(0.4)
    assert b.loc["Unjudged@5", "value_high"] == 0.0
    assert "``Judged@k``, ``Unjudged@k``" in pdireval.evaluate.__doc__
