"""Score ties: the tie-method declarations (:mod:`.methods`) and the machinery that knows no
measure."""

from pdireval.measures.ties.methods import (
    GENERAL,
    ByCutoff,
    ClosedForm,
    Enumeration,
    Groupwise,
    Invariant,
    Joint,
    TieMethod,
    expected,
    method_for,
    method_kind,
)

__all__ = [
    "GENERAL",
    "ByCutoff",
    "ClosedForm",
    "Enumeration",
    "Groupwise",
    "Invariant",
    "Joint",
    "TieMethod",
    "expected",
    "method_for",
    "method_kind",
]
