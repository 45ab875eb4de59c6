"""Information τ (Golbus & Aslam 2013, Section 3–4): Theorem 1, ties, conditioning, frames.

The oracle here is independent of pdireval: ordered pairs enumerated in Python and the
plug-in mutual information computed from collections.Counter.
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import permutations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import SchemaError
from pdireval.stats.information_theory import (
    information_from_tau,
    pair_information,
    tau_from_information,
)
from pdireval.stats.rank_correlation import kendall_tau


def kendall_counts(x, y):
    """(c, d, n1, n2, n0) over unordered pairs, counted in plain Python."""
    c = d = n1 = n2 = n0 = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            sx, sy = sgn(x[i] - x[j]), sgn(y[i] - y[j])
            n0 += 1
            c += sx * sy > 0
            d += sx * sy < 0
            n1 += sx == 0
            n2 += sy == 0
    return c, d, n1, n2, n0

# --------------------------------------------------------------------------- oracle


def mi(samples):
    """Plug-in I(X; Y) in bits from a list of (x, y) tuples."""
    n = len(samples)
    pxy = Counter(samples)
    px = Counter(x for x, _ in samples)
    py = Counter(y for _, y in samples)
    return sum(c / n * math.log2((c / n) / ((px[x] / n) * (py[y] / n))) for (x, y), c in pxy.items())


def cmi(samples):
    """Plug-in I(X; Y | Z) in bits from (x, y, z) tuples."""
    n = len(samples)
    pxyz = Counter(samples)
    pxz = Counter((x, z) for x, _, z in samples)
    pyz = Counter((y, z) for _, y, z in samples)
    pz = Counter(z for _, _, z in samples)
    return sum(
        c / n * math.log2((c / n) * (pz[z] / n) / ((pxz[(x, z)] / n) * (pyz[(y, z)] / n)))
        for (x, y, z), c in pxyz.items()
    )


def sgn(v):
    return int(v > 0) - int(v < 0)


def ordered_pairs(*vectors, drop_ties=True):
    """Per ordered pair (i, j), i != j: the tuple of signs of every vector."""
    n = len(vectors[0])
    out = []
    for i, j in permutations(range(n), 2):
        t = tuple(sgn(v[i] - v[j]) for v in vectors)
        if drop_ties and 0 in t:
            continue
        out.append(t)
    return out


# --------------------------------------------------------------------------- Theorem 1


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 30])
def test_theorem1_matches_direct_mutual_information_on_random_total_orders(n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        x = rng.permutation(n)
        y = rng.permutation(n)
        tau = kendall_tau(x, y, "a")
        direct = mi(ordered_pairs(x, y))
        assert information_from_tau(tau) == pytest.approx(direct, abs=1e-9)
        info, n_pairs = pair_information(x, y)
        assert info == pytest.approx(direct, abs=1e-9)
        assert n_pairs == n * (n - 1)


def test_worked_example_of_methods_spec_11():
    x, y = [1, 2, 3, 4, 5], [2, 1, 4, 3, 5]
    c, d, _, _, n0 = kendall_counts(x, y)
    assert (c - d) / n0 == pytest.approx(0.6, abs=1e-12)
    assert kendall_tau(x, y, "b") == pytest.approx(0.6, abs=1e-12)
    assert information_from_tau(0.6) == pytest.approx(0.2780719051, abs=1e-10)
    info, n_pairs = pair_information(x, y)
    assert info == pytest.approx(0.2780719051, abs=1e-10)
    assert n_pairs == 20


def test_theorem1_closed_form_and_symmetry():
    for t in np.linspace(-1, 1, 41):
        expected = 0.0
        for s in (1 + t, 1 - t):
            if s > 0:
                expected += s / 2 * math.log2(s)
        assert information_from_tau(t) == pytest.approx(expected, abs=1e-12)
        assert information_from_tau(t) == pytest.approx(information_from_tau(-t), abs=1e-12)
    assert information_from_tau(1.0) == 1.0 and information_from_tau(0.0) == 0.0
    assert np.isnan(information_from_tau(np.nan))
    with pytest.raises(ValueError, match="τ in"):
        information_from_tau(1.5)


def test_inverse_recovers_tau_on_zero_to_one():
    taus = np.linspace(0, 1, 101)
    back = tau_from_information(information_from_tau(taus))
    np.testing.assert_allclose(back, taus, atol=1e-7)  # I'(0) = 0: τ is ill-conditioned near 0
    mid = np.linspace(0.05, 1, 50)
    np.testing.assert_allclose(tau_from_information(information_from_tau(mid)), mid, atol=1e-12)
    np.testing.assert_allclose(tau_from_information(information_from_tau(-mid)), mid, atol=1e-12)
    assert tau_from_information(1.0) == 1.0
    with pytest.raises(ValueError):
        tau_from_information(-0.5)


def test_ties_dropped_gives_theorem1_of_gamma():
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(4, 15))
        x = rng.integers(0, 4, n)
        y = rng.integers(0, 4, n)
        c, d, *_ = kendall_counts(x, y)
        info, n_pairs = pair_information(x, y, tied_pairs="drop")
        if c + d == 0:
            assert np.isnan(info) and n_pairs == 0
            continue
        gamma = kendall_tau(x, y, "gamma")
        assert gamma == pytest.approx((c - d) / (c + d))
        assert info == pytest.approx(information_from_tau(gamma), abs=1e-9)
        assert info == pytest.approx(mi(ordered_pairs(x, y)), abs=1e-9)
        assert n_pairs == 2 * (c + d)


def test_ties_valued_zero_matches_three_valued_oracle():
    rng = np.random.default_rng(8)
    for _ in range(20):
        n = int(rng.integers(3, 12))
        x = rng.integers(0, 3, n)
        y = rng.integers(0, 3, n)
        info, n_pairs = pair_information(x, y, tied_pairs="keep")
        samples = ordered_pairs(x, y, drop_ties=False)
        assert n_pairs == n * (n - 1)
        assert info == pytest.approx(mi(samples), abs=1e-9)


# --------------------------------------------------------------------------- conditioning


@pytest.mark.parametrize("m", [1, 2])
def test_conditional_information_matches_oracle_and_chain_rule(m):
    rng = np.random.default_rng(10 + m)
    for _ in range(15):
        n = int(rng.integers(4, 12))
        x, y = rng.permutation(n), rng.permutation(n)
        zs = [rng.permutation(n) for _ in range(m)]
        got, _ = pair_information(x, y, zs)
        samples = [(t[0], t[1], t[2:]) for t in ordered_pairs(x, y, *zs)]
        assert got == pytest.approx(cmi(samples), abs=1e-9)
        # chain rule: I(X; Y | Z) = I(X; (Y, Z)) − I(X; Z)
        i_x_yz = mi([(t[0], t[1:]) for t in ordered_pairs(x, y, *zs)])
        i_x_z = mi([(t[0], t[2:]) for t in ordered_pairs(x, y, *zs)])
        assert got == pytest.approx(i_x_yz - i_x_z, abs=1e-9)


def test_conditioning_on_itself_gives_zero():
    rng = np.random.default_rng(3)
    for _ in range(10):
        x, y = rng.permutation(9), rng.permutation(9)
        assert pair_information(x, y, [x])[0] == pytest.approx(0.0, abs=1e-12)
        assert pair_information(x, y, [y])[0] == pytest.approx(0.0, abs=1e-12)


# --------------------------------------------------------------------------- frames


def _scores(rng, n_sys=7, n_q=6, measures=("A", "B", "C", "D")):
    rows = []
    for m in measures:
        vals = rng.random((n_sys, n_q))
        for s in range(n_sys):
            for q in range(n_q):
                rows.append({"system": f"s{s}", "query": str(q + 1), "measure": m, "value": vals[s, q]})
    return pd.DataFrame(rows)


def test_information_tau_frame_mean_and_per_query_match_arrays():
    rng = np.random.default_rng(1)
    scores = _scores(rng)
    frame = scores.copy()
    out = pdireval.information_tau(scores, "A", ["B", "C"], given=[(), "D", ("C", "D")])
    pd.testing.assert_frame_equal(scores, frame)  # caller's frame untouched
    assert list(out.columns) == ["measure_a", "measure_b", "given", "information_tau", "n_pairs"]
    assert out["given"].tolist() == ["", "D", "C, D"] * 2
    wide = {m: scores[scores.measure == m].pivot(index="query", columns="system", values="value") for m in "ABCD"}
    mean = {m: w.mean(axis=0).to_numpy() for m, w in wide.items()}
    for row in out.itertuples():
        given = [mean[g] for g in row.given.split(", ")] if row.given else []
        expected, n_pairs = pair_information(mean[row.measure_a], mean[row.measure_b], given)
        assert row.information_tau == pytest.approx(expected, abs=1e-12)
        assert row.n_pairs == n_pairs
    assert out.loc[out.measure_b == "C", "information_tau"].iloc[2] == pytest.approx(0.0, abs=1e-12)

    per_q = pdireval.information_tau(scores, "A", "B", given="D", per_query=True)
    assert list(per_q.columns) == ["measure_a", "measure_b", "given", "query", "information_tau", "n_pairs"]
    assert per_q["query"].tolist() == [str(q) for q in range(1, 7)]
    for row in per_q.itertuples():
        expected, _ = pair_information(wide["A"].loc[row.query], wide["B"].loc[row.query], [wide["D"].loc[row.query]])
        assert row.information_tau == pytest.approx(expected, abs=1e-12)


def test_information_tau_groups_over_extra_columns_and_accessor():
    rng = np.random.default_rng(2)
    one = _scores(rng).assign(collection="x")
    two = _scores(rng).assign(collection="y")
    scores = pd.concat([two, one], ignore_index=True)
    out = scores.ireval.information_tau("A", "B")
    assert out["collection"].tolist() == ["x", "y"]
    alone = pdireval.information_tau(one.drop(columns="collection"), "A", "B")
    assert out["information_tau"].iloc[0] == pytest.approx(alone["information_tau"].iloc[0])


def test_information_tau_nan_scores_drop_pairs():
    rng = np.random.default_rng(4)
    scores = _scores(rng, n_sys=5, n_q=1, measures=("A", "B"))
    scores.loc[(scores.measure == "A") & (scores.system == "s0"), "value"] = np.nan
    out = pdireval.information_tau(scores, "A", "B", per_query=True)
    assert out["n_pairs"].iloc[0] == 4 * 3


def test_information_tau_errors():
    rng = np.random.default_rng(5)
    scores = _scores(rng)
    with pytest.raises(SchemaError, match="no measure 'nDCG'.*its measures"):
        pdireval.information_tau(scores, "A", "nDCG")
    with pytest.raises(ValueError, match="tied_pairs="):
        pdireval.information_tau(scores, "A", "B", tied_pairs="zero")
    with pytest.raises(TypeError):
        pdireval.information_tau(scores, "A", 3)
    incomplete = scores.drop(index=0)
    with pytest.raises(SchemaError, match="complete"):
        pdireval.information_tau(incomplete, "A", "B")


def test_information_tau_on_evaluated_scores_matches_canonical_spelling():
    run, qrels = pdireval.datasets.simulate(n_systems=5, n_queries=4, depth=20, rng=3)
    scores = pdireval.evaluate(run, ["AP", "nDCG@10", "RIC"], qrels=qrels)
    out = pdireval.information_tau(scores, "map", "ndcg_cut_10", given="RIC")
    assert out["measure_a"].iloc[0] == "map"
    assert 0.0 <= out["information_tau"].iloc[0] <= 1.0


def test_kendall_tau_is_the_expectation_of_the_pair_product():
    """τ_a = E[X_R·X_S] over the uniform ordered pairs, ties valued 0."""
    from pdireval.stats.information_theory import pair_signs

    rng = np.random.default_rng(17)
    for _ in range(20):
        n = int(rng.integers(2, 15))
        x, y = rng.integers(0, 5, n), rng.integers(0, 5, n)
        signs = pair_signs(np.vstack([x, y]).astype(float)).astype(float)
        assert (signs[0] * signs[1]).mean() == pytest.approx(kendall_tau(x, y, "a"), abs=1e-12)
