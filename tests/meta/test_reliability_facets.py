"""Three-facet generalizability theory: system x query x judge (or seed), fully crossed.

The variance components are checked against statsmodels' ANOVA table with the expected
mean-square equations written out here (Brennan 2001, Table 3.3), recovered on simulated
data with known components, and equal the two-facet study when there is one judge.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import OptionError, SchemaError

EFFECTS = ("system", "query", "judge", "system_query", "system_judge", "query_judge", "residual")
SD = {"system": 0.3, "query": 0.5, "judge": 0.2, "system_query": 0.25, "system_judge": 0.1,
      "query_judge": 0.15, "residual": 0.2}


def simulate(n_s=8, n_t=30, n_j=4, *, seed=0, reps=1, facet="judge", sd=SD):
    """Scores of the crossed random-effects model with the given standard deviations, one
    replicate per value of a ``rep`` column (when reps > 1)."""
    gen = np.random.default_rng(seed)
    shape = (reps, n_t, n_s, n_j)

    def draw(key, dims):
        size = [reps] + [n if d else 1 for n, d in zip((n_t, n_s, n_j), dims)]
        return gen.normal(0.0, sd[key], size)

    x = (draw("system", (0, 1, 0)) + draw("query", (1, 0, 0)) + draw("judge", (0, 0, 1))
         + draw("system_query", (1, 1, 0)) + draw("system_judge", (0, 1, 1))
         + draw("query_judge", (1, 0, 1)) + draw("residual", (1, 1, 1)))
    r, t, s, j = np.indices(shape)
    frame = pd.DataFrame({"system": [f"s{v:02d}" for v in s.ravel()],
                          "query": [f"q{v:03d}" for v in t.ravel()],
                          facet: [f"j{v}" for v in j.ravel()], "measure": "m",
                          "value": x.ravel()})
    if reps > 1:
        frame.insert(3, "rep", r.ravel())
    return frame


def ems_components(frame: pd.DataFrame) -> dict:
    """Independent computation: statsmodels' sequential ANOVA of the crossed model (the
    three-way interaction is the residual) and the expected mean-square equations."""
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    fit = smf.ols("value ~ C(system) + C(query) + C(judge) + C(system):C(query) + "
                  "C(system):C(judge) + C(query):C(judge)", data=frame).fit()
    table = anova_lm(fit, typ=1)
    ms = (table["sum_sq"] / table["df"]).to_dict()
    n_s, n_t, n_j = (frame[c].nunique() for c in ("system", "query", "judge"))
    res = ms["Residual"]
    st, sj, tj = ms["C(system):C(query)"], ms["C(system):C(judge)"], ms["C(query):C(judge)"]
    return {
        "residual": res,
        "system_query": (st - res) / n_j,
        "system_judge": (sj - res) / n_t,
        "query_judge": (tj - res) / n_s,
        "system": (ms["C(system)"] - st - sj + res) / (n_t * n_j),
        "query": (ms["C(query)"] - st - tj + res) / (n_s * n_j),
        "judge": (ms["C(judge)"] - sj - tj + res) / (n_s * n_t),
        "ss": table["sum_sq"].to_dict(),
    }


def test_components_equal_statsmodels_anova_and_the_ems_equations():
    frame = simulate(n_s=6, n_t=12, n_j=3, seed=1)
    ours = pdireval.reliability(frame, facets=("query", "judge"), negative_components="keep").iloc[0]
    ref = ems_components(frame)
    for e in EFFECTS:
        assert ours[f"var_{e}"] == pytest.approx(ref[e], rel=1e-9, abs=1e-12), e
    assert ours["ss_system"] == pytest.approx(ref["ss"]["C(system)"], rel=1e-9)
    assert ours["ss_residual"] == pytest.approx(ref["ss"]["Residual"], rel=1e-9)
    # the coefficients from the components (Brennan 2001, Section 4.2), written out
    v = {e: max(ref[e], 0.0) for e in EFFECTS}
    clipped = pdireval.reliability(frame, facets=("query", "judge"), n_queries=50, n_judges=2)
    rel_err = v["system_query"] / 50 + v["system_judge"] / 2 + v["residual"] / 100
    abs_err = rel_err + v["query"] / 50 + v["judge"] / 2 + v["query_judge"] / 100
    assert clipped["e_rho2"].iloc[0] == pytest.approx(v["system"] / (v["system"] + rel_err))
    assert clipped["phi"].iloc[0] == pytest.approx(v["system"] / (v["system"] + abs_err))


def test_known_components_are_recovered_within_sampling_error():
    reps = 60
    frame = simulate(n_s=10, n_t=20, n_j=4, seed=2, reps=reps)
    est = pdireval.reliability(frame, facets=("query", "judge"), negative_components="keep")
    assert len(est) == reps  # one row per replicate (rep is a grouping key)
    for e in EFFECTS:
        values = est[f"var_{e}"].to_numpy()
        se = values.std(ddof=1) / np.sqrt(reps)
        # the ANOVA estimators are unbiased: the mean over replicates is the truth
        assert abs(values.mean() - SD[e] ** 2) <= 4 * se, (e, values.mean(), SD[e] ** 2, se)


def test_one_judge_equals_the_two_facet_study():
    frame = simulate(n_s=7, n_t=15, n_j=1, seed=3)
    three = pdireval.reliability(frame, facets=("query", "judge"), target=0.8).iloc[0]
    two = pdireval.reliability(frame.drop(columns="judge"), target=0.8).iloc[0]
    for c in ("var_system", "var_query", "var_residual", "phi", "e_rho2", "queries_needed",
              "ss_system", "ms_query", "df_residual"):
        assert three[c] == pytest.approx(two[c], rel=1e-12), c
    for c in ("var_judge", "var_system_judge", "var_query_judge", "var_system_query"):
        assert np.isnan(three[c])
    # projecting to more judges needs the judge components: undefined with one judge
    more = pdireval.reliability(frame, facets=("query", "judge"), n_judges=3)
    assert np.isnan(more["phi"].iloc[0])


def test_d_study_grid_and_queries_needed():
    frame = simulate(n_s=8, n_t=25, n_j=3, seed=4)
    grid = pdireval.d_study(frame, [5, 25, 100], facets=("query", "judge"), n_judges=[1, 3, 6])
    assert list(grid.columns) == ["measure", "n_queries", "n_judges", "phi", "e_rho2"]
    assert len(grid) == 9
    phi = grid.pivot(index="n_queries", columns="n_judges", values="phi").to_numpy()
    assert (np.diff(phi, axis=0) > 0).all() and (np.diff(phi, axis=1) > 0).all()
    at = pdireval.reliability(frame, facets=("query", "judge"), n_queries=25, n_judges=3)
    row = grid[(grid["n_queries"] == 25) & (grid["n_judges"] == 3)]
    assert row["phi"].iloc[0] == pytest.approx(at["phi"].iloc[0])
    default = pdireval.d_study(frame, [25], facets=("query", "judge"))
    assert default["n_judges"].tolist() == [3.0]
    # queries needed: the smallest n' reaching the target, checked against the grid
    for n_j in (1, 2, 4):
        rel = pdireval.reliability(frame, facets=("query", "judge"), n_judges=n_j, target=0.8)
        need = rel["queries_needed"].iloc[0]
        if np.isfinite(need):
            sizes = pdireval.d_study(frame, [need - 1, need], facets=("query", "judge"),
                                     n_judges=n_j)["phi"].to_numpy()
            assert sizes[1] >= 0.8 > sizes[0] or need == 1
        else:  # unreachable: even many queries stay below the target
            far = pdireval.d_study(frame, [1e9], facets=("query", "judge"), n_judges=n_j)
            assert far["phi"].iloc[0] < 0.8


def test_seed_facet_is_the_same_design():
    frame = simulate(n_s=5, n_t=10, n_j=3, seed=5, facet="seed")
    seeds = pdireval.reliability(frame, facets=("query", "seed"), n_seeds=2)
    judges = pdireval.reliability(frame.rename(columns={"seed": "judge"}),
                                  facets=("query", "judge"), n_judges=2)
    assert seeds["var_seed"].iloc[0] == judges["var_judge"].iloc[0]
    assert seeds["phi"].iloc[0] == judges["phi"].iloc[0]
    assert "share_system_seed" in seeds.columns


def test_unbalanced_and_bad_options_are_clear_errors():
    frame = simulate(n_s=4, n_t=6, n_j=3, seed=6)
    holes = frame.drop(index=[0, 5])
    with pytest.raises(SchemaError, match="unbalanced.*2 of 72 cells"):
        pdireval.reliability(holes, facets=("query", "judge"))
    with pytest.raises(SchemaError, match="needs a 'judge' column"):
        pdireval.reliability(frame.drop(columns="judge").drop_duplicates(["system", "query"]),
                             facets=("query", "judge"))
    with pytest.raises(OptionError, match="facets must be one of"):
        pdireval.reliability(frame, facets=("judge",))
    with pytest.raises(OptionError, match="n_seeds= sizes the 'seed' facet"):
        pdireval.reliability(frame, facets=("query", "judge"), n_seeds=3)
    with pytest.raises(OptionError, match="n_judges= sizes the 'judge' facet"):
        pdireval.d_study(frame.drop(columns="judge").drop_duplicates(["system", "query"]), [5],
                         n_judges=[2])


def test_multi_judge_evaluation_feeds_the_three_facet_study():
    run, qrels = pdireval.datasets.simulate(n_systems=5, n_queries=10, depth=30, rng=8)
    gen = np.random.default_rng(8)
    multi = pd.concat([qrels.assign(label=np.clip(qrels["label"] + gen.integers(-1, 2, len(qrels)),
                                                  0, 2), judge=f"j{i}") for i in range(3)])
    scores = pdireval.evaluate(run, ["AP", "nDCG@10"], qrels=multi)
    rel = pdireval.reliability(scores, facets=("query", "judge"))
    assert rel["measure"].tolist() == ["AP", "nDCG@10"]
    assert (rel["n_judges_observed"] == 3).all()
    shares = rel[[c for c in rel.columns if c.startswith("share_")]].sum(axis=1)
    assert np.allclose(shares, 1.0)
