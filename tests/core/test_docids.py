"""pdireval.core.docids: the doc-id mismatch rule, checked against a plain-Python statement
of it on random collections, and quiet on real collections (issue 13)."""

from __future__ import annotations

import unicodedata
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval import PdirevalWarning
from pdireval.core.docids import MIN_LIST_DOCS, MIN_UNMATCHED_DOCS, normalise


def _near_miss_lists(run: pd.DataFrame, qrels: pd.DataFrame) -> set[tuple[str, str]]:
    """The rule in plain Python: lists of >= MIN_LIST_DOCS docs, none judged for the query
    as an exact string, one equal to a judged doc after NFKC + lower case + strip."""
    judged = qrels.groupby("query")["doc"].apply(set).to_dict()
    out = set()
    for (system, query), docs in run.groupby(["system", "query"])["doc"]:
        docs = list(docs)
        if query not in judged or len(docs) < MIN_LIST_DOCS or any(d in judged[query] for d in docs):
            continue
        folded = {unicodedata.normalize("NFKC", d).lower().strip() for d in judged[query]}
        if any(unicodedata.normalize("NFKC", d).lower().strip() in folded for d in docs):
            out.add((system, query))
    return out


def _doc_warnings(call) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PdirevalWarning)
        call()
    return [str(w.message) for w in caught
            if "no judged document, although" in str(w.message)
            or str(w.message).startswith("none of the run's retrieved documents")]


@st.composite
def collections(draw):
    """2 systems x up to 5 queries, lists of 5-14 docs from a pool of 30 upper-case ids;
    some lists lower-cased or padded with a space; the qrels judge a few pool docs per query."""
    pool = [f"DOC-{i:02d}" for i in range(30)]
    rows, qrows = [], []
    for query in [str(q) for q in range(1, draw(st.integers(1, 5)) + 1)]:
        for doc in draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True)):
            qrows.append((query, doc, 1))
        for system in ("s1", "s2"):
            docs = draw(st.lists(st.sampled_from(pool), min_size=5, max_size=14, unique=True))
            spell = draw(st.sampled_from(["exact", "exact", "lower", "space", "other"]))
            docs = {"exact": docs, "lower": [d.lower() for d in docs], "space": [d + " " for d in docs],
                    "other": [d.replace("DOC", "X") for d in docs]}[spell]
            rows += [(system, query, d, float(len(docs) - i)) for i, d in enumerate(docs)]
    return (pd.DataFrame(rows, columns=["system", "query", "doc", "score"]),
            pd.DataFrame(qrows, columns=["query", "doc", "label"]))


@settings(max_examples=40, deadline=None)
@given(collection=collections())
def test_the_warning_counts_exactly_the_lists_the_rule_names(collection):
    run, qrels = collection
    expected = _near_miss_lists(run, qrels)
    got = _doc_warnings(lambda: pdireval.evaluate(run, "AP", qrels=qrels, missing="drop"))
    whole = run["doc"].nunique() >= MIN_UNMATCHED_DOCS and not run["doc"].isin(qrels["doc"]).any()
    if whole:
        assert len(got) == 1 and got[0].startswith("none of the run's retrieved documents")
    elif expected:
        assert len(got) == 1, got
        n = len(expected)
        assert got[0].startswith(f"{n} ranked list{'s' if n != 1 else ''} of at least {MIN_LIST_DOCS} documents")
        first = sorted(expected, key=lambda sq: (sq[0], int(sq[1])))[0]
        assert f"system {first[0]!r}, query {first[1]!r}:" in got[0]
    else:
        assert got == []


def test_normalise_folds_case_width_and_surrounding_space():
    assert normalise(["FBIS3-1", " fbis3-1\t", "\uff26BIS3-1", "fbis3-1"]).tolist() == ["fbis3-1"] * 4
    assert normalise(["a b"]).tolist() == ["a b"]  # inner whitespace is kept


def test_no_work_beyond_a_bincount_when_every_list_has_a_judged_document(monkeypatch):
    import pdireval.core.docids as docids

    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=5, depth=20, rng=0)
    monkeypatch.setattr(docids, "_normalised", lambda array: pytest.fail("normalised without a suspect list"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdireval.evaluate(run, "AP", qrels=qrels)
    assert np.isfinite(pdireval.evaluate(run, "AP", qrels=qrels)["value"]).all()


# --------------------------------------------------------------------------- real data: quiet


def test_quiet_on_cranfield_lists_without_a_judged_document():
    """Cranfield judges relevant documents only, so many top-10 lists of BM25 / LM hold no
    judged document: a naive per-list rule would fire; the near-miss rule stays quiet."""
    from examples.cranfield_grid import TermIndex, grid_run
    from pdireval.datasets import read_cranfield
    from pdireval.evaluation import prepare
    from tests.helpers import shared_path

    docs, queries, qrels = read_cranfield(shared_path("cranfield"))
    index = TermIndex(docs)
    run = pd.concat([grid_run(index, queries, model="bm25", params={"k1": [0.9, 1.2], "b": [0.4, 0.75]}, depth=10),
                     grid_run(index, queries, model="lm", params={"mu": [100.0, 2000.0]}, depth=10)], ignore_index=True)
    run = run[["system", "query", "doc", "score"]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        segments = prepare(run, qrels=qrels).segments
    no_judged = (np.bincount(segments.hit_seg, minlength=segments.n_segments) == 0) & (segments.seg_len >= MIN_LIST_DOCS)
    assert no_judged.sum() >= 50  # the situation the rule must not report (102 of 1,350 lists)


def test_quiet_on_the_robust_2003_runs_at_shallow_depths(robust03):
    run, qrels = robust03
    for depth in (10, 100):
        top = run[run["rank"] <= depth]
        assert _doc_warnings(lambda top=top: pdireval.evaluate(top, "P@10", qrels=qrels)) == []
    # the same runs with doc ids lower-cased for one query of one system: reported
    first = run["system"].iloc[0]
    odd = run[run["rank"] <= 100]
    odd = odd.assign(doc=odd["doc"].where(~((odd["system"] == first) & (odd["query"] == "303")), odd["doc"].str.lower()))
    got = _doc_warnings(lambda: pdireval.evaluate(odd, "P@10", qrels=qrels))
    assert len(got) == 1 and got[0].startswith("1 ranked list of at least 10 documents") and f"system {first!r}, query '303'" in got[0]
