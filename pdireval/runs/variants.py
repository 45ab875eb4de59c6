"""Incomplete judgments: qrels subsampling, evaluation over qrels variants, robustness curves.

He, Macdonald & Ounis (2008), after Buckley & Voorhees (SIGIR 2004):
judgments are removed at random from a complete pool to simulate completeness levels
x%, runs are evaluated against every (level, repeat) variant, and the
system rankings under the reduced judgments are compared with the rankings under the full
judgments (Kendall τ, Spearman ρ), or two measures are compared with each other at each
level (He et al. 2008, Figure 3).

The evaluation over variants reuses one validation, sort and judged-hit join of the run:
a subsampled qrels only changes *which* hits are in the qrels and their labels, so each
variant's :class:`~pdireval.core.segments.Segments` is derived from the full one by
masking and relabelling hits (no join per variant).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import (
    ID_DTYPE,
    QRELS_COLUMNS,
    as_float,
    as_ids,
    canonical_run,
    check_finite_labels,
    check_frame,
    rename_columns,
)
from pdireval.core.segments import Judgments, Segments, build_judgments, build_segments
from pdireval.errors import PdirevalWarning, SchemaError, show_rows
from pdireval.io import as_frame
from pdireval.measures.compute import compute
from pdireval.measures.registry import labelled_measures

if TYPE_CHECKING:
    from pdireval.types import Measures, Missing, Order, ScorePrecision

__all__ = ["evaluate_variants"]


# --------------------------------------------------------------------------- validation helpers


# --------------------------------------------------------------------------- subsampling


# --------------------------------------------------------------------------- qrels variants


class _Variants:
    """A long qrels-variants frame resolved to one pool of (query, doc) base rows.

    Attributes: ``keys`` (frame of variant key values, one row per variant, in output order),
    ``base`` (canonical qrels frame of the distinct (query, doc) pairs, label = base row id),
    ``var_rows`` / ``var_labels`` (per variant, its base row ids and labels).
    """

    def __init__(self, frame: pd.DataFrame, key_cols: list[str]):
        self.key_cols = key_cols
        qc, q_uniques = pd.factorize(frame["query"], sort=False)
        dc, d_uniques = pd.factorize(frame["doc"], sort=False)
        pair = qc.astype(np.int64) * max(len(d_uniques), 1) + dc
        base_code, base_pairs = pd.factorize(pair, sort=False)
        self.n_base = len(base_pairs)
        self.base = pd.DataFrame(
            {
                "query": pd.array(
                    np.asarray(q_uniques, dtype=object)[base_pairs // max(len(d_uniques), 1)],
                    dtype=ID_DTYPE,
                ),
                "doc": pd.array(
                    np.asarray(d_uniques, dtype=object)[base_pairs % max(len(d_uniques), 1)],
                    dtype=ID_DTYPE,
                ),
                "label": np.arange(self.n_base, dtype=np.float64),
            }
        )
        if key_cols:
            vcode, self.keys = _factorize_keys(frame, key_cols)
        else:
            vcode = np.zeros(len(frame), dtype=np.int64)
            self.keys = pd.DataFrame(index=pd.RangeIndex(1))
        order = np.argsort(vcode, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(vcode, minlength=len(self.keys)))])
        labels = frame["label"].to_numpy(dtype=np.float64)
        self.var_rows, self.var_labels = [], []
        for i in range(len(self.keys)):  # loop over variants, vectorized inside
            take = order[bounds[i] : bounds[i + 1]]
            rows = base_code[take].astype(np.int64)
            if np.bincount(rows, minlength=self.n_base).max(initial=0) > 1:
                counts = np.bincount(rows, minlength=self.n_base)
                dup = np.isin(base_code[take], np.flatnonzero(counts > 1))
                bad = frame.iloc[take[dup]][key_cols + ["query", "doc", "label"]]
                raise SchemaError(
                    f"the qrels variants hold {int(dup.sum())} rows whose (variant, query, doc) "
                    f"is repeated ({', '.join(key_cols) or 'no variant columns'} identify a "
                    f"variant):{show_rows(bad)}\nEach variant needs one row per judged document; "
                    "if the frame holds several variants, keep their identifying columns (e.g. "
                    "level, repeat) and no other extra column.",
                    failure_cases=bad,
                )
            self.var_rows.append(rows)
            self.var_labels.append(labels[take])

    @property
    def n_variants(self) -> int:
        return len(self.keys)


def _factorize_keys(frame: pd.DataFrame, key_cols: list[str]):
    """Variant codes and the distinct key rows, sorted by the key values."""
    keys = frame[key_cols].drop_duplicates()
    try:
        keys = keys.sort_values(key_cols, kind="stable")
    except TypeError:  # mixed types: keep first-appearance order
        pass
    keys = keys.reset_index(drop=True)
    codes = pd.MultiIndex.from_frame(keys).get_indexer(pd.MultiIndex.from_frame(frame[key_cols]))
    return codes.astype(np.int64), keys


def canonical_variants(qrels_variants: pd.DataFrame, columns) -> tuple[pd.DataFrame, list[str]]:
    """The validated qrels-variants frame and its variant key columns."""
    qrels_variants = check_frame(qrels_variants, "qrels variants")  # Arrow data converted
    frame = rename_columns(qrels_variants, columns, "qrels variants", QRELS_COLUMNS)
    needed = [c for c in ("query", "doc", "label") if c not in frame.columns]
    if needed:
        raise SchemaError(
            f"the qrels variants lack column(s) {needed}; they have {list(frame.columns)}. A "
            "qrels-variants frame is a qrels frame (query, doc, label) plus the columns that "
            "identify a variant, e.g. the output of pdireval.subsample_qrels (level, repeat). "
            "Map other names with qrels_columns={'query': 'qid', ...}."
        )
    if len(frame) == 0:
        raise SchemaError("the qrels variants frame is empty: nothing to evaluate against.")
    out = pd.DataFrame(
        {
            "query": as_ids(frame["query"], "query", "qrels variants"),
            "doc": as_ids(frame["doc"], "doc", "qrels variants"),
            "label": as_float(frame["label"], "label", "qrels variants", frame),
        }
    )
    # the labels evaluate() accepts, so that every variant gives evaluate()'s numbers or error
    check_finite_labels(out["label"], "qrels variants", frame)
    key_cols = [c for c in frame.columns if c not in ("query", "doc", "label")]
    for c in key_cols:
        if frame[c].isna().any():
            rows = frame[frame[c].isna().to_numpy()]
            raise SchemaError(
                f"the variant column {c!r} has {len(rows)} missing value(s):{show_rows(rows)}\n"
                "Every row must say which variant it belongs to.",
                failure_cases=rows,
            )
        out[c] = frame[c].to_numpy()
    return out, key_cols


# --------------------------------------------------------------------------- evaluation over
# variants


class _VariantJudgments(Judgments):
    """Judgments of one variant whose ``frame`` (query, doc, label strings) is built only if
    some kernel asks for it: the standard kernels use the arrays only."""

    @property
    def frame(self) -> pd.DataFrame:
        cached = self.__dict__.get("_frame")
        if cached is None:
            cached = pd.DataFrame(
                {
                    "query": pd.array(
                        np.repeat(np.asarray(self.queries, dtype=object), np.diff(self.start)),
                        dtype=ID_DTYPE,
                    ),
                    "doc": pd.array(np.asarray(self.doc, dtype=object), dtype=ID_DTYPE),
                    "label": self.label,
                }
            )
            self.__dict__["_frame"] = cached
        return cached

    @frame.setter
    def frame(self, value) -> None:
        self.__dict__["_frame"] = value


def _variant_segments(
    full: Segments,
    hit_base: np.ndarray,
    base_pos: np.ndarray,
    base_query: np.ndarray,
    base_doc: np.ndarray,
    base_query_ids: pd.Index,
    rows: np.ndarray,
    labels: np.ndarray,
):
    """Segments of one qrels variant, derived from the full segments by masking hits.

    ``rows``/``labels``: the variant's base rows and their labels. ``base_pos``: grouped
    position of each base row in the full judgments; ``base_query``: its query index.
    """
    n_base = len(base_pos)
    every_row = len(rows) == n_base  # rows are distinct (checked), e.g. mode="unjudged"
    present = np.zeros(n_base, dtype=bool)
    present[rows] = True  # every base row when every_row
    vlabel = np.full(n_base, np.nan)
    vlabel[rows] = labels
    # judgments of the variant, grouped by query in the full judgments' (natural) order
    pos = base_pos[rows]
    if len(pos) < 2 or bool(np.all(pos[1:] > pos[:-1])):
        rows_sorted = rows  # already in that order (the usual case): no sort
    else:
        rows_sorted = rows[np.argsort(pos, kind="stable")]
    rq = base_query[rows_sorted]
    n_q_full = len(base_query_ids)
    counts = np.bincount(rq, minlength=n_q_full)
    has = counts > 0
    qmap = np.full(n_q_full, -1, dtype=np.int64)
    qmap[has] = np.arange(int(has.sum()))
    start = np.concatenate([[0], np.cumsum(counts[has])])
    queries = base_query_ids[has]
    judgments = _VariantJudgments(
        queries=pd.Index(queries, name="query"),
        start=start,
        label=vlabel[rows_sorted],
        doc=base_doc[rows_sorted],
        frame=None,
    )
    if has.all() and every_row:  # same documents, new labels: only relabel the hits
        return _variant_of(full, judgments, vlabel[hit_base]), qmap
    if has.all():  # every query survives: segments unchanged, hits masked
        hit_keep = present[hit_base]
        return _variant_of(full, judgments, vlabel[hit_base[hit_keep]], hit_keep), qmap
    seg_keep = qmap[full.seg_query] >= 0
    hit_keep = seg_keep[full.hit_seg] if every_row else present[hit_base] & seg_keep[full.hit_seg]
    return _variant_of(full, judgments, vlabel[hit_base[hit_keep]], hit_keep, seg_keep, qmap), qmap


def _variant_of(
    full: Segments, judgments, hit_label, hit_keep=None, seg_keep=None, qmap=None
) -> Segments:
    """The full run's segments under a variant's judgments, by masking, never by a new join.

    Hits kept by ``hit_keep`` (all when None) take ``hit_label``; segments kept by
    ``seg_keep`` (all when None) are renumbered, their queries mapped by ``qmap``. Positions
    and score-tie groups are the run's own, so they carry over; a hit's qrels row does not
    (the variant's judgments are another table), so it is dropped.
    """
    keep = slice(None) if hit_keep is None else hit_keep
    fields = {
        "hit_seg": full.hit_seg[keep],
        "hit_pos": full.hit_pos[keep],
        "hit_label": hit_label,
        "judgments": judgments,
        "hit_qrow": None,
        "hit_tie_start": None if full.hit_tie_start is None else full.hit_tie_start[keep],
        "hit_tie_size": None if full.hit_tie_size is None else full.hit_tie_size[keep],
        "cache": {},  # values cached for the full judgments do not hold for the variant
    }
    if seg_keep is not None:
        new_seg = np.cumsum(seg_keep) - 1
        fields.update(
            seg_system=full.seg_system[seg_keep],
            seg_query=qmap[full.seg_query[seg_keep]],
            seg_len=full.seg_len[seg_keep],
            hit_seg=new_seg[full.hit_seg[keep]],
        )
    return replace(full, **fields)


def evaluate_variants(
    run: pd.DataFrame,
    measures: Measures,
    qrels_variants: pd.DataFrame,
    *,
    missing: Missing = "zero",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    order: Order = "score",
    score_precision: ScorePrecision = "float32",
) -> pd.DataFrame:
    r"""Evaluate a run against many qrels variants in one call (e.g. subsampled qrels).

    Every variant gives exactly the numbers of
    ``pdireval.evaluate(run, measures, qrels=variant)``, but the run is validated, ordered
    and joined with the judgments once: the judged hits of the run against the union of all
    variants are found once, and each variant's hits are that set masked to the variant's
    documents and relabelled with its labels (no join, no sort per variant).

    Parameters
    ----------
    run
        Run frame (``system, query, doc`` and ``score`` and/or ``rank``).
    measures
        A measure string or a list of them (see :func:`pdireval.measures`).
    qrels_variants
        A long qrels frame, ``query, doc, label`` plus the columns that identify a variant
        (every other column; ``level`` and ``repeat`` for :func:`subsample_qrels`' output).
        A NaN label is pooled but unjudged, an absent row is outside the pool.
    missing, columns, order, score_precision
        As in :func:`pdireval.evaluate`.
    qrels_columns
        ``{canonical name: your column name}`` for the variants frame.

    Returns
    -------
    DataFrame
        The variant columns (e.g. ``level``, ``repeat``), then ``system``, ``query``,
        ``measure``, ``value`` (float64): one scores frame per variant, as
        :func:`pdireval.evaluate` returns it on that variant (its rows, order and values),
        stacked in variant order (sorted by the variant columns). A query absent from a
        variant is not scored in that variant (as ``evaluate`` would drop it); the
        variant columns are grouping keys for the meta functions.

    Raises
    ------
    SchemaError
        Malformed run or variants, a repeated (variant, query, doc), or a run sharing no
        query with the variants.
    MeasureError
        Unknown measure or invalid parameter.

    Warns
    -----
    PdirevalWarning
        Once, when run queries are judged in no variant (they are not evaluated); no
        warning for queries absent from only some variants.

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=4, rng=2)
    >>> sub = pdireval.subsample_qrels(qrels, levels=(20, 60), n_resamples=2, rng=0)
    >>> scores = pdireval.evaluate_variants(run, ["AP", "Bpref"], sub)
    >>> list(scores.columns)
    ['level', 'repeat', 'system', 'query', 'measure', 'value']
    """
    from pdireval.core.segments import MISSING, ORDERS, SCORE_PRECISIONS
    from pdireval.errors import check_option

    check_option("missing", missing, MISSING)
    check_option("order", order, ORDERS)
    check_option("score_precision", score_precision, SCORE_PRECISIONS)
    labels, parsed = zip(*labelled_measures(measures))  # names as given
    variants_frame, key_cols = canonical_variants(qrels_variants, qrels_columns)
    run = canonical_run(as_frame(run, "run"), columns)
    if order == "score" and "score" not in run.columns:
        order = "rank"
    if order == "rank" and "rank" not in run.columns:
        raise SchemaError("order='rank' needs a 'rank' column in the run; it has only 'score'.")
    variants = _Variants(variants_frame, key_cols)

    # one judged-hit join against the pool of all variants: "labels" are base row ids
    index_judgments = build_judgments(variants.base)
    judged = index_judgments.queries
    in_qrels = run["query"].isin(judged).to_numpy()
    if not in_qrels.any():
        run_q = pd.unique(run["query"])[:5].tolist()
        raise SchemaError(
            f"the run's queries share nothing with the qrels variants: the run has "
            f"{run['query'].nunique()} queries (e.g. {run_q}), the variants {len(judged)} (e.g. "
            f"{judged[:5].tolist()}). Check that both come from the same collection and that "
            "query ids are spelled alike (they are compared as strings)."
        )
    if not in_qrels.all():
        dropped = pd.unique(run["query"][~in_qrels])
        warnings.warn(
            f"{len(dropped)} run quer{'y is' if len(dropped) == 1 else 'ies are'} judged in no "
            f"qrels variant and {'is' if len(dropped) == 1 else 'are'} not evaluated (e.g. "
            f"{list(dropped[:5])}).",
            PdirevalWarning,
            stacklevel=2,
        )
        run = run.loc[in_qrels].reset_index(drop=True)
    full = build_segments(run, index_judgments, order=order, score_precision=score_precision)
    if missing == "zero":
        full = full.with_empty_segments()
    hit_base = full.hit_label.astype(np.int64)
    grouped_base = index_judgments.label.astype(np.int64)  # base row id at each grouped position
    base_pos = np.empty(variants.n_base, dtype=np.int64)
    base_pos[grouped_base] = np.arange(variants.n_base)
    base_query = np.empty(variants.n_base, dtype=np.int64)
    base_query[grouped_base] = index_judgments.row_query
    base_doc = variants.base["doc"].to_numpy(dtype=object)

    n_m = len(parsed)
    sys_parts, query_parts, value_parts, n_segments = [], [], [], []
    for v in range(variants.n_variants):  # loop over variants; every step inside is vectorized
        seg, qmap = _variant_segments(
            full,
            hit_base,
            base_pos,
            base_query,
            base_doc,
            judged,
            variants.var_rows[v],
            variants.var_labels[v],
        )
        n_seg = seg.n_segments
        n_segments.append(n_seg)
        if n_seg == 0:
            continue
        # variant query indices follow the base (natural) order: same row order as evaluate()
        base_q_of = np.flatnonzero(qmap >= 0)[seg.seg_query]
        o = np.lexsort((base_q_of, seg.seg_system))
        value = np.empty((n_seg, n_m), dtype=np.float64)
        cache: dict = {}  # two names of one measure ("map", "AP"): computed once
        for j, m in enumerate(parsed):
            value[:, j] = cache[m] if m in cache else cache.setdefault(m, compute(seg, m))
        sys_parts.append(seg.seg_system[o])
        query_parts.append(base_q_of[o])
        value_parts.append(value[o].reshape(-1))
    counts = np.asarray(n_segments, dtype=np.int64)
    if counts.sum() == 0:
        raise SchemaError("no (system, query) pair to evaluate in any qrels variant.")
    sys_codes = np.repeat(np.concatenate(sys_parts), n_m)
    q_codes = np.repeat(np.concatenate(query_parts), n_m)
    m_codes = np.tile(np.arange(n_m), int(counts.sum()))
    var_codes = np.repeat(np.arange(variants.n_variants), counts * n_m)
    out = {c: variants.keys[c].to_numpy()[var_codes] for c in key_cols}
    out["system"] = pd.array(np.asarray(full.systems, dtype=object), dtype=ID_DTYPE).take(sys_codes)
    out["query"] = pd.array(np.asarray(judged, dtype=object), dtype=ID_DTYPE).take(q_codes)
    out["measure"] = pd.array(list(labels), dtype=ID_DTYPE).take(m_codes)
    out["value"] = np.concatenate(value_parts)
    return pd.DataFrame(out)


# --------------------------------------------------------------------------- robustness curves
