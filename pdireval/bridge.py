"""pdireval measures inside ir_measures-based pipelines (ir_measures, PyTerrier)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure as IrMeasure

    from pdireval.types import MeasureLike

__all__ = ["as_ir_measure"]


def as_ir_measure(measure: MeasureLike) -> IrMeasure:
    """An ir_measures measure that computes a pdireval measure.

    Built with ir_measures' own ``define`` mechanism (MacAvaney, Macdonald & Ounis 2022),
    so that pdireval-only measures — ``GAP``, ``RIC``, bound-normalised readings
    (``nDCG(bounds=...)``), ``negatives=`` readings — work in ``ir_measures.calc_aggregate``,
    ``ir_measures.iter_calc`` and hence PyTerrier's ``pt.Experiment``. Each query is
    evaluated by :func:`pdireval.evaluate` (trec_eval's ordering: score descending, ties by
    document id descending), so the numbers are pdireval's.

    Parameters
    ----------
    measure : str or Measure
        Any pdireval measure string (``"GAP"``, ``"nDCG(negatives=nonrel)@10"``), or an
        object whose ``str()`` is one (e.g. an ir_measures measure).

    Returns
    -------
    ir_measures measure
        Named by the pdireval canonical spelling; it takes no further cut-off (put the
        cut-off in the pdireval string).

    Raises
    ------
    ImportError
        ir_measures is not installed (``pip install ir_measures``).
    MeasureError
        ``measure`` does not parse.

    Examples
    --------
    >>> import ir_measures, pdireval
    >>> gap = pdireval.as_ir_measure("GAP")
    >>> str(gap)
    'GAP'
    """
    from pdireval.measures import parse_measure

    parsed = parse_measure(measure)
    try:
        import ir_measures
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "as_ir_measure needs ir_measures: pip install ir-measures (or pdireval[ir_measures])."
        ) from None

    def impl(qrels, run):
        import warnings

        from pdireval.errors import PdirevalWarning
        from pdireval.evaluation import evaluate

        if len(run) == 0 or len(qrels) == 0:
            return []
        run = run[["query_id", "doc_id", "score"]].assign(system="run")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PdirevalWarning)  # queries without judgments
            scores = evaluate(
                run,
                parsed,
                qrels=qrels[["query_id", "doc_id", "relevance"]],
                missing="drop",
                columns={"query": "query_id", "doc": "doc_id"},
                qrels_columns={"query": "query_id", "doc": "doc_id", "label": "relevance"},
            )
        return list(zip(scores["query"].astype(object), scores["value"].astype(float)))

    return ir_measures.define(
        impl,
        name=str(parsed),
        support_cutoff=False,
        short_desc=f"pdireval's {parsed} (pdireval.as_ir_measure)",
    )
