"""Measures: the registry and parser, label views, kernels, bound normalisation, RIC.

The module itself is callable: ``pdireval.measures()`` returns the registry as a DataFrame
(see :func:`registry_frame`), while ``import pdireval.measures.bounds`` reaches the
subpackage's modules.
"""

from __future__ import annotations

import sys
import types

import pandas as pd

from pdireval.measures import (
    accuracy,  # noqa: F401  (registers Accuracy)
    bounds,  # noqa: F401  (bound parameters on the standard measures; imports standard)
    compat,  # noqa: F401  (registers Compat)
    cwl,  # noqa: F401  (registers the C/W/L family of cwl_eval)
    diversity,  # noqa: F401  (registers the intent-aware measures of ndeval)
    ric,  # noqa: F401  (registers RIC)
    sakai,  # noqa: F401  (registers Q, nERR; Bpref(variant=10R))
    standard,  # noqa: F401  (registers the standard measures)
    tie_aware,  # ties="expected" on every measure: installed below, after every registration
    trec_eval_set,  # noqa: F401  (registers the rest of trec_eval's all_trec set)
)
from pdireval.measures.registry import (
    REGISTRY,
    Measure,
    MeasureDef,
    Param,
    build_measure,
    parse_measure,
    parse_measures,
)

tie_aware.install()  # ties= on every measure registered above

__all__ = ["Measure", "MeasureDef", "Param", "REGISTRY", "parse_measure", "parse_measures", "build_measure", "registry_frame", "RegistryFrame", "compute"]


def compute(segments, measure: Measure):
    """Per-segment values of ``measure`` (float64 array, one per segment).

    Kernels run with numpy's floating-point errors trapped: on ordinary input they raise
    none, so an overflow, invalid operation or division by zero (or a Python
    ``OverflowError``) means parameters or labels too large for float64 (``nDCG(gain=exp)``
    with labels of 5000, ``F(beta=1e300)``, gains of 1e308 whose ideal DCG is inf) and
    raises a :class:`~pdireval.errors.MeasureError` naming the measure, its parameters and the
    largest label: never a silent inf, NaN or a 0 that came from x / inf, and no numpy
    RuntimeWarning.
    """
    import numpy as np

    events: list[str] = []
    try:
        with np.errstate(over="call", invalid="call", divide="call", under="ignore",
                         call=lambda kind, flag: events.append(kind)):
            values = measure.definition.kernel(segments, measure)
    except (OverflowError, ZeroDivisionError) as exc:
        raise _overflow_error(segments, measure, "overflow" if isinstance(exc, OverflowError) else "division by zero") from None
    if events:  # kernels never raise these on ordinary input (the suite runs with warnings as errors)
        bad = ~np.isfinite(np.asarray(values, dtype=np.float64))
        raise _overflow_error(segments, measure, " and ".join(dict.fromkeys(events)), int(bad.sum()), len(bad))
    return values


def _overflow_error(segments, measure: Measure, what: str, n_bad: int | None = None, n: int | None = None):
    import numpy as np

    from pdireval.errors import MeasureError

    labels = segments.judgments.label
    labels = labels[np.isfinite(labels)]
    largest = f"{labels.max():g}" if len(labels) else "none"
    given = ", ".join(f"{k}=" for k, _ in measure.params) or "none"
    count = f" for {n_bad} of {n} (system, query) pairs" if n_bad else ""
    return MeasureError(
        f"{measure} overflows float64{count} (floating-point {what}): its "
        f"parameters (set: {given}) or the qrels labels (largest label: {largest}) are too large "
        "for float64 arithmetic. Use smaller parameter values, or map the labels to a few "
        "grades (e.g. qrels.assign(label=qrels['label'].clip(upper=4)))."
    )


def registry_frame() -> pd.DataFrame:
    """The measure registry as a DataFrame, one row per measure.

    Returns
    -------
    DataFrame
        Columns ``measure`` (canonical name), ``description``, ``cutoff`` (optional /
        required / none), ``parameters`` (``name=default`` list), ``trec_eval`` (the
        trec_eval name, empty if trec_eval lacks it), ``empty`` (value for a query the system
        did not answer), ``summary`` (how trec_eval summarises it over queries: ``mean``,
        ``sum`` or ``gm``, see :class:`~pdireval.measures.registry.MeasureDef`), ``citation``;
        sorted by name (case-insensitive).
    """
    rows = []
    for d in sorted(REGISTRY.values(), key=lambda d: d.name.lower()):
        rows.append(
            {
                "measure": d.name,
                "description": d.description,
                "cutoff": d.cutoff,
                "parameters": ", ".join(f"{p.name}={p.default}" for p in d.params),
                "trec_eval": d.trec_eval,
                "empty": d.empty,
                "summary": d.summary,
                "citation": d.citation,
            }
        )
    return RegistryFrame(rows)


class RegistryFrame(pd.DataFrame):
    """The registry frame (a plain DataFrame) that prints readably in a console: one block
    per measure (name, cut-off, trec_eval name, summary, formula, parameters, reference),
    wrapped to the terminal's width, instead of a table whose long text columns pandas
    elides with ``...``; in a notebook, the whole table. Anything derived from it (a
    selection, a copy) is an ordinary DataFrame."""

    @property
    def _constructor(self):
        return pd.DataFrame

    def __repr__(self) -> str:
        needed = {"measure", "description", "cutoff", "parameters", "trec_eval", "summary", "citation"}
        if not needed <= set(self.columns):
            return pd.DataFrame(self).__repr__()
        return self.to_text()

    def to_text(self, width: int | None = None) -> str:
        """The console form: one block per measure, wrapped to ``width`` columns (default:
        the terminal's width, as pandas reads it, between 60 and 120)."""
        import shutil
        import textwrap

        if width is None:
            width = pd.get_option("display.width") or 80
            if not pd.get_option("display.width") or width == 80:
                width = shutil.get_terminal_size((80, 24)).columns
            width = min(max(int(width), 60), 120)

        def wrap(text: str, first: str, rest: str) -> list[str]:
            return textwrap.wrap(text, width=width, initial_indent=first, subsequent_indent=rest,
                                 break_long_words=False, break_on_hyphens=False)

        blocks = ["\n".join(wrap(f"{len(self)} measures (a DataFrame with columns {', '.join(self.columns)}):", "", ""))]
        for row in self.itertuples(index=False):
            head = f"{row.measure}  [cut-off {row.cutoff}"
            head += f"; trec_eval {row.trec_eval}" if row.trec_eval else ""
            head += f"; summary {row.summary}]" if row.summary != "mean" else "]"
            lines = wrap(head, "", "    ")
            for label, text in (("", row.description), ("parameters: ", row.parameters), ("reference: ", row.citation)):
                if text:
                    lines += wrap(label + text, "    ", "      ")
            blocks.append("\n".join(lines))
        return "\n".join(blocks)

    def _repr_html_(self) -> str:
        """In a notebook: the whole table, no cell cut short with ``...``."""
        with pd.option_context("display.max_colwidth", None, "display.max_rows", None, "display.max_columns", None):
            return pd.DataFrame(self)._repr_html_()

    __str__ = __repr__


class _CallableModule(types.ModuleType):
    """``pdireval.measures`` is both this subpackage and a function returning the registry."""

    def __call__(self) -> pd.DataFrame:
        return registry_frame()


sys.modules[__name__].__class__ = _CallableModule
