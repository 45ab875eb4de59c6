"""Properties of fuse() on generated runs (hypothesis): the fused run holds exactly the union
of the retrieved documents, ranked 1..|U| per query; it does not depend on row order or on
system names; weights scale linearly."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval

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
