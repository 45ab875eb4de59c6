"""ties="expected" of EVERY registered measure equals the mean over every ordering of the tied
documents (brute force), driven by the registry: a measure registered later is checked with
nothing to add here.

For each measure: its default spelling (with a cut-off that falls inside tie groups when it
takes one, and without one when that is optional, plus cut-offs at the edges of the groups),
and one setting per declared choice or bool parameter (``judged_only=true``,
``negatives=keep``, ``variant=10r``, ...) plus a few numeric settings of common parameters
(:data:`SETTINGS`). Measures that read subtopics (their tie method enumerates by document)
are checked on qrels with subtopics as well. The cases: lists of 7 documents in 2-3 tie
groups with mixed grades; longer groups with binary and graded qrels (the closed forms' paths
for one ideal gain value); one judged document per group (the MS MARCO shape); generated
lists (slow). Without ties every measure equals its default; order-free measures equal it
with ties too. The family test files keep the hand-computed examples, parameter combinations
and the fallback paths of the closed forms.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

import pdireval
from pdireval.evaluation import prepare
from pdireval.measures.registry import REGISTRY, build_measure, parse_measure
from pdireval.measures.ties import ByCutoff, ClosedForm, Enumeration, method_kind
from pdireval.measures.ties.orderings import tie_units
from tests.helpers import (
    assert_every_ordering,
    evaluate_every_tie_ordering,
    expected_name,
    small_tied_case,
    subtopic_case,
    tied_runs,
)
from tests.helpers import tied_case as long_group_case

#: a cut-off per cut-off kind, inside the tie groups of the cases below
CUTOFFS = {"required": 3, "optional": 3, "real": 0.5, "none": None}
#: more cut-offs of each measure's default setting: at the edges of the tie groups
MORE_CUTOFFS = {"required": (1, 5), "optional": (1, 5), "real": (0.0, 1.0), "none": ()}
#: numeric settings checked beside the defaults, per parameter name
SETTINGS = {
    "gains": [{1: 2.0, 2: 5.0}, {0: -1.0, 1: 2.0, 2: 5.0}],
    "gain": ["exp"],
    "discount": ["zipf"],
    "rel": [2.0],
    "beta": [0.5],
    "p": [0.6],
    "T": [2.0],
    "max_grade": [2.0, "qrels"],
    "probs": [(0.2, 0.3, 0.5)],
    "levels": [(0.5, 0.2, 1.0)],
    "mult": [1.5],
}
#: parameter values that are spellings of the default reading or not about ties
SKIPPED = {
    *("ties", "bounds", "lb", "lower", "rlb_pool", "mc_samples", "mc_seed", "clip", "pool"),
    *("pool_depth", "degenerate", "a", "b", "c", "d", "num_docs", "alpha", "min_rel", "max_rel"),
}


def settings_of(definition, *, params: bool = True) -> list[str]:
    """The measure strings checked for one registered measure (``params=False``: its
    defaults only, at every cut-off)."""
    cut = CUTOFFS[definition.cutoff]
    cuts = [cut, *MORE_CUTOFFS[definition.cutoff]]
    cuts += [None] if definition.cutoff == "optional" else []
    if definition.name == "Rprec_mult":
        cuts = [0.5, 1.5, 2.0]
    out = [build_measure(definition.name, {}, c) for c in cuts]
    for p in definition.params if params else ():
        if p.name in SKIPPED:
            continue
        if p.kind == "bool":
            values = [not p.default]
        elif p.kind == "choice":
            values = [c for c in p.choices if c != p.default]
        else:
            values = SETTINGS.get(p.name, [])
        out += [build_measure(definition.name, {p.name: value}, cut) for value in values]
    return list(dict.fromkeys(str(m) for m in out))


def reads_subtopics(definition) -> bool:
    """Its tie method tells every judged document apart (by="doc"): it reads subtopics."""
    method = definition.ties
    if isinstance(method, ByCutoff):
        method = method.with_cutoff
    if isinstance(method, ClosedForm):
        method = method.otherwise
    return isinstance(method, Enumeration) and method.by == "doc"


BUILTIN = [d for d in REGISTRY.values() if d.builtin]
PLAIN = [s for d in BUILTIN if not reads_subtopics(d) for s in settings_of(d)]
SUBTOPICS = [s for d in BUILTIN if reads_subtopics(d) for s in settings_of(d)]


def kind(text: str) -> str:
    return method_kind(parse_measure(expected_name(text)))


def test_every_registered_measure_is_checked():
    assert {d.name for d in BUILTIN} == {parse_measure(t).name for t in PLAIN + SUBTOPICS}
    # every way of computing ties="expected" is exercised
    assert {kind(t) for t in PLAIN} == {"closed", "invariant", "groupwise", "joint"}


@pytest.mark.parametrize("seed", [0, 1])
def test_every_registered_measure_equals_the_mean_over_every_ordering(seed):
    run, qrels = small_tied_case(seed)
    assert run.groupby(["system", "query"])["score"].nunique().max() >= 2  # several groups
    assert_every_ordering(run, qrels, PLAIN, 1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_measures_reading_subtopics_equal_the_mean_over_every_ordering(seed):
    run, qrels = subtopic_case(seed)
    assert_every_ordering(run, qrels, SUBTOPICS, 1e-9)


def test_the_enumeration_without_designs_gives_the_same_values():
    run, qrels = small_tied_case(2)
    groupwise = [t for t in PLAIN if kind(t) == "groupwise"]
    assert groupwise
    assert_every_ordering(run, qrels, groupwise, 1e-9, designs=False)


#: every measure's defaults at every cut-off, for the cases that cost more per setting
DEFAULTS = [s for d in BUILTIN if not reads_subtopics(d) for s in settings_of(d, params=False)]
#: of those, the ones computed in closed form
CLOSED = [t for t in DEFAULTS if kind(t) == "closed"]


@pytest.mark.parametrize("seed, labels", [(2, (0, 1, 2)), (3, (0, 1)), (4, (0, 0, 1))])
def test_closed_forms_on_long_groups_with_binary_and_graded_qrels(seed, labels):
    # binary labels: one ideal gain value, read off one table shared by every query; the
    # mixed grades of the other cases in tests/measures/test_tie_closed_forms.py
    run, qrels = long_group_case(seed, labels, max_judged=8)
    assert run.groupby(["system", "query", "score"]).size().max() >= 4  # cut-offs fall inside
    assert_every_ordering(run, qrels, CLOSED, 1e-10)


def test_every_registered_measure_with_one_judged_document_per_tie_group():
    # sparse judgments (the MS MARCO shape): every tie group holds at most one judged document
    gen = np.random.default_rng(7)
    runs, qrels = [], []
    for q in ("1", "2", "3"):
        docs = [f"d{i}" for i in range(8)]
        scores = [3.0, 3.0, 3.0, 2.0, 2.0, 1.0, 1.0, 1.0]
        runs += [("s", q, d, sc) for d, sc in zip(docs, scores)]
        for group in (docs[:3], docs[3:5], docs[5:]):
            qrels.append((q, str(gen.choice(group)), float(gen.choice([0, 1, 2]))))
    run = pd.DataFrame(runs, columns=["system", "query", "doc", "score"])
    qrels = pd.DataFrame(qrels, columns=["query", "doc", "label"])
    units = tie_units(prepare(run, qrels=qrels).segments)
    assert (units.n_hits == 1).all() and len(units.n_hits) == 9
    assert_every_ordering(run, qrels, DEFAULTS, 1e-9)


def test_without_ties_every_registered_measure_equals_the_default():
    run, qrels = small_tied_case(4)
    run = run.assign(score=np.arange(len(run), 0, -1, dtype=float))
    default = pdireval.evaluate(run, PLAIN, qrels=qrels)
    tie_aware = pdireval.evaluate(run, [expected_name(n) for n in PLAIN], qrels=qrels)
    np.testing.assert_allclose(
        tie_aware["value"].to_numpy(), default["value"].to_numpy(), rtol=0, atol=1e-12
    )


def test_order_free_measures_equal_the_default_with_ties():
    run, qrels = small_tied_case(5)
    names = [t for t in PLAIN if kind(t) == "invariant"]
    assert {"SetP", "NumRet", "utility", "F"} <= {parse_measure(n).name for n in names}
    default = pdireval.evaluate(run, names, qrels=qrels)
    tie_aware = pdireval.evaluate(run, [expected_name(n) for n in names], qrels=qrels)
    np.testing.assert_array_equal(tie_aware["value"].to_numpy(), default["value"].to_numpy())
    # the proof that they are order-free: every ordering of every tie group gives the default
    every = evaluate_every_tie_ordering(run, qrels, names)
    spread = every.groupby(["system", "query", "measure"])["value"].agg(["min", "max"])
    assert (spread["min"] == spread["max"]).all()
    assert len(every) > 20 * len(default)  # many orderings were tried


def test_measures_reading_subtopics_declare_every_document_apart():
    # a diversity measure reads subtopics: every judged document is its own type
    diversity = [d for d in BUILTIN if d.kernel.__module__.startswith("pdireval.measures.div")]
    assert len(diversity) >= 9
    assert all(reads_subtopics(d) for d in diversity)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs())
def test_every_registered_measure_on_generated_lists(data):
    run, qrels = data
    assert_every_ordering(run, qrels, DEFAULTS, 1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10, 22))
def test_measures_reading_subtopics_on_more_collections(seed):
    run, qrels = subtopic_case(seed)
    assert_every_ordering(run, qrels, SUBTOPICS, 1e-9)
