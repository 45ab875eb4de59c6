"""The one door to the kernels: :func:`compute` applies a measure's declarations (``ties=``,
``bounds=``) and traps floating-point errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pdireval.errors import MeasureError
from pdireval.measures.registry import Measure
from pdireval.measures.ties.methods import expected

if TYPE_CHECKING:
    from pdireval.core.segments import Segments

__all__ = ["compute", "values_of", "USER_ERROR_FLAG"]

#: set on an exception raised inside a user measure's code (:mod:`pdireval.measures.user`):
#: :func:`compute` passes it on as it is, never read as an overflow of pdireval's arithmetic
USER_ERROR_FLAG = "_pdireval_user_measure"


def values_of(segments, measure: Measure) -> np.ndarray:
    """Per-segment values of ``measure`` as its declaration says (``ties=``, ``bounds=``),
    without the floating-point trap of :func:`compute`."""
    definition = measure.definition
    if measure.get("ties", "break") == "expected":
        if measure.get("bounds", "max") != "max":
            raise MeasureError(
                f"{measure}: ties='expected' does not combine with bounds= (give one of them)."
            )
        return expected(
            segments,
            measure,
            definition.kernel,
            definition.ties,
            real_cutoff=definition.cutoff == "real",
        )
    if definition.bounded is not None:
        from pdireval.measures.bounds import bounded_values

        return bounded_values(segments, measure)
    return definition.kernel(segments, measure)


def compute(segments: Segments, measure: Measure) -> np.ndarray:
    """Per-segment values of ``measure`` (float64 array, one per segment).

    The only caller of the kernels: it applies the measure's declared tie method
    (``ties="expected"``) and bound normalisation (``bounds=``). Kernels run with numpy's
    floating-point errors trapped: on ordinary input they raise none, so an overflow, invalid
    operation or division by zero (or a Python ``OverflowError``) means parameters or labels
    too large for float64 (``nDCG(gain=exp)`` with labels of 5000, ``F(beta=1e300)``, gains
    of 1e308 whose ideal DCG is inf) and raises a :class:`~pdireval.errors.MeasureError`
    naming the measure, its parameters and the largest label: never a silent inf, NaN or a 0
    that came from x / inf, and no numpy RuntimeWarning.
    """
    events: list[str] = []

    def record(kind, flag):
        events.append(kind)

    try:
        with np.errstate(over="call", invalid="call", divide="call", under="ignore", call=record):
            values = values_of(segments, measure)
    except (OverflowError, ZeroDivisionError) as exc:
        if getattr(exc, USER_ERROR_FLAG, False):
            raise  # raised by a user measure's own code: the user's error, as it is
        what = "overflow" if isinstance(exc, OverflowError) else "division by zero"
        raise _overflow_error(segments, measure, what) from None
    if (
        events
    ):  # kernels never raise these on ordinary input (the suite runs with warnings as errors)
        bad = ~np.isfinite(np.asarray(values, dtype=np.float64))
        what = " and ".join(dict.fromkeys(events))
        raise _overflow_error(segments, measure, what, int(bad.sum()), len(bad))
    return values


def _overflow_error(segments, measure: Measure, what: str, n_bad=None, n=None):
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
