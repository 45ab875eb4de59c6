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
    tie_aware,  # noqa: F401  (ties="expected" on the rank-based measures; after bounds)
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

__all__ = ["Measure", "MeasureDef", "Param", "REGISTRY", "parse_measure", "parse_measures", "build_measure", "registry_frame", "RegistryFrame", "compute"]


def compute(segments, measure: Measure):
    """Per-segment values of ``measure`` (float64 array, one per segment)."""
    return measure.definition.kernel(segments, measure)


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
    per measure (name, cut-off, trec_eval name, summary, formula, parameters, reference)
    instead of a table whose long text columns pandas elides with ``...``. Anything derived
    from it (a selection, a copy) is an ordinary DataFrame."""

    @property
    def _constructor(self):
        return pd.DataFrame

    def __repr__(self) -> str:
        needed = {"measure", "description", "cutoff", "parameters", "trec_eval", "summary", "citation"}
        if not needed <= set(self.columns):
            return pd.DataFrame(self).__repr__()
        import textwrap

        blocks = [f"{len(self)} measures (pdireval.measures() is a DataFrame with columns {', '.join(self.columns)})"]
        for row in self.itertuples(index=False):
            head = f"{row.measure}  [cut-off {row.cutoff}"
            head += f"; trec_eval {row.trec_eval}" if row.trec_eval else ""
            head += f"; summary {row.summary}]" if row.summary != "mean" else "]"
            lines = [head]
            for label, text in (("", row.description), ("parameters: ", row.parameters), ("reference: ", row.citation)):
                if text:
                    lines += textwrap.wrap(label + text, width=96, initial_indent="    ", subsequent_indent="      ")
            blocks.append("\n".join(lines))
        return "\n".join(blocks)

    __str__ = __repr__


class _CallableModule(types.ModuleType):
    """``pdireval.measures`` is both this subpackage and a function returning the registry."""

    def __call__(self) -> pd.DataFrame:
        return registry_frame()


sys.modules[__name__].__class__ = _CallableModule
