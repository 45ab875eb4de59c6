"""Benchmark: generalizability-theory reliability and stability-optimal discounts.

1. ``pdireval.reliability`` on 20 measures x 100 systems x 50 topics (one scores frame),
   against the per-measure fits people write today: statsmodels OLS + ``anova_lm`` (the
   approach of the seed 002 authors' code, here with the correct additive model
   ``value ~ C(system) + C(query)``) and pingouin ``rm_anova``. All three run side by side
   in this process on the same frame; the peers' variance components are checked against
   ours before timing.
2. One optimisation of a 20-rank discount (seed 003) on TREC 2003 Robust (17 runs, 100
   topics): total time, number of Φ evaluations, time per Φ evaluation, and the time of
   one Φ evaluation done the naive way (re-evaluate nDCG@20 with the new discount from the
   prepared run, then ``reliability``).

Run from the repository root: ``python benchmarks/reliability.py`` (writes
benchmarks/results/reliability.md).
"""

from __future__ import annotations

import os

# Single-threaded BLAS for every tool: on a shared 2-core machine a multithreaded BLAS makes
# statsmodels' least squares several times slower (and noisier) than it really is.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pdireval  # noqa: E402
from pdireval.evaluation import prepare  # noqa: E402

MEASURES = [
    "nDCG@5", "nDCG@10", "nDCG@20", "nDCG@100", "nDCG", "P@5", "P@10", "P@20", "P@100",
    "AP", "AP@100", "RR", "Rprec", "R@100", "R@1000", "Bpref", "infAP", "ERR@20",
    "RBP(p=0.8)", "DCG@10",
]


def timed(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, min(times), statistics.median(times)


def statsmodels_all(scores):
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    rows = []
    for m, g in scores.groupby("measure", sort=False):
        table = anova_lm(smf.ols("value ~ C(system) + C(query)", data=g).fit())
        n_s, n_t = g["system"].nunique(), g["query"].nunique()
        ms_s, ms_t, ms_r = (table.loc[k, "mean_sq"] for k in ("C(system)", "C(query)", "Residual"))
        rows.append((m, max((ms_s - ms_r) / n_t, 0), max((ms_t - ms_r) / n_s, 0), ms_r))
    return pd.DataFrame(rows, columns=["measure", "var_system", "var_query", "var_residual"])


def pingouin_all(scores):
    import pingouin as pg

    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m, g in scores.groupby("measure", sort=False):
            aov = pg.rm_anova(g, dv="value", within="system", subject="query", detailed=True)
            n_t = g["query"].nunique()
            ms_s, ms_r = aov.loc[0, "MS"], aov.loc[1, "MS"]
            rows.append((m, max((ms_s - ms_r) / n_t, 0), ms_r))
    return pd.DataFrame(rows, columns=["measure", "var_system", "var_residual"])


def bench_reliability(repeat=5):
    run, qrels = pdireval.datasets.simulate(n_systems=100, n_queries=50, depth=1000, rng=2026)
    scores = pdireval.evaluate(run, MEASURES, qrels=qrels)
    ours, t_ours, m_ours = timed(lambda: pdireval.reliability(scores), repeat)
    sm, t_sm, m_sm = timed(lambda: statsmodels_all(scores), max(1, repeat // 2))
    pg_, t_pg, m_pg = timed(lambda: pingouin_all(scores), max(1, repeat // 2))
    for col in ("var_system", "var_query", "var_residual"):
        np.testing.assert_allclose(ours[col], sm[col], rtol=1e-8, atol=1e-14)
    for col in ("var_system", "var_residual"):
        np.testing.assert_allclose(ours[col], pg_[col], rtol=1e-8, atol=1e-14)
    return {
        "rows": len(scores),
        "ours": (t_ours, m_ours),
        "statsmodels": (t_sm, m_sm),
        "pingouin": (t_pg, m_pg),
    }


def bench_optimize(repeat=3):
    shared = ROOT.parent / "shared" / "data" / "robust03"
    if not shared.exists():
        return None
    run = pdireval.read_run(shared / "runs")
    qrels = pdireval.read_qrels(shared / "qrels.txt")
    t0 = time.perf_counter()
    prepared = prepare(run, qrels=qrels)
    t_prepare = time.perf_counter() - t0
    results = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = pdireval.optimize(prepared, k=20, what="discount")
        results.append((time.perf_counter() - t0, res))
    wall, res = min(results, key=lambda x: x[0])
    row = res.summary.iloc[0]

    # the naive Φ evaluation: recompute nDCG@20 from the prepared run, then reliability
    from pdireval.evaluation import scores_frame

    measure = pdireval.parse_measure(res.measure(20))

    def naive_phi():
        values = prepared.values(measure)
        return pdireval.reliability(scores_frame(prepared.segments, [measure], [values]))["phi"].iloc[0]

    phi_naive, t_naive, _ = timed(naive_phi, 5)
    assert abs(phi_naive - row["phi"]) < 1e-9, (phi_naive, row["phi"])
    return {
        "prepare": t_prepare,
        "precompute_solve": float(row["seconds"]),
        "wall": wall,
        "n_evaluations": int(row["n_evaluations"]),
        "per_eval": float(row["seconds_per_evaluation"]),
        "naive_per_eval": t_naive,
        "phi_start": float(row["phi_start"]),
        "phi": float(row["phi"]),
        "q_start": float(row["queries_needed_start"]),
        "q": float(row["queries_needed"]),
    }


def main():
    import pingouin
    import scipy
    import statsmodels

    rel = bench_reliability()
    opt = bench_optimize()
    ms = lambda s: f"{1000 * s:.1f} ms"  # noqa: E731
    us = lambda s: f"{1e6 * s:.0f} µs"  # noqa: E731
    lines = [
        "# Benchmark: reliability (generalizability theory) and gain/discount optimisation",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {platform.system()}, Python {platform.python_version()}; "
        f"numpy {np.__version__}, pandas {pd.__version__}, scipy {scipy.__version__}, statsmodels {statsmodels.__version__}, "
        f"pingouin {pingouin.__version__}. Generated by `python benchmarks/reliability.py`; times are the best of several "
        "repeats (median in brackets), all tools run side by side in one process on the same data, "
        f"with single-threaded BLAS; load average while running: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (a shared machine).",
        "",
        f"## 1. `reliability` on 20 measures x 100 systems x 50 topics ({rel['rows']:,} score rows)",
        "",
        "| implementation | all 20 measures | per measure | ratio vs pdireval |",
        "|---|---|---|---|",
    ]
    base = rel["ours"][0]
    for name, key in (("pdireval.reliability (closed form, all groups)", "ours"), ("statsmodels OLS + anova_lm, per measure", "statsmodels"), ("pingouin rm_anova, per measure", "pingouin")):
        best, med = rel[key]
        lines.append(f"| {name} | {ms(best)} ({ms(med)}) | {ms(best / 20)} | {best / base:.1f}x |")
    lines += [
        "",
        "Variance components of both peers agree with pdireval's to 1e-8 (checked before timing).",
        "What limits pdireval here is validating the scores frame (string ids, duplicate-key check) and",
        "splitting it into groups; the ANOVA itself is a few vectorised sums over a stacked",
        "(groups x topics x systems) array. statsmodels builds a design matrix with 149 dummy columns and",
        "solves least squares per measure; pingouin pivots and runs its generic ANOVA per measure.",
        "",
    ]
    if opt is None:
        lines += ["## 2. Discount optimisation on Robust 2003", "", "Skipped: ../shared/data/robust03 is absent.", ""]
    else:
        lines += [
            "## 2. One optimisation of a 20-rank discount on TREC 2003 Robust (17 runs x 100 topics)",
            "",
            "`pdireval.optimize(prepared, k=20, what=\"discount\")`: linear gains 0/1/2 fixed, simplex +",
            "non-increasing constraints, SLSQP from the normalised log2 discount.",
            "",
            "| step | time |",
            "|---|---|",
            f"| `prepare(run, qrels)` (once; validation, ordering, judged-hit join of 1.5 M rows) | {opt['prepare']:.2f} s |",
            f"| whole `optimize` call (precomputation, SLSQP, comparison with log2/zipf/linear) | {ms(opt['wall'])} |",
            f"| of which SLSQP with its Φ evaluations | {ms(opt['precompute_solve'])} |",
            f"| Φ evaluations | {opt['n_evaluations']} |",
            f"| one Φ evaluation, precomputed grade-by-rank indicators | {us(opt['per_eval'])} |",
            f"| one Φ evaluation the naive way (nDCG@20 from the prepared run + `reliability`) | {us(opt['naive_per_eval'])} |",
            f"| ratio | {opt['naive_per_eval'] / opt['per_eval']:.0f}x |",
            "",
            f"Result: Φ(100) {opt['phi_start']:.4f} (log2) → {opt['phi']:.4f} (optimal); topics needed for Φ = 0.95: "
            f"{opt['q_start']:.0f} → {opt['q']:.0f}. The rest of the optimisation's time is SLSQP itself and its",
            "finite-difference gradients (21 Φ evaluations per gradient).",
            "",
        ]
    out = ROOT / "benchmarks" / "results" / "reliability.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
