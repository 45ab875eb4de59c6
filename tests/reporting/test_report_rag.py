"""The report's RAG section: shown when nugget scores are given, absent otherwise."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import SchemaError


@pytest.fixture(scope="module")
def collection():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=10, depth=20, rng=1)
    rng = np.random.default_rng(0)
    systems = sorted(run["system"].unique())
    rows = [
        (judge, s, q, n, rng.choice(["support", "partial_support", "not_support"]))
        for judge in ("human", "llm")
        for s in systems
        for q in range(10)
        for n in range(4)
    ]
    assignments = pd.DataFrame(rows, columns=["judge", "system", "query", "nugget", "label"])
    nugget_scores = pdireval.evaluate_nuggets(assignments.assign(importance="vital"))
    return run, qrels, nugget_scores


@pytest.mark.slow
def test_rag_section(collection, tmp_path):
    run, qrels, nugget_scores = collection
    result = pdireval.report(run, qrels=qrels, measures=["AP"], out=tmp_path, n_resamples=20,
                             rng=1, nugget_scores=nugget_scores, progress=False)
    means = result.tables["rag_means"]
    # the means are the per-(judge, system, measure) means of the scores given
    direct = nugget_scores.groupby(["judge", "system", "measure"])["value"].mean()
    got = means.set_index(["judge", "system", "measure"])["mean"]
    assert np.allclose(got.sort_index().to_numpy(), direct.sort_index().to_numpy())
    assert (means["ci_low"] <= means["mean"]).all() and (means["mean"] <= means["ci_high"]).all()
    tests = result.tables["rag_tests"]
    assert len(tests) == 2 * 6 * 3  # judges x measures x pairs of 3 systems
    judges = result.tables["rag_judges"]
    assert set(judges["judge_a"]) == {"human"} and set(judges["judge_b"]) == {"llm"}
    assert "RAG answers" in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_bad_nugget_scores_fail_before_anything_is_written(collection, tmp_path):
    run, qrels, nugget_scores = collection
    out = tmp_path / "out"
    with pytest.raises(SchemaError, match="value"):
        pdireval.report(run, qrels=qrels, measures=["AP"], out=out,
                        nugget_scores=nugget_scores.drop(columns="value"), progress=False)
    assert not out.exists()
