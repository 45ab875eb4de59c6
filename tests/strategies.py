"""Hypothesis strategies and helpers shared by the measure tests.

``collections()`` draws small TREC-like test collections built to exercise what trec_eval is
picky about: several systems, graded labels including negative ones, unjudged retrieved
documents, exact score ties (also ties that only exist at float32 precision, as trec_eval
stores scores in a C float), queries some systems did not answer, and documents that appear
in several queries. Doc ids are chosen so that string order differs from numeric order
("d10" < "d9"), which matters for trec_eval's tie-breaking by doc id descending.
"""

from __future__ import annotations

import pandas as pd
from hypothesis import strategies as st

QUERY_POOL = ("1", "2", "10", "q3", "Q-4")
DOC_POOL = ("d1", "d2", "d3", "d9", "d10", "d11", "d20", "d100", "A", "b", "zz", "x-1", "x_2", "7")
SYSTEM_POOL = ("bm25", "BM25+rm3", "sys_2", "Z")
# few distinct values -> many exact ties; 1 + 1e-9 equals 1.0 at float32 precision
SCORE_POOL = (-1.5, 0.0, 0.25, 1.0, 1.0 + 1e-9, 2.0, 3.5, 1e6)


LABELS = st.integers(min_value=-2, max_value=3)


@st.composite
def collections(
    draw,
    *,
    labels=LABELS,
    max_systems: int = 3,
    max_queries: int = 4,
    max_depth: int = 10,
    with_rank: bool = False,
    require_judged: bool = False,
):
    """A (run, qrels) pair of small frames (see the module docstring).

    Every system answers at least one judged query; qrels labels are ints (pytrec_eval needs
    them). With ``with_rank`` the run also has a ``rank`` column (a permutation of 1..L per
    segment, independent of the score). With ``require_judged`` every query has at least one
    label >= 0: pytrec_eval-terrier 0.5.x crashes (segfault) on a query whose qrels labels are
    all negative, so the oracle tests need it (that case is tested by hand instead).
    """
    queries = draw(st.lists(st.sampled_from(QUERY_POOL), min_size=1, max_size=max_queries, unique=True))
    qrows = []
    for q in queries:
        docs = draw(st.lists(st.sampled_from(DOC_POOL), min_size=1, max_size=8, unique=True))
        drawn = [draw(labels) for _ in docs]
        if require_judged and all(lab < 0 for lab in drawn):
            drawn[0] = draw(st.integers(min_value=0, max_value=3))
        qrows.extend((q, d, lab) for d, lab in zip(docs, drawn))
    qrels = pd.DataFrame(qrows, columns=["query", "doc", "label"])

    systems = draw(st.lists(st.sampled_from(SYSTEM_POOL), min_size=1, max_size=max_systems, unique=True))
    rows = []
    for s in systems:
        answered = draw(st.lists(st.sampled_from(queries), min_size=1, max_size=len(queries), unique=True))
        for q in answered:
            docs = draw(st.lists(st.sampled_from(DOC_POOL), min_size=1, max_size=max_depth, unique=True))
            scores = draw(st.lists(st.sampled_from(SCORE_POOL), min_size=len(docs), max_size=len(docs)))
            ranks = draw(st.permutations(range(1, len(docs) + 1))) if with_rank else [None] * len(docs)
            for d, sc, r in zip(docs, scores, ranks):
                rows.append((s, q, d, sc, r))
    run = pd.DataFrame(rows, columns=["system", "query", "doc", "score", "rank"])
    if with_rank:
        run["rank"] = run["rank"].astype("int64")
    else:
        run = run.drop(columns="rank")
    return run, qrels
