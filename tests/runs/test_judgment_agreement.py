"""pdireval.agreement / judgment_confusion: against scikit-learn and krippendorff, by hand, properties."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval.errors import OptionError, SchemaError
from pdireval.runs.judgment_agreement import AGREEMENT_STATISTICS


def _noisy(qrels, rng, flip=0.2, drop=0.1):
    """A second judge: relabels a share of pairs at random, skips some, judges a few new ones."""
    out = qrels.copy()
    flip_rows = rng.random(len(out)) < flip
    out.loc[flip_rows, "label"] = rng.integers(0, 3, int(flip_rows.sum())).astype(float)
    out = out[rng.random(len(out)) >= drop]
    extra = pd.DataFrame({"query": qrels["query"].iloc[:5].to_numpy(), "doc": [f"new{i}" for i in range(5)],
                          "label": [1.0, 0.0, 2.0, 0.0, 1.0]})
    return pd.concat([out, extra], ignore_index=True)


@pytest.fixture(scope="module")
def pair():
    _, qrels = pdireval.datasets.simulate(n_systems=6, n_queries=25, rng=3)
    rng = np.random.default_rng(4)
    return qrels, _noisy(qrels, rng)


def _merged(a, b):
    a = a[a["label"].notna()]
    b = b[b["label"].notna()]
    return a.merge(b, on=["query", "doc"], suffixes=("_a", "_b"))


def test_collection_values_match_scikit_learn_and_krippendorff(pair):
    from sklearn.metrics import cohen_kappa_score, f1_score, precision_score, recall_score

    krippendorff = pytest.importorskip("krippendorff")
    qrels, other = pair
    res = pdireval.agreement(qrels, other, n_resamples=0).set_index("statistic")
    assert list(res.index) == list(AGREEMENT_STATISTICS)
    m = _merged(qrels, other)
    la, lb = m["label_a"].to_numpy(), m["label_b"].to_numpy()
    levels = np.unique(np.concatenate([qrels["label"], other["label"]]))
    assert res.loc["cohen_kappa", "value"] == pytest.approx(cohen_kappa_score(la, lb, labels=levels))
    assert res.loc["cohen_kappa_linear", "value"] == pytest.approx(
        cohen_kappa_score(la, lb, labels=levels, weights="linear"))
    assert res.loc["cohen_kappa_quadratic", "value"] == pytest.approx(
        cohen_kappa_score(la, lb, labels=levels, weights="quadratic"))
    data = np.vstack([la, lb])
    for level in ("nominal", "ordinal", "interval"):
        assert res.loc[f"krippendorff_alpha_{level}", "value"] == pytest.approx(
            krippendorff.alpha(reliability_data=data, level_of_measurement=level), abs=1e-12)
    assert res.loc["agreement", "value"] == pytest.approx(np.mean(la == lb))
    ra, rb = la >= 1, lb >= 1  # the simulator's lowest positive label is 1
    assert res.loc["cohen_kappa_binary", "value"] == pytest.approx(cohen_kappa_score(ra, rb))
    assert res.loc["agreement_binary", "value"] == pytest.approx(np.mean(ra == rb))
    assert res.loc["precision", "value"] == pytest.approx(precision_score(ra, rb))
    assert res.loc["recall", "value"] == pytest.approx(recall_score(ra, rb))
    assert res.loc["f1", "value"] == pytest.approx(f1_score(ra, rb))
    assert (res["n_pairs"] == len(m)).all()
    assert (res["n_only_qrels"] == qrels["label"].notna().sum() - len(m)).all()
    assert (res["n_only_other"] == other["label"].notna().sum() - len(m)).all()


def test_per_query_values_match_scikit_learn(pair):
    from sklearn.metrics import cohen_kappa_score

    qrels, other = pair
    res = pdireval.agreement(qrels, other, per_query=True)
    assert res["ci_low"].isna().all() and res["ci_high"].isna().all()
    m = _merged(qrels, other)
    levels = np.unique(np.concatenate([qrels["label"], other["label"]]))
    kappa = res[res["statistic"] == "cohen_kappa_quadratic"].set_index("query")
    checked = 0
    for q, g in m.groupby("query"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = cohen_kappa_score(g["label_a"], g["label_b"], labels=levels, weights="quadratic")
        got = kappa.loc[q, "value"]
        assert (np.isnan(ref) and np.isnan(got)) or got == pytest.approx(ref)
        assert kappa.loc[q, "n_pairs"] == len(g)
        checked += 1
    assert checked == 25
    # queries in natural order
    queries = list(pd.unique(res["query"]))
    assert queries == sorted(queries, key=int)


def test_identical_judgments_agree_perfectly(pair):
    qrels, _ = pair
    res = pdireval.agreement(qrels, qrels, n_resamples=200, rng=1).set_index("statistic")
    np.testing.assert_allclose(res["value"], 1.0)
    np.testing.assert_allclose(res["ci_low"], 1.0)
    assert (res["n_only_qrels"] == 0).all() and (res["n_only_other"] == 0).all()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=2, max_size=40))
def test_property_kappa_one_for_identical_qrels(rows):
    labels = [lab for _, lab in rows]
    qrels = pd.DataFrame({"query": [str(q) for q, _ in rows], "doc": [f"d{i}" for i in range(len(rows))],
                          "label": np.array(labels, dtype=float)})
    res = pdireval.agreement(qrels, qrels.sample(frac=1.0, random_state=0), n_resamples=0).set_index("statistic")
    if len(set(labels)) > 1:
        assert res.loc["cohen_kappa", "value"] == pytest.approx(1.0)
        assert res.loc["krippendorff_alpha_interval", "value"] == pytest.approx(1.0)
    else:
        assert np.isnan(res.loc["cohen_kappa", "value"])
    assert res.loc["agreement", "value"] == 1.0


def test_bootstrap_is_seeded_and_brackets_the_estimate(pair):
    qrels, other = pair
    a = pdireval.agreement(qrels, other, n_resamples=300, rng=42)
    b = pdireval.agreement(qrels, other, n_resamples=300, rng=42)
    c = pdireval.agreement(qrels, other, n_resamples=300, rng=43)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["ci_low"], c["ci_low"])
    kappa = a.set_index("statistic").loc["cohen_kappa"]
    assert kappa["ci_low"] < kappa["value"] < kappa["ci_high"]


def test_bootstrap_replicate_is_pooled_tables_of_drawn_queries(pair):
    """One replicate by hand: draw queries, concatenate their pairs, κ by scikit-learn."""
    from sklearn.metrics import cohen_kappa_score

    from pdireval.core.schema import canonical_qrels
    from pdireval.errors import check_rng, group_generator
    from pdireval.runs import judgment_agreement as ja

    qrels, other = pair
    pairs = ja._Pairs(canonical_qrels(qrels), canonical_qrels(other))
    tables = pairs.tables()
    units = np.flatnonzero(tables.sum(axis=(1, 2)) > 0)
    gen = group_generator(check_rng(5))
    draws = gen.integers(0, len(units), size=(1, len(units)))[0]
    m = _merged(qrels, other)
    chosen = [pairs.queries[units[d]] for d in draws]
    rows = pd.concat([m[m["query"] == q] for q in chosen])
    ref = cohen_kappa_score(rows["label_a"], rows["label_b"], labels=pairs.levels)
    weights = np.bincount(draws, minlength=len(units)).astype(float)
    pooled = np.tensordot(weights, tables[units], axes=1)
    from pdireval.stats.interrater import cohen_kappa

    assert cohen_kappa(pooled) == pytest.approx(ref)


def test_grouping_columns_equal_separate_calls(pair):
    qrels, other = pair
    both_q = pd.concat([qrels.assign(collection="x"), qrels.assign(collection="y")], ignore_index=True)
    both_o = pd.concat([other.assign(collection="x"), qrels.assign(collection="y")], ignore_index=True)
    res = pdireval.agreement(both_q, both_o, n_resamples=0)
    assert list(res.columns[:2]) == ["collection", "statistic"]
    x = res[res["collection"] == "x"].drop(columns="collection").reset_index(drop=True)
    pd.testing.assert_frame_equal(x, pdireval.agreement(qrels, other, n_resamples=0))
    y = res[res["collection"] == "y"]
    np.testing.assert_allclose(y["value"], 1.0)


def test_rel_threshold_and_negative_labels():
    a = pd.DataFrame({"query": "1", "doc": list("abcdef"), "label": [-1.0, 0, 1, 2, 2, 0]})
    b = pd.DataFrame({"query": "1", "doc": list("abcdef"), "label": [0.0, 0, 2, 1, 0, 2]})
    res = pdireval.agreement(a, b, rel=2, n_resamples=0).set_index("statistic")["value"]
    # relevant at 2: a = {d, e}, b = {c, f}: no overlap
    assert res["precision"] == 0.0 and res["recall"] == 0.0
    res1 = pdireval.agreement(a, b, n_resamples=0).set_index("statistic")["value"]
    # default rel = 1: a = {c, d, e}, b = {c, d, f}: tp 2, fp 1, fn 1
    assert res1["precision"] == pytest.approx(2 / 3) and res1["recall"] == pytest.approx(2 / 3)
    assert res1["agreement"] == pytest.approx(1 / 6)  # only b agrees (0 = 0)


def test_confusion_table_matches_crosstab(pair):
    qrels, other = pair
    conf = pdireval.judgment_confusion(qrels, other)
    m = _merged(qrels, other)
    both = conf.dropna()
    tab = pd.crosstab(m["label_a"], m["label_b"])
    for row in both.itertuples():
        expected = tab.loc[row.label, row.other_label] if (row.label in tab.index and row.other_label in tab.columns) else 0
        assert row.count == expected
    only_q = conf[conf["other_label"].isna()]["count"].sum()
    only_o = conf[conf["label"].isna()]["count"].sum()
    res = pdireval.agreement(qrels, other, n_resamples=0)
    assert only_q == res["n_only_qrels"].iloc[0] and only_o == res["n_only_other"].iloc[0]
    per_q = pdireval.judgment_confusion(qrels, other, per_query=True)
    summed = per_q.groupby(["label", "other_label"], dropna=False, sort=False)["count"].sum().reset_index()
    merged = conf.merge(summed, on=["label", "other_label"], how="outer", suffixes=("", "_q"))
    assert (merged["count"] == merged["count_q"]).all()


def test_inputs_not_mutated_and_accessor(pair):
    qrels, other = pair
    before_q, before_o = qrels.copy(), other.copy()
    via_accessor = qrels.ireval.agreement(other, n_resamples=50, rng=0)
    pd.testing.assert_frame_equal(qrels, before_q)
    pd.testing.assert_frame_equal(other, before_o)
    pd.testing.assert_frame_equal(via_accessor, pdireval.agreement(qrels, other, n_resamples=50, rng=0))


def test_bad_input():
    a = pd.DataFrame({"query": "1", "doc": ["a", "b"], "label": [0.0, 1.0]})
    b = pd.DataFrame({"query": "2", "doc": ["a", "b"], "label": [0.0, 1.0]})
    with pytest.raises(SchemaError, match="no \\(query, doc\\) pair in common"):
        pdireval.agreement(a, b)
    with pytest.raises(OptionError, match="n_resamples"):
        pdireval.agreement(a, a, n_resamples=-1)
    with pytest.raises(OptionError, match="confidence_level"):
        pdireval.agreement(a, a, confidence_level=1.5)
    with pytest.raises(TypeError):
        pdireval.agreement(a, [1, 2])
    with pytest.raises(SchemaError):
        pdireval.agreement(a.drop(columns="label"), a)


def test_robust03_against_scikit_learn(robust03):
    from sklearn.metrics import cohen_kappa_score

    _, qrels = robust03
    rng = np.random.default_rng(0)
    other = _noisy(qrels, rng, flip=0.1, drop=0.0)
    res = pdireval.agreement(qrels, other, n_resamples=100, rng=0).set_index("statistic")
    m = _merged(qrels, other)
    levels = np.unique(np.concatenate([qrels["label"], other["label"]]))
    assert res.loc["cohen_kappa_linear", "value"] == pytest.approx(
        cohen_kappa_score(m["label_a"], m["label_b"], labels=levels, weights="linear"))
    assert res.loc["cohen_kappa", "n_pairs"] == len(m)
