"""trec_eval's measures, one function each, vectorised over the evaluated queries.

Each kernel transcribes the ``te_calc_<measure>`` function of trec_eval's ``m_<measure>.c``
(Buckley, NIST; 9.0.8 and 10.0) and returns, for every query, the value trec_eval computes,
bit for bit: running sums are row-wise ``np.cumsum`` (sequential, the C loop's order), the
same divisions in the same order, and the same special cases (0 when nothing is relevant,
``0/0 = -nan`` where trec_eval divides by an empty list). Input is :class:`ResRels`, the
vectorised form of trec_eval's ``RES_RELS``: one row per query, the relevance value of each
retrieved document in rank order (``-1``: not in the qrels, ``-2``: pooled but unjudged,
i.e. a negative qrels label), and the per-query counts of ``form_res_rels.c``.

Kernel signature: ``kernel(rr, params) -> float64 array`` of shape ``(n_queries,)`` for a
single measure or ``(n_queries, len(params))`` for a family with cut-offs.

References: Buckley, C. & Voorhees, E. M. (2005). Retrieval system evaluation. In TREC:
Experiment and Evaluation in Information Retrieval, MIT Press. trec_eval 9.0.8 and 10.0,
https://github.com/usnistgov/trec_eval (the measures' own citations are in
:data:`pdireval.trec.trec_measures.MEASURES`).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from pdireval.trec.trec_gains import Gains, gains_of

NONPOOL = -1
UNJUDGED = -2
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001


class ResRels:
    """trec_eval's RES_RELS for every evaluated query at once.

    ``rel``: int64 (n_queries, width), the value of each retrieved document in rank order,
    padded beyond ``num_ret`` (``valid`` is False there). ``levels``: int64 (n_queries,
    n_levels), the number of judged documents (label >= 0) at each label 0, 1, ...;
    ``num_rel_levels``: one more than the highest label held by a judged document.
    ``level``: trec_eval's ``-l`` (relevance level); ``version``: ``"9"`` or ``"10"``;
    ``num_docs_in_coll``: ``-N``.
    """

    def __init__(
        self,
        rel,
        valid,
        num_ret,
        num_rel,
        num_rel_ret,
        num_nonpool,
        num_unjudged,
        levels,
        num_rel_levels,
        level: int,
        version: str,
        num_docs_in_coll: int = 0,
    ):
        self.rel, self.valid, self.num_ret, self.num_rel = rel, valid, num_ret, num_rel
        self.num_rel_ret, self.num_nonpool, self.num_unjudged = (
            num_rel_ret,
            num_nonpool,
            num_unjudged,
        )
        self.levels, self.num_rel_levels = levels, num_rel_levels
        self.level, self.version, self.num_docs_in_coll = level, version, num_docs_in_coll
        self.cache: dict = {}

    @property
    def n(self) -> int:
        return self.rel.shape[0]

    @property
    def width(self) -> int:
        return self.rel.shape[1]

    @cached_property
    def isrel(self) -> np.ndarray:
        return self.valid & (self.rel >= self.level)

    @cached_property
    def cumrel(self) -> np.ndarray:
        return np.cumsum(self.isrel, axis=1)

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based ranks as float64 (``(double) (i + 1)``)."""
        return np.arange(1, self.width + 1, dtype=np.float64)

    @cached_property
    def ap_sum(self) -> np.ndarray:
        """Running sum of the precisions at each relevant document (map's ``sum``)."""
        contrib = np.where(self.isrel, self.cumrel / self.rank, 0.0)
        return np.cumsum(contrib, axis=1)

    def at(self, matrix: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """``matrix[q, counts[q] - 1]`` (the running value after ``counts`` documents), 0 where
        ``counts`` is 0; ``counts`` may be 2-d (one column per cut-off)."""
        counts = np.minimum(counts, self.width)
        index = np.maximum(counts - 1, 0)
        rows = np.arange(self.n).reshape((-1,) + (1,) * (index.ndim - 1))
        out = matrix[rows, index]
        return np.where(counts > 0, out, np.zeros_like(out))

    def first_k(self, matrix: np.ndarray, cutoffs) -> np.ndarray:
        """Running value after the first ``min(c, num_ret)`` documents for each cut-off."""
        cut = np.asarray(cutoffs, dtype=np.int64)[None, :]
        return self.at(matrix, np.minimum(cut, self.num_ret[:, None]))


def _div(a, b):
    return np.true_divide(a, b)


def c_float(values) -> np.ndarray:
    """C's ``(float) x`` of doubles (trec_eval 9.0.8 keeps scores and preference levels as C
    floats): rounded to float32, a magnitude above the float32 range becoming infinite, as
    the conversion does on x86-64, without numpy's overflow warning."""
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float64).astype(np.float32)


# ------------------------------------------------------------------------ counts


def num_ret(rr, params=None):
    return rr.num_ret.astype(np.float64)


def num_rel(rr, params=None):
    return rr.num_rel.astype(np.float64)


def num_rel_ret(rr, params=None):
    return rr.num_rel_ret.astype(np.float64)


def num_nonrel_judged_ret(rr, params=None):
    return (rr.num_ret - rr.num_nonpool - rr.num_unjudged - rr.num_rel_ret).astype(np.float64)


def num_q(rr, params=None):
    return np.ones(rr.n)


# ------------------------------------------------------------------------ rankings


def map_(rr, params=None):
    total = rr.at(rr.ap_sum, rr.num_ret)
    found = rr.at(rr.cumrel, rr.num_ret)
    return np.where(found > 0, _div(total, rr.num_rel), 0.0)


def gm_map(rr, params=None):
    return np.log(np.maximum(map_(rr), MIN_GEO_MEAN))


def yaap(rr, params=None):
    total = rr.at(rr.ap_sum, rr.num_ret)
    return np.log(_div(1.0 + total, (1.0 + rr.num_rel.astype(np.float64)) - total))


def rprec(rr, params=None):
    look = np.minimum(rr.num_ret, rr.num_rel)
    return np.where(look > 0, _div(rr.at(rr.cumrel, look), rr.num_rel), 0.0)


def _bpref_sum(rr):
    judged = rr.valid & (rr.rel >= 0)
    nonrel = judged & (rr.rel < rr.level)
    relevant = judged & ~nonrel
    nonrel_so_far = np.cumsum(nonrel, axis=1)
    num_nonrel = (
        rr.levels[:, : max(rr.level, 0)].sum(axis=1) if rr.level > 0 else np.zeros(rr.n, np.int64)
    )
    num_rel = rr.num_rel[:, None]
    part = 1.0 - _div(
        np.minimum(nonrel_so_far, num_rel).astype(np.float64),
        np.minimum(num_nonrel[:, None], num_rel).astype(np.float64),
    )
    contrib = np.where(relevant, np.where(nonrel_so_far > 0, part, 1.0), 0.0)
    total = rr.at(np.cumsum(contrib, axis=1), rr.num_ret)
    return np.where(rr.num_rel > 0, _div(total, rr.num_rel), total)


def bpref(rr, params=None):
    return _bpref_sum(rr)


def gm_bpref(rr, params=None):
    return np.log(np.maximum(_bpref_sum(rr), MIN_GEO_MEAN))


def recip_rank(rr, params=None):
    first = np.argmax(rr.isrel, axis=1)
    found = rr.isrel[np.arange(rr.n), first]
    return np.where(found, 1.0 / (first + 1.0), 0.0)


def infap(rr, params=None):
    judged = rr.valid & (rr.rel >= 0)
    nonrel = judged & (rr.rel < rr.level)
    relevant = judged & ~nonrel
    unjudged = rr.valid & (rr.rel == UNJUDGED)
    rel_so_far = np.cumsum(relevant, axis=1)
    nonrel_so_far = np.cumsum(nonrel, axis=1)
    pool_unjudged = np.cumsum(unjudged, axis=1)
    fj = np.arange(rr.width, dtype=np.float64)[None, :]
    r1 = rel_so_far - 1
    term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
        _div((r1 + nonrel_so_far + pool_unjudged).astype(np.float64), fj)
    ) * (_div(r1 + INFAP_EPSILON, (r1 + nonrel_so_far) + 2 * INFAP_EPSILON))
    term[:, 0] = 1.0
    contrib = np.where(relevant, term, 0.0)
    total = rr.at(np.cumsum(contrib, axis=1), rr.num_ret)
    return np.where(rr.num_rel > 0, _div(total, rr.num_rel), total)


def precision(rr, cutoffs):
    return _div(
        rr.first_k(rr.cumrel, cutoffs).astype(np.float64), np.asarray(cutoffs, np.float64)[None, :]
    )


def recall(rr, cutoffs):
    found = rr.first_k(rr.cumrel, cutoffs).astype(np.float64)
    return np.where(rr.num_rel[:, None] > 0, _div(found, rr.num_rel[:, None]), 0.0)


def relative_p(rr, cutoffs):
    found = rr.first_k(rr.cumrel, cutoffs).astype(np.float64)
    cut = np.asarray(cutoffs, np.int64)[None, :]
    denominator = np.where(cut > rr.num_rel[:, None], rr.num_rel[:, None], cut)
    return np.where(rr.num_rel[:, None] > 0, _div(found, denominator), 0.0)


def success(rr, cutoffs):
    return np.where(rr.first_k(rr.cumrel, cutoffs) > 0, 1.0, 0.0)


def map_cut(rr, cutoffs):
    total = rr.first_k(rr.ap_sum, cutoffs)
    return np.where(rr.num_rel[:, None] > 0, _div(total, rr.num_rel[:, None]), 0.0)


def unj(rr, cutoffs):
    unjudged = rr.valid & ((rr.rel == NONPOOL) | (rr.rel == UNJUDGED))
    count = rr.first_k(np.cumsum(unjudged, axis=1), cutoffs).astype(np.float64)
    return _div(count, np.asarray(cutoffs, np.float64)[None, :])


def _iprec_cut(rr, percents) -> np.ndarray:
    num_rel = rr.num_rel.astype(np.float64)[:, None]
    scaled = np.asarray(percents, np.float64)[None, :] * num_rel
    if rr.version == "10":  # lround: halves away from zero
        return np.where(scaled >= 0, np.floor(scaled + 0.5), np.ceil(scaled - 0.5)).astype(np.int64)
    return (scaled + 0.9).astype(np.int64)  # (long) (x + 0.9), truncation toward zero


def _interpolated(rr, percents) -> np.ndarray:
    """iprec_at_recall's values, cut-offs ascending (the C loop of m_iprec_at_recall.c).

    The loop walks from the last retrieved document up with ``rel_so_far`` starting at
    num_rel_ret and dropping by one at each document counted relevant; at rank i it is
    ``cumrel(i) + d`` with ``d = num_rel_ret - (documents counted relevant)`` (0 unless
    ``-l`` is below 0, when unjudged documents count as relevant but not in num_rel_ret).
    """
    cut = _iprec_cut(rr, percents)
    total = rr.cumrel[np.arange(rr.n), np.maximum(rr.num_ret - 1, 0)] * (rr.num_ret > 0)
    rso = rr.cumrel + (rr.num_rel_ret - total)[:, None]
    visited = rr.valid & (rso > 0)
    precis = np.where(visited, _div(rso.astype(np.float64), rr.rank[None, :]), -np.inf)
    start = _div(rr.num_rel_ret.astype(np.float64), rr.num_ret.astype(np.float64))
    suffix = np.maximum.accumulate(precis[:, ::-1], axis=1)[:, ::-1]  # max over ranks >= i
    suffix = np.maximum(suffix, start[:, None])
    # at the document counted relevant where rel_so_far == k
    hit = visited & rr.isrel
    rows, cols = np.nonzero(hit)
    k = rso[rows, cols] - 1
    width = max(int(rr.num_rel_ret.max(initial=0)), 1)
    at_kth = np.zeros((rr.n, width))
    at_kth[rows, k] = suffix[rows, cols]
    # cut-offs not met in the loop (0, ...): the value when the loop ends
    first = np.argmax(visited, axis=1)  # rel_so_far grows with the rank: visited ranks are a suffix
    final = np.where(visited.any(axis=1), suffix[np.arange(rr.n), first], start)
    rows2 = np.arange(rr.n)[:, None]
    kth = at_kth[rows2, np.clip(cut - 1, 0, width - 1)]
    values = np.where(cut <= 0, final[:, None], kth)
    return np.where(cut > rr.num_rel_ret[:, None], 0.0, values)


def _sorted(values) -> bool:
    return all(a <= b for a, b in zip(values, values[1:]))


def iprec_at_recall(rr, percents):
    if not _sorted(list(percents)):
        return _per_query(rr, percents, _iprec_loop)
    return _interpolated(rr, percents)


def pt11_avg(rr, percents):
    if not _sorted(list(percents)) or not len(percents):
        return _per_query(rr, percents, _iprec_loop)[:, -1]
    values = _interpolated(rr, percents)
    total = np.cumsum(values[:, ::-1], axis=1)[:, -1]  # trec_eval adds the highest cut-off first
    return total / float(len(percents))


def _per_query(rr, percents, loop):
    return np.array([loop(rr, q, list(percents)) for q in range(rr.n)])


def _iprec_loop(rr, q, percents):
    """The C loop of m_iprec_at_recall.c / m_11pt_avg.c for one query (any cut-off order):
    the iprec values followed by 11pt_avg's sum / len."""
    n = len(percents)
    num_rel, nrr, nret = int(rr.num_rel[q]), int(rr.num_rel_ret[q]), int(rr.num_ret[q])
    if rr.version == "10":
        cutoffs = [
            int(np.floor(p * num_rel + 0.5))
            if p * num_rel >= 0
            else int(np.ceil(p * num_rel - 0.5))
            for p in percents
        ]
    else:
        cutoffs = [int(p * num_rel + 0.9) for p in percents]
    values = [0.0] * n
    total = 0.0
    current = n - 1
    while current >= 0 and cutoffs[current] > nrr:
        current -= 1
    with np.errstate(all="ignore"):
        int_precis = float(np.float64(nrr) / np.float64(nret))
    rel_so_far = nrr
    i = nret
    while i > 0 and rel_so_far > 0:
        precis = rel_so_far / i
        if int_precis < precis:
            int_precis = precis
        if rr.rel[q, i - 1] >= rr.level:
            while current >= 0 and rel_so_far == cutoffs[current]:
                values[current] = int_precis
                total += int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = int_precis
        total += int_precis
        current -= 1
    return values + [total / n if n else float("nan")]


def rprec_mult(rr, percents):
    """m_Rprec_mult.c: precision at ``(long) (x * num_rel + 0.9)`` documents, read in the same
    backward loop as iprec_at_recall (see :func:`_interpolated`)."""
    num_rel = rr.num_rel.astype(np.float64)[:, None]
    cut = (np.asarray(percents, np.float64)[None, :] * num_rel + 0.9).astype(np.int64)
    total = rr.cumrel[np.arange(rr.n), np.maximum(rr.num_ret - 1, 0)] * (rr.num_ret > 0)
    d = (rr.num_rel_ret - total)[:, None]
    rso = rr.at(rr.cumrel, np.minimum(cut, rr.num_ret[:, None])) + d
    inside = np.where(
        (cut > 0) & (rso > 0), _div(rso.astype(np.float64), cut.astype(np.float64)), 0.0
    )
    beyond = _div(rr.num_rel_ret.astype(np.float64)[:, None], cut.astype(np.float64))
    return np.where(cut > rr.num_ret[:, None], beyond, inside)


def utility(rr, params):
    if len(params) != 4:
        raise ValueError("trec_eval.calc_utility: improper number of coefficients")
    a, b, c, d = params
    nrr, nret, nrel = rr.num_rel_ret, rr.num_ret, rr.num_rel
    return (
        (a * nrr + b * (nret - nrr))
        + c * (nrel - nrr)
        + d * (rr.num_docs_in_coll + nrr - nret - nrel)
    )


def set_p(rr, params=None):
    return np.where(rr.num_ret > 0, _div(rr.num_rel_ret, rr.num_ret), 0.0)


def set_relative_p(rr, params=None):
    ok = (rr.num_ret > 0) & (rr.num_rel > 0)
    return np.where(ok, _div(rr.num_rel_ret, np.minimum(rr.num_ret, rr.num_rel)), 0.0)


def set_recall(rr, params=None):
    return np.where(rr.num_rel > 0, _div(rr.num_rel_ret, rr.num_rel), 0.0)


def set_map(rr, params=None):
    ok = (rr.num_ret > 0) & (rr.num_rel > 0)
    nrr = rr.num_rel_ret.astype(np.float64)
    return np.where(
        ok, _div(nrr * nrr, rr.num_ret.astype(np.float64) * rr.num_rel.astype(np.float64)), 0.0
    )


def set_f(rr, params):
    x = float(params[0]) if len(params) else 1.0
    p = _div(rr.num_rel_ret.astype(np.float64), rr.num_ret.astype(np.float64))
    r = _div(rr.num_rel_ret.astype(np.float64), rr.num_rel.astype(np.float64))
    return np.where(rr.num_rel_ret > 0, _div((x + 1.0) * p * r, x * p + r), 0.0)


def bin_g(rr, params=None):
    i = np.arange(rr.width, dtype=np.int64)[None, :]
    contrib = np.where(rr.isrel, 1.0 / np.log2((3 + i - rr.cumrel).astype(np.float64)), 0.0)
    total = rr.at(np.cumsum(contrib, axis=1), rr.num_ret)
    found = rr.at(rr.cumrel, rr.num_ret)
    return np.where(found > 0, _div(total, rr.num_rel), 0.0)


def relstring(rr, params):
    """The first ``params[0]`` (default 10) documents' values as characters (a string per
    query): the digit, ``>`` above 9, ``-`` not in the qrels, ``.`` pooled but unjudged."""
    length = int(params[0]) if len(params) else 10
    out = []
    for q in range(rr.n):
        n = max(min(length, int(rr.num_ret[q])), 0)
        chars = []
        for value in rr.rel[q, :n].tolist():
            if value > 9:
                chars.append(">")
            elif value >= 0:
                chars.append(chr(48 + value))
            elif value == NONPOOL:
                chars.append("-")
            elif value == UNJUDGED:
                chars.append(".")
            else:
                chars.append("<")
        out.append("".join(chars))
    return out


# ------------------------------------------------------------------------ gains (dcg family)


def _discount(width: int) -> np.ndarray:
    return np.log2(np.arange(2, width + 2, dtype=np.float64))


def _dcg_parts(rr, pairs):
    gains = gains_of(rr, pairs)
    g = gains.of(rr.rel, rr.valid)
    results = np.cumsum(np.where(g != 0, g / _discount(rr.width)[None, :], 0.0), axis=1)
    ideal_gains = gains.ideal()
    ideal = np.cumsum(
        np.where(ideal_gains > 0, ideal_gains / _discount(ideal_gains.shape[1])[None, :], 0.0),
        axis=1,
    )
    ideal_len = (ideal_gains > 0).sum(axis=1)
    return g, results, ideal_gains, ideal, ideal_len


def _last(matrix, counts):
    counts = np.minimum(counts, matrix.shape[1])
    out = matrix[np.arange(matrix.shape[0]), np.maximum(counts - 1, 0)]
    return np.where(counts > 0, out, 0.0)


def ndcg(rr, pairs):
    _g, results, _ig, ideal, ideal_len = _dcg_parts(rr, pairs)
    dcg_value = _last(results, rr.num_ret)
    idcg = _last(ideal, ideal_len)
    return np.where(idcg > 0, _div(dcg_value, idcg), 0.0)


def dcg(rr, pairs):
    _g, results, _ig, _ideal, _len = _dcg_parts(rr, pairs)
    return _last(results, rr.num_ret)


def ideal_dcg(rr, pairs):
    _g, _results, _ig, ideal, ideal_len = _dcg_parts(rr, pairs)
    return _last(ideal, ideal_len)


def ndcg_cut(rr, cutoffs):
    """m_ndcg_cut.c: gains are the labels themselves (no gain parameters)."""
    gain = np.where(rr.valid & (rr.rel > 0), rr.rel, 0).astype(np.float64)
    results = np.cumsum(np.where(gain > 0, gain / _discount(rr.width)[None, :], 0.0), axis=1)
    ideal_gains = Gains(rr, ()).ideal()
    ideal = np.cumsum(
        np.where(ideal_gains > 0, ideal_gains / _discount(ideal_gains.shape[1])[None, :], 0.0),
        axis=1,
    )
    ideal_len = (ideal_gains > 0).sum(axis=1)
    cut = np.asarray(cutoffs, np.int64)[None, :]
    dcg_at = rr.at(results, np.minimum(cut, rr.num_ret[:, None]))
    rows = np.arange(rr.n)[:, None]
    k = np.minimum(cut, ideal_len[:, None])
    idcg_at = np.where(k > 0, ideal[rows, np.clip(k - 1, 0, ideal.shape[1] - 1)], 0.0)
    return np.where(idcg_at > 0, _div(dcg_at, idcg_at), dcg_at)


def ndcg_rel(rr, pairs):
    g, results, ideal_gains, ideal, ideal_len = _dcg_parts(rr, pairs)
    idcg_total = _last(ideal, ideal_len)
    # ideal_dcg at each retrieved rank (ideal positions beyond its length add nothing)
    width = rr.width
    ideal_w = np.zeros((rr.n, width))
    m = min(width, ideal.shape[1])
    ideal_w[:, :m] = ideal[:, :m]
    pos = np.arange(width)[None, :]
    ideal_at = np.where(pos < ideal_len[:, None], ideal_w, idcg_total[:, None])
    hit = rr.valid & (g > 0)
    contrib = np.where(hit, _div(results, ideal_at), 0.0)
    total = _last(np.cumsum(contrib, axis=1), rr.num_ret)
    num_rel_ret = hit.sum(axis=1)
    final = _last(results, rr.num_ret)
    total = total + _div((ideal_len - num_rel_ret).astype(np.float64) * final, idcg_total)
    return np.where(total > 0, _div(total, ideal_len), 0.0)


def rndcg(rr, pairs):
    g, results, ideal_gains, ideal, ideal_len = _dcg_parts(rr, pairs)
    gains = gains_of(rr, pairs)
    n = rr.n
    out = np.zeros(n)
    # trec_eval returns 0 early when the query has no relevant document
    for q in np.nonzero(rr.num_rel > 0)[0]:
        out[q] = _rndcg_one(
            results[q],
            int(rr.num_ret[q]),
            ideal_gains[q],
            ideal[q],
            int(ideal_len[q]),
            float(gains.top[q]),
        )
    return out


def _rndcg_one(results, nret, ideal_gains, ideal, k, top):
    """Rndcg's sum over the ranks where the ideal gain changes (m_Rndcg.c)."""
    total = 0.0
    changes = 0
    old = top
    first_loop_end = min(nret, k + 1) if top > 0 else 0
    for i in range(max(first_loop_end, 0)):
        gain_i = ideal_gains[i] if i < k else 0.0
        if gain_i != old:
            idcg = ideal[i - 1] if i > 0 else 0.0
            if idcg > 0:
                total += (results[i - 1] if i > 0 else 0.0) / idcg
                changes += 1
            old = gain_i
    i = first_loop_end
    rfinal = results[nret - 1] if nret > 0 else 0.0
    idcg_total = ideal[k - 1] if k > 0 else 0.0
    if i < nret:
        if idcg_total > 0:
            total += rfinal / idcg_total
            changes += 1
        current = 0.0
    else:
        current = ideal_gains[i - 1] if 0 < i <= k else (top if i == 0 else 0.0)
        if i == 0:
            current = top
    # remaining ideal ranks (results complete)
    while current > 0:
        gain_i = ideal_gains[i] if i < k else 0.0
        if gain_i != old:
            idcg = ideal[i - 1] if i > 0 else 0.0
            if idcg > 0:
                total += rfinal / idcg
                changes += 1
            old = gain_i
        current = gain_i
        i += 1
    with np.errstate(all="ignore"):
        return float(np.float64(total) / np.float64(changes))


def g_measure(rr, pairs):
    gains = gains_of(rr, pairs)
    g = gains.of(rr.rel, rr.valid)
    ideal_gains = gains.ideal()
    width = rr.width
    ig = np.zeros((rr.n, width))
    m = min(width, ideal_gains.shape[1])
    ig[:, :m] = ideal_gains[:, :m]
    cost = np.where(ig >= 1.0, ig, 1.0)
    sum_cost = np.cumsum(cost, axis=1)
    sum_results = np.cumsum(np.where(rr.valid, g, 0.0), axis=1)
    contrib = np.where((g != 0) & rr.valid, _div(g, np.log2((2 + sum_cost) - sum_results)), 0.0)
    # + 0.0: trec_eval's sum starts at 0.0, so it is never -0.0 (a first term 3 / log2(0)
    # = -0.0 gives 0.0 + -0.0 = 0.0 there, -0.0 in a cumulative sum)
    results_g = _last(np.cumsum(contrib, axis=1), rr.num_ret) + 0.0
    sum_ideal = np.cumsum(np.where(ideal_gains > 0, ideal_gains, 0.0), axis=1)[:, -1]
    return np.where(sum_ideal > 0, _div(results_g, sum_ideal), 0.0)


def rbp(rr, pairs):
    p = 0.9
    for name, value in pairs:
        if name == "p":
            p = float(value)
    gains = gains_of(rr, pairs)
    g = gains.of(rr.rel, rr.valid)
    # m_rbp.c rescales the query's gains to [0, 1] when one is outside (its min and max start
    # uninitialised; the 10.0 binary behaves as if they started at 0): the query's gain table
    # holds the -m pairs and the labels 0 .. num_rel_levels - 1
    pair_levels = {lvl for lvl, _ in gains.pair_entries}
    pair_gains = [gain for _, gain in gains.pair_entries]
    lo = np.full(rr.n, min([0.0, *pair_gains]))
    hi = np.full(rr.n, max([0.0, *pair_gains]))
    for lvl in range(rr.levels.shape[1]):
        if lvl in pair_levels:
            continue
        has = lvl < rr.num_rel_levels
        lo = np.where(has, np.minimum(lo, float(lvl)), lo)
        hi = np.where(has, np.maximum(hi, float(lvl)), hi)
    rescale = ((lo < 0) | (hi > 1))[:, None]
    in_table = rr.valid & (
        np.isin(rr.rel, list(pair_levels)) | ((rr.rel >= 0) & (rr.rel < rr.num_rel_levels[:, None]))
    )
    scaled = _div(g - lo[:, None], (hi - lo)[:, None])
    g = np.where(rescale & in_table, scaled, g)
    cur_p = np.cumprod(
        np.concatenate([np.ones((rr.n, 1)), np.full((rr.n, rr.width - 1), p)], axis=1)
        if rr.width > 1
        else np.ones((rr.n, 1)),
        axis=1,
    )
    contrib = np.where((g != 0) & rr.valid, g * cur_p, 0.0)
    total = _last(np.cumsum(contrib, axis=1), rr.num_ret)
    return (1.0 - p) * total


def rbp_resid(rr, pairs):
    p = 0.9
    for name, value in pairs:
        if name == "p":
            p = float(value)
    powers = np.cumprod(np.full((rr.n, rr.width + 1), p), axis=1) / p  # p^0, p^1, ...
    powers = np.cumprod(
        np.concatenate([np.ones((rr.n, 1)), np.full((rr.n, rr.width), p)], axis=1), axis=1
    )
    unjudged = rr.valid & (rr.rel < 0)
    total = _last(np.cumsum(np.where(unjudged, powers[:, :-1], 0.0), axis=1), rr.num_ret)
    final_p = powers[np.arange(rr.n), np.minimum(rr.num_ret, rr.width)]
    count = unjudged.sum(axis=1)
    return np.where(count > 0, final_p + (1 - p) * total, 0.0)
