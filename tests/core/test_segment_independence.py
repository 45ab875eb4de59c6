"""Every value depends on its own (system, query) segment only: bit for bit.

Evaluating systems together or apart, all queries or some, rows in any order, must give the
same float64 bits for each (system, query, measure): this is what makes a Dask partitioning
(or a chunked loop) give pandas' exact numbers.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdireval
from pdireval.errors import PdirevalWarning
from pdireval.measures.view import within_segment_cumsum


def _all_measures() -> list[str]:
    out = []
    for name, cutoff in pdireval.measures()[["measure", "cutoff"]].itertuples(index=False):
        if cutoff == "none":
            out.append(name)
        elif cutoff == "optional":
            out += [name, f"{name}@5"]
        elif cutoff == "required":
            out.append(f"{name}@5")
        else:  # a real-valued parameter (IPrec@0.5, Rprec_mult@0.5)
            out.append(f"{name}@0.5")
    # non-integer summands: exponential gains, bound normalisations, Monte-Carlo random bound
    out += ["DCG(gain=exp)@10", "nDCG(bounds=ul2)@5", "AP(bounds=ul1)", "nDCG(bounds=minmax)@5",
            "nDCG(bounds=ul1,lb=mc,mc_samples=30)@5"]
    return out


MEASURES = _all_measures()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n_systems=st.integers(2, 4),
    n_queries=st.integers(2, 5),
    depth=st.integers(1, 40),
    decimals=st.sampled_from([1, 3, 9]),
)
def test_values_do_not_depend_on_the_other_segments(seed, n_systems, n_queries, depth, decimals):
    run, qrels = pdireval.datasets.simulate(n_systems=n_systems, n_queries=n_queries, depth=depth, rng=seed)
    run["score"] = np.round(run["score"] * 3.7, decimals)  # ties at low precision
    rng = np.random.default_rng(seed)

    def evaluate(frame):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PdirevalWarning)
            return pdireval.evaluate(frame, MEASURES, qrels=qrels, missing="drop").set_index(["system", "query", "measure"])["value"]

    together = evaluate(run.iloc[rng.permutation(len(run))])
    systems = sorted(run["system"].unique())
    apart = pd.concat([evaluate(run[run["system"] == s]) for s in systems])
    assert together.index.equals(apart.index)
    np.testing.assert_array_equal(together.to_numpy(), apart.to_numpy())  # exact, NaN == NaN
    queries = run["query"].unique()
    some = queries[rng.random(len(queries)) < 0.5]
    if len(some):
        part = evaluate(run[run["query"].isin(some)])
        np.testing.assert_array_equal(part.to_numpy(), together.loc[part.index].to_numpy())


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 70), min_size=1, max_size=25),
    seed=st.integers(0, 2**32 - 1),
    scale=st.sampled_from([1e-300, 1e-8, 1.0, 1e8]),
)
def test_within_segment_cumsum_is_each_segment_summed_alone(lengths, seed, scale):
    rng = np.random.default_rng(seed)
    seg = np.repeat(np.sort(rng.choice(10**6, len(lengths), replace=False)), lengths)
    values = rng.standard_normal(len(seg)) * scale
    inclusive = within_segment_cumsum(seg, values)
    exclusive = within_segment_cumsum(seg, values, inclusive=False)
    start = np.r_[0, np.cumsum(lengths)]
    for a, b in zip(start[:-1], start[1:]):
        alone = np.cumsum(values[a:b])
        assert np.array_equal(inclusive[a:b], alone)
        assert np.array_equal(exclusive[a:b], np.r_[0.0, alone[:-1]])
    # a different prefix (other segments before) changes nothing
    shifted = within_segment_cumsum(np.r_[-1, -1, seg], np.r_[np.pi, 1e-7, values])
    assert np.array_equal(shifted[2:], inclusive)


def test_within_segment_cumsum_empty():
    assert within_segment_cumsum(np.zeros(0, dtype=np.int64), np.zeros(0)).shape == (0,)
