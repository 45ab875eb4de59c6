"""Urbano & Marrero's (2017) tie-aware τ_AP,b and the row-wise correlation statistics."""

from __future__ import annotations

import numpy as np
import pytest

from pdireval.stats.correlation_rows import correlation_rows, positions
from pdireval.stats.rank_correlation import rank_correlation, tau_ap, tau_ap_b
from pdireval.stats.rank_overlap import rbo_ext, top_k_overlap

# Urbano's R package ircor, tests/testthat/helper_data.R and test_tauAP.R: (x, y, x with ties,
# y with ties) and its expected tauAP_b values (4 decimals), without and with ties.
IRCOR = [
    ([0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
     [0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
     [0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
     [0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1], 0.8333, 0.7321),
    ([0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
     [0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
     [0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
     [0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6], 0.2880, 0.297),
    ([0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
     [0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
     [0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
     [0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2], -0.668, -0.7047),
]


@pytest.mark.parametrize("x, y, xt, yt, plain, tied", IRCOR)
def test_ircor_worked_examples(x, y, xt, yt, plain, tied):
    assert tau_ap_b(x, y) == pytest.approx(plain, abs=5e-5)
    assert tau_ap_b(xt, yt) == pytest.approx(tied, abs=5e-5)
    assert tau_ap_b(yt, xt) == pytest.approx(tied, abs=5e-5)  # symmetric


def _plain_tau_ap_b(x, y):
    """Transcription of the definition with two loops (reference ranking r, other o)."""
    def one_way(r, o):
        total, count = 0.0, 0
        for i in range(len(r)):
            above = [j for j in range(len(r)) if r[j] > r[i]]
            if above:
                total += sum(o[j] > o[i] for j in above) / len(above)
                count += 1
        return 2.0 * total / count - 1.0
    return (one_way(x, y) + one_way(y, x)) / 2.0


def test_equals_symmetric_tau_ap_without_ties_and_the_loop_with_ties():
    rng = np.random.default_rng(0)
    for _ in range(30):
        x, y = rng.random(9), rng.random(9)
        assert tau_ap_b(x, y) == pytest.approx(tau_ap(x, y, symmetric=True), abs=1e-12)
        xt, yt = rng.integers(0, 4, 9).astype(float), rng.integers(0, 4, 9).astype(float)
        if np.ptp(xt) and np.ptp(yt):
            assert tau_ap_b(xt, yt) == pytest.approx(_plain_tau_ap_b(xt, yt), abs=1e-12)
    assert rank_correlation(x, y, "tau_ap_b")[0] == tau_ap_b(x, y)
    assert np.isnan(tau_ap_b([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))


@pytest.mark.parametrize("method", ["kendall_a", "kendall_b", "gamma", "spearman", "pearson",
                                    "tau_ap", "tau_ap_sym", "tau_ap_b", "rbo"])
def test_rows_equal_the_scalar_functions(method):
    rng = np.random.default_rng(1)
    x = rng.random((25, 7))
    y = x + rng.normal(0, 0.3, size=x.shape)
    if method not in ("tau_ap", "tau_ap_sym"):
        x[:5] = np.round(x[:5], 1)  # ties
    got = correlation_rows(method, x, y)
    want = [rank_correlation(a, b, method)[0] for a, b in zip(x, y)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_positions_and_top_k():
    v = np.array([[0.3, 0.5, 0.5, 0.1]])
    assert positions(v).tolist() == [[2, 0, 1, 3]]
    w = np.array([[0.6, 0.5, 0.1, 0.2]])  # top two: items 0, 1; v's: items 1, 2
    assert top_k_overlap(positions(v), positions(w), 2)[0] == 0.5
    assert rbo_ext(positions(v), positions(v), 0.9)[0] == pytest.approx(1.0)
    assert correlation_rows("top_k_overlap", v, w, k=2)[0] == 0.5
