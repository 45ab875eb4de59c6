"""The answers of a coded RAG frame as segments, per-segment ratios, and the scores frame.

An answer is a (judge, system, query) segment. Segments are numbered in output order (judge,
system sorted, query in natural order): dense when the grid is small enough, otherwise the
distinct answers present. Every score is Σ numerator / Σ denominator over the entries of a
segment, computed with ``np.bincount``; answers missing from the frame are filled (or left
out) by one rule shared by the nugget and support scores.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE
from pdireval.core.segments import natural_order
from pdireval.rag.frames import Coded

__all__ = ["Grid", "ratios", "to_scores"]

#: the largest grid numbered densely (every judge x system x query a segment)
_DENSE_LIMIT = 20_000_000


def _rank(ids: pd.Index, natural: bool) -> np.ndarray:
    order = natural_order(ids) if natural else np.argsort(ids.to_numpy(dtype=object), kind="stable")
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(len(ids))
    return rank


class Grid:
    """The segments of a coded frame.

    Attributes
    ----------
    names
        The key columns: ``judge`` (when present), ``system``, ``query``.
    shape
        The number of judges (1 without), systems and queries.
    seg
        Per row of the coded frame, its segment (0..n_seg-1).
    seg_key
        Per segment, its position in the full judge x system x query grid (ascending, so
        segments are in output order).
    seg_query
        Per segment, its query code (the coded frame's code, not its rank).
    """

    def __init__(self, coded: Coded):
        self.names = (["judge"] if coded.has_judge else []) + ["system", "query"]
        self.ids_by_rank = {}
        ranked = []
        for name in self.names:
            rank = _rank(coded.ids[name], name == "query")
            self.ids_by_rank[name] = coded.ids[name].take(np.argsort(rank))
            ranked.append(rank[coded.codes[name]])
            if name == "query":
                self.query_of_rank = np.argsort(rank)  # query rank -> query code
        if not coded.has_judge:
            ranked.insert(0, np.zeros(len(ranked[0]), dtype=np.int64))
        self.shape = (
            len(coded.ids["judge"]) if coded.has_judge else 1,
            len(coded.ids["system"]),
            len(coded.ids["query"]),
        )
        self.n_query = self.shape[2]
        key = (ranked[0] * self.shape[1] + ranked[1]) * self.shape[2] + ranked[2]
        size = self.shape[0] * self.shape[1] * self.shape[2]
        if size <= max(4 * len(key), 1_000_000) and size <= _DENSE_LIMIT:
            self.seg = key
            self.seg_key = np.arange(size, dtype=np.int64)
        else:
            self.seg_key, self.seg = np.unique(key, return_inverse=True)
        self.n_seg = len(self.seg_key)
        self.seg_query = self.query_of_rank[self.seg_key % self.shape[2]]
        self.present = np.bincount(self.seg, minlength=self.n_seg) > 0

    def fill_keys(self) -> np.ndarray:
        """Grid positions of the answers no judge assessed, for every judge (ascending)."""
        n_judge, n_sys, n_query = self.shape
        pairs = np.zeros(n_sys * n_query, dtype=bool)
        pairs[self.seg_key[self.present] % (n_sys * n_query)] = True
        absent = np.flatnonzero(~pairs)
        return (np.arange(n_judge)[:, None] * (n_sys * n_query) + absent[None, :]).ravel()

    def parts(self, keys: np.ndarray) -> dict[str, np.ndarray]:
        """The judge / system / query ranks of the given grid positions."""
        n_judge, n_sys, n_query = self.shape
        parts = {"judge": keys // (n_sys * n_query), "system": keys // n_query % n_sys}
        parts["query"] = keys % n_query
        return {n: parts[n] for n in self.names}

    def describe(self, keys: np.ndarray) -> pd.DataFrame:
        """The judge / system / query ids of the given grid positions."""
        return pd.DataFrame(
            {
                n: pd.Series(self.ids_by_rank[n].take(rank), dtype=ID_DTYPE)
                for n, rank in self.parts(keys).items()
            }
        )


def ratios(
    grid: Grid,
    sums: Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]],
    *,
    empty: str,
    missing: str,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per answer, numerator / denominator of each score.

    ``sums[name] = (numerator, denominator, per_query)``: the numerator and denominator of
    each segment (float64, ``grid.n_seg`` long); ``per_query`` (indexed by query code) gives
    the denominator of an answer missing from the frame (None: 0), whose numerator is 0.
    Returns the grid positions of the answers scored (ascending) and each score's values; a
    zero denominator gives 0.0 (``empty="zero"``) or NaN.
    """
    fill = grid.fill_keys() if missing == "zero" else np.zeros(0, dtype=np.int64)
    present = np.flatnonzero(grid.present)
    keys = np.concatenate([grid.seg_key[present], fill])
    order = np.argsort(keys, kind="stable")
    fill_query = grid.query_of_rank[fill % grid.n_query]
    nothing = 0.0 if empty == "zero" else np.nan
    values = {}
    for name, (num, den, per_query) in sums.items():
        fill_bottom = (
            per_query[fill_query].astype(np.float64)
            if per_query is not None
            else np.zeros(len(fill))
        )
        top = np.concatenate([num[present], np.zeros(len(fill))])[order]
        bottom = np.concatenate([den[present], fill_bottom])[order]
        out = np.full(len(keys), nothing)
        np.divide(top, bottom, out=out, where=bottom > 0)
        values[name] = out
    return keys[order], values


def to_scores(grid: Grid, keys: np.ndarray, values: dict[str, np.ndarray]) -> pd.DataFrame:
    """The scores frame ``[judge,] system, query, measure, value``: one row per answer and
    score, answers in ``keys`` order, scores in the order of ``values``."""
    names = list(values)
    frame = {
        n: pd.Series(grid.ids_by_rank[n].take(np.repeat(rank, len(names))), dtype=ID_DTYPE)
        for n, rank in grid.parts(keys).items()
    }
    measure = pd.Index(names, dtype=ID_DTYPE).take(np.tile(np.arange(len(names)), len(keys)))
    frame["measure"] = pd.Series(measure, dtype=ID_DTYPE)
    frame["value"] = (
        np.column_stack([values[n] for n in names]).ravel()
        if len(keys)
        else np.zeros(0, dtype=np.float64)
    )
    return pd.DataFrame(frame)
