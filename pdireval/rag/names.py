"""The names of the nugget and support scores, their aliases, and the one resolver.

===========  ========================================================  ===================
canonical    aliases (read case-insensitively)                         counts
===========  ========================================================  ===================
A            ``all``, ``all_score`` (nuggetizer)                        all, partial 0.5
A_strict     ``all_strict``, ``strict_all``, ``strict_all_score``       all, support only
V            ``vital``, ``vital_score``                                 vital, partial 0.5
V_strict     ``vital_strict``, ``strict_vital``, ``strict_vital_score``  vital, support only
W            ``weighted``, ``weighted_score``                           weights, partial 0.5
W_strict     ``weighted_strict``, ``strict_weighted``                   weights, support only
===========  ========================================================  ===================

The canonical names are those of the TREC 2024 RAG track's reports (Pradeep et al., 2024);
the ``*_score`` aliases are nuggetizer's output fields. Support scores:
``support_precision`` (``precision``, ``weighted_precision``), ``support_recall``
(``recall``, ``weighted_recall``) and ``support_f1`` (``f1``, ``weighted_f1``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from pdireval.errors import MeasureError

__all__ = ["NUGGET_MEASURES", "SUPPORT_MEASURES", "resolve_names"]

#: canonical nugget score -> its aliases
NUGGET_MEASURES: dict[str, tuple[str, ...]] = {
    "A": ("all", "all_score"),
    "A_strict": ("all_strict", "strict_all", "strict_all_score"),
    "V": ("vital", "vital_score"),
    "V_strict": ("vital_strict", "strict_vital", "strict_vital_score"),
    "W": ("weighted", "weighted_score"),
    "W_strict": ("weighted_strict", "strict_weighted", "strict_weighted_score"),
}
#: canonical support score -> its aliases
SUPPORT_MEASURES: dict[str, tuple[str, ...]] = {
    "support_precision": ("precision", "weighted_precision"),
    "support_recall": ("recall", "weighted_recall"),
    "support_f1": ("f1", "weighted_f1"),
}


def resolve_names(
    measures: str | Iterable[str] | None, table: dict[str, tuple[str, ...]], what: str
) -> list[str]:
    """The canonical names of ``measures`` (None: every name of ``table``), in the order
    given, each once; an unknown name is a MeasureError with the closest names."""
    if measures is None:
        return list(table)
    if isinstance(measures, str):
        measures = [measures]
    if not isinstance(measures, Iterable):
        raise TypeError(
            f"measures= is a score name or a list of them, got {type(measures).__name__}"
        )
    lookup: dict[str, str] = {}
    for canonical, aliases in table.items():
        for name in (canonical, *aliases):
            lookup[name.lower()] = canonical
    out: list[str] = []
    for m in measures:
        if not isinstance(m, str):
            raise TypeError(f"a {what} measure is a name (a string), got {type(m).__name__}")
        found = lookup.get(m.strip().lower())
        if found is None:
            close = difflib.get_close_matches(m.strip().lower(), list(lookup), n=3)
            hint = f" Did you mean {', '.join(repr(lookup[c]) for c in close)}?" if close else ""
            raise MeasureError(
                f"unknown {what} measure {m!r}.{hint} Known: "
                + "; ".join(f"{c} ({', '.join(a)})" for c, a in table.items())
                + "."
            )
        if found not in out:
            out.append(found)
    if not out:
        raise MeasureError(f"no {what} measure given: pass one or more of {list(table)}.")
    return out
