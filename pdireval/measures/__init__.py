"""Measures: the registry and parser, label views, kernels, bound normalisation, RIC.

The module itself is callable: ``pdireval.measures()`` returns the registry as a DataFrame
(see :func:`registry_frame`), while ``import pdireval.measures.bounds`` reaches the
subpackage's modules.
"""

from __future__ import annotations

import sys
import types

import pandas as pd

from pdireval.measures import ric  # noqa: F401  (registers RIC)
from pdireval.measures.compute import compute
from pdireval.measures.cwl import definitions as _cwl  # noqa: F401
from pdireval.measures.diversity import definitions as _diversity  # noqa: F401
from pdireval.measures.pairs import definitions as _pairs  # noqa: F401
from pdireval.measures.registry import (
    REGISTRY,
    Measure,
    MeasureDef,
    Param,
    build_measure,
    parse_measure,
    parse_measures,
)
from pdireval.measures.sakai import definitions as _sakai  # noqa: F401
from pdireval.measures.standard import definitions as _standard  # noqa: F401
from pdireval.measures.trec_eval import definitions as _trec_eval  # noqa: F401
from pdireval.measures.trec_eval import names as _trec_names  # noqa: F401  (its spellings)

__all__ = [
    "Measure",
    "MeasureDef",
    "Param",
    "REGISTRY",
    "parse_measure",
    "parse_measures",
    "build_measure",
    "registry_frame",
    "RegistryFrame",
    "compute",
]


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
        needed = {
            "measure",
            "description",
            "cutoff",
            "parameters",
            "trec_eval",
            "summary",
            "citation",
        }
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
            return textwrap.wrap(
                text,
                width=width,
                initial_indent=first,
                subsequent_indent=rest,
                break_long_words=False,
                break_on_hyphens=False,
            )

        blocks = [
            "\n".join(
                wrap(
                    f"{len(self)} measures (a DataFrame with columns {', '.join(self.columns)}):",
                    "",
                    "",
                )
            )
        ]
        for row in self.itertuples(index=False):
            head = f"{row.measure}  [cut-off {row.cutoff}"
            head += f"; trec_eval {row.trec_eval}" if row.trec_eval else ""
            head += f"; summary {row.summary}]" if row.summary != "mean" else "]"
            lines = wrap(head, "", "    ")
            for label, text in (
                ("", row.description),
                ("parameters: ", row.parameters),
                ("reference: ", row.citation),
            ):
                if text:
                    lines += wrap(label + text, "    ", "      ")
            blocks.append("\n".join(lines))
        return "\n".join(blocks)

    def _repr_html_(self) -> str:
        """In a notebook: the whole table, no cell cut short with ``...``."""
        with pd.option_context(
            "display.max_colwidth", None, "display.max_rows", None, "display.max_columns", None
        ):
            return pd.DataFrame(self)._repr_html_()

    __str__ = __repr__


class _CallableModule(types.ModuleType):
    """``pdireval.measures`` is both this subpackage and a function returning the registry."""

    def __call__(self) -> pd.DataFrame:
        return registry_frame()


sys.modules[__name__].__class__ = _CallableModule
