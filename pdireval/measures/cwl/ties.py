"""Closed forms for ``ties="expected"`` of C/W/L measures: INSQ and SDCG@k, whose weights do not
depend on the gains; NERR8-11 on lists whose value moves with one slot only; INST and BPM by
the placements of the positive gains (McSherry & Najork 2008; Moffat et al. 2013).

:mod:`pdireval.measures.ties.groups` dispatches ``ties="expected"``; these kernels are registered
in its ``TIE_AWARE`` table. Notation as there: a tie group g of a (system, query) list occupies
the 0-based positions s..s+n−1 and its documents' cwl_eval gains
(:mod:`pdireval.measures.cwl.kernels`:
``(clip(max(label, 0), min_rel, max_rel) − min_rel)/(max_rel − min_rel)``, 0 when not judged)
sum to G_g; m = min(n, max(D − s, 0)) of its slots lie inside the evaluation depth D
(cwl_eval's N = 1000 ranks, min(k, N) for SDCG@k).

* **INSQ** (Moffat, Scholer & Thomas 2012) and **SDCG@k** (Järvelin & Kekäläinen 2002, in
  cwl_eval's C/W/L form): the continuation C_i depends on the rank i (and T) only, so the
  weights W_i = P_i/Σ_{t<=D} P_t, P_i = Π_{j<i} C_j, are fixed and EU = Σ_{i<=D} W_i·g_i is
  linear in the gains. In a uniformly random ordering of g each of its documents is at each of
  its n slots with probability 1/n, so by linearity of expectation
  E[EU] = Σ_g G_g·(1/n)·Σ_{t<m} W_{s+t+1}: each weight replaced by the mean weight of the
  group's slots inside the depth (the slots past it weigh 0, as cwl_eval drops the documents
  past rank N). Exact; W_i ∝ (2T/(i + 2T − 1))² for INSQ, ∝ 1/log2(i + 1) for i <= k for SDCG.

* **NERR8@k, NERR9@k, NERR10, NERR11** (Azzopardi, Mackenzie & Moffat 2021): C_i =
  base[i+1]/base[i]·(1 − g_i), so P_i = base[i]·Π_{j<i}(1 − g_j) and EU = Σ P_i·g_i / Σ P_i, a
  ratio of two functions of the whole arrangement: no linear decomposition. But after a full
  gain (g = 1) C = 0, so a list's value reads only the ranks down to its first full gain.
  When no group above the list's first group holding a full gain has more than one
  arrangement of its gains (each holds one document, or documents of one gain), and that
  group holds only full and zero gains (r full gains among n documents), the value is fixed
  but for the slot t of the group's first full gain, which is t with probability
  C(n−1−t, r−1)/C(n, r) (as for RR), so E[EU] = Σ_t P(t)·(N + Q·base[a])/(D + Q·(cum[a] −
  cum[s])), a = s + t + 1 its rank, N, D and Q = Π(1 − g) the sums and product over the fixed
  ranks above, cum the cumulative base, plus, for a group cut by the depth, the probability
  C(n − m, r)/C(n, r) of no full gain inside times N/(D + Q·(cum[depth] − cum[s])). A list
  without a full gain and without a group of several arrangements keeps its value. With one
  full gain and nothing above it (binary judgments, the usual case) the value at rank a is
  base[a]/cum[a], and its mean over the group's slots is read off one cumulative sum. Any
  other list (partial gains in a tie group that can move) makes the whole call fall back to
  the enumeration of the joint orderings (:mod:`pdireval.measures.ties.orderings`).

* **INST and BPM@K** (Moffat, Bailey, Scholer & Thomas 2015; Zhang et al. 2017): INST's
  continuation reads the gain accumulated so far at every rank, BPM's depth is the rank where
  the running gain reaches T; no sum decomposes. But both read only the ranks and gains of
  the documents with a positive gain (the others are alike, whatever their label), so a tie
  group holding one positive gain among n documents has n equally likely placements of it,
  and a group whose documents all have one gain has one. When every tie group that can move
  holds one positive gain, a list's orderings give Π_g n_g equally likely placements of its
  positive gains (mixed radix over its movable groups): each becomes a short virtual list
  (the list's positive hits only, the moving ones at their slot) and the measure's own kernel
  evaluates all of them at once; E is their mean, exact. A list with more than
  ``placement_limit`` (5040) placements, or a group holding two positive gains that can move,
  makes the whole call fall back to the enumeration of the joint orderings
  (:mod:`pdireval.measures.ties.orderings`), which copies whole lists and samples large ones.

References
----------
McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
efficiently in the presence of tied scores. ECIR 2008, 414–421.
Moffat, A., Scholer, F. & Thomas, P. (2012). Models and metrics: IR evaluation as a user
process. ADCS 2012.
Moffat, A., Thomas, P. & Scholer, F. (2013). Users versus models: what observation tells us
about effectiveness metrics. CIKM 2013.
Järvelin, K. & Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR techniques. ACM
TOIS 20(4).
Moffat, A., Bailey, P., Scholer, F. & Thomas, P. (2015). INST: an adaptive metric for
information retrieval evaluation. ADCS 2015.
Zhang, F., Liu, Y., Li, X., Zhang, M., Xu, Y. & Ma, S. (2017). Evaluating web search with a
bejeweled player model. SIGIR 2017.
Azzopardi, L., Mackenzie, J. & Moffat, A. (2021). ERR is not C/W/L: exploring the relationship
between expected reciprocal rank and other metrics. ICTIR 2021.
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.cwl.kernels import (
    CWL_DEPTH,
    exclusive_product,
    insq_base,
    max_rel_of,
    positive_gains,
)
from pdireval.measures.ties.groups import tie_groups
from pdireval.measures.toolkit import safe_div
from pdireval.measures.view import run_sums, seg_sum, segment_bounds, view_of

__all__ = [
    "gain_reading",
    "insq",
    "sdcg",
    "nerr8",
    "nerr9",
    "nerr10",
    "nerr11",
    "inst",
    "bpm",
]


def _positive_gain_hits(segments, m, depth: int):
    """The view (negatives kept), min_rel, max_rel, the tie groups and, per hit, whether its
    gain is positive and its group starts inside ``depth`` (a gain is positive exactly when
    the label — negative: 0, unjudged: min_rel — exceeds min_rel)."""
    v = view_of(segments, negatives="keep")
    lo = float(m.get("min_rel"))
    hi = max_rel_of(v, m, lo)
    if not lo < hi:
        positive_gains(segments, m)  # raises the kernel's own error
    groups = tie_groups(v)
    lab = v.hit_label
    positive = lab > lo if lo >= 0 else ~np.isnan(lab)
    if (
        len(groups.start) and groups.start.max() >= depth
    ):  # groups starting past the depth never count
        positive &= groups.start[groups.hit_group] < depth
    return v, lo, hi, groups, positive


def _fixed_weight_measure(segments, m, base: np.ndarray, depth: int) -> np.ndarray:
    """E[Σ_{i<=depth} base[i]·g_i] / Σ_{i<=depth} base[i] (1-based ranks i): Σ_g G_g times the
    mean of base over the group's slots inside the depth, over the groups holding a positive
    gain and starting inside the depth."""
    v, lo, hi, groups, positive = _positive_gain_hits(segments, m, depth)
    lab = v.hit_label
    keep = np.flatnonzero(positive)
    lab = np.minimum(np.maximum(lab[keep], 0.0), hi)
    owner = groups.hit_group[keep]
    G = np.bincount(owner, weights=(lab - lo) / (hi - lo), minlength=len(groups.seg))
    use = np.flatnonzero(G)
    s, n = groups.start[use], groups.size[use]
    mean_w = base[s + 1]  # an untied document: its own weight, exactly
    tied = np.flatnonzero(n > 1)
    if len(tied):
        st, nt = s[tied], n[tied]
        mm = np.minimum(nt, depth - st)
        cum = np.concatenate([[0.0], np.cumsum(base[1 : int((st + mm).max()) + 1])])
        mean_w[tied] = (cum[st + mm] - cum[st]) / nt
    total = float(np.sum(base[1 : depth + 1]))
    return seg_sum(groups.seg[use], G[use] * mean_w, v.n_seg) / total


def insq(segments, m):
    """E[INSQ] = Σ_g G_g·mean_{t<m} W_{s+t+1}, W_i ∝ (2T/(i + 2T − 1))² over N = 1000 ranks."""
    return _fixed_weight_measure(segments, m, insq_base(m.get("T")), CWL_DEPTH)


def sdcg(segments, m):
    """E[SDCG@k] = Σ_g G_g·mean_{t<m} W_{s+t+1}, W_i ∝ 1/log2(i + 1) for i <= min(k, N)."""
    base = np.zeros(CWL_DEPTH + 1)
    base[1:] = 1.0 / np.log2(np.arange(1, CWL_DEPTH + 1, dtype=np.float64) + 1.0)
    return _fixed_weight_measure(segments, m, base, min(m.cutoff, CWL_DEPTH))


# --------------------------------------------------------------------------- NERR8-11


def _first_full_values(groups, first_full, r, N_above, D_above, Q, base, cum, depth: int):
    """E[EU] of the lists whose first full gain lies in a tie group (``first_full``: the
    groups, ``r``: their full gains), averaged over the slot of that first full gain."""
    # lists with a first full-gain group at slots s..s+n−1 holding r full gains (the rest 0):
    # its first full gain is at slot t with probability C(n−1−t, r−1)/C(n, r)
    fs = groups.seg[first_full]
    s, n = groups.start[first_full], groups.size[first_full]
    inside = np.minimum(n, depth - s)
    total = np.zeros(len(first_full))
    # one full gain and nothing above it (the usual case): the value at rank a is
    # base[a]/cum[a], its mean over the slots a difference of one cumulative sum
    lone = (r == 1) & (N_above[fs] == 0) & (Q[fs] == 1.0)
    if lone.any():
        ratio = np.zeros(depth + 1)
        ratio[1:] = base[1 : depth + 1] / cum[1:]
        ratio_cum = np.cumsum(ratio)
        sl, nl, ml = s[lone], n[lone], inside[lone]
        total[lone] = (ratio_cum[sl + ml] - ratio_cum[sl]) / nl
        single = nl == 1
        total[np.flatnonzero(lone)[single]] = ratio[sl[single] + 1]  # exact for an untied one
        inside = np.where(lone, 0, inside)  # the rest of the expansion skips them
    if not lone.all():  # the other lists: every slot of the group, with its probability
        from pdireval.measures.ties.orderings import log_factorials

        lf = log_factorials(int(n.max()) + 1)
        owner_t = np.repeat(np.arange(len(first_full)), inside)
        t = np.arange(len(owner_t)) - np.repeat(np.cumsum(inside) - inside, inside)
        nn, rr = n[owner_t], r[owner_t]
        ok = nn - 1 - t >= rr - 1
        a = np.where(ok, nn - 1 - t, 0)
        b = np.where(ok, nn - t - rr, 0)
        prob = np.where(
            ok, np.exp(lf[a] - lf[rr - 1] - lf[b] - (lf[nn] - lf[rr] - lf[nn - rr])), 0.0
        )
        prob[rr == 1] = 1.0 / nn[rr == 1]
        at = s[owner_t] + t + 1  # the rank of the first full gain
        q, fseg = Q[fs][owner_t], fs[owner_t]
        value = (N_above[fseg] + q * base[at]) / (D_above[fseg] + q * (cum[at] - cum[s[owner_t]]))
        total += np.bincount(owner_t, weights=prob * value, minlength=len(first_full))
        # no full gain inside the depth: C(n − m, r)/C(n, r), the value of ranks 1..depth
        inside = np.minimum(n, depth - s)
        short = np.flatnonzero((inside < n) & ~lone)
        if len(short):
            ns, rs, ms = n[short], r[short], inside[short]
            possible = ns - ms >= rs
            miss = np.where(
                possible,
                np.exp(
                    lf[np.maximum(ns - ms, 0)]
                    - lf[np.maximum(ns - ms - rs, 0)]
                    - lf[ns]
                    + lf[ns - rs]
                ),
                0.0,
            )
            sh = fs[short]
            rest = safe_div(N_above[sh], D_above[sh] + Q[sh] * (cum[depth] - cum[s[short]]))
            total[short] += miss * rest
    return fs, total


def _stopping_measure(segments, m, base: np.ndarray, depth: int):
    """E[EU] for C_i = base[i+1]/base[i]·(1 − g_i) over ranks 1..depth (NERR8-11) when every
    list's value is fixed but for the slot of its first full gain; None otherwise (the
    caller enumerates the joint orderings). See the module docstring."""
    v, lo, hi, groups, positive = _positive_gain_hits(segments, m, depth)
    n_seg = v.n_seg
    lab = v.hit_label
    ph = np.flatnonzero(positive)
    g = (np.minimum(np.maximum(lab[ph], 0.0), hi) - lo) / (hi - lo)
    owner = groups.hit_group[ph]  # ascending
    full = g >= 1.0
    cum = np.empty(depth + 1)
    cum[0] = 0.0
    np.cumsum(base[1 : depth + 1], out=cum[1:])
    s_full = np.full(n_seg, depth, dtype=np.int64)  # the first full-gain group's start, or depth
    F = np.zeros(0, dtype=np.int64)
    if len(ph):
        is_first, first, lengths = segment_bounds(owner)
        grp = owner[first]
        npos = lengths
        gmin, gmax = np.minimum.reduceat(g, first), np.maximum.reduceat(g, first)
        nfull = np.add.reduceat(full.astype(np.int64), first)
        size = groups.size[grp]
        varying = (npos < size) | (gmax > gmin)  # more than one arrangement of the gains
        # the first group of each list holding a full gain
        fg = np.flatnonzero(nfull > 0)
        if len(fg):
            fseg = groups.seg[grp[fg]]
            lead = np.empty(len(fg), dtype=bool)
            lead[0] = True
            np.not_equal(fseg[1:], fseg[:-1], out=lead[1:])
            F = fg[lead]
            s_full[groups.seg[grp[F]]] = groups.start[grp[F]]
        # every varying group above it (or anywhere, without one) moves the value; so does a
        # full-gain group holding a partial gain: the enumeration then
        above = groups.start[grp] < s_full[groups.seg[grp]]
        if np.any(varying & above) or np.any(varying[F] & (nfull[F] < npos[F])):
            return None
    # the documents above each list's first full gain (or depth): their order is fixed
    keep = np.flatnonzero(v.hit_pos[ph] < s_full[v.hit_seg[ph]])
    seg, rank, gk = v.hit_seg[ph][keep], v.hit_pos[ph][keep].astype(np.int64) + 1, g[keep]
    end = s_full  # ranks 1..end lie above the first full-gain group
    N_above = np.zeros(n_seg)
    D_above = cum[end].copy()
    Q = np.ones(n_seg)
    if len(seg):
        bounds = segment_bounds(seg)
        first = bounds[1]
        q_before = exclusive_product(1.0 - gk, bounds)
        q_after = q_before * (1.0 - gk)
        N_above = run_sums(gk * base[rank] * q_before, seg, bounds, n_seg)
        last = np.append(first[1:], len(seg)) - 1
        nxt = np.empty(len(seg), dtype=np.int64)
        nxt[:-1] = rank[1:]
        nxt[last] = end[seg[last]]
        D_above[seg[first]] = cum[rank[first]]
        D_above += run_sums(q_after * (cum[nxt] - cum[rank]), seg, bounds, n_seg)
        Q[seg[last]] = q_after[last]
    out = safe_div(N_above, D_above)
    if len(F) == 0:
        return out
    fs, total = _first_full_values(groups, grp[F], nfull[F], N_above, D_above, Q, base, cum, depth)
    out[fs] = total
    return out


def nerr8(segments, m):
    """E[NERR8@k], base 1 over ranks 1..min(k, N) (see the module docstring)."""
    return _stopping_measure(segments, m, np.ones(CWL_DEPTH + 1), min(m.cutoff, CWL_DEPTH))


def nerr9(segments, m):
    """E[NERR9@k], base 1/i over ranks 1..min(k, N)."""
    base = 1.0 / np.maximum(np.arange(CWL_DEPTH + 1, dtype=np.float64), 1.0)
    return _stopping_measure(segments, m, base, min(m.cutoff, CWL_DEPTH))


def nerr10(segments, m):
    """E[NERR10], base p^(i−1) over N = 1000 ranks."""
    base = np.power(m.get("p"), np.arange(CWL_DEPTH + 1, dtype=np.float64) - 1.0)
    return _stopping_measure(segments, m, base, CWL_DEPTH)


def nerr11(segments, m):
    """E[NERR11], INSQ's base (2T/(i + 2T − 1))² over N = 1000 ranks."""
    return _stopping_measure(segments, m, insq_base(m.get("T")), CWL_DEPTH)


# --------------------------------------------------------------------------- INST, BPM

#: Most placements of a list's movable gains evaluated exactly (more: the enumeration samples)
#: default of ``placement_limit=``
PLACEMENT_LIMIT = 5040


def _placements(segments, m, depth: int, limit: int):
    """Every placement of each list's movable positive gains, as virtual lists of positive
    hits: ``(copy list, seg, rank, units, scale, n_copies, K per list)``, or None when a tie
    group that can move holds two positive gains or a list has more than
    ``limit`` placements (see the module docstring)."""
    v = view_of(segments, negatives="keep")  # every hit: aligned with the segments' tie arrays
    lo = float(m.get("min_rel"))
    hi = max_rel_of(v, m, lo)
    if not lo < hi:
        positive_gains(segments, m)  # raises the kernel's own error
    n_seg = v.n_seg
    lab = v.hit_label
    tie_start, tie_size = segments.hit_tie_start, segments.hit_tie_size
    if tie_start is None:  # no ties
        tie_start, tie_size = v.hit_pos, np.ones(len(lab), dtype=np.int64)
    if len(lab) and v.hit_pos.max() >= depth:  # groups starting past the depth never count
        near = np.flatnonzero(tie_start < depth)
        near_lab = lab[near]
        ph = near[near_lab > lo if lo >= 0 else ~np.isnan(near_lab)]
    else:
        ph = np.flatnonzero(lab > lo if lo >= 0 else ~np.isnan(lab))
    seg, pos = v.hit_seg[ph], v.hit_pos[ph].astype(np.int64)
    units = np.minimum(np.maximum(lab[ph], 0.0), hi) - lo
    start, size = tie_start[ph].astype(np.int64), tie_size[ph].astype(np.int64)
    K = np.ones(n_seg, dtype=np.int64)
    moving = np.zeros(len(ph), dtype=bool)
    tied = np.flatnonzero(size > 1)
    if len(tied):
        ts, tst = seg[tied], start[tied]
        new = np.ones(len(tied), dtype=bool)
        new[1:] = (ts[1:] != ts[:-1]) | (tst[1:] != tst[:-1])
        first = np.flatnonzero(new)
        lengths = np.diff(np.append(first, len(tied)))
        tu = units[tied]
        uniform = np.minimum.reduceat(tu, first) == np.maximum.reduceat(tu, first)
        varying = (lengths < size[tied][first]) | ~uniform  # more than one arrangement
        if np.any(varying & (lengths > 1)):
            return None
        moving[tied] = np.repeat(varying, lengths)
        mg = np.flatnonzero(moving)
        log_k = np.bincount(seg[mg], weights=np.log(size[mg]), minlength=n_seg)
        if log_k.max(initial=0.0) > np.log(limit) + 1e-9:
            return None
        K = np.rint(np.exp(log_k)).astype(np.int64)
    # copies c = 0..K[L]−1 of list L, each holding all of L's positive hits: copy 0 of every
    # list is the list itself (segment L), the others (lists with K > 1) follow from n_seg
    multi = np.flatnonzero(K > 1)
    extra = K[multi] - 1
    extra_list = np.repeat(multi, extra)
    copy_list = np.concatenate([np.arange(n_seg), extra_list])
    copy_index = np.zeros(len(copy_list), dtype=np.int64)
    copy_index[n_seg:] = 1 + np.arange(len(extra_list)) - np.repeat(np.cumsum(extra) - extra, extra)
    count = np.bincount(seg, minlength=n_seg)
    list_first = np.cumsum(count) - count
    per_copy = count[extra_list]
    extra_seg = n_seg + np.repeat(np.arange(len(extra_list)), per_copy)
    extra_hit = np.repeat(list_first[extra_list], per_copy) + (
        np.arange(len(extra_seg)) - np.repeat(np.cumsum(per_copy) - per_copy, per_copy)
    )
    vseg = np.concatenate([seg, extra_seg])
    hit = np.concatenate([np.arange(len(ph)), extra_hit])
    rank = pos[hit] + 1
    mv = np.flatnonzero(moving[hit])
    if len(mv):
        # mixed radix: the moving hit of group j of its list takes slot (c // stride_j) % n_j
        mg = np.flatnonzero(moving)
        n_g = size[mg]
        log_before = np.zeros(len(mg))
        if len(mg) > 1 and np.any(seg[mg][1:] == seg[mg][:-1]):  # lists with several
            from pdireval.measures.ties.groups import exclusive_in_segment

            log_before = exclusive_in_segment(seg[mg], np.log(n_g.astype(np.float64)))
        stride = np.zeros(len(ph), dtype=np.int64)
        stride[mg] = np.rint(np.exp(log_before)).astype(np.int64)
        h = hit[mv]
        slot = (copy_index[vseg[mv]] // stride[h]) % size[h]
        rank[mv] = start[h] + slot + 1
    inside = np.flatnonzero(rank <= depth)
    return copy_list, vseg[inside], rank[inside], units[hit[inside]], hi - lo, len(copy_list), K


def _mean_over_placements(placed, value_of) -> np.ndarray:
    copy_list, seg, rank, units, scale, n_copies, K = placed
    values = value_of(seg, rank, units, scale, n_copies)
    return np.bincount(copy_list, weights=values, minlength=len(K)) / K


def inst(segments, m, *, placement_limit: int = PLACEMENT_LIMIT):
    """E[INST]: the mean of INST over every placement of each list's movable positive gains
    (one per tie group that can move), or None (the enumeration)."""
    from pdireval.measures.cwl.kernels import inst_of_hits

    placed = _placements(segments, m, CWL_DEPTH, placement_limit)
    if placed is None:
        return None
    T = m.get("T")
    return _mean_over_placements(
        placed, lambda seg, rank, units, scale, n: inst_of_hits(seg, rank, units, scale, T, n)
    )


def bpm(segments, m, *, placement_limit: int = PLACEMENT_LIMIT):
    """E[BPM@K]: the mean of BPM@K over every placement of each list's movable positive gains,
    or None (the enumeration)."""
    from pdireval.measures.cwl.kernels import bpm_of_hits

    K = min(m.cutoff, CWL_DEPTH)
    placed = _placements(segments, m, K, placement_limit)
    if placed is None:
        return None
    T = m.get("T")
    return _mean_over_placements(
        placed, lambda seg, rank, units, scale, n: bpm_of_hits(seg, rank, units / scale, T, K, n)
    )


def gain_reading(segments, m):
    """Which documents the C/W/L measures cannot tell apart, for the enumeration of
    arrangements: those of equal cwl_eval gain (labels clipped to [min_rel, max_rel])."""
    labels = segments.hit_label
    lo = float(m.get("min_rel"))
    hi = max_rel_of(view_of(segments, negatives="keep"), m, lo)
    lab = np.where(np.isnan(labels), lo, np.maximum(labels, 0.0))
    return ("cwl", lo, hi), np.clip(lab, lo, max(hi, lo))
