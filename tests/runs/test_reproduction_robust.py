"""reproducibility on TREC 2003 Robust runs against repro-eval (reproduction and replication)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pdireval

MEASURES = ["AP", "nDCG", "P@10"]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def experiment(robust03):
    run, qrels = robust03
    original = run[run["system"].isin(["SABIR03BASE", "pircRBa1"])].reset_index(drop=True)
    rng = np.random.default_rng(0)
    noisy = original["score"] * np.exp(rng.normal(0, 0.05, len(original)))
    # scores representable in float32: pdireval orders as trec_eval does (scores compared as C
    # floats), repro_eval by the exact value; the two differ only on scores equal in float32
    reproduced = original.assign(score=noisy.astype(np.float32).astype(np.float64))
    # a replication collection: the same queries, a tenth of the labels changed
    other = qrels.copy()
    flip = rng.random(len(other)) < 0.1
    other.loc[flip, "label"] = 1.0 - np.minimum(other.loc[flip, "label"], 1.0)
    return original, reproduced, qrels, other


def _files(experiment, tmp_path):
    original, reproduced, qrels, other = experiment
    paths = {}
    for label, frame in (("orig", original), ("rep", reproduced)):
        for system in ("SABIR03BASE", "pircRBa1"):
            part = frame[frame["system"] == system].copy()
            part["s32"] = part["score"].astype(np.float32)
            part = part.sort_values(["query", "s32", "doc"], ascending=[True, False, False]).drop(columns="s32")
            paths[label, system] = str(tmp_path / f"{label}_{system}.txt")
            pdireval.write_run(part, paths[label, system])
    for name, frame in (("qrels", qrels), ("other", other)):
        paths[name] = str(tmp_path / f"{name}.txt")
        pdireval.write_qrels(frame, paths[name])
    return paths


def _evaluator():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # repro_eval imports scipy.stats.stats (deprecated)
        return pytest.importorskip("repro_eval.Evaluator")


def test_reproduction_matches_repro_eval(experiment, tmp_path):
    ev = _evaluator()
    paths = _files(experiment, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rpd = ev.RpdEvaluator(qrels_orig_path=paths["qrels"],
                              run_b_orig_path=paths["orig", "SABIR03BASE"], run_a_orig_path=paths["orig", "pircRBa1"],
                              run_b_rep_path=paths["rep", "SABIR03BASE"], run_a_rep_path=paths["rep", "pircRBa1"])
        rpd.trim()
        rpd.evaluate()
        ref = {"ktu": rpd.ktu(), "rbo": rpd.rbo(), "rmse": rpd.rmse(), "er": rpd.er(), "dri": rpd.dri(),
               "ttest": rpd.ttest()}
    original, reproduced, qrels, _ = experiment
    got = pdireval.reproducibility(original, reproduced, qrels=qrels, measures=MEASURES, baseline="SABIR03BASE")
    v = got.set_index(["system", "statistic", "measure"])["value"]
    for system, role in (("SABIR03BASE", "baseline"), ("pircRBa1", "advanced")):
        assert v[system, "ktu", np.nan] == pytest.approx(ref["ktu"][role], abs=1e-12)
        assert v[system, "rbo", np.nan] == pytest.approx(ref["rbo"][role], abs=1e-12)
        for m in MEASURES:
            assert v[system, "rmse", m] == pytest.approx(ref["rmse"][role][m], abs=1e-12)
            assert v[system, "p_value_paired", m] == pytest.approx(ref["ttest"][role][m], rel=1e-8, abs=1e-300)
    for m in MEASURES:
        assert v["pircRBa1", "effect_ratio", m] == pytest.approx(ref["er"][m], rel=1e-9)
        assert v["pircRBa1", "delta_ri", m] == pytest.approx(ref["dri"][m], rel=1e-9)


def test_replication_matches_repro_eval(experiment, tmp_path):
    ev = _evaluator()
    paths = _files(experiment, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rpl = ev.RplEvaluator(qrels_orig_path=paths["qrels"], qrels_rpl_path=paths["other"],
                              run_b_orig_path=paths["orig", "SABIR03BASE"], run_a_orig_path=paths["orig", "pircRBa1"],
                              run_b_rep_path=paths["rep", "SABIR03BASE"], run_a_rep_path=paths["rep", "pircRBa1"])
        rpl.trim()
        rpl.evaluate()
        ref = {"er": rpl.er(), "dri": rpl.dri(), "ttest": rpl.ttest()}
    original, reproduced, qrels, other = experiment
    got = pdireval.reproducibility(original, reproduced, qrels=qrels, reproduced_qrels=other,
                                   measures=MEASURES, baseline="SABIR03BASE")
    v = got.set_index(["system", "statistic", "measure"])["value"]
    for system, role in (("SABIR03BASE", "baseline"), ("pircRBa1", "advanced")):
        for m in MEASURES:
            assert v[system, "p_value_unpaired", m] == pytest.approx(ref["ttest"][role][m], rel=1e-8)
    for m in MEASURES:
        assert v["pircRBa1", "effect_ratio", m] == pytest.approx(ref["er"][m], rel=1e-9)
        assert v["pircRBa1", "delta_ri", m] == pytest.approx(ref["dri"][m], rel=1e-9)
