"""All-pairs tests on TREC 2003 Robust (17 runs x 100 topics) against scipy, pair by pair."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.stats as st

import pdireval
from pdireval.stats.rank_correlation import kendall_tau

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def robust_scores(robust03):
    run, qrels = robust03
    return pdireval.evaluate(run, ["AP", "P@10"], qrels=qrels)


def test_all_pairs_match_scipy_on_robust03(robust_scores):
    ap = robust_scores[robust_scores.measure == "AP"]
    x = pdireval.core.groups.score_matrix(ap)
    t = pdireval.compare(ap, method="t")
    w = pdireval.compare(ap, method="wilcoxon")
    s = pdireval.compare(ap, method="sign")
    assert len(t) == len(w) == len(s) == 136
    for k, (a, b) in enumerate(itertools.combinations(x.columns, 2)):
        assert (t.system_a[k], t.system_b[k]) == (a, b)
        ref_t = st.ttest_rel(x[a], x[b])
        assert t.p_value[k] == pytest.approx(ref_t.pvalue, rel=1e-9)
        assert t.statistic[k] == pytest.approx(ref_t.statistic, rel=1e-9)
        ref_w = st.wilcoxon(x[a], x[b])  # ties and zeros: scipy's normal approximation path
        assert w.p_value[k] == pytest.approx(ref_w.pvalue, rel=1e-9)
        wins, losses = int((x[a] > x[b]).sum()), int((x[a] < x[b]).sum())
        assert s.p_value[k] == pytest.approx(st.binomtest(wins, wins + losses).pvalue, rel=1e-9)


def test_correlation_and_swap_rate_on_robust03(robust_scores):
    corr = pdireval.correlate(robust_scores, method=["kendall_b", "spearman", "pearson"])
    means = pdireval.aggregate(robust_scores, wide=True)
    ref = {
        "kendall_b": st.kendalltau(means["AP"], means["P@10"]),
        "spearman": st.spearmanr(means["AP"], means["P@10"]),
        "pearson": st.pearsonr(means["AP"], means["P@10"]),
    }
    for row in corr.itertuples():
        assert row.statistic == pytest.approx(ref[row.method].statistic, rel=1e-12)
        assert row.p_value == pytest.approx(ref[row.method].pvalue, rel=1e-9)
    # swap rate between the two measures' rankings equals (1 - tau_a)/2 when untied
    ap = robust_scores[robust_scores.measure == "AP"]
    p10 = robust_scores[robust_scores.measure == "P@10"].assign(measure="AP")
    swaps = pdireval.swap_rate(ap, p10, tied_pairs="keep")
    tau_a = kendall_tau(means["AP"].to_numpy(), means["P@10"].to_numpy(), "a")
    c = int(np.sum([1 for i, j in itertools.combinations(range(17), 2)
                    if (means["AP"][i] - means["AP"][j]) * (means["P@10"][i] - means["P@10"][j]) < 0]))
    assert swaps.n_swaps.item() == c
    if means["P@10"].nunique() == 17:
        assert swaps.swap_rate.item() == pytest.approx((1 - tau_a) / 2)
