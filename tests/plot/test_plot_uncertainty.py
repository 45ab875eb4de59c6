"""Uncertainty figures: forest plot, rank intervals, critical-difference diagram."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import pdireval  # noqa: E402
from pdireval import plot  # noqa: E402
from pdireval.errors import OptionError, SchemaError  # noqa: E402
from pdireval.plot.uncertainty import not_different_runs  # noqa: E402
from tests.helpers import random_matrix, scores_from_matrix  # noqa: E402


@pytest.fixture
def scores():
    x = random_matrix(n=20, m=5, seed=3)
    return pd.concat([scores_from_matrix(x, "AP"), scores_from_matrix(x ** 0.5, "P@10")],
                     ignore_index=True)


def test_forest_plot_draws_every_interval(scores):
    intervals = pdireval.aggregate(scores, method="anova")
    fig = plot.forest_plot(intervals)
    assert len(fig.axes) == 2
    segments = fig.axes[0].collections[0].get_segments()
    ap = intervals[intervals.measure == "AP"].sort_values("mean")
    np.testing.assert_allclose([s[0][0] for s in segments], ap["ci_low"])
    np.testing.assert_allclose([s[1][0] for s in segments], ap["ci_high"])
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == list(ap["system"])
    plt.close("all")
    with pytest.raises(SchemaError, match="confidence_level"):
        plot.forest_plot(pdireval.aggregate(scores))
    _, ax = plt.subplots()
    with pytest.raises(OptionError, match="measure="):
        plot.forest_plot(intervals, ax=ax)
    assert plot.forest_plot(intervals, measure="P@10", ax=ax) is ax
    plt.close("all")


def test_rank_interval_plot(scores):
    ranks = pdireval.rank_uncertainty(scores, n_resamples=100)
    fig = plot.rank_interval_plot(ranks, measure="AP")
    ap = ranks[ranks.measure == "AP"].sort_values("rank", ascending=False)
    segments = fig.axes[0].collections[0].get_segments()
    np.testing.assert_allclose([s[0][0] for s in segments], ap["rank_low"])
    np.testing.assert_allclose([s[1][0] for s in segments], ap["rank_high"])
    plt.close("all")


def test_not_different_runs_by_hand():
    means = [0.5, 0.4, 0.3, 0.2]  # a > b > c > d
    sig = np.zeros((4, 4), dtype=bool)
    for i, j in [(0, 2), (0, 3), (1, 3)]:  # a differs from c, d; b differs from d
        sig[i, j] = sig[j, i] = True
    assert not_different_runs(means, sig) == [(0, 1), (1, 2), (2, 3)]
    assert not_different_runs(means, np.zeros((4, 4), dtype=bool)) == [(0, 3)]
    assert not_different_runs(means, ~np.eye(4, dtype=bool)) == []
    # the order follows the means, not the input order
    assert not_different_runs([0.2, 0.5, 0.4, 0.3], np.zeros((4, 4), dtype=bool)) == [(0, 3)]


def test_critical_difference_diagram(scores):
    pairs = pdireval.compare(scores, method="t", correction="holm")
    fig = plot.critical_difference_diagram(pairs, measure="AP")
    assert isinstance(fig, matplotlib.figure.Figure)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert len(texts) == 5 and all("(" in t for t in texts)
    plt.close("all")
    with pytest.raises(OptionError, match="measure="):
        plot.critical_difference_diagram(pairs)
    with pytest.raises(SchemaError, match="without baseline"):
        plot.critical_difference_diagram(pdireval.compare(scores, method="t", baseline="s00"),
                                         measure="AP")
