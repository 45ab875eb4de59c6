"""Rank fusion (metasearch): ranx's fusion methods and Montague's upper bounds, one run frame out.

Every method works per query on U, the union of the documents the fused systems retrieved.
Each system's list is read in trec_eval order (score descending, ties by doc id descending;
or by ``rank``), giving every retrieved document a 0-based position ``i`` (rank ``i + 1``).

Rank-based methods (their input is the positions only; scores and ``norm`` are not used):

* ``"rrf"`` (Cormack, Clarke & Büttcher 2009): Σ_s w_s / (k + i_s(d) + 1).
* ``"isr"`` (Mourão, Martins & Magalhães 2015): Σ_s 1/(i_s(d) + 1)² × n(d), n(d) = number of
  systems that retrieved d.
* ``"log_isr"`` (same paper): Σ_s 1/(i_s(d) + 1)² × ln n(d) (natural log, as ranx: a document
  one system retrieved scores 0).
* ``"borda"`` (BordaFuse; Aslam & Montague 2001): a system gives |U| − i points to the document
  at position i and (|U| − len + 1)/2 to each document of U it did not retrieve (len = its list
  length for the query; a system without a list for the query gives everyone (|U| + 1)/2);
  fused = Σ_s w_s × points (weighted BordaFuse with ``weights``).
* ``"rbc"`` (rank-biased centroid; Bailey, Moffat, Scholer & Thomas 2017): Σ_s w_s (1 − φ) φ^i.
* ``"condorcet"`` (CondorcetFuse; Montague & Aslam 2002): see below.

Score-based methods (Shaw & Fox 1994) work on the scores after ``norm`` (per (system, query)):

* ``"combsum"``: Σ_s w_s ŝ_s(d), 0 for a system that did not retrieve d (ranx ``wsum``).
* ``"combmnz"``: Σ_s ŝ_s(d) × n(d) — with ``weights``, ranx's weighted form
  Σ_{s ∋ d} ŝ_s(d) × Σ_{s ∋ d} w_s (ranx ``wmnz``).
* ``"combanz"``: Σ_s ŝ_s(d) / n(d).
* ``"combmax"`` / ``"combmin"`` / ``"combmed"``: maximum / minimum / median of ŝ_s(d) over the
  systems that retrieved d.

(Shaw & Fox count "non-zero scores"; after min-max normalisation the last document of every
list scores 0, so pdireval, like ranx, counts retrieving systems instead.)

Normalisations ``norm`` (ranx's definitions; n = list length, ŝ the normalised score):
``"min-max"`` (s − min)/(max − min) — **1.0 for every document when max = min** (ranx gives 0
there; a list of one document still counts fully); ``"zmuv"`` (z-score; alias ``"z-score"``)
(s − mean)/max(std, 1e-9), std with ddof = 0; ``"sum"`` (s − min)/max(Σs − n·min, 1e-9);
``"max"`` s/max(max, 1e-9); ``"rank"`` 1 − i/n; ``"borda"`` 1 − i/|U| for a retrieved
document and 0.5 − (n − 1)/(2|U|) for every other document of U (so after it every system has
a score for every document of U, and n(d) is the number of systems); ``None``: raw scores.

Comparator-based orders (Montague 2002) — ``sorted(U in doc-id ascending order,
key=cmp_to_key(cmp))``, deterministic, and part of the definition because the comparators need
not be transitive. v12 = number of systems ranking d1 above d2 (a system ranks every retrieved
document above every one it did not retrieve, and abstains on a pair it retrieved neither of).

* ``"condorcet"``: d1 first if v12 > v21, d2 first if v21 > v12, else equal.
* ``"naive"`` (upper bound): relevance comparison only — higher qrels label first; unjudged
  (and, as in trec_eval, negatively labelled) documents compare like label 0.
* ``"pareto"`` (upper bound): d1 first if *every* system ranks it above d2, symmetric for d2,
  otherwise relevance comparison.
* ``"majoritarian"`` (upper bound): d1 first if v12 ≥ n/2 and v12 > v21 (the strict second
  condition resolves "at least half", which with an even n can hold both ways), symmetric for
  d2, otherwise relevance comparison.

Ranking: the fused scores are rounded to 44 significant bits (:data:`FUSED_SCORE_BITS`; a
double has 53) and each query's documents ranked by them, score descending, equal scores by
doc id descending (trec_eval's tie-break). The rounding is monotone, so it never reverses two
scores; it makes scores that are equal in exact arithmetic but differ in their last bits after
summing (``norm="rank"``: (1 − 0/5) + (1 − 4/5) and (1 − 2/5) + (1 − 2/5)) exact ties. The
weighted sums add the systems in sorted order, in :func:`fuse` and :func:`pdireval.tune_fusion`
alike. RBC documents whose double underflows (φ^i below 1e-308: only for small φ and deep
lists) are ranked by ln RBC, computed by log-sum-exp.

The ranks are *not* trec_eval's order of the scores: trec_eval (and ``evaluate`` by default)
reads scores as C floats, where fused scores closer than 2^-24 relative tie and go by doc id
(RBC with φ = 0.8 is below float32's smallest number from position ~460; raw CombSUM over the
Robust 2003 runs has such ties from rank 6). ``evaluate`` warns when such a tie holds a judged
document; ``evaluate(fused, ..., order="rank")`` reads the fused ranking exactly, as does
``score_precision="float64"`` (except for the underflowed RBC documents).

The comparator sort is inherently sequential (a Python sort per query); every other method is
vectorised over all rows at once (per-segment reductions and ``np.bincount`` per document).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cmp_to_key
from operator import lt

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from pdireval.core.hashing import take
from pdireval.core.schema import ID_DTYPE, canonical_qrels, canonical_run_keys, qrels_from_run
from pdireval.core.segments import build_judgments, judged_hits, natural_order, order_key
from pdireval.errors import OptionError, SchemaError, check_real
from pdireval.io import as_frame
from pdireval.measures.view import read_negatives

__all__ = ["fuse", "FUSION_METHODS", "NORMS", "fusion_contributions"]

RANK_METHODS = {"rrf": "RRF", "isr": "ISR", "log_isr": "log_ISR", "borda": "BordaFuse", "rbc": "RBC"}
SCORE_METHODS = {
    "combsum": "CombSUM", "combmnz": "CombMNZ", "combanz": "CombANZ",
    "combmax": "CombMAX", "combmin": "CombMIN", "combmed": "CombMED",
}
COMPARATOR_METHODS = {"condorcet": "CondorcetFuse", "naive": "Naive", "pareto": "Pareto", "majoritarian": "Majoritarian"}
FUSION_METHODS = tuple(RANK_METHODS) + tuple(SCORE_METHODS) + tuple(COMPARATOR_METHODS)
#: ranx's method names -> pdireval's.
ALIASES = {
    "sum": "combsum", "wsum": "combsum", "mnz": "combmnz", "wmnz": "combmnz", "anz": "combanz",
    "max": "combmax", "min": "combmin", "med": "combmed", "bordafuse": "borda",
    "w_bordafuse": "borda", "logisr": "log_isr",
}
#: Methods that take ``weights=``.
WEIGHTED_METHODS = ("rrf", "borda", "rbc", "combsum", "combmnz")
NORMS = (None, "min-max", "zmuv", "sum", "max", "rank", "borda")
_NORM_ALIASES = {"min_max": "min-max", "minmax": "min-max", "z-score": "zmuv", "zscore": "zmuv", "none": None}
_NEEDS_QRELS = ("naive", "pareto", "majoritarian")
_BIG = np.int64(1) << 40
_FLOOR = 1e-9  # ranx's floor of a normalisation denominator


# ------------------------------------------------------------------ the lists, as codes


class _Lists:
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
            after = lambda a, b: (key[b] > key[a]) | ((key[b] == key[a]) & (doc_codes[b] < doc_codes[a]))  # noqa: E731
            tie = -doc_codes
        else:
            raw = None
            key = order_key(frame, "rank")
            after = lambda a, b: (key[b] > key[a]) | ((key[b] == key[a]) & (doc_codes[b] > doc_codes[a]))  # noqa: E731
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
    if not pc.all(pc.equal(keys.doc, pc.take(distinct, h_codes))).as_py():  # pragma: no cover - 64-bit collision
        codes, docs = pd.factorize(pd.array(keys.doc, dtype=ID_DTYPE), sort=True)
        return codes.astype(np.int64), pd.Index(docs)
    by_id = pc.sort_indices(distinct).to_numpy()
    rank = np.empty(len(by_id), dtype=np.int64)
    rank[by_id] = np.arange(len(by_id))
    docs = pd.Index(pd.array(pc.take(distinct, by_id), dtype=ID_DTYPE))
    return rank[h_codes], docs


def _normalise(lists: _Lists, norm):
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


def _dense_borda(lists: _Lists, n_sys: int, *, points: bool):
    """|U| × systems matrix of Borda points (``points``) or Borda-normalised scores.

    Retrieved: |U| − i points (normalised: 1 − i/|U|); not retrieved: (|U| − len + 1)/2
    points (normalised: 0.5 − (len − 1)/(2|U|)); len = the system's list length for the query
    (0 when it has no list for it).
    """
    n_q = len(lists.queries)
    length = np.zeros((n_sys, n_q))
    length[lists.seg_system, lists.seg_query] = lists.seg_len
    size = lists.n_u_query.astype(np.float64)  # |U| per query
    if points:
        fill = (size[None, :] - length + 1.0) / 2.0
    else:
        fill = 0.5 - (length - 1.0) / (2.0 * size[None, :])
    dense = fill[:, lists.u_query].T.copy()  # U x systems
    u_size = size[lists.u_query][lists.u]
    dense[lists.u, lists.system] = (u_size - lists.pos) if points else 1.0 - lists.pos / u_size
    return dense


def fusion_contributions(lists: _Lists, method: str, *, norm, k: float, phi: float):
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


def _warn_float32_order(lists: _Lists) -> None:
    """One PdirevalWarning when lists hold distinct doubles tied at float32 precision (the
    precision of trec_eval's order, which fusion reads positions in)."""
    at = lists.float32_merges
    if at is None:
        return
    import warnings

    from pdireval.errors import PdirevalWarning

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
        PdirevalWarning, stacklevel=4,
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


#: Significant bits the fused scores keep (float64 has 53). Summing a few terms leaves rounding
#: errors in the last bits, so scores equal in exact arithmetic (norm="rank", "borda", RRF over
#: swapped positions) can differ by an ulp; rounding to 44 bits makes them equal, and being a
#: monotone rounding it never reverses two scores, only merges gaps below 2**-44 relative.
FUSED_SCORE_BITS = 44


def round_fused(score: np.ndarray) -> np.ndarray:
    """Round fused scores to :data:`FUSED_SCORE_BITS` significant bits (round half to even).

    A monotone rounding: ``a >= b`` implies ``round_fused(a) >= round_fused(b)``; zeros and
    infinities are kept.
    """
    mantissa, exponent = np.frexp(score)
    with np.errstate(invalid="ignore"):
        rounded = np.round(mantissa * 2.0**FUSED_SCORE_BITS) / 2.0**FUSED_SCORE_BITS
    return np.where(np.isfinite(score), np.ldexp(rounded, exponent), score)


def system_rows(lists: _Lists):
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


def long_columns(lists: _Lists, values: np.ndarray):
    """The ``columns`` of :func:`weighted_sum` for per-row values."""
    order, bounds = system_rows(lists)
    for s in range(len(lists.systems)):
        rows = order[bounds[s]:bounds[s + 1]]
        yield s, lists.u[rows], values[rows]


def dense_columns(matrix: np.ndarray):
    """The ``columns`` of :func:`weighted_sum` for a U × systems matrix."""
    for s in range(matrix.shape[1]):
        yield s, slice(None), matrix[:, s]


def combine(lists: _Lists, method: str, values, dense: bool, weights):
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


def _aggregate(lists: _Lists, method: str, values, dense: bool, weights: np.ndarray | None):
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


def _rbc_log_score(lists: _Lists, phi: float, weights) -> np.ndarray:
    """ln RBC per document of U, by log-sum-exp: finite however deep the lists (the doubles of
    (1 − φ)φ^i underflow from i ≈ 1074 / −log2 φ)."""
    with np.errstate(divide="ignore"):
        log_w = np.zeros(len(lists.systems)) if weights is None else np.log(weights)
    term = log_w[lists.system] + lists.pos * np.log(phi)
    top = np.full(lists.n_u, -np.inf)
    np.maximum.at(top, lists.u, term)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        total = np.log(np.bincount(lists.u, weights=np.exp(term - safe[lists.u]), minlength=lists.n_u))
    return np.log1p(-phi) + safe + total


def _take_ids(index: pd.Index, codes: np.ndarray):
    """index[codes] as a string array (pyarrow take, no Python objects)."""
    values = pd.array(index, dtype=ID_DTYPE)
    return values.take(codes)


def _run_frame(lists: _Lists, score: np.ndarray, name: str, tiebreak=None) -> pd.DataFrame:
    """The fused run: per query (natural order), documents by fused score descending.

    The score is rounded to :data:`FUSED_SCORE_BITS` bits and ranked at that (full double)
    precision; equal scores go by ``tiebreak`` descending (RBC's log score, for scores that
    underflow), then doc id descending, as trec_eval breaks ties.
    """
    q_rank = np.empty(len(lists.queries), dtype=np.int64)
    q_rank[natural_order(lists.queries)] = np.arange(len(lists.queries))
    uq = q_rank[lists.u_query]
    score = round_fused(np.asarray(score, dtype=np.float64))
    keys = (-lists.u_doc, -score, uq) if tiebreak is None else (-lists.u_doc, -tiebreak, -score, uq)
    o = np.lexsort(keys)
    qs = uq[o]
    first = np.r_[True, qs[1:] != qs[:-1]] if len(qs) else np.zeros(0, bool)
    starts = np.maximum.accumulate(np.where(first, np.arange(len(qs)), 0))
    n = len(o)
    rank = (np.arange(n) - starts + 1).astype(np.int64)
    return pd.DataFrame({
        "system": _take_ids(pd.Index([name]), np.zeros(n, dtype=np.int64)),
        "query": _take_ids(lists.queries, lists.u_query[o]),
        "doc": _take_ids(lists.docs, lists.u_doc[o]),
        "score": score[o],
        "rank": rank,
    })


# --------------------------------------------------------------- the comparator methods


def _comparator(rows: list, rel: list, n: int, method: str):
    """cmp(i, j) over the documents of one query: −1 = i first, 1 = j first, 0 = equal.

    ``rows[i]`` is the tuple of document i's ranks in every system (a large number when not
    retrieved), so v12 = Σ_s [r_i,s < r_j,s] counts the systems ranking i above j (an
    abstaining system counts for neither)."""

    def relevance(i, j):
        a, b = rel[i], rel[j]
        return -1 if a > b else (1 if b > a else 0)

    if method == "condorcet":

        def cmp(i, j):
            a, b = rows[i], rows[j]
            v12 = sum(map(lt, a, b))
            v21 = sum(map(lt, b, a))
            return -1 if v12 > v21 else (1 if v21 > v12 else 0)

    elif method == "pareto":

        def cmp(i, j):
            a, b = rows[i], rows[j]
            if all(map(lt, a, b)):
                return -1
            if all(map(lt, b, a)):
                return 1
            return relevance(i, j)

    else:  # majoritarian

        def cmp(i, j):
            a, b = rows[i], rows[j]
            v12 = sum(map(lt, a, b))
            v21 = sum(map(lt, b, a))
            if 2 * v12 >= n and v12 > v21:
                return -1
            if 2 * v21 >= n and v21 > v12:
                return 1
            return relevance(i, j)

    return cmp


def _comparator_fusion(lists: _Lists, rel: np.ndarray, method: str, name: str) -> pd.DataFrame:
    """Sort every query's documents U with the method's comparator (Python's stable sort over
    U in doc-id order, so equal documents keep that order) and score them |U| − position."""
    n_sys = len(lists.systems)
    pos = np.full((lists.n_u, n_sys), _BIG, dtype=np.int64)
    pos[lists.u, lists.system] = lists.pos
    u_sorted = np.lexsort((lists.u_doc, lists.u_query))  # per query, doc ids ascending
    qs = lists.u_query[u_sorted]
    bounds = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1], True])
    position = np.empty(lists.n_u, dtype=np.int64)
    for lo, hi in zip(bounds[:-1], bounds[1:]):  # per query: the sort is sequential by definition
        members = u_sorted[lo:hi]
        if method == "naive":
            local = np.argsort(-rel[members], kind="stable")  # = sorted() with the relevance comparator
        else:
            rows = list(map(tuple, pos[members].tolist()))
            cmp = _comparator(rows, rel[members].tolist(), n_sys, method)
            local = np.array(sorted(range(hi - lo), key=cmp_to_key(cmp)), dtype=np.int64)
        position[members[local]] = np.arange(hi - lo)
    size = lists.n_u_query[lists.u_query]
    score = (size - position).astype(np.float64)  # unique per query, so evaluate() keeps this order
    return _run_frame(lists, score, name)


def _labels_of_documents(lists: _Lists, keys, labels: pd.DataFrame) -> np.ndarray:
    """Label of every document of U (0 when unjudged or negative), read through the one
    run–qrels join of :func:`pdireval.core.segments.judged_hits`."""
    judgments = build_judgments(labels)
    rows, qrow = judged_hits(keys, judgments)
    if lists.row_order is not None:
        list_row = np.empty(len(lists.row_order), dtype=np.int64)
        list_row[lists.row_order] = np.arange(len(lists.row_order))
        rows = list_row[rows]
    rel = np.zeros(lists.n_u)
    label = read_negatives(judgments.label[qrow], "unjudged")
    rel[lists.u[rows]] = np.where(np.isnan(label), 0.0, label)
    return rel


# ------------------------------------------------------------------------ validation


def _resolve(name: str, value, choices, aliases: dict, also: str):
    """The canonical spelling of an option value (case-insensitive, aliases accepted), or raise."""
    if isinstance(value, str):
        key = value.lower()
        key = aliases.get(key, key)
        if key in choices:
            return key
    known = ", ".join(repr(c) for c in choices)
    raise OptionError(f"{name}= must be one of {known} ({also}); got {value!r}.")


def resolve_method(method) -> str:
    """pdireval's name of a fusion method (case-insensitive; ranx's names accepted)."""
    return _resolve("method", method, FUSION_METHODS, ALIASES, f"or ranx's names {sorted(ALIASES)}")


def resolve_norm(norm):
    """pdireval's name of a score normalisation (None: none; 'z-score' for 'zmuv')."""
    if norm is None:
        return None
    return _resolve("norm", norm, NORMS, _NORM_ALIASES, "or 'z-score' for 'zmuv'")


def check_weights(weights, systems, method: str) -> np.ndarray | None:
    """Weights as a float array aligned with ``systems`` (sorted names), or None."""
    if weights is None:
        return None
    if method not in WEIGHTED_METHODS:
        raise OptionError(
            f"method={method!r} takes no weights; weights= works with {', '.join(WEIGHTED_METHODS)}. "
            "Drop weights=, or pick one of those methods."
        )
    names = [str(s) for s in systems]
    if isinstance(weights, dict):
        given = {str(k): v for k, v in weights.items()}
        missing = [s for s in names if s not in given]
        extra = [s for s in given if s not in names]
        if missing or extra:
            raise OptionError(
                f"weights= must give one weight per fused system; missing {missing[:5]}, unknown "
                f"{extra[:5]}. The fused systems are {names[:10]}: give each a weight, or fuse "
                "only the weighted ones with systems=list(weights)."
            )
        values = [given[s] for s in names]
    elif isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
        raise TypeError(f"weights= must be a dict {{system: weight}} or a sequence, got {type(weights).__name__}")
    else:
        values = list(weights)
        if len(values) != len(names):
            raise OptionError(
                f"weights= has {len(values)} values but {len(names)} systems are fused ({names[:10]}, "
                "in sorted order). Pass one weight per system, or a dict {system: weight}."
            )
    try:
        w = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"weights= must be numbers, got {values[:5]!r}") from None
    if not np.isfinite(w).all() or (w < 0).any():
        raise OptionError(f"weights= must be finite and non-negative, got {w.tolist()[:10]}.")
    if len(w) and not (w > 0).any():
        raise OptionError(
            f"weights= are all zero ({dict(zip(names[:10], w.tolist()[:10]))}): every fused score "
            "would be 0 and the ranking only the doc-id order. Give at least one system a "
            "positive weight, or leave the systems out with systems=."
        )
    return w


def _check_k(k):
    return check_real("k", k, low=0)  # the RRF constant


def _check_phi(phi):
    return check_real("phi", phi, low=0, high=1, inclusive=False)  # the RBC persistence


def select_systems(canonical: pd.DataFrame, keys, systems):
    """The rows (and their keys) of the systems named in ``systems`` (None: all)."""
    if systems is None:
        return canonical, keys
    if isinstance(systems, str):
        names = [systems]
    elif isinstance(systems, (bytes, dict)) or not hasattr(systems, "__iter__"):
        raise TypeError(f"systems= must be a list of system names, got {type(systems).__name__}.")
    else:
        names = [str(s) for s in systems]
    known = sorted(str(s) for s in pd.unique(canonical["system"]))
    if not names:
        raise OptionError(
            f"systems= is empty, so there is nothing to fuse; the run has {known[:10]}. Name "
            "the systems to fuse, or pass systems=None for all of them."
        )
    unknown = [s for s in names if s not in set(known)]
    if unknown:
        raise SchemaError(
            f"systems= names {len(unknown)} system(s) the run does not have (first: "
            f"{unknown[0]!r}); the run has {known[:10]}. Fix the names."
        )
    rows = np.flatnonzero(canonical["system"].astype(str).isin(names).to_numpy())
    kept = keys.take(rows)
    # only the selected systems (take keeps every name of the run)
    used = np.unique(kept.seg_system)
    code = np.full(len(kept.systems), -1, dtype=np.int64)
    code[used] = np.arange(len(used))
    kept = replace(kept, seg_system=code[kept.seg_system], systems=kept.systems[used])
    return canonical.iloc[rows].reset_index(drop=True), kept


# ---------------------------------------------------------------------------- fuse


def fuse(
    runs: pd.DataFrame,
    method: str = "rrf",
    *,
    k: float = 60,
    phi: float = 0.8,
    norm: str | None = "min-max",
    weights=None,
    qrels: pd.DataFrame | None = None,
    systems=None,
    name: str | None = None,
    columns=None,
) -> pd.DataFrame:
    """Fuse the systems of a run frame into one ranked list per query (metasearch).

    The methods of ranx's ``fuse`` — reciprocal rank fusion, ISR, log_ISR, BordaFuse and
    weighted BordaFuse, (weighted) CombSUM / CombMNZ, CombANZ, CombMAX / CombMIN / CombMED,
    rank-biased centroids, CondorcetFuse — with ranx's score normalisations, and Montague's
    upper bounds (naive, Pareto, majoritarian), which also read the qrels. The exact
    definitions are in the module docstring (:mod:`pdireval.runs.fusion`); for documents
    without score ties the fused scores equal ``ranx.fuse`` on the same runs (checked in the
    tests), except that min-max normalisation of a list whose scores are all equal gives 1.0
    (ranx: 0). The result is a run frame, so it evaluates like any run
    (``pdireval.evaluate(fused, ...)``) and can be concatenated with the inputs.

    Parameters
    ----------
    runs
        Run frame (``system, query, doc`` and ``score`` and/or ``rank``) holding the systems
        to fuse. Each list is read in trec_eval order (score descending, ties by doc id
        descending; or by rank, ties by doc id ascending).
    method
        One of ``FUSION_METHODS`` (case-insensitive; ranx's names ``"wsum"``, ``"mnz"``,
        ``"bordafuse"``, ``"w_bordafuse"``, ... are accepted too). Default ``"rrf"``.
    k
        RRF's constant (Cormack et al. 2009 use 60).
    phi
        RBC's persistence φ in (0, 1).
    norm
        Score normalisation of the score-based methods (Comb*): ``"min-max"`` (default),
        ``"zmuv"`` (alias ``"z-score"``), ``"sum"``, ``"max"``, ``"rank"``, ``"borda"`` or
        None (raw scores). Rank-based methods read positions and ignore it.
    weights
        Per-system weights for ``"rrf"``, ``"rbc"``, ``"borda"``, ``"combsum"`` and
        ``"combmnz"``: a dict ``{system: weight}`` or a sequence in sorted system order, one
        per fused system; non-negative, not all zero. :func:`pdireval.tune_fusion` finds them on training queries.
    qrels
        Judgments for the upper bounds (naive, pareto, majoritarian); default: the run's
        ``label`` column. Ignored by the other methods.
    systems
        ``None`` (all systems of the run) or a list of system names to fuse.
    name
        System name of the fused run; default the method's name (e.g. ``"RRF"``).
    columns
        Optional mapping ``{canonical name: your column name}`` for ``runs``.

    Returns
    -------
    DataFrame
        A run frame: ``system`` (str, ``name``), ``query``, ``doc`` (str), ``score`` (float64:
        the fused score, rounded to 44 significant bits; ``m − position`` for the comparator
        methods, m = |U|), ``rank`` (int64, 1 = top). One row per document of U, queries in
        natural order, each by ``score`` descending at full precision, equal scores by doc id
        descending. ``evaluate`` compares scores at float32 by default (trec_eval 9), which
        can tie distinct fused scores (it warns when a tie holds a judged document); pass
        ``order="rank"`` to evaluate the fused ranking exactly.

    Raises
    ------
    SchemaError
        Unknown systems, Comb* on a run without scores, a bound without judgments.
    OptionError
        Unknown method or norm, weights with a method that takes none, bad k / phi / weights,
        weights that are all zero, ``systems=[]``.

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=2, depth=10, rng=1)
    >>> fused = pdireval.fuse(run, "rrf", k=60)
    >>> fused["system"].iloc[0], list(fused.columns)
    ('RRF', ['system', 'query', 'doc', 'score', 'rank'])

    References
    ----------
    Shaw, J. A., Fox, E. A. (1994). Combination of multiple searches. TREC-2.
    Aslam, J. A., Montague, M. (2001). Models for metasearch. SIGIR.
    Montague, M., Aslam, J. A. (2002). Condorcet fusion for improved retrieval. CIKM.
    Montague, M. (2002). Metasearch: data fusion for document retrieval. PhD thesis, Dartmouth.
    Cormack, G. V., Clarke, C. L. A., Büttcher, S. (2009). Reciprocal rank fusion outperforms
    Condorcet and individual rank learning methods. SIGIR.
    Mourão, A., Martins, F., Magalhães, J. (2015). Multimodal medical information retrieval
    with unsupervised rank fusion. Computerized Medical Imaging and Graphics 39.
    Bailey, P., Moffat, A., Scholer, F., Thomas, P. (2017). Retrieval consistency in the
    presence of query variations. SIGIR.
    Bassani, E., Romelli, L. (2022). ranx.fuse: a Python library for metasearch. CIKM.
    """
    method = resolve_method(method)
    norm = resolve_norm(norm)
    k = _check_k(k)
    phi = _check_phi(phi)
    canonical, keys = select_systems(*canonical_run_keys(as_frame(runs, "run"), columns), systems)
    label = name or RANK_METHODS.get(method) or SCORE_METHODS.get(method) or COMPARATOR_METHODS[method]
    if method in COMPARATOR_METHODS:
        if weights is not None:
            check_weights(weights, [], method)
        return _fuse_comparator(canonical, keys, method, qrels, label)
    if method in SCORE_METHODS and norm not in ("rank", "borda") and "score" not in canonical.columns:
        raise SchemaError(
            f"{SCORE_METHODS[method]} fuses scores, but the run has only a 'rank' column. Add "
            "a 'score' column, use norm='rank' or norm='borda', or a rank-based method (method='rrf')."
        )
    lists = _Lists(canonical, keys)
    w = check_weights(weights, lists.systems, method)
    values, dense = fusion_contributions(lists, method, norm=norm, k=k, phi=phi)
    fused = _aggregate(lists, method, values, dense, w)
    tiebreak = None
    if method == "rbc" and len(fused) and fused.min() < np.finfo(np.float64).tiny:
        # the doubles underflow: rank the documents whose score did by ln RBC
        tiebreak = np.where(fused < np.finfo(np.float64).tiny, _rbc_log_score(lists, phi, w), 0.0)
    return _run_frame(lists, fused, label, tiebreak)


def _fuse_comparator(canonical, keys, method, qrels, label):
    lists = _Lists(canonical, keys)
    rel = np.zeros(lists.n_u)
    if method in _NEEDS_QRELS:
        if qrels is not None:
            labels = canonical_qrels(as_frame(qrels, "qrels"))
        elif "label" in canonical.columns:
            labels = qrels_from_run(canonical)
        else:
            raise SchemaError(
                f"method={method!r} is an upper bound that reads the judgments: pass qrels= (a "
                "frame with query, doc, label), or give the run a 'label' column."
            )
        rel = _labels_of_documents(lists, keys, labels)
    return _comparator_fusion(lists, rel, method, label)
