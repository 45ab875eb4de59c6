"""Nugget and support scores are ordinary scores frames: the meta-evaluations accept them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval


@pytest.fixture(scope="module")
def judged():
    """5 systems x 12 queries x 6 nuggets, labelled by two judges (seeded)."""
    rng = np.random.default_rng(34)
    systems, queries, nuggets = 5, 12, 6
    s, q, n = np.meshgrid(np.arange(systems), np.arange(queries), np.arange(nuggets),
                          indexing="ij")
    skill = np.linspace(0.2, 0.8, systems)[s.ravel()]
    frames = []
    for judge, noise in (("human", 0.0), ("llm", 0.15)):
        p = np.clip(skill + rng.normal(0, noise, skill.size), 0, 1)
        label = np.where(rng.random(skill.size) < p, "support", "not_support")
        frames.append(pd.DataFrame({"judge": judge, "system": [f"s{i}" for i in s.ravel()],
                                    "query": q.ravel(), "nugget": n.ravel(), "label": label}))
    nug = pd.DataFrame({"query": np.repeat(np.arange(queries), nuggets),
                        "nugget": np.tile(np.arange(nuggets), queries),
                        "importance": np.tile(["vital", "vital", "okay", "okay", "okay",
                                               "vital"], queries)})
    return pd.concat(frames, ignore_index=True), nug


def test_compare_and_aggregate(judged):
    assignments, nuggets = judged
    human = assignments[assignments["judge"] == "human"].drop(columns="judge")
    scores = pdireval.evaluate_nuggets(human, ["V_strict", "A"], nuggets=nuggets)
    means = pdireval.aggregate(scores)
    assert set(means["measure"]) == {"V_strict", "A"} and len(means) == 10
    direct = scores.groupby(["measure", "system"])["value"].mean()
    got = means.set_index(["measure", "system"])["mean"]
    assert np.allclose(got.sort_index().to_numpy(), direct.sort_index().to_numpy())
    pairs = pdireval.compare(scores, method="t", correction="holm")
    assert len(pairs) == 2 * 10 and pairs["p_value"].between(0, 1).all()
    ranks = pdireval.rank_uncertainty(scores, n_resamples=50, rng=1)
    assert len(ranks) == 10


def test_reliability_with_a_judge_facet(judged):
    assignments, nuggets = judged
    scores = pdireval.evaluate_nuggets(assignments, "A", nuggets=nuggets)
    assert "judge" in scores.columns
    g = pdireval.reliability(scores, facets=("query", "judge"))
    assert len(g) == 1 and g["n_judges_observed"].iloc[0] == 2
    assert g["var_judge"].iloc[0] >= 0 and 0 < g["e_rho2"].iloc[0] <= 1


def test_leaderboard_agreement_between_judges(judged):
    assignments, nuggets = judged
    scores = pdireval.evaluate_nuggets(assignments, "V", nuggets=nuggets)
    human = scores[scores["judge"] == "human"].drop(columns="judge")
    llm = scores[scores["judge"] == "llm"].drop(columns="judge")
    table = pdireval.leaderboard_agreement(human, llm)
    assert len(table) >= 3 and table["n_systems"].eq(5).all()
    pairs = pdireval.leaderboard_agreement(scores)  # the judge column: judge pairs
    assert list(pairs[["judge_a", "judge_b"]].iloc[0]) == ["human", "llm"]
    tau = pairs.set_index("statistic")["value"]
    assert tau.index[0] in table["statistic"].tolist() and -1 <= tau.iloc[0] <= 1
    sizes = pdireval.query_set_size(human)
    assert (sizes["n_queries"] > 0).all()


def test_support_scores_are_a_scores_frame():
    rng = np.random.default_rng(7)
    rows = 4 * 10 * 3
    frame = pd.DataFrame({"system": np.repeat([f"s{i}" for i in range(4)], 30),
                          "query": np.tile(np.repeat(np.arange(10), 3), 4),
                          "sentence": np.tile([0, 1, 2], 40), "doc": "d",
                          "label": rng.choice([0, 0.5, 1], rows)})
    scores = pdireval.evaluate_support(frame)
    assert len(pdireval.aggregate(scores)) == 12
