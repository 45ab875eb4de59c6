r"""Means that tie when they are equal: correctly rounded sums, and the tie groups of a ranking.

A system mean computed with floating-point sums depends on the order the values are added in:
two systems with the same per-query P@10 values in another order (mean exactly 47/100) can
get 0.4700000000000001 and 0.4699999999999999, and whether they tie then depends on the row
order or on which other measures share the frame. Every function that ranks systems by their
mean and treats equal means as ties (rank correlations, leaderboards, rank-biased overlap)
reads the means from :func:`exact_means` / :func:`exact_group_means`: the sum of the values is
correctly rounded (``math.fsum``, Shewchuk 1997), so means whose values have equal exact sums
(and the same count) are the same double, whatever the order of the values.

:func:`tie_groups` gives each item of a ranking by those means its tie group (first position
and size), from which the tie-aware statistics are computed (mid-ranks, expected overlaps).

:func:`exact_resampled_means` gives the same means for resampled queries (bootstrap
replicates, query subsets), all replicates at once: replicate b's mean of column s is
bit for bit :func:`exact_means` of the column's values repeated as ``counts[b]`` says, so
observed and resampled leaderboards share one definition of a tie.

References
----------
Shewchuk, J. R. (1997). Adaptive precision floating-point arithmetic and fast robust
geometric predicates. Discrete & Computational Geometry 18.
"""

from __future__ import annotations

import math

import numpy as np

from pdireval.core.chunking import chunks

__all__ = [
    "exact_means",
    "exact_group_means",
    "exact_resampled_means",
    "tie_groups",
    "mid_ranks",
]


def exact_means(matrix) -> np.ndarray:
    """Mean of every column of ``matrix`` (n × P), NaN values skipped, from a correctly
    rounded sum: Σ x (``math.fsum``) / count. A column without a value gives NaN.

    Columns holding the same values in any order, or any values with the same exact sum and
    count, get the same double.
    """
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    out = np.full(x.shape[1], np.nan)
    present = ~np.isnan(x)
    counts = present.sum(axis=0)
    for j in np.flatnonzero(counts):  # one C-level fsum per column
        column = x[:, j]
        out[j] = math.fsum(column[present[:, j]]) / counts[j]
    return out


def exact_group_means(values, groups, n_groups: int) -> np.ndarray:
    """Mean of ``values`` per group code (``groups``: ints in [0, n_groups)), NaN skipped, as
    :func:`exact_means` computes it. A group without a value gives NaN."""
    v = np.asarray(values, dtype=np.float64)
    g = np.asarray(groups, dtype=np.int64)
    keep = ~np.isnan(v)
    v, g = v[keep], g[keep]
    order = np.argsort(g, kind="stable")
    v, g = v[order], g[order]
    bounds = np.searchsorted(g, np.arange(n_groups + 1))
    out = np.full(n_groups, np.nan)
    for k in np.flatnonzero(np.diff(bounds)):
        out[k] = math.fsum(v[bounds[k] : bounds[k + 1]]) / (bounds[k + 1] - bounds[k])
    return out


#: bits of the integer window that is rounded to odd before the final rounding to a double
#: (any width >= 53 + 2 gives the correctly rounded sum; 62 keeps it inside int64)
_WINDOW = 62


def exact_resampled_means(matrix, counts) -> np.ndarray:
    r"""Means of the columns of ``matrix`` (n × m) over resampled rows: a B × m matrix.

    ``counts`` (B × n, non-negative integers, e.g. a bootstrap count matrix) says how often
    each row occurs in replicate b. Entry (b, s) is Σ_i counts[b, i] x_is over the non-NaN
    values, correctly rounded, divided by Σ_i counts[b, i] [x_is not NaN] — bit for bit
    :func:`exact_means` of the resampled column (NaN where it has no value). So two columns
    whose resampled values have equal exact sums (e.g. systems whose per-query values are
    permutations of each other's across queries resampled alike, or whose values equal theirs
    over the drawn queries) get the same double in every replicate, and a replicate that
    draws every query once gives the observed mean: ties in replicates are the ties of the
    observed leaderboard. ``counts @ x / n`` rounds in an order that depends on the values,
    and splits such ties by an ulp.

    Exact, vectorised: every value is split on one grid of its column block into K signed
    integer limbs of w bits, x = Σ_k L_k 2^(e_lo + k w), with w such that n 2^w <= 2^53; then
    ``counts @ L_k`` (one matrix product for all limbs) is an exact integer in float64
    whatever the summation order. The limb sums are carried into base-2^w digits in int64
    (the sign from a signed pass), the top 62 bits of the exact sum are taken with the lower
    bits folded into a sticky bit (rounding to odd), and that integer is rounded once to a
    double: rounding to odd at 62 >= 53 + 2 bits followed by rounding to nearest gives the
    correctly rounded sum (Boldo & Melquiond 2008), as ``math.fsum`` (Shewchuk 1997) does.
    Values must be finite or NaN. The work is K matrix products (K = 2 or 3 for values in
    [1e-5, 1], at most about 25 for the range of a scores frame) in chunks of replicates.
    """
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim == 1:
        c = c[None, :]
    n, m = x.shape
    b = c.shape[0]
    valid = ~np.isnan(x)
    x0 = np.where(valid, x, 0.0)
    if not np.isfinite(x0).all():
        raise ValueError("exact_resampled_means needs finite values (NaN is skipped)")
    if (c < 0).any() or (c != np.floor(c)).any():
        raise ValueError("exact_resampled_means needs counts that are non-negative integers")
    size = c @ valid.astype(np.float64) if not valid.all() else c.sum(axis=1)[:, None]
    out = np.zeros((b, m))
    magnitude = np.abs(x0)
    present = magnitude[magnitude > 0]
    if present.size and b:
        total = max(float(c.sum(axis=1).max()), 1.0)
        width = min(53 - math.ceil(math.log2(total)), 53)
        if width < 1:
            raise ValueError("exact_resampled_means: more than 2**52 draws in a replicate")
        _, exps = np.frexp(present)
        e_hi = int(exps.max())  # |x| < 2**e_hi
        e_lo = max(int(exps.min()) - 53, -1074)  # every bit of every value is >= 2**e_lo
        n_limbs = max(1, -(-(e_hi - e_lo) // width))
        limbs = np.empty((n, n_limbs, m))
        rest = magnitude
        for k in range(n_limbs - 1, -1, -1):  # peel limbs from the top: exact operations
            q = np.floor(np.ldexp(rest, -(e_lo + k * width)))
            limbs[:, k, :] = q
            rest = rest - np.ldexp(q, e_lo + k * width)
        limbs *= np.sign(x0)[:, None, :]
        flat = limbs.reshape(n, n_limbs * m)
        # digits beyond the limbs that the carries may need: |limb sum| < 2**53
        n_digits = n_limbs + 53 // width + 2
        for part in chunks(b, n + 4 * n_digits * m):
            sums = (c[part] @ flat).reshape(-1, n_limbs, m)  # exact integers
            out[part] = _round_exact(sums.astype(np.int64), width, n_digits, e_lo)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(size > 0, out / size, np.nan)


def _digits(sums: np.ndarray, width: int, n_digits: int) -> list[np.ndarray]:
    """Base-2**width digits in [0, 2**width) of Σ_k sums[:, k] 2**(k width) (the last digit
    keeps the sign: it is -1 for a negative total)."""
    mask = (1 << width) - 1
    carry = np.zeros(sums[:, 0].shape, dtype=np.int64)
    digits = []
    for k in range(n_digits):
        v = carry + (sums[:, k] if k < sums.shape[1] else 0)
        digits.append(v & mask)
        carry = v >> width  # floor division: the digits stay non-negative
    digits[-1] = digits[-1] + (carry << width)
    return digits


def _round_exact(sums: np.ndarray, width: int, n_digits: int, e_lo: int) -> np.ndarray:
    """The correctly rounded double of Σ_k sums[:, k] 2**(e_lo + k width) (B × K × m int64)."""
    negative = _digits(sums, width, n_digits)[-1] < 0
    digits = np.stack(_digits(np.where(negative[:, None, :], -sums, sums), width, n_digits))
    nonzero = digits != 0
    top = n_digits - 1 - np.argmax(nonzero[::-1], axis=0)  # highest nonzero digit
    lead = np.take_along_axis(digits, top[None], axis=0)[0]
    bits = top * width + np.frexp(lead.astype(np.float64))[1]  # bit length of the sum
    shift = np.maximum(bits - _WINDOW, 0)  # the window holds bits [shift, shift + 62)
    window = np.zeros_like(lead)
    sticky = np.zeros(lead.shape, dtype=bool)
    for k in range(n_digits):
        pos = k * width - shift  # where digit k's lowest bit lands in the window
        d = digits[k]
        window += np.where(pos >= 0, d << np.clip(pos, 0, _WINDOW), 0)
        right = np.clip(-pos, 0, width)
        window += np.where(pos < 0, d >> right, 0)
        sticky |= (pos < 0) & ((d & ((np.int64(1) << right) - 1)) != 0)
    window |= sticky.astype(np.int64)  # round to odd at 62 bits
    value = np.ldexp(window.astype(np.float64), (e_lo + shift).astype(np.int32))
    value[~nonzero.any(axis=0)] = 0.0
    return np.where(negative, -value, value)


def tie_groups(means, descending: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Tie group of every item ranked by ``means`` (descending by default): ``(start, size)``,
    the 0-based first position of its group and the group's size. Equal means tie (read them
    from :func:`exact_means`); NaN means come last, as one group.
    """
    m = np.asarray(means, dtype=np.float64)
    key = np.where(np.isnan(m), np.inf, -m if descending else m)
    ordered = np.sort(key)
    start = np.searchsorted(ordered, key, side="left")
    size = np.searchsorted(ordered, key, side="right") - start
    return start.astype(np.int64), size.astype(np.int64)


def mid_ranks(means, descending: bool = True) -> np.ndarray:
    """1-based mid-rank of every item ranked by ``means``: tied items share the mean of the
    positions of their group (start + (size + 1) / 2), so the ranks do not depend on names
    or row order."""
    start, size = tie_groups(means, descending)
    return start + (size + 1) / 2.0
