"""``evaluate(..., trec_eval=...)``: the measures as one trec_eval release computes them.

trec_eval 10.0 (2026) changed interpolated precision (``iprec_at_recall``, ``11pt_avg``: a
recall level x is read at c = lround(x·R) relevant documents instead of ⌊x·R + 0.9⌋), stores
scores as doubles instead of C floats, and added ``rbp``, ``rbp_resid`` and ``unj_5/10/20``
to its ``all_trec`` set. :func:`measures_for` turns the measures a user asked for into the
ones the chosen release computes; :func:`judges_for` decides how measures averaged over
judgment groups (``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``) meet the ``judges=``
option.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pdireval.core.segments import SCORE_PRECISIONS
from pdireval.errors import MeasureError, OptionError, check_option
from pdireval.measures.registry import Measure, labelled_measures, parse_measures
from pdireval.measures.trec_eval.names import expand

if TYPE_CHECKING:
    from pdireval.types import ScorePrecision

__all__ = [
    "TREC_EVAL_VERSIONS",
    "trec_eval_version",
    "score_precision_for",
    "measures_for",
    "judges_for",
]

#: the values of ``trec_eval=`` and the release each names
TREC_EVAL_VERSIONS = {"9": 9, "9.0.8": 9, "10": 10, "10.0": 10}
#: the families trec_eval 10.0 added to ``all_trec``
ADDED_TO_ALL_TREC = ("rbp", "rbp_resid", "unj")


def trec_eval_version(value) -> int | None:
    """9, 10 or None (pdireval's defaults) for the ``trec_eval=`` option."""
    if value is None:
        return None
    key = str(value).strip()
    if key not in TREC_EVAL_VERSIONS:
        raise OptionError(
            f"trec_eval={value!r} is not a trec_eval release pdireval reproduces: use '10' "
            "(trec_eval 10.0), '9.0.8' (trec_eval 9.0.8, pytrec_eval) or None (the default: "
            "9.0.8's formulas, pdireval's measures)."
        )
    return TREC_EVAL_VERSIONS[key]


def score_precision_for(
    score_precision: ScorePrecision | None, version: int | None
) -> ScorePrecision:
    """The ``score_precision=`` option checked, or its default for trec_eval ``version``
    (:func:`trec_eval_version`'s value): ``"float64"`` for 10 (trec_eval 10.0 compares scores
    as doubles), else ``"float32"`` (9.0.8 stores them as C floats)."""
    if score_precision is None:
        return "float64" if version == 10 else "float32"
    check_option("score_precision", score_precision, SCORE_PRECISIONS)
    return score_precision


def _since(m: Measure) -> str:
    extra = m.definition.extra or {}
    return str(extra.get("trec_eval_since", ""))


#: how the MeasureError of a measure only 10.0 has tells the caller to choose 10.0, per
#: entry point: the Python API's option, or the ``pdireval evaluate`` command's
ADVICE = {
    "python": ("trec_eval='10'", "leave trec_eval unset"),
    "cli": ("--trec-eval 10", "leave --trec-eval out"),
}


def measures_for(
    measures, version: int | None, advice: str = "python"
) -> list[tuple[str, Measure]]:
    """(name shown, measure) of each requested measure as trec_eval ``version`` computes it.

    ``version=10``: ``all_trec`` also names 10.0's additions (rbp, rbp_resid, unj_5/10/20)
    and every measure with a ``trec_eval`` parameter (IPrec, 11pt_avg) gets 10;
    ``version=9``: a measure only 10.0 has is a MeasureError, whose advice names the option
    of the entry point ``advice`` (a key of :data:`ADVICE`); None: as given.
    """
    if version == 10:
        items = [measures] if isinstance(measures, (str, Measure)) else measures
        if not hasattr(items, "__iter__"):
            items = [items]
        widened = []
        for item in items:
            widened.append(item)
            if isinstance(item, str) and item.strip() == "all_trec":
                widened.extend(t.measure for f in ADDED_TO_ALL_TREC for t in expand(f))
        measures = widened
    labelled = labelled_measures(measures)
    if version is None:
        return labelled
    out = []
    for label, m in labelled:
        if version == 9 and _since(m):
            choose, unset = ADVICE[advice]
            raise MeasureError(
                f"{label!r} ({m}) is a measure of trec_eval {_since(m)}, which trec_eval 9.0.8 "
                f"does not have: evaluate it with {choose} (or {unset})."
            )
        if any(p.name == "trec_eval" for p in m.definition.params):
            m = m.replace(trec_eval=version)
        out.append((label, m))
    return out


def judges_for(parsed, judges: str) -> str:
    """The ``judges=`` reading for qrels of several judges: ``"mean"`` when every measure
    is averaged over the judgment groups (``map_avgjg``, ...), else ``judges``; a
    MeasureError/OptionError when averaged and per-judge measures are mixed under
    ``judges="each"``."""
    averaged = [m for m in parsed if (m.definition.extra or {}).get("judges") == "mean"]
    if not averaged or judges == "mean":
        return judges
    if len(averaged) == len(parsed):
        return "mean"
    others = [str(m) for m in parsed if m not in averaged]
    raise OptionError(
        f"{', '.join(map(str, averaged))} average over the judges (trec_eval's judgment "
        f"groups) while {', '.join(others[:3])} give one value per judge (judges='each'): "
        "pass judges='mean' to average every measure over the judges, or evaluate the "
        "*_avgjg measures in a call of their own."
    )


def parse_for(measures, version: int | None) -> list[Measure]:
    """The distinct measures of :func:`measures_for`, in order."""
    if version is None:
        return parse_measures(measures)
    return list(dict.fromkeys(m for _, m in measures_for(measures, version)))
