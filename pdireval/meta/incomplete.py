"""Incomplete judgments: qrels subsampling, evaluation over qrels variants, robustness curves.

Seed 004 (He, Macdonald & Ounis, SIGIR 2008), after Buckley & Voorhees (SIGIR 2004):
judgments are removed at random from a complete pool to simulate completeness levels
x% (methods-spec §9.5), runs are evaluated against every (level, repeat) variant, and the
system rankings under the reduced judgments are compared with the rankings under the full
judgments (Kendall τ, Spearman ρ), or two measures are compared with each other at each
level (seed 004, Figure 3).

The evaluation over variants reuses one validation, sort and judged-hit join of the run:
a subsampled qrels only changes *which* hits are in the qrels and their labels, so each
variant's :class:`~pdireval.measures.segments.Segments` is derived from the full one by
masking and relabelling hits (no join per variant).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import OptionError, PdirevalWarning, SchemaError, show_rows
from ..measures import parse_measures
from ..measures.segments import Judgments, Segments, build_judgments, build_segments
from ..schema import (
    ID_DTYPE,
    _as_float,
    _as_ids,
    _check_frame,
    _rename,
    canonical_qrels,
    canonical_run,
    canonical_scores,
    group_columns,
)

__all__ = [
    "DEFAULT_LEVELS",
    "subsample_qrels",
    "evaluate_variants",
    "completeness_correlation",
]

DEFAULT_LEVELS = (1, 2, 3, 4, 5, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90)
MODES = ("drop", "unjudged")


# --------------------------------------------------------------------------- validation helpers


def _base_seed(rng, repeats: int) -> int:
    """The integer seed s of the §9.5 protocol: ``rng`` itself when it is an int; otherwise one
    integer drawn from the Generator (or from fresh entropy for None)."""
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError("rng= must be an int seed, a numpy Generator or None, not a bool")
    if isinstance(rng, numbers.Integral):
        if rng < 0:
            raise OptionError(f"rng= as a seed must be >= 0, got {rng}")
        return int(rng)
    if rng is None or isinstance(rng, np.random.Generator):
        gen = np.random.default_rng(rng)
        return int(gen.integers(0, 2**62))
    raise TypeError(f"rng= must be an int seed, a numpy Generator or None, got {type(rng).__name__}")


def _check_levels(levels) -> np.ndarray:
    if isinstance(levels, (str, bytes)) or not isinstance(levels, (Sequence, np.ndarray, pd.Index, pd.Series)):
        if isinstance(levels, numbers.Real):
            levels = [levels]
        else:
            raise TypeError("levels= must be a number or a sequence of numbers, e.g. (1, 5, 10, 50)")
    arr = np.asarray(list(levels), dtype=np.float64) if len(levels) else np.zeros(0)
    if len(arr) == 0:
        raise OptionError("levels= is empty: give at least one completeness level in (0, 100], e.g. levels=(10, 50).")
    bad = arr[~((arr > 0) & (arr <= 100))]
    if len(bad):
        raise OptionError(
            f"levels= must be percentages in (0, 100]; got {bad.tolist()}. Write 10 for 10%, not 0.1."
        )
    if len(np.unique(arr)) != len(arr):
        raise OptionError(f"levels= repeats a level: {arr.tolist()}. Give each level once.")
    return arr


def _level_values(arr: np.ndarray):
    """Level column values: int64 when every level is a whole number, else float64."""
    if np.all(arr == np.floor(arr)):
        return arr.astype(np.int64)
    return arr


def _keep_count(x: float, m: np.ndarray) -> np.ndarray:
    """keep = ⌊x·m/100 + 0.5⌋ (methods-spec §9.5)."""
    return np.floor(x * m / 100.0 + 0.5).astype(np.int64)


# --------------------------------------------------------------------------- subsampling


def subsample_qrels(
    qrels: pd.DataFrame,
    *,
    levels=DEFAULT_LEVELS,
    repeats: int = 10,
    rng=None,
    nested: bool = False,
    mode: str = "drop",
    min_relevant: int = 1,
    rel: float = 1.0,
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    r"""Qrels subsampled at completeness levels x%, repeated (methods-spec §9.5; seed 004 §5.1).

    Per topic the judged documents are split into two strata, relevant (label ≥ ``rel``)
    and non-relevant (label < ``rel``, negative labels included), and each stratum of size
    m keeps

    .. math:: \mathrm{keep}(x, m) = \lfloor x\,m/100 + 0.5 \rfloor

    documents, the relevant stratum at least ``min(min_relevant, m)``. Pooled-but-unjudged
    rows (NaN label) are no judgments: every variant keeps them unchanged.

    Draw protocol (normative, so any implementation given the same integer seed ``s`` draws
    the same documents): topics in sorted order and doc ids sorted, both compared as strings.

    * ``nested=False`` (default): each (level x, repetition r) is drawn on its own with
      ``g = numpy.random.default_rng(s + r)``; for each topic, the relevant stratum then the
      non-relevant one: ``g.choice(sorted_docids, size=keep, replace=False)``. A variant's
      draws depend only on (s, r, x), not on which other levels are requested.
    * ``nested=True``: per repetition ``g = default_rng(s + r)`` draws one
      ``g.permutation(sorted_docids)`` per topic and stratum (relevant first); level x keeps
      the first keep(x) entries, so lower levels are subsets of higher ones.

    A numpy Generator (or None: fresh entropy) for ``rng`` supplies the integer ``s`` by one
    ``integers(0, 2**62)`` draw; the protocol then proceeds as above.

    Parameters
    ----------
    qrels
        Judgments ``query, doc, label`` (the complete pool).
    levels
        Completeness levels in percent, each in (0, 100]; default seed 004's 16 levels
        1, 2, 3, 4, 5, 10, 15, ..., 90.
    repeats
        Independent repetitions per level (seed 004: 10).
    rng
        Integer seed ``s``, numpy Generator, or None.
    nested
        Draw nested levels (see above) instead of independent ones.
    mode
        ``"drop"`` (default): removed judgments are deleted, i.e. the documents leave the
        pool. ``"unjudged"``: they stay with a NaN label (pooled but unjudged) — the right
        choice for infAP, which treats pooled-unjudged and unpooled documents differently
        (methods-spec §9.2).
    min_relevant
        Minimum relevant documents kept per topic that has any (default 1), so that every
        topic keeps R ≥ 1 at every level.
    rel
        Minimum label counted as relevant (default 1, trec_eval's ``-l 1``).
    columns
        Optional mapping ``{canonical name: your column name}`` for the qrels.

    Returns
    -------
    DataFrame
        ``query`` (str), ``doc`` (str), ``label`` (float64; NaN for removed judgments when
        ``mode="unjudged"``), ``level`` (the completeness level x; int64 when all levels
        are whole numbers, else float64), ``repeat`` (int64, 0-based r). Rows ordered by
        level (in the order given), repeat, then query and doc (as strings).

    Raises
    ------
    SchemaError
        Malformed qrels.
    ValueError, TypeError
        Invalid levels, repeats, mode, min_relevant or rng.

    Notes
    -----
    Seed 004 says only "randomly remove (100 − x) percent of relevant and non-relevant
    documents from the complete pool" (10 repetitions per level); the rounding, the
    minimum relevant kept, nesting and the fate of removed judgments are the library's
    explicit choices (methods-spec §9.5, §10 row 23).

    References
    ----------
    He, Macdonald & Ounis, "Retrieval Sensitivity Under Training Using Different Measures",
    SIGIR 2008 (seed 004), §5.1. Buckley & Voorhees, "Retrieval evaluation with incomplete
    information", SIGIR 2004.

    Examples
    --------
    >>> import pdireval
    >>> _, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=3, rng=1)
    >>> sub = pdireval.subsample_qrels(qrels, levels=(10, 50), repeats=2, rng=7)
    >>> sub[["level", "repeat"]].drop_duplicates().to_numpy().tolist()
    [[10, 0], [10, 1], [50, 0], [50, 1]]
    """
    if mode not in MODES:
        raise OptionError(f"mode= must be one of {MODES}, got {mode!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, numbers.Integral) or repeats < 1:
        raise OptionError(f"repeats= must be a positive integer, got {repeats!r}")
    if isinstance(min_relevant, bool) or not isinstance(min_relevant, numbers.Integral) or min_relevant < 0:
        raise OptionError(f"min_relevant= must be a non-negative integer, got {min_relevant!r}")
    if not isinstance(nested, (bool, np.bool_)):
        raise TypeError(f"nested= must be True or False, got {nested!r}")
    level_arr = _check_levels(levels)
    seed = _base_seed(rng, int(repeats))
    q = canonical_qrels(qrels, columns)  # sorted by query then doc, as strings

    plan = _strata(q, rel)
    masks = _subsample_masks(plan, len(q), level_arr, int(repeats), seed, nested, int(min_relevant))
    return _variants_frame(q, masks, level_arr, int(repeats), mode)


def _strata(q: pd.DataFrame, rel: float):
    """Per topic (sorted as strings), the row numbers of the relevant and non-relevant strata,
    each in doc-id order (the canonical qrels are sorted by query then doc)."""
    labels = q["label"].to_numpy(dtype=np.float64)
    qcodes, _ = pd.factorize(q["query"], sort=False)  # rows sorted by query: codes ascend
    judged = ~np.isnan(labels)
    is_rel = judged & (labels >= rel)
    is_non = judged & ~is_rel
    rows = np.arange(len(q))
    n_topics = int(qcodes.max()) + 1 if len(qcodes) else 0
    rel_rows = np.split(rows[is_rel], np.cumsum(np.bincount(qcodes[is_rel], minlength=n_topics))[:-1])
    non_rows = np.split(rows[is_non], np.cumsum(np.bincount(qcodes[is_non], minlength=n_topics))[:-1])
    unjudged_rows = rows[~judged]
    return rel_rows, non_rows, unjudged_rows


def _subsample_masks(plan, n_rows, levels, repeats, seed, nested, min_relevant) -> np.ndarray:
    """Boolean keep matrix, one row per (level, repeat) variant (level-major)."""
    rel_rows, non_rows, unjudged_rows = plan
    n_topics = len(rel_rows)
    m_rel = np.array([len(r) for r in rel_rows], dtype=np.int64)
    m_non = np.array([len(r) for r in non_rows], dtype=np.int64)
    floor_rel = np.minimum(min_relevant, m_rel)
    keep_rel = {x: np.maximum(_keep_count(x, m_rel), floor_rel) for x in levels}
    keep_non = {x: _keep_count(x, m_non) for x in levels}
    masks = np.zeros((len(levels) * repeats, n_rows), dtype=bool)
    masks[:, unjudged_rows] = True
    # The protocol fixes one numpy call per (topic, stratum): a loop over topics is the
    # specification itself (a few microseconds per call), not a per-document loop.
    if nested:
        for r in range(repeats):
            g = np.random.default_rng(seed + r)
            for t in range(n_topics):
                perm_rel = g.permutation(rel_rows[t])
                perm_non = g.permutation(non_rows[t])
                for i, x in enumerate(levels):
                    v = i * repeats + r
                    masks[v, perm_rel[: keep_rel[x][t]]] = True
                    masks[v, perm_non[: keep_non[x][t]]] = True
    else:
        for i, x in enumerate(levels):
            kr, kn = keep_rel[x], keep_non[x]
            for r in range(repeats):
                g = np.random.default_rng(seed + r)
                v = i * repeats + r
                chosen = []
                for t in range(n_topics):
                    chosen.append(g.choice(rel_rows[t], size=kr[t], replace=False))
                    chosen.append(g.choice(non_rows[t], size=kn[t], replace=False))
                if chosen:
                    masks[v, np.concatenate(chosen).astype(np.int64)] = True
    return masks


def _variants_frame(q: pd.DataFrame, masks: np.ndarray, levels, repeats: int, mode: str) -> pd.DataFrame:
    n_var, n_rows = masks.shape
    level_col = np.repeat(_level_values(levels), repeats)
    repeat_col = np.tile(np.arange(repeats, dtype=np.int64), len(levels))
    if mode == "drop":
        var_idx, row_idx = np.nonzero(masks)  # row-major: variant, then row order
        label = q["label"].to_numpy(dtype=np.float64)[row_idx]
    else:
        var_idx = np.repeat(np.arange(n_var), n_rows)
        row_idx = np.tile(np.arange(n_rows), n_var)
        label = np.where(masks.reshape(-1), q["label"].to_numpy(dtype=np.float64)[row_idx], np.nan)
    return pd.DataFrame(
        {
            "query": q["query"].array.take(row_idx),
            "doc": q["doc"].array.take(row_idx),
            "label": label,
            "level": level_col[var_idx],
            "repeat": repeat_col[var_idx],
        }
    )


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
                "query": pd.array(np.asarray(q_uniques, dtype=object)[base_pairs // max(len(d_uniques), 1)], dtype=ID_DTYPE),
                "doc": pd.array(np.asarray(d_uniques, dtype=object)[base_pairs % max(len(d_uniques), 1)], dtype=ID_DTYPE),
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


def _canonical_variants(qrels_variants: pd.DataFrame, columns) -> tuple[pd.DataFrame, list[str]]:
    _check_frame(qrels_variants, "qrels variants")
    frame = _rename(qrels_variants, columns, "qrels variants")
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
            "query": _as_ids(frame["query"], "query", "qrels variants"),
            "doc": _as_ids(frame["doc"], "doc", "qrels variants"),
            "label": _as_float(frame["label"], "label", "qrels variants", frame),
        }
    )
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


# --------------------------------------------------------------------------- evaluation over variants


class _VariantJudgments(Judgments):
    """Judgments of one variant whose ``frame`` (query, doc, label strings) is built only if
    some kernel asks for it: the standard kernels use the arrays only."""

    @property
    def frame(self) -> pd.DataFrame:
        cached = self.__dict__.get("_frame")
        if cached is None:
            cached = pd.DataFrame(
                {
                    "query": pd.array(np.repeat(np.asarray(self.queries, dtype=object), np.diff(self.start)), dtype=ID_DTYPE),
                    "doc": pd.array(np.asarray(self.doc, dtype=object), dtype=ID_DTYPE),
                    "label": self.label,
                }
            )
            self.__dict__["_frame"] = cached
        return cached

    @frame.setter
    def frame(self, value) -> None:
        self.__dict__["_frame"] = value


def _variant_segments(full: Segments, hit_base: np.ndarray, base_pos: np.ndarray, base_query: np.ndarray,
                      base_doc: np.ndarray, base_query_ids: pd.Index, rows: np.ndarray, labels: np.ndarray):
    """Segments of one qrels variant, derived from the full segments by masking hits.

    ``rows``/``labels``: the variant's base rows and their labels. ``base_pos``: grouped
    position of each base row in the full judgments; ``base_query``: its query index.
    """
    n_base = len(base_pos)
    every_row = len(rows) == n_base  # rows are distinct (checked), e.g. mode="unjudged"
    present = None
    if not every_row:
        present = np.zeros(n_base, dtype=bool)
        present[rows] = True
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
        return Segments(
            systems=full.systems,
            seg_system=full.seg_system,
            seg_query=full.seg_query,
            seg_len=full.seg_len,
            hit_seg=full.hit_seg,
            hit_pos=full.hit_pos,
            hit_label=vlabel[hit_base],
            judgments=judgments,
        ), qmap
    if has.all():  # every query survives: segments unchanged, hits masked
        hit_keep = present[hit_base]
        return Segments(
            systems=full.systems,
            seg_system=full.seg_system,
            seg_query=full.seg_query,
            seg_len=full.seg_len,
            hit_seg=full.hit_seg[hit_keep],
            hit_pos=full.hit_pos[hit_keep],
            hit_label=vlabel[hit_base[hit_keep]],
            judgments=judgments,
        ), qmap
    seg_keep = qmap[full.seg_query] >= 0
    new_seg = np.cumsum(seg_keep) - 1
    hit_keep = seg_keep[full.hit_seg] if every_row else present[hit_base] & seg_keep[full.hit_seg]
    return Segments(
        systems=full.systems,
        seg_system=full.seg_system[seg_keep],
        seg_query=qmap[full.seg_query[seg_keep]],
        seg_len=full.seg_len[seg_keep],
        hit_seg=new_seg[full.hit_seg[hit_keep]],
        hit_pos=full.hit_pos[hit_keep],
        hit_label=vlabel[hit_base[hit_keep]],
        judgments=judgments,
    ), qmap


def evaluate_variants(
    run: pd.DataFrame,
    measures,
    qrels_variants: pd.DataFrame,
    *,
    missing: str = "zero",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    order: str = "score",
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
    missing, columns, order
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
    >>> sub = pdireval.subsample_qrels(qrels, levels=(20, 60), repeats=2, rng=0)
    >>> scores = pdireval.evaluate_variants(run, ["AP", "Bpref"], sub)
    >>> list(scores.columns)
    ['level', 'repeat', 'system', 'query', 'measure', 'value']
    """
    from ..errors import check_option
    from ..evaluate import MISSING, ORDERS

    check_option("missing", missing, MISSING)
    check_option("order", order, ORDERS)
    parsed = parse_measures(measures)
    variants_frame, key_cols = _canonical_variants(qrels_variants, qrels_columns)
    run = canonical_run(run, columns)
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
    full = build_segments(run, index_judgments, order=order)
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
    sys_parts, query_parts, value_parts, counts = [], [], [], []
    for v in range(variants.n_variants):  # loop over variants; every step inside is vectorized
        seg, qmap = _variant_segments(full, hit_base, base_pos, base_query, base_doc, judged,
                                      variants.var_rows[v], variants.var_labels[v])
        n_seg = seg.n_segments
        counts.append(n_seg)
        if n_seg == 0:
            continue
        # variant query indices follow the base (natural) order: same row order as evaluate()
        base_q_of = np.flatnonzero(qmap >= 0)[seg.seg_query]
        o = np.lexsort((base_q_of, seg.seg_system))
        value = np.empty((n_seg, n_m), dtype=np.float64)
        for j, m in enumerate(parsed):
            value[:, j] = m.definition.kernel(seg, m)
        sys_parts.append(seg.seg_system[o])
        query_parts.append(base_q_of[o])
        value_parts.append(value[o].reshape(-1))
    counts = np.asarray(counts, dtype=np.int64)
    if counts.sum() == 0:
        raise SchemaError("no (system, query) pair to evaluate in any qrels variant.")
    sys_codes = np.repeat(np.concatenate(sys_parts), n_m)
    q_codes = np.repeat(np.concatenate(query_parts), n_m)
    m_codes = np.tile(np.arange(n_m), int(counts.sum()))
    var_codes = np.repeat(np.arange(variants.n_variants), counts * n_m)
    out = {c: variants.keys[c].to_numpy()[var_codes] for c in key_cols}
    out["system"] = pd.array(np.asarray(full.systems, dtype=object), dtype=ID_DTYPE).take(sys_codes)
    out["query"] = pd.array(np.asarray(judged, dtype=object), dtype=ID_DTYPE).take(q_codes)
    out["measure"] = pd.array([str(m) for m in parsed], dtype=ID_DTYPE).take(m_codes)
    out["value"] = np.concatenate(value_parts)
    return pd.DataFrame(out)


# --------------------------------------------------------------------------- robustness curves


def completeness_correlation(
    scores: pd.DataFrame,
    reference: pd.DataFrame,
    *,
    method: str | Sequence[str] = ("kendall_b", "spearman"),
) -> pd.DataFrame:
    r"""Correlation of system rankings under reduced judgments with the full-judgment ranking.

    For every group of ``scores`` (each measure and each value of the variant columns, e.g.
    ``level`` and ``repeat`` of :func:`evaluate_variants`), systems are ranked by their mean
    over queries (NaN skipped), and the ranking is correlated with the ranking the same
    measure gives under ``reference`` (the scores on the full qrels). This is the curve of
    Buckley & Voorhees (2004) and of seed 004 §5: τ (or ρ) against completeness x, one curve
    per measure; average it over repeats with a ``groupby``.

    Kendall's τ_b (default, with τ_a, γ, Spearman ρ, Pearson r, τ_AP) come from
    :func:`pdireval.meta.correlation.rank_correlation`:
    :math:`\tau_b = (c - d)/\sqrt{(n_0 - n_1)(n_0 - n_2)}` over system pairs (methods-spec §5.1).
    τ_AP takes the full-judgment ranking as the truth.

    Parameters
    ----------
    scores
        Scores frame with extra grouping columns (the variants), e.g. from
        :func:`evaluate_variants`.
    reference
        Scores frame on the full judgments, e.g. from :func:`pdireval.evaluate`; its grouping
        columns other than ``measure`` (if any) must also be columns of ``scores`` and are
        matched.
    method
        One correlation method or a list (see :func:`pdireval.correlate`).

    Returns
    -------
    DataFrame
        ``measure``, the other grouping columns of ``scores`` (e.g. ``level``, ``repeat``),
        ``method``, ``statistic`` (float64), ``p_value`` (two-sided, NaN where the method has
        none), ``n_systems`` (systems ranked under both). Ordered by measure (first
        appearance), the grouping keys, then method in the order given.

    Raises
    ------
    SchemaError
        A measure absent from ``reference``, reference grouping columns ``scores`` lacks, or
        systems missing from one of the frames.

    References
    ----------
    Buckley & Voorhees, "Retrieval evaluation with incomplete information", SIGIR 2004.
    He, Macdonald & Ounis, SIGIR 2008 (seed 004), §5 and Figure 3.
    """
    from .correlation import CORRELATION_METHODS, rank_correlation

    methods = [method] if isinstance(method, str) else list(method)
    if not methods:
        raise OptionError("method= is empty: pass e.g. 'kendall_b' or ['kendall_b', 'spearman'].")
    for m in methods:
        if m not in CORRELATION_METHODS:
            raise OptionError(f"method= must be among {CORRELATION_METHODS}, got {m!r}")
    frame = canonical_scores(scores)
    ref = canonical_scores(reference)
    keys = group_columns(frame)
    ref_keys = group_columns(ref)
    extra_ref = [k for k in ref_keys if k != "measure"]
    lacking = [k for k in extra_ref if k not in keys]
    if lacking:
        raise SchemaError(
            f"the reference scores have grouping column(s) {lacking} that the scores lack; "
            "the reference is matched on its grouping columns, so drop them from the reference "
            "or add them to the scores."
        )
    other = [k for k in keys if k != "measure"]
    means = frame.groupby(keys + ["system"], sort=False, observed=True, dropna=False)["value"].mean()
    ref_means = ref.groupby(ref_keys + ["system"], sort=False, observed=True, dropna=False)["value"].mean()
    missing_m = sorted(set(frame["measure"]) - set(ref["measure"]))
    if missing_m:
        raise SchemaError(
            f"the reference scores lack measure(s) {missing_m}: evaluate the full qrels with "
            "the same measures as the variants."
        )
    measure_rank = {m: i for i, m in enumerate(pd.unique(frame["measure"]))}
    ref_tables = {k if isinstance(k, tuple) else (k,): g.droplevel(list(range(len(ref_keys))))
                  for k, g in ref_means.groupby(level=list(range(len(ref_keys))), sort=False)}
    rows = []
    for key, g in means.groupby(level=list(range(len(keys))), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        kd = dict(zip(keys, key))
        rkey = tuple(kd[k] for k in ref_keys)
        if rkey not in ref_tables:
            raise SchemaError(f"the reference scores have no rows for {dict(zip(ref_keys, rkey))}.")
        r = ref_tables[rkey]
        g = g.droplevel(list(range(len(keys))))
        if set(g.index) != set(r.index):
            only = sorted(set(g.index) ^ set(r.index))
            raise SchemaError(
                f"the scores and the reference rank different systems for {kd} ({len(only)} only "
                f"in one of them, e.g. {only[:3]}); evaluate the same systems in both."
            )
        g = g.sort_index()
        x = g.to_numpy(dtype=np.float64)
        y = r.loc[g.index].to_numpy(dtype=np.float64)
        for m in methods:
            stat, p = rank_correlation(x, y, m)
            rows.append({**kd, "method": m, "statistic": float(stat), "p_value": float(p), "n_systems": len(x)})
    out = pd.DataFrame(rows, columns=["measure", *other, "method", "statistic", "p_value", "n_systems"])
    out["_m"] = out["measure"].map(measure_rank)
    out["_meth"] = out["method"].map({m: i for i, m in enumerate(methods)})
    out = out.sort_values(["_m", *other, "_meth"], kind="stable").drop(columns=["_m", "_meth"])
    out["n_systems"] = out["n_systems"].astype(np.int64)
    return out.reset_index(drop=True)
