"""The standard measures: trec_eval's, ir_measures', and the seed papers' per-query measures.

Each kernel takes a :class:`~pdireval.measures.view.View` and a
:class:`~pdireval.measures.registry.Measure` and returns one float64 per segment. Notation:
positions are 0-based (rank i = position + 1), k is the cut-off (None = whole list), R the
number of judged relevant documents of the query (label >= ``rel``).
"""

from __future__ import annotations

import numpy as np

from pdireval.errors import MeasureError
from pdireval.measures.gain_levels import trec_ndcg
from pdireval.measures.toolkit import in_cutoff, num_rel, relevant, safe_div, view_for
from pdireval.measures.view import (
    View,
    discount_weights,
    gain_values,
    seg_sum,
    sorted_per_query,
    within_segment_count,
    within_segment_cumsum,
    within_segment_rank,
)

# --------------------------------------------------------------------------- binary measures


def precision(segments, m):
    """P@k = |relevant in the top k| / k (trec_eval ``P_k``: the divisor is k even for a
    shorter list)."""
    v, k = view_for(segments, m), m.cutoff
    hits = relevant(v, m.get("rel")) & in_cutoff(v, k)
    return seg_sum(v.hit_seg[hits], 1.0, v.n_seg) / k


def recall(segments, m):
    """R@k = |relevant in the top k| / R; R = 0 -> 0 (trec_eval ``recall_k``)."""
    v, k = view_for(segments, m), m.cutoff
    hits = relevant(v, m.get("rel")) & in_cutoff(v, k)
    return safe_div(seg_sum(v.hit_seg[hits], 1.0, v.n_seg), num_rel(v, m.get("rel")))


def _sum_precision(v: View, rel: float, k: int | None) -> np.ndarray:
    """SP@k = sum over relevant retrieved d at rank i <= k of Prec(i)."""
    hits = relevant(v, rel) & in_cutoff(v, k)
    seg = v.hit_seg[hits]
    nth = within_segment_rank(seg) + 1.0  # 1 for the first relevant, ...
    return seg_sum(seg, nth / (v.hit_pos[hits] + 1.0), v.n_seg)


def average_precision(segments, m):
    """AP@k = SP@k / R (trec_eval ``map`` and ``map_cut_k``): the sum over relevant retrieved
    documents at rank i <= k of Prec(i), divided by R; R = 0 -> 0."""
    v = view_for(segments, m)
    return safe_div(_sum_precision(v, m.get("rel"), m.cutoff), num_rel(v, m.get("rel")))


def sum_precision(segments, m):
    """SP@k = sum_{i <= min(k, L)} Prec(i)·R_i, the un-normalised AP of Karmaker & Feng
    (2022, eq. 3);
    their AP@k is SP@k / k."""
    v = view_for(segments, m)
    return _sum_precision(v, m.get("rel"), m.cutoff)


def reciprocal_rank(segments, m):
    """RR@k = 1 / rank of the first relevant document within the top k, 0 if none
    (trec_eval ``recip_rank``)."""
    v, k = view_for(segments, m), m.cutoff
    hits = relevant(v, m.get("rel")) & in_cutoff(v, k)
    first = np.full(v.n_seg, np.inf)
    np.minimum.at(first, v.hit_seg[hits], v.hit_pos[hits].astype(np.float64))
    return np.where(np.isinf(first), 0.0, 1.0 / (first + 1.0))


def r_precision(segments, m):
    """Rprec = |relevant in the top R| / R; R = 0 -> 0 (trec_eval ``Rprec``)."""
    v, rel = view_for(segments, m), m.get("rel")
    R = num_rel(v, rel)
    hits = relevant(v, rel)
    hits &= v.hit_pos < R[v.hit_seg]
    return safe_div(seg_sum(v.hit_seg[hits], 1.0, v.n_seg), R)


def success(segments, m):
    """Success@k = 1 if a relevant document is in the top k, else 0."""
    v, k = view_for(segments, m), m.cutoff
    hits = relevant(v, m.get("rel")) & in_cutoff(v, k)
    return (seg_sum(v.hit_seg[hits], 1.0, v.n_seg) > 0).astype(np.float64)


def f_measure(segments, m):
    """F@k = (1 + β²)·P·R / (β²·P + R) (van Rijsbergen 1979), P = |relevant in the top k| / k
    and R = |relevant in the top k| / R; without a cut-off P = |relevant retrieved| / L
    (the retrieved set). 0 when P + R = 0 or R = 0. ``F@k`` is ranx's ``f1@k``."""
    v, k = view_for(segments, m), m.cutoff
    hits = relevant(v, m.get("rel")) & in_cutoff(v, k)
    found = seg_sum(v.hit_seg[hits], 1.0, v.n_seg)
    depth = v.seg_len.astype(np.float64) if k is None else np.full(v.n_seg, float(k))
    p = safe_div(found, depth)
    r = safe_div(found, num_rel(v, m.get("rel")))
    b2 = m.get("beta") ** 2
    return safe_div((1.0 + b2) * p * r, b2 * p + r)


def num_ret(segments, m):
    """NumRet@k = number of documents retrieved (within the top k)."""
    v = view_for(segments, m)
    n = v.seg_len.astype(np.float64)
    return n if m.cutoff is None else np.minimum(n, m.cutoff)


def num_relevant(segments, m):
    """NumRel = R, the number of judged relevant documents of the query."""
    v = view_for(segments, m)
    return num_rel(v, m.get("rel"))


def num_rel_ret(segments, m):
    """NumRelRet@k = number of relevant documents retrieved (within the top k)."""
    v, k = view_for(segments, m), m.cutoff
    hits = relevant(v, m.get("rel")) & in_cutoff(v, k)
    return seg_sum(v.hit_seg[hits], 1.0, v.n_seg)


def judged(segments, m):
    """Judged@k = fraction of the top min(k, L) documents that have a judgment (not NaN);
    0 for an empty list (ir_measures' Judged, MacAvaney et al. 2022).

    Under the default ``negatives="unjudged"`` (trec_eval's reading) a negatively labelled
    document counts as unjudged; ir_measures counts every qrels entry as judged, which is
    ``Judged(negatives=nonrel)@k`` (identical values, tested against it).
    """
    v, k = view_for(segments, m), m.cutoff
    hits = ~np.isnan(v.hit_label) & in_cutoff(v, k)
    depth = (
        v.seg_len.astype(np.float64) if k is None else np.minimum(v.seg_len, k).astype(np.float64)
    )
    return safe_div(seg_sum(v.hit_seg[hits], 1.0, v.n_seg), depth)


def bpref(segments, m):
    """bpref = (1/R)·Σ_{retrieved relevant r} [1 − min(n_r, R)/min(N, R)].

    n_r = judged non-relevant documents ranked above r (unjudged skipped), N = judged
    non-relevant documents of the query; the term is 1 when n_r = 0; R = 0 -> 0. trec_eval
    ``bpref`` (the 2005 correction).

    With variant=10R: bpref-10, (1/R)·Σ_{retrieved relevant r} [1 − min(n_r, 10 + R)/min(N, 10 + R)]
    (Buckley & Voorhees 2004, with trec_eval's 2005 min(N, ·) correction).
    """
    return bpref_with_cap(segments, m, 10.0 if m.get("variant", "r") == "10r" else 0.0)


def bpref_with_cap(segments, m, offset: float):
    """(1/R)·Σ_{retrieved relevant r} [1 − min(n_r, c)/min(N, c)] with c = offset + R: bpref
    (offset 0) and bpref-10 (offset 10) share it; the term is 1 when n_r = 0; R = 0 -> 0."""
    v, rel = view_for(segments, m), m.get("rel")
    judged_hit = ~np.isnan(v.hit_label)
    seg, lab = v.hit_seg[judged_hit], v.hit_label[judged_hit]
    if m.cutoff is not None:
        keep = v.hit_pos[judged_hit] < m.cutoff
        seg, lab = seg[keep], lab[keep]
    is_rel = lab >= rel
    nonrel_above = within_segment_count(seg, ~is_rel, inclusive=False)
    R = v.num_rel(rel)[v.seg_query]
    N = v.num_judged_nonrel(rel)[v.seg_query]
    r_seg, n_r = seg[is_rel], nonrel_above[is_rel]
    cap = offset + R[r_seg]
    term = np.ones(len(r_seg))
    pos = n_r > 0
    term[pos] = 1.0 - np.minimum(n_r[pos], cap[pos]) / np.minimum(N[r_seg], cap)[pos]
    return safe_div(seg_sum(r_seg, term, v.n_seg), R)


INFAP_EPS = 1e-5


def inferred_ap(segments, m):
    """infAP (Yilmaz & Aslam 2006, trec_eval form).

    For a judged relevant document at 0-based position j with r, nn, u judged relevant,
    judged non-relevant and pooled-but-unjudged documents above it: 1 if j = 0, else
    1/(j+1) + (j/(j+1))·((r+nn+u)/j)·((r+ε)/(r+nn+2ε)), ε = 1e-5. infAP = Σ / R; R = 0 -> 0.
    Documents outside the qrels occupy positions but are not in the pool.
    """
    v, rel = view_for(segments, m), m.get("rel")
    seg, pos, lab = v.hit_seg, v.hit_pos, v.hit_label
    if m.cutoff is not None:
        keep = pos < m.cutoff
        seg, pos, lab = seg[keep], pos[keep], lab[keep]
    is_rel = lab >= rel
    is_nonrel = ~np.isnan(lab) & ~is_rel
    r = within_segment_count(seg, is_rel, inclusive=False)
    nn = within_segment_count(seg, is_nonrel, inclusive=False)
    pooled = within_segment_rank(seg).astype(np.float64)  # r + nn + u above
    j = pos.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (pooled / j) * (
            (r + INFAP_EPS) / (r + nn + 2 * INFAP_EPS)
        )
    term = np.where(j == 0, 1.0, term)
    return safe_div(seg_sum(seg[is_rel], term[is_rel], v.n_seg), num_rel(v, rel))


# --------------------------------------------------------------------------- graded measures


def dcg_values(v: View, m) -> np.ndarray:
    k, discount = m.cutoff, m.get("discount")
    inside = in_cutoff(v, k)
    gains = gain_values(v.hit_label[inside], m.get("gain"))
    weights = discount_weights(v.hit_pos[inside], discount, k)
    return seg_sum(v.hit_seg[inside], gains * weights, v.n_seg)


def ordered_pool_dcg(v: View, m, *, descending: bool = True) -> np.ndarray:
    """Per query: DCG@k of the judged pool's gains sorted descending (IDCG) or ascending
    (WDCG, the worst ordering). Unjudged (NaN) pool entries are not documents of the pool."""
    key = ("pool_dcg", descending, m.get("gain"), m.get("discount"), m.cutoff, v.negatives)
    cache = v.segments.cache
    if key in cache:
        return cache[key]
    judged_row = ~np.isnan(v.q_label)
    rq = v.q_row_query[judged_row]
    gains = gain_values(v.q_label[judged_row], m.get("gain"))
    rq, gains, pos = sorted_per_query(rq, gains, descending=descending)
    inside = np.ones(len(pos), dtype=bool) if m.cutoff is None else pos < m.cutoff
    weights = discount_weights(pos[inside], m.get("discount"), m.cutoff)
    out = np.bincount(rq[inside], weights=gains[inside] * weights, minlength=v.n_queries)
    cache[key] = out
    return out


def dcg(segments, m):
    """DCG@k = Σ_{i=1}^{min(k,L)} gain(ℓ_i)·w_i; unjudged gain 0."""
    return dcg_values(view_for(segments, m), m)


def ndcg(segments, m):
    """nDCG@k = DCG@k / IDCG@k, IDCG@k the DCG@k of the judged pool sorted by gain
    descending; IDCG = 0 -> 0 (trec_eval ``ndcg`` / ``ndcg_cut_k`` with the default linear
    gain and log2 discount). With negatives=keep this is Gienapp et al. (2020)'s NDCG_org, with
    negatives=nonrel its NDCG_0.

    With a gain mapping, labels the mapping does not list get gain 0;
    ir_measures' ``nDCG(gains=...)`` keeps an unlisted label as its own gain, so the two
    agree only when the mapping lists every label (tested so). ``gains=`` gives trec_eval's
    and ir_measures' reading (unlisted labels keep their label as gain; see
    :func:`pdireval.measures.gain_levels.trec_ndcg`).
    """
    if m.get("gains", None) is not None:  # trec_eval's gain levels
        if m.get("gain") != "linear" or m.get("discount") != "log2":
            raise MeasureError(
                f"{m}: gains= (trec_eval's gain levels) replaces gain= and uses the log2 "
                "discount; give one of gain= and gains=, without discount=."
            )
        return trec_ndcg(segments, m)
    v = view_for(segments, m)
    ideal = ordered_pool_dcg(v, m)[v.seg_query]
    return safe_div(dcg_values(v, m), ideal)


def max_grade_of(v: View, m) -> float:
    given = m.get("max_grade")
    if given != "qrels":
        return float(given)
    labels = v.q_label[~np.isnan(v.q_label)]
    return float(labels.max()) if len(labels) else 0.0


def err(segments, m):
    """ERR@k (Chapelle et al. 2009) = Σ_i (1/i)·R_i·Π_{j<i}(1 − R_j), R = (2^g − 1)/2^{g_max}.

    g is the label (negative labels and unjudged documents stop nobody: R = 0); g_max is
    ``max_grade``: by default 4, as in ir_measures' ``ERR@k`` (gdeval), so that the same
    name gives the same number (on runs without score ties; gdeval prints 5 decimals);
    ``max_grade=qrels`` takes the largest label in the qrels (under the ``negatives``
    reading), pdireval's earlier default — Chapelle et al. define g_max as the top grade of
    the label scale, which the qrels' largest label estimates when the scale is not given.
    A label above ``max_grade`` has R = 1.
    """
    v, k = view_for(segments, m), m.cutoff
    # only documents with a positive label can stop the user: the others add a term of 0 and
    # nothing to the running product (log(1 − 0) = 0), so they are left out
    can_stop = v.hit_label > 0  # NaN compares False
    if k is not None:
        can_stop &= v.hit_pos < k
    idx = np.flatnonzero(can_stop)
    seg, pos, lab = v.hit_seg[idx], v.hit_pos[idx], v.hit_label[idx]
    return seg_sum(seg, err_terms(seg, pos, lab, max_grade_of(v, m)), v.n_seg)


def err_terms(seg: np.ndarray, pos: np.ndarray, lab: np.ndarray, gmax: float) -> np.ndarray:
    """Per ranked document (seg sorted, positions ascending within each): its ERR term
    R_i·Π_{j<i}(1 − R_j)/i, R = clip((2^g − 1)/2^gmax, 0, 1), g = max(label, 0), unjudged 0."""
    g = np.where(np.isnan(lab), 0.0, np.maximum(lab, 0.0))
    stop = np.clip((np.exp2(g) - 1.0) / np.exp2(gmax), 0.0, 1.0)  # label > max_grade: R = 1
    # Π_{j<i}(1 − R_j) as exp(Σ log(1 − R_j)); a certain stop (R_j = 1) above i makes it 0.
    # (Its log would be −inf, and −inf − −inf poisons the segmented cumulative sums.)
    certain = stop >= 1.0
    if certain.any():
        log_continue = np.log1p(-np.where(certain, 0.0, stop))
        blocked = within_segment_count(seg, certain, inclusive=False) > 0
        survive = np.where(
            blocked, 0.0, np.exp(within_segment_cumsum(seg, log_continue, inclusive=False))
        )
    else:
        survive = np.exp(within_segment_cumsum(seg, np.log1p(-stop), inclusive=False))
    return stop * survive / (pos + 1.0)


def rbp(segments, m):
    """RBP(p)@k (Moffat & Zobel 2008) = (1 − p)·Σ_i rel_i·p^{i−1} with binary relevance
    (label >= rel); unjudged documents count as non-relevant (see RBPResidual). This is Moffat
    & Zobel's binary form, ir_measures' ``RBP(rel=1)``; ir_measures' ``RBP`` without ``rel``
    uses graded gains instead. A cut-off truncates the sum (no extrapolation).
    """
    v, k, p = view_for(segments, m), m.cutoff, m.get("p")
    hits = relevant(v, m.get("rel")) & in_cutoff(v, k)
    return seg_sum(v.hit_seg[hits], (1.0 - p) * np.power(p, v.hit_pos[hits]), v.n_seg)


def rbp_residual(segments, m):
    """RBP residual (Moffat & Zobel 2008): the most RBP could still grow if every unjudged
    document in the (top k of the) list, and every document past its end, were relevant:
    1 − (1 − p)·Σ_{judged i} p^{i−1}."""
    v, k, p = view_for(segments, m), m.cutoff, m.get("p")
    hits = ~np.isnan(v.hit_label) & in_cutoff(v, k)
    judged_weight = seg_sum(v.hit_seg[hits], (1.0 - p) * np.power(p, v.hit_pos[hits]), v.n_seg)
    return 1.0 - judged_weight


#: Ceiling on the number of grades GAP builds thresholds for (labels are used as grade numbers).
MAX_GAP_GRADES = 1000


def gap_grades(v: View, m):
    """GAP's grades: (threshold probabilities g_1..g_C, the grade of a label array, the
    denominator Σ_{judged d with grade c >= 1} G(c) per query)."""
    labels = v.q_label[~np.isnan(v.q_label)]
    top = float(np.floor(labels.max())) if len(labels) else 0
    if top > MAX_GAP_GRADES and m.get("probs") is None:
        raise MeasureError(
            "GAP has one threshold per relevance grade 1..C, but the largest label is "
            f"{labels.max():g}: "
            f"more than {MAX_GAP_GRADES} grades (pdireval.measures.standard.MAX_GAP_GRADES). Map "
            "the "
            "labels to a few grades first (e.g. qrels['label'].rank(method='dense'))."
        )
    top = int(top)
    probs = m.get("probs")
    if probs is None:
        probs = np.full(max(top, 1), 1.0 / max(top, 1))
    probs = np.asarray(probs, dtype=np.float64)
    C = len(probs)
    G = np.cumsum(probs)

    def grade(x):
        return np.clip(np.floor(np.where(np.isnan(x), 0.0, x)), 0, C).astype(np.int64)

    qg = grade(v.q_label)
    qmask = qg > 0
    den = np.bincount(v.q_row_query[qmask], weights=G[qg[qmask] - 1], minlength=v.n_queries)
    return probs, grade, den


def graded_ap(segments, m):
    """GAP (Robertson, Kanoulas & Yilmaz 2010).

    Grades 1..C (labels >= 1, rounded down) are relevant; g_c = probability that a user's
    threshold is grade c (``probs``; default uniform over 1..C, C the largest label in the
    qrels), G(c) = g_1 + ... + g_c. GAP = Σ_{n: i_n>0} (1/n)·Σ_{m<=n, i_m>0} G(min(i_m, i_n))
    / Σ_{judged d with grade c >= 1} G(c); denominator 0 -> 0. With one grade GAP = AP.
    """
    v, k = view_for(segments, m), m.cutoff
    probs, grade, den = gap_grades(v, m)
    C = len(probs)
    inside = in_cutoff(v, k)
    seg, pos, gr = v.hit_seg[inside], v.hit_pos[inside], grade(v.hit_label[inside])
    rel = gr > 0
    seg, pos, gr = seg[rel], pos[rel], gr[rel]
    inner = np.zeros(len(seg))
    for c in range(1, C + 1):  # loop over grades (a handful), vectorised over hits
        at_least = (gr >= c).astype(np.float64)
        count = within_segment_cumsum(seg, at_least)
        inner += probs[c - 1] * at_least * count
    num = seg_sum(seg, inner / (pos + 1.0), v.n_seg)
    return safe_div(num, den[v.seg_query])
