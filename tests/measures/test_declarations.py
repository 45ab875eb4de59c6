"""A measure is one declaration: MeasureDef(params=, ties=, bounded=, ...), never changed after
registration; the registry refuses a user measure that would take over a built-in spelling,
and unregistering removes only what that registration added."""

from __future__ import annotations

import dataclasses
import re
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.measures import compute, parse_measure
from pdireval.measures.bounds import measure_bounds, normalise
from pdireval.measures.params import BOUND_PARAM_NAMES, JUDGED_ONLY, NEG, REL
from pdireval.measures.registry import (
    _ALIASES,
    REGISTRY,
    Bounded,
    MeasureDef,
    register,
    unregister,
)
from pdireval.measures.ties import GENERAL, ClosedForm, Invariant, method_kind
from pdireval.measures.view import seg_sum, view_of
from tests.helpers import assert_every_ordering, tied_case


def first_relevant_squared(segments, m):
    """1 / (rank of the first relevant document)², 0 if none: not separable, no closed form."""
    v = view_of(segments, negatives=m.get("negatives"), judged_only=m.get("judged_only"))
    hits = v.hit_label >= m.get("rel")
    first = np.full(v.n_seg, np.inf)
    np.minimum.at(first, v.hit_seg[hits], v.hit_pos[hits].astype(np.float64))
    return np.where(np.isinf(first), 0.0, 1.0 / (first + 1.0) ** 2)


@pytest.fixture
def declared():
    """A measure declared as a contributor declares one, with no tie method."""
    definition = register(
        MeasureDef(
            "FirstRelSq",
            kernel=first_relevant_squared,
            description="1 / (rank of the first relevant document)².",
            params=(REL, JUDGED_ONLY, NEG),
            citation="a test",
            builtin=False,
        )
    )
    yield definition
    unregister("FirstRelSq")


def test_a_declared_measure_without_a_tie_method_gets_the_exact_general_one(declared):
    assert declared.ties is None
    assert method_kind(parse_measure("FirstRelSq(ties=expected)")) == "joint"
    assert declared.describe_ties() == GENERAL.describe() == "enumeration of the joint orderings"
    for seed in (0, 1):
        run, qrels = tied_case(seed)
        assert_every_ordering(
            run, qrels, ["FirstRelSq", "FirstRelSq@3", "FirstRelSq(rel=2)"], 1e-12
        )


def test_a_declaration_lists_every_parameter_once(declared):
    names = [p.name for p in declared.params]
    assert names == ["rel", "judged_only", "negatives", "ties"]  # ties= from the definition
    ndcg = REGISTRY["ndcg"]
    names = [p.name for p in ndcg.params]
    assert len(names) == len(set(names))
    assert set(BOUND_PARAM_NAMES) <= set(names) and "gains" in names and names[-1] == "ties"
    assert [p.name for p in ndcg.own_params] == [
        "gain",
        "discount",
        "judged_only",
        "negatives",
        "gains",
    ]
    assert ndcg.bounded.exact and ndcg.bounded.paper
    assert REGISTRY["numret"].bounded is None and not {"bounds"} & {
        p.name for p in REGISTRY["numret"].params
    }


def test_definitions_cannot_be_changed_after_registration():
    definition = REGISTRY["ap"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        definition.kernel = first_relevant_squared
    with pytest.raises(dataclasses.FrozenInstanceError):
        definition.params = ()


def test_every_builtin_declares_a_tie_method():
    for definition in REGISTRY.values():
        if definition.builtin:
            assert definition.ties is not None, definition.name
    assert isinstance(REGISTRY["numret"].ties, Invariant)
    assert isinstance(REGISTRY["ap"].ties, ClosedForm)


def test_compute_is_the_door_of_ties_and_bounds():
    run, qrels = tied_case(3)
    prepared = pdireval.evaluation.prepare(run, qrels=qrels)
    segments = prepared.segments
    ap = REGISTRY["ap"]
    plain = ap.kernel(segments, parse_measure("AP"))
    np.testing.assert_array_equal(compute(segments, parse_measure("AP")), plain)
    # ties=expected: the declared closed form, not the kernel
    expected = compute(segments, parse_measure("AP(ties=expected)"))
    np.testing.assert_array_equal(
        expected, ap.ties.form(segments, parse_measure("AP(ties=expected)"))
    )
    # bounds=: the bound normalisation, from the declaration
    minmax = compute(segments, parse_measure("AP(bounds=minmax)"))
    assert not np.array_equal(minmax, plain)
    with pytest.raises(pdireval.MeasureError, match="does not combine with bounds"):
        compute(segments, parse_measure("AP(bounds=minmax,ties=expected)"))


def test_variants_go_through_compute():
    # evaluate_variants traps floating-point overflow like evaluate (it used to call the
    # kernel directly)
    run, qrels = tied_case(4, labels=(0, 1, 2000))
    with pytest.raises(pdireval.MeasureError, match="overflows float64"):
        pdireval.evaluate(run, "nDCG(gain=exp)", qrels=qrels)
    variants = pd.concat(
        [qrels.assign(level="a"), qrels.assign(level="b", label=qrels["label"].clip(upper=1))]
    )
    with pytest.raises(pdireval.MeasureError, match="overflows float64"):
        pdireval.evaluate_variants(run, "nDCG(gain=exp)", variants)


def hits(ranked, judged, *, cutoff, rel=1.0):
    return float(np.sum(ranked >= rel))


@pytest.mark.parametrize(
    "name, aliases, clash",
    [
        ("MyMap", ("map",), "AP"),  # an alias of a built-in
        ("MyRR", ("mrr",), "RR"),
        ("MyP", ("P_10",), "P"),  # a trec_eval spelling as alias
        ("P_10", (), "P"),  # a trec_eval spelling as name
        ("ndcg_cut_5", (), "nDCG"),
        ("iprec_at_recall_0", (), "IPrec"),
        ("map", (), "AP"),
        ("nDCG", (), "built-in"),  # a built-in name
        ("MyAP", ("AP",), "AP"),
    ],
)
def test_a_user_measure_cannot_take_a_builtin_spelling(name, aliases, clash):
    before = (dict(REGISTRY), dict(_ALIASES))
    for replace in (False, True):
        with pytest.raises(pdireval.MeasureError, match=clash) as info:
            pdireval.register_measure(name, hits, aliases=aliases, replace=replace)
        assert "choose another" in str(info.value)
    assert (dict(REGISTRY), dict(_ALIASES)) == before  # nothing half-registered
    assert parse_measure("map").name == "AP" and parse_measure("P_10") == parse_measure("P@10")


def test_replace_overrides_a_user_measure_and_unregister_removes_only_its_own():
    before = (dict(REGISTRY), dict(_ALIASES))
    pdireval.register_measure("UHits", hits, aliases=("uhits_alias",))
    try:
        assert parse_measure("uhits_alias").name == "UHits"
        with pytest.raises(pdireval.MeasureError, match="replace=True"):
            pdireval.register_measure("UHits", hits)
        # another user measure may not take its alias either
        with pytest.raises(pdireval.MeasureError, match="UHits"):
            pdireval.register_measure("UOther", hits, aliases=("uhits_alias",))
        pdireval.register_measure("UHits", hits, aliases=("uhits_other",), replace=True)
        assert parse_measure("uhits_other").name == "UHits"
        with pytest.raises(pdireval.MeasureError, match="unknown measure"):
            parse_measure("uhits_alias")  # the replaced registration's alias went with it
    finally:
        pdireval.unregister_measure("UHits")
    assert (dict(REGISTRY), dict(_ALIASES)) == before
    with pytest.raises(pdireval.MeasureError, match="not a user-defined measure"):
        pdireval.unregister_measure("AP")
    assert parse_measure("map").name == "AP"


def test_a_user_measure_is_computed_under_its_own_name():
    run, qrels = tied_case(5)
    pdireval.register_measure("UCount", hits, description="relevant retrieved")
    try:
        got = pdireval.evaluate(run, ["UCount@3", "NumRelRet@3"], qrels=qrels)
        values = got.pivot_table(index=["system", "query"], columns="measure", values="value")
        np.testing.assert_array_equal(
            values["UCount@3"].to_numpy(), values["NumRelRet@3"].to_numpy()
        )
    finally:
        pdireval.unregister_measure("UCount")


def test_seg_sum_kernel_declared_like_a_builtin(declared):
    # the kernel contract of DEVELOPING.md: one float64 per segment from array operations
    run, qrels = tied_case(2)
    segments = pdireval.evaluation.prepare(run, qrels=qrels).segments
    v = view_of(segments)
    count = seg_sum(v.hit_seg[v.hit_label >= 1], 1.0, v.n_seg)
    got = compute(segments, parse_measure("FirstRelSq"))
    assert got.shape == (segments.n_segments,) and ((got > 0) == (count > 0)).all()


def developing_blocks() -> list[str]:
    """The Python blocks of DEVELOPING.md's "How to add a measure" (steps 1 and 2)."""
    text = (Path(__file__).resolve().parents[2] / "DEVELOPING.md").read_text()
    section = text.split("## How to add a measure", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    return [textwrap.dedent(b) for b in blocks]


def test_developing_worked_example_runs_as_written():
    blocks = developing_blocks()
    assert len(blocks) == 2 and "def first_relevant_squared" in blocks[0]
    assert "register(" in blocks[1] and "ties=" not in blocks[1].split("#", 1)[0]
    namespace: dict = {}
    try:
        for block in blocks:
            exec(compile(block, "DEVELOPING.md", "exec"), namespace)
        definition = REGISTRY["firstrelsq"]
        assert definition.ties is None and definition.bounded is None
        assert method_kind(parse_measure("FirstRelSq(ties=expected)")) == "joint"
        for seed in (0, 1):
            run, qrels = tied_case(seed)
            assert_every_ordering(run, qrels, ["FirstRelSq", "FirstRelSq@3"], 1e-12)
    finally:
        REGISTRY.pop("firstrelsq", None)


def bounded_copy(name, of, bounded):
    """A built-in's kernel declared again under ``name`` with ``bounded``."""
    source = REGISTRY[of.lower()]
    return register(
        MeasureDef(
            name,
            kernel=source.kernel,
            description=source.description,
            params=source.own_params,
            cutoff=source.cutoff,
            bounded=bounded,
            builtin=False,
        )
    )


@pytest.mark.parametrize(
    "of, bounded",
    [
        ("P", Bounded(form="precision", exact=True)),
        ("R", Bounded(form="recall", exact=True)),
        ("AP", Bounded(form="sp", exact=True, paper=True, base="SP")),
        ("nDCG", Bounded(form="dcg", exact=True, paper=True, base="DCG")),
    ],
)
def test_bounds_follow_the_declared_form_not_the_name(of, bounded):
    run, qrels = tied_case(6)
    segments = pdireval.evaluation.prepare(run, qrels=qrels).segments
    bounded_copy("Copied", of, bounded)
    try:
        cut = "@3"
        for bounds in ("minmax", "ul1", "ul2"):
            want = compute(segments, parse_measure(f"{of}(bounds={bounds}){cut}"))
            got = compute(segments, parse_measure(f"Copied(bounds={bounds}){cut}"))
            np.testing.assert_array_equal(got, want)
    finally:
        unregister("Copied")


def test_an_ordered_bound_form_has_monte_carlo_random_bounds_only():
    run, qrels = tied_case(7)
    segments = pdireval.evaluation.prepare(run, qrels=qrels).segments
    bounded_copy("Copied", "RR", Bounded())  # form="ordered": the measure on the sorted pool
    try:
        with pytest.raises(pdireval.MeasureError, match="no closed-form random lower bound"):
            compute(segments, parse_measure("Copied(bounds=ul2)"))
        with pytest.raises(pdireval.MeasureError, match="only for AP, SP, DCG, nDCG"):
            compute(segments, parse_measure("Copied(bounds=ul2,lb=paper)"))
        m = parse_measure("Copied(bounds=minmax,lb=mc)")
        b = measure_bounds(segments, m)
        np.testing.assert_array_equal(b.value, compute(segments, parse_measure("RR")))
        # IUB and WLB: RR of the judged pool sorted by label, best first and worst first
        assert np.all(np.isin(b.ideal, (0.0, 1.0))) and np.all(b.worst <= b.ideal)
        want = normalise(b.value, b.ideal, b.random, b.worst, "minmax")
        np.testing.assert_array_equal(compute(segments, m), want)
    finally:
        unregister("Copied")
    with pytest.raises(ValueError, match="form"):
        Bounded(form="ordered", exact=True)
    with pytest.raises(ValueError, match="form"):
        Bounded(form="magic")
