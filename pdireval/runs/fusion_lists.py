"""The runs to fuse as integer codes (:class:`FusionLists`), each system's contribution to a
fused score, and the fused run frame: what every fusion method of :func:`pdireval.fuse`
shares (the method names and normalisations are listed here too)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from pdireval.core.hashing import take
from pdireval.core.schema import ID_DTYPE
from pdireval.core.segments import natural_order, order_key
from pdireval.errors import PdirevalWarning, SchemaError

__all__ = ["FusionLists", "FUSION_METHODS", "NORMS", "fusion_contributions", "run_frame"]

RANK_METHODS = {
    "rrf": "RRF",
    "isr": "ISR",
    "log_isr": "log_ISR",
    "borda": "BordaFuse",
    "rbc": "RBC",
}
SCORE_METHODS = {
    "combsum": "CombSUM",
    "combmnz": "CombMNZ",
    "combanz": "CombANZ",
    "combmax": "CombMAX",
    "combmin": "CombMIN",
    "combmed": "CombMED",
}
COMPARATOR_METHODS = {
    "condorcet": "CondorcetFuse",
    "naive": "Naive",
    "pareto": "Pareto",
    "majoritarian": "Majoritarian",
}
FUSION_METHODS = tuple(RANK_METHODS) + tuple(SCORE_METHODS) + tuple(COMPARATOR_METHODS)
#: ranx's method names -> pdireval's.
ALIASES = {
    "sum": "combsum",
    "wsum": "combsum",
    "mnz": "combmnz",
    "wmnz": "combmnz",
    "anz": "combanz",
    "max": "combmax",
    "min": "combmin",
    "med": "combmed",
    "bordafuse": "borda",
    "w_bordafuse": "borda",
    "logisr": "log_isr",
}
#: Methods that take ``weights=``.
WEIGHTED_METHODS = ("rrf", "borda", "rbc", "combsum", "combmnz")
NORMS = (None, "min-max", "zmuv", "sum", "max", "rank", "borda")
_FLOOR = 1e-9  # ranx's floor of a normalisation denominator


class FusionLists:
    """A canonical run reduced to integer codes, rows in (system, query, trec_eval order).

    Attributes: ``system`` (row -> system index), ``u`` (row -> document of U, the distinct
    (query, doc)), ``pos`` (0-based position in its list), ``score`` (float64 or None),
    ``length`` (row -> its list's length), ``seg_start``/``seg_len`` (per (system, query)
    list), ``u_query`` (U -> query index), ``u_doc`` (U -> doc index; doc indices follow the
    sorted doc ids), ``n_u_query`` (per query: |U|), ``systems``, ``queries``, ``docs``.
    """

    def __init__(self, frame: pd.DataFrame, keys):
        n = len(frame)
        names = np.asarray(keys.systems, dtype=object)
        by_name = np.argsort(names.astype(str), kind="stable")
        self.systems = pd.Index(names[by_name])
        sys_rank = np.empty(len(names), dtype=np.int64)
        sys_rank[by_name] = np.arange(len(names))
        self.queries = keys.queries
        doc_codes, self.docs = _doc_codes(keys)
        seg = keys.seg.astype(np.int64)
        if "score" in frame.columns:
            raw = frame["score"].to_numpy(dtype=np.float64)
            # core.segments' trec_eval order (scores as C floats); ties by doc id descending
            key = order_key(frame, "score")
            after = lambda a, b: (  # noqa: E731
                (key[b] > key[a]) | ((key[b] == key[a]) & (doc_codes[b] < doc_codes[a]))
            )
            tie = -doc_codes
        else:
            raw = None
            key = order_key(frame, "rank")
            after = lambda a, b: (  # noqa: E731
                (key[b] > key[a]) | ((key[b] == key[a]) & (doc_codes[b] > doc_codes[a]))
            )
            tie = doc_codes
        a = np.arange(n - 1)
        same = seg[1:] == seg[:-1]
        if keys.contiguous and bool(after(a[same], a[same] + 1).all()):
            order = None  # already grouped and in trec_eval order (the usual case)
        else:
            order = np.lexsort((tie, key, seg))
            seg, doc_codes = seg[order], doc_codes[order]
            if raw is not None:
                raw = raw[order]
        self.row_order = order  # list row i is the frame's row row_order[i] (None: the same)
        self.score = raw
        # rows next to each other in a list, tied at float32 precision, whose doubles differ
        # (trec_eval's order then puts them by doc id: reported by the order-based methods)
        self.float32_merges = None
        if raw is not None and n > 1:
            k = key if order is None else key[order]
            merged = (seg[1:] == seg[:-1]) & (k[1:] == k[:-1]) & (raw[1:] != raw[:-1])
            if merged.any():
                self.float32_merges = np.flatnonzero(merged)
        first = np.r_[True, seg[1:] != seg[:-1]] if n else np.zeros(0, bool)
        self.seg_start = np.flatnonzero(first)
        self.seg_len = np.diff(np.r_[self.seg_start, n])
        seg_ids = seg[self.seg_start]
        self.seg_system = sys_rank[keys.seg_system[seg_ids]]
        self.seg_query = keys.seg_query[seg_ids].astype(np.int64)
        self.seg = np.cumsum(first) - 1
        self.system = self.seg_system[self.seg]
        self.pos = np.arange(n) - self.seg_start[self.seg]
        self.length = self.seg_len[self.seg]
        query = self.seg_query[self.seg]
        n_docs = max(len(self.docs), 1)
        u, u_uniques = pd.factorize(query * n_docs + doc_codes)
        self.u = u.astype(np.int64)
        self.u_query = (u_uniques // n_docs).astype(np.int64)
        self.u_doc = (u_uniques % n_docs).astype(np.int64)
        self.n_u = len(u_uniques)
        self.n_u_query = np.bincount(self.u_query, minlength=len(self.queries))

    def per_row(self, seg_values):
        return seg_values[self.seg]


def _doc_codes(keys):
    """Doc codes numbered in sorted doc-id order, and the sorted distinct doc ids.

    Factorizes the doc ids' 64-bit hashes (computed once by the run validation), sorts only the
    distinct strings, and verifies that no two different doc ids share a hash (falling back to
    factorizing the strings if they ever do).
    """
    h_codes, h_uniques = pd.factorize(keys.doc_hash)
    first = np.full(len(h_uniques), -1, dtype=np.int64)
    first[h_codes[::-1]] = np.arange(len(h_codes) - 1, -1, -1)  # first row of every hash
    distinct = take(keys.doc, first)
    if not pc.all(
        pc.equal(keys.doc, pc.take(distinct, h_codes))
    ).as_py():  # pragma: no cover - 64-bit collision
        codes, docs = pd.factorize(pd.array(keys.doc, dtype=ID_DTYPE), sort=True)
        return codes.astype(np.int64), pd.Index(docs)
    by_id = pc.sort_indices(distinct).to_numpy()
    rank = np.empty(len(by_id), dtype=np.int64)
    rank[by_id] = np.arange(len(by_id))
    docs = pd.Index(pd.array(pc.take(distinct, by_id), dtype=ID_DTYPE))
    return rank[h_codes], docs


def _normalise(lists: FusionLists, norm):
    """Normalised scores per row (``norm`` other than ``"borda"``)."""
    s = lists.score
    if norm is None:
        return s.copy()
    if norm == "rank":
        return 1.0 - lists.pos / lists.length
    starts = lists.seg_start
    if norm == "min-max":
        lo = np.minimum.reduceat(s, starts)
        hi = np.maximum.reduceat(s, starts)
        span = lists.per_row(hi - lo)
        low = lists.per_row(lo)
        return np.where(span > 0, (s - low) / np.maximum(span, _FLOOR), 1.0)
    if norm == "max":
        hi = lists.per_row(np.maximum.reduceat(s, starts))
        return s / np.maximum(hi, _FLOOR)
    if norm == "sum":
        lo = np.minimum.reduceat(s, starts)
        total = np.add.reduceat(s, starts)
        den = lists.per_row(total - lo * lists.seg_len)
        return (s - lists.per_row(lo)) / np.maximum(den, _FLOOR)
    # zmuv: (s - mean) / max(std, 1e-9), population std
    mean = np.add.reduceat(s, starts) / lists.seg_len
    centred = s - lists.per_row(mean)
    std = np.sqrt(np.add.reduceat(centred * centred, starts) / lists.seg_len)
    den = lists.per_row(np.maximum(std, _FLOOR))
    return np.where(lists.per_row(std) > 0, centred / den, 0.0)


def _dense_borda(lists: FusionLists, n_sys: int, *, points: bool):
    """|U| × systems matrix of Borda points (``points``) or Borda-normalised scores.

    Retrieved: |U| − i points (normalised: 1 − i/|U|); not retrieved: (|U| − len + 1)/2
    points (normalised: 0.5 − (len − 1)/(2|U|)); len = the system's list length for the query
    (0 when it has no list for it).
    """
    n_q = len(lists.queries)
    length = np.zeros((n_sys, n_q))
    length[lists.seg_system, lists.seg_query] = lists.seg_len
    # |U| per query; a query none of the fused systems retrieves (|U| = 0) has no row of U,
    # so its fill column is never read: 1 there only keeps the division finite
    size = np.maximum(lists.n_u_query, 1).astype(np.float64)
    if points:
        fill = (size[None, :] - length + 1.0) / 2.0
    else:
        fill = 0.5 - (length - 1.0) / (2.0 * size[None, :])
    dense = fill[:, lists.u_query].T.copy()  # U x systems
    u_size = size[lists.u_query][lists.u]
    dense[lists.u, lists.system] = (u_size - lists.pos) if points else 1.0 - lists.pos / u_size
    return dense


def fusion_contributions(lists: FusionLists, method: str, *, norm, k: float, phi: float):
    """Per-row (long) or per-(U, system) (dense) values that ``method`` aggregates.

    Returns ``(values, dense)``: a float array aligned with the rows of ``lists`` (dense False)
    or a |U| × systems matrix in which every system scores every document (dense True).
    """
    n_sys = len(lists.systems)
    if method in ("borda", "rrf", "isr", "log_isr", "rbc") or norm in ("rank", "borda"):
        _warn_float32_order(lists)  # these read the positions, not the scores
    if method == "borda":
        return _dense_borda(lists, n_sys, points=True), True
    if method == "rrf":
        return 1.0 / (k + lists.pos + 1.0), False
    if method in ("isr", "log_isr"):
        return 1.0 / (lists.pos + 1.0) ** 2, False
    if method == "rbc":
        return (1.0 - phi) * np.power(phi, lists.pos.astype(np.float64)), False
    if norm == "borda":
        return _dense_borda(lists, n_sys, points=False), True
    if norm != "rank" and lists.score is not None:
        _check_score_magnitude(lists.score)
    return _normalise(lists, norm), False


def _warn_float32_order(lists: FusionLists) -> None:
    """One PdirevalWarning when lists hold distinct doubles tied at float32 precision (the
    precision of trec_eval's order, which fusion reads positions in)."""
    at = lists.float32_merges
    if at is None:
        return
    first = at[0]
    sys_name = lists.systems[lists.seg_system[lists.seg[first]]]
    query = lists.queries[lists.seg_query[lists.seg[first]]]
    n_lists = len(np.unique(lists.seg[at]))
    with np.errstate(over="ignore", under="ignore"):
        as32 = float(np.float32(lists.score[first]))
    warnings.warn(
        f"{len(at)} pair(s) of adjacent run scores in {n_lists} (system, query) list(s) differ "
        "as doubles but are equal at float32 precision, the precision of trec_eval's order that "
        "fusion reads positions in: they are ordered by doc id instead of by score. First: "
        f"system {sys_name!r}, query {query!r}: {lists.score[first]:.10g} and "
        f"{lists.score[first + 1]:.10g} (both {as32:.8g} as float32). Rescale the scores into "
        "float32's precision and range to keep their order.",
        PdirevalWarning,
        stacklevel=4,
    )


#: The largest run-score magnitude the score-based fusion methods accept: they sum scores
#: over a list or over systems and z-scoring squares them, which overflows float64 from
#: about 1e154 (ranks-based methods and ``norm="rank"``/``"borda"`` read only the order).
MAX_FUSION_SCORE = 1e150


def _check_score_magnitude(score: np.ndarray) -> None:
    size = np.abs(score)
    if len(size) and size.max() > MAX_FUSION_SCORE:
        raise SchemaError(
            f"{int((size > MAX_FUSION_SCORE).sum())} run score(s) lie beyond ±{MAX_FUSION_SCORE:g} "
            f"(largest magnitude {size.max():g}): fusing them sums and squares scores, which "
            "overflows float64. Rescale the scores (e.g. run.assign(score=run['score'] / "
            f"{10.0 ** min(int(np.ceil(np.log10(size.max()))), 308):g})), or fuse by rank "
            "(norm='rank', norm='borda', or method='rrf')."
        )


#: Relative gap under which two neighbouring fused scores of a query are one tie. Summing a few
#: terms leaves rounding errors in the last bits, so scores equal in exact arithmetic
#: (norm="rank", "borda", RRF over swapped positions) can differ by a few ulps: at most about
#: (S + 2) 2**-52 relative for S fused systems, under 2**-44 up to about 250 systems, while
#: distinct exact values of the rank-based normalisations differ by far more.
FUSED_TIE_RTOL = 2.0**-44


def tie_fused(score: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Fused scores with near-equal neighbours made equal: one tie per run of scores.

    Per query (``query``: the code of each document of U) the scores are sorted descending;
    a score within :data:`FUSED_TIE_RTOL` × max(|a|, |b|) of the one above it joins its tie
    group, and every member of a group gets the group's largest score. Unlike any rounding
    of each score on its own (rounding to 44 bits left equal values on either side of a
    rounding boundary apart), this compares the scores themselves, so sums equal in exact
    arithmetic tie wherever they fall. Order-preserving: a ≥ b stays a ≥ b. ``score`` is a
    vector over U or a U × trials matrix (each column on its own, as
    :func:`pdireval.tune_fusion` needs); vectorised (two stable sorts per column).
    """
    s = np.asarray(score, dtype=np.float64)
    mat = s if s.ndim == 2 else s[:, None]
    if mat.shape[0] < 2:
        return s.copy()
    q = np.asarray(query, dtype=np.int64)
    order = np.argsort(-mat, axis=0, kind="stable")
    order = np.take_along_axis(order, np.argsort(q[order], axis=0, kind="stable"), axis=0)
    srt = np.take_along_axis(mat, order, axis=0)
    qs = q[order]
    with np.errstate(invalid="ignore"):
        near = (srt[:-1] - srt[1:]) <= FUSED_TIE_RTOL * np.maximum(
            np.abs(srt[:-1]), np.abs(srt[1:])
        )
    start = np.ones(mat.shape, dtype=bool)
    start[1:] = ~((qs[1:] == qs[:-1]) & near)
    rows = np.arange(mat.shape[0])[:, None]
    first = np.maximum.accumulate(np.where(start, rows, 0), axis=0)
    out = np.empty_like(mat)
    np.put_along_axis(out, order, np.take_along_axis(srt, first, axis=0), axis=0)
    return out if s.ndim == 2 else out[:, 0]


def system_rows(lists: FusionLists):
    """Rows of every system (sorted system order): ``(order, bounds)`` with the rows of system
    ``s`` at ``order[bounds[s]:bounds[s + 1]]``."""
    order = np.argsort(lists.system, kind="stable")
    bounds = np.searchsorted(lists.system[order], np.arange(len(lists.systems) + 1))
    return order, bounds


def weighted_sum(columns, weights, n_u: int) -> np.ndarray:
    """Σ_s w_s · x_s over the ``n_u`` documents of U, added one system at a time in sorted
    system order.

    ``columns`` yields ``(s, rows, values)``: the documents of U system ``s`` scores and its
    values for them (a dense system passes every document, with 0 where it has none);
    ``weights`` is None (all 1), a vector over systems, or a trials × systems matrix (the
    result is then U × trials). :func:`fuse` and :func:`pdireval.tune_fusion` both add in this
    order, so a tuned trial's scores equal the fused run's bit for bit.
    """
    trials = weights is not None and np.ndim(weights) == 2
    total = np.zeros((n_u, weights.shape[0]) if trials else n_u)
    for s, rows, values in columns:
        if weights is None:
            total[rows] += values
        elif trials:
            total[rows] += values[:, None] * weights[None, :, s]
        else:
            total[rows] += values * weights[s]
    return total


def long_columns(lists: FusionLists, values: np.ndarray):
    """The ``columns`` of :func:`weighted_sum` for per-row values."""
    order, bounds = system_rows(lists)
    for s in range(len(lists.systems)):
        rows = order[bounds[s] : bounds[s + 1]]
        yield s, lists.u[rows], values[rows]


def dense_columns(matrix: np.ndarray):
    """The ``columns`` of :func:`weighted_sum` for a U × systems matrix."""
    for s in range(matrix.shape[1]):
        yield s, slice(None), matrix[:, s]


def combine(lists: FusionLists, method: str, values, dense: bool, weights):
    """Fused score of the weighted methods (rrf, rbc, borda, combsum, combmnz) per document of
    U; ``weights`` None, a vector over systems or a trials × systems matrix (U × trials out).

    Shared by :func:`fuse` and :func:`pdireval.tune_fusion`, so both compute the same doubles.
    """
    columns = dense_columns(values) if dense else long_columns(lists, values)
    if method != "combmnz":
        return weighted_sum(columns, weights, lists.n_u)
    total = weighted_sum(columns, None, lists.n_u)
    if dense:
        ones = dense_columns(np.ones_like(values))
    else:
        ones = long_columns(lists, np.ones(len(lists.u)))
    n = weighted_sum(ones, weights, lists.n_u)  # Σ of the retrieving systems' weights (or count)
    return total[:, None] * n if n.ndim == 2 else total * n


def aggregate(lists: FusionLists, method: str, values, dense: bool, weights: np.ndarray | None):
    """Fused score per document of U."""
    if method in WEIGHTED_METHODS:
        return combine(lists, method, values, dense, weights)
    n_u = lists.n_u
    if dense:
        if method == "combanz":
            return values.mean(axis=1)
        if method == "combmax":
            return values.max(axis=1)
        if method == "combmin":
            return values.min(axis=1)
        return np.median(values, axis=1)
    u = lists.u
    count = np.bincount(u, minlength=n_u).astype(np.float64)
    total = np.bincount(u, weights=values, minlength=n_u)
    if method == "isr":
        return total * count
    if method == "log_isr":
        return total * np.log(count)
    if method == "combanz":
        return total / count
    # max / min / median over the retrieving systems: sort rows by (U, value)
    order = np.lexsort((values, u))
    v = values[order]
    start = np.r_[0, np.cumsum(count.astype(np.int64))[:-1]]
    c = count.astype(np.int64)
    if method == "combmax":
        return v[start + c - 1]
    if method == "combmin":
        return v[start]
    return 0.5 * (v[start + (c - 1) // 2] + v[start + c // 2])


def rbc_log_score(lists: FusionLists, phi: float, weights) -> np.ndarray:
    """ln RBC per document of U, by log-sum-exp: finite however deep the lists (the doubles of
    (1 − φ)φ^i underflow from i ≈ 1074 / −log2 φ)."""
    with np.errstate(divide="ignore"):
        log_w = np.zeros(len(lists.systems)) if weights is None else np.log(weights)
    term = log_w[lists.system] + lists.pos * np.log(phi)
    top = np.full(lists.n_u, -np.inf)
    np.maximum.at(top, lists.u, term)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        total = np.log(
            np.bincount(lists.u, weights=np.exp(term - safe[lists.u]), minlength=lists.n_u)
        )
    return np.log1p(-phi) + safe + total


def _take_ids(index: pd.Index, codes: np.ndarray):
    """index[codes] as a string array (pyarrow take, no Python objects)."""
    values = pd.array(index, dtype=ID_DTYPE)
    return values.take(codes)


def run_frame(lists: FusionLists, score: np.ndarray, name: str, tiebreak=None) -> pd.DataFrame:
    """The fused run: per query (natural order), documents by fused score descending.

    Neighbouring scores of a query within :data:`FUSED_TIE_RTOL` are made one tie
    (:func:`tie_fused`) and ranked at full double precision; equal scores go by ``tiebreak``
    descending (RBC's log score, for scores that underflow), then doc id descending, as
    trec_eval breaks ties.
    """
    q_rank = np.empty(len(lists.queries), dtype=np.int64)
    q_rank[natural_order(lists.queries)] = np.arange(len(lists.queries))
    uq = q_rank[lists.u_query]
    score = tie_fused(score, lists.u_query)
    keys = (-lists.u_doc, -score, uq) if tiebreak is None else (-lists.u_doc, -tiebreak, -score, uq)
    o = np.lexsort(keys)
    qs = uq[o]
    first = np.r_[True, qs[1:] != qs[:-1]] if len(qs) else np.zeros(0, bool)
    starts = np.maximum.accumulate(np.where(first, np.arange(len(qs)), 0))
    n = len(o)
    rank = (np.arange(n) - starts + 1).astype(np.int64)
    return pd.DataFrame(
        {
            "system": _take_ids(pd.Index([name]), np.zeros(n, dtype=np.int64)),
            "query": _take_ids(lists.queries, lists.u_query[o]),
            "doc": _take_ids(lists.docs, lists.u_doc[o]),
            "score": score[o],
            "rank": rank,
        }
    )
