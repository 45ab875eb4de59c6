"""Run (+ qrels) -> tidy per-query scores frame. Owns judgments and the missing-query policy."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._keys import run_keys
from .errors import PdirevalWarning, SchemaError, check_option
from .measures import compute, parse_measures
from .measures.segments import Segments, build_judgments, build_segments, natural_order
from .schema import ID_DTYPE, canonical_qrels, canonical_run_keys, qrels_from_run

__all__ = ["evaluate", "prepare", "Prepared", "scores_frame"]

MISSING = ("zero", "drop")
ORDERS = ("score", "rank")


class Prepared:
    """A validated run reduced to segments, ready to be evaluated with many measures.

    Built by :func:`prepare`; other modules (bounds, subsampling, ...) reuse it so that a run
    is validated, sorted and joined once.
    """

    def __init__(self, segments: Segments, run: pd.DataFrame, qrels: pd.DataFrame, missing: str):
        self.segments = segments
        self.run = run
        self.qrels = qrels
        self.missing = missing

    def values(self, measure) -> np.ndarray:
        return compute(self.segments, measure)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _resolve_judgments(run: pd.DataFrame, qrels, qrels_columns) -> pd.DataFrame:
    if qrels is not None:
        return canonical_qrels(qrels, qrels_columns)
    if "label" not in run.columns:
        raise SchemaError(
            "no judgments: pass qrels= (a frame with query, doc, label), or give the run a "
            "'label' column (the re-ranking case, where every system ranks the same candidates)."
        )
    return qrels_from_run(run)


def prepare(
    run: pd.DataFrame,
    *,
    qrels: pd.DataFrame | None = None,
    missing: str = "zero",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    order: str = "score",
    canonical: bool = False,
) -> Prepared:
    """Validate ``run`` and ``qrels`` and reduce them to segments (see :func:`evaluate`).

    ``canonical=True`` skips validation of a run that is already canonical (internal use).
    """
    check_option("missing", missing, MISSING)
    check_option("order", order, ORDERS)
    keys = None
    if not canonical:
        run, keys = canonical_run_keys(run, columns)
    if order == "score" and "score" not in run.columns:
        order = "rank"  # only a rank column: order by it (design.md §2)
    if order == "rank" and "rank" not in run.columns:
        raise SchemaError("order='rank' needs a 'rank' column in the run; it has only 'score'.")
    judgments_frame = _resolve_judgments(run, qrels, qrels_columns)
    judgments = build_judgments(judgments_frame)

    judged = judgments.queries
    if keys is None:
        keys = run_keys(run)
    # per distinct run query, then per row: no string comparison of the rows
    seg_judged = (judged.get_indexer(keys.queries) >= 0)[keys.seg_query]
    in_qrels = None if seg_judged.all() else seg_judged[keys.seg]
    if in_qrels is not None and not in_qrels.any():
        run_q = pd.unique(run["query"])[:5].tolist()
        raise SchemaError(
            f"the run's queries share nothing with the qrels: the run has "
            f"{_count(run['query'].nunique(), 'query', 'queries')} (e.g. {run_q}), the qrels "
            f"{len(judged)} (e.g. {judged[:5].tolist()}). Check that both come from the same collection, and that "
            "query ids are spelled alike (they are compared as strings)."
        )
    if in_qrels is not None:
        dropped = pd.unique(run["query"][~in_qrels])
        warnings.warn(
            f"{len(dropped)} run quer{'y has' if len(dropped) == 1 else 'ies have'} no "
            f"judgments and {'is' if len(dropped) == 1 else 'are'} not evaluated (e.g. "
            f"{list(dropped[:5])}).",
            PdirevalWarning,
            stacklevel=3,
        )
        rows = np.flatnonzero(in_qrels)
        run = run.iloc[rows].reset_index(drop=True)
        keys = keys.take(rows)
    segments = build_segments(run, judgments, order=order, keys=keys)
    if missing == "zero":
        segments = segments.with_empty_segments()
    return Prepared(segments, run, judgments_frame, missing)


def scores_frame(segments: Segments, measures, values: list[np.ndarray]) -> pd.DataFrame:
    """Assemble per-segment values into the tidy scores frame, rows ordered by system
    (sorted), query (natural order), then measure (in the order given)."""
    n_seg, n_m = segments.n_segments, len(measures)
    q_rank = np.empty(segments.judgments.n_queries, dtype=np.int64)
    q_rank[natural_order(segments.judgments.queries)] = np.arange(len(q_rank))
    seg_order = np.lexsort((q_rank[segments.seg_query], segments.seg_system))
    value = np.empty((n_seg, n_m), dtype=np.float64)
    for j, v in enumerate(values):
        value[:, j] = v
    value = value[seg_order]
    frame = pd.DataFrame(
        {
            "system": pd.array(np.repeat(segments.systems.to_numpy()[segments.seg_system[seg_order]], n_m), dtype=ID_DTYPE),
            "query": pd.array(np.repeat(segments.judgments.queries.to_numpy()[segments.seg_query[seg_order]], n_m), dtype=ID_DTYPE),
            "measure": pd.array(np.tile([str(m) for m in measures], n_seg), dtype=ID_DTYPE),
            "value": value.reshape(-1),
        }
    )
    return frame


def evaluate(
    run: pd.DataFrame,
    measures,
    *,
    qrels: pd.DataFrame | None = None,
    missing: str = "zero",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    order: str = "score",
) -> pd.DataFrame:
    """Evaluate a run frame: one value per (system, query, measure).

    Parameters
    ----------
    run
        Run frame: ``system, query, doc`` and ``score`` and/or ``rank`` (optionally
        ``label``), one row per retrieved document per system.
    measures
        A measure string (``"nDCG@10"``) or a list of them; see :func:`pdireval.measures`.
    qrels
        Judgments: ``query, doc, label``. When omitted, the run's ``label`` column supplies
        them (the distinct (query, doc, label) rows; conflicting labels are an error).
    missing
        ``"zero"`` (default, ir_measures): a judged query a system did not answer scores the
        measure's empty value (0 for most; NumRel is R). ``"drop"``: such rows are left out
        (trec_eval's default).
    columns, qrels_columns
        ``{canonical name: your column name}`` mappings for the run and the qrels.
    order
        ``"score"`` (default): score descending, ties by doc id descending (trec_eval).
        ``"rank"``: the rank column ascending, ties by doc id ascending. A run with only a
        ``rank`` column is ordered by rank.

    Returns
    -------
    DataFrame
        ``system`` (str), ``query`` (str), ``measure`` (str, canonical spelling), ``value``
        (float64); sorted by system, query (numeric order when ids are integers), then
        measure in the order given. Run queries without judgments are dropped with one
        :class:`PdirevalWarning`.

    Raises
    ------
    SchemaError
        Malformed run or qrels (see :func:`pdireval.schema.canonical_run`), no judgments,
        or a run whose queries share nothing with the qrels.
    MeasureError
        Unknown measure or invalid parameter.

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=3, depth=20, rng=1)
    >>> scores = pdireval.evaluate(run, ["nDCG@10", "AP"], qrels=qrels)
    >>> list(scores.columns)
    ['system', 'query', 'measure', 'value']
    """
    parsed = parse_measures(measures)
    prepared = prepare(run, qrels=qrels, missing=missing, columns=columns, qrels_columns=qrels_columns, order=order)
    values = [prepared.values(m) for m in parsed]
    return scores_frame(prepared.segments, parsed, values)
