"""Run (+ qrels) -> tidy per-query scores frame. Owns judgments and the missing-query policy."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.averaging import judge_mean
from pdireval.core.docids import doc_id_evidence, doc_id_messages
from pdireval.core.iteration import subtopic_columns
from pdireval.core.keys import run_keys
from pdireval.core.schema import (
    ID_DTYPE,
    canonical_qrels,
    canonical_run,
    canonical_run_keys,
    qrels_from_run,
)
from pdireval.core.seed_keys import join_seeds, seed_column, split_seeds
from pdireval.core.segments import (
    MISSING,
    ORDERS,
    SCORE_PRECISIONS,
    Segments,
    build_judgments,
    build_segments,
    natural_order,
)
from pdireval.errors import (
    OptionError,
    PdirevalWarning,
    SchemaError,
    check_option,
    options_by_name,
    warn_caller,
)
from pdireval.io import as_frame
from pdireval.measures import build_measure, compute
from pdireval.measures.trec_eval.versions import (
    judges_for,
    measures_for,
    score_precision_for,
    trec_eval_version,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pdireval.measures.registry import Measure
    from pdireval.types import (
        Judges,
        Measures,
        Missing,
        Order,
        ScorePrecision,
        TrecEvalVersion,
        Unjudged,
    )

__all__ = ["evaluate", "prepare", "Prepared", "scores_frame", "unjudged_bounds"]

JUDGES = ("each", "mean")
UNJUDGED = ("bounds",)


class Prepared:
    """A validated run reduced to segments, ready to be evaluated with many measures.

    Built by :func:`prepare`; other modules (bounds, subsampling, ...) reuse it so that a run
    is validated, sorted and joined once.
    """

    def __init__(
        self,
        segments: Segments,
        run: pd.DataFrame,
        qrels: pd.DataFrame | None,
        missing: str,
        recheck=None,
    ):
        self.segments = segments
        self.run = run
        self.qrels = qrels
        self.missing = missing
        #: the rows and keys of the lists whose float32 ties merged distinct doubles around a
        #: judged document, with the order they were ranked by (None: no such list)
        self.recheck = recheck

    def values(self, measure) -> np.ndarray:
        return compute(self.segments, measure)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def judged_rows(run: pd.DataFrame, keys, judgments):
    """The rows of a canonical run whose query is judged: ``(run, keys, dropped)``, where
    ``dropped`` holds the run queries without judgments in order of first appearance (None
    when every query is judged). Compared per distinct run query, then spread to the rows."""
    seg_judged = (judgments.queries.get_indexer(keys.queries) >= 0)[keys.seg_query]
    if seg_judged.all():
        return run, keys, None
    in_qrels = seg_judged[keys.seg]
    dropped = pd.unique(run["query"].to_numpy(dtype=object)[~in_qrels])
    rows = np.flatnonzero(in_qrels)
    return run.iloc[rows].reset_index(drop=True), keys.take(rows), dropped


def unjudged_message(dropped) -> str:
    """The warning about run queries without judgments (also used by pdireval.dask)."""
    n = len(dropped)
    return (
        f"{n} run quer{'y has' if n == 1 else 'ies have'} no judgments and "
        f"{'is' if n == 1 else 'are'} not evaluated (e.g. {list(dropped[:5])})."
    )


def no_overlap_error(run_queries, n_run_queries: int, judged: pd.Index) -> SchemaError:
    """The error for a run none of whose queries is judged (also used by pdireval.dask)."""
    return SchemaError(
        f"the run's queries share nothing with the qrels: the run has "
        f"{_count(n_run_queries, 'query', 'queries')} (e.g. {list(run_queries[:5])}), the qrels "
        f"{len(judged)} (e.g. {judged[:5].tolist()}). Check that both come from the same "
        "collection, and that "
        "query ids are spelled alike (they are compared as strings)."
    )


def _resolve_judgments(run: pd.DataFrame, qrels, qrels_columns) -> pd.DataFrame:
    if qrels is not None:
        return canonical_qrels(as_frame(qrels, "qrels"), qrels_columns)
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
    score_precision: str = "float32",
    qrels_canonical: bool = False,
) -> Prepared:
    """Validate ``run`` and ``qrels`` and reduce them to segments (see :func:`evaluate`).

    ``canonical=True`` skips validation of a run that is already canonical, and
    ``qrels_canonical=True`` of qrels that are (:func:`~pdireval.core.schema.canonical_qrels`'s
    output; internal use).
    """
    check_option("missing", missing, MISSING)
    check_option("order", order, ORDERS)
    check_option("score_precision", score_precision, SCORE_PRECISIONS)
    keys = None
    if not canonical:
        run, keys = canonical_run_keys(as_frame(run, "run"), columns, order=order)
    if order == "score" and "score" not in run.columns:
        order = "rank"  # only a rank column: order by it
    if order == "rank" and "rank" not in run.columns:
        raise SchemaError("order='rank' needs a 'rank' column in the run; it has only 'score'.")
    if qrels_canonical and qrels is not None:
        judgments_frame = qrels
    else:
        judgments_frame = _resolve_judgments(run, qrels, qrels_columns)
    judgments = build_judgments(judgments_frame)

    if keys is None:
        keys = run_keys(run)
    judged_run, keys, dropped = judged_rows(run, keys, judgments)
    if len(judged_run) == 0:
        raise no_overlap_error(pd.unique(run["query"]), run["query"].nunique(), judgments.queries)
    if dropped is not None:
        warnings.warn(unjudged_message(dropped), PdirevalWarning, stacklevel=3)
    run = judged_run
    segments = build_segments(
        run, judgments, order=order, keys=keys, score_precision=score_precision
    )
    recheck = recheck_of(segments, keys, order)
    for message in doc_id_messages(doc_id_evidence(segments, keys, judgments), judgments):
        warnings.warn(message, PdirevalWarning, stacklevel=3)
    if missing == "zero":
        answered = segments.n_segments
        segments = segments.with_empty_segments()
        filled = segments.n_segments - answered
        if filled:
            total = len(segments.systems) * judgments.n_queries
            warnings.warn(filled_message(filled, total), PdirevalWarning, stacklevel=3)
    return Prepared(segments, run, judgments_frame, missing, recheck)


def recheck_of(segments: Segments, keys, order: str):
    """:attr:`Prepared.recheck` of segments built from a run with ``keys``: the rows, keys and
    order of the lists whose float32 ties merged distinct doubles around a judged document,
    or None (also used by pdireval.dask)."""
    if segments.float32_merged is None:
        return None
    rows = np.flatnonzero(np.isin(keys.seg, segments.float32_merged))
    return rows, keys.take(rows), order


def float32_changes(
    prepared: Prepared, measures, values: list[np.ndarray], labels=None
) -> pd.DataFrame:
    """The per-query values that depend on comparing run scores at float32 precision.

    pdireval compares scores as C floats, as trec_eval 9 does, so distinct doubles that are
    equal as floats tie and are ordered by doc id. Only the (system, query) lists in which
    such a tie group holds a judged document can change (``Segments.float32_merged``); this
    evaluates those lists again with the doubles compared (``score_precision="float64"``,
    trec_eval 10.0) and keeps the values that differ.

    Parameters
    ----------
    prepared
        The run as prepared with ``score_precision="float32"``.
    measures, values
        The parsed measures and their per-segment values on ``prepared``.
    labels
        The ``measure`` column's spelling of each measure (default: ``str(measure)``).

    Returns
    -------
    DataFrame
        ``system``, ``query``, ``measure``, ``value`` (at float32, as returned),
        ``value_float64`` (the doubles compared); one row per changed value, ordered as
        :func:`evaluate` orders its rows. Empty when no value changes.
    """
    columns = ["system", "query", "measure", "value", "value_float64"]
    if prepared.recheck is None:
        return pd.DataFrame(
            {c: pd.Series([], dtype=float if c.startswith("value") else object) for c in columns}
        )
    rows, keys, order = prepared.recheck
    segments = prepared.segments
    exact = build_segments(
        prepared.run.iloc[rows].reset_index(drop=True),
        segments.judgments,
        order=order,
        keys=keys,
        score_precision="float64",
    )
    ids = segments.float32_merged  # segment j of ``exact`` is segment ids[j] of ``segments``
    labels = [str(m) for m in measures] if labels is None else list(labels)
    as32 = [np.asarray(v)[ids] for v in values]
    as64 = [compute(exact, m) for m in measures]
    sub = dataclasses.replace(
        segments,
        seg_system=segments.seg_system[ids],
        seg_query=segments.seg_query[ids],
        seg_len=segments.seg_len[ids],
        cache={},
    )
    frame = scores_frame(sub, measures, as32, labels)
    frame["value_float64"] = scores_frame(sub, measures, as64, labels)["value"].to_numpy()
    a, b = frame["value"].to_numpy(), frame["value_float64"].to_numpy()
    changed = (a != b) & ~(np.isnan(a) & np.isnan(b))
    return frame[changed].reset_index(drop=True)


PRECISION_ADVICE = "score_precision='{}'"  #: the Python API's words for the choice
#: evaluate's measures when none are named (the command line's too: pdireval.cli)
DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "RR")


def float32_message(changes: pd.DataFrame, n_values: int, advice: str, what: str = "values") -> str:
    """The one warning about values that depend on float32 ties (:func:`float32_changes`, with
    ``system, measure, value, value_float64`` and optionally ``query``): what it means, how
    many of ``n_values`` ``what``, one example, and the choice (``advice``: the option as a
    template, :data:`PRECISION_ADVICE`)."""
    first = changes.iloc[0]
    per = changes.groupby("measure", sort=False).size()
    counts = ", ".join(f"{m}: {n}" for m, n in per.items())
    where = f"system {first['system']!r}" + (
        f", query {first['query']!r}" if "query" in changes else ""
    )
    a, b = float(first["value"]), float(first["value_float64"])
    digits = next((d for d in range(6, 18) if f"{a:.{d}g}" != f"{b:.{d}g}"), 17)  # enough to differ
    return (
        f"{len(changes)} of {n_values} {what} ({counts}) differ between trec_eval 9.0.8 and "
        "10.0 because some run scores, distinct as doubles, are equal at float32 precision: "
        "9.0.8 (pdireval's default) orders such ties by doc id. "
        f"E.g. {where}: {first['measure']} {a:.{digits}g} "
        f"({b:.{digits}g} as doubles). Choose one to silence this warning: "
        f"{advice.format('float32')} keeps 9.0.8's numbers, {advice.format('float64')} gives "
        "10.0's."
    )


def filled_message(filled: int, total: int) -> str:
    """The warning of ``missing="zero"`` when it filled (system, query) pairs."""
    return (
        f"missing='zero': {_count(filled, '(system, query) pair', '(system, query) pairs')} "
        f"had no retrieved document (judged queries a system did not answer) and score "
        f"each measure's empty value (0; NumRel = R), out of {total}. "
        "Pass missing='drop' to leave them out (trec_eval's default)."
    )


def scores_frame(
    segments: Segments, measures, values: list[np.ndarray], labels=None
) -> pd.DataFrame:
    """Assemble per-segment values into the tidy scores frame, rows ordered by system
    (sorted), query (natural order), then measure (in the order given). ``labels``: the
    ``measure`` column's text of each measure (default ``str(measure)``, the canonical one)."""
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
            "system": pd.array(
                np.repeat(segments.systems.to_numpy()[segments.seg_system[seg_order]], n_m),
                dtype=ID_DTYPE,
            ),
            "query": pd.array(
                np.repeat(
                    segments.judgments.queries.to_numpy()[segments.seg_query[seg_order]], n_m
                ),
                dtype=ID_DTYPE,
            ),
            "measure": pd.array(
                np.tile([str(m) for m in measures] if labels is None else list(labels), n_seg),
                dtype=ID_DTYPE,
            ),
            "value": value.reshape(-1),
        }
    )
    return frame


@options_by_name
def evaluate(
    run: pd.DataFrame,
    measures: Measures = DEFAULT_MEASURES,
    *,
    qrels: pd.DataFrame | None = None,
    missing: Missing = "zero",
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    order: Order = "score",
    score_precision: ScorePrecision | None = None,
    judges: Judges = "each",
    unjudged: Unjudged | None = None,
    trec_eval: TrecEvalVersion | None = None,
) -> pd.DataFrame:
    """Evaluate a run frame: one value per (system, query, measure).

    Parameters
    ----------
    run
        Run frame: ``system, query, doc`` and ``score`` and/or ``rank`` (optionally
        ``label``), one row per retrieved document per system (and per ``seed`` or
        ``trial``: the repetitions of a stochastic system, e.g. an LLM reranker run with
        several seeds, each a ranking of its own). Other tools' column names
        are recognised (PyTerrier's ``qid, docno``, ir_measures' ``query_id, doc_id``, ...;
        see docs/data-model.md), a frame without a system column is one system named
        ``"run"``, and 0-based ranks are shifted to 1-based. Also a path (read with
        :func:`pdireval.read_run`), a pytrec_eval dict ``{query: {doc: score}}`` or an
        iterable of records (namedtuples, dicts).
    measures
        A measure string (``"nDCG@10"``), or anything whose ``str()`` is one (ir_measures
        measure objects), or a list of them; trec_eval spellings (``P.10``, ``P.5,10``,
        ``P_10``, ``official``) and ranx names (``ndcg_burges@10``, ``hits@5-l2``) work
        too. See :func:`pdireval.measures` and docs/coming-from.md. Default: ``AP``,
        ``nDCG@10``, ``P@10``, ``RR`` (those of ``pdireval evaluate``).
    qrels
        Judgments: ``query, doc, label`` (other tools' names recognised, e.g. ir_datasets'
        ``query_id, doc_id, relevance``); also a path, a pytrec_eval dict of dicts
        ``{query: {doc: label}}`` or an iterable of records (ir_datasets' ``qrels_iter()``).
        When omitted, the run's ``label`` column supplies them (the distinct (query, doc,
        label) rows; conflicting labels are an error). Qrels of several judges carry a
        ``judge`` column (:func:`pdireval.read_qrels` of several files, or of trec_eval 10.0's
        ``qrels_jg`` format with ``judges=True``); see ``judges``.
    missing
        ``"zero"`` (default, ir_measures): a judged query a system did not answer scores the
        measure's empty value (0 for most; NumRel is R). ``"drop"``: such rows are left out
        (trec_eval's default).
    columns, qrels_columns
        ``{canonical name: your column name}`` mappings for the run and the qrels (a qrels
        ``iteration`` column varying within queries is the subtopic of diversity measures).
    order
        ``"score"`` (default): score descending, ties by doc id descending (trec_eval).
        ``"rank"``: the rank column ascending, ties by doc id ascending. A run with only a
        ``rank`` column is ordered by rank.
    score_precision
        ``"float32"`` (default; ``"float64"`` with ``trec_eval="10"``): scores equal as C
        floats are ties, as in trec_eval 9.0.8 and
        pytrec_eval (trec_eval stores scores as floats). When that ties distinct doubles
        (``0.1000000001`` and ``0.1000000002``; ``1e40`` and ``2e40``, both inf) and so
        changes a returned value (the lists concerned are evaluated again with the doubles
        compared), one :class:`PdirevalWarning` counts the changed values and shows the
        first; ties that change no value (e.g. on Robust 2003, 1,458 such scores in 123
        lists change AP on 13 queries and nDCG@10, P@10, RR nowhere) are not reported.
        ``"float64"``: only equal doubles
        tie, as in trec_eval 10.0 (e.g. Robust 2003, query 623 of oce03noXbmD: AP 0.5 in
        9.0.8, 1.0 in 10.0).
    judges
        Only for qrels with a ``judge`` column holding several judges. ``"each"`` (default):
        the run is evaluated against every judge's qrels, as ``evaluate(run, measures,
        qrels=qrels[qrels.judge == j])`` would, in one pass (one validation, sort and join of
        the run: :func:`pdireval.evaluate_variants`); a judge is evaluated on the queries it
        judged. ``"mean"``: per (system, query, measure) the mean over the judges who judged
        the query, m̄(q) = (1/|J_q|) Σ_{j ∈ J_q} m_j(q) (NaN values skipped), as trec_eval
        10.0's judgment-group measures (``map_avgjg``, ``P_avgjg``) average over the
        judgment groups of a query.
    unjudged
        None (default): each measure reads unjudged documents its own way (most as
        non-relevant). ``"bounds"``: also ``value_low`` and ``value_high``, the range of the
        measure over the holes of each ranking: with v₀ the measure when every unjudged
        retrieved document of the (system, query) (absent from the qrels, or NaN) is judged
        non-relevant (label 0) and v₁ when each is judged at the highest label of the qrels,
        ``value_low = min(v₀, v₁)`` and ``value_high = max(v₀, v₁)``. Only that system's
        ranking is completed (other systems' documents do not change R or the ideal
        ranking). For a measure monotone in the labels of the retrieved documents (P,
        DCG, RR, Success, NumRelRet, ERR, ...) these are its exact minimum and maximum over
        every labelling of the holes; for measures normalised by the judged pool (AP,
        nDCG, R, Rprec), they are the two completions, not an exhaustive range. RBP takes
        Moffat & Zobel's (2008) bounds instead: RBP and RBP + RBPResidual (the residual
        also counts the ranks past the end of the ranking). ``value`` is unchanged, so for
        measures that skip unjudged documents (Bpref, infAP, ``judged_only=True``) or count
        them (``Judged@k``, ``Unjudged@k``: 1 and 0 once the holes are judged) it may lie
        outside the bounds. Not with several judges.
    trec_eval
        None (default): trec_eval 9.0.8's formulas where they differ; ``"9.0.8"``: the same,
        refusing measures only 10.0 has; ``"10"``: trec_eval 10.0's numbers (scores as
        doubles, ``iprec_at_recall_x`` / 11pt_avg at lround(x·R) relevant documents,
        ``all_trec`` with rbp, rbp_resid, unj_5/10/20). See docs/coming-from.md.

    Returns
    -------
    DataFrame
        ``system`` (str), ``query`` (str), ``measure`` (str, the name as given: ``"map"``
        stays ``"map"``, an ir_measures object its ``str()``; a trec_eval name of several
        measures such as ``"P.5,10"`` or a :class:`~pdireval.measures.Measure` gives the
        canonical spellings, ``P@5, P@10``; ``str(pdireval.parse_measure(name))`` is the
        canonical spelling of any name),
        ``value`` (float64); sorted by system, query (numeric order when ids are integers),
        then measure in the order given (two names of one measure, ``"map"`` and ``"AP"``,
        give two sets of rows). With several judges and ``judges="each"``, a first
        column ``judge`` (str), blocks of rows per judge (judges sorted), each ordered as
        above; ``judges="mean"`` gives the four columns, rows over the queries any judge
        judged. ``unjudged="bounds"`` adds ``value_low`` and ``value_high`` (float64;
        equal to ``value`` for a ranking without unjudged documents). A run with a seed
        column gives a ``seed`` column (str) after ``system``: one value per (system, seed,
        query, measure), rows sorted by system and seed (as strings); see
        :func:`pdireval.aggregate` and :func:`pdireval.compare`'s ``seeds=``. Run queries without
        judgments are dropped with one
        :class:`PdirevalWarning`; under ``missing="zero"``, one :class:`PdirevalWarning`
        says how many (system, query) pairs were filled with empty values. Doc ids that do
        not match the qrels get one :class:`PdirevalWarning`: when no retrieved document of
        the run is in the qrels, or when ranked lists of at least 10 documents retrieve no
        judged document while some of their doc ids match a judged one but for case, Unicode
        form or surrounding whitespace (see :mod:`pdireval.core.docids`).

    Raises
    ------
    SchemaError
        Malformed run or qrels (see :func:`pdireval.core.schema.canonical_run`), no judgments,
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
    check_option("judges", judges, JUDGES)
    if unjudged is not None:
        check_option("unjudged", unjudged, UNJUDGED)
    version = trec_eval_version(trec_eval)
    chosen = score_precision is not None  # a chosen precision needs no warning about it
    score_precision = score_precision_for(score_precision, version)
    run = as_frame(run, "run")
    seed = _seed_column(run, columns)
    if seed is not None:
        return _evaluate_seeds(
            run,
            seed,
            measures,
            qrels=qrels,
            missing=missing,
            columns=columns,
            qrels_columns=qrels_columns,
            order=order,
            score_precision=score_precision if chosen else None,
            judges=judges,
            unjudged=unjudged,
            trec_eval=trec_eval,
        )
    labelled = measures_for(measures, version)  # names as given
    parsed = list(dict.fromkeys(m for _, m in labelled))
    if qrels is not None:  # canonical once: the judge column read here, prepare takes them as is
        qrels = as_frame(qrels, "qrels")
        qrels = canonical_qrels(qrels, subtopic_columns(qrels, qrels_columns, parsed))
        qrels_columns = None
        if "judge" in qrels.columns and qrels["judge"].nunique() > 1:
            if unjudged is not None:
                raise OptionError(
                    "unjudged='bounds' takes the qrels of one judge; these hold "
                    f"{qrels['judge'].nunique()} judges. Bound each judge's scores on its own "
                    "(qrels[qrels['judge'] == j]), or fill one judge's holes with another's "
                    "labels first (pdireval.fill_holes)."
                )
            return _evaluate_judges(
                run,
                measures,
                qrels,
                judges_for(parsed, judges),
                missing=missing,
                columns=columns,
                order=order,
                score_precision=score_precision,
            )
    prepared = prepare(
        run,
        qrels=qrels,
        missing=missing,
        columns=columns,
        qrels_columns=qrels_columns,
        order=order,
        score_precision=score_precision,
        qrels_canonical=qrels is not None,
    )
    given, measures_given = zip(*labelled)  # names as given
    labels: Sequence[str] | None = given
    named: Sequence[Measure] = measures_given
    shown: dict[str, str] = {}
    for label, m in zip(given, named):
        shown.setdefault(str(m), label)
    if unjudged == "bounds":  # the bounds are matched by canonical name, renamed after
        labels, named = None, parsed
    cache: dict = {}
    values = [cache[m] if m in cache else cache.setdefault(m, prepared.values(m)) for m in named]
    scores = scores_frame(prepared.segments, named, values, labels)
    if prepared.recheck is not None and not chosen:
        changes = float32_changes(prepared, named, values, labels)
        if len(changes):
            message = float32_message(changes, len(scores), PRECISION_ADVICE)
            warn_caller(message, once="float32")
    if unjudged == "bounds":
        scores = unjudged_bounds(
            prepared.run,
            parsed,
            prepared.qrels,
            scores,
            order=order,
            score_precision=score_precision,
            missing=missing,
        )
        names = scores["measure"].astype(object).map(lambda x: shown.get(x, x))
        scores["measure"] = pd.array(names.to_numpy(dtype=object), dtype=ID_DTYPE)
    return scores


def evaluate_with_changes(
    run, measures, *, trec_eval=None, score_precision=None, **options
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """:func:`evaluate` (one judge, no seeds, no bounds) without its float32 warning: the
    scores frame and the values that float32 ties change (:func:`float32_changes`; None when
    no tie merged distinct doubles around a judged document), for entry points that word the
    warning themselves. ``trec_eval`` and ``score_precision`` as in :func:`evaluate`."""
    version = trec_eval_version(trec_eval)
    labels, parsed = zip(*measures_for(measures, version))
    precision = score_precision_for(score_precision, version)
    prepared = prepare(run, score_precision=precision, **options)
    cache: dict = {}
    values = [cache[m] if m in cache else cache.setdefault(m, prepared.values(m)) for m in parsed]
    frame = scores_frame(prepared.segments, parsed, values, labels)
    changes = (
        None if prepared.recheck is None else float32_changes(prepared, parsed, values, labels)
    )
    return frame, changes


def _seed_column(run, columns) -> str | None:
    """The run's seed column (``seed`` or ``trial``, or what ``columns["seed"]`` names)."""
    if not isinstance(run, pd.DataFrame):
        return None
    return seed_column(run.columns, columns)


def _evaluate_seeds(run: pd.DataFrame, seed: str, measures, *, columns, **options) -> pd.DataFrame:
    """:func:`evaluate` of a run with one ranking per (system, seed, query): each (system,
    seed) is evaluated as a system of its own, then split back into two columns."""
    canonical = join_seeds(run, seed, columns)
    return split_seeds(evaluate(canonical, measures, **options))


def _evaluate_judges(run, measures, qrels: pd.DataFrame, judges: str, **options) -> pd.DataFrame:
    """:func:`evaluate` on canonical qrels of several judges (a ``judge`` column)."""
    from pdireval.runs.variants import evaluate_variants

    if "subtopic" in qrels.columns:
        raise SchemaError(
            "the qrels have both a 'judge' and a 'subtopic' column: judges of diversity "
            "qrels are not supported yet. Evaluate each judge's qrels on its own, e.g. "
            "qrels[qrels['judge'] == j].drop(columns='judge')."
        )
    per_judge = evaluate_variants(run, measures, qrels, **options)
    if judges == "each":
        return per_judge
    return judge_mean(per_judge)


def _residual_of(m):
    """The RBPResidual measure matching an RBP measure's persistence, cut-off and readings."""
    params = {k: v for k, v in m.params if k != "rel"}
    return build_measure("RBPResidual", params, m.cutoff)


def _pair_qrels(qrels: pd.DataFrame, pair_query, n_pairs: int) -> pd.DataFrame:
    """The qrels of each pair's query, the pair's code (0..n_pairs-1, as a string) for query."""
    # every pair's query qrels (vectorised repeat of each query's row range)
    q_codes, q_ids = pd.factorize(qrels["query"])
    order_rows = np.argsort(q_codes, kind="stable")
    counts = np.bincount(q_codes, minlength=len(q_ids))
    starts = np.concatenate([[0], np.cumsum(counts)])
    pq = pd.Index(q_ids).get_indexer(pair_query)
    n_rows = counts[pq]
    offsets = np.repeat(starts[pq] - np.concatenate([[0], np.cumsum(n_rows)[:-1]]), n_rows)
    take = order_rows[np.arange(int(n_rows.sum())) + offsets]
    return pd.DataFrame(
        {
            "query": np.repeat(np.arange(n_pairs), n_rows).astype(str),
            "doc": qrels["doc"].to_numpy(dtype=object)[take],
            "label": qrels["label"].to_numpy(dtype=np.float64)[take],
        }
    )


def _add_rbp_residuals(out, rbp, run, qrels, missing, columns, order, score_precision) -> None:
    """Set the RBP rows' bounds in ``out`` to RBP and RBP + residual (Moffat & Zobel 2008)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PdirevalWarning)
        resid = evaluate(
            run,
            [_residual_of(m) for m in rbp],
            qrels=qrels,
            missing=missing,
            columns=columns,
            order=order,
            score_precision=score_precision,
        )
    for m, r in zip(rbp, [_residual_of(m) for m in rbp]):
        rows = (out["measure"] == str(m)).to_numpy()
        part = resid[resid["measure"] == str(r)]
        where = pd.MultiIndex.from_arrays([part["system"], part["query"]])
        pos = where.get_indexer(
            pd.MultiIndex.from_arrays([out["system"][rows], out["query"][rows]])
        )
        value = out["value"].to_numpy()[rows]
        out.loc[rows, "value_low"] = value
        out.loc[rows, "value_high"] = value + np.where(
            pos >= 0, part["value"].to_numpy()[np.maximum(pos, 0)], 0.0
        )


def unjudged_bounds(
    run,
    parsed,
    qrels,
    scores: pd.DataFrame,
    *,
    columns=None,
    order="score",
    score_precision="float32",
    missing="zero",
) -> pd.DataFrame:
    """``scores`` (evaluate's frame of ``run`` on ``qrels``) with ``value_low`` and
    ``value_high``: see :func:`pdireval.evaluate`'s ``unjudged="bounds"``.

    Each (system, query) with unjudged retrieved documents becomes its own query whose
    judgments are the query's qrels plus that system's unjudged retrieved documents at one
    label (0, then the highest label), so one evaluation per completion covers every
    system at once; the other pairs have no hole (low = high = value).
    """
    run = canonical_run(run, columns)
    judged = qrels["label"].notna().to_numpy()
    top = float(qrels["label"].to_numpy()[judged].max()) if judged.any() else 0.0
    # retrieved documents of judged queries without a label: absent from qrels, or NaN
    key = pd.MultiIndex.from_arrays([qrels["query"], qrels["doc"]])
    row = key.get_indexer(pd.MultiIndex.from_arrays([run["query"], run["doc"]]))
    judged_query = run["query"].isin(qrels["query"].unique()).to_numpy()
    holes = judged_query & ((row < 0) | ~judged[np.maximum(row, 0)])
    seg_code, seg_keys = pd.MultiIndex.from_arrays([run["system"], run["query"]]).factorize()
    has_hole = np.zeros(len(seg_keys), dtype=bool)
    has_hole[seg_code[holes]] = True
    low = scores["value"].to_numpy(dtype=np.float64).copy()
    high = low.copy()
    if has_hole.any():
        # pseudo-queries: one per (system, query) with a hole, named by its code
        pairs = np.flatnonzero(has_hole)
        pair_query = seg_keys.get_level_values(1)[pairs]
        pseudo = np.full(len(seg_keys), -1, dtype=np.int64)
        pseudo[pairs] = np.arange(len(pairs))
        rows = np.flatnonzero(has_hole[seg_code])
        sub_run = pd.DataFrame(
            {
                "system": run["system"].to_numpy(dtype=object)[rows],
                "query": pseudo[seg_code[rows]].astype(str),
                "doc": run["doc"].to_numpy(dtype=object)[rows],
            }
        )
        for c in ("score", "rank"):
            if c in run.columns:
                sub_run[c] = run[c].to_numpy()[rows]
        base = _pair_qrels(qrels, pair_query, len(pairs))
        hole_rows = np.flatnonzero(holes & has_hole[seg_code])
        filled = pd.DataFrame(
            {
                "query": pseudo[seg_code[hole_rows]].astype(str),
                "doc": run["doc"].to_numpy(dtype=object)[hole_rows],
            }
        )
        # a NaN-labelled pooled row is replaced by the completion's label
        base = base[base["label"].notna().to_numpy()]
        values = {}
        for name, label in (("zero", 0.0), ("top", top)):
            completed = pd.concat([base, filled.assign(label=label)], ignore_index=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PdirevalWarning)
                values[name] = evaluate(
                    sub_run,
                    parsed,
                    qrels=completed,
                    missing="drop",
                    order=order,
                    score_precision=score_precision,
                )
        # back to the (system, query) rows of scores
        target = pd.MultiIndex.from_arrays(
            [
                scores["system"].to_numpy(dtype=object),
                scores["query"].to_numpy(dtype=object),
                scores["measure"].to_numpy(dtype=object),
            ]
        )
        for name in ("zero", "top"):
            v = values[name]
            pair = v["query"].to_numpy(dtype=object).astype(np.int64)
            where = pd.MultiIndex.from_arrays(
                [
                    v["system"].to_numpy(dtype=object),
                    np.asarray(pair_query, dtype=object)[pair],
                    v["measure"].to_numpy(dtype=object),
                ]
            )
            pos = where.get_indexer(target)
            found = pos >= 0
            values[name] = (found, v["value"].to_numpy(dtype=np.float64)[np.maximum(pos, 0)])
        found, zero = values["zero"]
        _, full = values["top"]
        low = np.where(found, np.minimum(zero, full), low)
        high = np.where(found, np.maximum(zero, full), high)
    out = scores.copy()
    out["value_low"] = low
    out["value_high"] = high
    # RBP: Moffat & Zobel's bounds, RBP and RBP + residual (the residual also counts the
    # ranks past the end of the list, which no completion of the retrieved labels reaches).
    # Named, not declared: Moffat & Zobel (2008) define the residual for RBP alone.
    rbp = [m for m in parsed if m.name == "RBP"]
    if rbp:
        _add_rbp_residuals(out, rbp, run, qrels, missing, columns, order, score_precision)
    return out
