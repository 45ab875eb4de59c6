"""Joint RIC and information difference (Golbus & Aslam 2013, Sections 6–7).

Both are mutual informations between the qrels variable Q and the *joint* outcome of several
systems' ranked-list variables on the same sample space as RIC: the ordered pairs of judged
documents of a query with different labels, each list condensed to
judged documents and truncated after its last relevant one.

Counting scheme (no enumeration of the pairs that need none)
------------------------------------------------------------
For an unordered different-label pair {x higher, y lower} let t be the tuple of the
systems' outcomes on the ordered pair (x, y), t_s ∈ {+1, 0, −1}; the reversed pair (y, x)
has −t and the other Q. With N(t) the number of unordered pairs with tuple t and N the
number of different-label pairs, the plug-in estimate is

    I(R_1..R_n; Q) = Σ_t (N(t) + N(−t)) / (2N) · (1 − H2(N(t) / (N(t) + N(−t)))),

summed over the observed tuples (the all-zero tuple contributes 0). N(t) is counted in
three parts per query, with U the union of the systems' truncated lists:

1. both documents outside U: the all-zero tuple — counted, not enumerated;
2. one document x in U, the other outside U: t_s = ±1 for the systems retrieving x and 0
   for the others, so such pairs are grouped by x's retrieval signature and counted with
   per-label counts of the documents outside U;
3. both documents in U: enumerated per chunk of queries (at most ``PAIR_CELLS`` pair ×
   system cells, bounded memory), as x × {documents of U with a lower label} — never
   same-label pairs. For joint RIC each pair's outcome tuple is coded in base 3 and the
   codes counted; for the information difference of every pair of systems each system's
   outcomes are packed one bit per pair (x above y; y above x), and the 2 × 2 co-occurrence
   counts of two systems are popcounts of the AND of their bit rows, summed per query.

Only part 3 costs per pair: about |relevant in U| × |U| per query. The lists come from the
evaluation's own segments (each judged hit with its position in trec_eval order and its
qrels row), so a report that evaluated the run joins the run and the qrels once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.chunking import CHUNK_CELLS
from pdireval.core.schema import ID_DTYPE
from pdireval.core.segments import natural_order
from pdireval.errors import (
    PdirevalError,
    SchemaError,
    check_bool,
    check_option,
    check_real,
    options_by_name,
)
from pdireval.evaluation import prepare
from pdireval.measures.ric import binary_entropy, truncated_condensed
from pdireval.measures.view import NEGATIVES, read_negatives, within_segment_rank

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pdireval.types import Negatives

__all__ = [
    "joint_ric",
    "information_difference",
    "judged_lists",
    "judged_lists_of",
    "joint_ric_of",
    "information_difference_of",
    "pair_pass",
    "JudgedLists",
]

#: pair x system cells per chunk of queries (bounded memory): 16 x the one chunk budget
PAIR_CELLS = 16 * CHUNK_CELLS
BIG = np.int32(1 << 30)  # rank of a document a list does not hold


class JudgedLists:
    """Each (system, query) list condensed to judged documents and truncated after its last
    relevant one, as flat arrays sorted by system, query, condensed rank.

    Attributes
    ----------
    systems, queries
        Names (sorted systems; judged queries in natural order).
    sys, query, doc, rank
        Per kept row: system index, query index, document index (into the qrels rows of
        ``labels``), 0-based condensed rank.
    labels, doc_query
        Label of every qrels row under the ``negatives`` reading (NaN = unjudged) and its
        query index.
    """

    def __init__(self, systems, queries, sys, query, doc, rank, labels, doc_query):
        self.systems = systems
        self.queries = queries
        self.sys = sys
        self.query = query
        self.doc = doc
        self.rank = rank
        self.labels = labels
        self.doc_query = doc_query
        self.cache: dict = {}  # selected systems -> (union, tuples, pair counts) of one pass

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    def level_counts(self):
        """(levels, per-query judged documents per label level [n_q × K], n_pairs per query)."""
        judged = ~np.isnan(self.labels)
        levels = np.unique(self.labels[judged])
        K = len(levels)
        code = np.searchsorted(levels, self.labels[judged])
        per_level = np.bincount(self.doc_query[judged] * K + code, minlength=self.n_queries * K)
        per_level = per_level.reshape(self.n_queries, K).astype(np.float64)
        total = per_level.sum(axis=1)
        return levels, per_level, (total**2 - (per_level**2).sum(axis=1)) / 2.0


def judged_lists(run, *, qrels=None, rel: float = 1.0, negatives: str = "unjudged") -> JudgedLists:
    """Validate ``run`` / ``qrels`` and build the condensed, truncated lists of every system.

    Order follows trec_eval (score descending, ties by doc id descending; a run with only
    ``rank`` is ordered by rank, ties by doc id ascending), as in :func:`pdireval.evaluate`:
    the lists are read off the evaluation's own segments (:func:`judged_lists_of`).
    """
    check_option("negatives", negatives, NEGATIVES)
    return judged_lists_of(prepare(run, qrels=qrels, missing="drop"), rel=rel, negatives=negatives)


def judged_lists_of(prepared, *, rel: float = 1.0, negatives: str = "unjudged") -> JudgedLists:
    """The condensed, truncated lists of every system, from an evaluation's
    :class:`~pdireval.evaluation.Prepared` run: its segments already hold every judged hit
    in trec_eval order with its qrels row, so nothing is joined or sorted again."""
    check_option("negatives", negatives, NEGATIVES)
    rel = check_real("rel", rel)
    segments = prepared.segments
    judgments = segments.judgments
    if segments.hit_qrow is None:  # pragma: no cover - Segments built by hand
        raise ValueError(
            "these segments do not keep each hit's qrels row; build them with "
            "pdireval.evaluation.prepare"
        )
    labels = read_negatives(judgments.label, negatives)
    qrow = segments.hit_qrow
    keep = ~np.isnan(labels[qrow])
    hit_seg, pos, qrow = segments.hit_seg[keep], segments.hit_pos[keep], qrow[keep]
    sys_code = segments.seg_system[hit_seg]
    q_code = segments.seg_query[hit_seg]
    # hits are sorted by segment then position; segments need not be in (system, query) order
    seg_key = (
        segments.seg_system.astype(np.int64) * max(judgments.n_queries, 1) + segments.seg_query
    )
    if len(seg_key) > 1 and not np.all(seg_key[1:] > seg_key[:-1]):
        order = np.lexsort((pos, q_code, sys_code))
        sys_code, q_code, qrow, pos, hit_seg = (
            sys_code[order],
            q_code[order],
            qrow[order],
            pos[order],
            hit_seg[order],
        )
    lab = labels[qrow]
    seg = _dense(hit_seg)
    kept = truncated_condensed(seg, lab, rel)
    seg, sys_code, q_code, qrow = seg[kept], sys_code[kept], q_code[kept], qrow[kept]
    rank = within_segment_rank(seg)
    return JudgedLists(
        segments.systems,
        judgments.queries,
        sys_code,
        q_code,
        qrow,
        rank,
        labels,
        judgments.row_query,
    )


def _dense(seg: np.ndarray) -> np.ndarray:
    """Renumber a grouped segment array 0, 1, 2, ... in order of appearance."""
    if len(seg) == 0:
        return seg.astype(np.int64)
    return np.r_[0, np.cumsum(seg[1:] != seg[:-1])].astype(np.int64)


# --------------------------------------------------------------------------- the pair engine


class _Union:
    """The union U of the selected systems' truncated lists, per query, with each document's
    condensed rank in every system (BIG = not retrieved), and the pair-count bookkeeping."""

    def __init__(self, lists: JudgedLists, selected: np.ndarray):
        take = np.isin(lists.sys, selected)
        col = np.searchsorted(selected, lists.sys[take])
        doc = lists.doc[take]
        uniq, inverse = np.unique(doc, return_inverse=True)  # qrels rows: grouped by query
        n_sel = len(selected)
        pos = np.full((len(uniq), n_sel), BIG, dtype=np.int32)
        pos[inverse, col] = lists.rank[take]
        levels, per_level, n_pairs = lists.level_counts()
        K = len(levels)
        q = lists.doc_query[uniq]
        code = np.searchsorted(levels, lists.labels[uniq])
        # order U by query, then label descending
        o = np.lexsort((-code, q))
        self.q, self.code, self.pos = q[o], code[o], pos[o]
        self.n_sel, self.K, self.n_q = n_sel, K, lists.n_queries
        self.n_pairs = n_pairs
        in_u = (
            np.bincount(self.q * K + self.code, minlength=self.n_q * K)
            .reshape(self.n_q, K)
            .astype(np.float64)
        )
        outside = per_level - in_u
        # per document of U: documents outside U with a lower / higher label
        below = np.cumsum(outside, axis=1) - outside
        above = outside.sum(axis=1, keepdims=True) - np.cumsum(outside, axis=1)
        self.w_below = below[self.q, self.code]
        self.w_above = above[self.q, self.code]
        # partners of document k: U-documents of the same query with a lower label
        n = len(self.q)
        idx = np.arange(n)
        group_change = (
            np.r_[True, (self.q[1:] != self.q[:-1]) | (self.code[1:] != self.code[:-1]), True]
            if n
            else np.array([True])
        )
        group_end = np.flatnonzero(group_change[1:]) + 1 if n else np.zeros(0, dtype=np.int64)
        grp = np.cumsum(group_change[:-1]) - 1 if n else np.zeros(0, dtype=np.int64)
        q_change = np.r_[True, self.q[1:] != self.q[:-1], True] if n else np.array([True])
        q_end = np.flatnonzero(q_change[1:]) + 1 if n else np.zeros(0, dtype=np.int64)
        qgrp = np.cumsum(q_change[:-1]) - 1 if n else np.zeros(0, dtype=np.int64)
        self.lower_start = group_end[grp] if n else idx
        self.partner_end = q_end[qgrp] if n else idx
        self.n_partners = (self.partner_end - self.lower_start).astype(np.int64)

    def query_chunks(self):
        """Yield ``(queries, counts, x, y)`` for the enumerated pairs (x higher-labelled, both
        in U) of consecutive queries: the chunk's query indices, its pairs per query, and the
        pairs' U indices grouped by query. A chunk holds at most ``PAIR_CELLS`` pair × system
        cells (a single query larger than that is its own chunk)."""
        per_q = np.bincount(self.q, weights=self.n_partners, minlength=self.n_q).astype(np.int64)
        starts = np.searchsorted(self.q, np.arange(self.n_q), side="left")
        stops = np.searchsorted(self.q, np.arange(self.n_q), side="right")
        cells = np.cumsum(per_q) * max(self.n_sel, 1)
        lo = 0
        while lo < self.n_q:
            base = cells[lo - 1] if lo else 0
            hi = max(lo + 1, int(np.searchsorted(cells, base + PAIR_CELLS, side="right")))
            a, b = starts[lo], stops[hi - 1]
            counts = self.n_partners[a:b]
            if counts.sum():
                x = np.repeat(np.arange(a, b), counts)
                y = np.repeat(
                    self.lower_start[a:b] - (np.cumsum(counts) - counts), counts
                ) + np.arange(len(x))
                yield np.arange(lo, hi), per_q[lo:hi], x, y
            lo = hi

    def positions(self) -> np.ndarray:
        """Condensed ranks as a systems × U array (one contiguous row per system)."""
        return np.ascontiguousarray(self.pos.T)


_POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _popcount(words: np.ndarray) -> np.ndarray:
    """Set bits of every uint64 word (numpy >= 2 has it built in)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    return _POPCOUNT8[words.view(np.uint8).reshape(*words.shape, 8)].sum(
        axis=-1, dtype=np.uint8
    )  # pragma: no cover


def _ric_terms(a, b, n):
    """(a + b)/(2n)·(1 − H2(a/(a + b))) elementwise; 0 where a + b = 0."""
    s = a + b
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(s > 0, a / np.where(s > 0, s, 1.0), 0.5)
        out = np.where(s > 0, s / (2.0 * n) * (1.0 - binary_entropy(share)), 0.0)
    return out


def _check_joint_size(u: _Union) -> None:
    n_sel = u.n_sel
    if n_sel > 30 or u.n_q * 3.0**n_sel >= 2.0**62:
        raise PdirevalError(
            f"joint RIC of {n_sel} systems at once is not supported: its outcome tuples "
            "(3^n values) are coded in 64 bits, so at most 30 systems (fewer with very many "
            "queries). The plug-in estimate of a 3^n-valued variable on a finite pair sample "
            "is biased upwards long before that (Golbus & Aslam 2013): use smaller groups."
        )


def _enumerated(u: _Union, *, codes: bool, bits: bool):
    """One pass over the enumerated pairs (both documents in U), comparing each system's
    positions once per pair.

    Returns ``(tuples, pairs)``: ``tuples`` = (query, code, count) arrays of the observed
    outcome tuples coded in base 3 (digit t_s + 1), plus the pairs enumerated per query
    (None unless ``codes``); ``pairs`` = the PP, PM, MM co-occurrence counts [n_q × S × S]
    over the enumerated pairs (None unless ``bits``)."""
    S, n_q = u.n_sel, u.n_q
    powers = 3 ** np.arange(S, dtype=np.int64)
    full = int(3**S - 1) if codes else 0
    q_parts, c_parts, w_parts = [], [], []
    enumerated = np.zeros(n_q)
    shape = (n_q, S, S) if bits else (0, 0, 0)  # empty (and unused) without bits
    PP, PM, MM = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    pos = u.positions()
    for queries, counts, x, y in u.query_chunks():
        real = None
        if bits:
            # each query's pairs padded to whole 64-bit words with (0, 0) pairs (no outcome)
            padded = (counts + 63) // 64 * 64
            first = np.cumsum(padded) - padded
            if padded.sum() != len(x):
                real = np.arange(len(x)) + np.repeat(first - (np.cumsum(counts) - counts), counts)
                xp = np.zeros(int(padded.sum()), dtype=np.int64)
                yp = np.zeros(int(padded.sum()), dtype=np.int64)
                xp[real], yp[real] = x, y
                x, y = xp, yp
            P = np.empty((S, len(x) // 64), dtype=np.uint64)
            M = np.empty((S, len(x) // 64), dtype=np.uint64)
        code = np.zeros(len(x) if codes else 0, dtype=np.int64)
        for s in range(S):  # loop over systems, vectorised over the pairs
            d = pos[s].take(y)
            d -= pos[s].take(x)  # > 0: x ranked above y (t_s = +1)
            if bits:
                P[s] = np.packbits(d > 0, bitorder="little").view(np.uint64)
                M[s] = np.packbits(d < 0, bitorder="little").view(np.uint64)
            if codes:
                np.sign(d, out=d)
                d += 1
                code += d * powers[s]
        if codes:
            if real is not None:
                code = code[real]
            key = np.repeat(queries, counts) * (full + 1) + code
            uk, cnt = np.unique(key, return_counts=True)
            q_parts.append(uk // (full + 1))
            c_parts.append(uk % (full + 1))
            w_parts.append(cnt.astype(np.float64))
            enumerated[queries] += counts
        if bits:
            word_start = first[counts > 0] // 64
            q_of = queries[counts > 0]
            for s in range(S):  # co-occurrences with every other system: AND + popcount per query
                for target, mine, other in ((PP, P, P), (MM, M, M), (PM, P, M)):
                    per_word = _popcount(mine[s] & other)
                    target[q_of, s, :] += np.add.reduceat(
                        per_word, word_start, axis=1, dtype=np.int64
                    ).T
    tuples = (q_parts, c_parts, w_parts, enumerated) if codes else None
    return tuples, ((PP, PM, MM) if bits else None)


def _joint_from(u: _Union, tuples) -> np.ndarray:
    """Per query joint RIC from the enumerated tuples plus the pairs counted by signature."""
    q_parts, c_parts, w_parts, enumerated = (
        list(t) if isinstance(t, list) else t for t in tuples
    )  # copies: cached
    powers = 3 ** np.arange(u.n_sel, dtype=np.int64)
    full = int(3**u.n_sel - 1)
    retrieved = (u.pos < BIG).astype(np.int64)
    plus = (1 + retrieved) @ powers  # x in U above a lower-labelled document outside U
    minus = (1 - retrieved) @ powers  # x in U above a higher-labelled document outside U
    q_parts += [u.q, u.q]
    c_parts += [plus, minus]
    w_parts += [u.w_below, u.w_above]
    signature = np.bincount(u.q, weights=u.w_below + u.w_above, minlength=u.n_q)
    zero = u.n_pairs - enumerated - signature
    q_parts.append(np.arange(u.n_q))
    c_parts.append(np.full(u.n_q, full // 2, dtype=np.int64))  # the all-zero tuple
    w_parts.append(zero)
    qq = np.concatenate(q_parts).astype(np.int64)
    cc = np.concatenate(c_parts).astype(np.int64)
    ww = np.concatenate(w_parts)
    key = qq * (full + 1) + cc
    uk, inv = np.unique(key, return_inverse=True)
    w = np.bincount(inv.reshape(-1), weights=ww, minlength=len(uk))
    uq, uc = uk // (full + 1), uk % (full + 1)
    neg_key = uq * (full + 1) + (full - uc)
    at = np.searchsorted(uk, neg_key)
    at_c = np.minimum(at, len(uk) - 1)
    found = uk[at_c] == neg_key
    w_neg = np.where(found, w[at_c], 0.0)
    n = u.n_pairs[uq]
    # each orbit {t, −t} is visited from both ends when both are observed, else once
    terms = _ric_terms(w, w_neg, np.where(n > 0, n, 1.0)) * np.where(found, 1.0, 2.0)
    out = np.bincount(uq, weights=terms, minlength=u.n_q)
    return np.where(u.n_pairs > 0, out, np.nan)


def pair_pass(lists: JudgedLists, selected: np.ndarray, *, codes: bool, bits: bool):
    """``(union, tuples, pairs)`` of the selected systems, from one pass over the enumerated
    pairs, kept in ``lists.cache``: a caller that needs both the joint RIC and the
    information differences of the same systems (the report) asks for both at once and the
    pairs are enumerated and compared once."""
    key = tuple(int(i) for i in selected)
    u, tuples, pairs = lists.cache.get(key, (None, None, None))
    need_codes, need_bits = codes and tuples is None, bits and pairs is None
    if need_codes or need_bits:
        u = u if u is not None else _Union(lists, np.asarray(selected))
        if need_codes:
            _check_joint_size(u)
        new_tuples, new_pairs = _enumerated(u, codes=need_codes, bits=need_bits)
        tuples = new_tuples if need_codes else tuples
        pairs = new_pairs if need_bits else pairs
        lists.cache[key] = (u, tuples, pairs)
    return u, tuples, pairs


def _joint_ric_values(lists: JudgedLists, selected: np.ndarray) -> np.ndarray:
    """Per query joint RIC of the selected systems (array over lists.queries)."""
    u, tuples, _ = pair_pass(lists, selected, codes=True, bits=False)
    return _joint_from(u, tuples)


def _select(lists: JudgedLists, systems) -> list[np.ndarray]:
    """systems: None (all), a list of names (one group) or a list of lists (several)."""
    names = lists.systems
    if systems is None:
        groups = [list(names)]
    elif isinstance(systems, str):
        groups = [[systems]]
    elif isinstance(systems, Sequence) or isinstance(systems, (pd.Index, np.ndarray)):
        items = list(systems)
        if items and all(isinstance(s, str) for s in items):
            groups = [items]
        elif items and all(
            not isinstance(s, str) and isinstance(s, (Sequence, pd.Index, np.ndarray))
            for s in items
        ):
            groups = [list(g) for g in items]
        else:
            raise TypeError(
                "systems= must be None, a list of system names, or a list of such lists"
            )
    else:
        raise TypeError("systems= must be None, a list of system names, or a list of such lists")
    out = []
    for g in groups:
        if not g:
            raise SchemaError(
                "systems= holds an empty group: every group needs at least one system."
            )
        idx = names.get_indexer([str(s) for s in g])
        if (idx < 0).any():
            unknown = [s for s, i in zip(g, idx) if i < 0]
            raise SchemaError(
                f"systems= names {len(unknown)} system(s) the run does not have (first: "
                f"{unknown[0]!r}); the run's systems are {list(names[:10])}"
                f"{' ...' if len(names) > 10 else ''}. Fix the names."
            )
        if len(set(idx)) != len(idx):
            raise SchemaError(
                f"systems= repeats a system in the group {list(g)!r}: list each system once."
            )
        out.append(np.sort(idx))
    return out


def _with_mean_rows(
    frame: pd.DataFrame, keys: list[str], values: list[str], count: str | None
) -> pd.DataFrame:
    """Append, per key group, a row with query 'all' holding the mean over queries (NaN skipped)."""
    agg = frame.groupby(keys, sort=False, observed=True)[values].mean()
    mean = agg.reset_index()
    if count is not None:
        mean[count] = frame.groupby(keys, sort=False, observed=True)[count].sum().to_numpy()
    mean["query"] = "all"
    out = pd.concat([frame, mean[frame.columns]], ignore_index=True)
    group_id = out.groupby(keys, sort=False, observed=True).ngroup()
    is_all = (out["query"] == "all").to_numpy()
    o = np.lexsort((is_all, group_id.to_numpy()))
    out = out.iloc[o].reset_index(drop=True)
    out["query"] = out["query"].astype(ID_DTYPE)
    return out


@options_by_name
def joint_ric(
    run: pd.DataFrame,
    *,
    qrels: pd.DataFrame | None = None,
    systems: Sequence[str] | Sequence[Sequence[str]] | None = None,
    rel: float = 1.0,
    negatives: Negatives = "unjudged",
) -> pd.DataFrame:
    """Joint relevance information correlation of a set of systems, per query and mean.

    RIC(S_1..S_n) = I((R_S1, …, R_Sn); Q) in bits (Golbus & Aslam 2013, eq. 19): the
    mutual information between the qrels variable and the *tuple* of the systems' ranked-list
    variables, each list condensed and truncated on its own, on RIC's sample space (ordered
    different-label pairs of judged documents). It is ≥ every single system's RIC and ≤ 1;
    Golbus & Aslam (2013) use it as an upper bound on metasearch. With many systems the plug-in
    estimate of a 3^n-valued variable is biased upwards (Golbus & Aslam 2013, Section 5, note that
    the MLE needs many observations); ``n_pairs`` reports the sample size.

    Computed without enumerating the pairs that need none (module docstring): pairs with at
    most one document in the union of the truncated lists are counted by retrieval
    signature; pairs inside the union are enumerated in bounded chunks.

    Parameters
    ----------
    run
        Run frame (``system, query, doc`` and ``score`` and/or ``rank``).
    qrels
        Judgments (``query, doc, label``); default: the run's ``label`` column.
    systems
        ``None`` (all systems of the run, jointly), a list of system names (one group), or a
        list of such lists (one result per group, e.g. random groups of 10).
    rel
        Minimum label counted as relevant, for the truncation (as in ``RIC(rel=...)``).
    negatives
        Reading of negative labels, as in ``RIC(negatives=...)``.

    Returns
    -------
    DataFrame
        ``systems`` (str: the group's system names, sorted, joined by ``","``), ``query``
        (str; per judged query in natural order, then ``"all"``: the mean over queries, NaN
        skipped, trec_eval's convention), ``joint_ric`` (float64 bits; NaN for a query
        without a different-label pair) and ``n_pairs`` (float64: ordered pairs in the
        sample, 2 × the different-label unordered pairs; summed on the ``"all"`` row).
        Groups in the order given.

    Raises
    ------
    SchemaError
        Unknown or repeated system names, or a malformed run / qrels.
    PdirevalError
        More than 30 systems in one group.

    References
    ----------
    Golbus, P. B., & Aslam, J. A. (2013). A Mutual Information-based Framework for the Analysis of
    Information Retrieval Systems. SIGIR 2013.

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=3, depth=20, rng=1)
    >>> table = pdireval.joint_ric(run, qrels=qrels)
    >>> list(table.columns), table["query"].iloc[-1]
    (['systems', 'query', 'joint_ric', 'n_pairs'], 'all')
    """
    return joint_ric_of(
        judged_lists(run, qrels=qrels, rel=rel, negatives=negatives), systems=systems
    )


def joint_ric_of(lists: JudgedLists, *, systems=None) -> pd.DataFrame:
    """:func:`joint_ric` of already built lists (e.g. :func:`judged_lists_of` an evaluation)."""
    groups = _select(lists, systems)
    _, _, n_pairs = lists.level_counts()
    q_order = natural_order(lists.queries)
    frames = []
    for g in groups:  # loop over groups of systems (each fully vectorised)
        values = _joint_ric_values(lists, g)
        frames.append(
            pd.DataFrame(
                {
                    "systems": ",".join(lists.systems[g]),
                    "query": lists.queries.to_numpy()[q_order],
                    "joint_ric": values[q_order],
                    "n_pairs": 2.0 * n_pairs[q_order],
                }
            )
        )
    frame = pd.concat(frames, ignore_index=True)
    out = _with_mean_rows(frame, ["systems"], ["joint_ric"], "n_pairs")
    out["systems"] = out["systems"].astype(ID_DTYPE)
    return out


def _pairwise_counts(lists: JudgedLists, selected: np.ndarray):
    """Per query and system pair, the 2 × 2 co-occurrence counts of {+1, −1} outcomes over
    all different-label unordered pairs (oriented higher label first), and the per-system
    marginals: PP, PM, MM [n_q × S × S], NP, NM [n_q × S]."""
    u, _, pairs = pair_pass(lists, selected, codes=False, bits=True)
    return _pairwise_from(u, tuple(c.copy() for c in pairs))


def _pairwise_from(u: _Union, pairs):
    """Add the pairs counted by retrieval signature to the enumerated co-occurrence counts."""
    PP, PM, MM = pairs
    S, n_q = u.n_sel, u.n_q
    NP = np.diagonal(PP, axis1=1, axis2=2).copy()
    NM = np.diagonal(MM, axis1=1, axis2=2).copy()
    # documents of U against documents outside U: grouped by retrieval signature
    A = (u.pos < BIG).astype(np.float64)
    for s in range(S):  # loop over systems, vectorised over documents and queries
        PP[:, s, :] += _rows_by_query(u.q, A * (A[:, s] * u.w_below)[:, None], n_q)
        MM[:, s, :] += _rows_by_query(u.q, A * (A[:, s] * u.w_above)[:, None], n_q)
    NP += _rows_by_query(u.q, A * u.w_below[:, None], n_q)
    NM += _rows_by_query(u.q, A * u.w_above[:, None], n_q)
    return PP, PM, MM, NP, NM, u.n_pairs


def _rows_by_query(q, values, n_q):
    """Sum of the rows of ``values`` per query; ``q`` is sorted (contiguous queries)."""
    out = np.zeros((n_q, values.shape[1]))
    if len(q) == 0:
        return out
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    out[q[starts]] = np.add.reduceat(np.asarray(values, dtype=np.float64), starts, axis=0)
    return out


@options_by_name
def information_difference(
    run: pd.DataFrame,
    *,
    qrels: pd.DataFrame | None = None,
    systems: Sequence[str] | None = None,
    rank: bool = False,
    rel: float = 1.0,
    negatives: Negatives = "unjudged",
) -> pd.DataFrame:
    """Information difference of every pair of systems, per query and mean.

    id(S1, S2) = I(R_S1; Q | R_S2) + I(R_S2; Q | R_S1) = 2·RIC(S1, S2) − RIC(S1) − RIC(S2)
    (Golbus & Aslam 2013, eq. 20, chain rule), all on RIC's pair sample: how much the
    two systems differ in what they say about the judged documents, as opposed to how much
    their effectiveness differs. id(S, S) = 0; 0 ≤ id ≤ 2 − RIC(S1) − RIC(S2).

    For all pairs at once the joint outcome counts come from per-query matrix products of
    the {+1}/{−1} outcome indicators over the enumerated pairs inside the union of all
    lists, plus retrieval-signature counts for the rest (module docstring).

    Parameters
    ----------
    run
        Run frame with two or more systems.
    qrels
        Judgments; default: the run's ``label`` column.
    systems
        ``None`` (all) or a list of system names to compare pairwise.
    rank
        ``False`` (default): per-query rows and the mean rows. ``True``: only the mean rows,
        sorted by information difference ascending (the most similar pair first; Golbus & Aslam
        (2013) Table 4), with a ``rank`` column.
    rel, negatives
        As in ``RIC``.

    Returns
    -------
    DataFrame
        ``system_a``, ``system_b`` (str, system_a < system_b), ``query`` (str; judged queries
        in natural order, then ``"all"`` = the mean over queries, NaN skipped),
        ``information_difference`` (float64 bits; round-off below 0 clipped), ``joint_ric``
        (RIC(S_a, S_b)), ``ric_a``, ``ric_b`` (each system's RIC). Pairs in system order.
        With ``rank=True``: ``rank`` (int64, 1 = smallest difference), ``system_a``,
        ``system_b``, ``information_difference``, ``joint_ric``, ``ric_a``, ``ric_b``.

    Raises
    ------
    SchemaError
        Fewer than two systems, unknown system names, or a malformed run / qrels.

    References
    ----------
    Golbus, P. B., & Aslam, J. A. (2013). A Mutual Information-based Framework for the Analysis of
    Information Retrieval Systems. SIGIR 2013.

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=2, depth=20, rng=1)
    >>> table = pdireval.information_difference(run, qrels=qrels, rank=True)
    >>> len(table)
    3
    """
    rank = check_bool("rank", rank)
    return information_difference_of(
        judged_lists(run, qrels=qrels, rel=rel, negatives=negatives), systems=systems, rank=rank
    )


def information_difference_of(
    lists: JudgedLists, *, systems=None, rank: bool = False
) -> pd.DataFrame:
    """:func:`information_difference` of already built lists (e.g. :func:`judged_lists_of` an
    evaluation)."""
    rank = check_bool("rank", rank)
    (selected,) = _select(lists, systems)
    if len(selected) < 2:
        raise SchemaError(
            "information_difference compares systems pairwise: give two or more systems."
        )
    PP, PM, MM, NP, NM, n_pairs = _pairwise_counts(lists, selected)
    S = len(selected)
    ia, ib = np.triu_indices(S, 1)
    n = np.where(n_pairs > 0, n_pairs, 1.0)[:, None]
    pp, pm, mm = PP[:, ia, ib], PM[:, ia, ib], MM[:, ia, ib]
    mp = PM[:, ib, ia]  # a = −1, b = +1
    pz = NP[:, ia] - pp - pm
    mz = NM[:, ia] - mp - mm
    zp = NP[:, ib] - pp - mp
    zm = NM[:, ib] - pm - mm
    joint = 2.0 * (
        _ric_terms(pp, mm, n)
        + _ric_terms(pm, mp, n)
        + _ric_terms(pz, mz, n)
        + _ric_terms(zp, zm, n)
    )
    single = 2.0 * _ric_terms(NP, NM, n)
    ric_a, ric_b = single[:, ia], single[:, ib]
    diff = np.maximum(2.0 * joint - ric_a - ric_b, 0.0)
    undefined = (n_pairs <= 0)[:, None]
    joint, ric_a, ric_b, diff = (
        np.where(undefined, np.nan, v) for v in (joint, ric_a, ric_b, diff)
    )
    q_order = natural_order(lists.queries)
    n_q, n_pp = len(q_order), len(ia)
    names = lists.systems[selected].to_numpy()
    frame = pd.DataFrame(
        {
            "system_a": np.repeat(names[ia], n_q),
            "system_b": np.repeat(names[ib], n_q),
            "query": np.tile(lists.queries.to_numpy()[q_order], n_pp),
            "information_difference": diff[q_order].T.reshape(-1),
            "joint_ric": joint[q_order].T.reshape(-1),
            "ric_a": ric_a[q_order].T.reshape(-1),
            "ric_b": ric_b[q_order].T.reshape(-1),
        }
    )
    out = _with_mean_rows(
        frame,
        ["system_a", "system_b"],
        ["information_difference", "joint_ric", "ric_a", "ric_b"],
        None,
    )
    for c in ("system_a", "system_b"):
        out[c] = out[c].astype(ID_DTYPE)
    if rank:
        means = out[out["query"] == "all"].drop(columns="query")
        means = means.sort_values(
            ["information_difference", "system_a", "system_b"], kind="stable"
        ).reset_index(drop=True)
        means.insert(0, "rank", np.arange(1, len(means) + 1, dtype=np.int64))
        return means
    return out
