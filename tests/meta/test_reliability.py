"""Generalizability theory: G-study, D-study, topics needed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval.errors import SchemaError
from pdireval.stats.gtheory import anova_table, phi, queries_needed

WORKED = np.array([[0.2, 0.3, 0.5, 0.4], [0.25, 0.35, 0.45, 0.5], [0.1, 0.2, 0.3, 0.2]])


def frame_of(matrix, measure="m", **extra):
    """Scores frame of a systems x topics matrix."""
    n_s, n_t = matrix.shape
    rows = [(f"s{i}", f"q{j}", measure, float(matrix[i, j])) for i in range(n_s) for j in range(n_t)]
    out = pd.DataFrame(rows, columns=["system", "query", "measure", "value"])
    for k, v in extra.items():
        out[k] = v
    return out


def random_matrix(rng, n_s, n_t):
    """Scores with system, topic and residual effects of random n_queries."""
    return (
        rng.normal(0, rng.uniform(0.05, 1), (n_s, 1))
        + rng.normal(0, rng.uniform(0.05, 1), (1, n_t))
        + rng.normal(0, rng.uniform(0.05, 1), (n_s, n_t))
    )


# --------------------------------------------------------------------------- worked example


def test_methods_spec_worked_example():
    row = pdireval.reliability(frame_of(WORKED), target=0.9).iloc[0]
    assert row["ms_system"] == pytest.approx(0.039375, abs=1e-12)
    assert row["ms_query"] == pytest.approx(0.0313194, abs=1e-7)
    assert row["ms_residual"] == pytest.approx(0.0021528, abs=1e-7)
    assert row["var_system"] == pytest.approx(0.0093056, abs=1e-7)
    assert row["var_query"] == pytest.approx(0.0097222, abs=1e-7)
    assert row["var_residual"] == pytest.approx(0.0021528, abs=1e-7)
    assert row["phi"] == pytest.approx(0.7581329562, abs=1e-10)
    assert row["e_rho2"] == pytest.approx(0.9453262787, abs=1e-10)
    assert row["queries_needed"] == 12
    assert row["n_systems"] == 3 and row["n_queries"] == 4 and row["n_queries_observed"] == 4


def test_worked_example_d_study_and_default_target():
    rel = pdireval.reliability(frame_of(WORKED), n_queries=12)
    assert rel["n_queries"].iloc[0] == 12.0
    # Φ(12) = σ²_s / (σ²_s + (σ²_t + σ²_res)/12), by hand from the spec's components
    vs, vt, vr = 0.0093055556, 0.0097222222, 0.0021527778
    assert rel["phi"].iloc[0] == pytest.approx(vs / (vs + (vt + vr) / 12), rel=1e-7)
    # target 0.95: ceil(0.95 * 0.011875 / (0.0093056 * 0.05)) = ceil(24.24...) = 25
    assert pdireval.reliability(frame_of(WORKED))["queries_needed"].iloc[0] == 25


# --------------------------------------------------------------------------- oracles


@pytest.mark.parametrize("shape", [(3, 4), (7, 5), (12, 30), (2, 2)])
def test_anova_matches_statsmodels_additive_ols(shape):
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(sum(shape))
    x = random_matrix(rng, *shape)
    df = frame_of(x)
    fit = smf.ols("value ~ C(system) + C(query)", data=df).fit()
    table = anova_lm(fit)
    row = pdireval.reliability(df, negative_components="keep").iloc[0]
    assert row["ss_system"] == pytest.approx(table.loc["C(system)", "sum_sq"], rel=1e-9)
    assert row["ss_query"] == pytest.approx(table.loc["C(query)", "sum_sq"], rel=1e-9)
    assert row["ss_residual"] == pytest.approx(table.loc["Residual", "sum_sq"], rel=1e-9, abs=1e-12)
    assert row["df_system"] == table.loc["C(system)", "df"]
    assert row["df_query"] == table.loc["C(query)", "df"]
    assert row["df_residual"] == table.loc["Residual", "df"]
    ms_s, ms_t, ms_r = (table.loc[n, "mean_sq"] for n in ("C(system)", "C(query)", "Residual"))
    n_s, n_t = shape
    vs, vt, vr = (ms_s - ms_r) / n_t, (ms_t - ms_r) / n_s, ms_r
    assert row["var_system"] == pytest.approx(vs, rel=1e-9)
    assert row["var_query"] == pytest.approx(vt, rel=1e-9)
    assert row["var_residual"] == pytest.approx(vr, rel=1e-9, abs=1e-15)
    assert row["phi"] == pytest.approx(vs / (vs + (vt + vr) / n_t), rel=1e-9)
    assert row["e_rho2"] == pytest.approx(vs / (vs + vr / n_t), rel=1e-9)


@pytest.mark.filterwarnings("ignore:The inplace keyword:DeprecationWarning")
@pytest.mark.filterwarnings(r"ignore::DeprecationWarning:pingouin\.")  # pandas 3 deprecations, inside pingouin
@pytest.mark.parametrize("seed", range(4))
def test_anova_matches_pingouin_rm_anova(seed):
    import pingouin as pg

    rng = np.random.default_rng(100 + seed)
    n_s, n_t = rng.integers(3, 9), rng.integers(3, 25)
    x = random_matrix(rng, n_s, n_t)
    df = frame_of(x)
    aov = pg.rm_anova(df, dv="value", within="system", subject="query", detailed=True)
    row = pdireval.reliability(df).iloc[0]
    assert row["ss_system"] == pytest.approx(aov.loc[0, "SS"], rel=1e-9)
    assert row["ms_system"] == pytest.approx(aov.loc[0, "MS"], rel=1e-9)
    assert row["ss_residual"] == pytest.approx(aov.loc[1, "SS"], rel=1e-9)
    assert row["ms_residual"] == pytest.approx(aov.loc[1, "MS"], rel=1e-9)
    assert row["df_system"] == aov.loc[0, "DF"] and row["df_residual"] == aov.loc[1, "DF"]


@pytest.mark.filterwarnings(r"ignore::DeprecationWarning:pingouin\.")  # pandas 3 deprecations, inside pingouin
@pytest.mark.parametrize("seed", range(4))
def test_coefficients_and_intervals_match_pingouin_icc(seed):
    """Φ(n_t) = ICC(A,k) and Eρ²(n_t) = ICC(C,k) with systems as targets, topics as raters
    (unclipped components); our intervals reproduce McGraw & Wong's as pingouin computes them."""
    import pingouin as pg

    rng = np.random.default_rng(200 + seed)
    x = random_matrix(rng, int(rng.integers(4, 12)), int(rng.integers(4, 20)))
    x[:, :] += np.linspace(0, 2, x.shape[0])[:, None]  # real system differences: no clipping
    df = frame_of(x)
    key = "round.column.CI95" if "round.column.CI95" in pg.options else "round.column.CI95%"  # < 0.6
    old = pg.options[key]
    pg.options[key] = None
    try:
        icc = pg.intraclass_corr(df, targets="system", raters="query", ratings="value").set_index("Type")
        # pingouin < 0.6 names the types ICC2, ICC2k, ICC3k
        icc = icc.rename(index={"ICC2": "ICC(A,1)", "ICC2k": "ICC(A,k)", "ICC3k": "ICC(C,k)"})
    finally:
        pg.options[key] = old
    row = pdireval.reliability(df).iloc[0]
    assert row["var_system"] > 0 and row["var_query"] > 0
    assert row["phi"] == pytest.approx(icc.loc["ICC(A,k)", "ICC"], rel=1e-9)
    assert row["e_rho2"] == pytest.approx(icc.loc["ICC(C,k)", "ICC"], rel=1e-9)
    ci = "CI95" if "CI95" in icc.columns else "CI95%"  # pingouin < 0.6
    lo, hi = icc.loc["ICC(A,k)", ci]
    assert row["phi_ci_low"] == pytest.approx(max(lo, 0), abs=1e-9)
    assert row["phi_ci_high"] == pytest.approx(min(hi, 1), abs=1e-9)
    lo, hi = icc.loc["ICC(C,k)", ci]
    assert row["e_rho2_ci_low"] == pytest.approx(max(lo, 0), abs=1e-9)
    assert row["e_rho2_ci_high"] == pytest.approx(min(hi, 1), abs=1e-9)
    # Φ(1) = ICC(A,1): the D-study at n' = 1
    one = pdireval.reliability(df, n_queries=1).iloc[0]
    assert one["phi"] == pytest.approx(icc.loc["ICC(A,1)", "ICC"], rel=1e-9)
    lo, hi = icc.loc["ICC(A,1)", ci]
    assert one["phi_ci_low"] == pytest.approx(max(lo, 0), abs=1e-9)
    assert one["phi_ci_high"] == pytest.approx(min(hi, 1), abs=1e-9)


def test_e_rho2_interval_covers_at_nominal_rate():
    """The Eρ² interval is exact under the normal random-effects model: simulated coverage
    of the true Eρ²(n_t) is close to 90 %; the approximate Φ interval close to it too."""
    rng = np.random.default_rng(7)
    n_s, n_t, reps = 10, 15, 4000
    vs, vt, vr = 0.04, 0.02, 0.05
    x = (
        rng.normal(0, np.sqrt(vs), (reps, 1, n_s))
        + rng.normal(0, np.sqrt(vt), (reps, n_t, 1))
        + rng.normal(0, np.sqrt(vr), (reps, n_t, n_s))
    )
    from pdireval.stats.gtheory import coefficient_intervals

    tab = anova_table(x)
    e_lo, e_hi, p_lo, p_hi = coefficient_intervals(tab, float(n_s), float(n_t), float(n_t), 0.9)
    true_e = vs / (vs + vr / n_t)
    true_p = vs / (vs + (vt + vr) / n_t)
    cover_e = np.mean((e_lo <= true_e) & (true_e <= e_hi))
    cover_p = np.mean((p_lo <= true_p) & (true_p <= p_hi))
    assert abs(cover_e - 0.9) < 0.02
    assert abs(cover_p - 0.9) < 0.04


# --------------------------------------------------------------------------- properties


matrices = st.integers(0, 2**32 - 1).map(
    lambda seed: random_matrix(np.random.default_rng(seed), int(np.random.default_rng(seed).integers(2, 9)), int(np.random.default_rng(seed + 1).integers(2, 12)))
)


@settings(max_examples=40, deadline=None)
@given(x=matrices, shift=st.floats(-5, 5), n_queries=st.lists(st.floats(0.5, 500), min_size=2, max_size=6))
def test_properties(x, shift, n_queries):
    df = frame_of(x)
    rel = pdireval.reliability(df).iloc[0]
    assert rel["phi"] <= rel["e_rho2"] + 1e-12
    assert 0 <= rel["phi"] <= 1 and 0 <= rel["e_rho2"] <= 1
    assert rel["phi_ci_low"] <= rel["phi_ci_high"] and rel["e_rho2_ci_low"] <= rel["e_rho2_ci_high"]
    shifted = pdireval.reliability(frame_of(x + shift)).iloc[0]
    for col in ("var_system", "var_query", "var_residual", "phi", "e_rho2"):
        assert shifted[col] == pytest.approx(rel[col], rel=1e-6, abs=1e-10)
    curve = pdireval.d_study(df, sorted(n_queries))
    assert np.all(np.diff(curve["phi"]) >= -1e-12)
    assert np.all(np.diff(curve["e_rho2"]) >= -1e-12)
    assert np.all(curve["phi"] <= curve["e_rho2"] + 1e-12)


def test_phi_is_one_when_topics_explain_nothing_and_systems_differ():
    for column in ([0.125], [0.5], [0.75], [0.25]), ([0.1], [0.4], [0.7], [0.2]):
        x = np.repeat(np.array(column), 6, axis=1)
        row = pdireval.reliability(frame_of(x)).iloc[0]
        assert row["var_query"] == 0 and row["var_residual"] == 0
        assert row["phi"] == 1.0 and row["e_rho2"] == 1.0
        for c in ("phi_ci_low", "phi_ci_high", "e_rho2_ci_low", "e_rho2_ci_high"):
            assert row[c] == 1.0
        assert row["queries_needed"] == 1
        assert (pdireval.d_study(frame_of(x), [1, 3])["phi"] == 1.0).all()


def test_no_system_variance_gives_zero_and_infinite_topics():
    x = np.repeat(np.array([[0.1, 0.5, 0.3, 0.9]]), 3, axis=0)  # topics differ, systems identical
    row = pdireval.reliability(frame_of(x)).iloc[0]
    assert row["var_system"] == 0 and row["phi"] == 0  # not 1e-31 from rounding
    assert np.isnan(row["e_rho2"])  # σ²_s = σ²_res = 0: zero denominator
    assert np.isinf(row["queries_needed"])
    # equal system means, but interaction: Eρ² is 0 as well
    x = np.array([[0.1, 0.5, 0.3, 0.9], [0.2, 0.4, 0.3, 0.9], [0.0, 0.6, 0.3, 0.9]])
    row = pdireval.reliability(frame_of(x)).iloc[0]
    assert row["var_system"] == 0 and row["phi"] == 0 and row["e_rho2"] == 0
    assert np.isinf(row["queries_needed"]) and np.isinf(row["queries_needed_e_rho2"])


def test_constant_matrix_gives_nan():
    row = pdireval.reliability(frame_of(np.full((3, 4), 0.5))).iloc[0]
    assert np.isnan(row["phi"]) and np.isnan(row["e_rho2"]) and np.isnan(row["share_system"])


def test_intervals_without_residual_variance():
    """Additive scores (no interaction): Eρ² = 1 with a degenerate interval [1, 1]; Φ < 1
    because topics differ, with a finite interval around it."""
    x = np.array([[0.125], [0.5], [0.75], [0.25]]) + np.array([[0.0, 0.25, 0.5, 0.0, 0.25, 0.5]])
    row = pdireval.reliability(frame_of(x)).iloc[0]
    assert row["e_rho2"] == 1.0 and row["e_rho2_ci_low"] == 1.0 and row["e_rho2_ci_high"] == 1.0
    assert 0 < row["phi_ci_low"] <= row["phi"] <= row["phi_ci_high"] <= 1


def test_negative_components_clipped_or_kept():
    x = np.array([[0.1, 0.9, 0.2], [0.9, 0.1, 0.8], [0.5, 0.5, 0.5]])  # interaction only
    clipped = pdireval.reliability(frame_of(x)).iloc[0]
    kept = pdireval.reliability(frame_of(x), negative_components="keep").iloc[0]
    assert kept["var_system"] < 0 and clipped["var_system"] == 0
    assert clipped["phi"] == 0


@settings(max_examples=200, deadline=None)
@given(
    vs=st.floats(1e-4, 1.0),
    err=st.floats(0.0, 5.0),
    target=st.floats(0.05, 0.995),
)
def test_queries_needed_is_minimal(vs, err, target):
    n = queries_needed(vs, err, target)
    assert n >= 1 and n == int(n)
    assert phi(vs, err, 0.0, n) >= target * (1 - 1e-9)
    if n > 1:
        assert phi(vs, err, 0.0, n - 1) < target


def test_queries_needed_at_exact_integer_boundary():
    # target·err/(vs(1-target)) = 0.8·0.4/(0.02·0.2) = 80 exactly (up to floating error)
    n = queries_needed(0.02, 0.4, 0.8)
    assert n == 80
    assert phi(0.02, 0.4, 0.0, 80) >= 0.8 - 1e-15
    # a hair more error needs one more topic
    assert queries_needed(0.02, 0.4 * (1 + 1e-9), 0.8) == 81


# --------------------------------------------------------------------------- frames


def test_groupby_three_measures_five_cutoffs_gives_fifteen_rows():
    rng = np.random.default_rng(3)
    parts = []
    for m in ("nDCG", "P", "AP"):
        for k in (5, 10, 20, 50, 100):
            parts.append(frame_of(random_matrix(rng, 5, 8), measure=m, k=k))
    scores = pd.concat(parts, ignore_index=True).sample(frac=1, random_state=1)
    before = scores.copy()
    rel = scores.ireval.reliability()
    pd.testing.assert_frame_equal(scores, before)  # caller's frame untouched
    assert len(rel) == 15
    assert list(rel["measure"]) == list(pd.unique(scores["measure"]).repeat(5))
    assert list(rel["k"]) == [5, 10, 20, 50, 100] * 3
    assert isinstance(rel.index, pd.RangeIndex)
    one = pdireval.reliability(scores[(scores["measure"] == "P") & (scores["k"] == 20)].drop(columns="k"))
    got = rel[(rel["measure"] == "P") & (rel["k"] == 20)].iloc[0]
    assert got["phi"] == one["phi"].iloc[0]
    for c in ("measure", "n_systems", "n_queries", "var_system", "var_query", "var_residual", "e_rho2", "phi", "queries_needed"):
        assert c in rel.columns
    curve = scores.ireval.d_study([1, 10])
    assert len(curve) == 30 and list(curve["n_queries"][:4]) == [1.0, 10.0, 1.0, 10.0]


def test_groups_of_different_shapes():
    rng = np.random.default_rng(4)
    a = frame_of(random_matrix(rng, 4, 6), measure="a")
    b = frame_of(random_matrix(rng, 7, 3), measure="b")
    rel = pdireval.reliability(pd.concat([a, b], ignore_index=True))
    assert list(rel["n_systems"]) == [4, 7] and list(rel["n_queries_observed"]) == [6, 3]
    assert rel["phi"].iloc[1] == pdireval.reliability(b)["phi"].iloc[0]


def test_incomplete_matrix_names_missing_cells_and_fixes():
    df = frame_of(WORKED)
    df = df[~((df["system"] == "s1") & (df["query"] == "q2"))]
    with pytest.raises(SchemaError) as err:
        pdireval.reliability(df)
    msg = str(err.value)
    assert "s1" in msg and "q2" in msg
    assert "drop" in msg and "missing='zero'" in msg
    assert list(err.value.failure_cases.itertuples(index=False, name=None)) == [("s1", "q2")]


def test_nan_value_is_a_missing_cell():
    df = frame_of(WORKED)
    df.loc[3, "value"] = np.nan
    # a NaN value is undefined, not unanswered: the fix is to drop the query, not missing='zero'
    with pytest.raises(SchemaError, match=r"1 NaN\)[\s\S]*drop those queries") as info:
        pdireval.d_study(df, [10])
    assert "missing='zero'" not in str(info.value)


def test_too_small_and_bad_arguments():
    with pytest.raises(SchemaError, match="at least 2 systems"):
        pdireval.reliability(frame_of(WORKED[:1]))
    with pytest.raises(ValueError, match="target"):
        pdireval.reliability(frame_of(WORKED), target=1.0)
    with pytest.raises(ValueError, match="n_queries"):
        pdireval.d_study(frame_of(WORKED), [0, 5])
    with pytest.raises(ValueError, match="negative"):
        pdireval.reliability(frame_of(WORKED), negative_components="abs")
    with pytest.raises(SchemaError, match="value"):
        pdireval.reliability(frame_of(WORKED).drop(columns="value"))


def test_on_evaluated_scores():
    run, qrels = pdireval.datasets.simulate(n_systems=6, n_queries=15, depth=30, rng=2)
    scores = pdireval.evaluate(run, ["nDCG@10", "AP", "P@10"], qrels=qrels)
    rel = run.ireval.evaluate(["nDCG@10", "AP", "P@10"], qrels=qrels).ireval.reliability()
    assert list(rel["measure"]) == ["nDCG@10", "AP", "P@10"]
    matrix = scores[scores["measure"] == "AP"].pivot(index="system", columns="query", values="value").to_numpy()
    tab = anova_table(matrix.T)
    assert rel["ms_system"].iloc[1] == pytest.approx(float(tab["ms_system"]), rel=1e-12)


def test_phi_interval_defined_when_the_sample_icc_is_not_positive():
    # found by hypothesis: MS_system < MS_residual made Satterthwaite's df undefined (NaN limit)
    x = np.array([[-0.68913986, 0.70350229], [0.06209422, -0.25641229], [0.06016865, -0.01210417]])
    row = pdireval.reliability(frame_of(x)).iloc[0]
    assert row["phi"] == 0.0
    assert row["phi_ci_low"] == 0.0 and 0.0 <= row["phi_ci_high"] <= 1.0
