"""The C/W/L family of cwl_eval (Azzopardi, Thomas & Moffat 2019), exact to cwl_eval.

In the C/W/L framework (Moffat et al. 2013) a user model is a *continuation* vector
``C_i`` (the probability of going on from rank i to rank i+1). With
``P_i = Π_{j<i} C_j`` (``P_1 = 1``), the *weight* of rank i is ``W_i = P_i / Σ_{t=1}^N P_t``
and a measure is the expected utility per document, ``EU = Σ_{i=1}^N W_i · g_i``.
cwl_eval evaluates every list on ``N = 1000`` ranks (its ``max_n``): documents past rank
1000 are dropped and the list is padded with zero gains to rank 1000, which matters because
``W`` is normalised over all N ranks. pdireval follows that exactly (``CWL_DEPTH``).

Gains, as ir_measures' cwl_eval provider reads labels: a negative label counts as 0, then
``g = (clip(label, min_rel, max_rel) − min_rel) / (max_rel − min_rel)``; a document that is
not judged has gain 0. ``max_rel`` is required by ir_measures; pdireval defaults it to the
largest label in the qrels. The continuation vectors (i is the 1-based rank, ``G_i`` the
cumulative gain up to and including rank i, T the desired total gain):

========  =========================================================  =====================
measure   C_i                                                        reference
========  =========================================================  =====================
INSQ      ((i + 2T − 1) / (i + 2T))²                                 Moffat et al. 2012
INST      ((i + T + T_i − 1) / (i + T + T_i))², T_i = T − G_i        Moffat et al. 2015
BPM@K     1 while G_i < T and i < K, then 0                          Zhang et al. 2017
SDCG@k    log(i+1) / log(i+2) for i < k, then 0 (W ∝ 1/log2(i+1))    Järvelin & K. 2002
NERR8@k   (1 − g_i) for i < k, then 0                                Azzopardi et al. 2021
NERR9@k   i/(i+1) · (1 − g_i) for i < k, then 0                      Azzopardi et al. 2021
NERR10    p · (1 − g_i)                                              Azzopardi et al. 2021
NERR11    ((i + 2T − 1) / (i + 2T))² · (1 − g_i)                     Azzopardi et al. 2021
========  =========================================================  =====================

How the kernels avoid materialising the N ranks of every (system, query) segment: only
ranks holding a positive gain change ``C`` in a gain-dependent way, so between two such
ranks ``P`` follows a closed form, and ``Σ P`` over such a block is a difference of a
precomputed cumulative sum (INSQ, SDCG, NERR*), of the trigamma function ψ₁ (INST, whose
``P`` telescopes to ``K_b / (i + 2T − G − 1)²`` between gains), or a count (BPM). Every
kernel is O(hits + segments).
"""

from __future__ import annotations

import numpy as np

from pdireval.errors import MeasureError
from pdireval.measures.registry import MeasureDef, Param, register
from pdireval.measures.view import seg_sum, view_of, within_segment_cumsum

__all__ = ["CWL_DEPTH", "cwl_gains", "trigamma"]

CWL_DEPTH = 1000  # cwl_eval's max_n: ranks evaluated per list


# --------------------------------------------------------------------------- gains


def _max_rel(v, m, lo: float) -> float:
    """``max_rel``, by default the largest label in the qrels (``lo + 1`` when no label
    exceeds ``min_rel``: every gain is 0 then, whatever ``max_rel``)."""
    given = m.get("max_rel")
    if given is not None:
        return float(given)
    labels = v.q_label[~np.isnan(v.q_label)]
    top = float(labels.max()) if len(labels) else lo
    return top if top > lo else lo + 1.0


def cwl_gains(segments, m):
    """(segment, 1-based rank, gain) of every hit with a positive gain within rank N.

    Labels as ir_measures' cwl_eval provider reads them (see the module docstring).
    """
    v = view_of(segments, negatives="keep")
    lo = float(m.get("min_rel"))
    hi = _max_rel(v, m, lo)
    if not lo < hi:
        raise MeasureError(
            f"{m}: min_rel={lo:g} must be below max_rel={hi:g} (gains are "
            "(label - min_rel) / (max_rel - min_rel)); give max_rel explicitly, e.g. "
            f"'{m.name}(max_rel=3)'."
        )
    inside = v.hit_pos < CWL_DEPTH
    lab = v.hit_label[inside]
    lab = np.where(np.isnan(lab), lo, np.maximum(lab, 0.0))
    g = (np.clip(lab, lo, hi) - lo) / (hi - lo)
    keep = g > 0
    return v, v.hit_seg[inside][keep], v.hit_pos[inside][keep].astype(np.int64) + 1, g[keep]


# --------------------------------------------------------------------------- segmented helpers


def _next_in_segment(seg: np.ndarray, values: np.ndarray, fill: np.ndarray) -> np.ndarray:
    """The next element's ``values`` within its segment; ``fill[seg]`` for a segment's last."""
    out = np.empty(len(seg), dtype=values.dtype)
    if len(seg) == 0:
        return out
    out[:-1] = values[1:]
    last = np.r_[seg[1:] != seg[:-1], True]
    out[last] = fill[seg[last]]
    return out


def _exclusive_product(seg: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """Π of ``factor`` over the earlier elements of the same segment (seg sorted).

    Computed as exp of a segmented sum of logs; a zero factor zeroes everything after it
    (its log is −inf, which would poison the segmented sums, so it is tracked apart).
    """
    zero = factor == 0
    if not zero.any():
        return np.exp(within_segment_cumsum(seg, np.log(np.abs(factor)), inclusive=False))
    logs = np.log(np.abs(np.where(zero, 1.0, factor)))
    # zeros before each element of its segment: integer counts, so a global cumulative
    # count minus the segment's start is exact
    count = np.cumsum(zero) - zero
    is_first = np.r_[True, seg[1:] != seg[:-1]]
    blocked = count > np.maximum.accumulate(np.where(is_first, count, 0))
    return np.where(blocked, 0.0, np.exp(within_segment_cumsum(seg, logs, inclusive=False)))


# --------------------------------------------------------------------------- product family


def _product_measure(segments, m, base: np.ndarray, depth: int, stops: bool) -> np.ndarray:
    """EU for ``C_i = b_{i+1}/b_i · (1 − g_i if stops else 1)`` truncated after ``depth``.

    ``base[i]`` (i = 1..N, ``base[0]`` unused) is ``Π_{j<i}`` of the gain-free part of C, so
    ``P_i = base[i] · Q_i`` with ``Q_i = Π_{j<i} (1 − g_j)`` constant between gains.
    """
    v, seg, rank, g = cwl_gains(segments, m)
    n = v.n_seg
    cum = np.concatenate([[0.0], np.cumsum(base[1 : depth + 1])])  # cum[i] = Σ_{t<=i} base[t]
    keep = rank <= depth
    seg, rank, g = seg[keep], rank[keep], g[keep]
    if stops:
        q_before = _exclusive_product(seg, 1.0 - g)
        q_after = q_before * (1.0 - g)
    else:
        q_before = q_after = np.ones(len(g))
    first_rank = np.full(n, depth, dtype=np.int64)  # block 0: ranks 1..first gain (Q = 1)
    is_first = np.r_[True, seg[1:] != seg[:-1]] if len(seg) else np.zeros(0, dtype=bool)
    first_rank[seg[is_first]] = rank[is_first]
    nxt = _next_in_segment(seg, rank, np.full(n, depth, dtype=np.int64))
    total = cum[first_rank] + seg_sum(seg, q_after * (cum[nxt] - cum[rank]), n)
    utility = seg_sum(seg, g * base[rank] * q_before, n)
    return utility / total


def _insq_base(T: float) -> np.ndarray:
    i = np.arange(CWL_DEPTH + 1, dtype=np.float64)
    out = (2.0 * T / (i + 2.0 * T - 1.0)) ** 2
    out[0] = 0.0
    return out


def insq(segments, m):
    """INSQ (Moffat, Scholer & Thomas 2012): C_i = ((i + 2T − 1)/(i + 2T))², so
    W_i ∝ (2T / (i + 2T − 1))², independent of the gains; EU = Σ_i W_i g_i over N = 1000
    ranks (cwl_eval ``INSQ``)."""
    return _product_measure(segments, m, _insq_base(m.get("T")), CWL_DEPTH, stops=False)


def sdcg(segments, m):
    """SDCG@k (cwl_eval's C/W/L form of DCG, Järvelin & Kekäläinen 2002): W_i ∝ 1/log2(i+1)
    for i <= k, 0 after; SDCG@k = Σ_{i<=k} g_i / log2(i+1) / Σ_{i<=k} 1/log2(i+1) — DCG@k
    scaled by the DCG@k of a list of k fully relevant documents."""
    i = np.arange(CWL_DEPTH + 1, dtype=np.float64)
    base = np.zeros(CWL_DEPTH + 1)
    base[1:] = 1.0 / np.log2(i[1:] + 1.0)
    return _product_measure(segments, m, base, min(m.cutoff, CWL_DEPTH), stops=False)


def nerr8(segments, m):
    """NERR8@k (Azzopardi, Mackenzie & Moffat 2021, eq. 8): C_i = 1 − g_i for i < k, then
    0: P_i = Π_{j<i}(1 − g_j) for i <= k, EU = Σ_i P_i g_i / Σ_{i<=k} P_i."""
    base = np.ones(CWL_DEPTH + 1)
    return _product_measure(segments, m, base, min(m.cutoff, CWL_DEPTH), stops=True)


def nerr9(segments, m):
    """NERR9@k (Azzopardi, Mackenzie & Moffat 2021, eq. 9): C_i = i/(i+1)·(1 − g_i) for
    i < k, then 0: P_i = (1/i)·Π_{j<i}(1 − g_j) for i <= k."""
    base = 1.0 / np.maximum(np.arange(CWL_DEPTH + 1, dtype=np.float64), 1.0)
    return _product_measure(segments, m, base, min(m.cutoff, CWL_DEPTH), stops=True)


def nerr10(segments, m):
    """NERR10 (Azzopardi, Mackenzie & Moffat 2021, eq. 10): C_i = p·(1 − g_i), so
    P_i = p^{i−1}·Π_{j<i}(1 − g_j), over N = 1000 ranks."""
    p = m.get("p")
    base = np.power(p, np.arange(CWL_DEPTH + 1, dtype=np.float64) - 1.0)
    return _product_measure(segments, m, base, CWL_DEPTH, stops=True)


def nerr11(segments, m):
    """NERR11 (Azzopardi, Mackenzie & Moffat 2021, eq. 11, ir_measures' NERR11):
    C_i = ((i + 2T − 1)/(i + 2T))²·(1 − g_i), INSQ's continuation with ERR's stopping."""
    return _product_measure(segments, m, _insq_base(m.get("T")), CWL_DEPTH, stops=True)


# --------------------------------------------------------------------------- INST, BPM


def trigamma(x: np.ndarray) -> np.ndarray:
    """ψ₁(x) = Σ_{m>=0} 1/(x + m)² for x > 0, to ~1e-16 relative.

    Shifts x to >= 20 with ψ₁(x) = ψ₁(x + 1) + 1/x², then the asymptotic series
    1/x + 1/(2x²) + Σ B_{2k}/x^{2k+1} (Bernoulli numbers; the first omitted term is below
    4e-16 at x = 20). Several times faster than scipy's Hurwitz zeta for the same accuracy.
    """
    scalar = np.ndim(x) == 0
    x = np.array(x, dtype=np.float64, copy=True).reshape(-1)
    out = np.zeros_like(x)
    small = np.flatnonzero(x < 20.0)
    if len(small):
        # the recurrence for every small x at once: column j holds x + 1 + ... + 1 (j ones,
        # added one at a time), a term 1/(x + j)² counts while x + j < 20; the terms are
        # added column by column, so each value is bit for bit that of the step-by-step loop
        steps = np.empty((21, len(small)))
        steps[0] = x[small]
        for j in range(1, 21):
            np.add(steps[j - 1], 1.0, out=steps[j])
        below = steps[:20] < 20.0
        terms = np.where(below, 1.0 / (steps[:20] * steps[:20]), 0.0)
        acc = np.zeros(len(small))
        for j in range(int(below.sum(axis=0).max())):
            acc += terms[j]
        x[small] = steps[below.sum(axis=0), np.arange(len(small))]
        out[small] = acc
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv2 * (1.0 / 6 - inv2 * (1.0 / 30 - inv2 * (1.0 / 42 - inv2 * (1.0 / 30 - inv2 * (5.0 / 66)))))
    out += inv + 0.5 * inv2 + inv * series
    return out[0] if scalar else out


def inst(segments, m):
    """INST (Moffat, Bailey, Scholer & Thomas 2015): C_i = ((a_i − 1)/a_i)² with
    a_i = i + 2T − G_i (G_i the gain up to and including rank i), over N = 1000 ranks.

    Between two ranks with a gain, ``a_i − 1 = a_{i−1}``, so ``P_i`` telescopes to
    ``K_b / (i + 2T − G_b − 1)²`` in block b (``K_0 = 4T²``; at a gain g at rank r,
    ``K`` is multiplied by ``((x − g)/x)²`` with ``x = r + 2T − G_before − 1``), and the
    sum of P over a block is ``K_b·(ψ₁(lo) − ψ₁(hi))``, ψ₁ the trigamma function.
    """
    T = m.get("T")
    v, seg, rank, g = cwl_gains(segments, m)
    n, N = v.n_seg, CWL_DEPTH
    G_after = within_segment_cumsum(seg, g)
    G_before = G_after - g
    x = rank + 2.0 * T - G_before - 1.0  # > 0: G_before <= rank - 1
    factor = ((x - g) / x) ** 2
    log_k0 = np.log(4.0 * T * T)
    k_before = np.exp(log_k0) * _exclusive_product(seg, factor)
    k_after = k_before * factor
    p_at = k_before / x**2
    utility = seg_sum(seg, g * p_at, n)
    # block 0: ranks 1..first gain rank (or N), K_0 = 4T², G = 0
    first_rank = np.full(n, N, dtype=np.int64)
    is_first = np.r_[True, seg[1:] != seg[:-1]] if len(seg) else np.zeros(0, dtype=bool)
    first_rank[seg[is_first]] = rank[is_first]
    nxt = _next_in_segment(seg, rank, np.full(n, N, dtype=np.int64))
    lo = rank + 2.0 * T - G_after
    hi = nxt + 2.0 * T - G_after
    # one trigamma call for all its arguments (elementwise: the same values as separate calls)
    psi = trigamma(np.concatenate([[2.0 * T], first_rank + 2.0 * T, lo, hi]))
    psi_lo, psi_hi = psi[1 + n : 1 + n + len(lo)], psi[1 + n + len(lo) :]
    total = 4.0 * T * T * (psi[0] - psi[1 : 1 + n])
    total = total + seg_sum(seg, k_after * (psi_lo - psi_hi), n)
    return utility / total


def bpm(segments, m):
    """BPM@K, static (Zhang et al. 2017, cwl_eval ``BPM-Static``): the user reads ranks
    1..D with D = min(K, N, the first rank where the cumulative gain reaches T) (D = 1 when
    T <= 0), W uniform over them: BPM = Σ_{i<=D} g_i / D. The running gain is summed left to
    right as cwl_eval does, so the comparison with T is bit-exact."""
    T = m.get("T")
    v, seg, rank, g = cwl_gains(segments, m)
    n = v.n_seg
    depth = np.full(n, min(m.cutoff, CWL_DEPTH), dtype=np.int64)
    if T <= 0:
        depth[:] = 1
    else:
        running = within_segment_cumsum(seg, g)  # added left to right, as cwl_eval does
        reached = running >= T
        stop = np.full(n, CWL_DEPTH + 1, dtype=np.int64)
        np.minimum.at(stop, seg[reached], rank[reached])
        depth = np.minimum(depth, stop)
    inside = rank <= depth[seg]
    return seg_sum(seg[inside], g[inside], n) / depth


# --------------------------------------------------------------------------- registry


def _positive(value):
    return None if value > 0 else "a positive number"


def _p_check(p):
    return None if 0 < p < 1 else "a persistence 0 < p < 1"


T_GOAL = Param("T", "float", 1.0, "Desired total gain T (in gain units, 1 = one fully relevant document).", check=_positive)
T_BPM = Param("T", "float", 1.0, "Desired total gain T (the user stops once the cumulative gain reaches T).")
MIN_REL = Param("min_rel", "float", 0.0, "Label mapped to gain 0 (lower labels are clipped to it).")
MAX_REL = Param("max_rel", "float", None, "Label mapped to gain 1 (higher labels are clipped to it); default the largest label in the qrels. ir_measures requires it.")
GAINS = (MIN_REL, MAX_REL)
_CWL = "Azzopardi, Thomas & Moffat 2019 (cwl_eval)"

register(MeasureDef("INSQ", insq, "C/W/L INSQ: EU = Σ_i W_i·g_i with W_i ∝ (2T/(i+2T−1))², C_i = ((i+2T−1)/(i+2T))², gain-independent.", (T_GOAL,) + GAINS, cutoff="none", citation="Moffat, Scholer & Thomas 2012; " + _CWL))
register(MeasureDef("INST", inst, "C/W/L INST: EU = Σ_i W_i·g_i with C_i = ((a_i − 1)/a_i)², a_i = i + 2T − G_i (G_i the gain up to rank i): INSQ whose patience falls as gain T is met.", (T_GOAL,) + GAINS, cutoff="none", citation="Moffat, Bailey, Scholer & Thomas 2015; " + _CWL))
register(MeasureDef("BPM", bpm, "Bejeweled Player Model (static): Σ_{i<=D} g_i / D, D = min(K, L, the first rank where the cumulative gain reaches T).", (T_BPM,) + GAINS, cutoff="required", citation="Zhang, Liu, Li, Zhang, Xu & Ma 2017; " + _CWL))
register(MeasureDef("SDCG", sdcg, "Scaled DCG@k: Σ_{i<=k} g_i/log2(i+1) / Σ_{i<=k} 1/log2(i+1), DCG@k over that of k fully relevant documents.", GAINS, cutoff="required", citation="Järvelin & Kekäläinen 2002; " + _CWL))
register(MeasureDef("NERR8", nerr8, "Not (but nearly) ERR, eq. 8: C_i = 1 − g_i for i < k, then 0; EU = Σ_i P_i·g_i / Σ_{i<=k} P_i, P_i = Π_{j<i} C_j.", GAINS, cutoff="required", citation="Azzopardi, Mackenzie & Moffat 2021; " + _CWL))
register(MeasureDef("NERR9", nerr9, "Not (but nearly) ERR, eq. 9: gain-based stopping and 1/i discount, truncated at k.", GAINS, cutoff="required", citation="Azzopardi, Mackenzie & Moffat 2021; " + _CWL))
register(MeasureDef("NERR10", nerr10, "Not (but nearly) ERR, eq. 10: C_i = p·(1 − g_i), P_i = p^(i−1)·Π_{j<i}(1 − g_j): gain-based stopping with RBP patience p.", (Param("p", "float", 0.9, "Persistence: probability of moving on when the document gave no gain.", check=_p_check),) + GAINS, cutoff="none", citation="Azzopardi, Mackenzie & Moffat 2021; " + _CWL))
register(MeasureDef("NERR11", nerr11, "Not (but nearly) ERR, eq. 11: C_i = ((i+2T−1)/(i+2T))²·(1 − g_i): INSQ's continuation with ERR's stopping.", (T_GOAL,) + GAINS, cutoff="none", citation="Azzopardi, Mackenzie & Moffat 2021; " + _CWL))
