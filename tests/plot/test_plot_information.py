"""Figures of pdireval.plot.information render from the frames of the public functions."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import pdireval  # noqa: E402
from pdireval import plot  # noqa: E402
from pdireval.errors import SchemaError  # noqa: E402


@pytest.fixture(scope="module")
def collection():
    return pdireval.datasets.simulate(n_systems=5, n_queries=6, depth=20, rng=12)


def test_information_tau_per_query_plot(collection):
    run, qrels = collection
    scores = pdireval.evaluate(run, ["AP", "nDCG", "RIC"], qrels=qrels)
    table = pdireval.information_tau(scores, "AP", "nDCG", given=[(), "RIC"], per_query=True)
    fig = plot.information_tau_per_query(table)
    assert len(fig.axes[0].get_xticklabels()) == 2
    plt.close(fig)
    with pytest.raises(SchemaError, match="needs the columns"):
        plot.information_tau_per_query(scores)


def test_ric_and_fusion_scatter(collection):
    run, qrels = collection
    scores = pdireval.evaluate(run, ["AP", "RIC"], qrels=qrels)
    fig = plot.ric_scatter(scores, "AP")
    assert "Kendall" in fig.axes[0].get_title()
    plt.close(fig)
    points = pd.DataFrame({"joint_ric": [0.5, 0.6], "fused_ric": [0.4, 0.55], "method": ["CombMNZ", "Naive"]})
    fig, ax = plt.subplots()
    assert plot.fusion_scatter(points, ax=ax) is ax
    assert len(ax.collections) == 2
    plt.close(fig)
