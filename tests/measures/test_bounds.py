"""Bounds (IUB / RLB / WLB) and bound-normalised measures: Karmaker & Feng (2022) and Gienapp et al. (2020)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval.errors import MeasureError
from pdireval.measures.bounds import (
    expected_ap,
    expected_sp,
    expected_sp_paper,
    normalise,
    worst_sp,
)

# --------------------------------------------------------------------------- helpers


def one_query(labels, ranking, docs=None):
    """qrels of one query with the given labels (docs a, b, c, ...) and a run ranking ``ranking``."""
    docs = docs or [chr(ord("a") + i) for i in range(len(labels))]
    qrels = pd.DataFrame({"query": "q", "doc": docs, "label": labels})
    run = pd.DataFrame({"system": "s", "query": "q", "doc": list(ranking), "score": np.arange(len(ranking), 0, -1, dtype=float)})
    return run, qrels


def frame_for(run, qrels, measures, **kw):
    """bounds() indexed by the canonical spelling of each measure (the frame keeps the names
    as given)."""
    frame = pdireval.bounds(run, measures, qrels=qrels, **kw)
    return frame.assign(measure=[str(pdireval.parse_measure(m)) for m in frame["measure"]]).set_index("measure")


def log2w(n):
    return 1.0 / np.log2(np.arange(2, n + 2))


def direct_mc_dcg(gains, k, n_perm, rng):
    """Independent Monte-Carlo DCG@k of random permutations: plain numpy on a gain vector."""
    n = len(gains)
    perms = np.argsort(rng.random((n_perm, n)), axis=1)[:, : min(k, n)]
    values = (gains[perms] * log2w(min(k, n))).sum(axis=1)
    return values.mean(), values.std(ddof=1) / np.sqrt(n_perm)


def direct_mc_sp(rel, k, n_perm, rng):
    n = len(rel)
    m = min(k, n)
    perms = np.argsort(rng.random((n_perm, n)), axis=1)[:, :m]
    r = rel[perms].astype(float)
    prec = np.cumsum(r, axis=1) / np.arange(1, m + 1)
    values = (prec * r).sum(axis=1)
    return values.mean(), values.std(ddof=1) / np.sqrt(n_perm)


# --------------------------------------------------------------------------- worked examples


def test_worked_example_expected_sp():
    assert expected_sp(10, 3, 5) == pytest.approx(0.8661111111, abs=1e-10)
    assert expected_sp_paper(10, 3, 5) == pytest.approx(0.45, abs=1e-12)
    assert expected_sp(10, 3, 20) == pytest.approx(1.3500925926, abs=1e-10)
    assert expected_sp_paper(10, 3, 20) == pytest.approx(1.8, abs=1e-12)
    assert expected_sp(100, 20, 10) == pytest.approx(0.8572069905, abs=1e-10)
    assert expected_sp_paper(100, 20, 10) == pytest.approx(0.4, abs=1e-12)


def test_worked_example_bestgen_expected_ap():
    assert expected_ap(10, 3) == pytest.approx(0.4500308642, abs=1e-10)
    assert np.isnan(expected_ap(10, 0))


def test_worked_example_expected_dcg_stops_at_pool_size():
    labels = [3, 2, 0, 0, 1]
    run, qrels = one_query(labels, "abcde")
    f = frame_for(run, qrels, ["DCG(gain=exp)@3", "DCG(gain=exp)@8", "DCG(gain=exp,lb=paper)@8"])
    assert f.loc["DCG(gain=exp)@3", "random"] == pytest.approx(4.6880454579, abs=1e-9)
    assert f.loc["DCG(gain=exp)@8", "random"] == pytest.approx(6.4866100615, abs=1e-9)
    assert f.loc["DCG(gain=exp,lb=paper)@8", "random"] == pytest.approx(8.6976219354, abs=1e-9)


def test_worked_example_negative_labels_seed002():
    run, qrels = one_query([2, 0, 1, -1, 0], "cdab")
    f = frame_for(
        run,
        qrels,
        ["DCG(negatives=keep)@3", "nDCG(negatives=keep)@3", "nDCG(negatives=nonrel)@3", "nDCG(bounds=minmax,negatives=keep)@3",
         "DCG(negatives=keep)@5", "nDCG(negatives=keep)@5", "nDCG(bounds=minmax,negatives=keep)@5"],
    )
    assert f.loc["DCG(negatives=keep)@3", "value"] == pytest.approx(1.3690702464, abs=1e-9)
    assert f.loc["DCG(negatives=keep)@3", "ideal"] == pytest.approx(2.6309297536, abs=1e-9)
    assert f.loc["DCG(negatives=keep)@3", "worst"] == pytest.approx(-1.0, abs=1e-12)
    assert f.loc["nDCG(negatives=keep)@3", "value"] == pytest.approx(0.5203750669, abs=1e-9)
    assert f.loc["nDCG(negatives=nonrel)@3", "value"] == pytest.approx(0.7601875334, abs=1e-9)
    assert f.loc["nDCG(bounds=minmax,negatives=keep)@3", "value"] == pytest.approx(0.6524693143, abs=1e-9)
    assert f.loc["DCG(negatives=keep)@5", "ideal"] == pytest.approx(2.2440769463, abs=1e-9)
    assert f.loc["DCG(negatives=keep)@5", "worst"] == pytest.approx(0.2043821725, abs=1e-9)
    assert f.loc["nDCG(negatives=keep)@5", "value"] == pytest.approx(0.6100816858, abs=1e-9)
    assert f.loc["nDCG(bounds=minmax,negatives=keep)@5", "value"] == pytest.approx(0.5710109615, abs=1e-9)


def test_public_seed002_spellings_match_the_variants():
    run, qrels = one_query([2, 0, 1, -1, 0], "cdab")
    scores = pdireval.evaluate(
        run, ["nDCG(negatives=keep,bounds=minmax)@10", "nDCG(negatives=keep)@10", "nDCG(negatives=nonrel)@10"], qrels=qrels
    )
    # names come back as given; parse_measure gives the canonical spelling
    assert list(scores["measure"]) == [
        "nDCG(negatives=keep,bounds=minmax)@10", "nDCG(negatives=keep)@10", "nDCG(negatives=nonrel)@10"
    ]
    assert str(pdireval.parse_measure(scores["measure"].iloc[0])) == "nDCG(bounds=minmax,negatives=keep)@10"
    # NDCG_0: negative labels replaced by 0 before the gain
    run0, qrels0 = one_query([2, 0, 1, 0, 0], "cdab")
    ndcg0 = pdireval.evaluate(run0, "nDCG@10", qrels=qrels0)["value"].iloc[0]
    assert scores["value"].iloc[2] == pytest.approx(ndcg0, abs=1e-12)


def test_worked_example_ul_normalisation():
    run, qrels = one_query([2, 0, 1, 0, 0], "cbade")
    f = frame_for(
        run,
        qrels,
        ["DCG(gain=exp)@3", "nDCG(gain=exp,bounds=ul1)@3", "nDCG(gain=exp,bounds=ul2)@3", "SP@3",
         "SP(bounds=ul1)@3", "SP(bounds=ul2)@3", "SP(bounds=ul2,lb=paper)@3"],
    )
    assert f.loc["DCG(gain=exp)@3", "value"] == pytest.approx(2.5, abs=1e-12)
    assert f.loc["DCG(gain=exp)@3", "ideal"] == pytest.approx(3.6309297536, abs=1e-9)
    assert f.loc["DCG(gain=exp)@3", "random"] == pytest.approx(1.7047438029, abs=1e-9)
    assert f.loc["nDCG(bounds=ul1,gain=exp)@3", "value"] == pytest.approx(0.4093762386, abs=1e-9)
    assert f.loc["nDCG(bounds=ul2,gain=exp)@3", "value"] == pytest.approx(0.4128657448, abs=1e-9)
    assert f.loc["SP@3", "value"] == pytest.approx(1.6666666667, abs=1e-9)
    assert f.loc["SP@3", "ideal"] == pytest.approx(2.0, abs=1e-12)
    assert f.loc["SP@3", "random"] == pytest.approx(0.85, abs=1e-12)
    assert f.loc["SP(bounds=ul1)@3", "value"] == pytest.approx(0.5518763797, abs=1e-9)
    assert f.loc["SP(bounds=ul2)@3", "value"] == pytest.approx(0.7101449275, abs=1e-9)
    assert f.loc["SP(bounds=ul2,lb=paper)@3", "value"] == pytest.approx(0.7807017544, abs=1e-9)
    # the V2 kernel skips the WLB; the bound frame still reports it (SP: no relevant document
    # in the top 3 of the worst ranking -> WLB 0 -> V2 = -1)
    assert f.loc["SP(bounds=ul2)@3", "worst"] == pytest.approx(-1.0, abs=1e-12)
    assert f.loc["DCG(gain=exp)@3", "worst"] == 0.0


def test_dcg_and_ndcg_share_the_normalisation():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=6, depth=30, rng=4)
    for kind in ("ul1", "ul2", "minmax"):
        a = pdireval.evaluate(run, f"nDCG(gain=exp,bounds={kind})@10", qrels=qrels)["value"].to_numpy()
        b = pdireval.evaluate(run, f"DCG(gain=exp,bounds={kind})@10", qrels=qrels)["value"].to_numpy()
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=1e-12)


# --------------------------------------------------------------------------- closed forms vs Monte-Carlo

POOLS = {
    "graded": np.array([3, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0]),
    "binary": np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0]),
    "negative": np.array([2, 1, 0, 0, -1, -2, 1, 0, -1]),
}


@pytest.mark.parametrize("pool", sorted(POOLS))
@pytest.mark.parametrize("k", [3, 5, 20])
@pytest.mark.parametrize("gain", ["exp", "linear"])
def test_expected_dcg_matches_200k_permutations(pool, k, gain):
    labels = POOLS[pool]
    run, qrels = one_query(labels.tolist(), [chr(ord("a") + i) for i in range(len(labels))])
    m = f"DCG(gain={gain},negatives=keep)@{k}"
    exact = frame_for(run, qrels, m).loc[str(pdireval.parse_measure(m)), "random"]
    gains = np.exp2(labels) - 1.0 if gain == "exp" else labels.astype(float)
    mean, se = direct_mc_dcg(gains, k, 200_000, np.random.default_rng(7))
    assert abs(exact - mean) < 4 * se


@pytest.mark.parametrize("k", [2, 5, 9, 25])
@pytest.mark.parametrize("n,n_rel", [(10, 3), (12, 1), (9, 8)])
def test_expected_sp_matches_200k_permutations(n, n_rel, k):
    rel = np.zeros(n, dtype=bool)
    rel[:n_rel] = True
    mean, se = direct_mc_sp(rel, k, 200_000, np.random.default_rng(11))
    assert abs(expected_sp(n, n_rel, k) - mean) < 4 * se


def test_paper_expected_sp_is_rejected_and_the_gap_is_the_identity():
    n, n_rel, k = 10, 3, 5
    rel = np.zeros(n, dtype=bool)
    rel[:n_rel] = True
    mean, se = direct_mc_sp(rel, k, 200_000, np.random.default_rng(3))
    paper = expected_sp_paper(n, n_rel, k)
    assert abs(paper - mean) > 20 * se  # the independence assumption is false
    p, nn = n_rel / n, n - n_rel
    harmonic = sum(1.0 / i for i in range(1, k + 1))
    identity = p * nn / (n - 1) * (harmonic - k / n)  # the gap E[SP@k] − k·p²
    assert expected_sp(n, n_rel, k) - paper == pytest.approx(identity, abs=1e-12)


def test_bestgen_expected_ap_matches_permutations():
    rel = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0], dtype=bool)
    mean, se = direct_mc_sp(rel, 10, 200_000, np.random.default_rng(5))
    assert abs(expected_ap(10, 3) - mean / 3) < 4 * se / 3


@pytest.mark.parametrize("n,n_rel,k", [(10, 3, 5), (10, 3, 20), (6, 6, 3), (7, 0, 3), (8, 2, 1), (1, 1, 5)])
def test_worst_sp_by_enumeration(n, n_rel, k):
    ranking = np.r_[np.zeros(n - n_rel), np.ones(n_rel)]  # all non-relevant first
    m = min(k, n)
    r = ranking[:m]
    direct = float((np.cumsum(r) / np.arange(1, m + 1) * r).sum())
    assert worst_sp(n, n_rel, k) == pytest.approx(direct, abs=1e-12)


@pytest.mark.parametrize("measure", ["nDCG(gain=exp)@5", "SP@4", "AP", "P@5", "R@3", "RR", "ERR@5", "RBP(p=0.7)"])
def test_monte_carlo_lb_agrees_with_closed_form_or_enumeration(measure):
    """lb=mc (our vectorized estimator through the measure's own kernel) against an exact
    value: the closed form where there is one, full enumeration of permutations otherwise."""
    import itertools

    labels = [2, 1, 0, 1, 0, 0]
    run, qrels = one_query(labels, "abcdef")
    m = pdireval.parse_measure(measure)
    mc = pdireval.bounds(run, str(m), qrels=qrels, lb="mc", n_resamples=20_000, rng=1).iloc[0]
    if m.name in ("RR", "ERR", "RBP"):
        # every permutation of the pool as one system of a single run, evaluated at once
        perms = np.array(list(itertools.permutations(range(6))))
        docs = np.array(list("abcdef"))
        r = pd.DataFrame({
            "system": np.repeat([f"p{i:03d}" for i in range(len(perms))], 6),
            "query": "q",
            "doc": docs[perms].reshape(-1),
            "score": np.tile(np.arange(6, 0, -1.0), len(perms)),
        })
        exact = float(pdireval.evaluate(r, str(m), qrels=qrels)["value"].mean())
    else:
        exact = pdireval.bounds(run, str(m), qrels=qrels).iloc[0]["random"]
    assert mc["random_se"] > 0
    assert abs(mc["random"] - exact) < 4 * mc["random_se"]


def test_rlb_pool_run_closed_form_vs_monte_carlo():
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=3, depth=15, rng=2)
    for m in ("DCG(gain=exp)@5", "SP@5"):
        exact = pdireval.bounds(run, m, qrels=qrels, rlb_pool="run")
        mc = pdireval.bounds(run, m, qrels=qrels, rlb_pool="run", lb="mc", n_resamples=20_000, rng=3)
        se = mc["random_se"].to_numpy()
        assert (se > 0).any()
        assert np.all(np.abs(exact["random"].to_numpy() - mc["random"].to_numpy()) <= 4 * se + 1e-12)
        # a random permutation of the run's own list differs from one of the judged pool
        pooled = pdireval.bounds(run, m, qrels=qrels)
        assert not np.allclose(pooled["random"], exact["random"])


def test_rlb_pool_run_equals_qrels_pool_for_reranking_data():
    """LETOR style: every system ranks the same fully judged candidate set."""
    rng = np.random.default_rng(0)
    rows = []
    for q in range(4):
        labels = rng.integers(0, 3, size=8)
        for s in ("x", "y"):
            scores = rng.random(8)
            rows += [{"system": s, "query": str(q), "doc": f"d{d}", "score": scores[d], "label": labels[d]} for d in range(8)]
    run = pd.DataFrame(rows)
    a = pdireval.bounds(run, ["nDCG(gain=exp)@5", "SP@5"])
    b = pdireval.bounds(run, ["nDCG(gain=exp)@5", "SP@5"], rlb_pool="run")
    np.testing.assert_allclose(a["random"], b["random"], rtol=1e-12)


# --------------------------------------------------------------------------- edge cases of the UL normalisation


def test_edge_iub_rlb_zero():
    assert np.isnan(normalise(0.0, 0.0, 0.0, 0.0, "ul1"))
    assert np.isnan(normalise(0.0, 0.0, 0.0, 0.0, "ul2"))


def test_edge_iub_not_positive_gives_nan_v1():
    assert np.isnan(normalise(-0.5, -0.2, -0.6, -1.0, "ul1"))
    # V2 by the other rows: A >= RLB branch
    assert normalise(-0.4, -0.2, -0.6, -1.0, "ul2") == pytest.approx((-0.4 + 0.6) / (-0.2 + 0.6))


def test_edge_zero_value_zero_rlb():
    assert normalise(0.0, 2.0, 0.0, -1.0, "ul1") == 0.0
    assert normalise(0.0, 2.0, 0.0, -1.0, "ul2") == 0.0


def test_edge_degenerate_every_permutation_scores_the_same():
    a = 1.0 + 1e-15  # the same value from different formulas
    assert normalise(a, 1.0, 1.0, 1.0, "ul1") == 0.5
    assert np.isnan(normalise(a, 1.0, 1.0, 1.0, "ul2"))
    assert np.isnan(normalise(a, 1.0, 1.0, 1.0, "minmax"))
    run, qrels = one_query([1, 1, 1], "abc")
    f = frame_for(run, qrels, ["nDCG(bounds=ul1)@2", "nDCG(bounds=ul2)@2", "nDCG(bounds=minmax)@2"])
    assert f["value"].iloc[0] == 0.5
    assert np.isnan(f["value"].iloc[1]) and np.isnan(f["value"].iloc[2])


def test_edge_below_random_with_non_positive_rlb():
    assert np.isnan(normalise(-1.0, 2.0, -0.5, -3.0, "ul2"))  # lower="paper"
    assert normalise(-1.0, 2.0, -0.5, -3.0, "ul2", lower="worst") == pytest.approx(-0.5 / 2.5)
    assert np.isnan(normalise(-1.0, 2.0, -0.5, -3.0, "ul1"))  # negative A / RLB: V1 undefined


def test_edge_negative_rlb_or_value_v1_nan():
    assert np.isnan(normalise(0.5, 2.0, -0.1, -1.0, "ul1"))
    assert np.isnan(normalise(-0.1, 2.0, 0.3, -1.0, "ul1"))


def test_v2_lower_worst_maps_worst_ranking_to_minus_one():
    run, qrels = one_query([2, 1, 0, 0, -1, 0], "efdcba")  # worst order under keep
    f = frame_for(run, qrels, ["nDCG(bounds=ul2,lower=worst,negatives=keep)@6", "nDCG(bounds=ul2,negatives=keep)@6"])
    assert f["value"].iloc[0] == pytest.approx(-1.0, abs=1e-12)
    assert f["value"].iloc[1] != pytest.approx(-1.0, abs=1e-6)


def test_v2_reaches_minus_one_only_when_a_zero_gain_top_k_exists():
    # k=2 with 3 non-relevant: the worst ranking has DCG 0 -> V2 = -1 under the paper's formula
    run, qrels = one_query([1, 0, 0, 0], "bcda")
    assert frame_for(run, qrels, "nDCG(bounds=ul2)@2")["value"].iloc[0] == pytest.approx(-1.0)
    # k >= n with a relevant document: -1 is unattainable
    run, qrels = one_query([1, 0, 0, 0], "bcda")
    assert frame_for(run, qrels, "nDCG(bounds=ul2)@4")["value"].iloc[0] > -1.0


# --------------------------------------------------------------------------- properties


labels_st = st.lists(st.integers(min_value=-2, max_value=3), min_size=1, max_size=12)


@settings(max_examples=30, deadline=None)
@given(labels=labels_st, k=st.integers(1, 15), seed=st.integers(0, 10_000))
def test_ndcg_min_in_unit_interval_for_prefixes_of_pool_permutations(labels, k, seed):
    order = np.random.default_rng(seed).permutation(len(labels))
    docs = [chr(ord("a") + i) for i in range(len(labels))]
    run, qrels = one_query(labels, [docs[i] for i in order])
    f = frame_for(run, qrels, [f"nDCG(negatives=keep,bounds=minmax)@{k}", f"DCG(negatives=keep)@{k}"])
    v = f["value"].iloc[0]
    if np.isnan(v):  # only when every permutation scores the same (IDCG = WDCG)
        assert f["ideal"].iloc[1] == pytest.approx(f["worst"].iloc[1], abs=1e-9)
    else:
        assert -1e-12 <= v <= 1 + 1e-12


@settings(max_examples=30, deadline=None)
@given(labels=st.lists(st.integers(0, 3), min_size=2, max_size=12), k=st.integers(1, 15), seed=st.integers(0, 10_000))
def test_v2_is_one_for_the_ideal_ranking_and_v1_below_its_true_maximum(labels, k, seed):
    docs = [chr(ord("a") + i) for i in range(len(labels))]
    ideal = [docs[i] for i in np.argsort(-np.asarray(labels), kind="stable")]
    run, qrels = one_query(labels, ideal)
    f = frame_for(run, qrels, [f"nDCG(gain=exp,bounds=ul2)@{k}", f"DCG(gain=exp)@{k}", f"SP(bounds=ul2)@{k}"])
    dcg = f.loc[f"DCG(gain=exp)@{k}"]
    live = dcg["ideal"] - dcg["random"] > 1e-9
    if live:
        assert f["value"].iloc[0] == pytest.approx(1.0, abs=1e-12)
    if (np.asarray(labels) >= 1).any() and (np.asarray(labels) < 1).any():
        assert f.loc[f"SP(bounds=ul2)@{k}", "value"] == pytest.approx(1.0, abs=1e-12)
    # V1 <= IUB/(IUB + RLB) for any ranking of the pool
    order = np.random.default_rng(seed).permutation(len(labels))
    run, qrels = one_query(labels, [docs[i] for i in order])
    g = frame_for(run, qrels, [f"nDCG(gain=exp,bounds=ul1)@{k}", f"DCG(gain=exp)@{k}", f"SP(bounds=ul1)@{k}", f"SP@{k}"])
    for v1, base in ((f"nDCG(bounds=ul1,gain=exp)@{k}", f"DCG(gain=exp)@{k}"), (f"SP(bounds=ul1)@{k}", f"SP@{k}")):
        b = g.loc[base]
        if b["ideal"] > 0 and b["ideal"] - b["random"] > 1e-9:
            assert g.loc[v1, "value"] <= b["ideal"] / (b["ideal"] + b["random"]) + 1e-12


def test_v2_is_zero_when_the_value_equals_the_expectation():
    iub, rlb, wlb = 3.2, 1.1, 0.0
    assert normalise(rlb, iub, rlb, wlb, "ul2") == 0.0
    assert normalise(rlb, iub, rlb, wlb, "ul2", lower="worst") == 0.0
    # and through the bound frame: the random column of a V2 measure is 0
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=5, depth=20, rng=8)
    f = pdireval.bounds(run, ["nDCG(gain=exp,bounds=ul2)@10", "SP(bounds=ul2)@10"], qrels=qrels)
    live = f["ideal"].notna()
    assert (f.loc[live, "random"] == 0.0).all() and (f.loc[live, "ideal"] == 1.0).all()


@settings(max_examples=15, deadline=None)
@given(labels=st.lists(st.integers(-1, 3), min_size=2, max_size=10), k=st.integers(1, 12), c=st.sampled_from([0.01, 0.3, 2.0, 37.5]), seed=st.integers(0, 999))
def test_normalised_values_are_invariant_to_scaling_the_gains(labels, k, c, seed):
    docs = [chr(ord("a") + i) for i in range(len(labels))]
    order = np.random.default_rng(seed).permutation(len(labels))
    run, qrels = one_query(labels, [docs[i] for i in order])
    base = {-1: -0.5, 0: 0.0, 1: 1.0, 2: 3.0, 3: 7.0}
    scaled = {key: c * val for key, val in base.items()}
    for kind in ("ul1", "ul2", "minmax"):
        ms = [f"nDCG(bounds={kind},gain={g},negatives=keep)@{k}" for g in (base, scaled)]
        values = pdireval.evaluate(run, ms, qrels=qrels)["value"].to_numpy()
        if np.isnan(values[0]):
            assert np.isnan(values[1])
        else:
            assert values[1] == pytest.approx(values[0], rel=1e-9, abs=1e-12)


# --------------------------------------------------------------------------- frame & errors


def test_bound_frame_matches_evaluate_and_is_reproducible():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=5, depth=20, rng=2)
    ms = ["nDCG(gain=exp)@10", "AP", "SP(bounds=ul2)@10", "RR(lb=mc,mc_samples=50)"]
    before = run.copy()
    f = pdireval.bounds(run, ms, qrels=qrels)
    pd.testing.assert_frame_equal(run, before)
    assert list(f.columns) == ["system", "query", "measure", "value", "ideal", "random", "random_se", "worst"]
    ev = pdireval.evaluate(run, ms, qrels=qrels)
    pd.testing.assert_frame_equal(f[["system", "query", "measure", "value"]], ev)
    pd.testing.assert_frame_equal(f, pdireval.bounds(run, ms, qrels=qrels))
    mc1 = pdireval.bounds(run, "RR", qrels=qrels, lb="mc", n_resamples=50, rng=5)
    mc2 = run.ireval.bounds("RR", qrels=qrels, lb="mc", n_resamples=50, rng=5)
    pd.testing.assert_frame_equal(mc1, mc2)
    mc3 = pdireval.bounds(run, "RR", qrels=qrels, lb="mc", n_resamples=50, rng=6)
    assert not np.allclose(mc1["random"], mc3["random"])
    assert list(mc1["measure"].unique()) == ["RR(lb=mc,mc_samples=50,mc_seed=5)"]
    nd = f[f["measure"] == "nDCG(gain=exp)@10"]
    assert ((nd["worst"] <= nd["random"] + 1e-12) & (nd["random"] <= nd["ideal"] + 1e-12)).all()


def test_random_for_ap_is_nan_without_relevant_documents():
    run, qrels = one_query([0, 0, 0], "abc")
    f = frame_for(run, qrels, ["AP", "AP(bounds=ul2)"])
    assert f.loc["AP", "value"] == 0.0 and np.isnan(f.loc["AP", "random"])
    assert np.isnan(f.loc["AP(bounds=ul2)", "value"])


@pytest.mark.parametrize(
    "measure, words",
    [
        ("RR(bounds=ul2)", "lb=mc"),
        ("P(lb=paper,bounds=ul1)@5", "lb=exact or lb=mc"),
        ("nDCG(bounds=ul1,lower=worst)@5", "bounds=ul2"),
        ("nDCG(bounds=ul3)@5", "max, minmax, ul1, ul2"),
        ("Bpref(bounds=ul1)", "no parameter 'bounds'"),
    ],
)
def test_mistakes_raise_measure_errors_that_say_what_to_do(measure, words):
    run, qrels = one_query([1, 0, 2], "abc")
    with pytest.raises(MeasureError, match=words.replace("(", r"\(").replace("=", "=")):
        pdireval.evaluate(run, measure, qrels=qrels)


def test_bound_frame_rejects_measures_without_bounds():
    run, qrels = one_query([1, 0, 2], "abc")
    with pytest.raises(MeasureError, match="has no bounds"):
        pdireval.bounds(run, "NumRet", qrels=qrels)
    with pytest.raises(ValueError, match="lb="):
        pdireval.bounds(run, "SP@3", qrels=qrels, lb="approx")


def test_monte_carlo_deep_lists_use_the_key_sort_path_and_agree():
    """More than 64 positions: the whole-group shuffle by sorted keys (full-depth AP, SP@100)."""
    rng = np.random.default_rng(4)
    labels = (rng.random(90) < 0.2).astype(int).tolist()
    docs = [f"d{i:02d}" for i in range(90)]
    run, qrels = one_query(labels, docs, docs=docs)
    for m in ("AP", "SP@100"):
        exact = pdireval.bounds(run, m, qrels=qrels).iloc[0]
        mc = pdireval.bounds(run, m, qrels=qrels, lb="mc", n_resamples=4000, rng=2).iloc[0]
        assert mc["random_se"] > 0
        assert abs(mc["random"] - exact["random"]) < 4 * mc["random_se"]


def test_ndcg_min_leaves_the_unit_interval_with_a_short_list_and_clip_option():
    """Negative gains: D = {+3, -2}, k = 2, linear gains; the list [-2 doc] alone has
    DCG = -2 while WDCG = -2 + 3/log2 3 ≈ -0.107, so NDCG_min < 0 (not clipped). With
    IDCG = 3 - 2/log2 3 the definition gives -1.0257; the spec's printed "≈ -0.77" does not
    follow from its own formula (reported on the issue)."""
    run, qrels = one_query([3, -2], "b")
    f = frame_for(run, qrels, ["DCG(negatives=keep)@2", "nDCG(bounds=minmax,negatives=keep)@2", "nDCG(bounds=minmax,clip=true,negatives=keep)@2"])
    assert f.loc["DCG(negatives=keep)@2", "worst"] == pytest.approx(-2 + 3 / np.log2(3), abs=1e-12)
    idcg, wdcg = 3 - 2 / np.log2(3), -2 + 3 / np.log2(3)
    assert f.loc["DCG(negatives=keep)@2", "ideal"] == pytest.approx(idcg, abs=1e-12)
    assert f["value"].iloc[1] == pytest.approx((-2 - wdcg) / (idcg - wdcg), abs=1e-12)
    assert f["value"].iloc[1] < 0
    assert f["value"].iloc[2] == 0.0
    with pytest.raises(MeasureError, match="bounds=minmax"):
        pdireval.evaluate(run, "nDCG(bounds=ul2,clip=true)@2", qrels=qrels)


def test_bound_frame_rng_generator_is_reproducible():
    run, qrels = one_query([2, 1, 0, 0, 1], "abcde")
    a = pdireval.bounds(run, "RR", qrels=qrels, lb="mc", n_resamples=100, rng=np.random.default_rng(9))
    b = pdireval.bounds(run, "RR", qrels=qrels, lb="mc", n_resamples=100, rng=np.random.default_rng(9))
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(TypeError, match="rng="):
        pdireval.bounds(run, "RR", qrels=qrels, lb="mc", rng="seven")
