"""trec_eval's whole ``all_trec`` set, per query, against trec_eval 9.0.8 itself.

Two oracles: (a) pytrec_eval-terrier (trec_eval 9.0.8 as a library; full double precision, so
the values must agree to 1e-9); (b) the trec_eval 9.0.8 binary built from ../shared/oracles
(``build-trec-eval``), run with ``-q -m all_trec``: every per-query line it prints must match
pdireval's value for the measure of the same trec_eval name to its 4 printed decimals, and the
summary line of ``gm_map`` / ``gm_bpref`` must equal pdireval's geometric-mean summary rule.
The binary also checks what pytrec_eval cannot reach (trec_eval gain parameters, ``-c``,
``-N``). Collections: Robust 2003 and hypothesis-generated ones with score ties (also at
float32 precision), unjudged documents, negative labels and unanswered queries.
"""

from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

import pdireval
from pdireval.measures.registry import REGISTRY, parse_measure
from tests.helpers import assert_same_scores, collections, pytrec_scores, write_trec_files

# (pdireval measure, pytrec_eval spec, key in pytrec_eval's output)
PYTREC = [
    ("IPrec@0", "iprec_at_recall", "iprec_at_recall_0.00"),
    ("IPrec@0.1", "iprec_at_recall", "iprec_at_recall_0.10"),
    ("IPrec@0.3", "iprec_at_recall", "iprec_at_recall_0.30"),
    ("IPrec@0.7", "iprec_at_recall", "iprec_at_recall_0.70"),
    ("IPrec@1", "iprec_at_recall", "iprec_at_recall_1.00"),
    ("11pt_avg", "11pt_avg", "11pt_avg"),
    ("Rprec_mult@0.2", "Rprec_mult", "Rprec_mult_0.20"),
    ("Rprec_mult@0.6", "Rprec_mult", "Rprec_mult_0.60"),
    ("Rprec_mult@1", "Rprec_mult", "Rprec_mult_1.00"),
    ("Rprec_mult@1.4", "Rprec_mult", "Rprec_mult_1.40"),
    ("Rprec_mult@2", "Rprec_mult", "Rprec_mult_2.00"),
    ("relative_P@5", "relative_P", "relative_P_5"),
    ("relative_P@10", "relative_P", "relative_P_10"),
    ("relative_P@1000", "relative_P", "relative_P_1000"),
    ("SetP", "set_P", "set_P"),
    ("SetR", "set_recall", "set_recall"),
    ("SetF", "set_F", "set_F"),
    ("SetAP", "set_map", "set_map"),
    ("SetRelP", "set_relative_P", "set_relative_P"),
    ("utility", "utility", "utility"),
    ("gm_map", "gm_map", "gm_map"),
    ("gm_bpref", "gm_bpref", "gm_bpref"),
    ("NumQ", "num_q", "num_q"),
    ("NumNonRelJudgedRet", "num_nonrel_judged_ret", "num_nonrel_judged_ret"),
    ("binG", "binG", "binG"),
    ("G", "G", "G"),
    ("ndcg_rel", "ndcg_rel", "ndcg_rel"),
    ("Rndcg", "Rndcg", "Rndcg"),
]
NAMES = [ours for ours, _, _ in PYTREC]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- pytrec_eval (1e-9)


def test_matches_pytrec_eval_on_robust03(robust03):
    run, qrels = robust03
    run = run[run["system"].isin(sorted(run["system"].unique())[:3])]
    expected = pytrec_scores(run, qrels, PYTREC)
    ours = pdireval.evaluate(run, NAMES, qrels=qrels, missing="drop")
    assert_same_scores(ours, expected)


@pytest.mark.slow
@SETTINGS
@given(collections(require_judged=True))
def test_matches_pytrec_eval_on_generated_collections(data):
    run, qrels = data
    expected = pytrec_scores(run, qrels, PYTREC)
    ours = pdireval.evaluate(run, NAMES, qrels=qrels, missing="drop")
    assert_same_scores(ours, expected)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(require_judged=True))
def test_matches_pytrec_eval_at_relevance_level_2_and_judged_only(data):
    run, qrels = data
    rename = {n: str(parse_measure(n).replace(rel=2, judged_only=True)) for n in NAMES if n != "NumQ"}
    measures = [m for m in PYTREC if m[0] != "NumQ"]
    expected = pytrec_scores(run, qrels, measures, relevance_level=2, judged_docs_only=True, rename=rename)
    # trec_eval's interpolated precision divides 0 by 0 on a condensed list left empty (every
    # retrieved document unjudged): NaN there; pdireval gives 0, as for an unanswered query
    empty = expected["value"].isna()
    assert expected.loc[empty, "measure"].str.match(r"IPrec|11pt_avg").all()
    expected.loc[empty, "value"] = 0.0
    ours = pdireval.evaluate(run, list(rename.values()), qrels=qrels, missing="drop")
    assert_same_scores(ours, expected)


# --------------------------------------------------------------------------- the trec_eval binary


@pytest.fixture(scope="module")
def trec_eval_binary(te9) -> str:
    """Path of the trec_eval 9.0.8 binary (built once per session by conftest's ``te9``)."""
    return te9


def trec_eval_output(binary: str, qrels_path: Path, run_path: Path, *args: str) -> pd.DataFrame:
    """``trec_eval -q args`` as rows (name, query, value); ``query == "all"`` for the summary."""
    done = subprocess.run([binary, "-q", *args, str(qrels_path), str(run_path)], capture_output=True, text=True, check=True)
    rows = []
    for line in done.stdout.splitlines():
        name, query, value = (part.strip() for part in line.split("\t"))
        if name in ("runid", "relstring"):
            continue
        rows.append((name, query, float(value)))
    return pd.DataFrame(rows, columns=["name", "query", "value"])


def to_pdireval(name: str):
    """The pdireval measure of a name trec_eval prints: ``G_0=1,2=5`` -> ``G(gains={0:1,2:5})``,
    ``utility_2,-0.5,-1,0.1`` -> ``utility(a=2,b=-0.5,c=-1,d=0.1)``, else the alias."""
    found = re.fullmatch(r"(.*?)_(-?\d+=.*)", name)
    if found:
        gains = dict(pair.split("=") for pair in found.group(2).split(","))
        return parse_measure(found.group(1)).replace(gains={int(k): float(v) for k, v in gains.items()})
    if name.startswith("utility_"):
        return parse_measure("utility").replace(**dict(zip("abcd", map(float, name[8:].split(",")))))
    return parse_measure(name)


def compare_with_binary(binary: str, run: pd.DataFrame, qrels: pd.DataFrame, folder: Path, *args: str, missing: str = "drop") -> set:
    """Every per-query line of ``trec_eval -q args`` equals pdireval's value of the measure of
    the same trec_eval name to the 4 printed decimals; gm summaries follow summary="gm".
    Returns the trec_eval names seen."""
    qpath, paths = write_trec_files(run, qrels, folder)
    seen = set()
    for system, path in paths.items():
        out = trec_eval_output(binary, qpath, path, *args)
        names = sorted(set(out["name"]))
        seen.update(names)
        measures = {name: to_pdireval(name) for name in names}
        if "-N" in args:
            n_docs = float(args[args.index("-N") + 1])
            measures = {k: m.replace(num_docs=n_docs) if m.name == "utility" else m for k, m in measures.items()}
        scores = pdireval.evaluate(run[run["system"] == system], list(dict.fromkeys(measures.values())), qrels=qrels, missing=missing)
        ours = {(m, q): v for m, q, v in zip(scores["measure"], scores["query"].astype(str), scores["value"])}
        per_query = out[out["query"] != "all"]
        assert len(per_query), "trec_eval printed no per-query line"
        for name, query, value in per_query.itertuples(index=False):
            got = ours[(str(measures[name]), query)]
            assert abs(got - value) <= 5e-5 + 1e-9 * abs(value), (system, name, query, got, value)
        summary = out[out["query"] == "all"].set_index("name")["value"]
        for name in ("gm_map", "gm_bpref"):
            if name in summary.index:
                values = scores.loc[scores["measure"] == name, "value"].to_numpy()
                assert REGISTRY[name].summary == "gm"
                assert abs(math.exp(values.mean()) - summary[name]) <= 5e-5 + 1e-9, (system, name)
        for name in ("num_ret", "num_rel_ret", "num_q", "num_nonrel_judged_ret"):
            if name in summary.index:
                m = measures[name]
                assert m.definition.summary == "sum"
                total = scores.loc[scores["measure"] == str(m), "value"].sum()
                assert total == summary[name], (system, name, total, summary[name])
    return seen


ALL_TREC = {
    "11pt_avg", "G", "P_5", "Rndcg", "Rprec", "Rprec_mult_0.20", "binG", "bpref", "gm_bpref", "gm_map", "infAP",
    "iprec_at_recall_0.10", "map", "map_cut_10", "ndcg", "ndcg_cut_10", "ndcg_rel", "num_nonrel_judged_ret", "num_q",
    "num_rel", "num_rel_ret", "num_ret", "recall_10", "recip_rank", "relative_P_10", "set_F", "set_P", "set_map",
    "set_recall", "set_relative_P", "success_1", "utility",
}


def test_all_trec_matches_the_binary_on_robust03(robust03, trec_eval_binary, tmp_path):
    run, qrels = robust03
    run = run[run["system"].isin(sorted(run["system"].unique())[3:5])]
    seen = compare_with_binary(trec_eval_binary, run, qrels, tmp_path, "-m", "all_trec")
    assert ALL_TREC <= seen  # every family of all_trec was compared


def test_gain_parameters_complete_and_collection_size_match_the_binary(robust03, trec_eval_binary, tmp_path):
    """trec_eval's gain levels (``-m G.0=1,2=5``), ``-c`` (missing="zero": the gm summaries then
    count unanswered queries at ln(1e-5)) and ``-N`` (utility's collection size)."""
    run, qrels = robust03
    run = run[run["system"] == sorted(run["system"].unique())[6]]
    run = run[~run["query"].isin(sorted(run["query"].unique())[:7])]  # 7 unanswered queries
    args = ("-c", "-N", "500000", "-m", "ndcg.1=3,2=7", "-m", "G.0=1,2=5", "-m", "Rndcg.1=2,2=2",
            "-m", "ndcg_rel.1=-1", "-m", "utility.2,-0.5,-1,0.1", "-m", "gm_map", "-m", "gm_bpref", "-m", "num_q")
    seen = compare_with_binary(trec_eval_binary, run, qrels, tmp_path, *args, missing="zero")
    assert {"ndcg_1=3,2=7", "G_0=1,2=5", "Rndcg_1=2,2=2", "ndcg_rel_1=-1", "utility_2,-0.5,-1,0.1", "gm_map"} <= seen


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(require_judged=True))
def test_all_trec_matches_the_binary_on_generated_collections(te9, data):
    """Ties (also at float32 precision), unjudged documents, negative labels (a query whose
    labels are all negative stops trec_eval 9.0.8 itself: "Can't calculate measure")."""
    import tempfile

    run, qrels = data
    binary = te9
    with tempfile.TemporaryDirectory() as folder:
        compare_with_binary(binary, run, qrels, Path(folder), "-m", "all_trec")
        compare_with_binary(binary, run, qrels, Path(folder), "-m", "G.0=1,2=5", "-m", "Rndcg.1=4", "-m", "ndcg_rel.3=1")


# --------------------------------------------------------------------------- hand-computed cases


def _one(run_docs, labels, measure, scores=None):
    qrels = pd.DataFrame({"query": "q", "doc": list(labels), "label": list(labels.values())})
    n = len(run_docs)
    run = pd.DataFrame({"system": "s", "query": "q", "doc": run_docs,
                        "score": scores if scores is not None else np.arange(n, 0, -1, dtype=float)})
    return pdireval.evaluate(run, measure, qrels=qrels)["value"].iloc[0]


def test_hand_computed_values():
    labels = {"a": 1, "b": 0, "c": 1, "d": 2, "e": 1}  # R = 4
    docs = ["a", "b", "x", "c", "d"]  # relevant at ranks 1, 4, 5
    # Prec at relevant ranks: 1, 2/4, 3/5 -> interpolated: 1, 0.6, 0.6
    assert _one(docs, labels, "IPrec@0") == 1.0
    assert _one(docs, labels, "IPrec@0.5") == pytest.approx(0.6)  # c = floor(2 + 0.9) = 2
    assert _one(docs, labels, "IPrec@1") == 0.0  # only 3 of 4 retrieved
    assert _one(docs, labels, "Rprec_mult@0.5") == pytest.approx(1 / 2)  # c = 2: [a, b]
    assert _one(docs, labels, "Rprec_mult@2") == pytest.approx(3 / 8)  # c = 8 > L
    assert _one(docs, labels, "relative_P@2") == pytest.approx(1 / 2)
    assert _one(docs, labels, "relative_P@10") == pytest.approx(3 / 4)
    assert _one(docs, labels, "SetP") == pytest.approx(3 / 5)
    assert _one(docs, labels, "SetF") == pytest.approx(2 * 0.6 * 0.75 / (0.6 + 0.75))
    assert _one(docs, labels, "SetAP") == pytest.approx(9 / 20)
    assert _one(docs, labels, "SetRelP") == pytest.approx(3 / 4)
    assert _one(docs, labels, "utility") == 3 - 2
    assert _one(docs, labels, "NumNonRelJudgedRet") == 1
    # binG: non-relevant above: 0, 2, 2
    assert _one(docs, labels, "binG") == pytest.approx((1 + 2 / math.log2(4)) / 4)
    ap = (1 + 2 / 4 + 3 / 5) / 4
    assert _one(docs, labels, "gm_map") == pytest.approx(math.log(ap))
    assert _one(["b", "x"], labels, "gm_map") == pytest.approx(math.log(1e-5))


def test_registry_rows():
    for name in ("gm_map", "gm_bpref"):
        assert REGISTRY[name].summary == "gm"
    for name in ("numq", "numret", "numrel", "numrelret", "numnonreljudgedret"):
        assert REGISTRY[name].summary == "sum"
    assert REGISTRY["ap"].summary == "mean"
    assert str(parse_measure("iprec_at_recall_0.10")) == "IPrec@0.1"
    assert str(parse_measure("Rprec_mult_1.00")) == "Rprec_mult@1"
    assert str(parse_measure("set_F")) == "SetF"


def test_bad_input():
    with pytest.raises(pdireval.MeasureError, match="needs a cut-off"):
        parse_measure("IPrec")
    with pytest.raises(pdireval.MeasureError, match="whole number"):
        parse_measure("P@0.5")
    with pytest.raises(pdireval.MeasureError, match="gains="):
        labels = {"a": 1}
        _one(["a"], labels, "nDCG(gain=exp,gains={1:2})")
