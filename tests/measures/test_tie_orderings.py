"""The enumeration of tie orderings (pdireval.measures.ties.orderings): large groups sampled
reproducibly, group shapes and counts, user measures, bounds= and Dask with ties="expected".
Every registered measure against the mean over every ordering: tests/measures/test_ties.py."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.measures.registry import parse_measure
from pdireval.measures.ties import method_kind as method_of
from pdireval.measures.ties import orderings as tie_orderings
from tests.helpers import (
    assert_every_ordering,
    expected_name,
    small_tied_case,
    tie_aware_values,
)


def check(run, qrels, measures, atol=1e-9):
    assert_every_ordering(run, qrels, measures, atol)


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
    run, qrels = small_tied_case(2)
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
        run, qrels = small_tied_case(6)
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
