"""Intent-aware (diversity) measures of ndeval (TREC Web track), exact to ndeval.

Judgments come per (query, subtopic, document): the qrels frame's optional ``subtopic``
column (ir_datasets' ``iteration`` in diversity collections; ``read_qrels(path,
subtopics=True)`` reads it from the second field of a TREC qrels file). A document is
relevant to subtopic j when its label for j is >= ``rel``; ndeval's judgments are binary
per subtopic. A query's *actual* subtopics are those with at least one relevant document
(A of them); a query with A = 0 scores 0. Without a ``subtopic`` column every query is one
subtopic (as ir_measures does).

For a ranked list, let ``c_ij`` be the number of documents above rank i relevant to
subtopic j; the novelty-biased gain of rank i is ``s_i = Σ_j rel_ij·(1 − α)^{c_ij}``
(Clarke et al. 2008). With 0-based positions i (rank i + 1):

==============  ===========================================================================
alpha_DCG@k     Σ_{i<k} s_i / log2(i + 2), divided (k >= 2) by the "ideal ideal"
                A·Σ_{i<k} (1 − α)^i / log2(i + 2) — every document relevant to every
                subtopic; ndeval leaves k = 1 undivided, and so does pdireval
alpha_nDCG@k    Σ_{i<k} s_i / log2(i + 2) over the same sum for the ideal ranking
ERR_IA@k        Σ_{i<k} s_i / (i + 1), divided (k >= 2) by A·Σ_{i<k} (1 − α)^i / (i + 1)
                (ndeval's ERR-IA: Chapelle et al. 2009's ERR per intent with stopping
                probability α for a relevant document, averaged over intents, up to the
                constant α)
nERR_IA@k       Σ_{i<k} s_i / (i + 1) over the same sum for the ideal ranking
NRBP            (1 − (1 − α)β) / A · Σ_i s_i β^i over the whole list (Clarke et al. 2009)
nNRBP           NRBP over the NRBP of the ideal ranking
P_IA@k          Σ_{i<k} Σ_j rel_ij / (k·A)  (Agrawal et al. 2009)
AP_IA           (1/A)·Σ_j AP_j, AP_j = Σ_{i: rel_ij} (c_ij + 1)/(i + 1) / R_j over the
                whole list, R_j the relevant documents of subtopic j
StRecall@k      subtopics covered by the top k / A (Zhai, Cohen & Lafferty 2003)
==============  ===========================================================================

**The ideal ranking** (ndeval's, as finding the best one is NP-hard): greedy — rank by rank,
take the judged document with the largest gain ``Σ_j rel_ij·(1 − α)^{c_j}`` given the
documents already taken, ties to the largest doc id (byte order); it depends on ``rel`` and
``alpha`` and is computed once per query for all systems.

Differences from ndeval that cannot change a number: ndeval caps the cut-offs at 20 (its
``DEPTH``); pdireval takes any k. Differences that can: ndeval gives nNRBP = NaN (0/0) for a
query without relevant subtopics, pdireval 0; the ranking follows pdireval's order (score
descending, ties by doc id descending, as trec_eval), while pyndeval breaks score ties by
doc id ascending.

Kernels are vectorised over (segment, subtopic) pairs: each retrieved relevant document is
expanded to its relevant subtopics, ``c_ij`` is the rank of the pair within its
(segment, subtopic) group, and every sum is a ``bincount``. The greedy ideal loops over
ranks (not queries), each step vectorised over all queries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdireval.errors import MeasureError
from pdireval.measures.view import View, seg_sum, view_of, within_segment_rank

__all__ = ["SubtopicJudgments", "subtopic_judgments", "greedy_ideal"]


@dataclass
class SubtopicJudgments:
    """Relevant (query row, subtopic) entries under a threshold ``rel``.

    Attributes
    ----------
    row, sub
        Per entry: the (query, doc) qrels row and a subtopic code unique across queries;
        sorted by row then subtopic.
    row_start
        CSR offsets: the entries of qrels row r are ``row_start[r]:row_start[r+1]``.
    actual
        A per query: subtopics with at least one relevant document.
    sub_count
        R_j per subtopic code: its relevant documents.
    """

    row: np.ndarray
    sub: np.ndarray
    row_start: np.ndarray
    actual: np.ndarray
    sub_count: np.ndarray


def subtopic_judgments(segments, rel: float) -> SubtopicJudgments:
    """The (cached) relevant subtopic entries of the qrels at threshold ``rel``."""
    key = ("subtopics", rel)
    judgments = segments.judgments
    if key in judgments.cache:
        return judgments.cache[key]
    table = judgments.subtopics  # (row, sub, label) arrays, or None
    n_rows = len(judgments.label)
    if table is None:  # one subtopic per query
        row = np.arange(n_rows, dtype=np.int64)
        sub = judgments.row_query.astype(np.int64)
        label = judgments.label
        n_sub = judgments.n_queries
        sub_query = np.arange(n_sub)
    else:
        row, sub, label = table.row, table.sub, table.label
        n_sub = len(table.sub_query)
        sub_query = table.sub_query
    keep = label >= rel  # NaN -> False
    row, sub = row[keep], sub[keep]
    order = np.lexsort((sub, row))
    row, sub = row[order], sub[order]
    row_start = np.searchsorted(row, np.arange(n_rows + 1))
    sub_count = np.bincount(sub, minlength=n_sub).astype(np.float64)
    actual = np.bincount(sub_query[sub_count > 0], minlength=judgments.n_queries).astype(np.float64)
    out = SubtopicJudgments(row, sub, row_start, actual, sub_count)
    judgments.cache[key] = out
    return out


@dataclass
class Pairs:
    """Retrieved (document, relevant subtopic) pairs of every segment."""

    hit: np.ndarray  # index into the view's hits
    seg: np.ndarray
    pos: np.ndarray
    sub: np.ndarray
    seen: np.ndarray  # c_ij: earlier documents of the segment relevant to the subtopic


def subtopic_pairs(
    v: View, st: SubtopicJudgments, cutoff: int | None, hits: np.ndarray | None = None
) -> Pairs:
    """The pairs of the hits within the cut-off (or of ``hits``, a prefix of each list)."""
    if hits is None:
        hits = np.arange(len(v.hit_seg)) if cutoff is None else np.flatnonzero(v.hit_pos < cutoff)
    if v.hit_qrow is None:  # every view of segments built from judgments has it
        raise MeasureError("diversity measures need the judgments row of each hit (hit_qrow)")
    qrow = v.hit_qrow[hits]
    start = st.row_start[qrow]
    count = st.row_start[qrow + 1] - start
    if len(count) and count.max() <= 1:  # one subtopic per query: no expansion
        some = count > 0
        hit, entry = hits[some], start[some]
    else:
        hit = np.repeat(hits, count)
        first = np.repeat(start, count)
        entry = first + (np.arange(len(hit)) - np.repeat(np.cumsum(count) - count, count))
    sub = st.sub[entry]
    seg, pos = v.hit_seg[hit], v.hit_pos[hit]
    seen = np.empty(len(hit), dtype=np.int64)
    if len(hit):
        # pairs are in (segment, position) order already: a stable sort by (segment,
        # subtopic) keeps positions ascending within each group
        key = seg.astype(np.int64) * (int(sub.max()) + 1) + sub
        order = np.argsort(key, kind="stable")
        seen[order] = within_segment_rank(key[order])
    return Pairs(hit, seg, pos, sub, seen)


def diversity_view(segments, m) -> View:
    return view_of(segments, negatives="keep", judged_only=m.get("judged_only", False))


def _novelty_gain(v: View, st: SubtopicJudgments, alpha: float, cutoff: int | None):
    """(segment, position, s_i) of every hit with a relevant subtopic within the cut-off."""
    pairs = subtopic_pairs(v, st, cutoff)
    gain = np.power(1.0 - alpha, pairs.seen.astype(np.float64))
    score = np.bincount(pairs.hit, weights=gain, minlength=len(v.hit_seg))
    hits = np.flatnonzero(score > 0)  # (a zero gain adds nothing to any measure)
    return v.hit_seg[hits], v.hit_pos[hits], score[hits]


# --------------------------------------------------------------------------- the ideal


def greedy_ideal(segments, rel: float, alpha: float):
    """ndeval's greedy ideal ranking, per query: (query, 0-based rank, gain s_i) arrays.

    Only documents with a positive gain are listed (the rest add nothing to any measure).
    A loop over ranks; each step picks, for every query at once, the untaken document with
    the largest gain (ties: the largest doc id), then discounts its subtopics by (1 − α).
    """
    key = ("greedy_ideal", rel, alpha)
    cache = segments.judgments.cache
    if key in cache:
        return cache[key]
    st = subtopic_judgments(segments, rel)
    judgments = segments.judgments
    # candidates: qrels rows with a relevant subtopic, in row order = (query, doc ascending)
    cand_row = st.row[np.r_[True, st.row[1:] != st.row[:-1]]] if len(st.row) else st.row  # sorted
    cand_query = judgments.row_query[cand_row].astype(np.int64)
    ent_cand = np.searchsorted(cand_row, st.row)
    ent_sub = st.sub
    n_cand = len(cand_row)
    gain_sub = np.ones(len(st.sub_count))
    decay = 1.0 - alpha
    out_q, out_s = [], []
    while n_cand:
        # (re)build the per-query layout of the untaken candidates; rebuilt when a quarter
        # of them have been taken, so a step costs O(untaken entries), not O(all entries)
        bounds = np.flatnonzero(np.r_[True, cand_query[1:] != cand_query[:-1]])
        group_query = cand_query[bounds]
        sizes = np.diff(np.r_[bounds, n_cand])
        group_of = np.repeat(np.arange(len(bounds)), sizes)
        idx = np.arange(n_cand)
        taken = np.zeros(n_cand, dtype=bool)
        n_taken, limit = 0, max(n_cand // 4, 1)
        while n_taken < limit:
            score = np.bincount(ent_cand, weights=gain_sub[ent_sub], minlength=n_cand)
            score[taken] = -1.0
            best = np.maximum.reduceat(score, bounds)
            live = best >= 0
            if not live.any():
                break
            # ties: the largest doc id = the last candidate of the query holding the maximum
            pick = np.maximum.reduceat(np.where(score == best[group_of], idx, -1), bounds)[live]
            taken[pick] = True
            n_taken += len(pick)
            out_q.append(group_query[live])
            out_s.append(best[live])
            picked = np.zeros(n_cand, dtype=bool)
            picked[pick] = True
            gain_sub[ent_sub[picked[ent_cand]]] *= decay
        # drop the taken candidates and their entries
        keep_ent = ~taken[ent_cand]
        new_index = np.cumsum(~taken) - 1
        ent_cand, ent_sub = new_index[ent_cand[keep_ent]], ent_sub[keep_ent]
        cand_query = cand_query[~taken]
        n_cand = len(cand_query)
    if out_q:
        q, s = np.concatenate(out_q), np.concatenate(out_s)
        # a query's picks come in rank order: its rank is its running count of picks
        order = np.argsort(q, kind="stable")
        r = np.empty(len(q), dtype=np.int64)
        r[order] = within_segment_rank(q[order])
        keep = s > 0
        q, r, s = q[keep], r[keep], s[keep]
    else:
        q = r = np.zeros(0, dtype=np.int64)
        s = np.zeros(0)
    cache[key] = (q, r, s)
    return q, r, s


def _ideal_sum(segments, m, weight) -> np.ndarray:
    """Per query: Σ over the ideal ranking's positions r (within the cut-off) of
    s_r·weight(r)."""
    q, r, s = greedy_ideal(segments, m.get("rel"), m.get("alpha", 0.5))
    if m.cutoff is not None:
        inside = r < m.cutoff
        q, r, s = q[inside], r[inside], s[inside]
    return np.bincount(q, weights=s * weight(r), minlength=segments.judgments.n_queries)


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(len(num))
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    return out


# --------------------------------------------------------------------------- kernels


def log_discount(pos):
    return 1.0 / np.log2(np.asarray(pos, dtype=np.float64) + 2.0)


def rr_discount(pos):
    return 1.0 / (np.asarray(pos, dtype=np.float64) + 1.0)


def _discounted(segments, m, discount, normalise: str):
    """Shared body of alpha_DCG / alpha_nDCG / ERR_IA / nERR_IA."""
    v, alpha, k = diversity_view(segments, m), m.get("alpha", 0.5), m.cutoff
    st = subtopic_judgments(segments, m.get("rel"))
    seg, pos, s = _novelty_gain(v, st, alpha, k)
    return normalised(segments, m, v, seg_sum(seg, s * discount(pos), v.n_seg), discount, normalise)


def normalised(segments, m, v: View, value: np.ndarray, discount, normalise: str) -> np.ndarray:
    """alpha_DCG / alpha_nDCG / ERR_IA / nERR_IA from the per-segment Σ_i s_i·discount(i)
    (also used by the tie-aware closed forms)."""
    alpha, k = m.get("alpha", 0.5), m.cutoff
    A = subtopic_judgments(segments, m.get("rel")).actual[v.seg_query]
    if normalise == "ideal":
        return ratio(value, _ideal_sum(segments, m, discount)[v.seg_query])
    if k == 1:  # ndeval leaves rank 1 undivided
        return np.where(A > 0, value, 0.0)
    r = np.arange(k, dtype=np.float64)
    ideal_ideal = float(np.sum(np.power(1.0 - alpha, r) * discount(r)))
    return ratio(value, A * ideal_ideal)


def alpha_dcg(segments, m):
    """alpha-DCG@k (Clarke et al. 2008) with ndeval's "ideal ideal" normalisation (see the
    module docstring)."""
    return _discounted(segments, m, log_discount, "ideal_ideal")


def alpha_ndcg(segments, m):
    """alpha-nDCG@k (Clarke et al. 2008): alpha-DCG@k over that of ndeval's greedy ideal."""
    return _discounted(segments, m, log_discount, "ideal")


def err_ia(segments, m):
    """ERR-IA@k (Chapelle et al. 2009, ndeval's form) with "ideal ideal" normalisation."""
    return _discounted(segments, m, rr_discount, "ideal_ideal")


def nerr_ia(segments, m):
    """nERR-IA@k: ERR-IA@k over that of ndeval's greedy ideal."""
    return _discounted(segments, m, rr_discount, "ideal")


def _nrbp_raw(segments, m, v):
    alpha, beta = m.get("alpha"), m.get("beta")
    st = subtopic_judgments(segments, m.get("rel"))
    seg, pos, s = _novelty_gain(v, st, alpha, None)
    return seg_sum(seg, s * np.power(beta, pos.astype(np.float64)), v.n_seg)


def nrbp(segments, m):
    """NRBP (Clarke, Kolla & Vechtomova 2009) = (1 − (1 − α)β)/A · Σ_i s_i β^i."""
    v = view_of(segments, negatives="keep")
    return nrbp_normalised(segments, m, v, _nrbp_raw(segments, m, v))


def nrbp_normalised(segments, m, v: View, raw: np.ndarray) -> np.ndarray:
    """NRBP from the per-segment Σ_i s_i·β^i."""
    alpha, beta = m.get("alpha"), m.get("beta")
    A = subtopic_judgments(segments, m.get("rel")).actual[v.seg_query]
    return ratio(raw * (1.0 - (1.0 - alpha) * beta), A)


def nnrbp(segments, m):
    """nNRBP: NRBP over the NRBP of ndeval's greedy ideal (0 when A = 0; ndeval: NaN)."""
    v = view_of(segments, negatives="keep")
    return nnrbp_normalised(segments, m, v, _nrbp_raw(segments, m, v))


def nnrbp_normalised(segments, m, v: View, raw: np.ndarray) -> np.ndarray:
    """nNRBP from the per-segment Σ_i s_i·β^i."""
    beta = m.get("beta")
    ideal = _ideal_sum(segments, m, lambda r: np.power(beta, r.astype(np.float64)))
    return ratio(raw, ideal[v.seg_query])


def p_ia(segments, m):
    """P-IA@k (Agrawal et al. 2009) = Σ_{i<k} Σ_j rel_ij / (k·A)."""
    v, k = diversity_view(segments, m), m.cutoff
    st = subtopic_judgments(segments, m.get("rel"))
    pairs = subtopic_pairs(v, st, k)
    count = np.bincount(pairs.seg, minlength=v.n_seg).astype(np.float64)
    return ratio(count, k * st.actual[v.seg_query])


def st_recall(segments, m):
    """StRecall@k (Zhai, Cohen & Lafferty 2003): subtopics covered by the top k / A."""
    v, k = view_of(segments, negatives="keep"), m.cutoff
    st = subtopic_judgments(segments, m.get("rel"))
    pairs = subtopic_pairs(v, st, k)
    covered = np.bincount(pairs.seg[pairs.seen == 0], minlength=v.n_seg).astype(np.float64)
    return ratio(covered, st.actual[v.seg_query])


def ap_ia(segments, m):
    """AP-IA (intent-aware AP, Agrawal et al. 2009; ndeval's MAP-IA per query):
    (1/A)·Σ_j Σ_{i: rel_ij} (c_ij + 1)/(i + 1) / R_j over the whole list."""
    v = diversity_view(segments, m)
    st = subtopic_judgments(segments, m.get("rel"))
    pairs = subtopic_pairs(v, st, None)
    term = (pairs.seen + 1.0) / (pairs.pos + 1.0) / st.sub_count[pairs.sub]
    return ratio(seg_sum(pairs.seg, term, v.n_seg), st.actual[v.seg_query])
