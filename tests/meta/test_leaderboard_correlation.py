"""leaderboard_correlation against a transcription of autojudge-evaluate's LeaderboardEvaluator
(1.1.0: `_align_rankings`, the @k filter, pandas' DataFrame.corr) — the package downloads NLTK
data when imported, so it cannot run offline — plus hand values, policies and diagnostics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pdireval.errors import OptionError, PdirevalWarning, SchemaError
from pdireval.meta.leaderboard_correlation import leaderboard_correlation


def _autojudge(truth: dict, evaluated: dict, method: str, on_missing: str) -> float:
    """autojudge_evaluate.evaluation: kendall/pearson/spearman(@k) of two {run: mean} dicts, the
    evaluator run with this one method (with several, any @k method makes it filter every method
    to the common runs; pdireval computes each method alone)."""
    base, _, k = method.partition("@")
    if k:  # @k methods implicitly filter to the common runs, then the truth's top k
        common = set(truth) & set(evaluated)
        truth = {r: v for r, v in truth.items() if r in common}
        evaluated = {r: v for r, v in evaluated.items() if r in common}
        top = {r for r, _ in sorted(truth.items(), key=lambda x: x[1], reverse=True)[: int(k)]}
        truth = {r: v for r, v in truth.items() if r in top}
        evaluated = {r: v for r, v in evaluated.items() if r in top}
    a, b = [], []
    for system in sorted(truth):
        a.append(float(truth[system]))
        if system in evaluated:
            b.append(float(evaluated[system]))
        elif on_missing == "default":
            b.append(0.0)
        else:
            a.pop()
    return float(pd.DataFrame({"a": a, "b": b}).corr(base).iloc[0]["b"])


def _scores(means: dict, n_queries=6, seed=0, measure="AP"):
    rng = np.random.default_rng(seed)
    rows = []
    for system, mean in means.items():
        noise = rng.normal(0, 0.01, n_queries)
        values = mean + noise - noise.mean()  # the system's mean is exactly `mean` (to rounding)
        rows += [(system, f"q{q}", measure, v) for q, v in enumerate(values)]
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_equals_the_autojudge_evaluator(seed, missing):
    rng = np.random.default_rng(seed)
    systems = [f"run{i:02d}" for i in range(20)]
    human = dict(zip(systems, rng.random(20)))
    llm = {s: v + rng.normal(0, 0.15) for s, v in human.items()}
    for s in rng.choice(systems, 3, replace=False):  # three runs the judge never scored
        del llm[s]
    llm["extra"] = 0.5  # and one the truth lacks
    methods = ["kendall", "pearson", "spearman", "kendall@5", "kendall@10", "spearman@8"]
    truth_frame, llm_frame = _scores(human, seed=seed), _scores(llm, seed=seed + 10)
    got = leaderboard_correlation(truth_frame, llm_frame, methods=methods, missing=missing)
    policy = "default" if missing == "zero" else "skip"
    t_means = truth_frame.groupby("system")["value"].mean().to_dict()
    e_means = llm_frame.groupby("system")["value"].mean().to_dict()
    for _, row in got.iterrows():
        want = _autojudge(t_means, e_means, row["method"], policy)
        assert row["value"] == pytest.approx(want, abs=1e-12), row["method"]
    at5 = got.set_index("method").loc["kendall@5"]
    assert at5["n_systems"] == 5 and at5["issue"] is None


def test_hand_values_and_top_k():
    human = {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}
    llm = {"a": 0.7, "b": 0.8, "c": 0.6, "d": 0.5, "e": 0.9}
    got = leaderboard_correlation(_scores(human), _scores(llm), methods=["kendall", "kendall@3"])
    # all five: 10 pairs; discordant: (a,b), (a,e), (b,e), (c,e), (d,e) -> (5 - 5)/10 = 0
    assert got["value"].iloc[0] == pytest.approx(0.0, abs=1e-12)
    # top 3 of the truth (a, b, c): pairs (a,b) discordant, (a,c), (b,c) concordant -> 1/3
    assert got["value"].iloc[1] == pytest.approx(1 / 3)
    assert list(got["n_systems"]) == [5, 3] and (got["n_queries"] == 6).all()
    x, y = [0.9, 0.8, 0.7, 0.6, 0.5], [0.7, 0.8, 0.6, 0.5, 0.9]
    assert got["value"].iloc[0] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)


def test_shared_queries_recompute_the_means():
    truth = _scores({"a": 0.3, "b": 0.2, "c": 0.1}, n_queries=4)
    llm = _scores({"a": 0.3, "b": 0.2, "c": 0.1}, n_queries=4)
    # the LLM judged one more query, on which the order is reversed by a large margin
    more = pd.DataFrame({"system": ["a", "b", "c"], "query": "q9", "measure": "AP", "value": [0, 5, 9]})
    llm = pd.concat([llm, more])
    shared = leaderboard_correlation(truth, llm, methods="kendall")
    assert shared["value"].iloc[0] == pytest.approx(1.0) and shared["n_queries"].iloc[0] == 4
    every = leaderboard_correlation(truth, llm, methods="kendall", queries="all")
    assert every["value"].iloc[0] == pytest.approx(-1.0)


def test_policies_and_diagnostics():
    truth = _scores({"a": 0.9, "b": 0.5, "c": 0.1, "d": 0.3})
    llm = _scores({"a": 0.8, "b": 0.6, "c": 0.2})
    with pytest.raises(SchemaError, match="1 only in truth.*'d'.*missing='skip'"):
        leaderboard_correlation(truth, llm)
    zero = leaderboard_correlation(truth, llm, methods=["pearson"], missing="zero")
    assert zero["n_systems"].iloc[0] == 4
    with pytest.warns(PdirevalWarning, match="too_few"):
        few = leaderboard_correlation(truth, llm, methods=["kendall@2"], missing="skip")
    assert np.isnan(few["value"].iloc[0]) and few["issue"].iloc[0] == "too_few"
    flat = _scores(dict.fromkeys("abcd", 0.5))
    with pytest.warns(PdirevalWarning, match="all_tied"):
        tied = leaderboard_correlation(truth, flat, methods=["kendall"])
    assert tied["issue"].iloc[0] == "all_tied" and np.isnan(tied["value"].iloc[0])
    with pytest.raises(OptionError, match="kendal@3"):
        leaderboard_correlation(truth, llm, methods=["kendal@3"])
    with pytest.raises(SchemaError, match="same measures"):
        leaderboard_correlation(truth, llm.assign(measure="P@10"), missing="skip")
    with pytest.raises(SchemaError, match="share no query"):
        leaderboard_correlation(truth, llm.assign(query="x" + llm["query"]), missing="skip")
