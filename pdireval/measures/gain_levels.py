"""trec_eval's gain levels (``gains={label: gain}``, ``-m ndcg.1=g1,2=g2``), shared by the
measures that read them (nDCG(gains=...), ndcg_p, ndcg_rel, Rndcg, G): the gain of a label,
the ideal ranking's gains per query with cumulative sums, the R-levels, and the
gain-bearing hits of a list.

trec_eval sorts gain levels with a comparator that truncates gain differences to integers, so
with fractional gains that differ by less than 1 its ideal ranking can be out of order or
empty; :func:`pdireval.evaluate` always sorts exactly (identical whenever distinct gains differ
by at least 1, and whenever glibc's qsort happens to leave the table in gain order), while
``pdireval trec_eval`` reproduces the binary's order (:mod:`pdireval.trec.trec_kernels`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pdireval.measures.registry import freeze
from pdireval.measures.ties.groups import linear_expectation, tie_groups
from pdireval.measures.toolkit import safe_div, view_for
from pdireval.measures.view import (
    View,
    seg_sum,
    segment_bounds,
    sorted_within_queries,
    within_segment_cumsum,
    within_segment_rank,
)

__all__ = [
    "trec_gain",
    "IdealGains",
    "RLevels",
    "GainHits",
    "positive_gains",
    "r_levels",
    "ideal_gains",
    "ideal_dcg",
    "gain_hits",
    "segment_totals",
    "trec_ndcg",
    "weights_until",
    "log2_discount",
    "jk_discount",
    "expected_trec_dcg",
]


def trec_gain(labels: np.ndarray, gains) -> np.ndarray:
    """Gain of each label under trec_eval's levels: the label itself, or ``gains[label]`` when
    the mapping lists it; unjudged (NaN) -> 0."""
    labels = np.asarray(labels, dtype=np.float64)
    out = labels.copy()
    if gains is not None:
        for level, value in dict(gains).items():  # a handful of levels
            out[labels == level] = value
    out[np.isnan(labels)] = 0.0
    return out


class IdealGains:
    """Per query, the positive gains of the judged documents sorted descending (trec_eval's
    ideal ranking), with cumulative sums for lookups at any depth."""

    def __init__(self, v: View, gains):
        keep, g = positive_gains(v, gains)
        rq = v.q_row_query[keep]  # grouped by query, ascending (the judgments' order)
        # self.rank: 0-based position in the ideal list
        self.query, self.gain, self.rank, self._bounds = sorted_within_queries(rq, g)
        self.n_queries = v.n_queries
        self.npos = np.bincount(self.query, minlength=v.n_queries).astype(np.int64)
        self.start = np.concatenate([[0], np.cumsum(self.npos)]).astype(np.int64)

    def cumulative(self, values: np.ndarray) -> np.ndarray:
        return within_segment_cumsum(self.query, values, bounds=self._bounds)

    def totals(self, values: np.ndarray) -> np.ndarray:
        """Per query: the sum of ``values`` over its ideal list, in list order (bit for bit
        the last entry of :meth:`cumulative`; 0 for a query without positive gains)."""
        return np.bincount(self.query, weights=values, minlength=self.n_queries)

    @cached_property
    def contrib(self) -> np.ndarray:
        """Per ideal entry: its DCG contribution gain / log2(rank + 1)."""
        return self.gain / np.log2(self.rank + 2.0)

    @cached_property
    def levels(self) -> RLevels:
        """The R-levels of every query (:class:`RLevels`)."""
        n = len(self.query)
        is_b = np.ones(n, dtype=bool)  # the last entry of every query's ideal list
        if n > 1:
            np.not_equal(self.gain[1:], self.gain[:-1], out=is_b[:-1])
            is_b[:-1] |= self._bounds[0][1:]  # a query's last entry (the next starts a query)
        b_index = np.flatnonzero(is_b)
        n_with = 0 if self._bounds is None else len(self._bounds[1])
        if len(b_index) == n_with:  # one level per query (one gain value, e.g. binary labels)
            idcg = self.totals(self.contrib)
            return RLevels(
                self.npos[None, :],
                idcg[None, :],
                (self.npos > 0).astype(np.float64),
                idcg,
                self.npos,
            )
        bq = self.query[b_index]
        level = within_segment_rank(bq)
        shape = (int(level.max()) + 1, self.n_queries)
        depth = np.zeros(shape, dtype=np.int64)
        depth[level, bq] = self.rank[b_index] + 1
        cum = self.cumulative(self.contrib)
        idcg = np.zeros(shape)
        idcg[level, bq] = cum[b_index]  # IDCG at a boundary: the ideal's own running sum there
        count = np.bincount(bq, minlength=self.n_queries).astype(np.float64)
        return RLevels(depth, idcg, count, self.totals(self.contrib), self.npos)

    def at_hits(self, cum: np.ndarray, seg_query: np.ndarray, seg: np.ndarray, depth: np.ndarray):
        """(cum summed over the first d = min(depth, npos) ideal positions, d) for hits of
        segments ``seg`` (:meth:`at` with the per-query lookups done once per segment)."""
        limit = self.npos[seg_query][seg]
        d = np.minimum(depth, limit)
        base = (self.start[:-1] - 1)[seg_query][seg]
        if len(d) and d.min() > 0:  # every lookup inside an ideal list
            return cum[base + d], d
        out = np.zeros(len(d))
        ok = d > 0
        out[ok] = cum[base[ok] + d[ok]]
        return out, d

    def at(self, cum: np.ndarray, query: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """cum summed over the first min(depth, npos) ideal positions of ``query``."""
        d = np.minimum(depth, self.npos[query])
        if len(d) and d.min() > 0:  # every lookup inside an ideal list
            return cum[self.start[query] + d - 1]
        out = np.zeros(len(query))
        ok = d > 0
        out[ok] = cum[self.start[query[ok]] + d[ok] - 1]
        return out


@dataclass
class RLevels:
    """Per query, its R-levels (the depths b where the ideal gain changes, the last being n⁺)
    as rows of (levels, queries) tables: ``depth[i, q]`` the i-th level's depth and
    ``idcg[i, q]`` the IDCG there (both 0 past the query's last level); ``count[q]`` its
    number of levels, ``idcg_all[q]`` its whole IDCG, ``npos[q]`` its n⁺."""

    depth: np.ndarray
    idcg: np.ndarray
    count: np.ndarray
    idcg_all: np.ndarray
    npos: np.ndarray


def positive_gains(v: View, gains):
    """(mask over the judgments, their gains) of the judged documents with a positive
    trec_eval gain, in judgments order (cached per label reading and gains)."""
    key = ("trec_positive_gains", v.negatives, freeze(gains))
    cache = v.segments.cache
    if key not in cache:
        if gains:
            g = trec_gain(v.q_label, gains)  # unjudged (NaN) -> 0
            keep = g > 0
            g = g[keep]
        else:  # the gain is the label: positive labels only (NaN compares False)
            keep = v.q_label > 0
            g = v.q_label[keep]
        cache[key] = (keep, g)
    return cache[key]


def r_levels(v: View, gains) -> RLevels:
    """The R-levels of every query (:class:`RLevels`)."""
    return ideal_gains(v, gains).levels


def ideal_gains(v: View, gains) -> IdealGains:
    key = ("trec_ideal", v.negatives, freeze(gains))
    cache = v.segments.cache
    if key not in cache:
        cache[key] = IdealGains(v, gains)
    return cache[key]


def ideal_dcg(v: View, gains):
    key = ("trec_ideal_dcg", v.negatives, tuple(sorted(dict(gains or {}).items())))
    cache = v.segments.cache
    if key not in cache:
        ideal = ideal_gains(v, gains)
        cache[key] = ideal.cumulative(ideal.contrib)
    return cache[key]


def gain_hits(v: View, gains) -> GainHits:
    """The hits with a non-zero trec_eval gain, in segment order (:class:`GainHits`), cached
    per label reading. Hits with gain 0 add nothing to any sum of these measures, so the
    kernels read only these."""
    key = ("trec_gain_hits", v.negatives, v.judged_only, freeze(gains))
    cache = v.segments.cache
    if key not in cache:
        lab = v.hit_label
        if dict(gains or {}).get(0, 0.0) == 0:  # label 0 (and unjudged) -> gain 0: skip them
            idx = np.flatnonzero(np.abs(lab) > 0)  # NaN compares False
            g = trec_gain(lab[idx], gains) if gains else lab[idx]  # no NaN among these
            if gains:
                keep = g != 0
                if not keep.all():
                    idx, g = idx[keep], g[keep]
        else:
            g = trec_gain(lab, gains)
            idx = np.flatnonzero(g)
            g = g[idx]
        cache[key] = GainHits(
            v.hit_seg[idx].astype(np.int64, copy=False),
            v.hit_pos[idx].astype(np.int64, copy=False),
            g,
        )
    return cache[key]


@dataclass
class GainHits:
    """Hits with a non-zero gain: segment, position, gain; ``contrib`` = gain / log2(i + 1)
    (the DCG contribution) is computed on first use."""

    seg: np.ndarray
    pos: np.ndarray
    gain: np.ndarray

    @cached_property
    def contrib(self) -> np.ndarray:
        return self.gain / np.log2(self.pos + 2.0)

    @cached_property
    def bounds(self):
        """:func:`segment_bounds` of ``seg`` (None without hits)."""
        return segment_bounds(self.seg) if len(self.seg) else None


def segment_totals(seg: np.ndarray, cum: np.ndarray, n_seg: int, bounds=None) -> np.ndarray:
    """Per segment: the last value of an inclusive segmented cumulative sum ``cum`` (0 for a
    segment without elements): bit for bit the segment's sum in element order."""
    out = np.zeros(n_seg)
    if len(seg):
        _, first, lengths = segment_bounds(seg) if bounds is None else bounds
        last = first + lengths - 1
        out[seg[last]] = cum[last]
    return out


def trec_ndcg(segments, m):
    """``nDCG(gains={...})@k``: nDCG with trec_eval gain levels, DCG@k / IDCG@k with
    DCG@k = Σ_{i<=k} gain_i / log2(i + 1) and IDCG@k the same over the ideal ranking (its
    positive gains only); IDCG = 0 -> 0. Without a cut-off this is trec_eval's ``ndcg`` with
    gain parameters (``-m ndcg.1=g1,2=g2``, and ``ndcg_p``), with one it is ``ndcg_cut`` on
    relabelled qrels."""
    v, gains, k = view_for(segments, m), m.get("gains"), m.cutoff
    ideal = ideal_gains(v, gains)
    cum = ideal_dcg(v, gains)
    hits = gain_hits(v, gains)
    seg, pos, contrib = hits.seg, hits.pos, hits.contrib
    if k is not None:
        inside = pos < k
        seg, contrib = seg[inside], contrib[inside]
    dcg = seg_sum(seg, contrib, v.n_seg)
    depth = np.full(v.n_seg, np.iinfo(np.int64).max if k is None else k)
    return safe_div(dcg, ideal.at(cum, v.seg_query, depth))


# --------------------------------------------------------------------------- tie expectations


def weights_until(k, weight):
    """weight(positions) with 0 at and past the cut-off k."""

    def weight_of(pos):
        w = weight(pos)
        return w if k is None else np.where(pos < k, w, 0.0)

    return weight_of


def log2_discount(pos):
    return 1.0 / np.log2(pos + 2.0)


def jk_discount(pos):
    rank = pos + 1.0
    return 1.0 / np.where(rank > 1, np.log2(np.maximum(rank, 1.0)), 1.0)


def expected_trec_dcg(v, gains, k, discount=log2_discount) -> np.ndarray:
    """E[Σ_{i<k} gain_i·w_i] per segment, gain_i the trec_eval gain of the document's label."""
    return linear_expectation(
        v, tie_groups(v), trec_gain(v.hit_label, gains), k, weights_until(k, discount)
    )
