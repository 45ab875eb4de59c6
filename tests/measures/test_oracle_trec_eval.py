"""Per-query equality with trec_eval (pytrec_eval-terrier) for every measure trec_eval has.

(a) hypothesis-generated collections (see tests/helpers.py: several systems, graded and
negative labels, unjudged retrieved documents, exact and float32 score ties, unanswered
queries, documents shared across queries); (b) the 17 Robust 2003 runs x 100 topics.

``missing="drop"`` is trec_eval's default (a query a system did not answer has no row);
``missing="zero"`` must add, for every unanswered judged query, the measure's empty value:
0, except NumRel which is R (what trec_eval -c prints). The expected rows for those are built
here from the qrels, independently of pdireval.
"""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdireval
from tests.helpers import assert_same_scores, collections, pytrec_scores, trec_measures

CUTOFFS = (1, 2, 3, 5, 10, 25, 1000)  # generated lists hold at most 10 documents
MEASURES = trec_measures(CUTOFFS)
NAMES = [ours for ours, _, _ in MEASURES]

# ~0.1 s per example (generation, both evaluations, comparison): these run a few seconds each
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def unanswered_rows(run: pd.DataFrame, qrels: pd.DataFrame, names, rel: float = 1) -> pd.DataFrame:
    """The rows missing="zero" adds: every (system, judged query) the system did not answer,
    with value 0 except NumRel = R = number of qrels rows with label >= rel."""
    R = qrels[qrels["label"] >= rel].groupby("query").size()
    rows = []
    for system in run["system"].unique():
        answered = set(run.loc[run["system"] == system, "query"])
        for query in qrels["query"].unique():
            if query in answered:
                continue
            for name in names:
                value = float(R.get(query, 0)) if name.startswith("NumRel") and name != "NumRelRet" else 0.0
                rows.append((system, query, name, value))
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])


@pytest.mark.slow
@SETTINGS
@given(collections(require_judged=True))
def test_matches_trec_eval_on_generated_collections(data):
    run, qrels = data
    expected = pytrec_scores(run, qrels, MEASURES)
    ours = pdireval.evaluate(run, NAMES, qrels=qrels, missing="drop")
    assert_same_scores(ours, expected)


@pytest.mark.slow
@SETTINGS
@given(collections(require_judged=True))
def test_missing_zero_adds_the_empty_value(data):
    run, qrels = data
    expected = pd.concat(
        [pytrec_scores(run, qrels, MEASURES), unanswered_rows(run, qrels, NAMES)], ignore_index=True
    )
    ours = pdireval.evaluate(run, NAMES, qrels=qrels)  # missing="zero" is the default
    assert_same_scores(ours, expected)


@pytest.mark.slow
@SETTINGS
@given(collections(require_judged=True), st.sampled_from([2, 3]))
def test_relevance_level_matches_trec_eval_l(data, level):
    """``rel=`` is trec_eval's -l (relevance_level) for every binary measure."""
    run, qrels = data
    binary = [m for m in MEASURES if not m[0].startswith("nDCG")]
    rename = {}
    for ours, _, _ in binary:
        name, _, cut = ours.partition("@")
        rename[ours] = f"{name}(rel={level})" + (f"@{cut}" if cut else "")
    if "NumRet" in rename:
        del rename["NumRet"]  # NumRet has no rel parameter: it counts every retrieved doc
    expected = pytrec_scores(run, qrels, binary, relevance_level=level, rename=rename)
    ours = pdireval.evaluate(run, [rename.get(m, m) for m, _, _ in binary], qrels=qrels, missing="drop")
    assert_same_scores(ours, expected)


@pytest.mark.slow
@SETTINGS
@given(collections(require_judged=True))
def test_judged_only_matches_trec_eval_J(data):
    """``judged_only=true`` (condensed list) is trec_eval's -J for the measures that take it."""
    run, qrels = data
    subset = [m for m in MEASURES if not m[0].startswith(("infAP", "NumRel", "NumRet"))]
    rename = {}
    for ours, _, _ in subset:
        name, _, cut = ours.partition("@")
        rename[ours] = f"{name}(judged_only=true)" + (f"@{cut}" if cut else "")
    expected = pytrec_scores(run, qrels, subset, judged_docs_only=True, rename=rename)
    ours = pdireval.evaluate(run, list(rename.values()), qrels=qrels, missing="drop")
    assert_same_scores(ours, expected)


# --------------------------------------------------------------------------- Robust 2003

ROBUST_CUTOFFS = (1, 5, 10, 20, 100, 1000, 2000)  # runs hold 1000 documents per topic
ROBUST_MEASURES = trec_measures(ROBUST_CUTOFFS)


@pytest.mark.slow
def test_matches_trec_eval_on_robust03(robust03):
    run, qrels = robust03
    assert run["system"].nunique() == 17 and run["query"].nunique() == 100
    names = [ours for ours, _, _ in ROBUST_MEASURES]
    expected = pytrec_scores(run, qrels, ROBUST_MEASURES)
    ours = pdireval.evaluate(run, names, qrels=qrels, missing="drop")
    assert len(ours) == 17 * 100 * len(names)
    assert_same_scores(ours, expected)
    # missing="zero": qrels topics a run did not answer get the empty value (NumRel = R)
    ours_zero = pdireval.evaluate(run, names, qrels=qrels)
    expected_zero = pd.concat([expected, unanswered_rows(run, qrels, names)], ignore_index=True)
    assert_same_scores(ours_zero, expected_zero)
