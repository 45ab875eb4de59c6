"""Label readings shared by all kernels: negative labels, condensed lists, gains, discounts.

A :class:`View` is a :class:`~pdireval.core.segments.Segments` seen under one reading of
the labels (``negatives=``) and optionally condensed (``judged_only=True``, Sakai 2007).
Kernels take a view and a measure and return one float per segment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pdireval.core.segments import Segments
from pdireval.errors import MeasureError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "View",
    "segment_bounds",
    "padded_accumulate",
    "integral_and_small",
    "view_of",
    "gain_values",
    "discount_weights",
    "seg_sum",
    "run_sums",
    "level_codes",
    "within_segment_cumsum",
    "within_segment_count",
    "within_segment_suffix_max",
    "suffix_max_within",
    "sorted_within_queries",
    "one_value",
]

NEGATIVES = ("unjudged", "nonrel", "keep")


def read_negatives(labels: np.ndarray, negatives: str) -> np.ndarray:
    """Apply a reading of negative labels.

    ``unjudged`` (default, trec_eval): a negative label counts as pooled but unjudged (NaN).
    ``nonrel``: judged non-relevant (label 0). ``keep``: a genuine negative label.
    """
    if negatives == "keep" or not np.any(labels < 0):
        return labels
    out = labels.copy()
    out[labels < 0] = np.nan if negatives == "unjudged" else 0.0
    return out


@dataclass
class View:
    """Hits and judgments under one label reading.

    Attributes
    ----------
    n_seg, seg_query, seg_len
        Segment count, query index per segment, list length per segment (condensed length
        when ``judged_only``).
    hit_seg, hit_pos, hit_label
        Hits in segment / position order (positions closed up when ``judged_only``).
    q_label, q_start
        The qrels labels under the same reading, grouped by query.
    """

    segments: Segments
    n_seg: int
    seg_query: np.ndarray
    seg_len: np.ndarray
    hit_seg: np.ndarray
    hit_pos: np.ndarray
    hit_label: np.ndarray
    q_label: np.ndarray
    q_start: np.ndarray
    negatives: str
    judged_only: bool
    hit_qrow: np.ndarray | None = None  # per hit: its judgments row (None if unknown)

    @property
    def n_queries(self) -> int:
        return len(self.q_start) - 1

    @property
    def q_row_query(self) -> np.ndarray:
        return self.segments.judgments.row_query

    def per_query_count(self, mask: np.ndarray) -> np.ndarray:
        """Count of qrels rows satisfying ``mask`` per query."""
        return np.bincount(self.q_row_query[mask], minlength=self.n_queries).astype(np.float64)

    def num_rel(self, rel: float) -> np.ndarray:
        """R per query: judged documents with label >= rel."""
        return self.per_query_count(self.q_label >= rel)

    def num_judged_nonrel(self, rel: float) -> np.ndarray:
        """Judged non-relevant documents per query (label < rel, not NaN)."""
        return self.per_query_count(~np.isnan(self.q_label) & (self.q_label < rel))


def view_of(segments: Segments, *, negatives: str = "unjudged", judged_only: bool = False) -> View:
    """The (cached) view of ``segments`` under a reading of the labels."""
    key = ("view", negatives, judged_only)
    if key in segments.cache:
        return segments.cache[key]
    hit_label = read_negatives(segments.hit_label, negatives)
    q_label = read_negatives(segments.judgments.label, negatives)
    hit_seg, hit_pos, seg_len = segments.hit_seg, segments.hit_pos, segments.seg_len
    hit_qrow = segments.hit_qrow
    if judged_only:
        keep = ~np.isnan(hit_label)
        hit_seg, hit_label = hit_seg[keep], hit_label[keep]
        hit_qrow = None if hit_qrow is None else hit_qrow[keep]
        hit_pos = within_segment_rank(hit_seg)
        seg_len = np.bincount(hit_seg, minlength=segments.n_segments).astype(np.int64)
    view = View(
        segments=segments,
        n_seg=segments.n_segments,
        seg_query=segments.seg_query,
        seg_len=seg_len,
        hit_seg=hit_seg,
        hit_pos=hit_pos,
        hit_label=hit_label,
        q_label=q_label,
        q_start=segments.judgments.start,
        negatives=negatives,
        judged_only=judged_only,
        hit_qrow=hit_qrow,
    )
    segments.cache[key] = view
    return view


# --------------------------------------------------------------------------- array helpers


def seg_sum(seg: np.ndarray, values, n: int) -> np.ndarray:
    """Sum of ``values`` per segment (0 for an empty segment)."""
    return np.bincount(
        seg, weights=np.broadcast_to(values, seg.shape).astype(np.float64), minlength=n
    )


def run_sums(values: np.ndarray, seg: np.ndarray, bounds, n: int) -> np.ndarray:
    """Sum of ``values`` per segment (0 for a segment without elements), given ``bounds``,
    the :func:`segment_bounds` of ``seg`` (sorted; None when empty).

    Each segment's run is added by ``np.add.reduceat`` (its first value plus numpy's
    pairwise sum of the others: a segment's sum is that of its run alone, whatever the other
    segments), several times cheaper per element than ``np.bincount``'s weighted loop on
    long runs. When no run is longer than
    2, ``np.bincount`` gives the same bits (``0 + a + b == a + b``) and is cheaper per run.
    The same sums as :func:`seg_sum` up to rounding (to the bit for runs of up to 2).
    """
    if bounds is None or len(values) == 0:
        return np.zeros(n)
    _, first, lengths = bounds
    if len(first) == len(values) or lengths.max() <= 2:
        return np.bincount(seg, weights=values, minlength=n)
    out = np.zeros(n)
    out[seg[first]] = np.add.reduceat(values, first)
    return out


def level_codes(levels: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Index of each value in ``levels`` (sorted, distinct; every value is one of them):
    ``np.searchsorted(levels, values)``, read off the values directly when the levels are
    consecutive integers (the usual labels 0, 1, 2, ...: several times cheaper)."""
    K = len(levels)
    if K and levels[-1] - levels[0] == K - 1 and np.array_equal(levels, levels[0] + np.arange(K)):
        return (values - levels[0]).astype(np.intp)
    return np.searchsorted(levels, values)


def within_segment_rank(seg: np.ndarray) -> np.ndarray:
    """0-based index of each element within its run of equal ``seg`` values (seg sorted)."""
    n = len(seg)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    _, first, lengths = segment_bounds(np.asarray(seg))
    return np.arange(n) - np.repeat(first, lengths)


def sorted_per_query(
    query: np.ndarray, gains: np.ndarray, *, descending: bool = True, return_bounds: bool = False
):
    """Gains grouped by query and sorted within each (descending: the ideal ranking; ascending:
    the worst one), with each gain's 0-based position: ``(query, gains, position)`` (and the
    queries' :func:`segment_bounds` with ``return_bounds``). Every ideal and worst ranking of
    the kernels is built here."""
    if len(query) > 1:
        same = query[1:] == query[:-1]
        step = gains[1:] <= gains[:-1] if descending else gains[1:] >= gains[:-1]
        if not np.all(step | ~same) or np.any(query[1:] < query[:-1]):  # else already in order
            order = np.lexsort((-gains if descending else gains, query))
            query, gains = query[order], gains[order]
    if not len(query):
        empty = np.zeros(0, dtype=np.int64)
        return (query, gains, empty, None) if return_bounds else (query, gains, empty)
    bounds = segment_bounds(query)
    position = np.arange(len(query)) - np.repeat(bounds[1], bounds[2])
    return (query, gains, position, bounds) if return_bounds else (query, gains, position)


def sorted_within_queries(query: np.ndarray, gains: np.ndarray, *, descending: bool = True):
    """:func:`sorted_per_query` for ``query`` already grouped in ascending order (rows taken
    from the judgments, which are grouped by query): ``(query, gains, position, bounds)``
    with ``bounds`` the queries' :func:`segment_bounds` (None when empty). The same result
    with fewer passes: the query runs are found first (sorting within them does not move
    them), then the gains are sorted only if some run is out of order."""
    if not len(query):
        return query, gains, np.zeros(0, dtype=np.int64), None
    bounds = segment_bounds(query)
    is_first, first, lengths = bounds
    if len(first) < len(query):
        step = gains[1:] <= gains[:-1] if descending else gains[1:] >= gains[:-1]
        step |= is_first[1:]
        if not step.all():
            order = np.lexsort((-gains if descending else gains, query))
            query, gains = query[order], gains[order]
        position = np.arange(len(query)) - np.repeat(first, lengths)
    else:
        position = np.zeros(len(query), dtype=np.int64)
    return query, gains, position, bounds


def segment_bounds(seg: np.ndarray):
    """(is_first, first, lengths) of the runs of equal ``seg`` (seg sorted, non-empty)."""
    n = len(seg)
    is_first = np.empty(n, dtype=bool)
    is_first[0] = True
    np.not_equal(seg[1:], seg[:-1], out=is_first[1:])
    first = np.flatnonzero(is_first)
    lengths = np.diff(np.append(first, n))
    return is_first, first, lengths


#: Largest magnitude below which float64 sums of integers are exact (2^53).
_EXACT_INTEGER_SUM = float(2**53)


#: Up to this segment length, accumulations step through the positions directly (no matrix).
_SHORT_SEGMENTS = 8

#: From this many segments on, a padded matrix is accumulated one column at a time (one
#: vectorised step per position, across all segments), below it row by row (``axis=1``).
_COLUMN_LOOP_ROWS = 256


def padded_accumulate(
    first: np.ndarray, lengths: np.ndarray, values: np.ndarray, ufunc, pad: float
) -> np.ndarray:
    """``ufunc.accumulate`` of ``values`` restarted at every segment (given by ``first`` and
    ``lengths``), left to right within each segment, bit for bit as on the segment alone.

    Segments of at most ``_SHORT_SEGMENTS`` elements are stepped through position by
    position (element c of every segment from element c - 1, on those elements only).
    Longer ones become the rows of a padded matrix (``pad`` past a segment's end) accumulated
    along the rows: with many segments as ``out[:, c] = ufunc(out[:, c-1], x[:, c])`` for
    each position c in turn (the same operations in the same order as a row's own
    accumulation, vectorised across segments), with few as ``ufunc.accumulate(axis=1)``.
    Segments are grouped by length class (lengths in (2^(c-1), 2^c]) when one matrix as wide
    as the longest segment would hold more than 4x the cells (a padded cell costs a fraction
    of what the extra gathers of the grouping cost); the loop is over those classes (at
    most ~log2 of the longest segment).
    """
    n = len(values)
    width = int(lengths.max())
    if (
        width <= _SHORT_SEGMENTS
    ):  # short segments: one step per position, on that position's elements
        rank = np.arange(n) - np.repeat(first, lengths)
        out = values.astype(np.float64, copy=True)
        for c in range(1, width):
            at = np.flatnonzero(rank == c)
            out[at] = ufunc(out[at - 1], values[at])
        return out
    out = np.empty(n, dtype=np.float64)
    if len(lengths) * width <= 4 * n + 4096:
        groups: Sequence[np.ndarray | None] = [None]
    else:
        cls = np.ceil(np.log2(lengths)).astype(np.int16)
        order = np.argsort(cls, kind="stable")  # over segments, not elements
        bounds = np.flatnonzero(np.diff(cls[order])) + 1
        groups = np.split(order, bounds)
    for group in groups:
        if group is None:
            g_len, total, offsets, elem = lengths, n, first, None
            vals = values
        else:
            g_len = lengths[group]
            total = int(g_len.sum())
            offsets = np.cumsum(g_len) - g_len
            elem = np.arange(total) + np.repeat(first[group] - offsets, g_len)
            vals = values[elem]
        width = int(g_len.max())
        rows = len(g_len)
        if width == 1:
            acc = vals
        elif rows >= _COLUMN_LOOP_ROWS:  # (width, rows): position c of every segment is row c
            col = np.arange(total) - np.repeat(offsets, g_len)
            flat = col * rows + np.repeat(np.arange(rows), g_len)
            mat: np.ndarray = np.full(rows * width, pad, dtype=np.float64)
            mat[flat] = vals
            mat = mat.reshape(width, rows)
            for c in range(1, width):
                ufunc(mat[c - 1], mat[c], out=mat[c])
            acc = mat.ravel()[flat]
        else:  # (rows, width): one row per segment
            flat = np.arange(total) + np.repeat(np.arange(rows) * width - offsets, g_len)
            mat = np.full(rows * width, pad, dtype=np.float64)
            mat[flat] = vals
            mat = mat.reshape(rows, width)
            ufunc.accumulate(mat, axis=1, out=mat)
            acc = mat.ravel()[flat]
        if elem is None:
            out[:] = acc
        else:
            out[elem] = acc
    return out


def integral_and_small(values: np.ndarray) -> bool:
    """All values integers and their absolute sum below 2^53 (so every partial sum, in any
    order, is exact)."""
    return bool(np.abs(values).sum() < _EXACT_INTEGER_SUM) and np.array_equal(
        values, np.floor(values)
    )


def within_segment_cumsum(
    seg: np.ndarray, values: np.ndarray, inclusive: bool = True, *, bounds=None
) -> np.ndarray:
    """Cumulative sum of ``values`` within each run of equal ``seg`` (seg sorted).

    The sum restarts at every segment: element i of a segment gets exactly
    ``np.cumsum(segment_values)[i]`` (``inclusive``) or the sum of the elements before it
    (0.0 for the first), bit for bit, whatever the other segments are. (One global
    cumulative sum minus each segment's prefix would make a segment's last bits depend on
    the segments before it, so a system's score would change with the other systems and
    queries evaluated alongside, or with a Dask partitioning.)

    Vectorised: integer values whose absolute sum stays below 2^53 (counts, linear gains
    of integer labels) take one global cumulative sum minus each segment's prefix, exact
    because every partial sum is an exactly represented integer; other values are laid out
    as the rows of a padded matrix and summed along the rows (``np.cumsum(axis=1)`` adds
    left to right within each row), see :func:`padded_accumulate`. ``bounds`` may pass
    ``segment_bounds(seg)`` when the caller already has it.
    """
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    is_first, first, lengths = segment_bounds(np.asarray(seg)) if bounds is None else bounds
    if len(first) == n:  # one element per segment
        return values.copy() if inclusive else np.zeros(n)
    head = values[:64]  # most float data shows it is not integral in its first values
    if np.array_equal(head, np.floor(head)) and integral_and_small(values):
        out = np.cumsum(values)
        base = out[first] - values[first]  # exact: integers below 2^53
        out -= np.repeat(base, lengths)
    else:
        out = padded_accumulate(first, lengths, values, np.add, 0.0)
    if inclusive:
        return out
    before = np.empty(n, dtype=np.float64)
    before[0] = 0.0
    before[1:] = out[:-1]
    before[is_first] = 0.0
    return before


def within_segment_count(seg: np.ndarray, mask: np.ndarray, inclusive: bool = True) -> np.ndarray:
    """Number of True ``mask`` elements within each run of equal ``seg`` (seg sorted) up to
    and including each element (``inclusive``) or before it, as float64 (integer arithmetic:
    the same numbers as ``within_segment_cumsum(seg, mask)``, cheaper)."""
    n = len(mask)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    _, first, lengths = segment_bounds(np.asarray(seg))
    counts = np.cumsum(mask, dtype=np.int64)
    base = counts[first]
    if inclusive:
        base = base - np.asarray(mask[first], dtype=np.int64)
    else:
        counts -= np.asarray(mask, dtype=np.int64)
        base = counts[first]
    counts -= np.repeat(base, lengths)
    return counts.astype(np.float64)


def within_segment_suffix_max(seg: np.ndarray, values: np.ndarray) -> np.ndarray:
    """max(values[j] for j >= i in i's segment), for each i (seg sorted; exact)."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return values.copy()
    _, first, lengths = segment_bounds(np.asarray(seg)[::-1])
    if len(first) == len(values):  # one element per segment
        return values.copy()
    return padded_accumulate(first, lengths, values[::-1], np.maximum, -np.inf)[::-1]


def one_value(values: np.ndarray) -> bool:
    """True when all ``values`` are equal (or there are none): the kernels' test for the
    usual binary qrels, whose ideal rankings are then all alike (n copies of one gain) and
    need no sort (tests disable it to compare those shortcuts with the general path)."""
    if len(values) > 1 and values[0] != values[-1]:  # graded qrels usually show it here
        return False
    return not len(values) or bool(values.min() == values.max())


def suffix_max_within(values: np.ndarray, first: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """:func:`within_segment_suffix_max` given the segments' ``first`` element and ``lengths``
    (from :func:`segment_bounds` of the sorted segment array, which the caller usually has
    already): max(values[j] for j >= i in i's segment), exact."""
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if len(first) == n:  # one element per segment (or none)
        return values.copy()
    rev_first = (n - first - lengths)[::-1]  # the segments' first elements in the reversed array
    return padded_accumulate(rev_first, lengths[::-1], values[::-1], np.maximum, -np.inf)[::-1]


# --------------------------------------------------------------------------- gains / discounts

GAINS = ("linear", "exp")
DISCOUNTS = ("log2", "zipf", "linear", "jk")


def gain_values(labels: np.ndarray, gain) -> np.ndarray:
    """Gain of each label: ``linear`` = label, ``exp`` = 2^label - 1, or a mapping.

    NaN labels (unjudged) get gain 0; with a mapping, labels it does not list get 0.
    """
    labels = np.asarray(labels, dtype=np.float64)
    if gain == "linear":
        out = labels.copy()
    elif gain == "exp":
        out = np.exp2(labels) - 1.0
    else:
        mapping = dict(gain)
        keys = np.array(sorted(mapping), dtype=np.float64)
        vals = np.array([mapping[k] for k in sorted(mapping)], dtype=np.float64)
        idx = np.clip(np.searchsorted(keys, labels), 0, max(len(keys) - 1, 0))
        found = len(keys) > 0
        out = (
            np.where(found & (keys[idx] == labels), vals[idx], 0.0)
            if found
            else np.zeros_like(labels)
        )
    out[np.isnan(labels)] = 0.0
    return out


def discount_weights(positions: np.ndarray, discount, cutoff: float | None) -> np.ndarray:
    """Weight of 0-based ``positions`` (rank i = position + 1).

    ``log2``: 1/log2(i+1); ``zipf``: 1/i; ``jk``: 1/max(1, log2 i); ``linear``: (k+1-i)/k
    (needs a cut-off); a vector: its i-th entry, 0 past its end.
    """
    ranks = np.asarray(positions, dtype=np.float64) + 1.0
    if discount == "log2":
        return 1.0 / np.log2(ranks + 1.0)
    if discount == "zipf":
        return 1.0 / ranks
    if discount == "jk":
        return 1.0 / np.maximum(1.0, np.log2(ranks))
    if discount == "linear":
        if cutoff is None:
            raise MeasureError(
                "discount=linear needs a cut-off: write e.g. 'nDCG(discount=linear)@10'."
            )
        return np.maximum(cutoff + 1.0 - ranks, 0.0) / cutoff
    weights = np.asarray(discount, dtype=np.float64)
    pos = np.asarray(positions, dtype=np.int64)
    out = np.zeros(len(pos), dtype=np.float64)
    inside = pos < len(weights)
    out[inside] = weights[pos[inside]]
    return out
