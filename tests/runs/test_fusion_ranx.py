"""fuse() against ranx.fuse on the same runs (every method and normalisation ranx has), by
hand on small lists, and its option checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import OptionError, SchemaError

# ranx's own numba kernels warn while compiling (conftest's ranx fixture compiles most of them;
# a fusion path it did not warm compiles in the first test that takes it). Every test that
# touches ranx takes the session fixture ``ranx`` and is marked slow; the others run without it.
pytestmark = pytest.mark.filterwarnings("ignore:.*unsafe cast from uint64 to int64")

W = [0.1, 0.2, 0.3, 0.4]
NORMS = ["min-max", "zmuv", "sum", "max", "rank", "borda", None]


@pytest.fixture(scope="module")
def run():
    run, _ = pdireval.datasets.simulate(n_systems=4, n_queries=8, depth=30, score_decimals=None, rng=3)
    # lists of different lengths: one system returns only its top 12, another its top 20
    run = run[~((run.system == "sys02") & (run["rank"] > 12)) & ~((run.system == "sys04") & (run["rank"] > 20))]
    return run.reset_index(drop=True)


def ranx_runs_of(ranx, run):
    """One ranx.Run per system of ``run`` (ranx's Run sorts each list by score; the runs here have
    no score ties, so both tools read the same order)."""
    ranx_runs = []
    for system, group in run.groupby("system", observed=True):
        d = {
            str(q): dict(zip(g["doc"].astype(str), g["score"].astype(float)))
            for q, g in group.groupby("query", observed=True)
        }
        ranx_runs.append(ranx.Run(d, name=str(system)))
    return ranx_runs


@pytest.fixture(scope="module")
def runs(run, ranx):
    return run, ranx_runs_of(ranx, run)


def as_dict(fused):
    return {(q, d): s for q, d, s in zip(fused["query"].astype(str), fused["doc"].astype(str), fused["score"])}


def ranx_dict(ranx, ranx_runs, method, norm, params):
    res = ranx.fuse(ranx_runs, norm=norm, method=method, params=params)
    return {(q, d): s for q, docs in res.to_dict().items() for d, s in docs.items()}


CASES = [
    ("rrf", None, {"k": 60}, {"k": 60}),
    ("rrf", None, {"k": 5}, {"k": 5}),
    ("isr", None, {}, {}),
    ("log_isr", None, {}, {}),
    ("bordafuse", None, {}, {}),
    ("w_bordafuse", None, {"weights": W}, {"weights": W}),
    ("rbc", None, {"phi": 0.9}, {"phi": 0.9}),
    ("rbc", None, {"phi": 0.5}, {"phi": 0.5}),
]
for _norm in NORMS:
    for _m in ("sum", "mnz", "anz", "max", "min", "med"):
        CASES.append((_m, _norm, {}, {"norm": _norm}))
    CASES.append(("wsum", _norm, {"weights": W}, {"norm": _norm, "weights": W}))
    CASES.append(("wmnz", _norm, {"weights": W}, {"norm": _norm, "weights": W}))


@pytest.mark.slow  # ranx: its numba kernels compile on first use (conftest's session fixture)
@pytest.mark.parametrize("ranx_method, norm, params, ours", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_matches_ranx(runs, ranx, ranx_method, norm, params, ours):
    run, ranx_runs = runs
    expected = ranx_dict(ranx, ranx_runs, ranx_method, norm, params)
    fused = pdireval.fuse(run, ranx_method, **ours)
    got = as_dict(fused)
    assert set(got) == set(expected)
    keys = sorted(expected)
    np.testing.assert_allclose([got[k] for k in keys], [expected[k] for k in keys], rtol=1e-12, atol=1e-12)
    # a run frame in trec_eval order of the fused score
    assert list(fused.columns) == ["system", "query", "doc", "score", "rank"]
    for _, part in fused.groupby("query", sort=False):
        assert part["rank"].tolist() == list(range(1, len(part) + 1))
        assert (np.diff(part["score"].to_numpy()) <= 0).all()


def test_pdireval_names_equal_ranx_names(run):
    pairs = [("combsum", "wsum"), ("combmnz", "mnz"), ("borda", "bordafuse"), ("combmax", "max")]
    for ours, theirs in pairs:
        a, b = pdireval.fuse(run, ours), pdireval.fuse(run, theirs)
        np.testing.assert_array_equal(a["score"].to_numpy(), b["score"].to_numpy())


def test_hand_computed_rank_methods():
    run = pd.DataFrame({
        "system": ["A", "A", "A", "B", "B"],
        "query": "q",
        "doc": ["d1", "d2", "d3", "d2", "d4"],
        "rank": [1, 2, 3, 1, 2],
    })
    rrf = as_dict(pdireval.fuse(run, "rrf", k=1))
    assert rrf[("q", "d2")] == pytest.approx(1 / 3 + 1 / 2)
    assert rrf[("q", "d1")] == pytest.approx(1 / 2)
    assert rrf[("q", "d4")] == pytest.approx(1 / 3)
    isr = as_dict(pdireval.fuse(run, "isr"))
    assert isr[("q", "d2")] == pytest.approx((1 / 4 + 1) * 2)
    assert isr[("q", "d3")] == pytest.approx(1 / 9)
    log_isr = as_dict(pdireval.fuse(run, "log_isr"))
    assert log_isr[("q", "d2")] == pytest.approx((1 / 4 + 1) * np.log(2)) and log_isr[("q", "d1")] == 0
    # Borda: |U| = 4; A gives 4, 3, 2 and (4 - 3 + 1)/2 = 1 to d4; B gives 4, 3 and (4 - 2 + 1)/2 = 1.5
    borda = as_dict(pdireval.fuse(run, "borda"))
    assert borda == {("q", "d1"): 4 + 1.5, ("q", "d2"): 3 + 4, ("q", "d3"): 2 + 1.5, ("q", "d4"): 1 + 3}
    wb = as_dict(pdireval.fuse(run, "borda", weights={"A": 2, "B": 0}))
    assert wb[("q", "d4")] == 2.0 and wb[("q", "d1")] == 8.0
    rbc = as_dict(pdireval.fuse(run, "rbc", phi=0.5))
    assert rbc[("q", "d2")] == pytest.approx(0.5 * 0.5 + 0.5)
    wrrf = as_dict(pdireval.fuse(run, "rrf", k=0, weights=[1, 3]))
    assert wrrf[("q", "d2")] == pytest.approx(1 / 2 + 3 / 1)


def test_hand_computed_score_methods():
    run = pd.DataFrame({
        "system": ["A", "A", "A", "B", "B"],
        "query": "q",
        "doc": ["d1", "d2", "d3", "d2", "d4"],
        "score": [5.0, 3.0, 1.0, 4.0, 2.0],
    })
    # min-max: A d1 1, d2 .5, d3 0; B d2 1, d4 0
    med = as_dict(pdireval.fuse(run, "combmed"))
    assert med == {("q", "d1"): 1.0, ("q", "d2"): 0.75, ("q", "d3"): 0.0, ("q", "d4"): 0.0}
    assert as_dict(pdireval.fuse(run, "combmin"))[("q", "d2")] == 0.5
    assert as_dict(pdireval.fuse(run, "combmax"))[("q", "d2")] == 1.0
    z = as_dict(pdireval.fuse(run, "combsum", norm="z-score"))
    a = np.array([5.0, 3.0, 1.0])
    assert z[("q", "d1")] == pytest.approx((5 - a.mean()) / a.std())
    wmnz = as_dict(pdireval.fuse(run, "combmnz", weights=[0.25, 0.75]))
    assert wmnz[("q", "d2")] == pytest.approx((0.5 + 1.0) * (0.25 + 0.75))
    assert wmnz[("q", "d1")] == pytest.approx(1.0 * 0.25)
    # all scores equal in a list: min-max gives 1.0 (ranx: 0), so a one-document list counts
    one = pd.DataFrame({"system": ["A", "B", "B"], "query": "q", "doc": ["d1", "d1", "d2"], "score": [7.0, 2.0, 1.0]})
    assert as_dict(pdireval.fuse(one, "combsum"))[("q", "d1")] == 2.0


def test_row_order_and_renaming_invariance():
    run, _ = pdireval.datasets.simulate(n_systems=3, n_queries=4, depth=15, rng=11)  # with score ties
    a = pdireval.fuse(run, "rrf")
    shuffled = run.sample(frac=1.0, random_state=1).rename(columns={"doc": "docno"})
    b = pdireval.fuse(shuffled, "rrf", columns={"doc": "docno"})
    pd.testing.assert_frame_equal(a, b)
    before = run.copy()
    pdireval.fuse(run, "combmnz", norm="zmuv", weights=[1, 2, 3])
    pd.testing.assert_frame_equal(run, before)


def test_rank_only_runs():
    run, _ = pdireval.datasets.simulate(n_systems=3, n_queries=4, depth=15, rng=11)
    ranked = run.drop(columns="score")
    for method in ("rrf", "isr", "log_isr", "borda", "rbc"):
        pd.testing.assert_frame_equal(pdireval.fuse(ranked, method), pdireval.fuse(run.sort_values(["system", "query", "rank"]).assign(score=lambda f: -f["rank"].astype(float)), method))
    pdireval.fuse(ranked, "combsum", norm="rank")  # rank and borda norms need no scores
    with pytest.raises(SchemaError, match="only a 'rank' column"):
        pdireval.fuse(ranked, "combsum")


def test_option_errors():
    run, _ = pdireval.datasets.simulate(n_systems=3, n_queries=2, depth=5, rng=1)
    with pytest.raises(OptionError, match="method= must be one of"):
        pdireval.fuse(run, "bayes")
    with pytest.raises(OptionError, match="norm= must be one of"):
        pdireval.fuse(run, "combsum", norm="l2")
    with pytest.raises(OptionError, match="takes no weights"):
        pdireval.fuse(run, "combmax", weights=[1, 1, 1])
    with pytest.raises(OptionError, match="3 systems are fused"):
        pdireval.fuse(run, "combsum", weights=[1, 1])
    with pytest.raises(OptionError, match="missing"):
        pdireval.fuse(run, "combsum", weights={"sys01": 1})
    with pytest.raises(OptionError, match="non-negative"):
        pdireval.fuse(run, "rrf", weights=[1, -1, 1])
    with pytest.raises(TypeError, match="weights= must be"):
        pdireval.fuse(run, "rrf", weights="equal")
    with pytest.raises(OptionError, match="k= "):
        pdireval.fuse(run, "rrf", k=-1)
    with pytest.raises(OptionError, match="phi= "):
        pdireval.fuse(run, "rbc", phi=1.0)


def test_montague_bounds_still_work():
    run, _ = pdireval.datasets.simulate(n_systems=3, n_queries=3, depth=10, rng=2)
    qrels = pdireval.datasets.simulate(n_systems=3, n_queries=3, depth=10, rng=2)[1]
    for method in ("naive", "pareto", "majoritarian", "condorcet"):
        fused = pdireval.fuse(run, method, qrels=qrels)
        assert len(fused) == len(run[["query", "doc"]].drop_duplicates())


@pytest.mark.slow  # reads Robust 2003 and uses ranx
def test_score_methods_match_ranx_on_robust03(robust03, ranx):
    """Real runs have score ties; the score-based methods do not read positions, so they must
    equal ranx whatever order either tool gives tied documents."""
    run, _ = robust03
    three = run[run["system"].isin(["pircRBa1", "aplrob03a", "uwmtCR0"]) & (run["rank"] <= 100)]
    ranx_runs = ranx_runs_of(ranx, three)
    for method in ("sum", "mnz", "anz", "max", "min", "med", "wsum"):
        for norm in ("min-max", "zmuv", "sum", "max", None):
            params = {"weights": [0.2, 0.3, 0.5]} if method == "wsum" else {}
            expected = ranx_dict(ranx, ranx_runs, method, norm, params)
            got = as_dict(pdireval.fuse(three, method, norm=norm, **params))
            assert set(got) == set(expected)
            keys = sorted(expected)
            np.testing.assert_allclose([got[k] for k in keys], [expected[k] for k in keys], rtol=1e-12, atol=1e-12,
                                       err_msg=f"{method} {norm}")


@pytest.mark.slow
def test_condorcet_and_constant_min_max_differ_from_ranx_as_documented(ranx):
    """docs/coming-from.md states the two differences from ranx.fuse with these examples."""
    def fused_both(lists, method, norm):
        rows, ranx_runs = [], []
        for system, scores in lists.items():
            ranx_runs.append(ranx.Run({"1": dict(scores)}, name=system))
            rows += [(system, "1", d, s) for d, s in scores.items()]
        run = pd.DataFrame(rows, columns=["system", "query", "doc", "score"])
        ours = pdireval.fuse(run, method, norm=norm)
        theirs = ranx.fuse(ranx_runs, method=method, norm=norm).to_dict()["1"]
        return ours, theirs

    lists = {"S1": {"a": 2.0, "b": 1.0}, "S2": {"b": 2.0, "a": 1.0}, "S3": {"c": 1.0}}
    ours, theirs = fused_both(lists, "condorcet", None)
    # pdireval: a and b tie 1-1 (S3 retrieved neither and casts no vote): doc-id order, and the
    # same whatever the order of the input lists
    assert ours["doc"].tolist() == ["a", "b", "c"]
    backwards, _ = fused_both(dict(reversed(list(lists.items()))), "condorcet", None)
    assert backwards["doc"].tolist() == ["a", "b", "c"]
    # ranx answers "before" for both orders of the tie: a and b get distinct scores anyway
    assert theirs["a"] != theirs["b"] and theirs["c"] < min(theirs["a"], theirs["b"])
    ours, theirs = fused_both({"S1": {"a": 1.0, "b": 1.0}, "S2": {"c": 3.0, "d": 3.0}}, "max", "min-max")
    assert (ours["score"] == 1.0).all() and len(ours) == 4
    assert set(theirs.values()) == {0.0} and len(theirs) == 4


def test_the_docstring_names_as_equal_to_ranx_exactly_the_methods_tested_equal():
    """Issue 33: fuse's docstring listed CondorcetFuse among the methods equal to ranx.fuse;
    the methods CASES checks against ranx are the rank and score methods, not the comparator
    ones (Condorcet differs by design: test_condorcet_and_constant_min_max_differ_...)."""
    from pdireval.runs.fusion_lists import COMPARATOR_METHODS, RANK_METHODS, SCORE_METHODS
    from pdireval.runs.fusion_options import resolve_method

    tested = {resolve_method(case[0]) for case in CASES}
    assert tested == set(RANK_METHODS) | set(SCORE_METHODS)
    assert not tested & set(COMPARATOR_METHODS)
    doc = " ".join(pdireval.fuse.__doc__.split())
    claim = doc[doc.index("For lists without score ties") : doc.index("CondorcetFuse is")]
    for label in ("RRF", "ISR", "log_ISR", "BordaFuse", "RBC", "Comb*", "equal ``ranx.fuse``"):
        assert label in claim
    assert "Condorcet" not in claim and "CondorcetFuse is Montague & Aslam's (2002)" in doc
