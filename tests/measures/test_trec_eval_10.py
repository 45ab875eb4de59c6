"""``evaluate(..., trec_eval="10")`` and the measures trec_eval 10.0 added or changed.

Per query against three independent computations:

* the trec_eval 10.0 binary (``te10``; slow): generated collections with score ties and
  near-ties, judgment-group qrels, and the 17 Robust 2003 runs with ``-m all_trec``;
* the command's transcription of trec_eval (``pdireval trec_eval --v10``, pdireval/trec/:
  a separate implementation on padded matrices, itself checked line for line against the
  binary in tests/test_treceval.py): hypothesis collections with ties, in the default run;
* ir_measures where it has the measure (``Judged@k``: Unjudged@k = min(k, L)·(1 −
  Judged@k)/k), and hand-computed values.

trec_eval 10.0's m_rbp.c reads two uninitialised variables (the minimum and maximum of the
gains, which decide whether gains are rescaled to [0, 1]); run with ``-m rbp`` alone the
binary behaves as if they started at 0, which pdireval reproduces, so the binary's ``rbp``
is compared in runs of its own.
"""

from __future__ import annotations

import io
import subprocess
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

import pdireval
from pdireval.measures.registry import parse_measure
from pdireval.treceval import command
from tests.helpers import collections, shared_path

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: the -m arguments of the 10.0 measures, each family in a run of the binary of its own
TEN = [
    ("rbp",),
    ("rbp.p=0.5",),
    ("rbp.p=0.8,1=3",),
    ("rbp.0=-1,1=1,2=3",),
    ("rbp_resid", "rbp_resid.p=0.8"),
    ("unj", "unj.1,3,50"),
    ("iprec_at_recall", "iprec_at_recall..15,.25,.33,.45", "11pt_avg"),
    ("utility.1,-1,0,0", "utility.2,-1,-0.5,0", "G.1=4.5", "G.1=2,2=5"),
]
JG = ("map_avgjg", "P_avgjg.1,3,8", "Rprec_mult_avgjg")


def parse_q(text: str) -> dict:
    """{(name, query): printed value} of trec_eval -q output, 'all' lines left out."""
    out = {}
    for line in text.splitlines():
        name, query, value = line.split("\t")
        if query != "all" and name.strip() not in ("runid", "relstring", "num_q"):
            out[(name.strip(), query)] = value
    return out


def printed(scores: pd.DataFrame, rename=None) -> dict:
    """evaluate's values as trec_eval prints them (%6.4f; counts as integers)."""
    out = {}
    for row in scores.itertuples():
        name = rename(row.measure) if rename else row.measure
        count = name.startswith("num_") and name != "num_q"
        out[(name, row.query)] = str(int(row.value)) if count else f"{row.value:6.4f}"
    return out


def ours_evaluate(run, qrels, names, **options) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdireval.PdirevalWarning)  # run queries without qrels
        return pdireval.evaluate(run, names, qrels=qrels, missing="drop", **options)


def write(run: pd.DataFrame, qrels: pd.DataFrame, folder: Path) -> tuple[str, str]:
    pdireval.write_run(run, folder / "run.txt")
    pdireval.write_qrels(qrels, folder / "qrels.txt")
    return str(folder / "qrels.txt"), str(folder / "run.txt")


def engine(*argv) -> str:
    buffer = io.StringIO()
    assert command([str(a) for a in argv], stdout=buffer) == 0
    return buffer.getvalue()


def assert_matches(reference: dict, mine: dict) -> None:
    assert reference, "nothing compared"
    bad = {k: (v, mine.get(k)) for k, v in reference.items() if mine.get(k) != v}
    assert not bad, f"{len(bad)} of {len(reference)} differ, e.g. {list(bad.items())[:5]}"


# --------------------------------------------------------------------------- by hand


def frames(labels_run: list, qrels_labels: dict, query="1"):
    """One ranking (docs d0, d1, ... in that order) and its qrels."""
    n = len(labels_run)
    run = pd.DataFrame({"query": query, "doc": [f"d{i}" for i in range(n)], "score": np.arange(n, 0, -1.0)})
    qrels = pd.DataFrame({"query": query, "doc": list(qrels_labels), "label": list(qrels_labels.values())})
    return run, qrels


def value(run, qrels, measure, **options) -> float:
    return float(pdireval.evaluate(run, measure, qrels=qrels, **options)["value"].iloc[0])


def test_graded_rbp_by_hand():
    # labels 0..2: gains rescaled to label / 2; p = 0.9
    run, qrels = frames([2, 0, 1], {"d0": 2, "d1": 0, "d2": 1, "zz": 2})
    assert value(run, qrels, "rbp") == pytest.approx(0.1 * (1.0 + 0.5 * 0.81))
    # binary labels: no rescaling, Moffat & Zobel's RBP with p = 0.9
    run, qrels = frames([1, 0, 1], {"d0": 1, "d1": 0, "d2": 1})
    assert value(run, qrels, "rbp") == pytest.approx(value(run, qrels, "RBP(p=0.9)"))
    # gains given as trec_eval pairs: 2 -> 4 (table 0, 1, 4: rescaled by 4), p = 0.5
    run, qrels = frames([2, 1], {"d0": 2, "d1": 1})
    assert value(run, qrels, "rbp.p=0.5,2=4") == pytest.approx(0.5 * (1.0 + 0.25 * 0.5))


def test_rbp_residual_and_unjudged_by_hand():
    run, qrels = frames([1, 0, 1], {"d0": 1, "d2": 0})  # d1 unjudged
    p = 0.9
    assert value(run, qrels, "rbp_resid") == pytest.approx(p**3 + (1 - p) * p)
    run, qrels = frames([1, 0], {"d0": 1, "d1": 0})  # no unjudged document: 0 (trec_eval)
    assert value(run, qrels, "rbp_resid") == 0.0
    assert value(run, qrels, "RBPResidual(p=0.9)") == pytest.approx(0.81)  # the tail p^L
    run, qrels = frames([1, 0, 1], {"d0": 1, "d2": 0})
    assert value(run, qrels, "unj_5") == pytest.approx(1 / 5)  # padded with judged documents
    assert value(run, qrels, "unj_2") == pytest.approx(1 / 2)


def test_interpolated_precision_rounding_by_hand():
    # R = 6, x = 0.2: 9.0.8 reads at c = floor(1.2 + 0.9) = 2 relevant documents, 10.0 at
    # c = lround(1.2) = 1; the ranking R N R ...: precision 1 at the first, 2/3 at the second
    labels = {f"d{i}": 1 for i in (0, 2)} | {f"r{i}": 1 for i in range(4)} | {"d1": 0}
    run, qrels = frames([1, 0, 1], labels)
    assert value(run, qrels, "iprec_at_recall_0.20") == pytest.approx(2 / 3)
    assert value(run, qrels, "iprec_at_recall_0.20", trec_eval="10") == 1.0
    assert value(run, qrels, "IPrec(trec_eval=10)@0.2") == 1.0
    # 11pt_avg with 10.0's rounding: levels 0, 0.1, 0.2 (c = 0, 1, 1) read 1, 0.3 and 0.4
    # (c = lround(1.8) = lround(2.4) = 2) read 2/3, higher levels (c >= 3) 0
    assert value(run, qrels, "11pt_avg", trec_eval="10") == pytest.approx((3 + 2 * 2 / 3) / 11)


def test_switch_options_and_errors():
    run, qrels = frames([1, 0], {"d0": 1, "d1": 0})
    with pytest.raises(pdireval.OptionError, match="trec_eval='1.0'|'10'"):
        pdireval.evaluate(run, "AP", qrels=qrels, trec_eval="11")
    with pytest.raises(pdireval.MeasureError, match="9.0.8 does not have"):
        pdireval.evaluate(run, "rbp", qrels=qrels, trec_eval="9.0.8")
    with pytest.raises(pdireval.MeasureError, match="not a number.*trec_eval -q -m relstring"):
        pdireval.evaluate(run, "relstring", qrels=qrels)
    # trec_eval="10" compares scores as doubles (a near-tie of 9.0.8 is no tie)
    near = pd.DataFrame({"query": "1", "doc": ["a", "b"], "score": [1.0 + 1e-9, 1.0]})
    labels = pd.DataFrame({"query": "1", "doc": ["a", "b"], "label": [1, 0]})
    assert value(near, labels, "P_1", trec_eval="10") == 1.0
    assert value(near, labels, "P_1", score_precision="float32", trec_eval="10") == 0.0  # a tie
    with pytest.warns(pdireval.PdirevalWarning, match="float32"):  # not chosen: a warning
        assert value(near, labels, "P_1", trec_eval="9.0.8") == 0.0
    # all_trec of 10.0 adds rbp, rbp_resid and unj_5/10/20
    names = set(pdireval.evaluate(run, "all_trec", qrels=qrels, trec_eval="10")["measure"])
    nine = set(pdireval.evaluate(run, "all_trec", qrels=qrels)["measure"])
    assert names - nine == {"TrecRBP", "TrecRBPResidual", "Unjudged@5", "Unjudged@10", "Unjudged@20"}
    # the trec_eval spellings of parameters
    assert str(parse_measure("utility.1,-1,0,0")) == "utility"
    assert str(parse_measure("utility.2,-1,0,0")) == "utility(a=2)"
    assert str(parse_measure("rbp.p=0.5")) == "TrecRBP(p=0.5)"
    assert str(parse_measure("G.1=3.5")) == "G(gains={1:3.5})"
    assert str(parse_measure("RBP")) == "RBP"  # Moffat & Zobel's binary RBP, p = 0.8
    with pytest.raises(pdireval.MeasureError, match="takes 4 numbers"):
        parse_measure("utility.1,2")


def test_avgjg_with_a_judge_column():
    run, _ = frames([1, 0, 1], {})
    qrels = pd.DataFrame({"query": "1", "judge": ["a", "a", "b", "b"], "doc": ["d0", "d1", "d0", "d2"],
                          "label": [1, 0, 0, 1]})
    scores = pdireval.evaluate(run, ["map_avgjg", "P_avgjg_2"], qrels=qrels)
    assert list(scores.columns) == ["system", "query", "measure", "value"]
    ap_a, ap_b = 1.0, 1 / 3
    assert scores["value"].tolist() == pytest.approx([(ap_a + ap_b) / 2, (0.5 + 0.0) / 2])
    one = qrels[qrels["judge"] == "a"].drop(columns="judge")  # one judge: the base measure
    assert value(run, one, "map_avgjg") == value(run, one, "AP")
    with pytest.raises(pdireval.OptionError, match="judges='mean'"):
        pdireval.evaluate(run, ["map_avgjg", "AP"], qrels=qrels)
    mixed = pdireval.evaluate(run, ["map_avgjg", "AP"], qrels=qrels, judges="mean")
    assert mixed["value"].tolist() == pytest.approx([(ap_a + ap_b) / 2] * 2)


# --------------------------------------------------------------------------- the command's engine


def _against_engine(run, qrels, specs, v10=True, **options):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for _system, one in run.groupby("system"):
            judged = qrels[qrels["query"].isin(set(one["query"]))]  # 10.0: all judged queries answered
            if judged.empty:
                continue
            q, r = write(one, judged, folder)
            ref = parse_q(engine(*(["--v10"] if v10 else []), "-q", *(a for s in specs for a in ("-m", s)), q, r))
            names = sorted({n for n, _ in ref})
            mine = printed(ours_evaluate(one, judged, names, **options))
            assert_matches(ref, mine)


@SETTINGS
@given(collections(require_judged=True))
def test_ten_measures_match_the_command_engine(data):
    run, qrels = data
    specs = [s for group in TEN for s in group]
    _against_engine(run, qrels, specs, trec_eval="10")


@SETTINGS
@given(collections(require_judged=True))
def test_iprec_nine_and_ten_match_the_command_engine(data):
    run, qrels = data
    _against_engine(run, qrels, ["iprec_at_recall", "11pt_avg"], v10=False)
    _against_engine(run, qrels, ["iprec_at_recall", "11pt_avg"], v10=True, trec_eval="10")


@SETTINGS
@given(collections(require_judged=True))
def test_ties_expected_with_ten_rounding_is_the_mean_over_orderings(data):
    from tests.helpers import assert_every_ordering

    run, qrels = data
    run = run[run["system"] == run["system"].iloc[0]]
    run = run.assign(score=run["score"].astype(np.float32).astype(float))  # no float32-only ties
    measures = ["IPrec(trec_eval=10)@0.2", "11pt_avg(trec_eval=10)", "TrecRBP", "TrecRBPResidual"]
    assert_every_ordering(run, qrels, measures, atol=1e-9)


# --------------------------------------------------------------------------- ir_measures

ir_measures = pytest.importorskip("ir_measures")


@SETTINGS
@given(collections(require_judged=True))
def test_unjudged_is_one_minus_ir_measures_judged(data):
    run, qrels = data
    qrels = qrels[qrels["label"] >= 0]  # ir_measures counts a negative label as judged
    run = run.assign(score=-run.groupby(["system", "query"]).cumcount().astype(float))  # no ties
    ours = pdireval.evaluate(run, ["unj_1", "unj_3", "unj_20"], qrels=qrels)
    ir_qrels = qrels.rename(columns={"query": "query_id", "doc": "doc_id", "label": "relevance"})
    rows = []
    for system, one in run.groupby("system"):
        ir_run = one.rename(columns={"query": "query_id", "doc": "doc_id"})[["query_id", "doc_id", "score"]]
        length = one.groupby("query").size()
        for k in (1, 3, 20):
            for metric in ir_measures.iter_calc([ir_measures.Judged @ k], ir_qrels, ir_run):
                # Judged@k divides by min(k, L), unj_k by k (a short list padded with judged)
                shown = min(k, int(length.get(metric.query_id, 0)))
                rows.append((system, metric.query_id, f"unj_{k}", shown * (1.0 - metric.value) / k))
    theirs = pd.DataFrame(rows, columns=["system", "query", "measure", "value"])
    merged = ours.astype({"system": str, "query": str, "measure": str}).merge(
        theirs, on=["system", "query", "measure"], how="inner")
    assert len(merged) == len(theirs) > 0
    assert np.allclose(merged["value_x"], merged["value_y"], atol=1e-12)


# --------------------------------------------------------------------------- the 10.0 binary


def _against_binary(binary, qrels_path, run_path, groups, jg=False, **options):
    run = pdireval.read_run(run_path)
    qrels = pdireval.read_qrels(qrels_path, judges=jg)
    compared = 0
    for specs in groups:
        argv = [binary, "-q", *(["-R", "qrels_jg"] if jg else []), *(a for s in specs for a in ("-m", s)),
                qrels_path, run_path]
        ref = parse_q(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)
        names = sorted({n for n, _ in ref})
        assert_matches(ref, printed(ours_evaluate(run, qrels, names, **options)))
        compared += len(ref)
    return compared


@pytest.fixture(scope="module")
def tied(tmp_path_factory):
    """A simulated collection with score ties (one decimal), graded and negative labels,
    unjudged documents and near-ties that only doubles tell apart."""
    folder = tmp_path_factory.mktemp("tied")
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=15, depth=40, score_decimals=1, rng=23)
    near = run.index[::9]
    run.loc[near, "score"] = 50.0 + 1e-9 * (np.arange(len(near)) % 2)
    q, r = write(run.drop(columns="rank"), qrels, folder)
    lines = Path(q).read_text().splitlines()
    jg = []
    for i, line in enumerate(lines):
        query, _it, doc, rel = line.split()
        jg.append(f"{query} a {doc} {rel}")
        if i % 4:
            jg.append(f"{query} b {doc} {(int(rel) + 1) % 3 if i % 3 == 0 else rel}")
    (folder / "qrels.jg").write_text("\n".join(jg) + "\n")
    return q, r, str(folder / "qrels.jg")


def test_generated_ties_match_the_binary(te10, te9, tied):
    qrels, run, jg = tied
    assert _against_binary(te10, qrels, run, TEN + [("all_trec",)], trec_eval="10") > 1500
    assert _against_binary(te10, jg, run, [JG], jg=True, trec_eval="10") > 100
    assert _against_binary(te9, jg, run, [JG], jg=True) > 100


def test_robust_runs_all_trec_match_the_binary(te10, tmp_path):
    import gzip
    import shutil

    folder = shared_path("robust03", "runs")
    qrels = str(shared_path("robust03", "qrels.txt"))
    compared = 0
    for path in sorted(folder.iterdir()):
        target = tmp_path / path.name.removesuffix(".gz")
        with gzip.open(path, "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
        compared += _against_binary(te10, qrels, str(target), [("all_trec",), ("rbp",)], trec_eval="10")
    assert compared == 17 * 100 * 96
