"""trec_eval's gain tables (``setup_gains()`` of m_ndcg.c in 9.0.8, gain_init.c in 10.0),
for every query at once: the measures ``ndcg``, ``dcg``, ``ideal_dcg``, ``ndcg_rel``,
``Rndcg``, ``G`` and ``rbp`` of :mod:`pdireval.trec.trec_kernels` read them.

A query's table holds the ``level=gain`` pairs given with ``-m`` and the labels 0 .. largest
label of the query (gain = label), sorted by glibc's ``qsort`` with trec_eval's comparator
``(int) (gain1 - gain2)``, which calls gains closer than 1 to each other equal: with such
gains the sorted order is not the order by gain, and :func:`glibc_qsort` reproduces the one
the binaries (built against the GNU C library) get. The ideal ranking walks the table from its
top entry down, passing over entries that hold no document.

Reference: trec_eval 9.0.8 and 10.0 (Buckley, NIST), https://github.com/usnistgov/trec_eval;
glibc's stdlib/msort.c.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = [
    "C_INT_MIN",
    "c_int",
    "comp_rel_gain",
    "glibc_qsort",
    "gain_order",
    "Gains",
    "gains_of",
    "valid_int",
    "atol_text",
]


def valid_int(name: str) -> bool:
    """gain_init.c's valid_int(): an optional sign and decimal digits only."""
    body = name[1:] if name[:1] in "+-" else name
    return bool(body) and body.isdigit() and body.isascii()


def atol_text(text: str) -> int:
    """C's ``atol`` of a parameter name."""
    match = re.match(r"\s*([+-]?\d+)", text)
    return int(match.group(1)) if match else 0


#: C's INT_MIN: what x86-64's double-to-int conversion (cvttsd2si) gives for NaN or a value
#: out of the int range
C_INT_MIN = -(2**31)


def c_int(x: float) -> int:
    """C's ``(int) x`` for a double, as x86-64 compiles it: truncation toward zero, and
    INT_MIN for NaN or a value outside the int range (undefined in C; cvttsd2si's answer)."""
    if not -2147483649.0 < x < 2147483648.0:  # NaN compares False
        return C_INT_MIN
    return int(x)


def comp_rel_gain(a: float, b: float) -> int:
    """trec_eval's comparator of gain levels: ``(int) (gain1 - gain2)`` (m_ndcg.c,
    gain_init.c), which calls gains closer than 1 to each other equal."""
    return c_int(a - b)


def glibc_qsort(items: list, cmp) -> list:
    """``items`` in the order glibc's ``qsort`` leaves them with comparator ``cmp``: its
    merge sort (msort.c: the first n/2 elements and the rest sorted recursively, then merged
    taking the left element while ``cmp(left, right) <= 0``). With a comparator that is not
    a total order (trec_eval's gain comparator) the result depends on the algorithm; this is
    the one of the GNU C library the trec_eval binaries are built with on Linux."""
    n = len(items)
    if n <= 1:
        return list(items)
    left = glibc_qsort(items[: n // 2], cmp)
    right = glibc_qsort(items[n // 2 :], cmp)
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out += left[i:]
    out += right[j:]
    return out


def gain_order(gains: list) -> list:
    """The positions of ``gains`` in setup_gains()'s sorted order: glibc's qsort with
    :func:`comp_rel_gain`. When every two distinct gains differ by at least 1 (and by less
    than 2**31) the comparator is a total order and this is the stable sort by gain."""
    values = np.asarray(gains, dtype=np.float64)
    if len(values) and np.isfinite(values).all():
        distinct = np.unique(values)
        if (np.diff(distinct) >= 1).all() and distinct[-1] - distinct[0] < 2.0**31:
            return np.argsort(values, kind="stable").tolist()
    return glibc_qsort(list(range(len(gains))), lambda a, b: comp_rel_gain(gains[a], gains[b]))


class Gains:
    """setup_gains() of trec_eval for every query: the gain of each relevance level
    (``level=gain`` pairs given with ``-m``, else the level itself), sorted as trec_eval
    sorts them, and, per query, the ideal ranking's gains.

    trec_eval builds a query's gain table from the pairs and the labels 0 ..
    num_rel_levels - 1 of that query, so the table (and, with gains closer than 1 to each
    other, its sorted order) depends on the query's largest label: one table per distinct
    ``num_rel_levels``. ``gains`` / ``counts`` / ``level``: (n_queries, width) in sorted
    order, right-aligned (the last column is the top of every query's table; the columns
    before a shorter table are padding with no document). ``top``: the gain of each
    query's last entry (where trec_eval's walk down the table starts)."""

    def __init__(self, rr, pairs):
        entries = []  # (level, gain) of the pairs, in the order given
        for name, value in pairs:
            if rr.version == "10" and not valid_int(name):
                continue
            entries.append((atol_text(name), float(value)))
        self.pair_entries = list(entries)
        defined = {lvl for lvl, _ in entries}
        tables = {}
        for n_levels in np.unique(rr.num_rel_levels).tolist():
            table = entries + [(lvl, float(lvl)) for lvl in range(n_levels) if lvl not in defined]
            order = gain_order([g for _, g in table])
            first_of_level: dict[int, int] = {}
            for idx, (lvl, _gain) in enumerate(table):
                first_of_level.setdefault(lvl, idx)
            # the column of rr.levels counted at each entry: the first entry (in the order
            # built) of each level 0 .. num_rel_levels - 1 gets the number of documents there
            source = [
                lvl if first_of_level[lvl] == idx and 0 <= lvl < n_levels else -1
                for idx, (lvl, _gain) in enumerate(table)
            ]
            tables[n_levels] = (
                [table[i][0] for i in order],
                [table[i][1] for i in order],
                [source[i] for i in order],
            )
        self.tables = tables
        width = max([len(t[0]) for t in tables.values()] + [1])
        n = rr.n
        self.gains = np.zeros((n, width))
        self.level = np.zeros((n, width), dtype=np.int64)
        self.counts = np.zeros((n, width), dtype=np.int64)
        self.groups = []  # (queries, {level: gain} of get_gain)
        for n_levels, (levels, gains, source) in tables.items():
            rows = np.flatnonzero(rr.num_rel_levels == n_levels)
            k = len(levels)
            if k:
                self.gains[rows, width - k :] = gains
                self.level[rows, width - k :] = levels
                src = np.asarray(source, dtype=np.int64)
                has = src >= 0
                if has.any():
                    cols = np.arange(width - k, width)[has]
                    self.counts[rows[:, None], cols[None, :]] = rr.levels[rows[:, None], src[has]]
            lookup: dict[int, float] = {}  # get_gain: the first entry (sorted) of a level
            for lvl, gain in zip(levels, gains):
                lookup.setdefault(lvl, gain)
            self.groups.append((rows, lookup))
        self.top = self.gains[:, -1].copy()

    def of(self, rel: np.ndarray, valid: np.ndarray) -> np.ndarray:
        """get_gain() of every retrieved document (0 where invalid)."""
        out = np.zeros(rel.shape, dtype=np.float64)
        for rows, lookup in self.groups:
            sub_rel, sub_valid = rel[rows], valid[rows]
            sub = np.zeros(sub_rel.shape, dtype=np.float64)
            for lvl, gain in lookup.items():
                if gain != 0.0:
                    sub[(sub_rel == lvl) & sub_valid] = gain
            out[rows] = sub
        return out

    def ideal(self) -> np.ndarray:
        """Ideal gains per query (rows; 0 after the last positive one), as trec_eval walks
        the sorted table from its top entry down: nothing when the top entry's gain is not
        positive; else each entry holding documents, repeated by their number, until the
        first entry holding documents whose gain is not positive (entries without documents
        are passed over whatever their gain)."""
        gains = self.gains[:, ::-1]  # top down
        counts = self.counts[:, ::-1]
        stop = (counts > 0) & ~(gains > 0)
        blocked = np.cumsum(stop, axis=1) > 0
        take = (counts > 0) & ~blocked & (self.top > 0)[:, None]
        counts = np.where(take, counts, 0)
        length = counts.sum(axis=1)
        width = max(int(length.max(initial=0)), 1)
        out = np.zeros((counts.shape[0], width + 1))
        rows = np.repeat(np.arange(counts.shape[0]), length)
        flat_gains = np.repeat(gains.ravel(), counts.ravel())
        starts = np.cumsum(length) - length
        cols = np.arange(len(rows)) - np.repeat(starts, length)
        out[rows, cols] = flat_gains
        return out


def gains_of(rr, pairs) -> Gains:
    """The :class:`Gains` of ``-m`` pairs ``pairs``, cached on ``rr``."""
    key = ("gains", tuple(pairs))
    if key not in rr.cache:
        rr.cache[key] = Gains(rr, pairs)
    return rr.cache[key]
