"""Rank-biased overlap, top-k overlap, sequence τ and inversion counting."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from pdireval.stats.rank_overlap import (
    inversions,
    kendall_tau_b_rows,
    rbo_ext,
    rbo_truncated,
    top_k_overlap,
)


def _positions(order, n):
    pos = np.full(n, -1, dtype=np.int64)
    pos[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
    return pos


def _rbo_ext_direct(a, b, p):
    """Webber et al. (2010) eq. 32, written out with Python sets."""
    k = len(a)
    agree = [len(set(a[:d]) & set(b[:d])) / d for d in range(1, k + 1)]
    return agree[-1] * p**k + (1 - p) / p * sum(agree[d - 1] * p**d for d in range(1, k + 1))


def test_rbo_ext_against_the_formula_written_out():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(1, 30))
        a, b = rng.permutation(n), rng.permutation(n)
        p = float(rng.uniform(0.5, 0.99))
        got = rbo_ext(_positions(a, n)[None], _positions(b, n)[None], p)[0]
        assert got == pytest.approx(_rbo_ext_direct(list(a), list(b), p), abs=1e-12)


def test_rbo_ext_hand_value():
    # a = (0, 1, 2), b = (1, 0, 2): A_1 = 0, A_2 = 1, A_3 = 1; p = 0.5
    # RBO = 1 * 0.125 + (0.5/0.5) * (0 * 0.5 + 1 * 0.25 + 1 * 0.125) = 0.5
    got = rbo_ext(_positions([0, 1, 2], 3)[None], _positions([1, 0, 2], 3)[None], 0.5)[0]
    assert got == pytest.approx(0.5)


@settings(max_examples=80, deadline=None)
@given(st.permutations(range(12)), st.permutations(range(12)), st.floats(0.05, 0.99))
def test_rbo_in_unit_interval_and_one_for_identical(a, b, p):
    pa, pb = _positions(a, 12)[None], _positions(b, 12)[None]
    value = rbo_ext(pa, pb, p)[0]
    assert 0.0 <= value <= 1.0
    assert rbo_ext(pa, pa, p)[0] == pytest.approx(1.0)
    trunc = rbo_truncated(pa, pb, p, 20)[0]
    assert 0.0 <= trunc <= 1.0 + 1e-12


def test_rbo_truncated_matches_repro_eval():
    document_order = pytest.importorskip("repro_eval.measure.document_order")
    rng = np.random.default_rng(5)
    for _ in range(60):
        n = int(rng.integers(1, 40))
        a = rng.permutation(n)[: rng.integers(0, n + 1)]
        b = rng.permutation(n)[: rng.integers(0, n + 1)]
        depth, p = int(rng.integers(1, 50)), float(rng.uniform(0.5, 0.99))
        ref = document_order._rbo(list(b), list(a), p=p, depth=depth)
        got = rbo_truncated(_positions(a, n)[None], _positions(b, n)[None], p, depth)[0]
        assert got == pytest.approx(ref, abs=1e-12)


def test_top_k_overlap():
    pa = _positions([0, 1, 2, 3, 4], 5)[None]
    pb = _positions([4, 1, 0, 3, 2], 5)[None]
    assert top_k_overlap(pa, pb, 3)[0] == pytest.approx(2 / 3)
    assert top_k_overlap(pa, pb, 5)[0] == 1.0


def test_kendall_tau_b_rows_matches_scipy_with_ties():
    rng = np.random.default_rng(9)
    x = rng.integers(0, 4, size=(30, 25)).astype(float)
    y = rng.integers(0, 4, size=(30, 25)).astype(float)
    lengths = rng.integers(0, 26, 30)
    got = kendall_tau_b_rows(x, y, lengths)
    for r in range(30):
        n = lengths[r]
        ref = scipy.stats.kendalltau(x[r, :n], y[r, :n]).statistic if n >= 2 else np.nan
        if np.isnan(ref):
            assert np.isnan(got[r])
        else:
            assert got[r] == pytest.approx(ref, abs=1e-12)


def test_inversions_against_counting_pairs():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 6, size=(40, 33)).astype(float)
    lengths = rng.integers(0, 34, 40)
    got = inversions(y, lengths)
    ref = [sum(y[r, i] > y[r, j] for i in range(n) for j in range(i + 1, n)) for r, n in enumerate(lengths)]
    assert got.tolist() == ref
