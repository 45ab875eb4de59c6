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
``P`` telescopes to ``K_b / (i + 2T − G − 1)²`` between gains; ψ₁ is read off per-call
tables when the labels are integers), or a count (BPM). Only the hits with a positive
gain are read (for NERR8-11, only those up to the first full gain of each list, after which
``C = 0``). Every kernel is O(hits + segments).
"""

from __future__ import annotations

import numpy as np

from pdireval.errors import MeasureError
from pdireval.measures.view import (
    padded_accumulate,
    run_sums,
    seg_sum,
    segment_bounds,
    view_of,
    within_segment_cumsum,
)

__all__ = ["CWL_DEPTH", "cwl_gains", "trigamma"]

CWL_DEPTH = 1000  # cwl_eval's max_n: ranks evaluated per list


# --------------------------------------------------------------------------- gains


def max_rel_of(v, m, lo: float) -> float:
    """``max_rel``, by default the largest label in the qrels (``lo + 1`` when no label
    exceeds ``min_rel``: every gain is 0 then, whatever ``max_rel``)."""
    given = m.get("max_rel")
    if given is not None:
        return float(given)
    top = float(np.fmax.reduce(v.q_label)) if len(v.q_label) else lo  # NaN (unjudged) ignored
    return top if top > lo else lo + 1.0


def cwl_gains(segments, m):
    """(view, segment, 1-based rank, gain) of every hit with a positive gain within rank N.

    Labels as ir_measures' cwl_eval provider reads them (see the module docstring).
    """
    v, seg, rank, units, scale = positive_gains(segments, m)
    return v, seg, rank, units / scale


def positive_gains(segments, m, depth: int = CWL_DEPTH):
    """The hits with a positive gain within rank ``depth`` (<= N): ``(view, segment,
    1-based rank, units, scale)``, the gain being ``units / scale`` with
    ``units = clip(label, min_rel, max_rel) − min_rel`` and ``scale = max_rel − min_rel``.

    A gain is positive exactly when the label (a negative one read as 0, an unjudged
    document as ``min_rel``) exceeds ``min_rel``: the arithmetic runs on those hits only.
    """
    v = view_of(segments, negatives="keep")
    lo = float(m.get("min_rel"))
    hi = max_rel_of(v, m, lo)
    if not lo < hi:
        raise MeasureError(
            f"{m}: min_rel={lo:g} must be below max_rel={hi:g} (gains are "
            "(label - min_rel) / (max_rel - min_rel)); give max_rel explicitly, e.g. "
            f"'{m.name}(max_rel=3)'."
        )
    lab, pos = v.hit_label, v.hit_pos
    # max(label, 0) > lo: label > lo when lo >= 0; every judged label when lo < 0 (NaN: never)
    positive = lab > lo if lo >= 0 else ~np.isnan(lab)
    if len(pos) and pos.max() >= depth:
        positive &= pos < depth
    keep = np.flatnonzero(positive)
    lab = lab[keep]
    if lo < 0:
        lab = np.maximum(lab, 0.0)
    return v, v.hit_seg[keep], pos[keep].astype(np.int64) + 1, np.minimum(lab, hi) - lo, hi - lo


# --------------------------------------------------------------------------- segmented helpers


def _next_rank(rank: np.ndarray, first: np.ndarray, depth: int) -> np.ndarray:
    """The rank of the next hit of the same segment, ``depth`` for a segment's last hit
    (``first``: the index of each segment's first hit; hits in segment order)."""
    out = np.empty(len(rank), dtype=np.int64)
    out[:-1] = rank[1:]
    out[first - 1] = depth  # first[0] - 1 = -1: the last hit
    return out


def exclusive_product(factor: np.ndarray, bounds) -> np.ndarray:
    """Π of ``factor`` over the earlier elements of the same segment (1 for a segment's
    first), multiplied left to right within the segment (``bounds``: ``segment_bounds``
    of the sorted segment ids); a zero factor zeroes everything after it."""
    is_first, first, lengths = bounds
    if len(first) == len(factor) or not factor.any():  # one element per segment / all zero
        return is_first.astype(np.float64)
    out = np.empty(len(factor))
    out[1:] = padded_accumulate(first, lengths, factor, np.multiply, 1.0)[:-1]
    out[first] = 1.0
    return out


# --------------------------------------------------------------------------- product family


def _product_measure(segments, m, base: np.ndarray, depth: int, stops: bool) -> np.ndarray:
    """EU for ``C_i = b_{i+1}/b_i · (1 − g_i if stops else 1)`` truncated after ``depth``.

    ``base[i]`` (i = 1..N, ``base[0]`` unused) is ``Π_{j<i}`` of the gain-free part of C, so
    ``P_i = base[i] · Q_i`` with ``Q_i = Π_{j<i} (1 − g_j)`` constant between gains, and
    ``Σ_i P_i = Σ_blocks Q_b · (cum[end] − cum[start])`` with ``cum`` the cumulative sum of
    ``base``. Without stopping (``Q = 1``) that is ``cum[depth]`` for every list.
    """
    v, seg, rank, units, scale = positive_gains(segments, m, depth)
    g = units / scale
    n = v.n_seg
    cum = np.empty(depth + 1)
    cum[0] = 0.0
    np.cumsum(base[1 : depth + 1], out=cum[1:])  # cum[i] = Σ_{t<=i} base[t]
    if len(seg) == 0:
        return np.zeros(n)
    bounds = segment_bounds(seg)
    if not stops:
        return run_sums(g * base[rank], seg, bounds, n) / cum[depth]
    full = g >= 1.0  # C = 0 after a full gain: the later hits of the list never count
    if full.any() and not full.all():
        is_first, first, lengths = bounds
        seen = np.cumsum(full)
        seen -= full
        alive = np.flatnonzero(seen == np.repeat(seen[first], lengths))
        if len(alive) < len(seg):
            seg, rank, g = seg[alive], rank[alive], g[alive]
            bounds = segment_bounds(seg)
    first = bounds[1]
    q_before = exclusive_product(1.0 - g, bounds)
    # block 0: ranks 1..first gain (Q = 1); after a gain at rank r: ranks r+1..next gain
    total = np.full(n, cum[depth])
    total[seg[first]] = cum[rank[first]]
    q_after = q_before * (1.0 - g)
    if q_after.any():
        total += run_sums(
            q_after * (cum[_next_rank(rank, first, depth)] - cum[rank]), seg, bounds, n
        )
    utility = run_sums(g * base[rank] * q_before, seg, bounds, n)
    return utility / total


def insq_base(T: float) -> np.ndarray:
    i = np.arange(CWL_DEPTH + 1, dtype=np.float64)
    out = (2.0 * T / (i + 2.0 * T - 1.0)) ** 2
    out[0] = 0.0
    return out


def insq(segments, m):
    """INSQ (Moffat, Scholer & Thomas 2012): C_i = ((i + 2T − 1)/(i + 2T))², so
    W_i ∝ (2T / (i + 2T − 1))², independent of the gains; EU = Σ_i W_i g_i over N = 1000
    ranks (cwl_eval ``INSQ``)."""
    return _product_measure(segments, m, insq_base(m.get("T")), CWL_DEPTH, stops=False)


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
    return _product_measure(segments, m, insq_base(m.get("T")), CWL_DEPTH, stops=True)


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
    series = inv2 * (
        1.0 / 6 - inv2 * (1.0 / 30 - inv2 * (1.0 / 42 - inv2 * (1.0 / 30 - inv2 * (5.0 / 66))))
    )
    out += inv + 0.5 * inv2 + inv * series
    return out[0] if scalar else out


def _trigamma_asymptotic(x: np.ndarray) -> np.ndarray:
    """ψ₁(x) for x >= 20: 1/x + 1/(2x²) + Σ B_{2k}/x^{2k+1} (first omitted term < 4e-16)."""
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv2 * (
        1.0 / 6 - inv2 * (1.0 / 30 - inv2 * (1.0 / 42 - inv2 * (1.0 / 30 - inv2 * (5.0 / 66))))
    )
    return inv + 0.5 * inv2 + inv * series


def _inverse_square_tails(offsets: np.ndarray, depth: int) -> np.ndarray:
    """``S[f, k] = ψ₁(offsets[f] + k) = Σ_{m>=k} 1/(offsets[f] + m)²`` for k = 1..depth
    (row f, column k; column 0 holds ``S[f, 1] + 1/offsets[f]²`` where ``offsets[f] > 0``).

    Read off one reversed cumulative sum of the terms from the top: ``S[f, depth]`` by the
    asymptotic series (``offsets[f] + depth >= 20``), then ``S[f, k] = S[f, k+1] +
    1/(offsets[f] + k)²`` added smallest first. A difference ``S[f, a] − S[f, b]`` is the
    partial sum ``Σ_{a<=m<b} 1/(offsets[f] + m)²`` to a few ulps of ``S[f, a]``.
    """
    k = np.arange(1, depth, dtype=np.float64)
    x = offsets[:, None] + k[None, :]
    out = np.empty((len(offsets), depth + 1))
    out[:, depth] = _trigamma_asymptotic(offsets + depth)
    np.cumsum((1.0 / (x * x))[:, ::-1], axis=1, out=out[:, depth - 1 : 0 : -1])
    out[:, 1:depth] += out[:, depth : depth + 1]
    safe = np.where(offsets > 0, offsets, 1.0)
    out[:, 0] = out[:, 1] + np.where(offsets > 0, 1.0 / (safe * safe), np.inf)
    return out


#: Largest ``max_rel − min_rel`` for which INST reads ψ₁ off tables (one per multiple of
#: 1/D below 1); past it, or with non-integer label differences, ψ₁ is evaluated per value.
_TABLE_STEPS = 16


def inst(segments, m):
    """INST (Moffat, Bailey, Scholer & Thomas 2015): C_i = ((a_i − 1)/a_i)² with
    a_i = i + 2T − G_i (G_i the gain up to and including rank i), over N = 1000 ranks.

    Between two ranks with a gain, ``a_i − 1 = a_{i−1}``, so ``P_i`` telescopes to
    ``K_b / (i + 2T − G_b − 1)²`` in block b (``K_0 = 4T²``; at a gain g at rank r,
    ``K`` is multiplied by ``((x − g)/x)²`` with ``x = r + 2T − G_before − 1``: a
    within-segment product over the gains only), and the sum of P over a block (ranks
    r+1..r') is ``K_b·(ψ₁(r + 2T − G_b) − ψ₁(r' + 2T − G_b))``, ψ₁ the trigamma function
    ψ₁(x) = Σ_{m>=0} 1/(x + m)². EU = Σ_hits g·P_r / Σ_blocks ΣP (4T² cancels).

    When every ``clip(label) − min_rel`` is an integer and ``D = max_rel − min_rel`` an
    integer up to 16 (integer labels: the usual case), ``G_b = U_b/D`` with ``U_b`` an
    exact integer sum, so every argument of ψ₁ is ``2T − j/D + k`` (j = U_b mod D,
    k = rank − U_b div D, 0 <= k <= N) and ψ₁ is read off D tables of N + 1 values, each
    one reversed cumulative sum of the terms 1/(2T − j/D + k)² under ψ₁(2T − j/D + N)
    (asymptotic series): the same series summed in another order, no evaluation per
    argument. Otherwise (a list with a non-integer label difference, or D > 16) ψ₁ is
    evaluated at every argument of that list.
    """
    v, seg, rank, units, scale = positive_gains(segments, m)
    return inst_of_hits(seg, rank, units, scale, m.get("T"), v.n_seg)


def inst_of_hits(seg, rank, units, scale: float, T: float, n: int) -> np.ndarray:
    """INST of ``n`` lists from their hits with a positive gain ``units / scale`` (segment
    order, ranks ascending within a segment, ranks <= N): the body of :func:`inst`."""
    steps = int(scale) if scale <= _TABLE_STEPS and scale == int(scale) else 0
    if steps == 0 or len(seg) == 0:
        return _inst_values(seg, rank, units, scale, T, n, 0)
    integral = units == np.floor(units)
    if integral.all():
        return _inst_values(seg, rank, units, scale, T, n, steps)
    # lists with a non-integer gain evaluate ψ₁ per argument, the others read the tables:
    # a list's value never depends on the other lists evaluated alongside
    seg_off = np.bincount(seg, weights=~integral, minlength=n) > 0
    off = seg_off[seg]
    on = ~off
    tables = _inst_values(seg[on], rank[on], units[on], scale, T, n, steps)
    direct = _inst_values(seg[off], rank[off], units[off], scale, T, n, 0)
    return np.where(seg_off, direct, tables)


def _inst_values(seg, rank, units, scale: float, T: float, n: int, steps: int) -> np.ndarray:
    """INST of every segment from its hits with a positive gain ``units / scale``: with
    ψ₁ read off tables when ``steps`` > 0 (every ``units`` an integer, ``scale = steps``),
    evaluated per argument otherwise. Segments without a hit here get 0."""
    N, two_t = CWL_DEPTH, 2.0 * T
    if len(seg) == 0:
        return np.zeros(n)
    bounds = segment_bounds(seg)
    is_first, first, lengths = bounds
    g = units / scale
    if steps:  # integer units: an exact cumulative sum, whatever the order
        u = units.astype(np.int64)
        u_after = np.cumsum(u)
        u_after -= np.repeat(u_after[first] - u[first], lengths)
        G_after = u_after / scale
        G_before = (u_after - u) / scale
    else:
        G_after = within_segment_cumsum(seg, g, bounds=bounds)
        G_before = G_after - g
    x = rank + (two_t - 1.0) - G_before  # r + 2T − G_before − 1 > 0
    factor = (x - g) / x
    factor *= factor
    k_before = exclusive_product(factor, bounds)  # K_before / 4T²
    utility = run_sums(g * k_before / (x * x), seg, bounds, n)
    nxt = _next_rank(rank, first, N)
    if steps:
        table = _inverse_square_tails(two_t - np.arange(steps, dtype=np.float64) / scale, N)
        if steps == 1:
            psi, lo, hi = table[0], rank - u_after, nxt - u_after
        else:
            whole = u_after // steps
            row = (u_after - whole * steps) * (N + 1)  # U mod D (cheaper than %)
            psi, lo, hi = table.ravel(), row + (rank - whole), row + (nxt - whole)
        block = psi[lo] - psi[hi]
        top, first_end, last = table[0, 0], table[0, rank[first]], table[0, N]
    else:
        n_first, n_hits = len(first), len(seg)
        psi = trigamma(
            np.concatenate(
                [
                    [two_t, N + two_t],
                    rank[first] + two_t,
                    rank + two_t - G_after,
                    nxt + two_t - G_after,
                ]
            )
        )
        top, last, first_end = psi[0], psi[1], psi[2 : 2 + n_first]
        block = psi[2 + n_first : 2 + n_first + n_hits] - psi[2 + n_first + n_hits :]
    # block 0 (ranks 1..first gain, or N): K_0 = 4T², G = 0
    total = np.full(n, top - last)
    total[seg[first]] = top - first_end
    total += run_sums(k_before * factor * block, seg, bounds, n)
    return utility / total


def bpm(segments, m):
    """BPM@K, static (Zhang et al. 2017, cwl_eval ``BPM-Static``): the user reads ranks
    1..D with D = min(K, N, the first rank where the cumulative gain reaches T) (D = 1 when
    T <= 0), W uniform over them: BPM = Σ_{i<=D} g_i / D. The running gain is summed left to
    right as cwl_eval does, so the comparison with T is bit-exact."""
    K = min(m.cutoff, CWL_DEPTH)
    v, seg, rank, units, scale = positive_gains(segments, m, K)  # ranks past K never count
    return bpm_of_hits(seg, rank, units / scale, m.get("T"), K, v.n_seg)


def bpm_of_hits(seg, rank, g, T: float, K: int, n: int) -> np.ndarray:
    """BPM@K of ``n`` lists from their hits with a positive gain g (segment order, ranks
    ascending within a segment, ranks <= K): the body of :func:`bpm`."""
    depth = np.full(n, K, dtype=np.int64)
    if T <= 0:
        depth[:] = 1
    else:
        running = within_segment_cumsum(seg, g)  # added left to right, as cwl_eval does
        reached = np.flatnonzero(running >= T)
        if len(reached):  # the first hit of each segment where the running gain reaches T
            at = reached[segment_bounds(seg[reached])[1]]
            depth[seg[at]] = np.minimum(depth[seg[at]], rank[at])
    inside = rank <= depth[seg]
    return seg_sum(seg[inside], g[inside], n) / depth
