"""self_preference: the contrast and its interval against a plain computation, the permutation
p-value against a loop over every relabelling, seeded draws, and the bad inputs."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pdireval.errors import SchemaError
from pdireval.meta.self_preference import self_preference

S, Q = 8, 30
FAMILIES = {f"s{i}": ("gpt" if i < 3 else "llama" if i < 6 else "other") for i in range(S)}


def _frame(matrix, measure="AP"):
    q, s = np.meshgrid(np.arange(matrix.shape[0]), np.arange(matrix.shape[1]), indexing="ij")
    return pd.DataFrame(
        {
            "system": [f"s{i}" for i in s.ravel()],
            "query": [f"q{i:02d}" for i in q.ravel()],
            "measure": measure,
            "value": matrix.ravel(),
        }
    )


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    human = rng.beta(2, 3, size=(Q, S))
    favour = np.array([0.08 if FAMILIES[f"s{i}"] == "gpt" else 0.0 for i in range(S)])
    llm = np.clip(human + 0.05 + favour + rng.normal(0, 0.05, size=human.shape), 0, 1)
    return llm, human


def test_contrast_interval_and_exact_permutation_p(data):
    llm, human = data
    out = self_preference(_frame(llm), _frame(human), FAMILIES, "gpt", confidence_level=0.9)
    d = llm - human
    own = np.array([FAMILIES[f"s{i}"] == "gpt" for i in range(S)])
    delta = d[:, own].mean(axis=1) - d[:, ~own].mean(axis=1)
    row = out.iloc[0]
    assert row["estimate"] == pytest.approx(delta.mean(), abs=1e-15)
    low, high = stats.t.interval(0.9, Q - 1, loc=delta.mean(), scale=stats.sem(delta))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-12)
    assert row["bias_family"] == pytest.approx(d[:, own].mean())
    assert row["bias_other"] == pytest.approx(d[:, ~own].mean())
    assert (row["n_family"], row["n_other"], row["n_queries"]) == (3, 5, Q)
    # every relabelling of 3 of the 8 systems, by a plain loop: C(8, 3) = 56 <= 10,000: exact
    bias = d.mean(axis=0)
    observed = bias[own].mean() - bias[~own].mean()
    null = [bias[list(c)].mean() - np.delete(bias, c).mean() for c in combinations(range(S), 3)]
    want = np.mean(np.abs(null) >= abs(observed) - 1e-12)
    assert row["exact"] and row["n_permutations"] == 56
    assert row["p_value"] == pytest.approx(want, abs=1e-15)
    assert row["p_value"] == pytest.approx(1 / 56)  # the favoured family is the most extreme
    greater = self_preference(_frame(llm), _frame(human), FAMILIES, "gpt", alternative="greater")
    assert greater["p_value"].iloc[0] == pytest.approx(np.mean(np.array(null) >= observed - 1e-12))


def test_random_relabellings_are_seeded_and_agree_with_exact(data):
    llm, human = data
    kw = dict(n_resamples=20, rng=5)  # 20 < 56: random relabellings
    one = self_preference(_frame(llm), _frame(human), FAMILIES, "llama", **kw)
    two = self_preference(_frame(llm), _frame(human), FAMILIES, "llama", **kw)
    pd.testing.assert_frame_equal(one, two)
    assert not one["exact"].iloc[0] and one["n_permutations"].iloc[0] == 20
    big = self_preference(_frame(llm), _frame(human), FAMILIES, "llama", n_resamples=40, rng=1)
    assert not big["exact"].iloc[0] and big["n_permutations"].iloc[0] == 40
    many = self_preference(
        _frame(llm), _frame(human), {**FAMILIES, "s7": "llama"}, "llama", n_resamples=20_000, rng=2
    )  # C(8, 4) = 70 relabellings, so exact again
    assert many["exact"].iloc[0]


def test_a_fair_judge_is_not_flagged():
    rng = np.random.default_rng(4)
    human = rng.beta(2, 3, size=(Q, S))
    llm = np.clip(human + 0.05 + rng.normal(0, 0.05, size=human.shape), 0, 1)
    out = self_preference(_frame(llm), _frame(human), FAMILIES, "gpt")
    assert out["ci_low"].iloc[0] < 0 < out["ci_high"].iloc[0]
    assert out["p_value"].iloc[0] > 0.05


def test_bad_inputs(data):
    llm, human = data
    a, b = _frame(llm), _frame(human)
    with pytest.raises(SchemaError, match="family of no system.*'gpt', 'llama', 'other'"):
        self_preference(a, b, FAMILIES, "claude")
    with pytest.raises(SchemaError, match="family of every system"):
        self_preference(a, b, dict.fromkeys(FAMILIES, "gpt"), "gpt")
    with pytest.raises(SchemaError, match="no family"):
        self_preference(a, b, {"s0": "gpt", "s1": "llama"}, "gpt")
    with pytest.raises(SchemaError, match="share no query"):
        self_preference(a, b.assign(query="x" + b["query"]), FAMILIES, "gpt")
    with pytest.raises(SchemaError, match="same measures"):
        self_preference(a, b.assign(measure="P@10"), FAMILIES, "gpt")
    frame = pd.DataFrame({"system": list(FAMILIES), "family": list(FAMILIES.values())})
    pd.testing.assert_frame_equal(
        self_preference(a, b, frame, "gpt"), self_preference(a, b, FAMILIES, "gpt")
    )
    with pytest.raises(TypeError, match="families="):
        self_preference(a, b, ["gpt"], "gpt")
