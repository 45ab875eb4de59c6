"""ndeval's intent-aware measures against pyndeval (ndeval's C code) and ir_measures'
pyndeval provider, per query, on seeded diversity collections (graded labels per subtopic,
unjudged documents, queries some systems do not answer)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.core.schema import canonical_qrels
from pdireval.datasets import simulate_diversity
from pdireval.errors import SchemaError
from pdireval.measures import parse_measure
from tests.helpers import assert_same_values, ir_measures_values

pyndeval = pytest.importorskip("pyndeval")

CUTOFF_MEASURES = {"alpha_nDCG": "alpha-nDCG", "alpha_DCG": "alpha-DCG", "ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA", "P_IA": "P-IA", "StRecall": "strec"}


def ndeval_measures(params: str = "", alpha_params: str = "", cutoffs=(1, 2, 5, 10, 20)) -> dict:
    """ours -> pyndeval's names; ``params`` go on every measure, ``alpha_params`` on those
    that take alpha/beta."""
    out = {}
    for k in cutoffs:
        for ours, theirs in CUTOFF_MEASURES.items():
            extra = ",".join(p for p in (params, alpha_params if ours.startswith("alpha") else "") if p)
            out[f"{ours}({extra})@{k}" if extra else f"{ours}@{k}"] = f"{theirs}@{k}"
    nrbp_extra = ",".join(p for p in (params, alpha_params) if p)
    for ours, theirs in (("NRBP", "NRBP"), ("nNRBP", "nNRBP")):
        out[f"{ours}({nrbp_extra})" if nrbp_extra else ours] = theirs
    out[f"AP_IA({params})" if params else "AP_IA"] = "MAP-IA"
    return out


def pyndeval_values(run, qrels, measures: dict, **kwargs) -> pd.DataFrame:
    judged = [(r.query, r.subtopic, r.doc, int(r.label)) for r in qrels.itertuples()]
    inverse = {theirs: str(parse_measure(ours)) for ours, theirs in measures.items()}
    evaluator = pyndeval.RelevanceEvaluator(judged, list(measures.values()), **kwargs)
    rows = []
    for system, sys_run in run.groupby("system"):
        scored = [(r.query, r.doc, r.score) for r in sys_run.itertuples()]
        for query, values in evaluator.evaluate(scored).items():
            rows += [(system, query, inverse[name], value) for name, value in values.items()]
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])


def collection(seed: int, drop: float = 0.1):
    run, qrels = simulate_diversity(n_systems=3, n_queries=12, depth=40, rng=seed)
    # some systems do not answer some queries
    gen = np.random.default_rng(seed)
    pairs = run[["system", "query"]].drop_duplicates()
    dropped = pairs[gen.random(len(pairs)) < drop]
    run = run.merge(dropped, how="left", indicator=True)
    return run[run["_merge"] == "left_only"].drop(columns="_merge").reset_index(drop=True), qrels, dropped


def answered(scores: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    keys = run[["system", "query"]].drop_duplicates().astype(str)
    return scores.astype({"system": str, "query": str}).merge(keys, on=["system", "query"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_default_parameters_match_ndeval_per_query(seed):
    run, qrels, dropped = collection(seed)
    measures = ndeval_measures()
    ours = pdireval.evaluate(run, list(measures), qrels=qrels)
    assert_same_values(answered(ours, run), pyndeval_values(run, qrels, measures))
    # a query the system did not answer scores 0 (ndeval leaves it out)
    unanswered = ours.astype({"system": str, "query": str}).merge(dropped.astype(str), on=["system", "query"])
    assert len(unanswered) and (unanswered["value"] == 0).all()


def test_alpha_beta_and_rel_match_ndeval():
    run, qrels, _ = collection(3)
    measures = ndeval_measures(params="rel=2", alpha_params="alpha=0.25", cutoffs=(1, 3, 10))
    measures = {k.replace("NRBP(rel=2,alpha=0.25)", "NRBP(rel=2,alpha=0.25,beta=0.8)"): v for k, v in measures.items()}
    ours = pdireval.evaluate(run, list(measures), qrels=qrels)
    theirs = pyndeval_values(run, qrels, measures, relevance_level=2, alpha=0.25, beta=0.8)
    # ERR-IA, P-IA, StRecall ignore alpha in ir_measures' naming but ndeval's ERR-IA uses
    # it: compare ERR_IA only at the default alpha (checked above)
    theirs = theirs[~theirs["measure"].str.contains("ERR_IA")]
    ours = ours[~ours["measure"].str.contains("ERR_IA")]
    assert_same_values(answered(ours, run), theirs)


@pytest.mark.parametrize("alpha", [0.1, 0.25, 0.5, 0.8])
def test_err_ia_and_nerr_ia_take_ndevals_alpha(alpha):
    """Issue 29: ndeval's ERR-IA and nERR-IA depend on its -alpha (each relevant document
    satisfies with probability α, and the greedy ideal follows α); pdireval's refused alpha=."""
    run, qrels, _ = collection(6)
    measures = {f"{name}(alpha={alpha})@{k}": f"{theirs}@{k}" for k in (1, 5, 20)
                for name, theirs in (("ERR_IA", "ERR-IA"), ("nERR_IA", "nERR-IA"))}
    ours = pdireval.evaluate(run, list(measures), qrels=qrels)
    theirs = pyndeval_values(run, qrels, measures, alpha=alpha)
    assert_same_values(answered(ours, run), theirs)
    if alpha != 0.5:  # the default is 0.5, and alpha changes the values
        default = pdireval.evaluate(run, "ERR_IA@20", qrels=qrels)["value"].to_numpy()
        changed = ours[ours["measure"] == f"ERR_IA(alpha={alpha})@20"]["value"].to_numpy()
        assert not np.allclose(default, changed)


def test_through_ir_measures_with_the_iteration_column():
    pytest.importorskip("ir_measures")
    run, qrels, _ = collection(4, drop=0.0)
    measures = {"alpha_nDCG@10": "alpha_nDCG@10", "alpha_nDCG(alpha=0.7)@5": "alpha_nDCG(alpha=0.7)@5", "ERR_IA@20": "ERR_IA@20", "nERR_IA@10": "nERR_IA@10", "NRBP": "NRBP", "nNRBP(beta=0.9)": "nNRBP(beta=0.9)", "AP_IA": "AP_IA", "P_IA@10": "P_IA@10", "StRecall@10": "StRecall@10", "MAP_IA": "MAP_IA"}
    ours = pdireval.evaluate(run, list(measures), qrels=qrels)
    # one call per measure: ir_measures' pyndeval provider feeds the run iterator to its
    # first invocation only, so measures needing another alpha/beta in the same call get 0
    theirs = pd.concat([ir_measures_values(run, qrels, {o: t}) for o, t in measures.items()])
    theirs["measure"] = theirs["measure"].replace({"MAP_IA": "AP_IA"})
    assert_same_values(ours, theirs.drop_duplicates(["system", "query", "measure"]))


def test_judged_only_is_ndeval_on_the_run_without_unjudged_documents():
    run, qrels, _ = collection(5)
    judged = run.merge(qrels[["query", "doc"]].drop_duplicates(), on=["query", "doc"])
    base = {"alpha_nDCG@10": "alpha-nDCG@10", "ERR_IA@5": "ERR-IA@5", "P_IA@10": "P-IA@10", "AP_IA": "MAP-IA"}
    ours = pdireval.evaluate(run, [m.replace("@", "(judged_only=true)@") if "@" in m else m + "(judged_only=true)" for m in base], qrels=qrels)
    ours["measure"] = ours["measure"].str.replace("(judged_only=true)", "", regex=False)
    assert_same_values(answered(ours, judged), pyndeval_values(judged, qrels, base))


def test_query_without_relevant_subtopics_scores_zero():
    qrels = pd.DataFrame({"query": ["1", "1", "2"], "subtopic": ["a", "b", "a"], "doc": ["x", "y", "x"], "label": [1, 0, 0]})
    run = pd.DataFrame({"system": "s", "query": ["1", "2"], "doc": ["x", "x"], "score": [1.0, 1.0]})
    ours = pdireval.evaluate(run, ["nNRBP", "alpha_nDCG@5", "AP_IA"], qrels=qrels)
    assert ours[ours["query"] == "2"]["value"].tolist() == [0.0, 0.0, 0.0]
    assert ours[ours["query"] == "1"]["value"].tolist() == [1.0, 1.0, 1.0]
    theirs = pyndeval.ndeval([("1", "a", "x", 1), ("1", "b", "y", 0), ("2", "a", "x", 0)], [("1", "x", 1.0), ("2", "x", 1.0)], measures=["nNRBP"])
    assert np.isnan(theirs["2"]["nNRBP"])  # ndeval divides 0 by 0; pdireval gives 0


def test_rank_one_alpha_dcg_is_left_undivided_as_ndeval_does():
    # a document relevant to both of the query's subtopics at rank 1: s_1 = 2
    qrels = pd.DataFrame({"query": "1", "subtopic": ["a", "b"], "doc": ["x", "x"], "label": [1, 1]})
    run = pd.DataFrame({"system": "s", "query": "1", "doc": ["x"], "score": [1.0]})
    ours = pdireval.evaluate(run, ["alpha_DCG@1", "alpha_DCG@2", "ERR_IA@1"], qrels=qrels)["value"].tolist()
    theirs = pyndeval.ndeval([("1", "a", "x", 1), ("1", "b", "x", 1)], [("1", "x", 1.0)], measures=["alpha-DCG@1", "alpha-DCG@2", "ERR-IA@1"])["1"]
    assert ours[0] == 2.0 and ours[2] == 2.0
    assert ours == pytest.approx([theirs["alpha-DCG@1"], theirs["alpha-DCG@2"], theirs["ERR-IA@1"]], abs=1e-15)


def test_without_a_subtopic_column_each_query_is_one_subtopic():
    run, qrels, _ = collection(6)
    flat = qrels.groupby(["query", "doc"], as_index=False)["label"].max()
    measures = ["alpha_nDCG@10", "NRBP", "AP_IA", "StRecall@5"]
    a = pdireval.evaluate(run, measures, qrels=flat)
    b = pdireval.evaluate(run, measures, qrels=flat.assign(subtopic="0"))
    pd.testing.assert_frame_equal(a, b)


def test_other_measures_read_the_largest_subtopic_label():
    run, qrels, _ = collection(7)
    flat = qrels.groupby(["query", "doc"], as_index=False)["label"].max()
    measures = ["nDCG@10", "AP", "P@5"]
    pd.testing.assert_frame_equal(pdireval.evaluate(run, measures, qrels=qrels), pdireval.evaluate(run, measures, qrels=flat))


def test_cutoffs_beyond_ndeval_depth_extend_the_formulas():
    run, qrels, _ = collection(8)
    deep = pdireval.evaluate(run, ["alpha_nDCG@40", "StRecall@40", "P_IA@40"], qrels=qrels)["value"]
    assert ((deep >= 0) & (deep <= 1)).all()


def test_subtopic_qrels_round_trip_through_a_trec_file(tmp_path):
    _, qrels = simulate_diversity(n_systems=1, n_queries=3, depth=10, rng=9)
    path = tmp_path / "qrels.txt"
    pdireval.write_qrels(qrels, path)
    back = pdireval.read_qrels(path, subtopics=True)
    pd.testing.assert_frame_equal(back, canonical_qrels(qrels))
    with pytest.raises(SchemaError, match=r"subtopics=True"):
        pdireval.read_qrels(path)


def test_command_line_reads_subtopics(tmp_path, capsys):
    import json

    from pdireval.cli import main

    run, qrels, _ = collection(10, drop=0.0)
    pdireval.write_run(run, tmp_path / "run.txt")
    pdireval.write_qrels(qrels, tmp_path / "qrels.txt")
    status = main(["evaluate", str(tmp_path / "run.txt"), "--qrels", str(tmp_path / "qrels.txt"), "--subtopics", "-m", "alpha_nDCG@10", "--per-query", "--format", "json"])
    out = capsys.readouterr().out
    assert status == 0
    rows = pd.DataFrame(json.loads(out))
    expected = pdireval.evaluate(run, "alpha_nDCG@10", qrels=qrels)
    merged = rows[rows["query"] != "all"].astype({"query": str}).merge(expected.astype(str).drop(columns="value").join(expected["value"]), on=["system", "query"])
    assert len(merged) == len(expected)
    np.testing.assert_allclose(merged["value_x"].astype(float), merged["value_y"], atol=1e-12)


def test_ir_datasets_iteration_column_maps_to_subtopic():
    run, qrels, _ = collection(11)
    theirs = qrels.rename(columns={"query": "query_id", "subtopic": "iteration", "doc": "doc_id", "label": "relevance"})
    mapping = {"query": "query_id", "subtopic": "iteration", "doc": "doc_id", "label": "relevance"}
    a = pdireval.evaluate(run, ["alpha_nDCG@10", "AP_IA"], qrels=theirs, qrels_columns=mapping)
    pd.testing.assert_frame_equal(a, pdireval.evaluate(run, ["alpha_nDCG@10", "AP_IA"], qrels=qrels))


def ir_datasets_frame(qrels: pd.DataFrame) -> pd.DataFrame:
    """Diversity qrels as ir_datasets / ir_measures hold them: the subtopic in ``iteration``."""
    return qrels.rename(columns={"query": "query_id", "subtopic": "iteration", "doc": "doc_id", "label": "relevance"})


def test_iteration_column_is_the_subtopic_without_a_mapping(recwarn):
    run, qrels, _ = collection(12)
    theirs = ir_datasets_frame(qrels)
    assert theirs.groupby("query_id")["iteration"].nunique().min() > 1
    measures = ["alpha_nDCG@10", "ERR_IA@20", "AP_IA", "nDCG@10"]
    ours = pdireval.evaluate(run, measures, qrels=theirs)
    pd.testing.assert_frame_equal(ours, pdireval.evaluate(run, measures, qrels=qrels))
    # unambiguous (documents are judged under several subtopics): no word about the column
    assert not [w for w in recwarn.list if "iteration" in str(w.message)]
    # per query against ndeval (pyndeval) on the same judgments
    nd = ndeval_measures(cutoffs=(10,))
    assert_same_values(answered(pdireval.evaluate(run, list(nd), qrels=theirs), run), pyndeval_values(run, qrels, nd))


def test_iteration_column_against_ir_measures_on_their_frame():
    pytest.importorskip("ir_measures")
    run, qrels, _ = collection(13, drop=0.0)
    theirs = ir_datasets_frame(qrels)
    ours = pdireval.evaluate(run, ["alpha_nDCG@10", "ERR_IA@20"], qrels=theirs)
    expected = pd.concat([ir_measures_values(run, qrels, {m: m}) for m in ("alpha_nDCG@10", "ERR_IA@20")])
    assert_same_values(ours, expected)


def test_iteration_column_left_alone_when_constant_or_not_needed():
    run, qrels, _ = collection(14)
    adhoc = qrels.drop(columns="subtopic").drop_duplicates(["query", "doc"]).assign(iteration="0")
    a = pdireval.evaluate(run, "alpha_nDCG@10", qrels=adhoc)
    b = pdireval.evaluate(run, "alpha_nDCG@10", qrels=adhoc.drop(columns="iteration"))
    pd.testing.assert_frame_equal(a, b)  # one value per query: ad hoc qrels, one subtopic
    # a measure that does not read subtopics never looks at the column
    with pytest.raises(SchemaError, match="more than one label"):
        pdireval.evaluate(run, "nDCG@10", qrels=ir_datasets_frame(qrels))


def test_ambiguous_iteration_column_warns_once():
    # several values per query but no document judged under two of them: judging rounds?
    qrels = pd.DataFrame({"query_id": ["1"] * 4, "iteration": ["1", "1", "2", "2"],
                          "doc_id": ["a", "b", "c", "d"], "relevance": [1, 0, 1, 0]})
    run = pd.DataFrame({"query": "1", "doc": ["a", "c", "b"], "score": [3.0, 2.0, 1.0]})
    with pytest.warns(pdireval.PdirevalWarning, match="'iteration' column is read as the subtopic") as caught:
        ours = pdireval.evaluate(run, "alpha_nDCG@3", qrels=qrels)
    assert len(caught) == 1 and len(str(caught[0].message).splitlines()) == 1
    confirmed = pdireval.evaluate(run, "alpha_nDCG@3", qrels=qrels, qrels_columns={"subtopic": "iteration"})
    pd.testing.assert_frame_equal(ours, confirmed)
