"""Significance / stability figures draw from our tidy frames."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import pdireval  # noqa: E402
from pdireval import plot  # noqa: E402
from pdireval.errors import SchemaError  # noqa: E402
from tests.helpers import random_matrix, scores_from_matrix  # noqa: E402


@pytest.fixture
def scores():
    x = random_matrix(n=20, m=5, seed=3)
    return pd.concat([scores_from_matrix(x, "AP"), scores_from_matrix(x ** 0.5, "P@10")], ignore_index=True)


def test_figures(scores):
    curve = pdireval.asl_curve(scores, n_resamples=100, rng=1)
    fig = plot.asl_curves(curve)
    assert isinstance(fig, matplotlib.figure.Figure)
    lines = fig.axes[0].get_lines()
    assert len(lines) == 3  # two measures + the alpha line
    np.testing.assert_allclose(lines[0].get_ydata(), curve[curve.measure == "AP"].p_value)
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["AP", "P@10"]

    fig = plot.discriminative_power_bars(pdireval.discriminative_power(scores, method="t"))
    assert len(fig.axes[0].patches) == 2

    err = pdireval.error_rate(scores, n_resamples=10, rng=1)
    fig = plot.error_rate_curves(err, tie_rate=True)
    assert len(fig.axes[0].get_lines()) == 4

    swaps = pdireval.swap_rate(scores, n_resamples=10, rng=1)
    fig, ax = plt.subplots()
    assert plot.swap_rate_curves(swaps, n_queries=5, ax=ax) is ax

    fig = plot.measure_scatter(scores, "AP", "P@10")
    means = pdireval.aggregate(scores, wide=True)
    tau = st.kendalltau(means["AP"], means["P@10"]).statistic
    assert f"τ = {tau:.3f}" in fig.axes[0].get_title()
    assert len(fig.axes[0].collections[0].get_offsets()) == 5
    plt.close("all")


def test_plot_errors(scores):
    with pytest.raises(SchemaError, match="pdireval.asl_curve"):
        plot.asl_curves(scores)
    with pytest.raises(SchemaError, match="not in the scores"):
        plot.measure_scatter(scores, "AP", "nDCG")
    with pytest.raises(SchemaError, match="no rows for n_queries=7"):
        plot.swap_rate_curves(pdireval.swap_rate(scores, n_resamples=5, rng=1), n_queries=7)
    plt.close("all")
