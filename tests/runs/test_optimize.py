"""Stability-optimal gains and discounts (Kanoulas & Aslam 2009)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import MeasureError, SchemaError
from pdireval.evaluation import prepare
from pdireval.runs.optimize import _grades_of, _Model, _reduce, standard_discount, standard_gain


def engine_phi(run, qrels, measure):
    scores = pdireval.evaluate(run, measure, qrels=qrels)
    return pdireval.reliability(scores)["phi"].iloc[0]


def measure_of(g: dict, d, k):
    dd = ",".join(repr(float(x)) for x in d)
    gg = ",".join(f"{a!r}:{float(b)!r}" for a, b in g.items())
    return f"nDCG(discount=[{dd}],gain={{{gg}}})@{k}"


@pytest.fixture(scope="module")
def sim():
    return pdireval.datasets.simulate(n_systems=7, n_queries=25, depth=40, max_label=3, rng=11)


def test_fast_phi_equals_evaluating_the_runs(sim):
    """The precomputed model gives the engine's nDCG cell by cell, for unordered gains and
    non-monotone discounts (the ideal list then depends on the gains' order)."""
    run, qrels = sim
    p = prepare(run, qrels=qrels)
    grades = _grades_of([p])
    assert grades.tolist() == [1.0, 2.0, 3.0]
    K = 12
    model = _Model([_reduce(p, grades, K, None)], [5, 12], K, None)
    rng = np.random.default_rng(0)
    for _ in range(4):
        g = rng.uniform(0, 1, 3)
        d = rng.uniform(0, 1, K)
        mats = model.matrices(g, d)
        phis = model.phis(g, d)
        for j, k in enumerate([5, 12]):
            m = measure_of(dict(zip([1, 2, 3], g)), d[:k], k)
            scores = pdireval.evaluate(run, m, qrels=qrels)
            wide = scores.pivot(index="query", columns="system", values="value")
            got = pd.DataFrame(mats[j], index=p.segments.judgments.queries, columns=p.segments.systems)
            np.testing.assert_allclose(got.loc[wide.index, wide.columns].to_numpy(), wide.to_numpy(), rtol=1e-12, atol=1e-14)
            assert phis[j] == pytest.approx(pdireval.reliability(scores)["phi"].iloc[0], rel=1e-10)


@pytest.mark.parametrize("what", ["discount", "gain", "both"])
@pytest.mark.parametrize("monotone", [True, False])
def test_never_worse_than_start_and_constraints_hold(sim, what, monotone):
    run, qrels = sim
    res = pdireval.optimize(run, qrels=qrels, k=10, what=what, monotone=monotone)
    row = res.summary.iloc[0]
    assert row["phi"] >= row["phi_start"] - 1e-12
    g, d = res.gains["gain"].to_numpy(), res.discount
    for v in (g, d):
        assert abs(v.sum() - 1) < 1e-9 and (v >= -1e-9).all()
    if monotone:
        assert (np.diff(d) <= 1e-9).all() and (np.diff(g) >= -1e-9).all()
    # the reported Φ is the engine's Φ of the returned measure
    assert row["phi"] == pytest.approx(engine_phi(run, qrels, res.measure()), rel=1e-9)
    assert row["phi_start"] == pytest.approx(
        engine_phi(run, qrels, measure_of({1: 1, 2: 2, 3: 3}, standard_discount("log2", 10), 10)), rel=1e-9
    )
    if what == "discount":
        assert (g == res.gains["gain_start"].to_numpy()).all()
    if what == "gain":
        assert (d == res.discounts["discount_start"].to_numpy()).all()


def constructed(n_systems=6, n_topics=20, seed=0, kind="discount", depth=5):
    """A collection whose best nDCG@5 is known.

    kind="discount": rank 1 holds a relevant document exactly for the good systems (half of
    them), ranks 2-5 are relevant at random (coin flips, independent of the system), and
    every topic has 6 relevant documents (so IDCG = Σ d). Weight on ranks 2-5 only adds
    noise: d = (1, 0, 0, 0, 0) gives Φ = 1, any other vector less.
    kind="gain": rank 1 holds a grade-2 document for good systems (grade 0 for the others),
    ranks 2-5 hold grade-1 documents at random; every topic has 3 grade-2 and 6 grade-1
    documents (so IDCG does not vary across topics). Gains (g1, g2) = (0, 1) give Φ = 1.
    """
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    top = 2 if kind == "gain" else 1
    for t in range(n_topics):
        q = f"t{t}"
        rel_top = [f"{q}-top{i}" for i in range(6 if kind == "discount" else 3)]
        rel_low = [f"{q}-low{i}" for i in range(6)] if kind == "gain" else rel_top
        non = [f"{q}-non{i}" for i in range(10)]
        qrels += [(q, d, top) for d in rel_top] + [(q, d, 1) for d in rel_low if kind == "gain"] + [(q, d, 0) for d in non]
        for s in range(n_systems):
            good = s < n_systems // 2
            docs = [rel_top[0] if good else non[0]]
            pool_rel = rel_low[1:] if kind == "gain" else rel_top[1:]
            for r in range(1, depth):
                docs.append(pool_rel[r] if rng.random() < 0.5 else non[r])
            run += [(f"sys{s}", q, doc, 10.0 - r) for r, doc in enumerate(docs)]
    return (
        pd.DataFrame(run, columns=["system", "query", "doc", "score"]),
        pd.DataFrame(qrels, columns=["query", "doc", "label"]),
    )


def test_recovers_a_known_best_discount():
    run, qrels = constructed(kind="discount")
    res = pdireval.optimize(run, qrels=qrels, k=5, what="discount", n_queries=1)
    assert res.summary["phi_start"].iloc[0] < 0.9  # Φ(1), S3 setting
    assert res.summary["phi"].iloc[0] == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(res.discount, [1.0, 0.0, 0.0, 0.0, 0.0], atol=1e-5)
    assert res.summary["queries_needed"].iloc[0] == 1


def test_recovers_known_best_gains():
    run, qrels = constructed(kind="gain", seed=1)
    res = pdireval.optimize(run, qrels=qrels, k=5, what="gain", discount="log2", n_queries=1)
    assert res.summary["phi_start"].iloc[0] < 0.9  # Φ(1), S3 setting
    assert res.summary["phi"].iloc[0] == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(res.gains["gain"], [0.0, 1.0], atol=1e-5)
    assert res.summary["gain_ratio"].iloc[0] > 1e4  # inf at the exact optimum
    both = pdireval.optimize(run, qrels=qrels, k=5, what="both")
    assert both.summary["phi"].iloc[0] == pytest.approx(1.0, abs=1e-9)


def test_minimax_over_cutoffs_and_collections(sim):
    run, qrels = sim
    run2, qrels2 = pdireval.datasets.simulate(n_systems=5, n_queries=15, depth=30, rng=12)
    runs = pd.concat([run.assign(collection="A"), run2.assign(collection="B")], ignore_index=True)
    qr = pd.concat([qrels.assign(collection="A"), qrels2.assign(collection="B")], ignore_index=True)
    res = pdireval.optimize(runs, qrels=qr, k=[5, 10], what="both", by="collection")
    s = res.summary
    assert list(s["collection"]) == ["A", "A", "B", "B"] and list(s["k"]) == [5, 10, 5, 10]
    assert s["phi"].min() >= s["phi_start"].min() - 1e-12
    # each objective's Φ is the engine's, on its own collection and cut-off
    row = s.iloc[3]
    m = res.measure(10)
    assert row["phi"] == pytest.approx(engine_phi(run2, qrels2, m), rel=1e-9)
    row = s.iloc[0]
    assert row["phi"] == pytest.approx(engine_phi(run, qrels, res.measure(5)), rel=1e-9)
    # with one objective, minimax is plain maximisation: its optimum is at least as good there
    single = pdireval.optimize(run2, qrels=qrels2, k=10, what="both")
    assert single.summary["phi"].iloc[0] >= s.iloc[3]["phi"] - 1e-6


def test_comparison_against_standard_functions(sim):
    from scipy.stats import kendalltau

    run, qrels = sim
    res = pdireval.optimize(run, qrels=qrels, k=10, what="discount")
    comp = res.comparison
    assert list(comp["discount"]) == ["optimal", "log2", "zipf", "linear"]
    assert (comp["gain"] == "linear").all()
    opt = comp.iloc[0]
    assert opt["kendall_tau"] == 1.0 and opt["rmse"] == 0.0
    assert opt["phi"] >= comp["phi"].max() - 1e-12 or opt["phi"] == res.summary["phi"].iloc[0]
    for name, std_measure in (("log2", "nDCG@10"), ("zipf", "nDCG(discount=zipf)@10"), ("linear", "nDCG(discount=linear)@10")):
        row = comp[comp["discount"] == name].iloc[0]
        scores = pdireval.evaluate(run, std_measure, qrels=qrels)
        rel = pdireval.reliability(scores).iloc[0]
        assert row["phi"] == pytest.approx(rel["phi"], rel=1e-10)
        assert row["queries_needed"] == rel["queries_needed"]
        a = pdireval.aggregate(scores).set_index("system")["mean"]
        b = pdireval.aggregate(pdireval.evaluate(run, res.measure(), qrels=qrels)).set_index("system")["mean"]
        assert row["kendall_tau"] == pytest.approx(kendalltau(a, b.loc[a.index]).statistic, abs=1e-12)
    means = res.means
    assert len(means) == 4 * 7 and set(means.columns) >= {"k", "gain", "discount", "system", "mean"}
    gains = pdireval.optimize(run, qrels=qrels, k=10, what="gain").comparison
    assert list(gains["gain"]) == ["optimal", "linear", "exp"]
    row = gains[gains["gain"] == "exp"].iloc[0]
    assert row["phi"] == pytest.approx(engine_phi(run, qrels, "nDCG(gain=exp)@10"), rel=1e-10)


def test_prepared_input_and_accessor(sim):
    run, qrels = sim
    p = prepare(run, qrels=qrels)
    a = pdireval.optimize(p, k=5, what="gain")
    b = run.ireval.optimize(qrels=qrels, k=5, what="gain")
    np.testing.assert_array_equal(a.gains["gain"], b.gains["gain"])


def test_standard_vectors():
    np.testing.assert_allclose(standard_discount("linear", 4), np.array([4, 3, 2, 1]) / 10)
    np.testing.assert_allclose(standard_discount("zipf", 2), [2 / 3, 1 / 3])
    np.testing.assert_allclose(standard_gain("exp", np.array([1.0, 2.0])), [0.25, 0.75])
    np.testing.assert_allclose(standard_gain({1: 1, 2: 1}, np.array([1.0, 2.0])), [0.5, 0.5])


def test_errors(sim):
    run, qrels = sim
    with pytest.raises(ValueError, match="what="):
        pdireval.optimize(run, qrels=qrels, what="gains")
    with pytest.raises(ValueError, match="k="):
        pdireval.optimize(run, qrels=qrels, k=0)
    with pytest.raises(MeasureError, match="discount"):
        pdireval.optimize(run, qrels=qrels, k=3, discount=[1, 2])
    with pytest.raises(MeasureError, match="gain"):
        pdireval.optimize(run, qrels=qrels, k=3, gain="log")
    with pytest.raises(SchemaError, match="by="):
        pdireval.optimize(run, qrels=qrels, k=3, by="collection")
    binary = qrels.assign(label=(qrels["label"] > 0).astype(int))
    with pytest.raises(SchemaError, match="2 relevant grades"):
        pdireval.optimize(run, qrels=binary, k=3, what="gain")
    assert not pdireval.optimize(run, qrels=binary, k=3).gains.empty


@pytest.mark.slow
def test_robust03_twenty_rank_discount(robust03):
    """Kanoulas & Aslam's (2009) setting on real data: the optimum is at least as stable as log2, feasible,
    and its Φ is the engine's Φ of the returned measure."""
    run, qrels = robust03
    graded = qrels[qrels["query"].astype(int) >= 601]
    run = run[run["query"].isin(graded["query"].unique())]
    p = prepare(run, qrels=graded)
    res = pdireval.optimize(p, k=20, what="discount")
    row = res.summary.iloc[0]
    assert row["n_systems"] == 17 and row["n_queries_observed"] == 50
    assert row["phi"] >= row["phi_start"]
    assert row["phi_start"] == pytest.approx(engine_phi(run, graded, "nDCG@20"), rel=1e-10)
    assert row["phi"] == pytest.approx(engine_phi(run, graded, res.measure()), rel=1e-9)
    d = res.discount
    assert abs(d.sum() - 1) < 1e-9 and (np.diff(d) <= 1e-12).all() and (d >= 0).all()


def test_incomplete_prepared_run_names_cells_and_fixes():
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=6, depth=20, rng=3)
    gone = (run["system"] == run["system"].iloc[0]) & (run["query"] == run["query"].iloc[0])
    p = prepare(run[~gone], qrels=qrels, missing="drop")
    with pytest.raises(SchemaError, match="missing='zero'") as err:
        pdireval.optimize(p, k=5)
    assert len(err.value.failure_cases) == 1
    assert err.value.failure_cases.iloc[0].tolist() == [run["system"].iloc[0], run["query"].iloc[0]]


def test_by_with_shared_qrels(sim):
    run, qrels = sim
    systems = sorted(run["system"].unique())
    split = run.assign(collection=np.where(run["system"].isin(systems[:4]), "first", "second"))
    res = pdireval.optimize(split, qrels=qrels, k=5, by="collection")
    assert list(res.summary["collection"]) == ["first", "second"]
    assert list(res.summary["n_systems"]) == [4, 3]
    assert res.summary["phi"].min() >= res.summary["phi_start"].min() - 1e-12
