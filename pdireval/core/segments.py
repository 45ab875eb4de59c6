"""Segment structure: a run reduced to where its judged documents sit.

Every measure pdireval computes depends only on (a) how many documents a system retrieved
for a query and (b) the positions and labels of the retrieved documents that appear in
the qrels. So a run of millions of rows is reduced to

* one **segment** per (system, query): its system, its query and its length, and
* the **hits**: the retrieved rows whose (query, doc) is in the qrels, with their 0-based
  position in trec_eval's order and their label (NaN = pooled but unjudged),

and kernels work on those arrays only.

Ordering: by ``score`` descending, ties by ``doc`` descending
(trec_eval; scores are compared at single precision, as trec_eval stores them in a C
``float``, so scores that differ only beyond float32 precision are ties); or with ``order="rank"``
by ``rank`` ascending, ties by ``doc`` ascending. Documents outside the qrels are interchangeable
for every measure, so tie-breaking is only applied inside tie groups that hold a judged document,
and an already grouped and ordered run (the usual file order) is detected in O(n) and never sorted.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pdireval.core.hashing import (
    arrow_strings,
    hash_strings,
    mix,
    mix_select,
    sorted_unique,
    take,
    to_numpy_bool,
)
from pdireval.core.keys import RunKeys, run_keys
from pdireval.core.schema import one_judge

__all__ = [
    "Judgments",
    "SubtopicTable",
    "Segments",
    "build_judgments",
    "build_segments",
    "natural_order",
    "MISSING",
    "ORDERS",
    "SCORE_PRECISIONS",
]

#: ``missing=``: a judged query a system did not answer scores the empty value, or is dropped
MISSING = ("zero", "drop")
#: ``order=``: documents ordered by score (trec_eval) or by rank
ORDERS = ("score", "rank")
#: ``score_precision=``: scores compared as C floats (trec_eval 9) or as doubles (10.0)
SCORE_PRECISIONS = ("float32", "float64")


def natural_order(ids) -> np.ndarray:
    """Indices that sort identifiers naturally: numerically when all are integers, else as
    strings."""
    values = pd.Index(ids).astype(str)
    if len(values) and values.str.fullmatch(r"-?\d{1,18}").all():
        return np.argsort(values.astype(np.int64).to_numpy(), kind="stable")
    return np.argsort(values.to_numpy(dtype=object), kind="stable")


@dataclass
class SubtopicTable:
    """Per-subtopic judgments of qrels that have a ``subtopic`` column.

    Attributes
    ----------
    row
        Per (query, subtopic, doc) qrels entry: its row in the collapsed (query, doc)
        judgments.
    sub
        Per entry: a subtopic code, unique across queries (0..n_subtopics-1).
    label
        Per entry: its label (float64; NaN = unjudged).
    sub_query
        Per subtopic code: its query index.
    """

    row: np.ndarray
    sub: np.ndarray
    label: np.ndarray
    sub_query: np.ndarray


@dataclass
class Judgments:
    """Qrels grouped by query.

    Attributes
    ----------
    queries
        Judged query ids in natural order (``pd.Index`` of strings).
    start
        Offsets (``len(queries) + 1``) of each query's rows in ``label`` / ``doc``.
    label
        float64 label of each qrels row, grouped by query (NaN = pooled but unjudged).
    doc
        The qrels doc ids in the same order (strings).
    """

    queries: pd.Index
    start: np.ndarray
    label: np.ndarray
    doc: np.ndarray
    frame: pd.DataFrame
    subtopics: SubtopicTable | None = None
    cache: dict = field(default_factory=dict, repr=False)

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def row_query(self) -> np.ndarray:
        """Query index of every qrels row."""
        if "row_query" not in self.cache:
            self.cache["row_query"] = np.repeat(np.arange(self.n_queries), np.diff(self.start))
        return self.cache["row_query"]


def build_judgments(qrels: pd.DataFrame) -> Judgments:
    """Group a canonical qrels frame by query (natural query order).

    Qrels with a ``subtopic`` column are collapsed to one row per (query, doc) whose label
    is the largest of its subtopic labels (a document relevant to any subtopic is relevant
    to the query, as in ndeval); the per-subtopic labels are kept in ``subtopics``.
    """
    qrels = one_judge(qrels)  # several judges: evaluate(..., judges=) splits them first
    full = None
    if "subtopic" in qrels.columns:
        full = qrels
        qrels = (
            qrels.groupby(["query", "doc"], sort=True, observed=True)["label"].max().reset_index()
        )
    codes, uniques = pd.factorize(qrels["query"], sort=False)
    order_q = natural_order(uniques)
    rank_of = np.empty(len(order_q), dtype=np.int64)
    rank_of[order_q] = np.arange(len(order_q))
    qcode = rank_of[codes]
    perm = np.argsort(qcode, kind="stable")
    frame = qrels.iloc[perm].reset_index(drop=True)
    counts = np.bincount(qcode, minlength=len(uniques))
    start = np.concatenate([[0], np.cumsum(counts)])
    queries = pd.Index(uniques[order_q], name="query")
    subtopics = None
    if full is not None:
        where = pd.MultiIndex.from_arrays([frame["query"], frame["doc"]])
        row = where.get_indexer(pd.MultiIndex.from_arrays([full["query"], full["doc"]]))
        sub, pairs = pd.MultiIndex.from_arrays([full["query"], full["subtopic"]]).factorize()
        subtopics = SubtopicTable(
            row=row.astype(np.int64),
            sub=sub.astype(np.int64),
            label=full["label"].to_numpy(dtype=np.float64),
            sub_query=queries.get_indexer(pairs.get_level_values(0)).astype(np.int64),
        )
    return Judgments(
        queries=queries,
        start=start,
        label=frame["label"].to_numpy(dtype=np.float64),
        doc=frame["doc"].to_numpy(),
        frame=frame,
        subtopics=subtopics,
    )


@dataclass
class Segments:
    """A run reduced to segments and judged hits (see the module docstring).

    Attributes
    ----------
    systems
        System names, sorted.
    seg_system, seg_query
        Per segment: index into ``systems`` and into ``judgments.queries``.
    seg_len
        Per segment: number of documents retrieved.
    hit_seg, hit_pos, hit_label
        Per hit (retrieved row found in the qrels), sorted by segment then position:
        its segment, 0-based position in the ordered list, and label (NaN = unjudged).
    hit_tie_start, hit_tie_size
        Per hit: the first position and the size of its score-tie group (the rows of its
        segment sharing its order key, judged or not); size 1 when it is not tied. Used by
        tie-aware measures (``ties="expected"``).
    hit_qrow
        Per hit: its row in ``judgments.frame`` (so analyses that need more than the label,
        such as the document's identity across systems, reuse this join instead of joining
        the run and the qrels again). None for segments built by hand without it.
    float32_merged
        Sorted ids of the segments in which comparing scores at float32 precision tied
        distinct doubles in a tie group holding a judged document (None: no such segment).
        Only these segments' values can differ under ``score_precision="float64"``;
        :func:`pdireval.evaluation.float32_changes` re-evaluates them to tell.
    """

    systems: pd.Index
    seg_system: np.ndarray
    seg_query: np.ndarray
    seg_len: np.ndarray
    hit_seg: np.ndarray
    hit_pos: np.ndarray
    hit_label: np.ndarray
    judgments: Judgments
    hit_qrow: np.ndarray | None = None  # per hit: its row in judgments (label, doc)
    hit_tie_start: np.ndarray | None = None  # per hit: first position of its score-tie group
    hit_tie_size: np.ndarray | None = None  # per hit: rows in its score-tie group (1 = untied)
    #: Segments whose float32 tie groups around a judged document hold distinct doubles
    #: (sorted ids; None when there is none): only their values can change at float64.
    float32_merged: np.ndarray | None = None
    cache: dict = field(default_factory=dict, repr=False)

    @property
    def n_segments(self) -> int:
        return len(self.seg_len)

    def with_empty_segments(self) -> Segments:
        """Add an empty segment for every (system, judged query) the run does not answer."""
        n_q = self.judgments.n_queries
        present = np.zeros((len(self.systems), n_q), dtype=bool)
        present[self.seg_system, self.seg_query] = True
        miss_s, miss_q = np.nonzero(~present)
        if len(miss_s) == 0:
            return self
        return dataclasses.replace(
            self,
            seg_system=np.concatenate([self.seg_system, miss_s]),
            seg_query=np.concatenate([self.seg_query, miss_q]),
            seg_len=np.concatenate([self.seg_len, np.zeros(len(miss_s), dtype=np.int64)]),
            cache={},  # per-segment caches do not hold for the longer segment list
        )


def order_key(run: pd.DataFrame, order: str, score_precision: str = "float32") -> np.ndarray:
    """THE trec_eval order: uint32 (or uint64 below 2**32) keys that sort rows into trec_eval
    order within a segment (before doc-id tie-breaking): score descending compared at float32
    precision (trec_eval 9.0.8) or, with ``score_precision="float64"``, as doubles (trec_eval 10.0),
    or rank ascending."""
    if order == "score" and score_precision == "float64":
        # doubles do not fit 32 bits: their dense rank (ties kept) has the same order
        f = -run["score"].to_numpy(dtype=np.float64) + 0.0  # descending; -0.0 -> +0.0
        return np.unique(f, return_inverse=True)[1].reshape(-1).astype(np.uint64)
    if order == "score":
        # trec_eval stores scores as C floats, so scores equal at single precision are ties
        # (scores beyond float32's range become +-inf or 0; when that merges distinct
        # scores around a judged document, build_segments warns)
        d = run["score"].to_numpy(dtype=np.float64)
        with np.errstate(over="ignore", under="ignore"):
            f = d.astype(np.float32)
        np.negative(f, out=f)  # descending
        f += np.float32(0.0)  # -0.0 -> +0.0
        bits = f.view(np.uint32)
        # IEEE-754 bits -> unsigned integers with the same order as the floats:
        # negative floats flip all bits, non-negative ones set the sign bit
        neg = bits >= np.uint32(0x80000000)
        np.invert(bits, out=bits, where=neg)
        np.bitwise_or(bits, np.uint32(0x80000000), out=bits, where=~neg)
        return bits
    rank = run["rank"].to_numpy(dtype=np.int64)
    if len(rank) and int(rank.max()) >= 2**32:  # compress huge ranks, keeping their order
        rank = np.unique(rank, return_inverse=True)[1].reshape(-1)
    return rank.astype(np.uint64)


def judgment_keys(judgments: Judgments):
    """(doc ids as Arrow strings, uint64 hash of (query, doc)) of every qrels row, computed
    once and cached on ``judgments`` (safe when threads share one Judgments: each result is
    complete before it is stored)."""
    cached = judgments.cache.get("doc_keys")
    if cached is None:
        q_doc = arrow_strings(judgments.frame["doc"])
        cached = (q_doc, mix(hash_strings(q_doc), judgments.row_query))
        judgments.cache["doc_keys"] = cached
    return cached


def judged_hits(keys: RunKeys, judgments: Judgments):
    """THE run–qrels join: ``(rows, qrels_rows)``, the run rows whose (query, doc) is in the
    qrels (ascending) and each one's row in ``judgments`` (its ``label``/``doc``).

    Rows of queries without judgments never match. :func:`build_segments` and every analysis
    that needs a run row's label (fusion's upper bounds) use this one join.
    """
    q_to_judged = judgments.queries.get_indexer(keys.queries).astype(np.int32)
    return _find_hits(keys, q_to_judged[keys.seg_query][keys.seg], judgments)


def _find_hits(keys: RunKeys, row_query: np.ndarray, judgments: Judgments):
    """Rows whose (query, doc) is in the qrels, and the qrels row of each (exact).

    Both sides are keyed by a uint64 hash of (judged query, doc); one hash lookup finds each
    row's only possible qrels row, which is then verified on the strings, so a collision
    can neither invent nor hide a hit (qrels keys are checked to be distinct first).
    """
    q_doc, qkey = judgment_keys(judgments)
    if len(sorted_unique(qkey)) != len(qkey):  # pragma: no cover - 2**-64 per pair
        return _find_hits_exact(keys, row_query, judgments)
    cand, ckey = mix_select(keys.doc_hash, row_query, qkey)
    idx = pc.index_in(pa.array(ckey), value_set=pa.array(qkey))
    idx = (
        idx.to_numpy(zero_copy_only=False) if idx.null_count == 0 else idx.fill_null(-1).to_numpy()
    )
    found = np.flatnonzero(idx >= 0)
    hit_rows = cand[found]
    qrow = idx[found].astype(np.int64)
    del idx, cand, ckey
    same = judgments.row_query[qrow] == row_query[hit_rows]
    same &= to_numpy_bool(pc.equal(take(keys.doc, hit_rows), q_doc.take(pa.array(qrow))))
    return hit_rows[same], qrow[same]


def _find_hits_exact(keys: RunKeys, row_query: np.ndarray, judgments: Judgments):
    """Slow exact join on the strings (used only if two qrels keys share a hash)."""
    cand = pd.DataFrame(
        {
            "q": row_query,
            "doc": keys.doc.to_numpy(zero_copy_only=False),
            "row": np.arange(len(row_query)),
        }
    )
    qr = pd.DataFrame(
        {
            "q": judgments.row_query,
            "doc": judgments.frame["doc"].to_numpy(dtype=object),
            "qrow": np.arange(len(judgments.row_query)),
        }
    )
    joined = cand.merge(qr, on=["q", "doc"], how="inner").sort_values("row")
    return joined["row"].to_numpy(dtype=np.int64), joined["qrow"].to_numpy(dtype=np.int64)


def build_segments(
    run: pd.DataFrame,
    judgments: Judgments,
    *,
    order: str = "score",
    keys: RunKeys | None = None,
    score_precision: str = "float32",
) -> Segments:
    """Reduce a canonical run (only queries present in ``judgments``) to :class:`Segments`.

    Parameters
    ----------
    run
        Canonical run (schema.canonical_run); every query must be a judged query.
    judgments
        The grouped qrels.
    order
        ``"score"``: score descending, ties by doc descending (trec_eval). ``"rank"``: rank
        ascending, ties by doc ascending.
    keys
        The run's :class:`~pdireval.core.keys.RunKeys` when already computed.
    score_precision
        ``"float32"``: scores equal as C floats tie (trec_eval 9.0.8); ``"float64"``: only
        equal doubles tie (trec_eval 10.0).

    Notes
    -----
    Every row gets a uint64 sort key ``segment << 32 | order bits``. A grouped, ordered run
    (the usual file order) is recognised in O(n) and not sorted; otherwise only the keys
    are sorted (``np.sort``, no permutation), and each hit's position is found by binary
    search. Ties are broken by doc id only inside tie groups that hold a hit.
    """
    n = len(run)
    if keys is None:
        keys = run_keys(run)
    n_seg = keys.n_segments
    if n_seg >= 2**31:  # pragma: no cover
        raise ValueError("too many (system, query) segments")
    q_to_judged = judgments.queries.get_indexer(keys.queries)
    if (q_to_judged[keys.seg_query] < 0).any():  # pragma: no cover - evaluate() filters first
        raise RuntimeError("build_segments needs a run restricted to judged queries")
    sys_order = np.argsort(keys.systems.to_numpy(dtype=object), kind="stable")
    sys_rank = np.empty(len(sys_order), dtype=np.int64)
    sys_rank[sys_order] = np.arange(len(sys_order))
    seg_system = sys_rank[keys.seg_system]
    seg_query = q_to_judged[keys.seg_query].astype(np.int64)
    seg = keys.seg

    packed = seg.astype(np.uint64)
    packed <<= np.uint64(32)
    packed |= order_key(run, order, score_precision)
    ordered = keys.contiguous and bool(np.all(packed[1:] >= packed[:-1]))
    sorted_packed = packed if ordered else np.sort(packed)
    seg_len = np.bincount(seg, minlength=n_seg).astype(np.int64)
    seg_start = np.concatenate([[0], np.cumsum(seg_len)[:-1]]).astype(np.int64)

    # ---- hits: rows whose (query, doc) is in the qrels
    hit_rows, hit_qrow = judged_hits(keys, judgments)
    hit_seg = seg[hit_rows]
    hit_key = packed[hit_rows]
    # index in the sorted order of the first row sharing the hit's key, and of the row past it
    if ordered:
        lo = hit_rows  # (not modified: hit_pos below is a new array)
        same_prev = np.zeros(len(hit_rows), dtype=bool)
        has = hit_rows > 0
        same_prev[has] = packed[hit_rows[has] - 1] == hit_key[has]
        same_next = np.zeros(len(hit_rows), dtype=bool)
        has = hit_rows < n - 1
        same_next[has] = packed[hit_rows[has] + 1] == hit_key[has]
        tied = same_prev | same_next  # (the tie group's first row is found in _break_ties)
    else:
        # binary search with sorted needles (numpy is many times faster on sorted needles)
        by_key = np.argsort(hit_key)
        lo = np.empty(len(hit_key), dtype=np.int64)
        lo[by_key] = np.searchsorted(sorted_packed, hit_key[by_key], side="left")
        del by_key
        # lo is the first row with the hit's key: the group is larger than the hit alone
        # iff the next sorted key is the same
        nxt = np.minimum(lo + 1, n - 1)
        tied = (nxt > lo) & (sorted_packed[nxt] == hit_key)
    hit_pos = lo - seg_start[hit_seg]
    hit_label = judgments.label[hit_qrow]
    # each hit's tie group (rows sharing its segment and order key): first position and size,
    # for tie-aware measures (ties="expected"); a hit without ties is a group of one
    tie_start = hit_pos.copy()
    tie_size = np.ones(len(hit_pos), dtype=np.int64)
    if tied.any():
        doubles = (
            run["score"].to_numpy(dtype=np.float64)
            if order == "score" and score_precision == "float32"
            else None
        )
        hit_pos, order_of_hits, tie_start[tied], tie_size[tied], merged = _break_ties(
            tied,
            hit_rows,
            hit_pos,
            hit_key,
            packed,
            keys.doc,
            ordered,
            n,
            order == "score",
            doubles,
        )
        if merged is not None:
            merged = np.unique(keys.seg[merged[0]]).astype(np.int64)
    else:
        order_of_hits = None
        merged = None
    if ordered:
        # rows are in sorted order, so hits are, except that tied hits move within their tie
        # group; _break_ties returned that order
        if order_of_hits is not None:
            hit_seg, hit_pos = hit_seg[order_of_hits], hit_pos[order_of_hits]
            hit_label, hit_qrow = hit_label[order_of_hits], hit_qrow[order_of_hits]
            tie_start, tie_size = tie_start[order_of_hits], tie_size[order_of_hits]
    else:
        o = np.argsort((hit_seg.astype(np.uint64) << np.uint64(32)) | hit_pos.astype(np.uint64))
        hit_seg, hit_pos, hit_label, hit_qrow = hit_seg[o], hit_pos[o], hit_label[o], hit_qrow[o]
        tie_start, tie_size = tie_start[o], tie_size[o]
    return Segments(
        systems=pd.Index(keys.systems.to_numpy(dtype=object)[sys_order], name="system"),
        seg_system=seg_system,
        seg_query=seg_query,
        seg_len=seg_len,
        hit_seg=hit_seg.astype(np.int64),
        hit_pos=hit_pos.astype(np.int64),
        hit_label=hit_label,
        judgments=judgments,
        hit_qrow=hit_qrow,
        hit_tie_start=tie_start.astype(np.int64),
        hit_tie_size=tie_size,
        float32_merged=merged,
    )


def _break_ties(
    tied, hit_rows, hit_pos, hit_key, packed, doc, ordered, n, doc_descending, doubles=None
):
    """Order tie groups (rows sharing segment and order key) that hold a hit by doc id.

    Returns the hits' corrected positions (``hit_pos`` is updated in place); for an ordered run,
    the permutation that puts the hits in (segment, position) order (None when no reordering is
    needed); for each tied hit, the first position and the size of its tie group; and, given the
    scores as ``doubles`` (float32 comparison), the tie groups whose scores differ as doubles:
    ``(member rows of those groups, group start flags)``, or None.
    """
    t_rows = hit_rows[tied]
    t_keys = hit_key[tied]
    # members: every row of a tie group holding a hit
    if ordered:
        # hits are in row order = key order: their tie groups are runs of equal t_keys
        new_group = np.empty(len(t_keys), dtype=bool)
        new_group[0] = True
        np.not_equal(t_keys[1:], t_keys[:-1], out=new_group[1:])
        group_keys = t_keys[new_group]
        group_of_hit = np.cumsum(new_group) - 1
        lo = np.searchsorted(packed, group_keys, side="left")
        hi = np.searchsorted(packed, group_keys, side="right")
        # a tied hit's position so far is its own row's; move it to its group's first row
        hit_pos[tied] -= t_rows - lo[group_of_hit]
        size = hi - lo
        offsets = np.cumsum(size) - size
        members = np.arange(int(size.sum()), dtype=np.int64) - np.repeat(offsets - lo, size)
    else:
        group_keys = sorted_unique(t_keys)
        members = np.flatnonzero(
            to_numpy_bool(pc.is_in(pa.array(packed), value_set=pa.array(group_keys)))
        )
    table = pa.table({"g": pa.array(packed[members]), "doc": take(doc, members)})
    direction = "descending" if doc_descending else "ascending"
    o = pc.sort_indices(table, sort_keys=[("g", "ascending"), ("doc", direction)]).to_numpy()
    sorted_g = packed[members][o]
    first = np.empty(len(o), dtype=bool)
    first[0] = True
    np.not_equal(sorted_g[1:], sorted_g[:-1], out=first[1:])
    idx = np.arange(len(o))
    within = idx - np.maximum.accumulate(np.where(first, idx, 0))
    # rank within its tie group of every member row, then of each tied hit
    member_rank = np.empty(len(o), dtype=np.int64)
    member_rank[o] = within
    if ordered:  # members are sorted row numbers, and so are t_rows
        where = np.searchsorted(members, t_rows)
    else:  # t_rows in any order: a dense row -> member table
        member_of_row = np.full(n, -1, dtype=np.int64)
        member_of_row[members] = np.arange(len(members))
        where = member_of_row[t_rows]
        del member_of_row
    group_start = hit_pos[tied]  # every tied hit's position is still its group's first row's
    group_id = np.cumsum(first) - 1
    member_size = np.empty(len(o), dtype=np.int64)
    member_size[o] = np.bincount(group_id)[group_id]
    group_size = member_size[where]
    hit_pos[tied] += member_rank[where]
    merged = None if doubles is None else _merged_groups(doubles, members[o], first)
    if not ordered:
        return hit_pos, None, group_start, group_size, merged
    # The hits of a tie group fill consecutive slots of the hit array (rows are in order);
    # those slots get the group's hits in doc order: the order in which they appear in the
    # sorted member table.
    slots = np.flatnonzero(tied)
    hit_of_member = np.full(len(members), -1, dtype=np.int64)
    hit_of_member[where] = np.arange(len(slots))
    seq = hit_of_member[o]
    seq = seq[seq >= 0]
    perm = np.arange(len(hit_rows))
    perm[slots] = slots[seq]
    return hit_pos, perm, group_start, group_size, merged


def _merged_groups(doubles: np.ndarray, rows: np.ndarray, first: np.ndarray):
    """Tie groups at float32 precision whose scores differ as doubles.

    ``rows`` lists the member rows group after group, ``first`` flags each group's first
    member. Returns ``(rows of the merged groups, their group-start flags)`` or None. One
    ``reduceat`` per bound: linear in the members of tie groups that hold a judged document.
    """
    starts = np.flatnonzero(first)
    d = doubles[rows]
    low, high = np.minimum.reduceat(d, starts), np.maximum.reduceat(d, starts)
    differ = low != high
    if not differ.any():
        return None
    keep = np.repeat(differ, np.diff(np.append(starts, len(rows))))
    return rows[keep], first[keep]
