"""ties="expected" (McSherry & Najork 2008): a hand example, the default when there are no
ties (ordered and sorting paths), independent of the row order, and the combinations it
refuses. Every registered measure against the mean over every ordering:
tests/measures/test_ties.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.measures.registry import REGISTRY, parse_measure
from pdireval.measures.ties import method_kind


def _closed(name: str) -> bool:
    cut = "" if REGISTRY[name.lower()].cutoff == "none" else "@10"
    return method_kind(parse_measure(f"{name}(ties=expected){cut}")) == "closed"


#: every built-in measure with a closed form of ties="expected"
CLOSED = [d.name for d in REGISTRY.values() if d.builtin and _closed(d.name)]


def expected_name(text: str) -> str:
    return str(parse_measure(text).replace(ties="expected"))


def test_a_hand_example():
    # two relevant documents tied with one non-relevant at ranks 1-3, then a relevant one
    qrels = pd.DataFrame({"query": "q", "doc": ["a", "b", "c", "d"], "label": [1, 1, 0, 1]})
    run = pd.DataFrame({"system": "s", "query": "q", "doc": ["a", "b", "c", "d"], "score": [2.0, 2.0, 2.0, 1.0]})
    got = pdireval.evaluate(run, ["P(ties=expected)@1", "RR(ties=expected)", "AP(ties=expected)"], qrels=qrels)
    value = dict(zip(got["measure"], got["value"]))
    assert value["P(ties=expected)@1"] == pytest.approx(2 / 3)
    # first relevant at rank 1 w.p. 2/3, rank 2 w.p. 1/3
    assert value["RR(ties=expected)"] == pytest.approx(2 / 3 + 1 / 6)
    # orderings of {a, b, c}: (rel, rel, non) x2 -> 1 + 1 + 3/4; (rel, non, rel) x2 -> 1 + 2/3 + 3/4;
    # (non, rel, rel) x2 -> 1/2 + 2/3 + 3/4; AP = mean / 3
    mean_sp = ((1 + 1 + 0.75) + (1 + 2 / 3 + 0.75) + (0.5 + 2 / 3 + 0.75)) / 3
    assert value["AP(ties=expected)"] == pytest.approx(mean_sp / 3)
    # the default breaks the tie by doc id descending: c, b, a, d
    default = pdireval.evaluate(run, "RR", qrels=qrels)["value"].iloc[0]
    assert default == pytest.approx(1 / 2)


@pytest.mark.parametrize("shuffle", [False, True])
def test_without_ties_expected_equals_the_default(shuffle):
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=8, depth=60, rng=5)
    run = run.assign(score=np.arange(len(run), 0, -1, dtype=float))  # all distinct
    if shuffle:  # the engine's sorting path
        run = run.sample(frac=1.0, random_state=0)
    names = [name if REGISTRY[name.lower()].cutoff == "none" else f"{name}@10" for name in CLOSED]
    default = pdireval.evaluate(run, names, qrels=qrels)
    tie_aware = pdireval.evaluate(run, [expected_name(n) for n in names], qrels=qrels)
    np.testing.assert_allclose(tie_aware["value"].to_numpy(), default["value"].to_numpy(), rtol=0, atol=1e-12)


def test_ties_change_the_value_and_shuffling_does_not():
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=6, depth=50, rng=9)
    run = run.assign(score=np.round(run["score"], 1))  # many ties
    names = [expected_name(m) for m in ("AP", "nDCG@10", "RR", "P@5")]
    ordered = pdireval.evaluate(run, names, qrels=qrels)
    shuffled = pdireval.evaluate(run.sample(frac=1.0, random_state=1), names, qrels=qrels)
    np.testing.assert_allclose(ordered["value"].to_numpy(), shuffled["value"].to_numpy(), rtol=0, atol=1e-12)
    broken = pdireval.evaluate(run, ["AP", "nDCG@10", "RR", "P@5"], qrels=qrels)
    assert not np.allclose(ordered["value"].to_numpy(), broken["value"].to_numpy())


def test_unsupported_combinations():
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=2, depth=10, rng=1)
    assert parse_measure("Bpref(ties=expected)").get("ties") == "expected"  # every measure has ties=
    with pytest.raises(pdireval.MeasureError, match="one of break, expected"):
        parse_measure("AP(ties=random)")
    with pytest.raises(pdireval.MeasureError, match="bounds="):
        pdireval.evaluate(run, "nDCG(ties=expected,bounds=minmax)@5", qrels=qrels)
