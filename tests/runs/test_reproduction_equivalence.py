"""reproducibility(margin=): TOST equivalence of reproduced and original scores."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import pdireval
from pdireval.errors import OptionError


@pytest.fixture(scope="module")
def experiment():
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=25, depth=40,
                                            score_decimals=None, rng=3)
    reproduced = run.copy()
    reproduced["score"] = reproduced["score"] + np.random.default_rng(2).normal(0, 1.0, len(run))
    return run, reproduced, qrels


def test_p_equivalence_is_two_one_sided_ttest_rel(experiment):
    original, reproduced, qrels = experiment
    delta = 0.05
    out = pdireval.reproducibility(original, reproduced, qrels=qrels, measures=["AP"],
                                   margin=delta)
    assert "p_value_paired" in set(out["statistic"])
    so = pdireval.evaluate(original, ["AP"], qrels=qrels, missing="drop")
    sr = pdireval.evaluate(reproduced, ["AP"], qrels=qrels, missing="drop")
    for system in sorted(original["system"].unique()):
        a = so[so.system == system].set_index("query")["value"]
        b = sr[sr.system == system].set_index("query")["value"]
        shared = a.index.intersection(b.index)
        a, b = a.loc[shared], b.loc[shared]
        want = max(stats.ttest_rel(a + delta, b, alternative="greater").pvalue,
                   stats.ttest_rel(a - delta, b, alternative="less").pvalue)
        rows = out[out.system == system].set_index("statistic")["value"]
        assert rows["p_equivalence"] == pytest.approx(want, rel=1e-10)
        assert rows["equivalent"] == float(want < 0.05)


def test_replicability_uses_student_t(experiment):
    original, reproduced, qrels = experiment
    out = pdireval.reproducibility(original, reproduced, qrels=qrels, measures=["P@10"],
                                   reproduced_qrels=qrels, margin=0.1, alpha=0.1)
    so = pdireval.evaluate(original, ["P@10"], qrels=qrels, missing="drop")
    sr = pdireval.evaluate(reproduced, ["P@10"], qrels=qrels, missing="drop")
    system = sorted(original["system"].unique())[0]
    a = so[so.system == system]["value"].to_numpy()
    b = sr[sr.system == system]["value"].to_numpy()
    want = max(stats.ttest_ind(a + 0.1, b, alternative="greater").pvalue,
               stats.ttest_ind(a - 0.1, b, alternative="less").pvalue)
    got = out[(out.system == system) & (out.statistic == "p_equivalence")]["value"].iloc[0]
    assert got == pytest.approx(want, rel=1e-10)


def test_no_margin_no_rows_and_bad_margin(experiment):
    original, reproduced, qrels = experiment
    out = pdireval.reproducibility(original, reproduced, qrels=qrels, measures=["AP"])
    assert "p_equivalence" not in set(out["statistic"])
    with pytest.raises(OptionError, match="margin"):
        pdireval.reproducibility(original, reproduced, qrels=qrels, margin=-0.1)
