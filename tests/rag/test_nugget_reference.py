"""evaluate_nuggets against a plain-Python transcription of the definitions, on generated
collections with AND / OR groups, weights, judges, unanswered queries and both empty= rules."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import pdireval

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

VALUE = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
NAMES = ["A", "A_strict", "V", "V_strict", "W", "W_strict"]


@st.composite
def collections(draw):
    nuggets = []
    for q in range(draw(st.integers(1, 3))):
        rules = {g: draw(st.sampled_from(("and", "or"))) for g in ("g0", "g1")}
        levels = {g: draw(st.sampled_from(("vital", "okay"))) for g in ("g0", "g1")}
        for n in range(draw(st.integers(1, 5))):
            group = draw(st.sampled_from((None, None, "g0", "g1")))
            importance = levels[group] if group else draw(st.sampled_from(("vital", "okay")))
            nuggets.append((f"q{q}", f"n{n}", importance, group, rules.get(group)))
    judges = draw(st.sampled_from((["j"], ["h", "l"])))
    rows = []
    for judge in judges:
        for s in range(draw(st.integers(1, 3))):
            for query in sorted({n[0] for n in nuggets}):
                if not draw(st.booleans()) and (s, judge) != (0, judges[0]):
                    continue  # this judge did not assess this answer
                for q, n, *_ in nuggets:
                    if q == query:
                        rows.append((judge, f"s{s}", q, n, draw(st.sampled_from(list(VALUE)))))
    weights = draw(st.sampled_from(({"vital": 1.0, "okay": 0.5}, {"vital": 2.0, "okay": 0.0})))
    return nuggets, rows, weights


def reference(nuggets, rows, weights, empty, missing):
    """The definitions, one answer at a time."""
    label = {(j, s, q, n): VALUE[v] for j, s, q, n, v in rows}
    judges = sorted({r[0] for r in rows})
    systems = sorted({r[1] for r in rows})
    queries = sorted({r[2] for r in rows})
    answered = {(r[1], r[2]) for r in rows}
    nothing = 0.0 if empty == "zero" else math.nan
    out = {}
    for j in judges:
        for s in systems:
            for q in queries:
                judged = any((j, s, q, n[1]) in label for n in nuggets if n[0] == q)
                if not judged and ((s, q) in answered or missing == "drop"):
                    continue
                units = {}
                for qq, n, imp, group, rule in nuggets:
                    if qq != q:
                        continue
                    key = group or ("solo", n)
                    units.setdefault(key, (imp, rule, []))[2].append(label.get((j, s, q, n), 0.0))
                scored = []
                for imp, rule, values in units.values():
                    v = min(values) if rule == "and" else max(values)
                    scored.append((imp, v))

                def score(strict, pick, weight, scored=scored):
                    chosen = [(imp, v) for imp, v in scored if pick(imp)]
                    top = sum(weight(imp) * (v if not strict else float(v == 1.0))
                              for imp, v in chosen)
                    bottom = sum(weight(imp) for imp, _ in chosen)
                    return top / bottom if bottom > 0 else nothing

                every = lambda imp: True  # noqa: E731
                vital = lambda imp: imp == "vital"  # noqa: E731
                one = lambda imp: 1.0  # noqa: E731
                w = lambda imp: weights[imp]  # noqa: E731
                values = [score(False, every, one), score(True, every, one),
                          score(False, vital, one), score(True, vital, one),
                          score(False, every, w), score(True, every, w)]
                for name, value in zip(NAMES, values):
                    out[(j, s, q, name)] = value
    return out


@settings(max_examples=30, deadline=None)
@given(collections(), st.sampled_from(("zero", "nan")), st.sampled_from(("zero", "drop")))
def test_equals_the_definitions(collection, empty, missing):
    nuggets, rows, weights = collection
    nug = pd.DataFrame(nuggets, columns=["query", "nugget", "importance", "group", "rule"])
    assignments = pd.DataFrame(rows, columns=["judge", "system", "query", "nugget", "label"])
    scores = pdireval.evaluate_nuggets(assignments, nuggets=nug, weights=weights, empty=empty,
                                       missing=missing)
    got = {
        (j, s, q, m): v
        for j, s, q, m, v in scores[["judge", "system", "query", "measure", "value"]].itertuples(
            index=False)
    }
    expected = reference(nuggets, rows, weights, empty, missing)
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-12, nan_ok=True), key
