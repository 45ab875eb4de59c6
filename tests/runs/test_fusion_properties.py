"""Properties of fuse() on generated runs (hypothesis): the fused run holds exactly the union
of the retrieved documents, ranked 1..|U| per query; it does not depend on row order or on
system names; weights scale linearly."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from tests.helpers import assert_exact_ties, exact_fused

METHODS = ["rrf", "isr", "log_isr", "borda", "rbc", "combsum", "combmnz", "combanz", "combmax", "combmin", "combmed"]
LINEAR = ["rrf", "rbc", "borda", "combsum", "combmnz"]


@st.composite
def runs(draw):
    n_sys = draw(st.integers(1, 4))
    n_q = draw(st.integers(1, 3))
    rows = []
    for s in range(n_sys):
        for q in range(n_q):
            docs = draw(st.lists(st.integers(0, 12), min_size=1, max_size=8, unique=True))
            scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 7.25]), min_size=len(docs), max_size=len(docs)))
            rows += [{"system": f"s{s}", "query": str(q), "doc": f"d{d}", "score": v} for d, v in zip(docs, scores)]
    return pd.DataFrame(rows)


@settings(max_examples=40, deadline=None)
@given(runs(), st.sampled_from(METHODS), st.sampled_from(["min-max", "zmuv", "sum", "max", "rank", "borda", None]))
def test_union_ranks_and_invariance(run, method, norm):
    fused = pdireval.fuse(run, method, norm=norm)
    got = set(zip(fused["query"], fused["doc"]))
    assert got == set(zip(run["query"], run["doc"])) and len(got) == len(fused)
    for _, part in fused.groupby("query", sort=False):
        assert part["rank"].tolist() == list(range(1, len(part) + 1))
        # ranks follow the scores at full precision; equal scores by doc id descending
        score, docs = part["score"].to_numpy(), part["doc"].to_numpy()
        assert (np.diff(score) <= 0).all()
        tied = score[1:] == score[:-1]
        assert (docs[1:][tied] < docs[:-1][tied]).all()
    assert np.isfinite(fused["score"]).all()
    # row order and system names do not matter (names in the same sorted order)
    other = run.sample(frac=1.0, random_state=0).assign(system=lambda f: "x" + f["system"])
    pd.testing.assert_frame_equal(fused, pdireval.fuse(other, method, norm=norm))


@settings(max_examples=30, deadline=None)
@given(runs(), st.sampled_from(LINEAR), st.floats(0.1, 10))
def test_weights_scale_linearly(run, method, c):
    n_sys = run["system"].nunique()
    ones = pdireval.fuse(run, method, weights=[1.0] * n_sys)
    scaled = pdireval.fuse(run, method, weights=[c] * n_sys)
    a = dict(zip(zip(ones["query"], ones["doc"]), ones["score"]))
    b = dict(zip(zip(scaled["query"], scaled["doc"]), scaled["score"]))
    for key, value in a.items():
        assert b[key] == np.float64(value) * c or abs(b[key] - value * c) <= 1e-9 * max(1.0, abs(value * c))
    # unit weights are the unweighted method
    plain = pdireval.fuse(run, method)
    np.testing.assert_allclose(plain["score"].to_numpy(), ones["score"].to_numpy(), rtol=1e-12)


@st.composite
def tied_lists(draw):
    """One query's lists with planted exact ties: another system's list reversed (every
    position sum equal), rotated, or with two documents swapped, next to random lists."""
    n_docs = draw(st.integers(2, 150))
    n_sys = draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pool = [f"d{i:03d}" for i in range(n_docs)]
    lists = {"s0": list(rng.permutation(pool)[: draw(st.integers(1, n_docs))])}
    for s in range(1, n_sys):
        base = lists[f"s{draw(st.integers(0, s - 1))}"]
        how = draw(st.sampled_from(["reverse", "rotate", "swap", "random"]))
        if how == "reverse":
            docs = base[::-1]
        elif how == "rotate":
            k = draw(st.integers(0, len(base)))
            docs = base[k:] + base[:k]
        elif how == "swap" and len(base) > 1:
            i, j = rng.choice(len(base), 2, replace=False)
            docs = list(base)
            docs[i], docs[j] = docs[j], docs[i]
        else:
            docs = list(rng.permutation(pool)[: draw(st.integers(1, n_docs))])
        lists[f"s{s}"] = docs
    return lists


@settings(max_examples=30, deadline=None)
@given(tied_lists(), st.sampled_from(["rank", "borda"]), st.sampled_from(["combsum", "combmnz", "combanz", "combmax",
                                                                          "combmed"]))
def test_exact_ties_of_rank_and_borda_norms_are_ties(lists, norm, method):
    run = pd.DataFrame([{"system": s, "query": "1", "doc": d, "rank": i + 1}
                        for s, docs in lists.items() for i, d in enumerate(docs)])
    assert_exact_ties(pdireval.fuse(run, method, norm=norm), exact_fused(lists, method, norm))
