"""ties="expected" on every measure of the registry: equal to the mean over every ordering of
every tie group (brute force, itertools.permutations), and to the default without ties."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

import pdireval
from pdireval.measures.registry import parse_measure
from pdireval.measures.ties import Groupwise
from pdireval.measures.ties import method_kind as method_of
from pdireval.measures.ties import orderings as tie_orderings
from tests.helpers import (
    assert_every_ordering,
    evaluate_every_tie_ordering,
    expected_name,
    tie_aware_values,
    tied_runs,
)

#: every measure of the registry but the diversity ones (which need subtopics), with
#: parameters and cut-offs that cut tie groups
MEASURES = [
    "11pt_avg", "Accuracy", "Accuracy@3", "AP", "AP@3", "binG", "BPM(T=1)@3", "BPM(T=2,max_rel=3)@4",
    "Bpref", "Bpref@3", "Bpref(variant=10R)", "Compat", "Compat(p=0.5,normalize=false)", "DCG@3",
    "ERR", "ERR@2", "F", "F(beta=2)@3", "G", "G(gains={1:1,2:5,3:7})", "GAP", "gm_bpref", "gm_map",
    "infAP", "INSQ", "INST(T=2)", "IPrec@0", "IPrec@0.3", "IPrec@1", "Judged@3", "nDCG",
    "nDCG(gains={1:1,2:3,3:4})", "nDCG(judged_only=true)@3", "ndcg_rel", "nERR", "nERR@3",
    "NERR10", "NERR11(T=2)", "NERR8@3", "NERR9@4", "NumNonRelJudgedRet", "NumQ", "NumRel",
    "NumRelRet@2", "NumRet", "NumRet@2", "P@2", "Q", "Q(beta=0.5)", "Q@3", "R@3", "RBP", "RBPResidual@4",
    "relative_P@3", "RIC", "Rndcg", "Rprec", "Rprec_mult@0.5", "Rprec_mult@2", "RR", "SDCG@3",
    "SetAP", "SetF", "SetP", "SetR", "SetRelP", "SP@3", "Success@2", "utility",
    "utility(a=2,b=-1,c=1,d=-2,num_docs=20)", "AP(rel=2)", "ERR(negatives=keep)",
    "infAP(negatives=nonrel)", "Q(judged_only=true)", "Rndcg(judged_only=true)", "F(judged_only=true)@3",
    "INSQ(T=2)", "GAP@3", "ndcg_rel(gains={1:2,2:5})", "ndcg_rel(gains={0:-1,1:2,2:5})", "ndcg_rel(judged_only=true)", "ndcg_p", "ndcg_p(gains={1:2,2:5})", "ERR(judged_only=true)@3", "relative_P(judged_only=true)@2",
]
DIVERSITY = ["alpha_DCG@3", "alpha_nDCG@4", "ERR_IA@3", "nERR_IA@5", "NRBP", "nNRBP", "P_IA@3", "AP_IA", "StRecall@2", "alpha_nDCG(judged_only=true)@3"]


def check(run, qrels, measures, atol=1e-9):
    assert_every_ordering(run, qrels, measures, atol)


def fixed_case(seed: int):
    """Two systems, three queries, lists of 7 documents in 2-3 tie groups (with
    2-4 judged documents of mixed grades each), negative labels, unjudged documents."""
    gen = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in ("1", "2", "3"):
        docs = [f"d{i}" for i in range(10)]
        labels = gen.choice([-1, 0, 0, 1, 2, 3], size=8)
        qrels += [(q, d, float(lab)) for d, lab in zip(docs[:8], labels)]
        for s in ("a", "b"):
            picked = gen.choice(docs, size=7, replace=False)
            scores = np.sort(gen.choice([1.0, 2.0, 3.0], size=7))[::-1]
            runs += [(s, q, d, sc) for d, sc in zip(picked, scores)]
    return pd.DataFrame(runs, columns=["system", "query", "doc", "score"]), pd.DataFrame(qrels, columns=["query", "doc", "label"])


@pytest.mark.parametrize("seed, designs", [(0, True), (1, False)])
def test_every_measure_equals_the_mean_over_every_ordering(seed, designs):
    # designs=False: every group alone on truncated copies; True: whole-list cyclic designs
    run, qrels = fixed_case(seed)
    # the case must have what the test is about: several groups with hits in one list
    assert run.groupby(["system", "query"])["score"].nunique().max() >= 2
    if designs:
        check(run, qrels, MEASURES)
    else:
        assert_every_ordering(run, qrels, MEASURES, 1e-9, designs=False)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs())
def test_every_measure_on_generated_lists(data):
    run, qrels = data
    check(run, qrels, MEASURES)


def diversity_case(seed: int):
    gen = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in ("1", "2"):
        docs = [f"d{i}" for i in range(9)]
        for sub in ("1", "2", "3"):
            judged = gen.choice(docs[:7], size=4, replace=False)
            qrels += [(q, sub, d, float(gen.choice([0, 1, 1, 2]))) for d in judged]
        picked = gen.choice(docs, size=6, replace=False)
        scores = np.sort(gen.choice([1.0, 2.0], size=6))[::-1]
        runs += [("s", q, d, sc) for d, sc in zip(picked, scores)]
    return pd.DataFrame(runs, columns=["system", "query", "doc", "score"]), pd.DataFrame(qrels, columns=["query", "subtopic", "doc", "label"])


@pytest.mark.parametrize("seed", [0, 3])
def test_diversity_measures_equal_the_mean_over_every_ordering(seed):
    run, qrels = diversity_case(seed)
    check(run, qrels, DIVERSITY)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10, 22))
def test_diversity_measures_on_more_collections(seed):
    run, qrels = diversity_case(seed)
    check(run, qrels, DIVERSITY)


def test_without_ties_every_measure_equals_the_default():
    run, qrels = fixed_case(4)
    run = run.assign(score=np.arange(len(run), 0, -1, dtype=float))
    names = MEASURES
    default = pdireval.evaluate(run, names, qrels=qrels)
    tie_aware = pdireval.evaluate(run, [expected_name(n) for n in names], qrels=qrels)
    np.testing.assert_allclose(tie_aware["value"].to_numpy(), default["value"].to_numpy(), rtol=0, atol=1e-12)


def test_order_free_measures_equal_the_default_with_ties():
    run, qrels = fixed_case(5)
    names = [m for m in MEASURES if method_of(parse_measure(expected_name(m))) == "invariant"]
    assert {"SetP", "NumRet", "utility", "F"} <= {parse_measure(n).name for n in names}
    default = pdireval.evaluate(run, names, qrels=qrels)
    tie_aware = pdireval.evaluate(run, [expected_name(n) for n in names], qrels=qrels)
    np.testing.assert_array_equal(tie_aware["value"].to_numpy(), default["value"].to_numpy())
    # the proof that they are order-free: every ordering of every tie group gives the default
    every = evaluate_every_tie_ordering(run, qrels, names)
    spread = every.groupby(["system", "query", "measure"])["value"].agg(["min", "max"])
    assert (spread["min"] == spread["max"]).all()
    assert len(every) > 20 * len(default)  # many orderings were tried


def test_every_measure_has_a_method():
    methods = {}
    for text in MEASURES + DIVERSITY:
        m = parse_measure(expected_name(text))
        methods[m.name] = method_of(m)
    assert set(methods.values()) == {"closed", "invariant", "groupwise", "joint"}
    for d in DIVERSITY:  # a diversity measure reads subtopics: every document is its own type
        assert parse_measure(d).definition.ties.otherwise == Groupwise(by="doc"), d


def big_group_case():
    """One list whose 10 documents are all tied, 9 judged with three grades: more distinct
    arrangements (10!/(3!·3!·3!) = 16800) than are enumerated."""
    docs = [f"d{i:02d}" for i in range(10)]
    qrels = pd.DataFrame({"query": "q", "doc": docs[:9], "label": [0.0, 1, 2, 0, 1, 2, 0, 1, 2]})
    run = pd.DataFrame({"system": ["s", "t"] * 10, "query": "q", "doc": np.repeat(docs, 2), "score": 1.0})
    return run, qrels


def test_large_groups_are_sampled_reproducibly_and_close_to_exact():
    run, qrels = big_group_case()
    names = [expected_name(m) for m in ("GAP@5", "INST(T=2)", "IPrec@0.5", "nDCG(gains={1:1,2:3})@4")]
    sampled = pdireval.evaluate(run, names, qrels=qrels)
    # reproducible, and independent of which other lists are evaluated
    again = pdireval.evaluate(run[run["system"] == "t"], names, qrels=qrels)
    np.testing.assert_array_equal(sampled[sampled["system"] == "t"]["value"].to_numpy(), again["value"].to_numpy())
    # the two systems hold the same tie group but draw different orderings
    s, t = (sampled[sampled["system"] == x]["value"].to_numpy() for x in ("s", "t"))
    assert not np.array_equal(s, t)
    def exact_value(name):  # more arrangements enumerated, by IPrec's closed form too
        if name.startswith("IPrec"):
            return tie_aware_values(run, qrels, name, {"exact_limit": 20_000})
        return tie_aware_values(run, qrels, name, exact_limit=20_000)

    exact = pd.concat([exact_value(n).xs("s", level="system") for n in names]).to_numpy()
    np.testing.assert_allclose(s, t := exact, atol=0.02)
    # about 1000 samples: within a few standard errors of the exact value, not equal to it
    assert not np.allclose(s, t, rtol=0, atol=1e-9)


def test_bounds_accept_ties_expected():
    run, qrels = fixed_case(2)
    frame = pdireval.bounds(run, ["nDCG(ties=expected)@5", "AP(ties=expected)"], qrels=qrels)
    values = pdireval.evaluate(run, ["nDCG(ties=expected)@5", "AP(ties=expected)"], qrels=qrels)
    np.testing.assert_allclose(frame["value"].to_numpy(), values["value"].to_numpy(), atol=1e-12)
    assert (frame["ideal"] >= frame["value"] - 1e-12).all()


def discounted_first_relevant(ranked, judged, *, cutoff):
    """A non-separable per-query measure: 1/(rank of the first relevant)², and 0.5 more when
    the top 3 hold two relevant documents."""
    rel = np.flatnonzero(ranked >= 1)
    if len(rel) == 0:
        return 0.0
    return 1.0 / (rel[0] + 1.0) ** 2 + (0.5 if np.sum(ranked[:3] >= 1) >= 2 else 0.0)


def test_user_defined_measures_take_ties_expected():
    name = pdireval.register_measure("UFirstRel", discounted_first_relevant, replace=True)
    try:
        assert parse_measure("UFirstRel(ties=expected)").get("ties") == "expected"
        assert method_of(parse_measure("UFirstRel(ties=expected)")) == "joint"
        run, qrels = fixed_case(6)
        check(run, qrels, ["UFirstRel"])
        with pytest.raises(pdireval.MeasureError, match="reserved"):
            pdireval.register_measure("UTies", discounted_first_relevant, params={"ties": 1.0})
    finally:
        pdireval.unregister_measure(name)


def test_dask_gives_the_same_tie_aware_values():
    dd = pytest.importorskip("dask.dataframe")
    pdask = pytest.importorskip("pdireval.dask")
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=8, depth=30, score_decimals=0, rng=4)
    names = [expected_name(m) for m in ("AP", "ERR@10", "INST", "IPrec@0.2", "Bpref")]
    ours = pdireval.evaluate(run, names, qrels=qrels)
    theirs = pdask.evaluate(dd.from_pandas(run, npartitions=3), names, qrels=qrels)
    theirs = theirs.compute() if hasattr(theirs, "compute") else theirs
    both = ours.merge(theirs, on=["system", "query", "measure"])
    assert len(both) == len(ours)
    np.testing.assert_array_equal(both["value_x"].to_numpy(), both["value_y"].to_numpy())


def test_interpolated_precision_samples_large_groups():
    # 16 tied documents, 6 relevant: C(16, 6) = 8008 placements, more than are enumerated
    docs = [f"d{i:02d}" for i in range(16)]
    qrels = pd.DataFrame({"query": "q", "doc": docs[:12], "label": [1.0, 0.0] * 6})
    run = pd.DataFrame({"system": "s", "query": "q", "doc": docs, "score": 1.0})
    names = [expected_name(m) for m in ("IPrec@0.5", "11pt_avg")]
    sampled = pdireval.evaluate(run, names, qrels=qrels)["value"].to_numpy()
    again = pdireval.evaluate(run, names, qrels=qrels)["value"].to_numpy()
    np.testing.assert_array_equal(sampled, again)
    exact = np.array([
        tie_aware_values(run, qrels, n, form_options={"exact_limit": 10_000}).iloc[0] for n in names
    ])
    np.testing.assert_allclose(sampled, exact, atol=0.02)
    assert not np.allclose(sampled, exact, rtol=0, atol=1e-12)
    # the exact value against a direct enumeration of the placements of the relevant documents

    total = 0.0
    placements = list(itertools.combinations(range(16), 6))
    for slots in placements:
        precisions = [(i + 1) / (p + 1) for i, p in enumerate(slots)]
        total += max(precisions[2:])  # c = floor(0.5·6 + 0.9) = 3: the 3rd relevant and deeper
    assert exact[0] == pytest.approx(total / len(placements), abs=1e-12)


def test_group_shapes_and_counts_match_their_direct_computation():
    from scipy.special import gammaln

    gen = np.random.default_rng(0)
    for width, top in ((2, 9), (4, 3000), (12, 40)):  # the last one: too wide for one integer code
        mat = gen.integers(0, top, size=(500, width))
        mat[::7] = mat[3]  # repeated rows
        shapes, inverse = tie_orderings._row_codes(mat)
        want, want_inverse = np.unique(mat, axis=0, return_inverse=True)
        np.testing.assert_array_equal(shapes, want)
        np.testing.assert_array_equal(inverse, want_inverse.reshape(-1))
    k = gen.integers(0, 5000, size=300)
    np.testing.assert_array_equal(tie_orderings._log_factorial(k), gammaln(k + 1.0))


def test_every_measure_with_one_judged_document_per_tie_group():
    # sparse judgments (the MS MARCO shape): every tie group holds at most one judged document
    gen = np.random.default_rng(7)
    runs, qrels = [], []
    for q in ("1", "2", "3"):
        docs = [f"d{i}" for i in range(8)]
        scores = [3.0, 3.0, 3.0, 2.0, 2.0, 1.0, 1.0, 1.0]
        runs += [("s", q, d, sc) for d, sc in zip(docs, scores)]
        for group in (docs[:3], docs[3:5], docs[5:]):
            qrels.append((q, str(gen.choice(group)), float(gen.choice([0, 1, 2]))))
    run = pd.DataFrame(runs, columns=["system", "query", "doc", "score"])
    qrels = pd.DataFrame(qrels, columns=["query", "doc", "label"])
    from pdireval.evaluation import prepare

    units = tie_orderings.tie_units(prepare(run, qrels=qrels).segments)
    assert (units.n_hits == 1).all() and len(units.n_hits) == 9
    check(run, qrels, MEASURES)
