"""Stochastic systems: runs with a seed column, the seed as a random effect."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.core.schema import canonical_scores
from pdireval.errors import SchemaError
from pdireval.meta.seeds import nested_bootstrap, seed_arrays, seed_shares


def seeded_run(n_seeds=3, seed=3, column="seed"):
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=8, depth=30, rng=seed)
    gen = np.random.default_rng(seed)
    runs = pd.concat([run.assign(score=run["score"] + gen.normal(0, 0.7, len(run)), **{column: s})
                      for s in range(n_seeds)], ignore_index=True)
    return runs, qrels


def simulated_scores(n=20, n_s=3, r=4, *, seed=0, sd_seed=0.5, shift=(0.0, 0.3, 0.0)):
    gen = np.random.default_rng(seed)
    x = (gen.normal(0, 1, (n, 1, 1)) + np.asarray(shift)[None, :, None]
         + gen.normal(0, sd_seed, (n, n_s, r)))
    t, s, k = np.indices(x.shape)
    return pd.DataFrame({"system": [f"s{v}" for v in s.ravel()], "seed": k.ravel(),
                         "query": [f"q{v:02d}" for v in t.ravel()], "measure": "m",
                         "value": x.ravel()}), x


def test_a_seed_or_trial_column_gives_one_value_per_seed():
    runs, qrels = seeded_run()
    scores = pdireval.evaluate(runs, ["AP", "nDCG@10"], qrels=qrels)
    assert list(scores.columns) == ["system", "seed", "query", "measure", "value"]
    for s in range(3):
        alone = pdireval.evaluate(runs[runs["seed"] == s].drop(columns="seed"), ["AP", "nDCG@10"],
                                  qrels=qrels)
        got = scores[scores["seed"] == str(s)].drop(columns="seed").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, alone)
    trials, _ = seeded_run(column="trial")
    pd.testing.assert_frame_equal(pdireval.evaluate(trials, "AP", qrels=qrels),
                                  pdireval.evaluate(runs, "AP", qrels=qrels))
    mapped = pdireval.evaluate(runs.rename(columns={"seed": "rep"}), "AP", qrels=qrels,
                               columns={"seed": "rep"})
    pd.testing.assert_frame_equal(mapped, pdireval.evaluate(runs, "AP", qrels=qrels))
    # the seed is a facet of reliability
    rel = pdireval.reliability(scores, facets=("query", "seed"))
    assert (rel["n_seeds_observed"] == 3).all()


def test_seed_share_equals_a_plain_anova_per_system():
    frame, x = simulated_scores(r=4)
    got = seed_shares(canonical_scores(frame)).set_index("system")
    n, _, r = x.shape
    for i, system in enumerate(["s0", "s1", "s2"]):
        y = x[:, i, :]
        ms_w = ((y - y.mean(axis=1, keepdims=True)) ** 2).sum() / (n * (r - 1))
        ms_b = r * ((y.mean(axis=1) - y.mean()) ** 2).sum() / (n - 1)
        var_q = max((ms_b - ms_w) / r, 0.0)
        assert got.loc[system, "share_seed"] == pytest.approx(ms_w / (ms_w + var_q))
        assert got.loc[system, "n_seeds"] == r


def test_seed_share_is_recovered_on_simulated_data():
    frame, _ = simulated_scores(n=400, r=5, sd_seed=0.5, seed=1)
    share = seed_shares(canonical_scores(frame))["share_seed"].to_numpy()
    truth = 0.25 / (1.0 + 0.25)
    assert np.all(np.abs(share - truth) < 0.05)


def test_unbalanced_seeds_are_an_error():
    frame, _ = simulated_scores(r=3)
    with pytest.raises(SchemaError, match="same number"):
        seed_shares(canonical_scores(frame.drop(index=[0])))
    with pytest.raises(SchemaError, match="complete system x query x seed"):
        list(seed_arrays(canonical_scores(frame.drop(index=[0]))))


def _plain_nested(x, a, b, n_resamples, gen):
    """The two-level bootstrap written as loops: queries, then each system's seeds."""
    n, _, r = x.shape
    out = np.empty(n_resamples)
    for i in range(n_resamples):
        qs = gen.integers(0, n, size=n)
        ma = np.mean([x[q, a, gen.integers(0, r, size=r)].mean() for q in qs])
        mb = np.mean([x[q, b, gen.integers(0, r, size=r)].mean() for q in qs])
        out[i] = ma - mb
    return out


def test_nested_bootstrap_matches_a_plain_loop_in_distribution():
    _, x = simulated_scores(n=15, r=4, sd_seed=1.0, seed=2)
    res = nested_bootstrap(x, np.array([1]), np.array([0]), n_resamples=4000,
                           gen=np.random.default_rng(0), confidence_level=0.9,
                           alternative="two-sided")
    plain = _plain_nested(x, 1, 0, 2000, np.random.default_rng(1))
    assert res["mean_diff"][0] == pytest.approx(x[:, 1].mean() - x[:, 0].mean())
    width = res["ci_high"][0] - res["ci_low"][0]
    plain_width = np.quantile(plain, 0.95) - np.quantile(plain, 0.05)
    assert width == pytest.approx(plain_width, rel=0.12)
    # more seed noise is wider than the query bootstrap of the seed means alone
    means = x.mean(axis=2)
    gen = np.random.default_rng(3)
    idx = gen.integers(0, x.shape[0], size=(4000, x.shape[0]))
    one_level = (means[idx, 1] - means[idx, 0]).mean(axis=1)
    assert width > np.quantile(one_level, 0.95) - np.quantile(one_level, 0.05)


def test_aggregate_and_compare_with_the_seed_as_a_random_effect():
    runs, qrels = seeded_run(n_seeds=3)
    scores = pdireval.evaluate(runs, ["AP", "nDCG@10"], qrels=qrels)
    means = scores.groupby(["system", "query", "measure"], observed=True)["value"].mean()
    flat = means.rename("value").reset_index()
    agg = pdireval.aggregate(scores, seeds="mean")
    ref = pdireval.aggregate(flat)
    merged = agg.merge(ref, on=["system", "measure"], suffixes=("", "_ref"))
    np.testing.assert_allclose(merged["mean"], merged["mean_ref"])
    np.testing.assert_allclose(merged["std"], merged["std_ref"])
    shares = seed_shares(canonical_scores(scores))
    assert agg["share_seed"].tolist() == agg.merge(shares, on=["system", "measure"])[
        "share_seed_y"].tolist()
    assert (agg["n_seeds"] == 3).all()
    # compare on the seed means equals compare of the averaged frame
    m = pdireval.compare(scores, seeds="mean", n_resamples=300, rng=1)
    pd.testing.assert_frame_equal(m, pdireval.compare(flat, n_resamples=300, rng=1))
    nested = pdireval.compare(scores, seeds="nested", n_resamples=400, rng=1, correction="holm")
    assert (nested["method"] == "nested_bootstrap").all() and (nested["n_seeds"] == 3).all()
    np.testing.assert_allclose(nested["mean_diff"], m["mean_diff"])
    assert ((nested["ci_low"] <= nested["mean_diff"]) & (nested["mean_diff"] <= nested["ci_high"])).all()
    assert ((nested["p_adjusted"] >= nested["p_value"]) | nested["p_value"].isna()).all()
    again = pdireval.compare(scores, seeds="nested", n_resamples=400, rng=1, correction="holm")
    pd.testing.assert_frame_equal(nested, again)


def test_seed_options_are_checked():
    runs, qrels = seeded_run(n_seeds=2)
    scores = pdireval.evaluate(runs, "AP", qrels=qrels)
    with pytest.raises(pdireval.OptionError, match="method='bootstrap'"):
        pdireval.compare(scores, seeds="nested", method="t")
    with pytest.raises(pdireval.OptionError, match="seeds"):
        pdireval.aggregate(scores, seeds="median")
    with pytest.raises(SchemaError, match="needs a 'seed' column"):
        pdireval.aggregate(scores.drop(columns="seed").drop_duplicates(
            ["system", "query", "measure"]), seeds="mean")


def test_aggregate_nested_intervals_and_seed_mean_intervals():
    runs, qrels = seeded_run(n_seeds=3)
    scores = pdireval.evaluate(runs, "AP", qrels=qrels)
    nested = pdireval.aggregate(scores, seeds="nested", confidence_level=0.9, n_resamples=500,
                                rng=2)
    assert (nested["ci_method"] == "nested_bootstrap").all()
    assert (nested["confidence_level"] == 0.9).all()
    assert ((nested["ci_low"] <= nested["mean"]) & (nested["mean"] <= nested["ci_high"])).all()
    # a plain two-level loop on one system gives an interval of the same width
    frame = canonical_scores(scores)
    for _key, systems, x in seed_arrays(frame):
        i = systems.index("sys01")
        gen = np.random.default_rng(5)
        n, _, r = x.shape
        reps = [np.mean([x[q, i, gen.integers(0, r, size=r)].mean()
                         for q in gen.integers(0, n, size=n)]) for _ in range(1500)]
        width = np.quantile(reps, 0.95) - np.quantile(reps, 0.05)
        row = nested[nested["system"] == "sys01"].iloc[0]
        assert row["ci_high"] - row["ci_low"] == pytest.approx(width, rel=0.2)
    t = pdireval.aggregate(scores, seeds="mean", confidence_level=0.9)
    assert (t["ci_method"] == "t").all() and (t["n_seeds"] == 3).all()
