"""The expectation of any measure over the orderings of tied documents, by enumeration.

``ties="expected"`` asks for E[M], the mean of a measure M over every ordering of every
score-tie group of a (system, query) list, each ordering equally likely (McSherry & Najork
2008). Closed forms (:mod:`pdireval.measures.ties`) cover the measures where they are
known; this module computes E[M] for every other measure from its ordinary kernel.

**Arrangements, not permutations.** A uniformly random ordering of a group of n documents is
a uniformly random *arrangement* of its documents' types over its n slots, where documents
the measure cannot tell apart share a type: documents outside the qrels (all alike), and
judged documents the measure reads alike — the same raw label by default, relevant or not
for the binary measures, the same gain for the C/W/L measures (the caller passes the
reading); the diversity measures, which read a document's subtopics, give every judged
document its own type. A group with h judged documents of type counts c_1..c_j has
A = n! / ((n − h)!·Π c_i!) distinct arrangements, each equally likely, so E[M] is the plain
mean over them.

**Two ways to combine groups.**

* *groupwise* (exact, separable measures): when M is a sum over documents of a term that
  depends on the document, its position and an order-free summary of the documents above it
  (the count or gain of relevant documents above, Π(1 − R_j) of ERR, the per-subtopic counts
  of α-nDCG, ...), reordering one group changes only that group's terms, so
  E[M] = M₀ + Σ_g (E_g[M] − M₀), with M₀ the value under the doc-id tie-break and E_g[M] the
  mean over the arrangements of group g alone (the others as M₀ orders them). The cost is
  Σ_g A_g evaluations of the list (each cut after group g when the measure's normalisers do
  not read the rest) instead of Π_g A_g. Cheaper still when the least common multiple K of
  a list's A_g is small: K copies of the list in which group g takes arrangement c mod A_g in
  copy c — every group sees each of its arrangements equally often, so for a separable
  measure the mean over the K copies is E[M].
* *joint* (exact, any measure): the mean over the product of every group's arrangements,
  for measures that are not such sums (interpolated precision's maximum, INST's and BPM's
  gain-dependent continuation, the logarithm of gm_map, RIC's entropy).

Each *unit* (a group, for groupwise; a list, for joint) is enumerated exactly when it has at
most ``EXACT_LIMIT`` = 5040 (= 7!) distinct arrangements. A larger unit is estimated by the
mean over ``SAMPLES`` = 1000 uniformly random orderings, drawn from a counter-based hash of
(system, query, group start, sample, slot): the same value on every call, for any selection
of systems or queries. Its standard error is σ/√1000, σ the measure's standard deviation over
the unit's orderings: at most 0.016 for a measure in [0, 1] (σ <= 1/2), and far less in
practice (one group of a long list moves a measure little).

Every arrangement becomes a copy of the list (hits repositioned, no ties left) and the
measure's ordinary kernel evaluates all copies at once, together with the lists as they are
(the default values the groupwise method starts from, and the lists without a varying
group): one kernel call, vectorised over copies, in chunks of ``CHUNK_HITS`` judged
documents. The groups' arrangement tables are built once per shape (size, type counts) and
kept for later calls.

References
----------
McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
efficiently in the presence of tied scores. ECIR 2008, 414–421.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from pdireval.core.segments import Segments

__all__ = [
    "EXACT_LIMIT",
    "SAMPLES",
    "CHUNK_HITS",
    "TieUnits",
    "tie_units",
    "expected_by_orderings",
    "log_factorials",
    "segment_keys",
    "random_slots",
    "random_slots_bounded",
    "SLOT_BUDGET",
]

#: group slots a sampled ordering is drawn for at once (:func:`random_slots_bounded`): with
#: ``CHUNK_HITS`` this bounds the memory of ``ties="expected"`` (about 6 int64 arrays of this
#: many entries, ~100 MB) whatever the size of the tie groups
SLOT_BUDGET = 1 << 21
#: default of ``exact_limit=``: distinct arrangements of a unit enumerated exactly (7!)
EXACT_LIMIT = 5040
#: default of ``samples=``: seeded random orderings of a larger unit
SAMPLES = 1000
#: default of ``chunk_hits=``: judged documents per kernel call
CHUNK_HITS = 2_000_000

_U64 = np.uint64


@dataclass
class TieUnits:
    """The tie groups of a Segments that hold at least one hit, with their arrangements.

    Per group: ``seg``, ``start``, ``size`` (n), ``n_hits`` (h), ``first`` (index of its
    first hit in the segments' hit arrays), ``offset`` (of its hits in ``canon``), ``log_count``
    (log of its number of distinct arrangements) and
    ``shape`` (index into ``tables``, −1 when the group has too many arrangements to list).
    ``canon`` lists the hits of each group, sorted by type; ``tables[shape]`` is a pair of
    (A, h) int arrays: per arrangement, the group's occupied slot offsets in increasing order,
    and which of its hits (index into its part of ``canon``) takes each; ``flat_slots`` and
    ``flat_hits`` hold every table flattened and concatenated, shape i from ``table_offset[i]``
    (entry k of arrangement a at ``table_offset[i] + a·h + k``).
    """

    seg: np.ndarray
    start: np.ndarray
    size: np.ndarray
    n_hits: np.ndarray
    first: np.ndarray
    offset: np.ndarray
    log_count: np.ndarray
    shape: np.ndarray
    canon: np.ndarray
    tables: list
    flat_slots: np.ndarray  # every table's slots, row after row, table after table
    flat_hits: np.ndarray  # the matching hit choices
    table_offset: np.ndarray  # per shape: where its table starts in the flat arrays


def _arrangements(n: int, counts: tuple[int, ...]) -> np.ndarray:
    """Every distinct arrangement of a group of ``n`` slots holding ``counts[i]`` hits of type
    i (the rest outside the qrels): an (A, Σ counts) array of slot offsets, the hits listed by
    type."""
    rows: list[tuple[tuple[int, ...], tuple[int, ...]]] = [((), tuple(range(n)))]
    for c in counts:
        grown = []
        for taken, free in rows:
            for pick in itertools.combinations(range(len(free)), c):
                chosen = tuple(free[i] for i in pick)
                rest = tuple(f for i, f in enumerate(free) if i not in pick)
                grown.append((taken + chosen, rest))
        rows = grown
    return np.array([taken for taken, _ in rows], dtype=np.int64).reshape(len(rows), sum(counts))


_TABLES: dict = {}
_TABLE_CELLS = 4_000_000  # cached table entries (2 int64 each) before the cache starts over


def _arrangement_table(n: int, counts: tuple[int, ...]):
    """:func:`_arrangements` as (slots in increasing order, which hit takes each), cached per
    shape (at most EXACT_LIMIT rows each; the cache holds at most about 64 MB)."""
    key = (n, counts)
    if key not in _TABLES:
        table = _arrangements(n, counts)
        if sum(t[0].size for t in _TABLES.values()) + table.size > _TABLE_CELLS:
            _TABLES.clear()
        _TABLES[key] = (np.sort(table, axis=1), np.argsort(table, axis=1, kind="stable"))
    return _TABLES[key]


_LOG_FACTORIAL = np.zeros(1)


def _log_factorial(values: np.ndarray) -> np.ndarray:
    """ln(k!) = gammaln(k + 1) for integers k >= 0, read off a cached table."""
    from scipy.special import gammaln  # on first need (scipy.special is slow to import)

    global _LOG_FACTORIAL
    top = int(values.max()) if len(values) else 0
    if top >= len(_LOG_FACTORIAL):
        _LOG_FACTORIAL = gammaln(np.arange(max(top + 1, 2 * len(_LOG_FACTORIAL))) + 1.0)
    return _LOG_FACTORIAL[values]


def log_factorials(top: int) -> np.ndarray:
    """The table ln(x!) for x = 0..top (from the cached table of :func:`_log_factorial`)."""
    return _log_factorial(np.arange(top + 1))


def _row_codes(mat: np.ndarray):
    """np.unique(mat, axis=0, return_inverse=True) for a small nonnegative int matrix: the
    rows as one integer each (the first column most significant) when they fit in 62 bits."""
    base = int(mat.max()) + 1 if mat.size else 1
    if mat.shape[1] * np.log2(base) < 62:
        code = np.zeros(len(mat), dtype=np.int64)
        for col in range(mat.shape[1]):  # a few columns: the distinct label counts of a group
            code = code * base + mat[:, col]
        distinct, first, inverse = np.unique(code, return_index=True, return_inverse=True)
        return mat[first], inverse.reshape(-1)
    shapes, inverse = np.unique(mat, axis=0, return_inverse=True)
    return shapes, inverse.reshape(-1)


def tie_units(
    segments: Segments, by="label", depth: int | None = None, *, exact_limit: int = EXACT_LIMIT
) -> TieUnits:
    """The tie groups of ``segments`` of two or more documents holding hits (starting above
    ``depth`` when given), their hits' types and arrangements (cached).

    ``by="label"``: judged documents with equal raw labels are alike; ``by="doc"``: every
    judged document is distinct (measures that read more than the label); ``by=(name,
    values)``: documents with equal ``values`` (one per hit) are alike — a measure's own
    reading of the labels (relevant or not, a gain), named ``name`` for the cache. A group
    with at most ``exact_limit`` arrangements gets their table.
    """
    key = ("tie_units", by if isinstance(by, str) else by[0], depth, exact_limit)
    if key in segments.cache:
        return segments.cache[key]
    tie_start, tie_size = segments.hit_tie_start, segments.hit_tie_size
    if tie_start is None or tie_size is None:
        sub = np.zeros(0, dtype=np.int64)  # no ties
    else:
        keep = tie_size > 1  # untied documents have one arrangement
        if depth is not None:
            keep &= tie_start < depth
        sub = np.flatnonzero(keep)
    hit_seg = segments.hit_seg[sub]
    n = len(sub)
    if n and tie_start is not None and tie_size is not None:  # (n > 0 only with ties)
        start, size = tie_start[sub], tie_size[sub]
    else:
        start, size = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    new = np.ones(n, dtype=bool)
    if n:
        new[1:] = (hit_seg[1:] != hit_seg[:-1]) | (start[1:] != start[:-1])
    n_groups = int(new.sum())
    single = n_groups == n  # one hit per group (sparse judgments): n arrangements each
    if single:
        canon = g_first = np.arange(n)
        g_hits = np.ones(n, dtype=np.int64)
        g_size = size.astype(np.int64)
        log_count = np.maximum(_log_factorial(g_size) - _log_factorial(g_size - 1), 0.0)
    else:
        gid = np.cumsum(new) - 1
        code: np.ndarray
        if by == "doc":
            code = np.arange(n)
        else:  # a hit's type: its value (unjudged last), types ordered by value
            values = segments.hit_label if by == "label" else np.asarray(by[1], dtype=np.float64)
            code = values[sub]
            code = np.where(np.isnan(code), np.inf, code)
        canon = np.lexsort((code, gid))  # hits by group, then type
        g_first = np.flatnonzero(new)
        g_hits = np.diff(np.r_[g_first, n]).astype(np.int64)
        g_size = size[new].astype(np.int64)
        # type runs within each group: their counts
        c_sorted, gid_sorted = code[canon], gid[canon]
        run_new = np.ones(n, dtype=bool)
        run_new[1:] = (gid_sorted[1:] != gid_sorted[:-1]) | (c_sorted[1:] != c_sorted[:-1])
        run_start = np.flatnonzero(run_new)
        run_len = np.diff(np.r_[run_start, n])
        run_gid = gid_sorted[run_start]
        log_count = _log_factorial(g_size) - _log_factorial(g_size - g_hits)
        log_count -= np.bincount(run_gid, weights=_log_factorial(run_len), minlength=n_groups)
        log_count = np.maximum(log_count, 0.0)
    shape = np.full(n_groups, -1, dtype=np.int64)
    tables: list = []
    listable = (log_count > 1e-9) & (log_count <= np.log(exact_limit) + 1e-9)
    if listable.any() and single:  # shapes (n, 1): one per group size
        distinct, inverse = np.unique(g_size[listable], return_inverse=True)
        shape[listable] = inverse.reshape(-1)
        tables = [_arrangement_table(int(size_), (1,)) for size_ in distinct]
    elif listable.any():
        runs_of = np.bincount(run_gid, minlength=n_groups)
        width = int(runs_of[listable].max())
        rank_in_group = np.arange(len(run_start)) - np.repeat(np.cumsum(runs_of) - runs_of, runs_of)
        mat = np.zeros((n_groups, width + 1), dtype=np.int64)
        mat[:, 0] = g_size
        keep = listable[run_gid]
        mat[run_gid[keep], 1 + rank_in_group[keep]] = run_len[keep]
        shapes, inverse = _row_codes(mat[listable])
        shape[listable] = inverse
        for (
            row
        ) in shapes:  # per arrangement, the slots in increasing order and which hit takes each
            tables.append(_arrangement_table(int(row[0]), tuple(int(c) for c in row[1:] if c > 0)))
    sizes = np.array([t[0].size for t in tables], dtype=np.int64)
    units = TieUnits(  # hit indices back in the whole hit array
        seg=hit_seg[new].astype(np.int64),
        start=start[new].astype(np.int64),
        size=g_size,
        n_hits=g_hits,
        first=sub[g_first].astype(np.int64),
        offset=g_first.astype(np.int64),
        log_count=log_count,
        shape=shape,
        canon=sub[canon],
        tables=tables,
        flat_slots=np.concatenate([t[0].ravel() for t in tables])
        if tables
        else np.zeros(0, np.int64),
        flat_hits=np.concatenate([t[1].ravel() for t in tables])
        if tables
        else np.zeros(0, np.int64),
        table_offset=np.cumsum(sizes) - sizes,
    )
    segments.cache[key] = units
    return units


# --------------------------------------------------------------------------- random orderings


def segment_keys(segments: Segments) -> np.ndarray:
    """A uint64 key per segment from its (system, query) names: random orderings depend on
    the list itself, not on which other lists are evaluated."""
    from pdireval.core.hashing import hash_strings, mix

    systems = hash_strings(np.asarray(segments.systems.astype(str)))
    queries = hash_strings(np.asarray(segments.judgments.queries.astype(str)))
    return mix(systems[segments.seg_system], queries[segments.seg_query].view(np.int64))


def random_slots(
    seg_key: np.ndarray, start: np.ndarray, size: np.ndarray, n_hits: np.ndarray, sample: np.ndarray
):
    """For each (group, sample) pair: the slot offsets of the group's h hits in a uniformly
    random ordering of its n slots (concatenated, h per pair). Slots are sorted by a hash of
    (list, group start, sample, slot); the hits take the first h of them."""
    from pdireval.core.hashing import mix

    n_pairs = len(start)
    slot_owner = np.repeat(np.arange(n_pairs), size)
    slot = np.arange(len(slot_owner)) - np.repeat(np.cumsum(size) - size, size)
    h = mix(seg_key[slot_owner], start[slot_owner])
    h = mix(h, sample[slot_owner])
    h = mix(h, slot)
    bits = max(1, int(n_pairs - 1).bit_length())
    if bits <= 32:  # one sort of (owner, top 64 − bits bits of the hash) packed in a uint64
        packed = (slot_owner.astype(np.uint64) << _U64(64 - bits)) | (
            h.astype(np.uint64) >> _U64(bits)
        )
        order = np.argsort(packed, kind="stable")  # equal truncated hashes: by slot
    else:
        order = np.lexsort((h, slot_owner))
    rank = np.arange(len(order)) - np.repeat(np.cumsum(size) - size, size)
    take = rank < np.repeat(n_hits, size)
    return slot[order][take]


def random_slots_bounded(seg_key, start, size, n_hits, sample, budget: int | None = None):
    """:func:`random_slots` in pieces of at most ``budget`` (default :data:`SLOT_BUDGET`)
    group slots at a time: the same slots, in memory bounded however large the groups (a
    group of 10^4 documents has 10^4 slots per sampled ordering)."""
    budget = SLOT_BUDGET if budget is None else budget
    size = np.asarray(size, dtype=np.int64)
    total = np.cumsum(size)
    if not len(size) or total[-1] <= budget:
        return random_slots(seg_key, start, size, n_hits, sample)
    parts = []
    lo = 0
    while lo < len(size):  # a loop over memory chunks of (group, sample) pairs
        base = total[lo - 1] if lo else 0
        hi = max(int(np.searchsorted(total, base + budget, side="right")), lo + 1)
        parts.append(
            random_slots(seg_key[lo:hi], start[lo:hi], size[lo:hi], n_hits[lo:hi], sample[lo:hi])
        )
        lo = hi
    return np.concatenate(parts)


# --------------------------------------------------------------------------- copies


def _copies(
    segments: Segments,
    seg_hit_start: np.ndarray,
    copy_src: np.ndarray,
    copy_len: np.ndarray,
    ov_copy,
    ov_slot,
    ov_hit,
    ov_pos,
) -> Segments:
    """Segments with one segment per copy: copy c is the first ``copy_len[c]`` hits of segment
    ``copy_src[c]`` (its list length unchanged), whose hit array
    entry ``ov_slot`` (an index into the original hits) holds hit ``ov_hit`` at position
    ``ov_pos`` instead; no ties left. A group's hits fill the same entries in increasing
    position order, so every copy stays sorted by position without a sort. ``seg_hit_start``:
    each segment's first entry in the hit arrays."""
    per_copy = copy_len
    copy_off = np.cumsum(per_copy) - per_copy
    copy_of = np.repeat(np.arange(len(copy_src), dtype=np.int64), per_copy)
    idx = np.arange(len(copy_of)) + np.repeat(seg_hit_start[copy_src] - copy_off, per_copy)
    pos = segments.hit_pos[idx]
    entry = copy_off[ov_copy] + ov_slot - seg_hit_start[copy_src[ov_copy]]
    idx[entry] = ov_hit
    pos[entry] = ov_pos
    return Segments(
        systems=segments.systems,
        seg_system=segments.seg_system[copy_src],
        seg_query=segments.seg_query[copy_src],
        seg_len=segments.seg_len[copy_src],
        hit_seg=copy_of,
        hit_pos=pos.astype(np.int64, copy=False),
        hit_label=segments.hit_label[idx],
        judgments=segments.judgments,
        hit_qrow=None if segments.hit_qrow is None else segments.hit_qrow[idx],
    )


@dataclass
class _Block:
    """Copies of lists to evaluate: per copy its source segment, its length (hits kept), the
    accumulator slot its weighted value goes to and its weight; ``pairs(lo, hi)`` gives the
    overrides (copy, entry, hit, position) of the block's copies lo..hi−1 (None: no change,
    the list as it is)."""

    src: np.ndarray
    length: np.ndarray
    unit: np.ndarray
    weight: np.ndarray
    pairs: object = None


def _evaluate(
    kernel, m, segments: Segments, seg_hit_start, blocks: list, n_units: int, chunk_hits: int
) -> np.ndarray:
    """Σ_copies weight·M(copy) per accumulator slot over every block's copies, evaluated
    together in chunks of about ``chunk_hits`` hits (one kernel call for all blocks when they
    fit). Each slot sums its copies in copy order, whatever the chunks."""
    blocks = [b for b in blocks if len(b.src)]
    if not blocks:
        return np.zeros(n_units)
    src = np.concatenate([b.src for b in blocks])
    length = np.concatenate([b.length for b in blocks])
    sizes = np.array([len(b.src) for b in blocks])
    starts = np.cumsum(sizes) - sizes
    cost = np.cumsum(length)
    values = np.empty(len(src))
    lo = 0
    while lo < len(src):
        base = cost[lo - 1] if lo else 0
        hi = max(int(np.searchsorted(cost, base + chunk_hits, side="right")), lo + 1)
        parts = []
        for block, b0 in zip(blocks, starts):
            a, z = max(lo, b0), min(hi, b0 + len(block.src))
            if a < z and block.pairs is not None:
                ov_copy, ov_slot, ov_hit, ov_pos = block.pairs(a - b0, z - b0)
                parts.append((ov_copy + (b0 - lo), ov_slot, ov_hit, ov_pos))
        if parts:
            ov_copy, ov_slot, ov_hit, ov_pos = (np.concatenate(x) for x in zip(*parts))
        else:
            ov_copy = ov_slot = ov_hit = ov_pos = np.zeros(0, dtype=np.int64)
        part = _copies(
            segments, seg_hit_start, src[lo:hi], length[lo:hi], ov_copy, ov_slot, ov_hit, ov_pos
        )
        values[lo:hi] = np.asarray(kernel(part, m), dtype=np.float64)
        lo = hi
    weight = np.concatenate([b.weight for b in blocks])
    unit = np.concatenate([b.unit for b in blocks])
    return np.bincount(unit, weights=values * weight, minlength=n_units)


def _group_pairs(
    units: TieUnits, seg_key, g: np.ndarray, arrangement: np.ndarray, random: np.ndarray
):
    """Overrides for (group, arrangement) pairs: listed groups take table row ``arrangement``,
    the others random ordering number ``arrangement``. Returns, per overridden hit entry,
    (pair, entry, hit, position), a pair's entries in increasing position order."""
    h = units.n_hits[g]
    pair = np.repeat(np.arange(len(g)), h)
    k = np.arange(len(pair)) - np.repeat(np.cumsum(h) - h, h)  # rank within the group's block
    first = units.first[g][pair]
    offset = np.empty(len(pair), dtype=np.int64)
    which = np.empty(len(pair), dtype=np.int64)  # index into the group's part of canon
    listed = ~random[pair]
    at = np.flatnonzero(listed)
    if len(at):  # entry k of arrangement a of the group's table, in the flat tables
        pl = pair[at]
        flat = units.table_offset[units.shape[g[pl]]] + arrangement[pl] * h[pl] + k[at]
        offset[at] = units.flat_slots[flat]
        which[at] = units.flat_hits[flat]
    idx_r = np.flatnonzero(random)
    if len(idx_r):
        gr = g[idx_r]
        slots_r = random_slots_bounded(
            seg_key[units.seg[gr]],
            units.start[gr],
            units.size[gr],
            units.n_hits[gr],
            arrangement[idx_r],
        )
        hr = units.n_hits[gr]
        owner = np.repeat(np.arange(len(gr)), hr)
        j = np.arange(len(owner)) - np.repeat(np.cumsum(hr) - hr, hr)
        order = np.lexsort((slots_r, owner))  # within each pair, slots increasing
        sel = np.flatnonzero(~listed)  # the random pairs' entries, in pair then k order
        offset[sel] = slots_r[order]
        which[sel] = j[order]
    hit = units.canon[units.offset[g][pair] + which]
    return pair, first + k, hit, offset + units.start[g][pair]


def _list_block(
    units: TieUnits, groups: np.ndarray, seg_hit_n, seg_key, count_of, arrangement_of
) -> _Block:
    """Copies of whole lists whose mean is the list's value: ``groups`` (varying groups,
    sorted by list) define the lists; list u gets ``count_of(segs, first_g, n_var)[u]``
    copies, and in copy c its group number i (``gi`` = index into ``groups``) takes
    ``arrangement_of(c, gi, u) -> (arrangement, random)``. Accumulates into the list's
    segment."""
    seg_of = units.seg[groups]
    segs, first_g, n_var = _runs(seg_of)
    count = count_of(segs, first_g, n_var)
    copy_unit = np.repeat(np.arange(len(segs)), count)
    copy_idx = np.arange(len(copy_unit)) - np.repeat(np.cumsum(count) - count, count)
    copy_src = segs[copy_unit]

    def pairs(lo, hi):
        cu = copy_unit[lo:hi]
        n_g = n_var[cu]
        copy_of_pair = np.repeat(np.arange(hi - lo), n_g)
        gi = np.repeat(first_g[cu], n_g) + (
            np.arange(len(copy_of_pair)) - np.repeat(np.cumsum(n_g) - n_g, n_g)
        )
        arrangement, random = arrangement_of(copy_idx[lo:hi][copy_of_pair], gi, cu[copy_of_pair])
        pair, slot, hit, pos = _group_pairs(units, seg_key, groups[gi], arrangement, random)
        return copy_of_pair[pair] + lo, slot, hit, pos

    return _Block(copy_src, seg_hit_n[copy_src], copy_src, 1.0 / count[copy_unit], pairs)


def _identity_block(segs: np.ndarray, seg_hit_n) -> _Block:
    """The lists ``segs`` as they are (the default order), weight 1, into their segment."""
    return _Block(segs, seg_hit_n[segs], segs, np.ones(len(segs)))


def _runs(sorted_values: np.ndarray):
    """np.unique(sorted_values, return_index=True, return_counts=True) for sorted values."""
    if len(sorted_values) == 0:
        return sorted_values, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    first = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    return sorted_values[first], first, np.diff(np.r_[first, len(sorted_values)])


def _running(values: np.ndarray, first_g: np.ndarray, n_var: np.ndarray, step) -> np.ndarray:
    """Per list, the running ``step`` (e.g. a product, an lcm) of ``values`` over its groups,
    one vectorised step per group rank (a list's groups are consecutive); returns the value
    after each group."""
    out = values.copy()
    for i in range(1, int(n_var.max()) if len(n_var) else 1):  # loop over group rank, not lists
        at = first_g[n_var > i] + i
        out[at] = step(out[at - 1], values[at])
    return out


def expected_by_orderings(
    kernel,
    segments: Segments,
    m,
    *,
    joint: bool,
    by="label",
    truncate: bool = False,
    depth: int | None = None,
    exact_limit: int = EXACT_LIMIT,
    samples: int = SAMPLES,
    chunk_hits: int = CHUNK_HITS,
    designs: bool = True,
) -> np.ndarray:
    """E[M] per segment over the orderings of its tie groups (see the module docstring).

    ``kernel(segments, m)`` is the measure's ordinary kernel; ``joint`` selects the joint
    method (any measure) instead of the groupwise one (separable measures only); ``by``
    which documents are alike (see :func:`tie_units`). ``truncate`` (groupwise only; for
    measures whose normalisers do not depend on the hits below a group): a group's copies
    stop after its last hit, and the change is measured against the default order of the
    same truncated list. ``depth``: the measure reads only the top ``depth`` positions (a
    cut-off), so groups starting below it are left as they are. A unit (a group, or a list
    for the joint orderings) with at most ``exact_limit`` distinct arrangements is enumerated,
    a larger one is the mean of ``samples`` seeded random orderings; the kernel is called on
    about ``chunk_hits`` judged documents at a time; ``designs=False`` evaluates each group
    alone instead of in whole-list cyclic designs (the same values: tests).
    """
    units = tie_units(segments, by, depth, exact_limit=exact_limit)
    varying = np.flatnonzero(units.log_count > 1e-9)
    if len(varying) == 0:
        return np.asarray(kernel(segments, m), dtype=np.float64)
    n_seg = segments.n_segments
    seg_hit_n = np.bincount(segments.hit_seg, minlength=n_seg)
    seg_hit_start = np.cumsum(seg_hit_n) - seg_hit_n
    listed = units.shape >= 0
    period = np.where(listed, np.rint(np.exp(np.minimum(units.log_count, 30.0))), samples).astype(
        np.int64
    )
    seg_of = units.seg[varying]
    segs, first_g, n_var = _runs(seg_of)
    unit_of = np.repeat(np.arange(len(segs)), n_var)
    # every list evaluates once as it is (its default value) unless its copies replace it
    as_is = np.ones(n_seg, dtype=bool)
    if joint:
        # every combination of the groups' arrangements (mixed radix), or samples random orderings
        log_total = np.bincount(unit_of, weights=units.log_count[varying], minlength=len(segs))
        sampled = (
            np.bincount(unit_of, weights=(~listed[varying]).astype(float), minlength=len(segs)) > 0
        )
        exact = (log_total <= np.log(exact_limit) + 1e-9) & ~sampled
        seg_key = segment_keys(segments) if not exact.all() else None
        per = period[varying]
        capped = np.minimum(per, exact_limit + 1)
        cum = _running(capped, first_g, n_var, lambda a, b: np.minimum(a * b, exact_limit + 1))
        stride = np.where(np.r_[True, unit_of[1:] != unit_of[:-1]], 1, np.r_[1, cum[:-1]])

        def count_of(segs_, first_, n_):
            # exp only where the count is small (a sampled list's log count can exceed 709)
            return np.where(
                exact, np.rint(np.exp(np.where(exact, log_total, 0.0))), samples
            ).astype(np.int64)

        def arrangement_of(c, gi, u):
            random = ~exact[u]
            return np.where(random, c, (c // stride[gi]) % per[gi]), random

        as_is[segs] = False
        block = _list_block(units, varying, seg_hit_n, seg_key, count_of, arrangement_of)
        blocks = [block, _identity_block(np.flatnonzero(as_is), seg_hit_n)]
        return _evaluate(kernel, m, segments, seg_hit_start, blocks, n_seg, chunk_hits)
    # groupwise. A list whose groups' periods have a small least common multiple K is
    # evaluated on K copies where group g takes arrangement c mod A_g in copy c: every group
    # sees each of its arrangements equally often, so for a separable measure the mean over
    # the K copies is E[M]. Other lists: each group alone, on copies of the list.
    seg_key = segment_keys(segments) if not listed[varying].all() else None
    per = period[varying]
    lcm = _running(
        np.minimum(per, exact_limit + 1),
        first_g,
        n_var,
        lambda a, b: np.minimum(np.lcm(a, b), exact_limit + 1),
    )
    K = lcm[first_g + n_var - 1]
    if truncate:
        prefix = units.first[varying] + units.n_hits[varying] - seg_hit_start[seg_of]
        cost_alone = np.bincount(unit_of, weights=(per + 1.0) * prefix, minlength=len(segs))
    else:
        cost_alone = np.bincount(
            unit_of, weights=per * seg_hit_n[seg_of].astype(float), minlength=len(segs)
        )
    design = (K <= max(exact_limit, samples)) & (K * seg_hit_n[segs] <= cost_alone) & designs
    in_design = design[unit_of]
    blocks = []
    if in_design.any():
        groups = varying[in_design]
        per_d = per[in_design]

        def count_of(segs_, first_, n_):
            return K[design]

        def arrangement_of(c, gi, u):
            return c % per_d[gi], ~listed[groups[gi]]

        as_is[segs[design]] = False
        blocks.append(_list_block(units, groups, seg_hit_n, seg_key, count_of, arrangement_of))
    g = varying[~in_design]
    if len(g):
        count = period[g]
        extra = 1 if truncate else 0  # the default order of the truncated list, weight −1
        copy_unit = np.repeat(np.arange(len(g)), count + extra)
        copy_arr = (
            np.arange(len(copy_unit))
            - np.repeat(np.cumsum(count + extra) - count - extra, count + extra)
            - extra
        )
        copy_src = units.seg[g][copy_unit]
        copy_weight = np.where(copy_arr < 0, -1.0, 1.0 / count[copy_unit])
        if truncate:
            copy_len = (units.first[g] + units.n_hits[g] - seg_hit_start[units.seg[g]])[copy_unit]
        else:
            copy_len = seg_hit_n[copy_src]

        def pairs(lo, hi):
            moved = np.flatnonzero(copy_arr[lo:hi] >= 0)
            cu = copy_unit[lo:hi][moved]
            pair, slot, hit, pos = _group_pairs(
                units, seg_key, g[cu], copy_arr[lo:hi][moved], ~listed[g[cu]]
            )
            return moved[pair] + lo, slot, hit, pos

        # each group's change accumulates in its own slot, after the segments'
        blocks.append(_Block(copy_src, copy_len, n_seg + copy_unit, copy_weight, pairs))
    blocks.append(_identity_block(np.flatnonzero(as_is), seg_hit_n))
    total = _evaluate(kernel, m, segments, seg_hit_start, blocks, n_seg + len(g), chunk_hits)
    out, change = total[:n_seg], total[n_seg:]
    if len(g) == 0:
        return out
    if not truncate:
        change = change - out[units.seg[g]]
    return out + np.bincount(units.seg[g], weights=change, minlength=n_seg)
