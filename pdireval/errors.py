"""Errors and warnings raised by pdireval.

Every user mistake raises a :class:`PdirevalError`. Schema problems (a bad frame or
file) raise :class:`SchemaError`, bad measure strings or parameters :class:`MeasureError`;
both are also :class:`ValueError` so generic handlers keep working.

Messages follow one recipe: what is wrong (in the user's own column names), the
evidence (a count and the first offending rows or file line), and the fix. The offending
rows, when there are any, are attached as ``failure_cases`` (a DataFrame).
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
import zlib
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import numpy as np
import pandas as pd

__all__ = [
    "PdirevalError",
    "SchemaError",
    "MeasureError",
    "OptionError",
    "PdirevalWarning",
    "PdirevalDeprecationWarning",
    "check_option",
    "check_option_list",
    "renamed_options",
    "warn_renamed",
]


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


def check_option_list(name: str, value, choices) -> list:
    """``value`` as a non-empty list of ``choices``: one choice, or a list or tuple of them.

    Anything else is an :class:`OptionError` naming the option and the allowed values (a
    bool, a number or None is not iterated over)."""
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, (list, tuple)) or not values:
        allowed = ", ".join(repr(c) for c in choices)
        what = "an empty list" if isinstance(values, (list, tuple)) else repr(value)
        raise OptionError(
            f"{name}= must be one of {allowed}, or a non-empty list of them; got {what}."
        )
    for v in values:
        check_option(name, v, choices)
    return list(values)


class PdirevalWarning(UserWarning):
    """Something worth knowing that does not stop the computation (e.g. dropped queries)."""


class PdirevalDeprecationWarning(FutureWarning):
    """A name or option renamed in pdireval 0.2: the old spelling still works, warns, and is
    removed in 0.3. The rename table is in CHANGELOG.md and docs/index.md.

    A ``FutureWarning`` (as pandas' deprecations), so Python shows it to users of scripts and
    notebooks, not only to test runners.
    """


#: The call sites (file, line, kind) that :func:`warn_caller` with ``once=`` has warned at
#: under Python's ``"default"`` action: shown once per line of the caller's code, whatever
#: counts its text holds (Python's own registry keys on the text).
SHOWN_ONCE: set[tuple[str, int, str]] = set()

#: Packages whose frames stand between a user's line and pdireval's (accessors, Dask tasks).
_CALLING_PACKAGES = ("pdireval", "pandas", "dask", "distributed")


def _library_file(filename: str) -> bool:
    """Whether ``filename`` belongs to pdireval or to a package that calls it for the user."""
    for name in _CALLING_PACKAGES:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path and filename.startswith(os.path.dirname(path) + os.sep):
            return True
    return False


def warn_caller(
    message: str, category: type[Warning] = PdirevalWarning, *, once: str | None = None
) -> None:
    """Warn at the user's line: the first frame outside pdireval (and outside pandas or Dask,
    which call pdireval's accessors and partitions), so that the warning names the line to
    change, whichever entry point (function, ``.ireval`` method, Dask) was called.

    ``once``: a kind of warning shown once per call site (:data:`SHOWN_ONCE`) where Python's
    filters would show it once per place (their ``"default"`` action, the usual one in scripts
    and notebooks), so a loop that calls an entry point from one line shows it once, whatever
    counts its text holds; filters that show every warning (``"always"``, ``"error"``, as test
    runners set them) see every one.
    """
    frame = sys._getframe(1)
    level = 2  # warnings.warn's stacklevel of ``frame``
    while frame.f_back is not None and _library_file(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    module = str(frame.f_globals.get("__name__", ""))
    if once is not None and _action(message, category, module, frame.f_lineno) in _PER_SITE:
        site = (frame.f_code.co_filename, frame.f_lineno, once)
        if site in SHOWN_ONCE:
            return
        SHOWN_ONCE.add(site)
    warnings.warn(message, category, stacklevel=level)


#: Python's warning actions that show a warning once per place (the others: every time, or
#: never, and then pdireval leaves it to Python).
_PER_SITE = ("default", "module", "once")


def _action(message: str, category: type[Warning], module: str, lineno: int) -> str:
    """The action of the first of ``warnings.filters`` that matches, as ``warnings.warn``
    finds it ("default" when none does)."""
    for action, text, kind, where, line in warnings.filters:
        if (
            (text is None or text.match(message))
            and issubclass(category, kind)
            and (where is None or where.match(module))
            and line in (0, lineno)
        ):
            return str(action)
    return "default"


#: The release that removes the deprecated spellings.
REMOVED_IN = "0.3"


def warn_renamed(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn (:class:`PdirevalDeprecationWarning`) that ``old`` is now spelled ``new``."""
    warnings.warn(
        f"{old} is deprecated since pdireval 0.2 and will be removed in {REMOVED_IN}: use {new} "
        "(same meaning and values).",
        PdirevalDeprecationWarning,
        stacklevel=stacklevel,
    )


_P = ParamSpec("_P")
_R = TypeVar("_R")


def renamed_options(**renames: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorator: keyword options renamed in 0.2, ``old_name="new_name"``.

    The old keyword still works: it is passed on as the new one with a
    :class:`PdirevalDeprecationWarning`. Both together are a ``TypeError``. The decorated
    function keeps its signature (``inspect.signature`` follows ``__wrapped__``), which shows
    only the new names.
    """

    def decorate(function: Callable[_P, _R]) -> Callable[_P, _R]:
        name = function.__name__

        @functools.wraps(function)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(
                            f"{name}() got both {old}= (its deprecated spelling) and {new}=; "
                            f"pass {new}= only."
                        )
                    warn_renamed(f"{name}({old}=...)", f"{name}({new}=...)")
                    kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        setattr(wrapper, "renamed_options", dict(renames))  # noqa: B010 (read by the docs)
        return wrapper

    return decorate


def options_by_name(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorator: Python's bare ``TypeError`` for a keyword-only option passed by position
    becomes one that names the options and shows the call, e.g. ``evaluate(run, measures,
    qrels)`` in pytrec_eval's and ir_measures' habit (they take qrels by position)."""
    code = function.__code__
    positional = code.co_varnames[: code.co_argcount]
    options = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if len(args) > len(positional):
            extra = len(args) - len(positional)
            taken = [o for o in options if o not in kwargs][:extra]
            call = ", ".join([*positional, *(f"{o}={o}" for o in taken)])
            raise TypeError(
                f"{function.__name__}() takes {len(positional)} arguments by position "
                f"({', '.join(positional)}) and its options by name; got {len(args)} by "
                f"position. Name the others, e.g. {function.__name__}({call}) (options: "
                f"{', '.join(o + '=' for o in options)})."
            )
        return function(*args, **kwargs)

    return wrapper


def show_rows(rows: pd.DataFrame, limit: int = 5) -> str:
    """Render the first ``limit`` offending rows for an error message."""
    n = len(rows)
    head = rows.head(limit).to_string()
    more = f"\n... and {n - limit} more" if n > limit else ""
    return "\n" + "\n".join("    " + line for line in head.splitlines()) + more


#: Seeds drawn by :func:`check_rng` lie in [0, 2**31), a range every consumer (measure
#: parameters included) accepts.
_SEED_LIMIT = 2**31


def check_rng(rng, *, name: str = "rng") -> int:
    """The one rng policy: validate ``rng`` and return the integer seed a call works from.

    ``rng`` may be None (fresh entropy), a non-negative int (itself), a
    ``numpy.random.SeedSequence`` (its first state word, reduced to 31 bits) or a
    ``numpy.random.Generator`` (one draw from it, so successive calls with the same Generator
    differ, reproducibly). A function calls this once at entry and then starts every group, size
    or unit from the seed alone (:func:`group_generator`), so a group's numbers do not depend on
    which other groups, sizes or measures are requested.

    Raises
    ------
    TypeError
        ``rng`` of another type (a bool, a float, a string).
    OptionError
        A negative seed.
    """
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError(
            f"{name}= must be None, an int seed, a SeedSequence or a numpy Generator, "
            f"not a bool ({rng!r})"
        )
    if rng is None:
        return int(np.random.SeedSequence().generate_state(2, np.uint64)[0] % _SEED_LIMIT)
    if isinstance(rng, (int, np.integer)):
        if rng < 0:
            raise OptionError(
                f"{name}= as a seed must be a non-negative integer; got {rng}. Use e.g. {name}=0."
            )
        return int(rng)
    if isinstance(rng, np.random.SeedSequence):
        return int(rng.generate_state(2, np.uint64)[0] % _SEED_LIMIT)
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, _SEED_LIMIT))
    raise TypeError(
        f"{name}= must be None, an int seed, a SeedSequence or a numpy Generator; got "
        f"{type(rng).__name__} ({rng!r})"
    )


def _stable_code(value) -> int:
    """A process-independent 32-bit code of a key value (Python's hash() of str is salted)."""
    return zlib.crc32(repr(value).encode("utf-8"))


def group_generator(seed, *key) -> np.random.Generator:
    """The Generator of one group / size / unit of a call, from the call's seed (:func:`check_rng`).

    Without ``key`` this is ``numpy.random.default_rng(seed)``: every group replays the same
    stream, so the published draw protocols (e.g. the bootstrap's ``rng.integers(0, n, (B, n))``)
    hold for each group with that seed. With ``key`` (e.g. a measure name and a size) the stream
    is keyed: ``default_rng([seed, code(key_1), ...])`` with a stable code of each value, for
    draws that must differ between groups but not depend on which groups exist.
    """
    if isinstance(seed, np.random.SeedSequence):  # accepted too: its first state word
        seed = check_rng(seed)
    if not key:
        return np.random.default_rng(seed)
    return np.random.default_rng([seed, *(_stable_code(k) for k in key)])


def check_int(name: str, value, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise: TypeError for a non-integer, OptionError out of
    range."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}= must be an integer, got {value!r} ({type(value).__name__}).")
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        bounds = " and ".join(
            part
            for part in (
                f">= {minimum}" if minimum is not None else "",
                f"<= {maximum}" if maximum is not None else "",
            )
            if part
        )
        raise OptionError(f"{name}= must be {bounds}; got {value}.")
    return value


def check_real(
    name: str, value, *, low: float | None = None, high: float | None = None, inclusive: bool = True
) -> float:
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
        if not np.isfinite(value) and what != "finite":
            what = f"{what} and finite"
        raise OptionError(f"{name}= must be {what}; got {value}.")
    return value


def check_bool(name: str, value) -> bool:
    """Return ``value`` as a bool (``True``/``False`` or a numpy bool), or raise TypeError:
    ``"yes"``, ``1`` or ``None`` are not read as truth values."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}= must be True or False, got {value!r} ({type(value).__name__}).")
    return bool(value)
