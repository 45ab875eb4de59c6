"""Figures from pdireval's tidy frames (optional extra: ``pip install pdireval[plot]``).

Each function takes a frame returned by a pdireval function and returns a matplotlib
Figure (or draws on ``ax=`` and returns that Axes). Query modules live beside this file
(``plot/<query>.py``) and are re-exported here.
"""

from __future__ import annotations

from pdireval.plot._base import require_matplotlib
from pdireval.plot.bounds import expected_histogram
from pdireval.plot.incomplete import completeness_curves, training_curves
from pdireval.plot.information import fusion_scatter, information_tau_per_query, ric_scatter
from pdireval.plot.reliability import (
    d_study_curve,
    optimal_discounts,
    optimal_gains,
    phi_contours,
    stability_curves,
)
from pdireval.plot.significance import (
    asl_curves,
    discriminative_power_bars,
    error_rate_curves,
    measure_scatter,
    swap_rate_curves,
)
from pdireval.plot.uncertainty import critical_difference_diagram, forest_plot, rank_interval_plot

__all__ = [
    "require_matplotlib",
    "expected_histogram",
    "d_study_curve",
    "optimal_discounts",
    "optimal_gains",
    "stability_curves",
    "phi_contours",
    "asl_curves",
    "discriminative_power_bars",
    "error_rate_curves",
    "swap_rate_curves",
    "measure_scatter",
    "completeness_curves",
    "training_curves",
    "information_tau_per_query",
    "ric_scatter",
    "fusion_scatter",
    "forest_plot",
    "rank_interval_plot",
    "critical_difference_diagram",
]
