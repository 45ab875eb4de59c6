"""Integer keys of a canonical run: (system, query) segments and doc-id hashes.

Computed once per evaluation (by the run validation, which needs them for the duplicate
check) and handed on to :func:`pdireval.core.segments.build_segments`, so no string
column of a large run is factorized or joined more than once. See ``_hashing`` for why
strings are hashed rather than factorized.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pdireval.core.hashing import arrow_strings, duplicated_rows, hash_strings, take, to_numpy_bool

__all__ = ["RunKeys", "run_keys", "in_key_order"]


@dataclass
class RunKeys:
    """Keys of the rows of a canonical run.

    Attributes
    ----------
    seg
        Segment number of every row (int32, or int64 past 2**31 segments); segments are the
        distinct (system, query) pairs, numbered in order of first appearance.
    seg_system, seg_query
        Per segment: index into ``systems`` and into ``queries``.
    systems, queries
        Distinct system names / query ids (strings), in order of first appearance.
    contiguous
        True when ``seg`` is non-decreasing along the rows (so every segment's rows are
        contiguous: the run is grouped).
    doc
        The doc column as a pyarrow string array; ``doc_hash`` its uint64 hashes.
    """

    seg: np.ndarray
    seg_system: np.ndarray
    seg_query: np.ndarray
    systems: pd.Index
    queries: pd.Index
    contiguous: bool
    doc: pa.ChunkedArray
    doc_hash: np.ndarray

    @property
    def n_segments(self) -> int:
        return len(self.seg_system)

    def take(self, rows: np.ndarray) -> RunKeys:
        """Keys of a subset of rows (``rows``: sorted row numbers); segments renumbered."""
        kept = np.zeros(self.n_segments, dtype=bool)
        seg = self.seg[rows]
        kept[seg] = True
        renumber = np.cumsum(kept) - 1  # keeps the segments' relative order
        used = np.flatnonzero(kept)
        return RunKeys(
            seg=renumber[seg].astype(self.seg.dtype),
            seg_system=self.seg_system[used],
            seg_query=self.seg_query[used],
            systems=self.systems,
            queries=self.queries,
            contiguous=self.contiguous,
            doc=pa.chunked_array([take(self.doc, rows)]),
            doc_hash=self.doc_hash[rows],
        )

    def duplicated_rows(self) -> np.ndarray:
        """Sorted row numbers of every row whose (system, query, doc) occurs more than once."""
        return duplicated_rows(self.seg, self.doc, self.doc_hash)


def _change_points(values: pa.ChunkedArray) -> np.ndarray:
    """Boolean: row i differs from row i - 1 (row 0: True)."""
    n = len(values)
    change = np.ones(n, dtype=bool)
    if n > 1:
        change[1:] = to_numpy_bool(pc.not_equal(values.slice(1), values.slice(0, n - 1)))
    return change


def _factorize(values) -> tuple[np.ndarray, pd.Index]:
    codes, uniques = pd.factorize(values, sort=False)
    return codes.astype(np.int64), pd.Index(uniques)


def run_keys(run: pd.DataFrame) -> RunKeys:
    """Compute :class:`RunKeys` of a canonical run (string ``system, query, doc``).

    A run is nearly always grouped by (system, query) (files are written that way), so
    the segments are found from the rows where system or query changes — one string
    comparison of neighbouring rows — and only those rows' values are factorized. A
    shuffled run falls back to factorizing the two columns.
    """
    n = len(run)
    system = arrow_strings(run["system"])
    query = arrow_strings(run["query"])
    change = _change_points(query)
    change |= _change_points(system)
    starts = np.flatnonzero(change)
    if len(starts) <= max(1, n // 4):
        # one entry per run of equal (system, query): factorize the runs, not the rows
        s_codes, systems = _factorize(take(system, starts).to_numpy(zero_copy_only=False))
        q_codes, queries = _factorize(take(query, starts).to_numpy(zero_copy_only=False))
        pair = s_codes * len(queries) + q_codes
        run_seg, first = _first_appearance_codes(pair)
        contiguous = len(first) == len(starts)
        lengths = np.diff(np.append(starts, n))
        seg = np.repeat(run_seg, lengths)
        seg_system, seg_query = s_codes[first], q_codes[first]
    else:
        s_codes_all, systems = _factorize(run["system"])
        q_codes_all, queries = _factorize(run["query"])
        n_q = len(queries)
        pair = s_codes_all * n_q + q_codes_all
        if len(systems) * n_q <= 4 * n + 1024:
            # dense table of (system, query) pairs: segments numbered in pair order
            used = np.zeros(len(systems) * n_q, dtype=bool)
            used[pair] = True
            renumber = np.cumsum(used) - 1
            seg = renumber[pair]
            pairs = np.flatnonzero(used)
            seg_system, seg_query = pairs // n_q, pairs % n_q
        else:
            seg, first = _first_appearance_codes(pair)
            seg_system, seg_query = s_codes_all[first], q_codes_all[first]
        contiguous = bool(np.all(seg[1:] >= seg[:-1]))
    doc = arrow_strings(run["doc"])
    return RunKeys(
        seg=seg.astype(np.int32) if len(seg_system) < 2**31 else seg,
        seg_system=seg_system,
        seg_query=seg_query,
        systems=pd.Index(systems.astype(object), dtype=object),
        queries=pd.Index(queries.astype(object), dtype=object),
        contiguous=contiguous,
        doc=doc,
        doc_hash=hash_strings(doc),
    )


def _first_appearance_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of int64 ``values`` numbered by first appearance, and the first row of each."""
    codes, _ = pd.factorize(values, sort=False)
    codes = codes.astype(np.int64)
    # codes appear in the order 0, 1, 2, ...: a code's first row is where the running max grows
    if len(codes) == 0:
        return codes, np.zeros(0, dtype=np.int64)
    running = np.maximum.accumulate(codes)
    grows = np.empty(len(codes), dtype=bool)
    grows[0] = True
    np.greater(running[1:], running[:-1], out=grows[1:])
    return codes, np.flatnonzero(grows)


def in_key_order(frame: pd.DataFrame, key: list[str], merge) -> pd.DataFrame:
    """``merge(frame)`` sorted by ``key`` (stable, fresh RangeIndex), or ``frame`` itself
    when its rows are already strictly in ``key`` order, as qrels read by
    :func:`pdireval.read_qrels` are: then no key repeats (nothing to merge) and the sort would
    keep every row where it is. ``frame`` has a RangeIndex and string key columns.

    The order is checked by comparing neighbouring rows with pyarrow (UTF-8 bytes, the order
    ``sort_values`` sorts pyarrow strings in), without hashing or sorting; a key column that
    is not pyarrow-backed takes the merge and the sort.
    """
    if not _strictly_increasing(frame, key):
        frame = merge(frame).sort_values(key, kind="stable", ignore_index=True)
    return frame


def _strictly_increasing(frame: pd.DataFrame, key: list[str]) -> bool:
    if len(frame) < 2:
        return True
    later = None  # row i + 1 > row i on the key columns seen so far (from the last one)
    for name in reversed(key):
        column = frame[name]
        if not (isinstance(column.dtype, pd.StringDtype) and column.dtype.storage == "pyarrow"):
            return False
        values = arrow_strings(column)
        after, before = values[1:], values[:-1]
        greater = pc.fill_null(pc.greater(after, before), False)
        if later is not None:
            equal = pc.fill_null(pc.equal(after, before), False)
            greater = pc.or_(greater, pc.and_(equal, later))
        later = greater
    return bool(pc.all(later).as_py())
