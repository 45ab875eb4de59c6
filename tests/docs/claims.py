"""The numeric claims of the docs' prose, recomputed from each page's own results.

``CLAIMS[page]`` lists :class:`Claim`s: the sentence as the page states it (it must be in the
page, whitespace aside), the code block after which it is checked (a piece of that block's
code), and a check on the namespace the page's blocks built. tests/docs/test_docs.py runs the
checks while it runs the page, so a change of numbers that contradicts a sentence fails, and
so does a sentence edited away from what is checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass
class Claim:
    after: str  # a piece of the code block after which the claim is checked
    sentence: str  # the claim as the page states it
    check: Callable[[dict], bool]


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _by(frame, key, value, best):
    """Per ``key`` group, the ``measure`` with the max/min ``value``."""
    pick = frame.loc[frame.groupby(key)[value].idxmax() if best == "max" else frame.groupby(key)[value].idxmin()]
    return dict(zip(pick[key], pick["measure"]))


def _spam_share(ns):
    shares = ns["qrels"]["label"].value_counts(normalize=True)
    return 0.035 <= shares.get(-2.0, 0.0) <= 0.045


def _table_2a(ns):
    t = ns["table_2a"]
    return bool((t["below_0"] > 0.5).all() and (t["below_minus_1"] > 0).all())


def _ndcg_min_in_unit_interval(ns):
    v = ns["scores"].loc[ns["scores"]["measure"] == "NDCG_min", "value"]
    return bool(v.min() >= 0 and v.max() <= 1)


def _phi_highest_ndcg0(ns):
    return set(_by(ns["rel"], "k", "phi", "max").values()) == {"NDCG_0"}


def _phi_lowest(ns):
    return _by(ns["rel"], "k", "phi", "min") == {5: "NDCG_min", 10: "NDCG_org", 20: "NDCG_org"}


def _error_lowest_min(ns):
    err = ns["err"]
    big = err[err["n_queries"].isin([20, 40])]
    return all(m == "NDCG_min" for m in _by(big.assign(key=list(zip(big["k"], big["n_queries"]))), "key", "error_rate", "min").values())


def _power_extremes(ns):
    p = ns["power"]
    return set(_by(p, "k", "n_significant", "max").values()) == {"NDCG_0"} and set(_by(p, "k", "n_significant", "min").values()) == {"NDCG_min"}


def _corr(ns, a, b, method):
    return round(float(ns["table"].loc[(a, b), method]), 3)


def _significance_tau(ns):
    t = ns["table"]
    kb = t["kendall_b"]
    cross = [_corr(ns, a, b, "kendall_b") for a, b in
             (("nDCG@10", "AP"), ("nDCG@10", "Bpref"), ("AP", "P@10"), ("P@10", "Bpref"))]
    return (
        _corr(ns, "nDCG@10", "P@10", "kendall_b") == 0.956 and round(float(kb.max()), 3) == 0.956
        and _corr(ns, "AP", "Bpref", "kendall_b") == 0.926
        and (min(cross), max(cross)) == (0.721, 0.809)
    )


def _significance_tau_ap(ns):
    pairs = {("nDCG@10", "AP"): (0.536, 0.721), ("nDCG@10", "Bpref"): (0.588, 0.765),
             ("P@10", "Bpref"): (0.796, 0.809), ("AP", "P@10"): (0.774, 0.765)}
    ok = all((_corr(ns, a, b, "tau_ap"), _corr(ns, a, b, "kendall_b")) == v for (a, b), v in pairs.items())
    gaps = {k: _corr(ns, *k, "kendall_b") - _corr(ns, *k, "tau_ap") for k in pairs}
    return ok and gaps[("nDCG@10", "AP")] > 0.1 and gaps[("nDCG@10", "Bpref")] > 0.1 and \
        abs(gaps[("P@10", "Bpref")]) < 0.02 and abs(gaps[("AP", "P@10")]) < 0.02


def _bounds_v1(ns):
    tau = ns["tau"]
    a = tau["measure_a"] == "nDCG(gain=exp)"
    v1 = tau[a & (tau["measure_b"] == "nDCG(bounds=ul1,gain=exp)")]
    v2 = tau[a & (tau["measure_b"] == "nDCG(bounds=ul2,gain=exp)")]
    uninformative = v2.loc[v2["query_set"] == "uninformative", "statistic"]
    return len(v1) == 3 and bool((v1["statistic"] == 1.0).all()) and len(uninformative) == 1 and float(uninformative.iloc[0]) < 1.0


def _reliability_ratio(ns):
    rel = ns["rel"].set_index("measure")
    ratio = rel["var_query"] / rel["var_system"]
    return (round(float(ratio.min()), 2), ratio.idxmin(), round(float(ratio.max()), 2), ratio.idxmax()) == (2.97, "nDCG", 9.22, "nDCG@5")


def _incomplete_gap(ns):
    bm25 = ns["bm25"]
    t = bm25[bm25.eval_measure == "AP"].pivot_table(index="level", columns="train_measure", values="value", sort=False)
    low = t.loc[[x for x in t.index if x <= 5]]
    gap = max((low["infAP"] - low["AP"]).abs().max(), (low["nDCG"] - low["AP"]).abs().max())
    return bool(0.0025 <= gap < 0.0026 and (low["infAP"] > low["AP"]).all() and (low["nDCG"] > low["AP"]).all())


def _incomplete_bpref(ns):
    bm25 = ns["bm25"]
    t = bm25[bm25.eval_measure == "AP"].pivot_table(index="level", columns="train_measure", values="value", sort=False)
    low = t.loc[[x for x in t.index if x <= 5]]
    worse = low.index[low["Bpref"] < low["AP"]].tolist()
    return len(low) == 5 and sorted(set(low.index) - set(worse)) == [3]


def _information_top(ns):
    import pdireval

    run, top, qrels = ns["run"], ns["top"], ns["qrels"]
    full = pdireval.evaluate(run, "nDCG@100", qrels=qrels)
    cut = pdireval.evaluate(top, "nDCG@100", qrels=qrels)
    counts = top.groupby(["system", "query"]).size()
    return bool(counts.max() <= 100 and np.allclose(full["value"].to_numpy(), cut["value"].to_numpy(), rtol=0, atol=1e-15))


def _fusion_summary(ns):
    t = ns["summary"]
    bounds = t.loc[["Pareto", "Naive"]]
    algorithms = t.drop(index=["Pareto", "Naive", "Majoritarian"])
    least = t["kendall_tau"].drop(index=["Pareto", "Naive"]).nsmallest(2).index
    return (
        (round(float(bounds["kendall_tau"].min()), 2), round(float(bounds["kendall_tau"].max()), 2)) == (0.86, 0.88)
        and bool((bounds["rmse"].round(2) == 0.08).all())
        and set(least) == {"CombANZ", "Majoritarian"}
        and t.loc["Majoritarian", "rmse"] < algorithms["rmse"].min()
    )


CLAIMS: dict[str, list[Claim]] = {
    "negative-judgments.md": [
        Claim('print(qrels["label"].value_counts(', "about 4% spam labelled −2", _spam_share),
        Claim("table_2a = ", "most topics admit a ranking with a negative NDCG_org, and some one below −1", _table_2a),
        Claim('scores.groupby(["measure", "k"], sort=False)["value"].agg(["min", "mean", "max"])',
              "NDCG_min stays in [0, 1] here", _ndcg_min_in_unit_interval),
        Claim("rel = scores.ireval.reliability()", "NDCG_0 has the highest Φ at every depth", _phi_highest_ndcg0),
        Claim("rel = scores.ireval.reliability()", "NDCG_org has the lowest Φ at k = 10 and 20 (at k = 5 it is NDCG_min)", _phi_lowest),
        Claim("err = scores.ireval.error_rate(", "NDCG_min has the lowest error rate with 20 and 40 queries", _error_lowest_min),
        Claim("power = scores.ireval.discriminative_power(",
              "NDCG_0 has the highest Φ at every depth and tells the most system pairs apart; NDCG_min has the "
              "lowest error rate with 20 and 40 queries but tells the fewest pairs apart", _power_extremes),
    ],
    "significance.md": [
        Claim('corr = pdireval.correlate(scores, method=["kendall_b", "tau_ap", "spearman"])',
              "nDCG@10 and P@10 rank the runs almost identically (τ_b 0.956); AP and Bpref agree with each other "
              "(τ_b 0.926) and less with the early-precision measures (τ_b 0.721 to 0.809)", _significance_tau),
        Claim('corr = pdireval.correlate(scores, method=["kendall_b", "tau_ap", "spearman"])',
              "nDCG@10's τ_AP is well below its τ_b (0.536 vs 0.721, 0.588 vs 0.765: nDCG@10 misorders the runs AP and "
              "Bpref rank highest), while P@10 against Bpref (0.796 vs 0.809) and AP against P@10 (0.774 vs 0.765) "
              "show no such gap", _significance_tau_ap),
    ],
    "bounds.md": [
        Claim('tau = tau[tau["measure_a"].isin(["nDCG(gain=exp)", "AP_S0"])]',
              "V1 ranks the nDCG rankers exactly like nDCG on every query set", _bounds_v1),
    ],
    "reliability.md": [
        Claim("rel = scores.ireval.reliability()",
              "Topics explain three to nine times as much variance as systems (σ²_query / σ²_system from 2.97 for "
              "nDCG to 9.22 for nDCG@5)", _reliability_ratio),
    ],
    "incomplete.md": [
        Claim('bm25 = trained[trained.model == "BM25"]', "are within 0.0026 MAP", _incomplete_gap),
        Claim('bm25 = trained[trained.model == "BM25"]',
              "training by bpref does *worse* than MAP at four of the five levels x ≤ 5 (all but x = 3)", _incomplete_bpref),
    ],
    "information.md": [
        Claim("top = ordered[", "the top 100 documents of every run (in trec_eval's order)", _information_top),
        Claim("summary = points.groupby(", "(Kendall τ 0.86–0.88, RMSE 0.08 bits", _fusion_summary),
        Claim("summary = points.groupby(", "CombANZ and the majoritarian bound least by τ", _fusion_summary),
    ],
}
