"""ppi_means / ppi_differences on scores frames: the frame-level numbers equal the array-level
PPI on matrices built here by hand, and each bad input gets its error or its warning."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pdireval.errors import PdirevalWarning, SchemaError
from pdireval.meta.ppi import ppi_differences, ppi_means
from pdireval.stats.prediction_powered import ppi_mean, ppi_mean_stratified

S, Q = 4, 60


def _frame(matrix, queries, measure="AP"):
    q, s = np.meshgrid(queries, np.arange(matrix.shape[1]), indexing="ij")
    return pd.DataFrame(
        {
            "system": [f"s{i}" for i in s.ravel()],
            "query": [f"q{i:02d}" for i in q.ravel()],
            "measure": measure,
            "value": matrix.ravel(),
        }
    )


@pytest.fixture
def frames():
    rng = np.random.default_rng(1)
    truth = rng.beta(2, 3, size=(Q, S)) + np.arange(S) * 0.05
    pred = np.clip(truth + rng.normal(0.05, 0.1, size=truth.shape), 0, 1.5)
    labelled = np.sort(rng.choice(Q, 20, replace=False))
    llm = pd.concat([_frame(pred, np.arange(Q)), _frame(pred**2, np.arange(Q), "nDCG@10")])
    human = pd.concat(
        [_frame(truth[labelled], labelled), _frame(truth[labelled] ** 2, labelled, "nDCG@10")]
    )
    return llm.sample(frac=1, random_state=0), human, truth, pred, labelled


def test_means_equal_the_array_ppi(frames):
    llm, human, truth, pred, labelled = frames
    before = (llm.copy(), human.copy())
    out = ppi_means(llm, human, confidence_level=0.9)
    pd.testing.assert_frame_equal(llm, before[0])
    pd.testing.assert_frame_equal(human, before[1])
    assert list(out.columns) == [
        "measure", "system", "method", "estimate", "se", "ci_low", "ci_high", "lam",
        "llm_mean", "human_mean", "n_labelled", "n_unlabelled",
    ]
    rest = np.setdiff1d(np.arange(Q), labelled)
    want = ppi_mean(truth[labelled], pred[labelled], pred[rest], confidence_level=0.9)
    ap = out[out["measure"] == "AP"]
    assert list(ap["system"]) == [f"s{i}" for i in range(S)]
    np.testing.assert_allclose(ap["estimate"], want.estimate, atol=1e-15)
    np.testing.assert_allclose(ap["ci_low"], want.ci_low, atol=1e-15)
    np.testing.assert_allclose(ap["lam"], want.lam, atol=1e-15)
    np.testing.assert_allclose(ap["llm_mean"], pred.mean(axis=0), atol=1e-15)
    np.testing.assert_allclose(ap["human_mean"], truth[labelled].mean(axis=0), atol=1e-15)
    assert (ap["n_labelled"] == 20).all() and (ap["n_unlabelled"] == Q - 20).all()
    assert set(out["method"]) == {"ppi++"}
    sq = out[out["measure"] == "nDCG@10"]
    want2 = ppi_mean(truth[labelled] ** 2, pred[labelled] ** 2, pred[rest] ** 2, confidence_level=0.9)
    np.testing.assert_allclose(sq["estimate"], want2.estimate, atol=1e-15)
    fixed = ppi_means(llm, human, lam=1.0)
    assert set(fixed["method"]) == {"ppi"} and (fixed["lam"] == 1.0).all()


def test_differences_equal_the_array_ppi_on_differences(frames):
    llm, human, truth, pred, labelled = frames
    out = ppi_differences(llm[llm["measure"] == "AP"], human[human["measure"] == "AP"])
    rest = np.setdiff1d(np.arange(Q), labelled)
    i, j = np.triu_indices(S, 1)
    want = ppi_mean(
        truth[labelled][:, i] - truth[labelled][:, j],
        pred[labelled][:, i] - pred[labelled][:, j],
        pred[rest][:, i] - pred[rest][:, j],
    )
    assert list(zip(out["system_a"], out["system_b"])) == [(f"s{a}", f"s{b}") for a, b in zip(i, j)]
    np.testing.assert_allclose(out["estimate"], want.estimate, atol=1e-13)
    np.testing.assert_allclose(out["se"], want.se, atol=1e-13)
    from scipy import stats

    np.testing.assert_allclose(
        out["p_value"], 2 * stats.norm.sf(np.abs(want.estimate / want.se)), rtol=1e-10
    )
    base = ppi_differences(llm, human, baseline="s2")
    assert set(base["system_b"]) == {"s2"} and len(base) == 2 * (S - 1)
    with pytest.raises(SchemaError, match="baseline"):
        ppi_differences(llm, human, baseline="nope")


def test_stratified(frames):
    llm, human, truth, pred, labelled = frames
    llm = llm.assign(half=np.where(llm["query"].str[1:].astype(int) < 30, "early", "late"))
    out = ppi_means(llm[llm["measure"] == "AP"], human[human["measure"] == "AP"], strata="half")
    rest = np.setdiff1d(np.arange(Q), labelled)
    want = ppi_mean_stratified(
        truth[labelled], pred[labelled], pred[rest], labelled < 30, rest < 30
    )
    np.testing.assert_allclose(out["estimate"], want.estimate, atol=1e-15)
    np.testing.assert_allclose(out["se"], want.se, atol=1e-15)
    assert set(out["method"]) == {"stratified ppi++"} and "half" not in out.columns
    pairs = ppi_differences(llm, human, strata="half")
    assert len(pairs) == 2 * S * (S - 1) // 2


# ------------------------------------------------------------------------------- bad input


def test_human_queries_the_llm_frame_lacks_are_left_out_with_a_warning(frames):
    llm, human, *_ = frames
    extra = human[human["query"] == human["query"].iloc[0]].assign(query="q_unknown")
    with pytest.warns(PdirevalWarning, match="llm frame lacks"):
        got = ppi_means(llm, pd.concat([human, extra]))
    pd.testing.assert_frame_equal(got, ppi_means(llm, human))


def test_different_measures_are_an_error(frames):
    llm, human, *_ = frames
    with pytest.raises(SchemaError, match="same measures.*only in human.*'P@10'"):
        ppi_means(llm, human.assign(measure=human["measure"].replace("AP", "P@10")))
    with pytest.raises(SchemaError, match="only in llm"):
        ppi_means(llm, human[human["measure"] == "AP"])


def test_no_common_query_and_different_systems_are_errors(frames):
    llm, human, *_ = frames
    with pytest.raises(SchemaError, match="n = 0"):
        ppi_means(llm, human.assign(query="x" + human["query"]))
    with pytest.raises(SchemaError, match="different systems"):
        ppi_means(llm, human[human["system"] != "s3"])


def test_few_and_single_labelled_queries_warn(frames):
    llm, human, *_ = frames
    five = human[human["query"].isin(sorted(human["query"].unique())[:5])]
    with pytest.warns(PdirevalWarning, match="fewer than 10"):
        out = ppi_means(llm, five)
    assert out["se"].notna().all()
    one = human[human["query"] == human["query"].iloc[0]]
    with pytest.warns(PdirevalWarning, match="single labelled query"):
        out = ppi_means(llm, one)
    assert out["se"].isna().all() and out["ci_low"].isna().all() and out["estimate"].notna().all()


def test_strata_with_one_or_no_labelled_query(frames):
    llm, human, truth, pred, labelled = frames
    first = sorted(human["query"].unique())[0]
    llm = llm.assign(stratum=np.where(llm["query"] == first, "alone", "rest"))
    with pytest.warns(PdirevalWarning, match="single labelled query"):
        out = ppi_means(llm, human, strata="stratum")
    assert out["se"].isna().all()
    unlabelled = sorted(set(llm["query"]) - set(human["query"]))[0]
    llm = llm.assign(stratum=np.where(llm["query"] == unlabelled, "nobody", "rest"))
    with pytest.raises(SchemaError, match="no human-labelled query"):
        ppi_means(llm, human, strata="stratum")
    with pytest.raises(SchemaError, match="not a column"):
        ppi_means(llm, human, strata="nope")
    mixed = llm.assign(stratum=np.where(llm["system"] == "s0", "a", "b"))
    with pytest.raises(SchemaError, match="one value per query"):
        ppi_means(mixed, human, strata="stratum")


def test_every_query_labelled_gives_the_human_mean(frames):
    llm, human, truth, *_ = frames
    same = llm[llm["query"].isin(human["query"])]
    with pytest.warns(PdirevalWarning, match="every llm query is human-labelled"):
        out = ppi_means(same, human)
    np.testing.assert_allclose(out["estimate"], out["human_mean"], atol=1e-15)
