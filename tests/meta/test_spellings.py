"""One vocabulary: measure_spellings shows how a scores frame's names map to pdireval's
canonical ones, canonical_measures renames them, and the meta-evaluation functions refuse a
frame holding two spellings of one measure (they would analyse them as two measures)."""

from __future__ import annotations

import pandas as pd
import pytest

import pdireval
from pdireval import SchemaError

RUN, QRELS = pdireval.datasets.simulate(n_systems=3, n_queries=5, depth=10, rng=2)


def _scores(measures):
    return pdireval.evaluate(RUN, measures, qrels=QRELS, score_precision="float32")


def test_the_mapping_names_each_spelling():
    scores = pd.concat([_scores(["map", "ndcg_cut_10"]), _scores(["AP"]).assign(measure="custom")])
    scores = pd.concat([scores, _scores(["AP"])], ignore_index=True)
    got = pdireval.measure_spellings(scores)
    assert got["measure"].tolist() == ["map", "ndcg_cut_10", "custom", "AP"]
    assert got["canonical"].tolist() == ["AP", "nDCG@10", "custom", "AP"]
    assert got["known"].tolist() == [True, True, False, True]
    assert got["n_spellings"].tolist() == [2, 1, 1, 2]
    assert scores.ireval.measure_spellings().equals(got)


def test_canonical_measures_renames_and_merges_equal_values():
    mixed = pd.concat([_scores(["map", "P_10"]), _scores(["AP"])], ignore_index=True)
    before = mixed.copy()
    out = pdireval.canonical_measures(mixed)
    expected = _scores(["AP", "P@10"])
    assert sorted(out["measure"].unique()) == ["AP", "P@10"] and len(out) == len(expected)
    key = ["system", "query", "measure"]
    pd.testing.assert_frame_equal(
        out.sort_values(key, ignore_index=True), expected.sort_values(key, ignore_index=True),
        check_dtype=False,
    )
    pd.testing.assert_frame_equal(mixed, before)  # the caller's frame is untouched


def test_canonical_measures_refuses_two_values_of_one_cell():
    a = _scores(["map"])
    b = _scores(["AP"]).assign(value=lambda f: f["value"] + 0.01)
    with pytest.raises(SchemaError, match="hold different values under two spellings") as info:
        pdireval.canonical_measures(pd.concat([a, b]))
    assert len(info.value.failure_cases) == len(a) + len(b)


@pytest.mark.parametrize("function", ["aggregate", "compare", "correlate", "rank_uncertainty", "reliability"])
def test_meta_functions_refuse_two_spellings(function):
    mixed = pd.concat([_scores(["map"]), _scores(["AP", "P@10"])], ignore_index=True)
    with pytest.raises(SchemaError, match=rf"{function}: .*'map' and 'AP' are both AP.*canonical_measures"):
        getattr(pdireval, function)(mixed)
    getattr(pdireval, function)(pdireval.canonical_measures(mixed))  # one vocabulary: runs
