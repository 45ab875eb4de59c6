"""Measure names as users type them: trec_eval's -m and output forms and sets, ir_measures'
objects and parameter names, ranx's names; trec_eval's summary rules in aggregate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import MeasureError
from pdireval.measures import parse_measure, parse_measures
from pdireval.measures.trec_eval.names import MEASURE_SETS, expand, families


@pytest.mark.parametrize(
    ("spelled", "canonical"),
    [
        ("P.10", "P@10"), ("P_10", "P@10"), ("ndcg_cut.10", "nDCG@10"), ("ndcg_cut_10", "nDCG@10"),
        ("map_cut.100", "AP@100"), ("recall.1000", "R@1000"), ("success.1", "Success@1"),
        ("success_1", "Success@1"), ("map", "AP"), ("recip_rank", "RR"), ("num_rel_ret", "NumRelRet"),
        ("iprec_at_recall.0.10", "IPrec@0.1"), ("iprec_at_recall_0.10", "IPrec@0.1"),
        # ir_measures' parameter names
        ("nDCG(cutoff=10)", "nDCG@10"), ("nDCG(dcg=exp-log2)@10", "nDCG(gain=exp)@10"),
        ("nDCG(dcg='log2')@10", "nDCG@10"), ("nDCG(gains={0:0,1:1,2:3})@5", "nDCG(gains={0:0,1:1,2:3})@5"),
        ("NumRet(rel=1)", "NumRelRet"), ("AP(judged_only=True)", "AP(judged_only=true)"),
        # ranx's names
        ("hits@10", "NumRelRet@10"), ("hit_rate@10", "Success@10"), ("f1@10", "F@10"),
        ("r-precision", "Rprec"), ("ndcg_burges@10", "nDCG(gain=exp)@10"), ("dcg_burges@10", "DCG(gain=exp)@10"),
        ("precision@10-l2", "P(rel=2)@10"), ("map@100-l2", "AP(rel=2)@100"), ("mrr", "RR"),
    ],
)
def test_spellings(spelled, canonical):
    assert str(parse_measure(spelled)) == canonical


def test_lists_families_and_sets():
    assert [str(m) for m in parse_measures("P.5,10,20")] == ["P@5", "P@10", "P@20"]
    assert [str(m) for m in parse_measures("P")] == [f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    official = [str(m) for m in parse_measures("official")]
    assert official[:5] == ["NumQ", "NumRet", "NumRel", "NumRelRet", "AP"]
    assert "gm_map" in official and "IPrec@0.5" in official and official[-1] == "P@1000"
    every = [str(m) for m in parse_measures("all_trec")]
    assert set(official) < set(every) and "nDCG@1000" in every and "infAP" in every
    with pytest.raises(MeasureError, match="names 3 measures"):
        parse_measure("P.5,10,20")


def test_sets_use_every_registered_trec_eval_name():
    """A family of trec_eval's set that the registry has is in the set: nothing is listed by hand."""
    fams = families()
    for name, listed in MEASURE_SETS.items():
        got = {t.family for t in expand(name)}
        assert got == {f for f in listed if f in fams and f != "runid"}, name


def test_ir_measures_objects_are_measures():
    import ir_measures

    objects = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 10, ir_measures.NumRet(rel=1),
               ir_measures.nDCG(dcg="exp-log2") @ 5, ir_measures.Judged @ 10, ir_measures.ERR @ 20]
    assert [str(parse_measure(o)) for o in objects] == [
        "AP", "nDCG@10", "P(rel=2)@10", "NumRelRet", "nDCG(gain=exp)@5", "Judged@10", "ERR@20",
    ]
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=3, depth=10, rng=1)
    by_object = pdireval.evaluate(run, objects[:3], qrels=qrels)
    by_text = pdireval.evaluate(run, ["AP", "nDCG@10", "P(rel=2)@10"], qrels=qrels)
    pd.testing.assert_frame_equal(by_object, by_text)


def test_trec_eval_rbp_is_trec_eval_s_not_silently_changed():
    # trec_eval 10.0's graded rbp is its own measure; pdireval's RBP stays Moffat & Zobel's
    assert str(parse_measure("rbp")) == "TrecRBP"
    assert str(parse_measure("rbp_resid")) == "TrecRBPResidual"
    assert str(parse_measure("RBP(p=0.9)")) == "RBP(p=0.9)"
    with pytest.raises(MeasureError, match="relstring.*not a number"):
        parse_measure("relstring")


def test_ranx_level_suffix_needs_rel():
    with pytest.raises(MeasureError, match="-l2 .* sets rel="):
        parse_measure("ndcg@10-l2")


def test_f_measure_by_hand():
    qrels = pd.DataFrame({"query": "1", "doc": ["a", "b", "c"], "label": [1, 1, 0]})
    run = pd.DataFrame({"system": "s", "query": "1", "doc": ["a", "c", "x"], "score": [3.0, 2.0, 1.0]})
    got = pdireval.evaluate(run, ["F@2", "F", "F(beta=2)@2"], qrels=qrels)["value"].tolist()
    p, r = 1 / 2, 1 / 2  # top 2: a (relevant), c
    p_all = 1 / 3  # 3 retrieved
    assert got == pytest.approx([2 * p * r / (p + r), 2 * p_all * r / (p_all + r), 5 * p * r / (4 * p + r)])


def test_aggregate_summary_column_follows_trec_eval():
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=6, depth=20, rng=2)
    scores = pdireval.evaluate(run, ["AP", "NumRet", "NumRel", "NumRelRet", "gm_map"], qrels=qrels)
    summary = pdireval.aggregate(scores).set_index(["system", "measure"])
    per = scores.groupby(["system", "measure"])["value"]
    for (system, measure), row in summary.iterrows():
        values = per.get_group((system, measure)).to_numpy()
        assert row["mean"] == pytest.approx(values.mean())
        if measure.startswith("Num"):
            assert row["summary"] == values.sum()
        elif measure == "gm_map":
            assert row["summary"] == pytest.approx(np.exp(values.mean()))
        else:
            assert row["summary"] == row["mean"]
    other = pd.DataFrame({"system": "s", "query": ["1", "2"], "measure": "mine", "value": [1.0, 3.0]})
    assert pdireval.aggregate(other)["summary"].item() == 2.0  # unknown measures: the mean


def test_score_precision_float64_orders_near_ties_by_score():
    qrels = pd.DataFrame({"query": "1", "doc": ["a"], "label": [1]})
    run = pd.DataFrame({"system": "s", "query": "1", "doc": ["a", "b"], "score": [1.00000001, 1.0]})
    assert pdireval.evaluate(run, "RR", qrels=qrels)["value"].item() == 0.5  # float tie: b before a
    assert pdireval.evaluate(run, "RR", qrels=qrels, score_precision="float64")["value"].item() == 1.0
    with pytest.raises(pdireval.OptionError, match="score_precision="):
        pdireval.evaluate(run, "RR", qrels=qrels, score_precision="double")


def test_measure_names_come_back_as_given():
    """Issue 28: ``map`` came back as ``AP`` and ir_measures' ``nDCG(dcg='exp-log2')@10`` as
    ``nDCG(gain=exp)@10``, so filtering the result by the name one passed gave an empty
    frame. The ``measure`` column keeps the spelling given; parse_measure gives the canonical
    one; canonical names (and Measure objects) still come back canonical."""
    ir_measures = pytest.importorskip("ir_measures")
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=3, depth=20, rng=1)
    exp10 = ir_measures.nDCG(dcg="exp-log2") @ 10
    given = ["map", exp10, "AP", "P.5,10", pdireval.parse_measure("ndcg_cut_10")]
    scores = pdireval.evaluate(run, given, qrels=qrels)
    names = ["map", "nDCG(dcg='exp-log2')@10", "AP", "P@5", "P@10", "nDCG@10"]
    assert list(pd.unique(scores["measure"])) == names
    for name in ("map", str(exp10)):
        assert len(scores[scores["measure"] == name]) == 6  # 2 systems x 3 queries
    by_name = scores.set_index(["system", "query", "measure"])["value"].unstack()
    assert (by_name["map"] == by_name["AP"]).all()
    canonical = pdireval.evaluate(run, ["AP", "nDCG(gain=exp)@10"], qrels=qrels)
    assert list(pd.unique(canonical["measure"])) == ["AP", "nDCG(gain=exp)@10"]
    np.testing.assert_array_equal(by_name[str(exp10)].to_numpy(),
                                  canonical.set_index(["system", "query", "measure"])["value"]
                                  .unstack()["nDCG(gain=exp)@10"].to_numpy())
    assert [str(pdireval.parse_measure(n)) for n in names[:3]] == ["AP", "nDCG(gain=exp)@10", "AP"]
    # bounds keep the name too; aggregate reads the registry's summary rule from any spelling
    assert list(pd.unique(pdireval.bounds(run, ["ndcg_cut_10"], qrels=qrels)["measure"])) == ["ndcg_cut_10"]
    counts = pdireval.aggregate(pdireval.evaluate(run, ["num_rel_ret"], qrels=qrels))
    assert (counts["summary"] == counts["mean"] * counts["n_queries"]).all()


def test_measure_names_come_back_as_given_with_several_judges_seeds_and_variants():
    """Issue 28: names as given held for one judge only; several judges (each or their mean),
    seeds and evaluate_variants came back with canonical names ("map" as "AP")."""
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=3, depth=20, rng=1)
    given = ["map", "AP", "P.5,10"]
    names = ["map", "AP", "P@5", "P@10"]
    second = qrels.assign(label=qrels["label"].clip(lower=0) % 2)
    judged = pd.concat([qrels.assign(judge="a"), second.assign(judge="b")], ignore_index=True)
    for judges in ("each", "mean"):
        scores = pdireval.evaluate(run, given, qrels=judged, judges=judges)
        assert list(pd.unique(scores["measure"])) == names
        wide = scores.set_index([c for c in scores.columns if c not in ("measure", "value")]
                                + ["measure"])["value"].unstack()
        assert (wide["map"] == wide["AP"]).all() and len(wide) > 0
    each = pdireval.evaluate(run, given, qrels=judged, judges="each")
    one = pdireval.evaluate(run, given, qrels=qrels)
    np.testing.assert_array_equal(each.loc[each["judge"] == "a", "value"].to_numpy(),
                                  one["value"].to_numpy())
    seeded = pd.concat([run.assign(seed=s) for s in ("1", "2")], ignore_index=True)
    assert list(pd.unique(pdireval.evaluate(seeded, given, qrels=qrels)["measure"])) == names
    variants = pdireval.evaluate_variants(run, given, judged.rename(columns={"judge": "variant"}))
    assert list(pd.unique(variants["measure"])) == names


def test_measure_names_come_back_as_given_on_the_dask_path():
    dd = pytest.importorskip("dask.dataframe")
    import pdireval.dask  # noqa: F401

    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=3, depth=20, rng=1)
    given = ["map", "AP", "P.5,10"]
    lazy = pdireval.dask.evaluate(dd.from_pandas(run, npartitions=2), given, qrels=qrels)
    pd.testing.assert_frame_equal(lazy.compute(), pdireval.evaluate(run, given, qrels=qrels))
    judged = pd.concat([qrels.assign(variant="a"), qrels.assign(variant="b")], ignore_index=True)
    means = pdireval.dask.evaluate_variants(dd.from_pandas(run, npartitions=2), given, judged)
    assert list(pd.unique(means.compute()["measure"])) == ["map", "AP", "P@5", "P@10"]
