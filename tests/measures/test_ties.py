"""ties="expected" of EVERY registered measure equals the mean over every ordering of the tied
documents (brute force), driven by the registry: a measure registered later is checked with
nothing to add here.

For each measure: its default spelling (with a cut-off that falls inside tie groups when it
takes one, and without one when that is optional), and one setting per declared choice or
bool parameter (``judged_only=true``, ``negatives=keep``, ``variant=10r``, ...) plus a few
numeric settings of common parameters (:data:`SETTINGS`). Measures that read subtopics (their
tie method enumerates by document) are checked on qrels with subtopics as well. The family
test files keep the hand-computed examples and the fallback paths of the closed forms.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pdireval.measures.registry import REGISTRY, build_measure, parse_measure
from pdireval.measures.ties import ByCutoff, ClosedForm, Enumeration, method_kind
from tests.helpers import assert_every_ordering, expected_name

#: a cut-off per cut-off kind, inside the tie groups of the cases below
CUTOFFS = {"required": 3, "optional": 3, "real": 0.5, "none": None}
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


def settings_of(definition) -> list[str]:
    """The measure strings checked for one registered measure."""
    cut = CUTOFFS[definition.cutoff]
    cuts = [cut] + ([None] if definition.cutoff == "optional" else [])
    if definition.name == "Rprec_mult":
        cuts = [0.5, 2.0]
    out = [build_measure(definition.name, {}, c) for c in cuts]
    for p in definition.params:
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


def tied_case(seed: int):
    """Two systems, three queries, lists of 7 documents in 2-3 tie groups (with 2-4 judged
    documents of mixed grades each), negative labels, unjudged documents."""
    gen = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in ("1", "2", "3"):
        docs = [f"d{i}" for i in range(10)]
        labels = gen.choice([-1, 0, 0, 1, 2, 3], size=8)
        qrels += [(q, d, float(lab)) for d, lab in zip(docs[:8], labels)]
        for s in ("a", "b"):
            picked = gen.choice(docs, size=7, replace=False)
            scores = np.sort(gen.choice([1.0, 2.0, 3.0], size=7))[::-1]
            runs += [(s, q, d, sc) for d, sc in zip(picked, scores)]
    run = pd.DataFrame(runs, columns=["system", "query", "doc", "score"])
    return run, pd.DataFrame(qrels, columns=["query", "doc", "label"])


def subtopic_case(seed: int):
    gen = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in ("1", "2"):
        docs = [f"d{i}" for i in range(9)]
        for sub in ("1", "2", "3"):
            judged = gen.choice(docs[:7], size=4, replace=False)
            qrels += [(q, sub, d, float(gen.choice([0, 1, 1, 2]))) for d in judged]
        picked = gen.choice(docs, size=6, replace=False)
        scores = np.sort(gen.choice([1.0, 2.0], size=6))[::-1]
        runs += [("s", q, d, sc) for d, sc in zip(picked, scores)]
    run = pd.DataFrame(runs, columns=["system", "query", "doc", "score"])
    return run, pd.DataFrame(qrels, columns=["query", "subtopic", "doc", "label"])


def kind(text: str) -> str:
    return method_kind(parse_measure(expected_name(text)))


def test_every_registered_measure_is_checked():
    assert {d.name for d in BUILTIN} == {parse_measure(t).name for t in PLAIN + SUBTOPICS}
    # every way of computing ties="expected" is exercised
    assert {kind(t) for t in PLAIN} == {"closed", "invariant", "groupwise", "joint"}


@pytest.mark.parametrize("seed", [0, 1])
def test_every_registered_measure_equals_the_mean_over_every_ordering(seed):
    run, qrels = tied_case(seed)
    assert run.groupby(["system", "query"])["score"].nunique().max() >= 2  # several groups
    assert_every_ordering(run, qrels, PLAIN, 1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_measures_reading_subtopics_equal_the_mean_over_every_ordering(seed):
    run, qrels = subtopic_case(seed)
    assert_every_ordering(run, qrels, SUBTOPICS, 1e-9)


def test_the_enumeration_without_designs_gives_the_same_values():
    run, qrels = tied_case(2)
    groupwise = [t for t in PLAIN if kind(t) == "groupwise"]
    assert groupwise
    assert_every_ordering(run, qrels, groupwise, 1e-9, designs=False)
