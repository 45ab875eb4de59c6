"""Segment structure: a run reduced to where its judged documents sit.

Every measure pdireval computes depends only on (a) how many documents a system retrieved
for a query and (b) the positions and labels of the retrieved documents that appear in
the qrels. So a run of millions of rows is reduced to

* one **segment** per (system, query): its system, its query and its length, and
* the **hits**: the retrieved rows whose (query, doc) is in the qrels, with their 0-based
  position in trec_eval's order and their label (NaN = pooled but unjudged),

and kernels work on those arrays only (design.md §3: kernels never see a DataFrame).

Ordering (methods-spec §1.2): by ``score`` descending, ties by ``doc`` descending
(trec_eval; scores are compared at single precision, as trec_eval stores them in a C
``float``, so scores that differ only beyond float32 precision are ties); or with ``order="rank"`` by ``rank`` ascending, ties by ``doc`` ascending.
Documents outside the qrels are interchangeable for every measure, so tie-breaking is only
applied inside tie groups that hold a judged document, and an already grouped and ordered
run (the usual file order) is detected in O(n) and never sorted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["Judgments", "Segments", "build_judgments", "build_segments", "natural_order"]


def natural_order(ids) -> np.ndarray:
    """Indices that sort identifiers naturally: numerically when all are integers, else as strings."""
    values = pd.Index(ids).astype(str)
    if len(values) and values.str.fullmatch(r"-?\d{1,18}").all():
        return np.argsort(values.astype(np.int64).to_numpy(), kind="stable")
    return np.argsort(values.to_numpy(dtype=object), kind="stable")


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
    """Group a canonical qrels frame by query (natural query order)."""
    codes, uniques = pd.factorize(qrels["query"], sort=False)
    order_q = natural_order(uniques)
    rank_of = np.empty(len(order_q), dtype=np.int64)
    rank_of[order_q] = np.arange(len(order_q))
    qcode = rank_of[codes]
    perm = np.argsort(qcode, kind="stable")
    frame = qrels.iloc[perm].reset_index(drop=True)
    counts = np.bincount(qcode, minlength=len(uniques))
    start = np.concatenate([[0], np.cumsum(counts)])
    return Judgments(
        queries=pd.Index(uniques[order_q], name="query"),
        start=start,
        label=frame["label"].to_numpy(dtype=np.float64),
        doc=frame["doc"].to_numpy(),
        frame=frame,
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
    """

    systems: pd.Index
    seg_system: np.ndarray
    seg_query: np.ndarray
    seg_len: np.ndarray
    hit_seg: np.ndarray
    hit_pos: np.ndarray
    hit_label: np.ndarray
    judgments: Judgments
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
        return Segments(
            systems=self.systems,
            seg_system=np.concatenate([self.seg_system, miss_s]),
            seg_query=np.concatenate([self.seg_query, miss_q]),
            seg_len=np.concatenate([self.seg_len, np.zeros(len(miss_s), dtype=np.int64)]),
            hit_seg=self.hit_seg,
            hit_pos=self.hit_pos,
            hit_label=self.hit_label,
            judgments=self.judgments,
        )


def _string_array(series: pd.Series) -> pa.ChunkedArray | pa.Array:
    array = series.array
    native = getattr(array, "_pa_array", None)
    return native if native is not None else pa.array(series.to_numpy(dtype=object))


def build_segments(run: pd.DataFrame, judgments: Judgments, *, order: str = "score") -> Segments:
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
    """
    n = len(run)
    sys_codes, systems = pd.factorize(run["system"], sort=True)
    q_codes, run_queries = pd.factorize(run["query"], sort=False)
    q_to_judged = judgments.queries.get_indexer(run_queries)
    if (q_to_judged < 0).any():  # pragma: no cover - evaluate() filters first
        raise RuntimeError("build_segments needs a run restricted to judged queries")
    n_run_q = len(run_queries)
    seg_key = sys_codes.astype(np.int64) * n_run_q + q_codes

    if order == "score":
        # trec_eval stores scores as C floats, so scores equal at single precision are ties
        key = -run["score"].to_numpy(dtype=np.float64).astype(np.float32)
        doc_descending = True
    else:
        key = run["rank"].to_numpy(dtype=np.float64)
        doc_descending = False

    # ---- group rows into contiguous segments, ordered by key; skip the sort when possible
    change = np.empty(n, dtype=bool)
    change[0] = True
    np.not_equal(seg_key[1:], seg_key[:-1], out=change[1:])
    contiguous = len(np.unique(seg_key[change])) == int(change.sum())
    ordered = contiguous and bool(np.all((key[1:] >= key[:-1]) | change[1:]))
    if ordered:
        perm = None
        sorted_seg = seg_key
        sorted_key = key
    else:
        perm = np.lexsort((key, seg_key))
        sorted_seg = seg_key[perm]
        sorted_key = key[perm]
        np.not_equal(sorted_seg[1:], sorted_seg[:-1], out=change[1:])
    seg_starts = np.flatnonzero(change)
    seg_len = np.diff(np.append(seg_starts, n)).astype(np.int64)
    seg_of_sorted_row = np.cumsum(change) - 1
    seg_keys = sorted_seg[seg_starts]
    seg_system = (seg_keys // n_run_q).astype(np.int64)
    seg_query = q_to_judged[seg_keys % n_run_q].astype(np.int64)

    # ---- hits: rows whose (query, doc) is in the qrels (membership test, then exact join)
    docs = _string_array(run["doc"])
    maybe = pc.is_in(docs, value_set=pa.array(pd.unique(judgments.doc).astype(object), pa.string()))
    maybe = np.asarray(maybe.to_numpy(zero_copy_only=False), dtype=bool)
    cand_rows = np.flatnonzero(maybe)  # original row numbers
    if len(cand_rows):
        cand = pd.DataFrame(
            {
                "query": run["query"].iloc[cand_rows].to_numpy(dtype=object),
                "doc": run["doc"].iloc[cand_rows].to_numpy(dtype=object),
                "row": cand_rows,
            }
        )
        qr = judgments.frame[["query", "doc"]].copy()
        qr["qrow"] = np.arange(len(qr))
        qr["query"] = qr["query"].to_numpy(dtype=object)
        qr["doc"] = qr["doc"].to_numpy(dtype=object)
        joined = cand.merge(qr, on=["query", "doc"], how="inner")
        hit_rows = joined["row"].to_numpy(dtype=np.int64)
        hit_qrow = joined["qrow"].to_numpy(dtype=np.int64)
    else:
        hit_rows = np.zeros(0, dtype=np.int64)
        hit_qrow = np.zeros(0, dtype=np.int64)

    # sorted position of each hit row
    if perm is None:
        hit_sorted = hit_rows
    else:
        inverse = np.empty(n, dtype=np.int64)
        inverse[perm] = np.arange(n)
        hit_sorted = inverse[hit_rows]
    hit_seg = seg_of_sorted_row[hit_sorted]
    hit_pos = hit_sorted - seg_starts[hit_seg]

    # ---- ties that touch a hit: order the tie group by doc id
    if len(hit_sorted):
        hit_pos = _break_ties(
            hit_sorted, hit_pos, sorted_seg, sorted_key, perm, run["doc"], doc_descending
        )

    hit_label = judgments.label[hit_qrow]
    o = np.lexsort((hit_pos, hit_seg))
    return Segments(
        systems=pd.Index(systems, name="system"),
        seg_system=seg_system,
        seg_query=seg_query,
        seg_len=seg_len,
        hit_seg=hit_seg[o].astype(np.int64),
        hit_pos=hit_pos[o].astype(np.int64),
        hit_label=hit_label[o],
        judgments=judgments,
    )


def _break_ties(hit_sorted, hit_pos, sorted_seg, sorted_key, perm, doc_series, doc_descending):
    """Reposition hits that share their key with other rows of the same segment."""
    n = len(sorted_seg)
    prev_same = np.zeros(len(hit_sorted), dtype=bool)
    next_same = np.zeros(len(hit_sorted), dtype=bool)
    h = hit_sorted
    has_prev = h > 0
    hp = h[has_prev]
    prev_same[has_prev] = (sorted_seg[hp - 1] == sorted_seg[hp]) & (sorted_key[hp - 1] == sorted_key[hp])
    has_next = h < n - 1
    hn = h[has_next]
    next_same[has_next] = (sorted_seg[hn + 1] == sorted_seg[hn]) & (sorted_key[hn + 1] == sorted_key[hn])
    tied = prev_same | next_same
    if not tied.any():
        return hit_pos
    # Tie groups over all rows (cheap elementwise pass), then only the groups holding a hit.
    same_as_prev = np.zeros(n, dtype=bool)
    same_as_prev[1:] = (sorted_seg[1:] == sorted_seg[:-1]) & (sorted_key[1:] == sorted_key[:-1])
    group_of_row = np.cumsum(~same_as_prev) - 1
    group_start = np.flatnonzero(~same_as_prev)
    hit_groups = np.unique(group_of_row[h[tied]])
    in_group = np.isin(group_of_row, hit_groups)
    rows_sorted = np.flatnonzero(in_group)
    rows_orig = rows_sorted if perm is None else perm[rows_sorted]
    docs = doc_series.iloc[rows_orig].to_numpy(dtype=object)
    groups = group_of_row[rows_sorted]
    # order inside each group by doc (descending for score order, ascending for rank order)
    doc_codes, _ = pd.factorize(docs, sort=True)
    doc_key = -doc_codes if doc_descending else doc_codes
    o = np.lexsort((doc_key, groups))
    new_sorted_pos = np.empty(len(rows_sorted), dtype=np.int64)
    # position within group after sorting
    sorted_groups = groups[o]
    first = np.r_[True, sorted_groups[1:] != sorted_groups[:-1]]
    idx_in_group = np.arange(len(o)) - np.maximum.accumulate(np.where(first, np.arange(len(o)), 0))
    new_sorted_pos[o] = group_start[sorted_groups] + idx_in_group
    # map each tied hit to its new global sorted index, then to a segment position
    lookup = pd.Index(rows_sorted).get_indexer(h[tied])
    shift = new_sorted_pos[lookup] - h[tied]
    hit_pos = hit_pos.copy()
    hit_pos[tied] = hit_pos[tied] + shift
    return hit_pos
