"""pdireval.reproducibility against the repro-eval package (Breuer et al. 2020) on the same files."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pdireval
from pdireval.errors import OptionError, SchemaError

MEASURES = ["AP", "nDCG", "P@10"]


@pytest.fixture(scope="module")
def experiment():
    """Original baseline/advanced runs and noisy reproductions of them (distinct scores)."""
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=30, depth=60, score_decimals=None, rng=8)
    names = sorted(run["system"].unique())
    original = run[run["system"].isin(names[:2])].copy()
    original["system"] = original["system"].map({names[0]: "base", names[1]: "adv"})
    rng = np.random.default_rng(1)
    reproduced = original.copy()
    reproduced["score"] = reproduced["score"] + rng.normal(0, 2.0, len(reproduced))
    # a few documents swapped for others (repro_eval needs lists of equal length)
    swap = rng.random(len(reproduced)) < 0.05
    reproduced.loc[swap, "doc"] = [f"other-{i}" for i in range(int(swap.sum()))]
    return original.reset_index(drop=True), reproduced.reset_index(drop=True), qrels


def _write(frame, path, system):
    part = frame[frame["system"] == system].sort_values(["query", "score"], ascending=[True, False])
    pdireval.write_run(part, path)


def _repro_eval(experiment, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # repro_eval imports scipy.stats.stats (deprecated)
        evaluator = pytest.importorskip("repro_eval.Evaluator")
    original, reproduced, qrels = experiment
    paths = {}
    for label, frame in (("orig", original), ("rep", reproduced)):
        for system in ("base", "adv"):
            paths[label, system] = tmp_path / f"{label}_{system}.txt"
            _write(frame, paths[label, system], system)
    qrels_path = tmp_path / "qrels.txt"
    pdireval.write_qrels(qrels, qrels_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rpd = evaluator.RpdEvaluator(
            qrels_orig_path=str(qrels_path),
            run_b_orig_path=str(paths["orig", "base"]), run_a_orig_path=str(paths["orig", "adv"]),
            run_b_rep_path=str(paths["rep", "base"]), run_a_rep_path=str(paths["rep", "adv"]))
        rpd.trim()
        rpd.evaluate()
        return {
            "ktu": rpd.ktu(), "rbo": rpd.rbo(), "rmse": rpd.rmse(), "er": rpd.er(),
            "dri": rpd.dri(), "ttest": rpd.ttest(),
        }


def test_matches_repro_eval(experiment, tmp_path):
    ref = _repro_eval(experiment, tmp_path)
    original, reproduced, qrels = experiment
    res = pdireval.reproducibility(original, reproduced, qrels=qrels, measures=MEASURES, baseline="base")
    got = res.set_index(["system", "statistic", "measure"])["value"]
    role = {"base": "baseline", "adv": "advanced"}
    for system in ("base", "adv"):
        r = role[system]
        assert got[system, "ktu", np.nan] == pytest.approx(ref["ktu"][r], abs=1e-12)
        assert got[system, "rbo", np.nan] == pytest.approx(ref["rbo"][r], abs=1e-12)
        for m in MEASURES:
            assert got[system, "rmse", m] == pytest.approx(ref["rmse"][r][m], abs=1e-12)
            assert got[system, "p_value_paired", m] == pytest.approx(ref["ttest"][r][m], rel=1e-9)
    for m in MEASURES:
        assert got["adv", "effect_ratio", m] == pytest.approx(ref["er"][m], rel=1e-9)
        assert got["adv", "delta_ri", m] == pytest.approx(ref["dri"][m], rel=1e-9, abs=1e-12)


def test_ktu_per_query_matches_scipy_definition(experiment):
    """KTU of one list pair written out: union numbered by doc id, τ of the two sequences."""
    import scipy.stats

    original, reproduced, qrels = experiment
    per_q = pdireval.reproducibility(original, reproduced, qrels=qrels, per_query=True)
    ktu = per_q[per_q["statistic"] == "ktu"].set_index(["system", "query"])["value"]
    for (system, query), value in ktu.head(10).items():
        def ordered(frame, system=system, query=query):
            g = frame[(frame["system"] == system) & (frame["query"] == query)]
            g = g.assign(s32=g["score"].astype(np.float32)).sort_values(["s32", "doc"], ascending=False)
            return list(g["doc"])
        a, b = ordered(original), ordered(reproduced)
        n = min(len(a), len(b))
        union = sorted(set(a) | set(b))
        ref = scipy.stats.kendalltau([union.index(d) for d in a[:n]], [union.index(d) for d in b[:n]]).statistic
        assert value == pytest.approx(ref, abs=1e-12)


def test_identical_reproduction(experiment):
    original, _, qrels = experiment
    res = pdireval.reproducibility(original, original.sample(frac=1.0, random_state=2), qrels=qrels,
                                   measures=MEASURES, baseline="base")
    v = res.set_index(["system", "statistic", "measure"])["value"]
    for system in ("base", "adv"):
        assert v[system, "ktu", np.nan] == pytest.approx(1.0)
        assert v[system, "rbo", np.nan] == pytest.approx(
            # both lists are 60 long: identical prefixes up to 60, then no growth
            sum(0.95 ** (d - 1) * min(d, 60) / d for d in range(1, 1001)) / sum(0.95 ** (d - 1) for d in range(1, 1001)))
        for m in MEASURES:
            assert v[system, "rmse", m] == 0.0
            assert v[system, "p_value_paired", m] == 1.0
    for m in MEASURES:
        assert v["adv", "effect_ratio", m] == pytest.approx(1.0)  # ER = 1 for an identical reproduction
        assert v["adv", "delta_ri", m] == pytest.approx(0.0, abs=1e-15)


def test_replicability_on_another_collection(experiment):
    original, reproduced, qrels = experiment
    res = pdireval.reproducibility(original, reproduced, qrels=qrels, reproduced_qrels=qrels,
                                   measures="AP", baseline="base")
    assert set(res["statistic"]) == {"mean_original", "mean_reproduced", "p_value_unpaired",
                                     "effect_ratio", "delta_ri"}
    import scipy.stats

    s = pdireval.evaluate(original, "AP", qrels=qrels, missing="drop")
    r = pdireval.evaluate(reproduced, "AP", qrels=qrels, missing="drop")
    ref = scipy.stats.ttest_ind(s[s["system"] == "adv"]["value"], r[r["system"] == "adv"]["value"]).pvalue
    got = res[(res["system"] == "adv") & (res["statistic"] == "p_value_unpaired")]["value"].iloc[0]
    assert got == pytest.approx(ref, rel=1e-9)


def test_bad_input(experiment):
    original, reproduced, qrels = experiment
    with pytest.raises(SchemaError, match="different systems"):
        pdireval.reproducibility(original, reproduced[reproduced["system"] == "base"], qrels=qrels)
    with pytest.raises(OptionError, match="baseline"):
        pdireval.reproducibility(original, reproduced, qrels=qrels, baseline="nope")
    with pytest.raises(OptionError, match="depth"):
        pdireval.reproducibility(original, reproduced, qrels=qrels, depth=0)
    with pytest.raises(OptionError, match="per_query"):
        pdireval.reproducibility(original, reproduced, qrels=qrels, reproduced_qrels=qrels, per_query=True)
