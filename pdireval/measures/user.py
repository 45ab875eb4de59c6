"""User-defined measures: :func:`register_measure` adds a measure that ``evaluate``, the
``DataFrame.ireval`` accessor, the measure parser, ``pdireval.measures()`` and the command line
all know.

Two ways to compute it:

* ``function=`` — a plain Python function of one query's ranking (the documented **slow
  path**: pdireval calls it once per (system, query), in Python)::

      def function(ranked, judged, **params) -> float

  ``ranked`` is a float64 array of the labels of the ranked documents, best first, truncated
  at the cut-off when one is given (NaN = not judged); ``judged`` holds the labels of every
  judged document of the query (the qrels, NaN-free: what R or an ideal ranking needs);
  ``params`` are the measure's parameters (with defaults filled in) and ``cutoff`` (None when
  not given). Labels are read under ``negatives=`` and ``judged_only=``, which every user
  measure accepts like the built-in ones.

* ``kernel=`` — a vectorised function over every (system, query) segment at once, with the
  built-in measures' contract::

      def kernel(view, measure) -> numpy.ndarray   # one float64 per segment

  ``view`` (:class:`pdireval.measures.view.View`) holds ``n_seg``, ``seg_len`` (list lengths),
  ``seg_query``, and the **hits** (retrieved documents found in the qrels, sorted by segment
  then position): ``hit_seg``, ``hit_pos`` (0-based rank), ``hit_label`` (NaN = unjudged);
  ``view.num_rel(rel)[view.seg_query]`` is R per segment. ``measure.get(name)`` reads a
  parameter, ``measure.cutoff`` the cut-off. Helpers: ``pdireval.measures.view.seg_sum`` and
  ``within_segment_cumsum``.

Command line: ``pdireval`` imports the modules (or ``.py`` files) listed in the environment
variable ``PDIREVAL_MEASURES`` (separated by ``os.pathsep``) before it parses its arguments, and
every entry point of the group ``pdireval.measures`` when a measure named with ``-m`` is not
known without them, so measures they register work with ``pdireval evaluate -m``.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from pdireval.errors import MeasureError
from pdireval.measures.compute import USER_ERROR_FLAG
from pdireval.measures.params import JUDGED_ONLY, NEG, Param
from pdireval.measures.registry import REGISTRY, SUMMARIES, MeasureDef, register, unregister
from pdireval.measures.trec_eval.names import expand, lookup
from pdireval.measures.view import view_of
from pdireval.plugins import load_plugins  # noqa: F401  (documented here too)

if TYPE_CHECKING:
    from typing import Literal

__all__ = ["register_measure", "unregister_measure", "load_plugins"]

_KINDS = {bool: "bool", int: "int", float: "float", str: "choice"}
_CUTOFFS = ("optional", "required", "none")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _param(name: str, spec) -> Param:
    """A :class:`Param` from ``default`` or
    ``{"default":, "type":, "choices":, "description":}``."""
    if not isinstance(spec, Mapping):
        spec = {"default": spec}
    unknown = set(spec) - {"default", "type", "choices", "description"}
    if unknown or "default" not in spec:
        raise MeasureError(
            f"parameter {name!r}: give a default value, or a mapping with 'default' and optionally "
            "'type' (int, float, bool, str), 'choices' and 'description' (got keys "
            f"{sorted(spec)})."
        )
    default = spec["default"]
    choices = tuple(c.lower() if isinstance(c, str) else c for c in spec.get("choices", ()))
    kind_type = spec.get("type", type(default))
    if kind_type not in _KINDS:
        raise MeasureError(
            f"parameter {name!r}: type must be one of int, float, bool, str; got {kind_type!r}."
        )
    kind = _KINDS[kind_type]
    if kind == "choice":
        if not choices or not isinstance(default, str) or default.lower() not in choices:
            raise MeasureError(
                f"parameter {name!r}: a text parameter needs choices=[...] that include its "
                f"default {default!r}."
            )
        default = default.lower()
    elif choices:
        raise MeasureError(f"parameter {name!r}: choices= is only for text parameters (type str).")
    elif kind == "float" and isinstance(default, int) and not isinstance(default, bool):
        default = float(default)
    description = spec.get("description", f"Parameter {name} of a user-defined measure.")
    return Param(name, kind, default, description, choices=choices)


def _segment_labels(view, m):
    """Per segment: its ranked labels (NaN = unjudged), truncated at the cut-off."""
    k = m.cutoff
    lengths = view.seg_len if k is None else np.minimum(view.seg_len, k)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    flat = np.full(int(starts[-1]), np.nan)
    inside = view.hit_pos < lengths[view.hit_seg]
    flat[starts[view.hit_seg[inside]] + view.hit_pos[inside]] = view.hit_label[inside]
    return flat, starts


def _user_error(exc: BaseException, name: str, where: str) -> BaseException:
    """The exception ``exc`` raised by the code of user measure ``name``, as the user should
    see it: its own type, its message prefixed with the measure's name (and ``where``), the
    original chained as the cause and kept in the traceback."""
    prefix = f"in the user-defined measure {name}{where}: "
    try:
        wrapped = type(exc)(prefix + str(exc))
    except Exception:  # an exception type with another constructor: keep the object itself
        wrapped = exc
        if hasattr(exc, "add_note"):  # Python 3.11+
            exc.add_note(prefix.rstrip(": "))
    if wrapped is not exc:
        wrapped = wrapped.with_traceback(exc.__traceback__)
    setattr(wrapped, USER_ERROR_FLAG, True)
    return wrapped


def _where(segments, view, s: int) -> str:
    """Which (system, query) list segment ``s`` is, for a message."""
    system = segments.systems[segments.seg_system[s]]
    query = segments.judgments.queries[view.seg_query[s]]
    return f" (system {system!r}, query {query!r})"


def _slow_kernel(function: Callable, names: tuple[str, ...]):
    def kernel(segments, m):
        view = view_of(segments, negatives=m.get("negatives"), judged_only=m.get("judged_only"))
        flat, starts = _segment_labels(view, m)
        q_start = view.q_start
        judged_by_query = [view.q_label[q_start[q] : q_start[q + 1]] for q in range(view.n_queries)]
        judged_by_query = [lab[~np.isnan(lab)] for lab in judged_by_query]
        params = {name: m.get(name) for name in names}
        out = np.empty(view.n_seg)
        for s in range(view.n_seg):  # the documented slow path: one Python call per segment
            try:
                with np.errstate(all="warn"):  # the user's own numpy, with numpy's defaults
                    value = function(
                        flat[starts[s] : starts[s + 1]],
                        judged_by_query[view.seg_query[s]],
                        cutoff=m.cutoff,
                        **params,
                    )
            except Exception as exc:
                wrapped = _user_error(exc, m.name, _where(segments, view, s))
                if wrapped is exc:
                    raise
                raise wrapped from exc
            try:
                out[s] = float(value)
            except (TypeError, ValueError):
                raise MeasureError(
                    f"the function of measure {m.name} returned {value!r} for a query; it must "
                    "return a number."
                ) from None
        return out

    return kernel


def _fast_kernel(kernel_function: Callable, m_name: str):
    def kernel(segments, m):
        view = view_of(segments, negatives=m.get("negatives"), judged_only=m.get("judged_only"))
        try:
            with np.errstate(all="warn"):  # the user's own numpy, with numpy's defaults
                returned = kernel_function(view, m)
        except Exception as exc:
            wrapped = _user_error(exc, m_name, "")
            if wrapped is exc:
                raise
            raise wrapped from exc
        try:
            values = np.asarray(returned, dtype=np.float64)
        except (TypeError, ValueError):
            raise MeasureError(
                f"the kernel of measure {m_name} returned {str(returned)[:80]!r}, which is not an "
                "array of numbers; it must return one float per segment."
            ) from None
        if values.shape != (view.n_seg,):
            raise MeasureError(
                f"the kernel of measure {m_name} returned shape {values.shape}; it must return one "
                f"value per segment, shape ({view.n_seg},)."
            )
        return values

    return kernel


def register_measure(
    name: str,
    function: Callable | None = None,
    *,
    kernel: Callable | None = None,
    params: Mapping | None = None,
    cutoff: Literal["optional", "required", "none"] = "optional",
    empty: float = 0.0,
    description: str = "",
    citation: str = "",
    summary: Literal["mean", "sum", "gm"] = "mean",
    aliases: tuple[str, ...] = (),
    replace: bool = False,
) -> str:
    """Add a measure to pdireval's registry.

    Parameters
    ----------
    name
        The measure's canonical name (letters, digits, ``_``; starting with a letter), as it
        will appear in the ``measure`` column. Parsing is case-insensitive.
    function
        A per-query function ``function(ranked, judged, *, cutoff, **params) -> float`` (the
        slow path, one Python call per (system, query)): ``ranked`` = labels of the ranked
        list, best first, truncated at the cut-off, NaN where unjudged; ``judged`` = labels
        of every judged document of the query. Give exactly one of ``function`` and ``kernel``.
    kernel
        A vectorised function ``kernel(view, measure) -> ndarray`` returning one float per
        (system, query) segment (see the module docstring for ``view``'s arrays).
    params
        ``{parameter: default}`` or ``{parameter: {"default": d, "type": int|float|bool|str,
        "choices": [...], "description": "..."}}``. Every user measure also accepts
        ``negatives=`` and ``judged_only=`` (as the built-in measures).
    cutoff
        ``"optional"`` (default), ``"required"`` or ``"none"``.
    empty
        The value for a judged query the system did not answer (``evaluate(missing="zero")``);
        it is stored for the registry and docs, and used instead of calling ``function`` on an
        empty ranking.
    description, citation
        One line each for ``pdireval.measures()`` and the docs table: the formula, and the
        paper (author and year).
    summary
        How the measure summarises over queries: ``"mean"``, ``"sum"`` or ``"gm"`` (values are
        logs, summary exp(mean)).
    aliases
        Other accepted spellings.
    replace
        Replace an earlier user-defined measure of the same name (a built-in one is never
        replaced).

    Returns
    -------
    str
        The canonical name.

    Raises
    ------
    MeasureError
        A bad name, a name already taken, both or neither of ``function`` / ``kernel``, or a
        malformed parameter.

    Examples
    --------
    >>> import numpy as np, pdireval
    >>> def hits(ranked, judged, *, cutoff, rel):
    ...     return float(np.sum(ranked >= rel))
    >>> pdireval.register_measure("Hits", hits, params={"rel": 1.0},
    ...     description="Number of relevant documents retrieved.", replace=True)
    'Hits'
    >>> run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=2, depth=10, rng=1)
    >>> pdireval.evaluate(run, "Hits@5", qrels=qrels)["measure"].iloc[0]
    'Hits@5'
    >>> pdireval.unregister_measure("Hits")
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise MeasureError(
            f"a measure name is letters, digits and '_', starting with a letter; got {name!r}."
        )
    if (function is None) == (kernel is None):
        raise MeasureError(
            f"register_measure({name!r}): give exactly one of function= (per query) and kernel= "
            "(vectorised)."
        )
    chosen = function if function is not None else kernel
    if not callable(chosen):
        raise TypeError(
            f"register_measure({name!r}): {'function' if function is not None else 'kernel'} must "
            "be callable"
        )
    if cutoff not in _CUTOFFS:
        raise MeasureError(
            f"register_measure({name!r}): cutoff must be one of {', '.join(_CUTOFFS)}; got "
            f"{cutoff!r}."
        )
    numeric = isinstance(empty, (int, float, np.integer, np.floating)) and not isinstance(
        empty, bool
    )
    if not numeric or np.isinf(empty):
        raise MeasureError(
            f"register_measure({name!r}): empty= is the value of a judged query the system did not "
            f"answer, a finite number (or NaN); got {empty!r} ({type(empty).__name__}). Pass e.g. "
            "empty=0.0."
        )
    empty = float(empty)
    if summary not in SUMMARIES:
        raise MeasureError(
            f"register_measure({name!r}): summary must be one of {', '.join(SUMMARIES)}; got "
            f"{summary!r}."
        )
    existing = REGISTRY.get(name.lower())
    if existing is not None and not existing.builtin and replace:
        unregister_measure(name)
    for spelling in (name, *aliases):
        _check_free(name, spelling)
    declared = tuple(_param(p, spec) for p, spec in (params or {}).items())
    for p in declared:
        if p.name in ("negatives", "judged_only", "cutoff", "ties"):
            raise MeasureError(
                f"register_measure({name!r}): {p.name!r} is a reserved parameter name."
            )
    names = tuple(p.name for p in declared)
    if function is not None:
        accepted = inspect.signature(function).parameters
        takes_all = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values())
        missing = [n for n in ("cutoff", *names) if n not in accepted and not takes_all]
        if missing:
            raise MeasureError(
                f"register_measure({name!r}): the function must accept the keyword argument(s) "
                f"{', '.join(missing)} (write def f(ranked, judged, *, cutoff, ...) or add "
                "**params)."
            )
        compute = _slow_kernel(function, names)
    elif kernel is not None:  # exactly one of function and kernel is given (checked above)
        compute = _fast_kernel(kernel, name)

    def with_empty(segments, m, _compute=compute):
        out = _compute(segments, m) if segments.n_segments else np.zeros(0)
        out[segments.seg_len == 0] = float(empty)
        return out

    with_empty.__doc__ = (chosen.__doc__ or description or name).strip()
    register(
        MeasureDef(
            name,
            kernel=with_empty,
            description=description or (chosen.__doc__ or name).strip().splitlines()[0],
            params=declared + (JUDGED_ONLY, NEG),
            cutoff=cutoff,
            empty=repr(float(empty)),
            citation=citation or "user-defined",
            aliases=tuple(aliases),
            summary=summary,
            builtin=False,
        )
    )  # declares no tie method: ties=expected enumerates the joint orderings (exact)
    return name


def unregister_measure(name: str) -> None:
    """Remove a measure added by :func:`register_measure` (built-in measures stay).

    Parameters
    ----------
    name
        The measure's name (any case).

    Returns
    -------
    None

    Raises
    ------
    MeasureError
        ``name`` is not a user-defined measure.
    """
    unregister(name)


def _check_free(name: str, spelling) -> None:
    """A MeasureError when ``spelling`` (the new measure's name or an alias) already names a
    measure: a registered name or alias, or a trec_eval spelling (``P_10``, ``map``)."""
    if not isinstance(spelling, str) or not spelling.strip():
        raise MeasureError(
            f"register_measure({name!r}): an alias must be a non-empty string, got {spelling!r}."
        )
    what = "name" if spelling == name else "alias"
    existing = REGISTRY.get(spelling.lower())
    if existing is not None:
        kind = (
            "a built-in measure"
            if existing.builtin
            else "a user-defined measure (pass replace=True)"
        )
        if what == "name":
            raise MeasureError(
                f"the measure name {name!r} is taken by {kind}: choose another name."
            )
    try:
        found = lookup(spelling)
        if found is None:
            found = expand(spelling)
    except MeasureError:
        found = None
    if found:
        first = found[0]
        named = str(first.measure if hasattr(first, "measure") else first)
        raise MeasureError(
            f"the {what} {spelling!r} of the new measure {name} is trec_eval's spelling of "
            f"the built-in {named}: choose another {what}."
        )
