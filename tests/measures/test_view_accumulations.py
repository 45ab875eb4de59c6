"""The segmented accumulations of measures.view, bit for bit against each segment alone.

Every path is exercised: one element per segment, short segments (stepped position by
position), many long segments (a matrix accumulated one position at a time), few long
segments (row by row), lengths spread widely enough to be grouped by length class, integer
values (one global cumulative sum) and floats of every scale.
"""

from __future__ import annotations

import numpy as np
import pytest

from pdireval.measures.view import (
    level_codes,
    run_sums,
    seg_sum,
    segment_bounds,
    within_segment_count,
    within_segment_cumsum,
    within_segment_rank,
    within_segment_suffix_max,
)

SHAPES = {
    "singletons": lambda rng: np.ones(500, dtype=np.int64),
    "pairs": lambda rng: rng.integers(1, 3, 600),
    "short": lambda rng: rng.integers(1, 9, 700),
    "many long": lambda rng: rng.integers(20, 60, 400),
    "few long": lambda rng: rng.integers(100, 400, 12),
    "spread": lambda rng: np.concatenate([rng.integers(1, 4, 300), rng.integers(500, 900, 3), rng.integers(30, 40, 300)]),
}
VALUES = {
    "floats": lambda rng, n: rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n),
    "integers": lambda rng, n: rng.integers(-5, 9, n).astype(np.float64),
    "probabilities": lambda rng, n: np.log1p(-rng.random(n) * 0.9),
}


def segments(shape: str, seed: int):
    rng = np.random.default_rng(seed)
    lengths = SHAPES[shape](rng)
    rng.shuffle(lengths)
    ids = np.sort(rng.choice(10**7, len(lengths), replace=False))
    return rng, np.repeat(ids, lengths), np.r_[0, np.cumsum(lengths)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", VALUES)
def test_each_segment_accumulated_alone(shape, kind):
    rng, seg, start = segments(shape, 10 * list(SHAPES).index(shape) + list(VALUES).index(kind))
    values = VALUES[kind](rng, len(seg))
    mask = rng.random(len(seg)) < 0.4
    inclusive = within_segment_cumsum(seg, values)
    exclusive = within_segment_cumsum(seg, values, inclusive=False)
    counts = within_segment_count(seg, mask)
    counts_before = within_segment_count(seg, mask, inclusive=False)
    suffix = within_segment_suffix_max(seg, values)
    rank = within_segment_rank(seg)
    for a, b in zip(start[:-1], start[1:]):
        alone = np.cumsum(values[a:b])
        assert np.array_equal(inclusive[a:b], alone)
        assert np.array_equal(exclusive[a:b], np.r_[0.0, alone[:-1]])
        assert np.array_equal(counts[a:b], np.cumsum(mask[a:b]))
        assert np.array_equal(counts_before[a:b], np.r_[0, np.cumsum(mask[a:b])[:-1]])
        assert np.array_equal(suffix[a:b], np.maximum.accumulate(values[a:b][::-1])[::-1])
        assert np.array_equal(rank[a:b], np.arange(b - a))


def test_large_integers_take_the_float_path_exactly():
    """Integers whose sum passes 2^53 are not summed globally (that would round)."""
    rng, seg, start = segments("many long", 7)
    values = rng.integers(1, 1000, len(seg)).astype(np.float64) * 2.0**50
    out = within_segment_cumsum(seg, values)
    for a, b in zip(start[:-1], start[1:]):
        assert np.array_equal(out[a:b], np.cumsum(values[a:b]))


@pytest.mark.parametrize("shape", SHAPES)
def test_run_sums_add_each_segment_alone(shape):
    # a segment's sum is that of its values alone (np.add.reduceat on the run by itself),
    # whatever the other segments: bincount for runs of at most 2 gives the same bits
    rng, seg, start = segments(shape, 50 + list(SHAPES).index(shape))
    values = VALUES["floats"](rng, len(seg))
    codes = np.searchsorted(np.unique(seg), seg)  # segment ids 0..n-1, some ids left empty
    codes = codes * 2
    n = int(codes[-1]) + 2
    out = run_sums(values, codes, segment_bounds(codes), n)
    assert out.shape == (n,) and np.all(out[1::2] == 0.0)
    for i, (a, b) in enumerate(zip(start[:-1], start[1:])):
        assert out[2 * i] == np.add.reduceat(values[a:b], [0])[0]
    np.testing.assert_allclose(out, seg_sum(codes, values, n), rtol=1e-12, atol=1e-300 + 1e-12 * np.abs(values).max())
    assert np.array_equal(run_sums(values[:0], codes[:0], None, 3), np.zeros(3))


@pytest.mark.parametrize(
    "levels",
    [[1.0], [0.0, 1.0, 2.0], [-1.0, 0.0, 1.0, 2.0, 3.0], [0.5, 1.5, 2.5], [0.0, 2.0, 5.0], [0.0, 0.5, 1.0], [1.0, 2.0, 4.0, 5.0]],
)
def test_level_codes_are_the_sorted_positions(levels):
    levels = np.array(levels)
    values = np.random.default_rng(len(levels)).choice(levels, 500)
    codes = level_codes(levels, values)
    assert np.array_equal(codes, np.searchsorted(levels, values))
    assert np.array_equal(levels[codes], values)
