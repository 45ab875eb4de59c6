"""paper_table(interval=): mean ± half-width or mean [low, high]."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import pdireval
from pdireval.errors import OptionError
from tests.helpers import random_matrix, scores_from_matrix


@pytest.fixture
def scores():
    return scores_from_matrix(random_matrix(n=15, m=3, seed=2, ties=False), "AP")


def test_plus_minus_is_the_t_half_width(scores):
    table = pdireval.paper_table(scores, interval="pm", decimals=3)
    for row in table.itertuples():
        v = scores[scores.system == row.system]["value"]
        lo, hi = stats.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=stats.sem(v))
        assert row.ci_low == pytest.approx(lo, rel=1e-12)
        assert row.text == f"{v.mean():.3f} ± {(hi - lo) / 2:.3f}"
    assert "half-width of its 95% Student t interval" in table.attrs["caption"]
    assert list(table.columns[:6]) == ["letter", "system", "measure", "mean", "ci_low", "ci_high"]


def test_range_and_renderers(scores):
    table = pdireval.paper_table(scores, interval="range", interval_method="anova", decimals=2)
    widths = table["ci_high"] - table["ci_low"]
    np.testing.assert_allclose(widths, widths.iloc[0], rtol=1e-12)  # one ANOVA width
    row = table.iloc[0]
    assert row.text == f"{row['mean']:.2f} [{row.ci_low:.2f}, {row.ci_high:.2f}]"
    # the ANOVA interval holds the query effects fixed (issue 33): the caption says so
    assert "two-way ANOVA (Sakai 2014) interval (of the mean on these queries)." in (
        table.attrs["caption"])
    latex = pdireval.paper_table(scores, interval="pm", format="latex")
    assert r"$\pm$" in latex
    markdown = pdireval.paper_table(scores, interval="range", format="markdown")
    t_row = pdireval.paper_table(scores, interval="range").iloc[0]
    assert f"{t_row['mean']:.3f} [{t_row.ci_low:.3f}, {t_row.ci_high:.3f}]" in markdown
    assert "ci_low" not in pdireval.paper_table(scores).columns


def test_bad_interval_options(scores):
    with pytest.raises(OptionError, match="symmetric"):
        pdireval.paper_table(scores, interval="pm", interval_method="bootstrap")
    with pytest.raises(OptionError, match="interval="):
        pdireval.paper_table(scores, interval="plusminus")
