"""Measure selection under training and the Cranfield experiment."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pdireval
from examples.cranfield_grid import TermIndex, grid_run, pooled_qrels, tokenize
from pdireval.datasets import read_cranfield
from pdireval.errors import SchemaError
from tests.helpers import quietly


def _scores(table: dict) -> pd.DataFrame:
    """{(system, measure): [values per query q1..qn]} -> scores frame."""
    rows = []
    for (system, measure), values in table.items():
        for i, v in enumerate(values):
            rows.append({"system": system, "query": f"q{i}", "measure": measure, "value": v})
    return pd.DataFrame(rows)


@pytest.fixture()
def grid_scores():
    rng = np.random.default_rng(0)
    table = {}
    for s in ("s0", "s1", "s2"):
        for m in ("AP", "Bpref"):
            table[(s, m)] = list(rng.random(8))
    return _scores(table)


def test_train_test_by_hand(grid_scores):
    train = [f"q{i}" for i in range(4)]
    test = [f"q{i}" for i in range(4, 8)]
    out = pdireval.train_by_measure(grid_scores, train=train, test=test, params={"s0": 0.1, "s1": 0.5, "s2": 0.9})
    matrix = grid_scores.pivot_table(index=["measure", "query"], columns="system", values="value")
    for fold, (tr, te) in enumerate([(train, test), (test, train)]):
        best = {m: matrix.loc[m].loc[tr].mean().idxmax() for m in ("AP", "Bpref")}
        for m in ("AP", "Bpref"):
            for x in ("AP", "Bpref"):
                row = out[(out["fold"] == fold) & (out["train_measure"] == m) & (out["eval_measure"] == x)]
                assert len(row) == 1
                row = row.iloc[0]
                assert row["system"] == best[m] and row["reference_system"] == best["AP"]
                assert row["param"] == {"s0": 0.1, "s1": 0.5, "s2": 0.9}[best[m]]
                a = matrix.loc[x].loc[te, best[m]].to_numpy()
                b = matrix.loc[x].loc[te, best["AP"]].to_numpy()
                assert row["value"] == pytest.approx(a.mean()) and row["reference_value"] == pytest.approx(b.mean())
                if best[m] != best["AP"]:
                    want = quietly(stats.wilcoxon, a, b)
                    assert row["p_value"] == pytest.approx(want.pvalue)
                else:
                    assert row["p_value"] == 1.0
    assert list(out.columns) == ["fold", "train_measure", "eval_measure", "system", "param", "value",
                                 "reference_system", "reference_value", "statistic", "p_value", "n_test_queries"]
    pd.testing.assert_frame_equal(grid_scores.ireval.train_by_measure(train=train, test=test, params={"s0": 0.1, "s1": 0.5, "s2": 0.9}), out)


def test_train_test_ties_pick_the_first_system():
    scores = _scores({("b", "AP"): [0.5, 0.5, 0.1, 0.2], ("a", "AP"): [0.5, 0.5, 0.3, 0.3]})
    out = pdireval.train_by_measure(scores, train=["q0", "q1"], test=["q2", "q3"], swap=False)
    assert out["system"].tolist() == ["a"]


def test_train_test_errors(grid_scores):
    with pytest.raises(SchemaError, match="disjoint"):
        pdireval.train_by_measure(grid_scores, train=["q0", "q1"], test=["q1", "q2"])
    with pytest.raises(SchemaError, match="not in the scores"):
        pdireval.train_by_measure(grid_scores, train=["q0", "zz"], test=["q2"])
    with pytest.raises(SchemaError, match="reference"):
        pdireval.train_by_measure(grid_scores, train=["q0"], test=["q2"], reference="nDCG")
    with pytest.raises(SchemaError, match="lacks the setting"):
        pdireval.train_by_measure(grid_scores, train=["q0"], test=["q2"], params={"s0": 1.0})
    with pytest.raises(TypeError):
        pdireval.train_by_measure(grid_scores, train="q0", test=["q2"])


def _variant_results():
    """Training scores with level/repeat variants: Bpref picks a fixed setting, AP wanders."""
    rows = []
    systems = {"s0": 0.0, "s1": 0.5, "s2": 1.0}
    for level in (5, 50):
        for rep in range(4):
            for s, _theta in systems.items():
                for q in range(4):
                    ap = 1.0 if s == ["s0", "s1", "s2", "s1"][rep] else 0.2
                    bp = 1.0 if s == "s2" else 0.1
                    rows.append({"system": s, "query": f"q{q}", "measure": "AP", "level": level, "repeat": rep, "value": ap})
                    rows.append({"system": s, "query": f"q{q}", "measure": "Bpref", "level": level, "repeat": rep, "value": bp})
    train_scores = pd.DataFrame(rows)
    rng = np.random.default_rng(3)
    full = _scores({(s, m): list(rng.random(8)) for s in systems for m in ("AP", "Bpref")})
    return full, train_scores, systems


def test_training_stability_and_sign_counts():
    full, train_scores, systems = _variant_results()
    res = pdireval.train_by_measure(full, train=[f"q{i}" for i in range(4)], test=[f"q{i}" for i in range(4, 8)],
                              params={s: {"b": v} for s, v in systems.items()}, train_scores=train_scores, swap=False)
    st = pdireval.training_stability(res, "b")
    assert len(st) == 2 and set(st["level"]) == {5, 50}
    row = st.iloc[0]
    # Bpref chose s2 (b = 1) every time: sd 0 -> inf; AP chose s0, s1, s2, s1 -> b = 0, .5, 1, .5
    assert row["inv_sigma_opt"] == math.inf
    assert row["inv_sigma_opt_reference"] == pytest.approx(1 / np.std([0, 0.5, 1, 0.5], ddof=1))
    # 1/σ_diff(MAP) = 1/sd |MAP(MAP) - MAP(Bpref)| over the repeats, on the full test scores
    test_q = [f"q{i}" for i in range(4, 8)]
    test_ap = full[(full["measure"] == "AP") & full["query"].isin(test_q)].groupby("system")["value"].mean()
    test_bp = full[(full["measure"] == "Bpref") & full["query"].isin(test_q)].groupby("system")["value"].mean()
    chosen_ap = ["s0", "s1", "s2", "s1"]
    d_map = [abs(test_ap[c] - test_ap["s2"]) for c in chosen_ap]
    d_m = [abs(test_bp[c] - test_bp["s2"]) for c in chosen_ap]
    assert row["inv_sigma_diff_reference"] == pytest.approx(1 / np.std(d_map, ddof=1))
    assert row["inv_sigma_diff"] == pytest.approx(1 / np.std(d_m, ddof=1))
    counts = pdireval.stability_sign_test(st, ranges=((0, 10), (10, 100)))
    opt_all = counts[(counts["quantity"] == "sigma_opt") & (counts["levels"] == "all")].iloc[0]
    assert (opt_all["n_greater"], opt_all["n_less"], opt_all["n_cases"]) == (2, 0, 2)
    assert opt_all["p_value"] == pytest.approx(stats.binomtest(2, 2).pvalue)
    low = counts[(counts["quantity"] == "sigma_opt") & (counts["levels"] == "0<x<=10")].iloc[0]
    assert low["n_cases"] == 1


@pytest.mark.parametrize("a, b, mark", [(57, 7, "≫"), (34, 30, ""), (18, 6, ">"), (17, 7, ""), (27, 13, ">"), (24, 16, "")])
def test_seed004_table_marks(a, b, mark):
    """He et al. (2008, Tables 4-5) marks from the two-sided exact sign test."""
    stab = pd.DataFrame({"level": np.arange(a + b, dtype=float), "measure": "Bpref", "parameter": "b",
                         "inv_sigma_opt": np.r_[np.full(a, 2.0), np.full(b, 1.0)], "inv_sigma_opt_reference": 1.5,
                         "inv_sigma_diff": np.inf, "inv_sigma_diff_reference": np.inf})
    row = pdireval.stability_sign_test(stab, ranges=()).iloc[0]
    got = "≫" if row["p_value"] < 0.01 else ">" if row["p_value"] < 0.05 else ""
    assert (row["n_greater"], row["n_less"], got) == (a, b, mark)
    diff = pdireval.stability_sign_test(stab, ranges=()).iloc[1]
    assert (diff["n_greater"], diff["n_less"], diff["p_value"]) == (0, 0, 1.0)  # inf = inf ties


# --------------------------------------------------------------------------- Cranfield


@pytest.fixture(scope="module")
def cranfield():
    from tests.helpers import shared_path

    return read_cranfield(shared_path("cranfield"))


def test_read_cranfield(cranfield):
    docs, queries, qrels = cranfield
    assert len(docs) == 1400 and len(queries) == 225
    assert queries["query"].tolist() == [str(i) for i in range(1, 226)]
    assert queries["qid_in_file"].iloc[2] == "004"  # .I numbers skip: the qrels use file order
    q1 = qrels[qrels["query"] == "1"].set_index("doc")
    assert q1.loc["184", "label"] == 3.0  # code 2 -> 5 - 2
    assert q1.loc["13", "label"] == 1.0  # code 4 (minimum interest)
    assert np.isnan(q1.loc["486", "label"]) and q1.loc["486", "code"] == -1
    assert set(qrels["label"].dropna()) == {1.0, 2.0, 3.0, 4.0}
    assert docs["text"].iloc[0].startswith("experimental investigation of the aerodynamics")


def test_bm25_and_lm_scores_by_hand(cranfield):
    docs, queries, _ = cranfield
    index = TermIndex(docs.iloc[:200], "text")
    run = grid_run(index, queries.iloc[:3], params={"b": [0.3], "k1": [1.5]}, depth=5)
    lm = grid_run(index, queries.iloc[:3], model="lm", params={"mu": [300]}, depth=5)
    toks = [tokenize(t) for t in docs["text"].iloc[:200]]
    lens = np.array([len(t) for t in toks], dtype=float)
    n = len(toks)
    cf_total = lens.sum()
    for (qid, qtext) in zip(queries["query"].iloc[:3], queries["text"].iloc[:3]):
        qt = tokenize(qtext)
        for r in run[run["query"] == qid].itertuples():
            d = int(np.flatnonzero(docs["doc"].iloc[:200].to_numpy() == r.doc)[0])
            want = 0.0
            for t in qt:
                tf = toks[d].count(t)
                if tf:
                    df = sum(t in x for x in toks)
                    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                    want += idf * tf * 2.5 / (tf + 1.5 * (0.7 + 0.3 * lens[d] / lens.mean()))
            assert r.score == pytest.approx(want)
        for r in lm[lm["query"] == qid].itertuples():
            d = int(np.flatnonzero(docs["doc"].iloc[:200].to_numpy() == r.doc)[0])
            want = 0.0
            for t in qt:
                if t in index.vocabulary:
                    pc = sum(x.count(t) for x in toks) / cf_total
                    want += math.log((toks[d].count(t) + 300 * pc) / (lens[d] + 300)) - math.log(pc)
            assert r.score == pytest.approx(want)
    assert run.groupby("query")["rank"].apply(lambda r: r.tolist() == list(range(1, len(r) + 1))).all()
    assert (run.groupby("query")["score"].apply(lambda s: s.is_monotonic_decreasing)).all()
    assert list(run.columns) == ["system", "query", "doc", "score", "rank", "k1", "b"]
    assert run["system"].iloc[0] == "bm25(b=0.3,k1=1.5)"


def test_pooled_qrels():
    run = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "query": "1", "doc": ["x", "y", "z", "y", "w", "v"],
                        "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"query": ["1", "1"], "doc": ["y", "q"], "label": [2.0, 1.0]})
    out = pooled_qrels(run, qrels, depth=2)
    assert dict(zip(out["doc"], out["label"])) == {"q": 1.0, "w": 0.0, "x": 0.0, "y": 2.0}


def test_cranfield_end_to_end(cranfield):
    docs, queries, qrels = cranfield
    index = TermIndex(docs, ("title", "text"))
    run = grid_run(index, queries, params={"b": [0.2, 0.5, 0.8]}, depth=50)
    pq = pooled_qrels(run, qrels, depth=10)
    full = pdireval.evaluate(run, ["AP", "Bpref", "nDCG"], qrels=pq)
    ids = sorted(pq["query"].unique(), key=int)
    sub = pdireval.subsample_qrels(pq, levels=(5, 50), n_resamples=3, rng=1, mode="unjudged")
    var = pdireval.evaluate_variants(run, ["AP", "Bpref", "nDCG"], sub)
    res = pdireval.train_by_measure(full, train=ids[:112], test=ids[112:], params=run[["system", "b"]].drop_duplicates(), train_scores=var)
    assert len(res) == 2 * 2 * 3 * 3 * 3
    st = pdireval.training_stability(res, "b")
    assert len(st) == 2 * 2 * 2
    assert (pdireval.stability_sign_test(st)["n_cases"] <= 4).all()


def test_identical_settings_give_infinite_inverse_sigma():
    """Ten times b = 0.3 has a floating-point sd of ~6e-17; 1/σ must still be ∞ (a tie)."""
    rows = []
    for rep in range(10):
        for m, b in (("AP", 0.3 if rep else 0.7), ("Bpref", 0.3)):
            for x in ("AP", "Bpref"):
                rows.append({"fold": 0, "level": 5, "repeat": rep, "train_measure": m, "eval_measure": x,
                             "system": f"s{b}", "b": b, "value": 0.3, "reference_system": "s", "reference_value": 0.3,
                             "statistic": 0.0, "p_value": 1.0, "n_test_queries": 3})
    st = pdireval.training_stability(pd.DataFrame(rows), "b")
    row = st.iloc[0]
    assert row["inv_sigma_opt"] == math.inf
    assert row["inv_sigma_opt_reference"] == pytest.approx(1 / np.std([0.7] + [0.3] * 9, ddof=1))
    assert row["inv_sigma_diff"] == math.inf and row["inv_sigma_diff_reference"] == math.inf
    one = pdireval.training_stability(pd.DataFrame(rows)[lambda f: f["repeat"] == 0], "b")
    assert np.isnan(one["inv_sigma_opt"].iloc[0])  # one repeat: sd undefined
