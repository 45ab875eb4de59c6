"""Measure values, the measure-string grammar, and the registry.

A measure is a value with one canonical string::

    Name(param=value,...)@cutoff      e.g.  nDCG@10   AP   RBP(p=0.8)   nDCG(gain=exp)@10

Parsing is case-insensitive; the canonical spelling follows ir_measures, parameters are
sorted and defaults are left out. trec_eval spellings (``map``, ``ndcg_cut_10``, ``P_10``,
``recip_rank``, ``Rprec``, ...) are accepted as aliases. Parameter values may be numbers,
bare words (``exp``), mappings (``gain={0:0,1:1,2:3}``) or vectors
(``discount=[1,0.5,0.25]``).
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pdireval.errors import MeasureError
from pdireval.measures.grammar import SYNTAX, as_text, level_suffix, parse_value, split_top_level
from pdireval.measures.params import BOUND_PARAMS, TIES, Param
from pdireval.measures.ties.methods import GENERAL

__all__ = [
    "Measure",
    "Param",
    "MeasureDef",
    "Bounded",
    "REGISTRY",
    "register",
    "register_exact_alias",
    "unregister",
    "parse_measure",
    "parse_measures",
    "labelled_measures",
]


# --------------------------------------------------------------------------- values


def freeze(value: Any) -> Any:
    """Hashable, canonical form of a parameter value."""
    if isinstance(value, Mapping):
        return tuple(sorted((freeze(k), freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if hasattr(value, "tolist") and not isinstance(value, str):  # numpy scalars / arrays
        return freeze(value.tolist())
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return value  # keep floats as floats; rendering takes care of 2.0 vs 2
    return value


def thaw(value: Any) -> Any:
    """Inverse of :func:`freeze` for re-parsing: a frozen mapping becomes a dict again."""
    if (
        isinstance(value, tuple)
        and value
        and all(isinstance(v, tuple) and len(v) == 2 for v in value)
    ):
        return {k: thaw(v) for k, v in value}
    return value


def _render(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if (
        isinstance(value, tuple)
        and value
        and all(isinstance(v, tuple) and len(v) == 2 for v in value)
    ):
        return "{" + ",".join(f"{_render(k)}:{_render(v)}" for k, v in value) + "}"
    if isinstance(value, tuple):
        return "[" + ",".join(_render(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(int(value)) if value.is_integer() and abs(value) < 1e16 else repr(value)
    return str(value)


@dataclass(frozen=True)
class Measure:
    """One measure with its parameters and cut-off.

    Build one from a string with :func:`parse_measure` (or ``Measure.parse``); ``str(m)``
    gives the canonical spelling. ``params`` holds only non-default values.
    """

    name: str
    params: tuple = ()
    cutoff: int | float | None = None  # a float for the real cut-offs (IPrec@0.1)

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{k}={_render(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += f"@{_render(self.cutoff)}"
        return text

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    @property
    def definition(self) -> MeasureDef:
        return REGISTRY[self.name.lower()]

    def get(self, name: str, default: Any = ...) -> Any:
        """The value of parameter ``name`` (the declared default when not given).

        ``default`` is returned when the measure does not declare ``name`` at all;
        without it an undeclared name is a MeasureError.
        """
        for key, value in self.params:
            if key == name:
                return value
        if default is not ... and not any(p.name == name for p in self.definition.params):
            return default
        return self.definition.param(name).default

    def replace(self, **changes) -> Measure:
        """A copy with some parameters (or ``cutoff``) changed, re-canonicalised."""
        cutoff = changes.pop("cutoff", self.cutoff)
        params = {k: thaw(v) for k, v in self.params}
        params.update(changes)
        return build_measure(self.name, params, cutoff)

    parse = staticmethod(lambda text: parse_measure(text))


SUMMARIES = ("mean", "sum", "gm")


#: how a bounded measure's IUB, RLB and WLB are computed (:class:`Bounded`'s ``form``)
BOUND_FORMS = ("dcg", "sp", "precision", "recall", "ordered")


@dataclass(frozen=True)
class Bounded:
    """``bounded=`` of a :class:`MeasureDef`: the measure takes the bound normalisation
    (``bounds=``, :mod:`pdireval.measures.bounds`).

    ``form``: how its bounds are computed, one of :data:`BOUND_FORMS`: ``"dcg"`` (DCG units:
    IUB = IDCG@k of the judged pool, E[DCG@k] in closed form, WDCG@k, and Gienapp et al.'s
    (2020) ``pool=retrieved``), ``"sp"`` (SP units: IUB = min(k, Np), E[SP@k] in closed form,
    the worst SP@k), ``"precision"`` / ``"recall"`` (IUB and WLB from the measure on the
    judged pool sorted by label, E[P@k] / E[R@k] in closed form), ``"ordered"`` (IUB and WLB
    from the measure on the sorted pool, the RLB only by Monte-Carlo, ``lb=mc``). ``exact``:
    its random lower bound has a closed form (``lb=exact``); ``paper``: Karmaker & Feng
    (2022) publish one (``lb=paper``). ``base``: the measure whose units the bounds live in
    when it is not the measure itself (``"DCG"`` for nDCG, ``"SP"`` for AP): the measure is
    its base divided by the form's normaliser (IDCG@k for ``"dcg"``, R for ``"sp"``)."""

    exact: bool = False
    paper: bool = False
    base: str = ""
    form: str = "ordered"

    def __post_init__(self) -> None:
        if self.form not in BOUND_FORMS:
            raise ValueError(f"form must be one of {BOUND_FORMS}, got {self.form!r}")
        if self.form == "ordered" and (self.exact or self.paper):
            raise ValueError("form='ordered' has no closed-form random lower bound (lb=mc only)")
        if self.base and self.form not in ("dcg", "sp"):
            raise ValueError(f"base= needs form 'dcg' or 'sp', got {self.form!r}")


@dataclass(frozen=True)
class MeasureDef:
    """A registry entry: everything a measure accepts and how it behaves, declared once.

    Attributes
    ----------
    name, kernel, description
        The canonical name; ``kernel(segments, m) -> float64[n_segments]``; one line with
        the formula.
    params
        The parameters the measure reads (shared ones from :mod:`pdireval.measures.params`).
        The definition adds the bound parameters when ``bounded`` and ``ties=`` to every
        measure: :attr:`params` lists them all, :attr:`own_params` the declared ones.
    cutoff
        ``"optional"``, ``"required"``, ``"none"``, or ``"real"`` (required, a real number
        >= 0 such as a recall level: ``IPrec@0.1``).
    ties
        How ``ties="expected"`` is computed (:mod:`pdireval.measures.ties`): ``Invariant()``,
        ``ClosedForm(form)``, ``Groupwise(by=...)``, ``Joint(by=...)``, ``ByCutoff(...)``.
        None (nothing declared): ``Joint(by="doc")``, the exact general method.
    bounded
        False, True or a :class:`Bounded`: the measure takes ``bounds=`` and its options.
    empty
        The value for a query the system did not answer (text, for the docs).
    trec_eval
        trec_eval's name for the measure (``k`` / ``x`` stand for the cut-off), "" if none.
    summary
        How trec_eval summarises the per-query values over queries: ``"mean"`` (the
        arithmetic mean), ``"sum"`` (counts such as ``NumRet``, ``NumQ``), or ``"gm"`` (the
        per-query values are natural logarithms, ``ln(max(x, 1e-5))``, and the summary is
        ``exp(mean)``, trec_eval's geometric mean, e.g. ``gm_map``).
    builtin
        False for a measure added by :func:`pdireval.register_measure`.
    """

    name: str
    kernel: Callable
    description: str
    params: tuple[Param, ...] = ()
    cutoff: str = "optional"  # "optional" | "required" | "none" | "real"
    needs_qrels: bool = True
    empty: str = "0"
    citation: str = ""
    trec_eval: str = ""
    aliases: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)
    summary: str = "mean"
    ties: Any = None
    bounded: Any = False
    builtin: bool = True
    own_params: tuple[Param, ...] = field(default=(), init=False, repr=False)

    def __post_init__(self) -> None:
        if self.summary not in SUMMARIES:
            raise ValueError(f"summary must be one of {SUMMARIES}, got {self.summary!r}")
        bounded = self.bounded
        if bounded is True:
            bounded = Bounded()
        elif bounded is False:
            bounded = None
        elif not isinstance(bounded, Bounded):
            raise TypeError(f"bounded= must be True, False or a Bounded, got {bounded!r}")
        object.__setattr__(self, "bounded", bounded)
        own = tuple(self.params)
        object.__setattr__(self, "own_params", own)
        names = {p.name for p in own}
        added = (BOUND_PARAMS if bounded is not None else ()) + (TIES,)
        object.__setattr__(self, "params", own + tuple(p for p in added if p.name not in names))

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "none"
        raise MeasureError(f"{self.name} has no parameter {name!r} (its parameters: {known}).")

    @property
    def doc(self) -> str:
        """The kernel's docstring and what ``bounds=`` and ``ties=expected`` do."""
        text = self.kernel.__doc__ or ""
        if self.bounded is not None:
            text += "\n\nWith bounds= other than max: see pdireval.measures.bounds.normalise."
        return text.rstrip() + (
            "\n\nWith ties=expected: the expectation over all orderings of tied documents "
            f"(McSherry & Najork 2008), by {self.describe_ties()} (see pdireval.measures.ties)."
        )

    def describe_ties(self) -> str:
        """How ``ties="expected"`` computes the measure, in words."""
        return (GENERAL if self.ties is None else self.ties).describe()


REGISTRY: dict[str, MeasureDef] = {}
_ALIASES: dict[str, tuple[str, dict, int | None]] = {}
_ALIAS_PATTERNS: list[tuple[re.Pattern, str, dict]] = []
#: readers of spellings the grammar does not cover: ``reader(text, families_too) -> list of
#: Measure or None``, added by the module that knows them (trec_eval's names)
_SPELLING_READERS: list[Callable] = []
#: per user measure: the alias keys its registration added (unregistering removes only those)
_ADDED: dict[str, tuple[str, ...]] = {}


def _owner(spelling: str) -> str | None:
    """The measure a spelling already names (a name, an alias or a trec_eval-style
    pattern), or None."""
    key = spelling.lower()
    if key in REGISTRY:
        return REGISTRY[key].name
    if key in _ALIASES:
        return _ALIASES[key][0]
    for pattern, canonical, _ in _ALIAS_PATTERNS:
        if pattern.match(spelling):
            return canonical
    return None


def register(definition: MeasureDef) -> MeasureDef:
    """Add a measure to the registry (its canonical name and aliases).

    A user measure (``builtin=False``) whose name or an alias is already a measure's name,
    alias or trec_eval-style spelling is a MeasureError naming the clash.
    """
    key = definition.name.lower()
    if not definition.builtin:
        for spelling in (definition.name, *definition.aliases):
            owner = _owner(spelling)
            if owner is not None:
                kind = "built-in" if REGISTRY[owner.lower()].builtin else "user-defined"
                what = "name" if spelling == definition.name else "alias"
                raise MeasureError(
                    f"the {what} {spelling!r} of the new measure {definition.name} already names "
                    f"the {kind} measure {owner}: choose another {what}."
                )
    elif key in REGISTRY:
        raise RuntimeError(f"measure {definition.name} registered twice")
    REGISTRY[key] = definition
    added = []
    for alias in definition.aliases:
        if alias.lower() not in _ALIASES:
            added.append(alias.lower())
        _ALIASES[alias.lower()] = (definition.name, {}, None)
    if not definition.builtin:
        _ADDED[key] = tuple(added)
    return definition


def unregister(name: str) -> MeasureDef:
    """Remove a user measure and the aliases its registration added (built-ins stay)."""
    key = str(name).lower()
    definition = REGISTRY.get(key)
    if definition is None or definition.builtin:
        raise MeasureError(f"{name!r} is not a user-defined measure.")
    del REGISTRY[key]
    for alias in _ADDED.pop(key, ()):
        if _ALIASES.get(alias, (None,))[0] == definition.name:
            del _ALIASES[alias]
    return definition


def register_spelling_reader(reader: Callable) -> None:
    """Add a reader of another tool's measure spellings (see :data:`_SPELLING_READERS`)."""
    if reader not in _SPELLING_READERS:
        _SPELLING_READERS.append(reader)


def register_alias(alias: str, name: str, params: dict | None = None, cutoff: int | None = None):
    """An exact alias, e.g. ``map`` -> AP."""
    _ALIASES[alias.lower()] = (name, params or {}, cutoff)


def register_alias_pattern(pattern: str, name: str, params: dict | None = None):
    """A trec_eval-style alias with a numeric cut-off, e.g. ``ndcg_cut_(\\d+)`` -> nDCG@k."""
    _ALIAS_PATTERNS.append((re.compile(pattern + r"$", re.IGNORECASE), name, params or {}))


# --------------------------------------------------------------------------- parsing


#: a name typed with its cut-off glued on or after a separator: ``P10``, ``ndcg_cut10``,
#: ``recall-100``
_NUMBERED = re.compile(r"^(?P<stem>.*?[A-Za-z])[ _.\-@]?(?P<k>\d+(?:\.\d+)?)$")
#: set while suggestions are tried, so that trying one suggests nothing itself
_SUGGESTING: list[bool] = []


def _did_you_mean(name: str, cutoff: str | None = None) -> str:
    """At most four suggestions for an unknown ``name``, read by its structure: a known
    name (or one close to it) with the cut-off it ends in (``P10`` -> ``P@10``,
    ``nDCG10`` -> ``nDCG@10``) or was given (``ndgc@10`` -> ``nDCG@10``), then names close
    to the whole spelling."""
    if _SUGGESTING:
        return ""
    names = sorted({d.name for d in REGISTRY.values()})
    pool = {n.lower(): n for n in names}
    pool.update({a: _ALIASES[a][0] for a in _ALIASES})
    found: list[str] = []
    _SUGGESTING.append(True)
    try:
        numbered = _NUMBERED.match(name) if cutoff is None else None
        if numbered is not None or cutoff is not None:
            if numbered is not None:
                stem, k = numbered.group("stem", "k")
            else:
                stem, k = name, str(cutoff).strip()
            stem = stem.rstrip("_.-@ ")
            stems = [stem, *difflib.get_close_matches(stem.lower(), list(pool), n=3, cutoff=0.6)]
            for spelled in dict.fromkeys(stems):
                for text in (f"{spelled}@{k}", f"{spelled}_{k}", f"{spelled}.{k}"):
                    found += _parsed(text)
        close = difflib.get_close_matches(name.lower(), list(pool), n=3, cutoff=0.6)
        found += [pool[c] for c in close]
    finally:
        _SUGGESTING.pop()
    found = list(dict.fromkeys(found))[:4]
    if found:
        suggestion = " or ".join(repr(f) for f in found)
        return f" Did you mean {suggestion}? pdireval.measures() lists every measure."
    return " pdireval.measures() lists every measure (with its aliases and parameters)."


def _parsed(text: str) -> list[str]:
    """``[canonical spelling]`` of ``text`` if it is a measure, else ``[]``."""
    try:
        return [str(parse_measure(text))]
    except (MeasureError, ValueError, TypeError):
        return []


#: spellings that name something other than a number per query
_REFUSED = {
    "relstring": (
        "'relstring' is trec_eval's string of the labels of the top 10 documents of each "
        "query (e.g. '1-0.2'), not a number, so evaluate() (which returns numbers) does not "
        "compute it. The command prints it: pdireval trec_eval -q -m relstring QRELS RUN."
    ),
}
#: exact, case-sensitive spellings of another tool that the case-insensitive lookup would read
#: as another measure (trec_eval 10.0's ``rbp`` is not pdireval's ``RBP``)
_EXACT_ALIASES: dict[str, str] = {}


def register_exact_alias(alias: str, name: str) -> None:
    """An alias matched exactly, before the case-insensitive lookup (``rbp`` -> TrecRBP,
    while ``RBP`` stays Moffat & Zobel's binary RBP)."""
    _EXACT_ALIASES[alias] = name


def parse_measure(text: str | Measure) -> Measure:
    """Parse a measure string (or pass a :class:`Measure` through).

    Parameters
    ----------
    text : str or Measure
        ``Name(param=value,...)@cutoff`` in any case, or a trec_eval / ir_measures alias
        (``map``, ``ndcg_cut_10``, ``P_10``, ``recip_rank``).

    Returns
    -------
    Measure
        The measure, whose ``str()`` is its canonical spelling (parameters sorted, defaults
        left out).

    Raises
    ------
    MeasureError
        Unknown name (with a did-you-mean), unknown parameter, invalid value or cut-off.
    """
    if isinstance(text, Measure):
        return text
    text = as_text(text)
    if text.strip() in _REFUSED:
        raise MeasureError(_REFUSED[text.strip()])
    if text.strip() in _EXACT_ALIASES:
        return build_measure(_EXACT_ALIASES[text.strip()], {}, None, text=text)
    found = _foreign(text)
    if found is not None:
        if len(found) != 1:
            raise MeasureError(
                f"{text!r} names {len(found)} measures ({', '.join(map(str, found[:5]))}"
                f"{', ...' if len(found) > 5 else ''}): pass it to a function that takes a list "
                "of measures (evaluate, parse_measures), or name one, e.g. 'P.10'."
            )
        return found[0]
    text, level = level_suffix(text)
    if level is not None:
        measure = parse_measure(text)
        if not any(p.name == "rel" for p in measure.definition.params):
            raise MeasureError(
                f"the relevance-level suffix -l{level:g} (ranx) sets rel=, which "
                f"{measure.name} does not have; its parameters: "
                f"{', '.join(p.name for p in measure.definition.params) or 'none'}."
            )
        return measure.replace(rel=level)
    match = SYNTAX.match(text)
    if not match or not text.strip():
        raise MeasureError(
            f"cannot parse the measure {text!r}: the form is Name(param=value,...)@cutoff, "
            "e.g. 'nDCG@10', 'AP', 'RBP(p=0.8)', 'nDCG(gain=exp)@10'."
        )
    name = match.group("name")
    params: dict[str, Any] = {}
    if match.group("params"):
        for part in split_top_level(match.group("params")):
            if "=" not in part:
                raise MeasureError(
                    f"parameter {part.strip()!r} in measure {text!r} has no value: write "
                    "name=value, e.g. 'RBP(p=0.8)'."
                )
            key, value = part.split("=", 1)
            key = key.strip().lower()
            if key in params:
                raise MeasureError(
                    f"parameter {key!r} is given twice in measure {text!r}: give each parameter "
                    f"once, e.g. '{name}({key}={value.strip()})'."
                )
            params[key] = parse_value(value, text)
    cutoff: int | float | None = None
    if match.group("cutoff") is not None:
        raw = match.group("cutoff").strip()
        if re.fullmatch(r"\d+", raw):
            cutoff = int(raw)
        elif re.fullmatch(r"\d*\.\d+|\d+\.\d*", raw):
            cutoff = float(
                raw
            )  # a real cut-off (IPrec@0.1); build_measure checks the measure takes one
        else:
            raise MeasureError(
                f"the cut-off {raw!r} in measure {text!r} must be a whole number >= 1, "
                "e.g. 'nDCG@10' (or a real number for IPrec@0.1 and Rprec_mult@0.2)."
            )
    lowered = name.lower()
    if lowered not in REGISTRY:
        if lowered in _ALIASES:
            canonical, alias_params, alias_cutoff = _ALIASES[lowered]
            name = canonical
            params = {**alias_params, **params}
            cutoff = alias_cutoff if cutoff is None else cutoff
        else:
            for pattern, canonical, alias_params in _ALIAS_PATTERNS:
                spelled = pattern.match(name)
                if spelled:
                    if cutoff is not None:
                        raise MeasureError(f"measure {text!r} gives the cut-off twice.")
                    digits = spelled.group(1)
                    name, cutoff = canonical, float(digits) if "." in digits else int(digits)
                    params = {**alias_params, **params}
                    break
            else:
                hint = _did_you_mean(name, match.group("cutoff"))
                raise MeasureError(f"unknown measure {name!r} in {text!r}.{hint}")
    return build_measure(name, params, cutoff, text=text)


def build_measure(
    name: str,
    params: Mapping[str, Any] | None = None,
    cutoff: int | float | None = None,
    *,
    text: str | None = None,
) -> Measure:
    """Build a canonical :class:`Measure` from a name, parameters and a cut-off."""
    definition = REGISTRY.get(name.lower())
    if definition is None:
        raise MeasureError(f"unknown measure {name!r}.{_did_you_mean(name)}")
    shown = text or name
    if definition.name == "NumRet" and any(str(k).lower() == "rel" for k in (params or {})):
        definition = REGISTRY["numrelret"]  # ir_measures spells NumRelRet as NumRet(rel=1)
    params, cutoff = _foreign_params(definition, params, cutoff, shown)
    # parameter names match case-insensitively and keep their declared spelling (e.g. T)
    declared = {p.name.lower(): p for p in definition.params}
    kept = []
    for key, value in params.items():
        if key.lower() not in declared:
            known = ", ".join(p.name for p in definition.params) or "none"
            raise MeasureError(
                f"{definition.name} has no parameter {key!r} (in {shown!r}); its parameters: "
                f"{known}."
            )
        param = declared[key.lower()]
        value = _coerce(param, value, definition.name, shown)
        if freeze(value) != freeze(param.default):
            kept.append((param.name, freeze(value)))
    if isinstance(cutoff, (np.integer, np.floating)) and not isinstance(cutoff, np.bool_):
        cutoff = cutoff.item()  # numpy scalars (np.int64(10)) are the numbers they hold
    if definition.cutoff == "none" and cutoff is not None:
        raise MeasureError(
            f"{definition.name} takes no cut-off (in {shown!r}): write {definition.name!r}."
        )
    if definition.cutoff == "required" and cutoff is None:
        raise MeasureError(
            f"{definition.name} needs a cut-off (in {shown!r}): write e.g. '{definition.name}@10'."
        )
    if definition.cutoff == "real":
        if cutoff is None:
            raise MeasureError(
                f"{definition.name} needs a cut-off (in {shown!r}): write e.g. "
                f"'{definition.name}@0.5'."
            )
        if (
            isinstance(cutoff, bool)
            or not isinstance(cutoff, (int, float))
            or not 0 <= cutoff < math.inf
        ):
            raise MeasureError(
                f"the cut-off of {shown!r} must be a real number >= 0, got {cutoff!r}."
            )
        cutoff = float(cutoff)
    elif cutoff is not None and (
        not isinstance(cutoff, int) or isinstance(cutoff, bool) or cutoff < 1
    ):
        raise MeasureError(f"the cut-off of {shown!r} must be a whole number >= 1, got {cutoff!r}.")
    return Measure(definition.name, tuple(sorted(kept)), cutoff)


#: ir_measures' parameter names -> pdireval's (value translations for ``dcg=``)
_DCG = {"log2": "linear", "exp-log2": "exp"}


def _foreign_params(definition: MeasureDef, params, cutoff, shown: str):
    """ir_measures' spellings of parameters: ``cutoff=k`` (the cut-off), ``gains={...}``
    (``gain=``), ``dcg=log2|exp-log2`` (``gain=linear|exp``)."""
    declared = {p.name.lower() for p in definition.params}
    out: dict[str, Any] = {}
    given: dict[str, str] = {}  # pdireval's parameter name -> the spelling that set it

    def once(target: str, spelling: str) -> None:
        if target in given:
            raise MeasureError(
                f"measure {shown!r} sets {target}= twice ({given[target]}= and {spelling}=): "
                "give each parameter once."
            )
        given[target] = spelling

    for key, value in (params or {}).items():
        key = key.lower()
        once({"gains": "gain", "dcg": "gain"}.get(key, key) if "gain" in declared else key, key)
        if key in declared:
            out[key] = value
        elif key == "cutoff":
            if cutoff is not None and cutoff != value:
                raise MeasureError(f"measure {shown!r} gives the cut-off twice (cutoff= and @).")
            cutoff = value
        elif key == "gains" and "gain" in declared:
            out["gain"] = value
        elif key == "dcg" and "gain" in declared:
            if not isinstance(value, str) or value.lower() not in _DCG:
                raise MeasureError(
                    f"dcg={value!r} in {shown!r}: ir_measures' dcg= is 'log2' (gain = label) or "
                    "'exp-log2' (gain = 2^label - 1); pdireval writes gain=linear or gain=exp."
                )
            out["gain"] = _DCG[value.lower()]
        else:
            out[key] = value  # unknown: reported by the caller
    return out, cutoff


def _number(value: Any) -> bool:
    """A real number (Python or numpy, e.g. ``np.float32``), not a bool."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def _finite(value: Any) -> bool:
    return _number(value) and math.isfinite(float(value))


def _coerce(param: Param, value: Any, name: str, shown: str) -> Any:
    def fail(expected: str):
        raise MeasureError(
            f"parameter {param.name}={_render_given(value)} of {name} (in {shown!r}) is invalid: "
            f"expected {expected}. {param.description}"
        )

    kind = param.kind
    if kind == "int":
        if not _finite(value) or float(value) != int(value):
            fail("a finite whole number" if _number(value) else "a whole number")
        value = int(value)
    elif kind == "float":
        if isinstance(value, str) and value.lower() in param.choices:
            value = value.lower()  # a named reading beside numbers (ERR's max_grade=qrels)
        elif not _finite(value):
            fail(
                ("a finite number" if _number(value) else "a number")
                + "".join(f" or {c}" for c in param.choices)
            )
        else:
            value = float(value)
    elif kind == "bool":
        if not isinstance(value, (bool, np.bool_)):
            fail("true or false")
        value = bool(value)
    elif kind == "choice":
        if not isinstance(value, str) or value.lower() not in param.choices:
            fail("one of " + ", ".join(param.choices))
        value = value.lower()
    elif kind in ("gain", "discount"):
        if isinstance(value, str):
            if value.lower() not in param.choices:
                what = "a mapping {label: gain}" if kind == "gain" else "a vector of weights"
                fail("one of " + ", ".join(param.choices) + " or " + what)
            value = value.lower()
        elif kind == "gain" and isinstance(value, Mapping):
            if not all(_finite(k) and _finite(v) for k, v in value.items()):
                fail("a mapping of finite numbers {label: gain}")
            value = {float(k): float(v) for k, v in value.items()}
        elif kind == "discount" and _is_vector(value):
            if len(value) == 0 or not all(_finite(v) for v in value):
                fail("a non-empty vector of finite numbers")
            value = tuple(float(v) for v in value)
        else:
            fail("a name or " + ("a mapping" if kind == "gain" else "a vector"))
    elif kind == "vector":
        if not _is_vector(value) or not all(_finite(v) for v in value):
            fail("a vector of finite numbers")
        value = tuple(float(v) for v in value)
    if param.check is not None:
        problem = param.check(value)
        if problem:
            fail(problem)
    return value


def _is_vector(value: Any) -> bool:
    return (isinstance(value, Sequence) and not isinstance(value, str)) or (
        isinstance(value, np.ndarray) and value.ndim == 1
    )


def _render_given(value: Any) -> str:
    """A parameter value as the user wrote it, shortened (1e300 is not shown with 300 digits)."""
    if _number(value):
        return (
            f"{float(value):g}"
            if not float(value).is_integer() or abs(float(value)) >= 1e16
            else str(int(value))
        )
    text = repr(value.tolist() if hasattr(value, "tolist") else value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_measures(measures: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse one measure or a list of them, keeping order and dropping repeats.

    A trec_eval spelling that names several measures expands in place: ``"P.5,10"`` (P@5,
    P@10), ``"P"`` (trec_eval's default cut-offs), ``"official"`` and ``"all_trec"``
    (trec_eval's sets, resolved to the measures pdireval has).
    """
    return list(dict.fromkeys(m for _, m in labelled_measures(measures)))


def labelled_measures(
    measures: str | Measure | Iterable[str | Measure],
) -> list[tuple[str, Measure]]:
    """Parse measures as :func:`parse_measures` does, each with the name to show for it.

    The name is the user's spelling: the string given (``"map"`` stays ``"map"``), or the
    ``str()`` of an object (an ir_measures measure's own string); a :class:`Measure`, or a
    trec_eval spelling that names several measures (``"P.5,10"``, ``"official"``), shows
    each measure's canonical spelling. Repeated names are dropped; two names of one measure
    (``"map"`` and ``"AP"``) are both kept. ``str(parse_measure(name))`` gives the
    canonical spelling of any name.
    """
    items: list
    if isinstance(measures, (str, Measure)) or not hasattr(measures, "__iter__"):
        items = [measures]
    else:
        try:
            items = list(measures)
        except TypeError:
            raise TypeError(
                "measures must be a string such as 'nDCG@10' or a list of them"
            ) from None
    if not items:
        raise MeasureError("no measure given: pass e.g. ['nDCG@10', 'AP'].")
    out: dict[str, Measure] = {}
    for item in items:
        if isinstance(item, Measure):
            out.setdefault(str(item), item)
            continue
        text = as_text(item)
        found = _foreign(text, families_too=True)
        if found is not None and len(found) != 1:
            for m in found:
                out.setdefault(str(m), m)
        else:
            out.setdefault(text.strip(), found[0] if found is not None else parse_measure(text))
    return list(out.items())


def _foreign(text: str, families_too: bool = False) -> list[Measure] | None:
    """Other tools' spellings the grammar does not cover (trec_eval's ``P.10``, ``P.5,10``,
    ``P_10``, ``iprec_at_recall.0.10``, ``official``; with ``families_too`` also a bare
    parameterised family such as ``P``), read by the registered spelling readers, or None."""
    stripped = text.strip()
    if "(" in stripped or "@" in stripped:
        return None
    for reader in _SPELLING_READERS:
        found = reader(stripped, families_too)
        if found is not None:
            return found
    return None
