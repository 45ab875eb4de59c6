"""trec_eval's measure names, read generically from the registry.

Every :class:`~pdireval.measures.registry.MeasureDef` states the trec_eval names it answers
to in its ``trec_eval`` field: a comma-separated list of *templates*, one per trec_eval
measure family, e.g. ``"map, map_cut_k"`` on ``AP``. A template is

``family``
    the whole measure, no parameter (``map`` -> ``AP``);
``family_k``
    a family whose trec_eval parameter is pdireval's integer cut-off (``P_k`` -> ``P@k``);
``family_x``
    the same with a real-valued cut-off, printed ``%3.2f`` (``iprec_at_recall_x``);
``family_{name}``
    a family whose trec_eval parameter is the pdireval parameter ``name``
    (``Rprec_mult_{mult}`` -> ``Rprec_mult(mult=0.2)``), printed ``%3.2f`` when real.

From those templates alone this module knows every trec_eval spelling a user types:
the ``-m`` forms (``P``, ``P.10``, ``P.5,10,20``, ``iprec_at_recall.0.10``), the output
forms (``P_10``, ``iprec_at_recall_0.10``), and the sets ``official`` and ``all_trec``
(trec_eval's own lists, resolved to the families pdireval has). A measure registered later
with a ``trec_eval`` template is picked up with nothing else to change. What is trec_eval's
and not pdireval's is read from the command's table (:mod:`pdireval.trec.trec_measures`): the
order in which trec_eval prints families, each family's default parameters, and the two sets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pdireval.errors import MeasureError
from pdireval.measures.registry import REGISTRY, build_measure, register_spelling_reader
from pdireval.trec.trec_measures import MEASURES as TREC_MEASURES
from pdireval.trec.trec_measures import NICKNAMES

if TYPE_CHECKING:
    from pdireval.measures.registry import MeasureDef

__all__ = [
    "FAMILY_ORDER",
    "FAMILY_DEFAULTS",
    "MEASURE_SETS",
    "TrecMeasure",
    "families",
    "expand",
    "lookup",
    "trec_eval_name",
    "read_spelling",
]

#: trec_eval's families in the order it prints them (9.0.8's, then 10.0's new ones): the
#: command's measure table (:mod:`pdireval.trec.trec_measures`, the one home of what is
#: trec_eval's); a family registered in pdireval but not listed there is printed after these.
FAMILY_ORDER = tuple(m.name for m in TREC_MEASURES)

#: trec_eval's default parameter values of its families with cut-offs (used for ``-m P`` and
#: for the sets); a MeasureDef may give others in ``extra["trec_eval_defaults"]``.
FAMILY_DEFAULTS = {m.name: m.default for m in TREC_MEASURES if m.kind in ("cut_long", "cut_double")}

#: trec_eval's named sets of families (``-m official``, ``-m all_trec``; 9.0.8's lists).
MEASURE_SETS = {name: NICKNAMES["9"][name] for name in ("official", "all_trec")}

#: families that are not measures of a ranking (printed by the trec_eval command itself).
PSEUDO_FAMILIES = ("runid", "num_q")


@dataclass(frozen=True)
class _Family:
    family: str
    definition: MeasureDef
    slot: str | None  # None | "cutoff" | "cutoff_float" | parameter name
    position: int  # registration order (families trec_eval does not list sort last)

    @property
    def defaults(self) -> tuple:
        extra = getattr(self.definition, "extra", None) or {}
        return tuple(extra.get("trec_eval_defaults", FAMILY_DEFAULTS.get(self.family, ())))


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval output measure: its printed ``name`` (``P_10``), its ``family``
    (``P``) and the pdireval :class:`~pdireval.measures.registry.Measure` computing it."""

    name: str
    family: str
    measure: object  # Measure


_TEMPLATE = re.compile(
    r"^(?P<family>[A-Za-z0-9_]+?)(?:_(?P<slot>k|x|\{[A-Za-z_][A-Za-z0-9_]*\}))?$"
)


def families() -> dict[str, _Family]:
    """trec_eval family name -> how the registry computes it (read from every MeasureDef's
    ``trec_eval`` templates each call, so later registrations are included)."""

    out: dict[str, _Family] = {}
    for position, definition in enumerate(REGISTRY.values()):
        for template in (t.strip() for t in (definition.trec_eval or "").split(",")):
            match = _TEMPLATE.match(template)
            if not template or not match:
                continue
            slot = match.group("slot")
            if slot == "k":
                slot = "cutoff"
            elif slot == "x":
                slot = "cutoff_float"
            elif slot:
                slot = slot[1:-1]
            out.setdefault(
                match.group("family"), _Family(match.group("family"), definition, slot, position)
            )
    return out


def _order_key(fam: _Family) -> tuple:
    try:
        return (0, FAMILY_ORDER.index(fam.family), 0)
    except ValueError:
        return (1, fam.position, 0)


def _format_value(value) -> str:
    if isinstance(value, float) and not float(value).is_integer():
        return f"{value:3.2f}"
    if isinstance(value, float):
        return f"{value:3.2f}" if value < 10 else str(int(value))
    return str(value)


def _name(fam: _Family, value) -> str:
    if fam.slot is None:
        return fam.family
    if fam.slot == "cutoff":
        return f"{fam.family}_{int(value)}"
    if fam.slot == "cutoff_float" or isinstance(value, float):
        return f"{fam.family}_{float(value):3.2f}"
    return f"{fam.family}_{value}"


def _measure(fam: _Family, value, extra_params: dict | None = None):

    params = dict(extra_params or {})
    if fam.slot is None:
        return build_measure(fam.definition.name, params)
    if fam.slot == "cutoff":
        return build_measure(fam.definition.name, params, int(value))
    if fam.slot == "cutoff_float":
        return build_measure(fam.definition.name, params, value)
    params[fam.slot] = value
    return build_measure(fam.definition.name, params)


def _parse_values(fam: _Family, text: str, spelled: str) -> list:
    values: list[float] = []
    for raw in text.split(","):
        raw = raw.strip()
        try:
            number = float(raw)
        except ValueError:
            raise MeasureError(
                f"trec_eval measure {spelled!r}: parameter {raw!r} is not a number. Write e.g. "
                f"'{fam.family}.{_format_value(fam.defaults[0]) if fam.defaults else 10}'."
            ) from None
        if fam.slot == "cutoff":
            if not number.is_integer() or number < 1:
                raise MeasureError(
                    f"trec_eval measure {spelled!r}: the cut-off {raw!r} must be a whole number "
                    f">= 1, e.g. '{fam.family}.10'."
                )
            values.append(int(number))
        else:
            values.append(number)
    return sorted(dict.fromkeys(values))


_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
#: trec_eval's ``name=value`` parameters: gain levels ``rel_level=gain`` (``ndcg_p.1=3.5,2=9``)
#: and named ones (``rbp.p=0.8``, ``rbp.p=0.8,2=1``)
_PAIRS = re.compile(rf"^(?:-?\d+|[A-Za-z_]\w*)={_NUMBER}(?:,(?:-?\d+|[A-Za-z_]\w*)={_NUMBER})*$")
#: trec_eval's positional parameters (``utility.1,-1,0,0``)
_POSITIONAL = re.compile(rf"^{_NUMBER}(?:,{_NUMBER})*$")


@dataclass(frozen=True)
class _GainPairs:
    """Parameters spelled as trec_eval's ``name=value`` pairs, e.g. ``1=3.5,2=9`` (gain
    levels) or ``p=0.8`` (kept as typed: trec_eval prints them so, ``ndcg_p_1=3.5,2=9``,
    ``rbp_p=0.8``)."""

    text: str

    @property
    def mapping(self) -> dict:
        """The gain levels {level: gain}."""
        out = {}
        for pair in self.text.split(","):
            level, gain = pair.split("=")
            if re.fullmatch(r"-?\d+", level):
                out[int(level)] = float(gain)
        return out

    @property
    def named(self) -> dict:
        """The named parameters {name: value}."""
        out = {}
        for pair in self.text.split(","):
            name, value = pair.split("=")
            if not re.fullmatch(r"-?\d+", name):
                out[name] = float(value)
        return out


@dataclass(frozen=True)
class _Positional:
    """Parameters given in trec_eval's order, e.g. ``utility.1,-1,0,0`` (kept as typed)."""

    text: str
    names: tuple

    @property
    def params(self) -> dict:
        return dict(zip(self.names, (float(v) for v in self.text.split(","))))


def _takes_pairs(fam: _Family, text: str) -> bool:
    """Whether ``text`` is ``name=value`` pairs this family declares: gain levels (a family
    with ``gains``) or its own named parameters."""
    if fam.slot is not None or not _PAIRS.match(text):
        return False
    declared = {p.name for p in fam.definition.params}
    for pair in text.split(","):
        name = pair.split("=")[0]
        if not (re.fullmatch(r"-?\d+", name) and "gains" in declared) and name not in declared:
            return False
    return True


def _positional(fam: _Family) -> tuple:
    extra = getattr(fam.definition, "extra", None) or {}
    return tuple(extra.get("trec_eval_positional", ()))


def _one(fam: _Family, value, extra_params=None) -> TrecMeasure:
    return TrecMeasure(_name(fam, value), fam.family, _measure(fam, value, extra_params))


def expand(
    spec: str, *, extra_params: dict | None = None, pseudo: bool = False
) -> list[TrecMeasure]:
    """The trec_eval measures a ``-m`` argument names, in trec_eval's print order.

    ``spec`` is a family (``P``: its default parameters), a family with parameters after a
    dot (``P.5,10``; trec_eval sorts them), an output name (``P_10``), or a set
    (``official``, ``all_trec``: the families of trec_eval's list that pdireval has).
    ``extra_params`` (e.g. ``{"rel": 2}``) are set on every measure that declares them.
    ``pseudo=True`` keeps ``runid`` / ``num_q`` entries (their ``measure`` is None).

    Raises
    ------
    MeasureError
        Not a trec_eval name pdireval knows (says which families it has).
    """
    fams = families()
    spec = spec.strip()
    if spec in MEASURE_SETS:
        out = []
        for family in MEASURE_SETS[spec]:
            if family in PSEUDO_FAMILIES and (pseudo or family not in fams):
                if pseudo:  # printed by the trec_eval command itself
                    out.append(TrecMeasure(family, family, None))
            elif family in fams:
                out.extend(_family_measures(fams[family], None, spec, extra_params))
        return out
    if pseudo and spec in PSEUDO_FAMILIES:
        return [TrecMeasure(spec, spec, None)]
    found = _split(spec, fams)
    if found is None:
        known = ", ".join(sorted(fams, key=str.lower))
        raise MeasureError(
            f"{spec!r} is not a trec_eval measure pdireval has. trec_eval names it knows: {known}; "
            "sets: official, all_trec. Parameters go after a dot, e.g. 'P.5,10'."
        )
    fam, values = found
    return _family_measures(fam, values, spec, extra_params)


def _family_measures(fam: _Family, values, spelled: str, extra_params) -> list[TrecMeasure]:
    if isinstance(values, _Positional):
        params = {**_declared(fam, extra_params), **values.params}
        return [
            TrecMeasure(
                f"{fam.family}_{values.text}",
                fam.family,
                build_measure(fam.definition.name, params),
            )
        ]
    if isinstance(values, _GainPairs):
        params = {**_declared(fam, extra_params), **values.named}
        if values.mapping:
            params["gains"] = values.mapping
        return [
            TrecMeasure(
                f"{fam.family}_{values.text}",
                fam.family,
                build_measure(fam.definition.name, params),
            )
        ]
    if fam.slot is None:
        if values:
            raise MeasureError(
                f"trec_eval measure {spelled!r}: {fam.family} takes no parameters here; write "
                f"{fam.family!r}."
            )
        return [_one(fam, None, _declared(fam, extra_params))]
    if values is None:
        values = list(fam.defaults)
        if not values:
            raise MeasureError(
                f"trec_eval measure {spelled!r} needs its parameter, e.g. '{fam.family}.10'."
            )
    return [_one(fam, v, _declared(fam, extra_params)) for v in values]


def _declared(fam: _Family, params: dict | None) -> dict:
    if not params:
        return {}
    names = {p.name for p in fam.definition.params}
    return {k: v for k, v in params.items() if k in names}


def _split(spec: str, fams: dict[str, _Family]):
    """(family, values or None) for ``P``, ``P.5,10``, ``P_10``; None if unknown."""
    if spec in fams:
        return fams[spec], None
    lowered = {name.lower(): fam for name, fam in fams.items()}
    if spec.lower() in lowered and lowered[spec.lower()].slot is not None:
        return lowered[spec.lower()], None
    # gain levels and named parameters as pairs (ndcg_p.1=3,2=7 printed ndcg_p_1=3,2=7;
    # rbp.p=0.8), positional parameters (utility.1,-1,0,0 printed utility_1,-1,0,0)
    for name in sorted(fams, key=len, reverse=True):
        fam = fams[name]
        for sep in ".", "_":
            if not spec.startswith(name + sep):
                continue
            rest = spec[len(name) + 1 :]
            if _takes_pairs(fam, rest):
                return fam, _GainPairs(rest)
            names = _positional(fam)
            if names and fam.slot is None and _POSITIONAL.match(rest):
                if len(rest.split(",")) != len(names):
                    raise MeasureError(
                        f"trec_eval measure {spec!r}: {name} takes {len(names)} numbers "
                        f"({', '.join(names)}) after the dot, e.g. '{name}.1,-1,0,0'; got "
                        f"{len(rest.split(','))}."
                    )
                return fam, _Positional(rest, names)
    # family.params (the -m form): the family is the longest known prefix before a dot
    for name in sorted(fams, key=len, reverse=True):
        fam = fams[name]
        if spec.startswith(name + ".") and fam.slot is not None:
            rest = spec[len(name) + 1 :]
            if rest:
                return fam, _parse_values(fam, rest, spec)
    # family_value (the output form)
    for name in sorted(fams, key=len, reverse=True):
        fam = fams[name]
        if fam.slot is not None and spec.lower().startswith(name.lower() + "_"):
            rest = spec[len(name) + 1 :]
            if re.fullmatch(r"\d+(\.\d+)?", rest):
                return fam, _parse_values(fam, rest, spec)
    return None


def lookup(text: str) -> list | None:
    """pdireval measures for a trec_eval spelling (``P.10``, ``P.5,10``, ``P_10``,
    ``iprec_at_recall.0.10``, ``official``), or None when ``text`` is none of these.
    Used by the measure parser."""
    text = text.strip()
    if text in MEASURE_SETS:
        return [t.measure for t in expand(text)]
    fams = families()
    if "." not in text and "_" not in text:
        return None
    found = _split(text, fams)
    if found is None:
        return None
    fam, values = found
    if values is None:
        return None  # a bare family name: the registry's own aliases decide
    return [t.measure for t in _family_measures(fam, values, text, None)]


def trec_eval_name(measure) -> str | None:
    """trec_eval's output name of a pdireval measure (``P@10`` -> ``P_10``), or None when
    no registered template spells it exactly (parameters beyond the template's)."""
    for fam in sorted(families().values(), key=_order_key):
        if fam.definition.name != measure.name:
            continue
        try:
            if fam.slot is None and measure.cutoff is None and not measure.params:
                return fam.family
            if fam.slot == "cutoff" and measure.cutoff is not None and not measure.params:
                return _name(fam, measure.cutoff)
            if fam.slot not in (None, "cutoff", "cutoff_float") and measure.cutoff is None:
                keys = [k for k, _ in measure.params]
                if keys == [fam.slot]:
                    return _name(fam, measure.params[0][1])
        except (TypeError, ValueError):
            continue
    return None


def print_order(items: list[TrecMeasure]) -> list[TrecMeasure]:
    """Sort trec_eval measures as trec_eval prints them: by family (trec_eval's order),
    within a family by parameter value (stable)."""
    fams = families()

    def key(item: TrecMeasure):
        if item.family in PSEUDO_FAMILIES:
            return (0, FAMILY_ORDER.index(item.family), 0)
        return _order_key(fams[item.family])

    return sorted(items, key=key)


def read_spelling(text: str, families_too: bool = False) -> list | None:
    """The measures a trec_eval spelling names (``P.10``, ``P.5,10``, ``P_10``,
    ``iprec_at_recall.0.10``, ``official``; with ``families_too`` also a bare parameterised
    family such as ``P``, its default parameters), or None: the registry's spelling reader."""
    found = lookup(text)
    if found is None and families_too:
        try:
            items = expand(text)
        except MeasureError:
            return None
        fam = families().get(text)
        if fam is not None and fam.slot is not None:
            return [t.measure for t in items]
    return found


register_spelling_reader(read_spelling)
