"""Query informativeness sets and PAD (Karmaker & Feng 2022, Section 4.4 and eq. 8)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import OptionError, PdirevalWarning, SchemaError

METHODS = ["ARank", "LNet", "RBoost", "RF", "RNet", "CA", "L2LR", "LMART"]
KS = [5, 10, 15, 20, 30]
# Karmaker & Feng (2022), Table 12 (MAP@k, MSLR-WEB30K) and Table 14 (MSP^UL V1, V2), as printed
TABLE12 = [
    [0.5414, 0.4948, 0.4724, 0.4598, 0.4493], [0.3203, 0.2994, 0.293, 0.2911, 0.2943],
    [0.5449, 0.4967, 0.475, 0.4618, 0.452], [0.6216, 0.5717, 0.5433, 0.5244, 0.5053],
    [0.3212, 0.3008, 0.2939, 0.2919, 0.2956], [0.6235, 0.5631, 0.53, 0.5107, 0.4903],
    [0.356, 0.3353, 0.333, 0.3353, 0.3457], [0.6487, 0.5928, 0.5613, 0.5414, 0.5198],
]
TABLE14_V1 = [
    [0.3856, 0.3387, 0.3156, 0.3017, 0.2868], [0.1978, 0.1732, 0.1641, 0.1597, 0.1572],
    [0.3905, 0.3422, 0.3196, 0.305, 0.2905], [0.4579, 0.4079, 0.3791, 0.3591, 0.3363],
    [0.1988, 0.1745, 0.1651, 0.1606, 0.1585], [0.4594, 0.4001, 0.3673, 0.3471, 0.3231],
    [0.226, 0.2018, 0.1963, 0.1951, 0.1982], [0.482, 0.4265, 0.3948, 0.3741, 0.3488],
]
TABLE14_V2 = [
    [0.3472, 0.3055, 0.2799, 0.2617, 0.2373], [-0.0721, -0.0573, -0.0508, -0.0452, -0.0389],
    [0.3502, 0.3019, 0.2754, 0.2567, 0.2339], [0.4783, 0.427, 0.39, 0.3608, 0.322],
    [-0.0718, -0.0551, -0.0498, -0.0452, -0.038], [0.4836, 0.4127, 0.3676, 0.3385, 0.2977],
    [-0.0223, -0.004, 0.0149, 0.0312, 0.055], [0.5259, 0.4632, 0.4211, 0.3896, 0.3466],
]


def table_scores():
    """The printed means as a scores frame (one pseudo-query per cell: a mean of one value)."""
    rows = []
    for name, table in (("AP", TABLE12), ("SP(bounds=ul1)", TABLE14_V1), ("SP(bounds=ul2)", TABLE14_V2)):
        for method, row in zip(METHODS, table):
            for k, v in zip(KS, row):
                rows.append({"system": method, "query": "all", "measure": f"{name}@{k}", "value": v})
    return pd.DataFrame(rows)


def test_pad_reproduces_seed000_table19_from_tables_12_and_14():
    out = pdireval.percentage_absolute_difference(table_scores())
    assert list(out["measure"]) == ["AP", "SP(bounds=ul1)", "SP(bounds=ul2)"]
    assert list(out["cutoffs"]) == ["5,10,15,20,30"] * 3
    assert list(out["n_pairs"]) == [28, 28, 28]
    # exact values: 25.58 / 31.84 / 97.39 (printed: 25.57 / 31.84 / 97.63)
    np.testing.assert_allclose(out["pad"], [25.58, 31.84, 97.39], atol=0.006)
    absmax = pdireval.percentage_absolute_difference(table_scores(), denominator="absmax")
    assert absmax["pad"].iloc[2] == pytest.approx(74.5, abs=0.05)
    np.testing.assert_allclose(absmax["pad"].iloc[:2], out["pad"].iloc[:2], rtol=1e-12)


def test_pad_pairs_and_separate_cutoffs_by_hand():
    scores = pd.DataFrame(
        {
            "system": ["a", "a", "b", "b", "c", "c"],
            "query": ["1", "2"] * 3,
            "measure": "nDCG@10",
            "value": [0.2, 0.4, 0.6, 0.6, 0.0, 0.0],
        }
    )
    pairs = pdireval.percentage_absolute_difference(scores, pairs=True)
    assert list(zip(pairs["system_a"], pairs["system_b"])) == [("a", "b"), ("a", "c"), ("b", "c")]
    np.testing.assert_allclose(pairs["mean_a"], [0.3, 0.3, 0.6])
    np.testing.assert_allclose(pairs["pad"], [0.3 / 0.6 * 100, 100.0, 100.0])
    summary = pdireval.percentage_absolute_difference(scores, cutoffs="separate")
    assert summary["measure"].iloc[0] == "nDCG@10" and summary["cutoffs"].iloc[0] == "10"
    assert summary["pad"].iloc[0] == pytest.approx((50 + 100 + 100) / 3)


def test_pad_zero_denominator_pairs_are_dropped():
    scores = pd.DataFrame({"system": ["a", "b", "c"], "query": "1", "measure": "X", "value": [0.0, 0.0, -0.5]})
    out = pdireval.percentage_absolute_difference(scores)
    # (a, b): max 0 -> dropped; (a, c) and (b, c): max 0 -> dropped as well
    assert out["n_pairs"].iloc[0] == 0 and np.isnan(out["pad"].iloc[0])
    out = pdireval.percentage_absolute_difference(scores, denominator="absmax")
    assert out["n_pairs"].iloc[0] == 2 and out["pad"].iloc[0] == pytest.approx(100.0)


def test_pad_options_and_accessor():
    scores = table_scores()
    with pytest.raises(OptionError, match="denominator"):
        pdireval.percentage_absolute_difference(scores, denominator="abs")
    pd.testing.assert_frame_equal(scores.ireval.percentage_absolute_difference(), pdireval.percentage_absolute_difference(scores))


def _toy():
    scores = pd.DataFrame(
        {
            "system": np.repeat(["x", "y"], 4),
            "query": ["1", "2", "3", "10"] * 2,
            "measure": "nDCG@5",
            "value": [0.5, 0.9, 0.3, 0.6, 0.7, 0.9, 0.1, 0.6],
        }
    )
    expected = pd.DataFrame({"query": ["1", "2", "3", "10"], "value": [0.2, 0.9, 0.4, 0.2]})
    return scores, expected


def test_query_sets_by_hand():
    scores, expected = _toy()
    # real = [0.6, 0.9, 0.2, 0.6]; d = [0.4, 0.0, -0.2, 0.4]
    sets = pdireval.query_sets(scores, expected, n_queries=2)
    assert list(sets.columns) == ["set", "rank", "query", "real", "expected", "difference"]
    assert list(sets["set"]) == ["uninformative"] * 2 + ["ideal"] * 2
    assert list(sets["query"]) == ["3", "2", "1", "10"]  # the tie 1 / 10 broken by query id
    np.testing.assert_allclose(sets["difference"], [-0.2, 0.0, 0.4, 0.4], atol=1e-12)
    absolute = pdireval.query_sets(scores, expected, n_queries=2, absolute=True)
    assert list(absolute["query"][:2]) == ["2", "3"]
    pd.testing.assert_frame_equal(scores.ireval.query_sets(expected, n_queries=2), sets)


def test_query_sets_take_the_bounds_frame_and_filter_scores():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=12, depth=30, rng=5)
    ms = [f"nDCG(gain=exp)@{k}" for k in (5, 10)]
    scores = pdireval.evaluate(run, ms, qrels=qrels)
    expected = pdireval.bounds(run, ms, qrels=qrels)
    sets = pdireval.query_sets(scores, expected, n_queries=4)
    real = scores.groupby("query")["value"].mean()
    exp = expected.groupby("query")["random"].mean()
    d = (real - exp).sort_values(kind="stable")
    ideal = sets.loc[sets["set"] == "ideal", "query"].tolist()
    assert set(ideal) == set(d.index[-4:])
    assert (sets.loc[sets["set"] == "ideal", "difference"].min() >= sets.loc[sets["set"] == "uninformative", "difference"].max())
    subset = scores[scores["query"].isin(ideal)]
    assert subset["query"].nunique() == 4


def test_query_sets_errors_and_nan_warning():
    scores, expected = _toy()
    with pytest.raises(SchemaError, match="no expected value") as info:
        pdireval.query_sets(scores, expected.iloc[:3], n_queries=2)
    assert list(info.value.failure_cases["query"]) == ["10"]
    with pytest.raises(OptionError, match="n_queries="):
        pdireval.query_sets(scores, expected, n_queries=5)
    with pytest.raises(SchemaError, match="'random'"):
        pdireval.query_sets(scores, expected.rename(columns={"value": "e"}), n_queries=2)
    nan = expected.assign(value=[0.2, np.nan, 0.4, 0.2])
    with pytest.warns(PdirevalWarning, match="left out"):
        sets = pdireval.query_sets(scores, nan, n_queries=3)
    assert "2" not in set(sets["query"])


def test_expected_histogram_draws_one_series_per_measure(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pdireval.plot import expected_histogram

    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=10, depth=20, rng=1)
    frame = pdireval.bounds(run, ["nDCG(gain=exp)@5", "nDCG(gain=exp)@10"], qrels=qrels)
    fig = expected_histogram(frame)
    ax = fig.axes[0]
    counts = sum(p.get_height() for p in ax.patches)
    assert counts == 20  # 10 queries x 2 measures, each query once per measure
    plt.close(fig)
    with pytest.raises(SchemaError, match="random"):
        expected_histogram(frame.drop(columns="random"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plt.close("all")
