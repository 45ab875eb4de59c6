"""IPrec@x and 11pt_avg with ``ties="expected"``: the exact distribution of a maximum.

Interpolated precision at recall level x is a maximum: with R relevant documents and
w = max(⌊x·R + 0.9⌋, 1) (trec_eval's rounding), IPrec@x = max over the relevant retrieved
documents of index i >= w (the i-th relevant document of the list) of i/rank_i, and 0 when
fewer than w are retrieved; 11pt_avg is its mean over recall levels. Its expectation over
the orderings of tied documents (McSherry & Najork 2008) follows from three facts.

**Independent groups.** Take a (system, query) list and its tie groups holding a relevant
document: group G occupies positions s..s+n−1 (0-based), holds r relevant documents and
has c relevant documents in the groups above it. In a uniformly random ordering of G its
relevant documents take a uniformly random r-subset p_0 < ... < p_{r−1} of its slots,
independently of the other groups, and the one at slot p_j is the (c + j + 1)-th relevant
document of the list whatever the order (reordering G does not move a relevant document
across groups). So IPrec@x = max_G Φ_G with independent per-group maxima
Φ_G = max_{j >= j0} (c + j + 1)/(s + p_j + 1), j0 = max(w − c − 1, 0), over the groups
that qualify (c + r >= w): a suffix of the list's groups, of which only the first can have
j0 > 0. For independent discrete Φ_G, E[max] = Σ_v v·(F(v) − F(v⁻)) over the atoms v in
increasing order, F = Π_G P(Φ_G <= v).

**Bounds that prune.** Since c <= s, (c + j + 1)/(s + p + 1) grows with j at a fixed gap
p − j, so over the placements Φ_G ranges from lo_G = (c + r)/(s + n) (every relevant
document at the bottom of G) to hi_G = (c + r)/(s + r) (every one at the top), whatever j0.
With L = max lo_G over the qualifying groups, a group with hi_G <= L never exceeds L, and
the group attaining L is never below it, so IPrec@x = max(L, max_{G: hi_G > L} Φ_G):
the other groups drop out, and what is left is the floor L. Most lists (one relevant
document, or relevant documents far apart) keep one group or none.

**Sparse lists.** A list whose relevant documents sit one per group in one group A or two
groups A, B (sparse judgments) is read directly: with X₁ = s_A + 1 + T and X₂ = s_B + 1 + U
its relevant documents' ranks (T, U uniform over the groups' slots, independent), IPrec is
max(1/X₁, 2/X₂) at the levels with w = 1 (1/X₁ alone without B), 2/X₂ at w = 2 and 0 past
it; 2/X₂ > 1/X₁ on the first clip(2·X₁ − s_B − 1, 0, n_B) slots of B, so the expectation is
a sum over A's slots of harmonic-number differences (:func:`_sparse_lists`).

**One group left.** E[max(L, Φ_G)] is the mean over G's placements. With one relevant
document (r = 1) they are its n slots: with t the number of slots where
(c + 1)/(s + p + 1) > L, E = ((c + 1)·(H_{s+t} − H_s) + (n − t)·L)/n (H the harmonic
numbers). Otherwise, and for the lists that keep two groups or more, the placements are
listed (every r-subset of the n slots when there are at most 5040 of them, else 1000
seeded random ones drawn as :mod:`pdireval.measures.ties.orderings` draws them), each
placement's Φ_G for every j0 read off one suffix maximum of its precisions, floored at L,
and the maximum's distribution swept as above. All recall levels are computed at once:
(groups × levels) matrices for the bounds, one list of placements for every level.

References
----------
McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
efficiently in the presence of tied scores. ECIR 2008, 414–421.
"""

from __future__ import annotations

import numpy as np

from pdireval.measures.ties.groups import log_comb, tie_groups
from pdireval.measures.ties.orderings import (
    EXACT_LIMIT,
    SAMPLES,
    random_slots_bounded,
    segment_keys,
)
from pdireval.measures.toolkit import recall_cut, view_for
from pdireval.measures.view import within_segment_cumsum, within_segment_suffix_max

__all__ = ["iprec_sum", "iprec", "eleven_point"]

_SUBSETS: dict = {}


def _subsets(n: int, r: int) -> np.ndarray:
    """Every r-subset of range(n), increasing, as rows (cached per (n, r))."""
    key = (n, r)
    if key not in _SUBSETS:
        import itertools

        _SUBSETS[key] = np.array(list(itertools.combinations(range(n), r)), dtype=np.int64).reshape(
            -1, r
        )
    return _SUBSETS[key]


def _placements(
    segments, seg, start, size, r, *, exact_limit: int = EXACT_LIMIT, samples: int = SAMPLES
):
    """The equally likely placements of each group's r relevant documents among its n slots:
    every r-subset when there are at most ``exact_limit`` of them, else ``samples`` seeded random
    ones (as :mod:`pdireval.measures.ties.orderings` draws). Returns (group of each placement,
    its probability, per placement its r slots in increasing order, concatenated); a group's
    placements are consecutive."""
    log_count = log_comb(size.astype(np.float64), r.astype(np.float64))
    listed = log_count <= np.log(exact_limit) + 1e-9
    owner_parts, prob_parts, slot_parts = [], [], []
    if listed.any():
        if np.all(r[listed] == 1):  # one relevant document: its slots are the placements
            shapes = np.unique(size[listed])[:, None] * np.array([[1, 0]]) + np.array([[0, 1]])
        else:
            shapes = np.unique(np.stack([size[listed], r[listed]], axis=1), axis=0)
        for n, k in shapes:  # one table per distinct (size, relevant count)
            table = _subsets(int(n), int(k))
            members = np.flatnonzero(listed & (size == n) & (r == k))
            owner_parts.append(np.repeat(members, len(table)))
            prob_parts.append(np.full(len(members) * len(table), 1.0 / len(table)))
            slot_parts.append(np.tile(table, (len(members), 1)).reshape(-1))
    sampled = np.flatnonzero(~listed)
    if len(sampled):
        key = segment_keys(segments)
        pair_group = np.repeat(sampled, samples)
        sample = np.tile(np.arange(samples), len(sampled))
        kk = r[pair_group].astype(np.int64)
        slots = random_slots_bounded(
            key[seg[pair_group]], start[pair_group], size[pair_group], kk, sample
        )
        owner = np.repeat(np.arange(len(pair_group)), kk)
        slots = slots[np.lexsort((slots, owner))]  # increasing within each placement
        owner_parts.append(pair_group)
        prob_parts.append(np.full(len(pair_group), 1.0 / samples))
        slot_parts.append(slots)
    return np.concatenate(owner_parts), np.concatenate(prob_parts), np.concatenate(slot_parts)


def _expected_max(
    unit: np.ndarray, item: np.ndarray, value: np.ndarray, prob: np.ndarray, n_units: int
) -> np.ndarray:
    """E[max_G X_G] per unit for independent discrete X_G (the items of the unit) given by
    atoms (value, prob), each item's probabilities summing to 1; items numbered in unit
    order. Σ_k v_k·(F(v_k) − F(v_{k−1})) over the unit's atoms in increasing order,
    F = Π_G F_G the CDF of the maximum (0 while some item has no atom at or below v)."""
    # each item's CDF after each of its atoms (an item's atoms by increasing value)
    o = np.lexsort((value, item))
    unit, item, value, prob = unit[o], item[o], value[o], prob[o]
    cdf = within_segment_cumsum(item, prob)
    first = np.r_[True, item[1:] != item[:-1]]
    log_cdf = np.log(np.maximum(cdf, 1e-300))
    gain_log = log_cdf.copy()
    gain_log[~first] -= np.log(np.maximum(cdf - prob, 1e-300))[~first]
    # sweep each unit by increasing value
    o = np.lexsort((value, unit))
    unit_o, first_o = unit[o], first[o]
    n_items = np.bincount(unit[first], minlength=n_units)
    zeros_left = n_items[unit_o] - within_segment_cumsum(unit_o, first_o.astype(np.float64))
    log_f = within_segment_cumsum(unit_o, gain_log[o])
    F = np.where(zeros_left < 0.5, np.exp(np.minimum(log_f, 0.0)), 0.0)
    F_prev = np.r_[0.0, F[:-1]]
    F_prev[np.r_[True, unit_o[1:] != unit_o[:-1]]] = 0.0
    return np.bincount(unit_o, weights=value[o] * (F - F_prev), minlength=n_units)


def _harmonic(top: int) -> np.ndarray:
    """H[i] = Σ_{k=1..i} 1/k for i = 0..top."""
    return np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, top + 1))])


def _slot_mean(H, c, s, n, t, floor) -> np.ndarray:
    """((c + 1)·Σ_{p<t} 1/(s + p + 1) + (n − t)·L)/n: the mean of max(L, (c + 1)/(s + p + 1))
    over p = 0..n−1 when the first t slots are the ones above L (an untied group, n = 1, is
    never above its floor: t = 0 and the value is L itself, exactly)."""
    return ((c + 1.0) * (H[s + t] - H[s]) + (n - t) * floor) / n


def _slots_above(c, s, n, floor) -> np.ndarray:
    """t = #{p < n: (c + 1)/(s + p + 1) > L} (the values decrease with p)."""
    num = c + 1.0
    t = np.clip(np.ceil(num / floor - s - 1.0), 0, n).astype(np.int64)
    # the estimate may be off by one at the edge: fixed with the values themselves
    up = (t < n) & (num / (s + t + 1.0) > floor)
    t[up] += 1
    down = (t > 0) & ~(num / np.maximum(s + t, 1.0) > floor)
    t[down] -= 1
    return t


def _suffix_max_at(lo: np.ndarray, list_end: np.ndarray, points: np.ndarray):
    """max(lo[j] for j from p to the end of p's list), for the sorted distinct group indices
    ``points`` (list_end: per group, one past its list's last group). The list is cut at the
    points (and list ends), each piece's maximum taken once (``np.maximum.reduceat``), then
    the pieces' maxima accumulated from the end, one step per piece rank (a few)."""
    ends = list_end[points]
    is_cut = np.zeros(len(lo) + 1, dtype=bool)
    is_cut[points] = True
    is_cut[ends] = True
    is_cut = is_cut[:-1]
    piece = np.maximum.reduceat(lo, np.flatnonzero(is_cut))
    # the pieces that start at a point, by list: each list's points are consecutive
    best = piece[np.cumsum(is_cut)[points] - 1]
    new = np.r_[True, ends[1:] != ends[:-1]]
    first = np.flatnonzero(new)
    count = np.diff(np.r_[first, len(points)])
    rank_from_end = np.repeat(first + count - 1, count) - np.arange(len(points))
    for i in range(1, int(count.max())):  # the pieces of a list, from its last one up
        step = np.flatnonzero(rank_from_end == i)
        best[step] = np.maximum(best[step], best[step + 1])
    return best


def _wanted(fractions: np.ndarray, R: np.ndarray, version: int = 9):
    """w = max(⌊x·R + 0.9⌋, 1) (trec_eval's rounding; 10.0: max(lround(x·R), 1)) per (list,
    level) as a table and each list's row in it: one row per value of R when they are few,
    else one per list."""
    top = int(R.max()) if len(R) else 0
    if top <= 4 * len(R) + 1024:
        cut = recall_cut(fractions[None, :], np.arange(top + 1.0)[:, None], version)
        return np.maximum(cut, 1.0), R.astype(np.int64)
    return np.maximum(recall_cut(fractions[None, :], R[:, None], version), 1.0), np.arange(len(R))


def _sparse_lists(H, s, n, a, two, table, row) -> np.ndarray:
    """Σ over the levels of E[IPrec] for lists whose relevant documents sit one in group A
    (index a) and, when ``two``, one in the next group B: X₁ = s_A + 1 + T uniform over A's
    slots, X₂ = s_B + 1 + U over B's (s_B >= s_A + n_A). At the levels with w = 1, IPrec =
    max(1/X₁, 2/X₂), and 2/X₂ > 1/X₁ for the k(t) = clip(2·X₁ − s_B − 1, 0, n_B) first slots
    of B, so E = (1/n_A)·Σ_t [2·(H_{s_B+k(t)} − H_{s_B}) + (n_B − k(t))/X₁]/n_B (1/X₁ alone,
    E = (H_{s_A+n_A} − H_{s_A})/n_A, without B); at the levels with w = 2 it is 2/X₂, with
    mean 2·(H_{s_B+n_B} − H_{s_B})/n_B; past w = 2 (fewer relevant documents retrieved) 0."""
    sa, na = s[a], n[a]
    ones = np.count_nonzero(table == 1.0, axis=1)[row]  # levels with w = 1, per list
    value = ones * ((H[sa + na] - H[sa]) / na)
    pair = np.flatnonzero(two)
    if len(pair) == 0:
        return value
    sa, na, sb, nb = sa[pair], na[pair], s[a[pair] + 1], n[a[pair] + 1]
    owner = np.repeat(np.arange(len(pair)), na)
    x1 = (sa[owner] + 1) + (np.arange(len(owner)) - np.repeat(np.cumsum(na) - na, na))
    s_o, n_o = sb[owner], nb[owner]
    k = np.clip(2 * x1 - s_o - 1, 0, n_o)
    term = (2.0 * (H[s_o + k] - H[s_o]) + (n_o - k) / x1) / n_o
    e_max = np.bincount(owner, weights=term, minlength=len(pair)) / na
    twos = np.count_nonzero(table == 2.0, axis=1)[row[pair]]
    value[pair] = ones[pair] * e_max + twos * (2.0 * (H[sb + nb] - H[sb]) / nb)
    return value


def _overwrite(out: np.ndarray, seg, value) -> np.ndarray:
    """``out`` with the sparse lists' values (when the general path took them too)."""
    if value is not None:
        out[seg] = value
    return out


def _kept_groups(want, last, lo, s, n, r, first, lengths, list_of, n_levels: int):
    """Per (list, level): the floor L (the largest lo over the qualifying groups, 0 when none
    qualifies) and the groups kept above it, as items ``(g_k, l_k, list_k, unit_k)`` in
    (list, level) order, with ``n_kept`` per (list, level)."""
    n_lists, n_groups = len(first), len(last)
    # a: the first group qualifying (c + r >= w) per (list, level), when the list has one
    valid = want <= last[first + lengths - 1][:, None]
    stride = int(last.max()) + 2
    a = np.searchsorted(
        list_of * stride + last, (np.arange(n_lists) * stride)[:, None] + want.astype(np.int64)
    )
    a = np.where(valid, a, 0)
    # L: the largest lo over the qualifying groups (a suffix of the list)
    marked = np.zeros(n_groups, dtype=bool)
    marked[a[valid]] = True
    points = np.flatnonzero(marked)
    suffix_lo = np.zeros(n_groups)
    suffix_lo[points] = _suffix_max_at(lo, np.repeat(first + lengths, lengths), points)
    floor = np.where(valid, suffix_lo[a], 0.0)
    # a group is kept at a level when it qualifies and hi > L; the floor L only falls as a
    # moves down the list, so the deepest a at or above a group decides whether it is ever kept
    deepest = np.maximum.accumulate(np.where(marked, np.arange(n_groups), -1))
    tied = np.flatnonzero(n > r)  # only a group with hi > lo can rise above its floor
    hi = last[tied] / (s[tied] + r[tied] + 0.0)
    deepest = deepest[tied]
    ok = (deepest >= first[list_of[tied]]) & (hi > suffix_lo[np.maximum(deepest, 0)])
    cand, hi = tied[ok], hi[ok]
    lc = list_of[cand]
    kept = valid[lc] & (a[lc] <= cand[:, None]) & (hi[:, None] > floor[lc])  # (candidates, levels)
    ci, l_k = np.nonzero(kept)
    g_k = cand[ci]
    unit_k = lc[ci] * n_levels + l_k  # (list, level), in that order
    n_kept = np.bincount(unit_k, minlength=n_lists * n_levels).reshape(n_lists, n_levels)
    return floor, g_k, l_k, lc[ci], unit_k, n_kept


def _placement_maxima(
    segments, groups, want_h, g_h, unit_key, floor_h, *, exact_limit: int, samples: int
):
    """E[max over the kept groups of Φ_G(j0) floored at L] per (list, level) unit, over the
    groups' placements: ``(units, values)``. ``groups``: (seg, s, n, r, c) per group; one item
    per (list, level, group): its group ``g_h``, level's rank ``want_h``, unit and floor."""
    seg, s, n, r, c = groups
    need, item_group = np.unique(g_h, return_inverse=True)
    item_group = item_group.reshape(-1)
    owner, prob, slots = _placements(
        segments, seg[need], s[need], n[need], r[need], exact_limit=exact_limit, samples=samples
    )
    k = r[need][owner]
    elem_first = np.cumsum(k) - k
    draw_of = np.repeat(np.arange(len(owner)), k)
    j = np.arange(len(draw_of)) - np.repeat(elem_first, k)
    g_of = need[owner][draw_of]
    precision = (c[g_of] + j + 1.0) / (s[g_of] + slots + 1.0)
    suffix = within_segment_suffix_max(draw_of, precision)  # max over j' >= j in the placement
    n_draws = np.bincount(owner, minlength=len(need))
    draw_first = np.zeros(len(need), dtype=np.int64)
    block = np.flatnonzero(
        np.r_[True, owner[1:] != owner[:-1]]
    )  # a group's placements are consecutive
    draw_first[owner[block]] = block
    # items: one (list, level, group) each, units (list, level) consecutive (already sorted)
    units, unit = np.unique(unit_key, return_inverse=True)
    unit = unit.reshape(-1)
    j0 = np.maximum(want_h - c[g_h] - 1.0, 0.0).astype(np.int64)
    per_item = n_draws[item_group]
    atom_item = np.repeat(np.arange(len(g_h)), per_item)
    draw = np.arange(len(atom_item)) + np.repeat(
        draw_first[item_group] - (np.cumsum(per_item) - per_item), per_item
    )
    value = np.maximum(suffix[elem_first[draw] + j0[atom_item]], floor_h[atom_item])
    p = prob[draw]
    items_of_unit = np.bincount(unit, minlength=len(units))
    lone = items_of_unit[unit[atom_item]] == 1
    result = np.bincount(
        unit[atom_item[lone]], weights=value[lone] * p[lone], minlength=len(units)
    ).astype(np.float64)
    if not lone.all():
        several = ~lone
        result += _expected_max(
            unit[atom_item[several]], atom_item[several], value[several], p[several], len(units)
        )
    return units, result


def iprec_sum(
    segments, m, fractions, *, exact_limit: int = EXACT_LIMIT, samples: int = SAMPLES
) -> np.ndarray | None:
    """Σ_x E[IPrec@x] per segment over the recall levels x in ``fractions`` (None on
    condensed lists, ``judged_only``: left to the enumeration). A group's placements are
    enumerated up to ``exact_limit`` of them, else ``samples`` seeded random ones."""
    if m.get("judged_only", False):
        return None
    v, rel = view_for(segments, m), m.get("rel")
    groups = tie_groups(v)
    x = np.asarray(fractions, dtype=np.float64)
    n_levels = len(x)
    out = np.zeros(v.n_seg)
    r_all = np.bincount(groups.hit_group, weights=(v.hit_label >= rel), minlength=len(groups.seg))
    has = np.flatnonzero(r_all > 0)
    if len(has) == 0:
        return out
    # the groups holding a relevant document, by list (a segment holding one)
    r = r_all[has].astype(np.int64)
    seg, s, n = groups.seg[has], groups.start[has], groups.size[has]
    first = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    lengths = np.diff(np.r_[first, len(seg)])
    table, row = _wanted(
        x, v.num_rel(rel)[v.seg_query[seg[first]]], m.get("trec_eval", 9)
    )  # w of list i at level l: table[row[i], l]
    H = _harmonic(int((s + n).max()))
    # sparse lists (sparse judgments): one or two groups, each holding one relevant document
    second_r = r[np.minimum(first + 1, len(r) - 1)]
    sparse = (r[first] == 1) & ((lengths == 1) | ((lengths == 2) & (second_r == 1)))
    sparse_seg = sparse_value = None
    if sparse.any():  # always (a list's value must not depend on the other lists evaluated)
        sparse_seg = seg[first[sparse]]
        sparse_value = _sparse_lists(
            H, s, n, first[sparse], lengths[sparse] == 2, table, row[sparse]
        )
        if sparse.all():
            out[sparse_seg] = sparse_value
            return out
        if 4 * np.count_nonzero(sparse) > len(first):  # many: the general path skips them
            out[sparse_seg] = sparse_value
            sparse_value = None
            keep = np.repeat(~sparse, lengths)
            seg, s, n, r = seg[keep], s[keep], n[keep], r[keep]
            row, lengths = row[~sparse], lengths[~sparse]
            first = np.cumsum(lengths) - lengths
        # few: the general path takes every list and their values are overwritten at the end
    total = np.cumsum(r) - r
    c = total - np.repeat(total[first], lengths)  # relevant documents in the earlier groups
    last = c + r
    lo = last / (s + n + 0.0)
    want = table[row]  # (lists, levels)
    list_of = np.repeat(np.arange(len(first)), lengths)
    floor, g_k, l_k, list_k, unit_k, n_kept = _kept_groups(
        want, last, lo, s, n, r, first, lengths, list_of, n_levels
    )
    # no group left: the floor (0 when none qualifies)
    out[seg[first]] = np.where(n_kept == 0, floor, 0.0).sum(axis=1)
    if len(g_k) == 0:
        return _overwrite(out, sparse_seg, sparse_value)
    floor_k = floor[list_k, l_k]
    alone = n_kept[list_k, l_k] == 1
    # one group left holding one relevant document: the closed form over its slots
    easy = alone & (r[g_k] == 1)
    if easy.any():
        ge = g_k[easy]
        t = _slots_above(c[ge], s[ge], n[ge], floor_k[easy])
        out += np.bincount(
            seg[ge], weights=_slot_mean(H, c[ge], s[ge], n[ge], t, floor_k[easy]), minlength=v.n_seg
        )
    hard = ~easy
    if not hard.any():
        return _overwrite(out, sparse_seg, sparse_value)
    # the rest: the groups' placements, Φ_G for its j0 floored at L, then the maximum
    units, result = _placement_maxima(
        segments,
        (seg, s, n, r, c),
        want[list_of[g_k[hard]], l_k[hard]],
        g_k[hard],
        unit_k[hard],
        floor_k[hard],
        exact_limit=exact_limit,
        samples=samples,
    )
    out += np.bincount(seg[first][units // n_levels], weights=result, minlength=v.n_seg)
    return _overwrite(out, sparse_seg, sparse_value)


def iprec(segments, m, **options):
    """E[IPrec@x] per segment (None on condensed lists); ``options``: of :func:`iprec_sum`."""
    return iprec_sum(segments, m, [float(m.cutoff)], **options)


def eleven_point(segments, m, **options):
    """E[11pt_avg] per segment: the mean of E[IPrec@x] over the levels (None on condensed
    lists)."""
    levels = m.get("levels")
    total = iprec_sum(segments, m, [float(x) for x in levels], **options)
    return None if total is None else total / len(levels)
