"""Errors and warnings raised by pdireval.

Every user mistake raises a :class:`PdirevalError`. Schema problems (a bad frame or
file) raise :class:`SchemaError`, bad measure strings or parameters :class:`MeasureError`;
both are also :class:`ValueError` so generic handlers keep working.

Messages follow one recipe: what is wrong (in the user's own column names), the
evidence (a count and the first offending rows or file line), and the fix. The offending
rows, when there are any, are attached as ``failure_cases`` (a DataFrame).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["PdirevalError", "SchemaError", "MeasureError", "OptionError", "PdirevalWarning", "check_option"]


class PdirevalError(Exception):
    """Base class of every error pdireval raises for a user mistake.

    Parameters
    ----------
    message
        The full message: problem, evidence, fix.
    failure_cases
        Optional DataFrame of the offending rows (shown in the message, kept here whole).
    """

    def __init__(self, message: str, failure_cases: pd.DataFrame | None = None):
        super().__init__(message)
        self.failure_cases = failure_cases


class SchemaError(PdirevalError, ValueError):
    """A run, qrels or scores frame (or a file) does not have the expected shape or content."""


class MeasureError(PdirevalError, ValueError):
    """A measure string or measure parameter is unknown or invalid."""


class OptionError(PdirevalError, ValueError):
    """A keyword option has an invalid value: not one of its choices (``missing="zeros"``)
    or out of its range (``n_queries=0``)."""


def check_option(name: str, value, choices) -> None:
    """Raise :class:`OptionError` unless ``value`` is one of ``choices``.

    The message names the option, the value given and the allowed values, e.g.
    ``missing= must be one of 'zero', 'drop'; got 'zeros'``.
    """
    try:
        ok = value in choices
    except TypeError:  # unhashable value
        ok = False
    if not ok:
        allowed = ", ".join(repr(c) for c in choices)
        raise OptionError(f"{name}= must be one of {allowed}; got {value!r}.")


class PdirevalWarning(UserWarning):
    """Something worth knowing that does not stop the computation (e.g. dropped queries)."""


def show_rows(rows: pd.DataFrame, limit: int = 5) -> str:
    """Render the first ``limit`` offending rows for an error message."""
    n = len(rows)
    head = rows.head(limit).to_string()
    more = f"\n... and {n - limit} more" if n > limit else ""
    return "\n" + "\n".join("    " + line for line in head.splitlines()) + more


def group_rng(rng):
    """Return a factory giving the Generator for each group of a scores frame.

    An integer seed (or None, or a SeedSequence) starts a fresh ``default_rng(rng)`` for every
    group, so each group's numbers are those of the methods-spec draw protocol with that seed
    (and a result does not depend on which other measures are in the frame). A Generator is
    shared: successive groups continue its stream.
    """
    if isinstance(rng, np.random.Generator):
        return lambda: rng
    if rng is not None and not isinstance(rng, (int, np.integer, np.random.SeedSequence)):
        raise TypeError(f"rng= must be None, an integer seed or a numpy Generator, got {type(rng).__name__}")
    return lambda: np.random.default_rng(rng)


def check_int(name: str, value, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise: TypeError for a non-integer, OptionError out of range."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}= must be an integer, got {value!r} ({type(value).__name__}).")
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        bounds = " and ".join(
            part for part in (f">= {minimum}" if minimum is not None else "",
                              f"<= {maximum}" if maximum is not None else "") if part)
        raise OptionError(f"{name}= must be {bounds}; got {value}.")
    return value


def check_real(name: str, value, *, low: float | None = None, high: float | None = None,
               inclusive: bool = True) -> float:
    """Return ``value`` as a finite float, or raise: TypeError for a non-number, OptionError
    outside [low, high] (``inclusive=False``: the open interval)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}= must be a number, got {value!r} ({type(value).__name__}).")
    value = float(value)
    bad = not np.isfinite(value)
    if low is not None:
        bad |= value < low if inclusive else value <= low
    if high is not None:
        bad |= value > high if inclusive else value >= high
    if bad:
        lo = "" if low is None else (f"{'>=' if inclusive else '>'} {low}")
        hi = "" if high is None else (f"{'<=' if inclusive else '<'} {high}")
        what = " and ".join(p for p in (lo, hi) if p) or "finite"
        raise OptionError(f"{name}= must be {what}; got {value}.")
    return value


def check_rng(rng) -> np.random.SeedSequence:
    """Validate ``rng`` (None, an int, a SeedSequence or a Generator) into a SeedSequence.

    A Generator contributes one draw (so successive calls with the same Generator differ);
    None gives fresh entropy.
    """
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(int(rng.integers(0, 2**63 - 1)))
    if rng is None:
        return np.random.SeedSequence()
    if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)):
        raise TypeError(f"rng= must be None, an integer seed, a numpy SeedSequence or Generator, "
                        f"got {type(rng).__name__}.")
    if int(rng) < 0:
        raise OptionError(f"rng= must be a non-negative integer seed; got {rng}.")
    return np.random.SeedSequence(int(rng))


def group_generator(seed_sequence: np.random.SeedSequence, *key) -> np.random.Generator:
    """The Generator of one group (or size, or unit), identified by its key values.

    Its stream depends only on the seed and the key (hashed), never on which other groups
    are computed.
    """
    import hashlib

    words = ()
    if key:
        digest = hashlib.sha256("\x1f".join(repr(k) for k in key).encode()).digest()
        words = tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))
    child = np.random.SeedSequence(seed_sequence.entropy,
                                   spawn_key=tuple(seed_sequence.spawn_key) + words)
    return np.random.default_rng(child)
