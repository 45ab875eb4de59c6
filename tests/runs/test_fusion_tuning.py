"""tune_fusion: the grid, each trial's value against fuse + evaluate, the best trial, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdireval
from pdireval.errors import OptionError, SchemaError
from pdireval.runs.fusion_tuning import weight_grid


def test_weight_grid_is_every_composition():
    grid = weight_grid(3, 0.25)
    assert grid.shape == (math.comb(4 + 2, 2), 3)
    np.testing.assert_allclose(grid.sum(axis=1), 1.0)
    as_ints = {tuple(np.round(row * 4).astype(int)) for row in grid}
    expected = {(a, b, 4 - a - b) for a in range(5) for b in range(5 - a)}
    assert as_ints == expected and len(as_ints) == len(grid)


@pytest.mark.parametrize("method", ["combsum", "combmnz", "rrf", "borda"])
def test_values_equal_fuse_then_evaluate(method):
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=10, depth=20, rng=4)
    train = sorted(run["query"].unique())[:6]
    tuned = pdireval.tune_fusion(run, qrels, method=method, measure="AP", step=0.25, queries=train)
    assert list(tuned.columns) == ["trial", "system", "weight", "measure", "value", "n_queries", "best"]
    assert tuned["trial"].nunique() == 15 and (tuned["n_queries"] == 6).all()
    train_run = run[run["query"].isin(train)]
    train_qrels = qrels[qrels["query"].isin(train)]
    for trial in (0, 4, 9, 14):
        rows = tuned[tuned.trial == trial]
        weights = dict(zip(rows["system"], rows["weight"]))
        fused = pdireval.fuse(train_run, method, weights=weights)
        expected = pdireval.evaluate(fused, "AP", qrels=train_qrels)["value"].mean()
        assert rows["value"].iloc[0] == pytest.approx(expected, abs=1e-12)
    best = tuned[tuned.best]
    assert best["trial"].nunique() == 1
    assert best["value"].iloc[0] == tuned["value"].max()
    assert best["trial"].iloc[0] == tuned.loc[tuned["value"] == tuned["value"].max(), "trial"].min()


def test_tuned_weights_beat_or_match_equal_weights_on_training_queries():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=12, depth=30, quality_spread=1.5, rng=8)
    tuned = pdireval.tune_fusion(run, qrels, method="combsum", measure="nDCG@10", step=0.1)
    best = tuned[tuned.best].set_index("system")["weight"].to_dict()
    equal = pdireval.evaluate(pdireval.fuse(run, "combsum"), "nDCG@10", qrels=qrels)["value"].mean()
    tuned_value = pdireval.evaluate(pdireval.fuse(run, "combsum", weights=best), "nDCG@10", qrels=qrels)["value"].mean()
    assert tuned_value >= equal - 1e-12
    assert tuned[tuned.best]["value"].iloc[0] == pytest.approx(tuned_value, abs=1e-12)


def test_errors():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=3, depth=5, rng=1)
    with pytest.raises(OptionError, match="takes none"):
        pdireval.tune_fusion(run, qrels, method="combmax")
    with pytest.raises(OptionError, match="step= must be 1/N"):
        pdireval.tune_fusion(run, qrels, step=0.3)
    with pytest.raises(SchemaError, match="queries= names"):
        pdireval.tune_fusion(run, qrels, queries=["nope"])
    many, many_qrels = pdireval.datasets.simulate(n_systems=12, n_queries=2, depth=5, rng=1)
    with pytest.raises(OptionError, match="weight vectors"):
        pdireval.tune_fusion(many, many_qrels, step=0.05)
