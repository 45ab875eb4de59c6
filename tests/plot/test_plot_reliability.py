"""Figures of generalizability theory and stability-optimal nDCG (matplotlib, Agg)."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

import pdireval
from pdireval import plot

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def collection():
    return pdireval.datasets.simulate(n_systems=6, n_queries=15, depth=30, rng=5)


def test_d_study_curve(collection):
    import matplotlib.pyplot as plt

    run, qrels = collection
    scores = pdireval.evaluate(run, ["nDCG@10", "AP"], qrels=qrels)
    curve = pdireval.d_study(scores, np.arange(1, 51))
    fig = plot.d_study_curve(curve, target=0.95)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["nDCG@10", "AP"]
    line = ax.get_lines()[0]
    np.testing.assert_allclose(line.get_ydata(), curve[curve["measure"] == "nDCG@10"]["phi"])
    _, ax2 = plt.subplots()
    assert plot.d_study_curve(curve, coefficient="e_rho2", band=False, ax=ax2) is ax2
    with pytest.raises(ValueError, match="coefficient"):
        plot.d_study_curve(curve, coefficient="rho")
    plt.close("all")


def test_optimisation_figures(collection):
    import matplotlib.pyplot as plt

    run, qrels = collection
    res = pdireval.optimize(run, qrels=qrels, k=10, what="discount")
    fig = plot.optimal_discounts(res, title="k = 10")
    lines = fig.axes[0].get_lines()
    assert [ln.get_label() for ln in lines] == ["optimal", "log2", "zipf", "linear"]
    np.testing.assert_allclose(lines[0].get_ydata(), res.discount)
    np.testing.assert_allclose(lines[1].get_ydata().sum(), 1.0)
    fig = plot.stability_curves(res, n_queries=[1, 10, 100])
    labels = [ln.get_label() for ln in fig.axes[0].get_lines() if not ln.get_label().startswith("_")]
    assert labels == ["optimal", "log2", "zipf", "linear"]
    gains = pdireval.optimize(run, qrels=qrels, k=10, what="gain")
    fig = plot.optimal_gains(gains)
    assert len(fig.axes[0].patches) == 3 * len(gains.gains)
    plt.close("all")


def test_phi_contours(collection):
    import matplotlib.pyplot as plt
    import pandas as pd

    run, qrels = collection
    gen = np.random.default_rng(5)
    multi = pd.concat([qrels.assign(label=np.clip(qrels["label"] + gen.integers(-1, 2, len(qrels)),
                                                  0, 2), judge=f"j{i}") for i in range(3)])
    scores = pdireval.evaluate(run, ["AP", "nDCG@10"], qrels=multi)
    grid = pdireval.d_study(scores, [5, 10, 20, 50], facets=("query", "judge"),
                            n_judges=[1, 2, 3, 5])
    one = grid[grid["measure"] == "AP"]
    fig = plot.phi_contours(one, title="AP")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "number of queries n′" and ax.get_ylabel() == "number of judges n′"
    assert ax.get_title() == "AP"
    _, ax2 = plt.subplots()
    assert plot.phi_contours(one, coefficient="e_rho2", ax=ax2) is ax2
    with pytest.raises(ValueError, match="select one first"):
        plot.phi_contours(grid)
    with pytest.raises(ValueError, match="needs the grid"):
        plot.phi_contours(pdireval.d_study(scores.drop(columns="judge").drop_duplicates(
            ["system", "query", "measure"]), [5, 10]))
    plt.close("all")
