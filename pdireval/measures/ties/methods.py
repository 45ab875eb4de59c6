"""The ways ``ties="expected"`` is computed, as declarations a measure makes.

A :class:`~pdireval.measures.registry.MeasureDef` says how its expectation over the orderings
of tied documents is computed with ``ties=``:

``Invariant()``
    the value does not depend on the order of the list (NumRet, SetP, ...): the ordinary value.
``ClosedForm(form, otherwise=...)``
    ``form(segments, m)`` computes the expectation directly (a function beside the kernel it
    averages); it may return None for a case it does not cover, which ``otherwise`` (an
    enumeration) then computes.
``Groupwise(by=...)``
    exact enumeration group by group, for *separable* measures (a sum over documents of a term
    of the document, its position and an order-free summary of the documents above it):
    E[M] = M₀ + Σ_g (E_g[M] − M₀).
``Joint(by=...)``
    exact enumeration of the joint orderings of a list's groups: right for any measure. A
    measure that declares nothing gets ``Joint(by="doc")``, the general exact method.
``ByCutoff(without=..., with_cutoff=...)``
    one method without a cut-off, another with one (F is order-free without a cut-off).

``by`` says which documents the measure cannot tell apart, so that only distinct arrangements
are enumerated: ``"label"`` (documents with equal labels), ``"binary"`` (relevant or not, under
``rel`` and ``negatives``; the raw label on condensed lists), ``"doc"`` (every judged document
is its own type: measures that read more than a label, such as subtopics), or a function
``reading(segments, m)`` returning a hashable key and one value per hit.

Enumeration is exact up to ``exact_limit`` (5040) arrangements per unit and the mean of seeded
random orderings past it (:mod:`pdireval.measures.ties.orderings`).

References
----------
McSherry, F. & Najork, M. (2008). Computing information retrieval performance measures
efficiently in the presence of tied scores. ECIR 2008, 414–421.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "TieMethod",
    "Invariant",
    "ClosedForm",
    "Groupwise",
    "Joint",
    "ByCutoff",
    "GENERAL",
    "method_for",
    "method_kind",
    "expected",
]


class TieMethod:
    """Base of the tie-method declarations."""

    def describe(self) -> str:  # pragma: no cover - every subclass says
        raise NotImplementedError


@dataclass(frozen=True)
class Invariant(TieMethod):
    """The measure does not depend on the order of the list: its ordinary value."""

    def describe(self) -> str:
        return "order-free: the default value"


@dataclass(frozen=True)
class Enumeration(TieMethod):
    """Exact enumeration of arrangements (``Groupwise`` or ``Joint``).

    ``by``: which documents are alike (see the module docstring). ``whole_list``: the
    measure's normalisers read the list below a group (its relevant count, its end), so a
    group's copies keep the whole list (groupwise only).
    """

    by: str | Callable = "label"
    whole_list: bool = False

    joint = False

    def describe(self) -> str:
        if self.joint:
            return "enumeration of the joint orderings"
        return "enumeration, group by group"


@dataclass(frozen=True)
class Groupwise(Enumeration):
    """Enumeration group by group (separable measures)."""


@dataclass(frozen=True)
class Joint(Enumeration):
    """Enumeration of the joint orderings of a list's groups (any measure)."""

    joint = True


@dataclass(frozen=True)
class ClosedForm(TieMethod):
    """A closed form ``form(segments, m)`` of the expectation; None from it means "not
    covered here", computed by ``otherwise``. ``note`` completes the description in the
    docs ("closed form" + note); ``text`` replaces it."""

    form: Callable
    otherwise: Enumeration = Joint()
    note: str = ""
    text: str = ""

    def describe(self) -> str:
        if self.text:
            return self.text
        return "closed form" + (f" {self.note}" if self.note else "")


@dataclass(frozen=True)
class ByCutoff(TieMethod):
    """One method without a cut-off, another with one."""

    without: TieMethod
    with_cutoff: TieMethod

    def describe(self) -> str:
        first = self.without.describe()
        if isinstance(self.without, Invariant):
            first = "order-free without a cut-off (the default value)"
        return f"{first}; with one: {self.with_cutoff.describe()}"


#: what a measure that declares no tie method gets: the exact general method
GENERAL = Joint(by="doc")


def method_for(declared: TieMethod | None, m) -> TieMethod:
    """The method that computes ``m``: its declaration, resolved for its cut-off."""
    method = GENERAL if declared is None else declared
    while isinstance(method, ByCutoff):
        method = method.without if m.cutoff is None else method.with_cutoff
    return method


def _enumeration(method: TieMethod) -> Enumeration:
    """``method`` once closed forms, invariants and cut-offs are resolved: an enumeration."""
    if not isinstance(method, Enumeration):
        raise TypeError(
            f"a tie method is Invariant, ClosedForm, Groupwise, Joint or ByCutoff; got {method!r}"
        )
    return method


def method_kind(m) -> str:
    """How ``ties="expected"`` computes the measure ``m`` (as declared, for its cut-off):
    ``"closed"``, ``"invariant"``, ``"groupwise"`` or ``"joint"``."""
    method = method_for(m.definition.ties, m)
    if isinstance(method, ClosedForm):
        return "closed"
    if isinstance(method, Invariant):
        return "invariant"
    return "joint" if _enumeration(method).joint else "groupwise"


def _reading(by, segments, m):
    """The ``by`` of :func:`pdireval.measures.ties.orderings.tie_units` for a declaration."""
    if callable(by):
        return by(segments, m)
    if by == "binary":
        if m.get("judged_only", False):
            return "label"
        from pdireval.measures.view import read_negatives

        negatives = m.get("negatives", "unjudged")
        rel = m.get("rel")
        relevant = read_negatives(segments.hit_label, negatives) >= rel
        return ("binary", rel, negatives), relevant.astype(np.float64)
    return by


def expected(
    segments, m, kernel, declared: TieMethod | None, *, real_cutoff: bool = False, **options
):
    """The tie-aware value of ``m`` per segment: its declared method (``declared``) with
    ``kernel`` its ordinary kernel. ``real_cutoff``: the cut-off is not a depth (IPrec@0.1).
    ``options`` go to the enumeration (``exact_limit``, ``samples``, ``chunk_hits``,
    ``designs`` of :func:`pdireval.measures.ties.orderings.expected_by_orderings`)."""
    method = method_for(declared, m)
    if isinstance(method, ClosedForm):
        value = method.form(segments, m)
        if value is not None:
            return value
        method = method.otherwise
    if isinstance(method, Invariant):
        return kernel(segments, m)
    method = _enumeration(method)
    from pdireval.measures.ties.orderings import expected_by_orderings

    judged_only = m.get("judged_only", False)
    # a group's copies may stop after its last hit unless a normaliser reads the list below it
    truncate = not method.whole_list and not judged_only
    # an integer cut-off k: the measure reads the top k only, groups starting below k stay put
    # (not on condensed lists, whose positions are not the run's)
    depth = m.cutoff if not real_cutoff and not judged_only else None
    return expected_by_orderings(
        kernel,
        segments,
        m,
        joint=method.joint,
        by=_reading(method.by, segments, m),
        truncate=truncate,
        depth=depth,
        **options,
    )
