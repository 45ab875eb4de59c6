"""Benchmark: correlation-vs-completeness curves on TREC 2003 Robust in one call.

16 completeness levels x 10 repeats = 160 subsampled qrels (methods-spec §9.5, mode="unjudged"
so that infAP sees removed judgments as pooled-but-unjudged), 17 runs, six measures (AP, Bpref,
infAP, nDCG, condensed AP and nDCG). Timed side by side in this process:

* pdireval.evaluate_variants (one call: one validation / sort / judged-hit join of the runs,
  each variant derived by masking hits),
* the naive way: pdireval.evaluate once per variant (re-validates and re-joins every time),
* pytrec_eval-terrier once per variant (trec_eval's C code; the dict conversion is counted,
  as a user has to do it).

The per-variant baselines are timed on a subset of variants and extrapolated to 160.
Run from the repository root:  python benchmarks/incomplete.py
"""

from __future__ import annotations

import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pdireval  # noqa: E402

MEASURES = ["AP", "Bpref", "infAP", "nDCG", "AP(judged_only=true)", "nDCG(judged_only=true)"]
SUBSET = 8  # variants timed for the per-variant baselines


def main() -> None:
    load = os.getloadavg()
    root = Path(__file__).resolve().parents[1]
    shared = root.parent / "shared" / "data" / "robust03"
    run = pdireval.read_run(shared / "runs")
    qrels = pdireval.read_qrels(shared / "qrels.txt")

    t0, c0 = time.perf_counter(), time.process_time()
    sub = pdireval.subsample_qrels(qrels, n_resamples=10, rng=2008, mode="unjudged")
    t_sub, c_sub = time.perf_counter() - t0, time.process_time() - c0

    t0, c0 = time.perf_counter(), time.process_time()
    scores = pdireval.evaluate_variants(run, MEASURES, sub)
    t_var, c_var = time.perf_counter() - t0, time.process_time() - c0

    sub_drop = pdireval.subsample_qrels(qrels, n_resamples=10, rng=2008, mode="drop")
    t0, c0 = time.perf_counter(), time.process_time()
    pdireval.evaluate_variants(run, MEASURES, sub_drop)
    t_drop, c_drop = time.perf_counter() - t0, time.process_time() - c0
    del sub_drop

    t0 = time.perf_counter()
    full = pdireval.evaluate(run, MEASURES, qrels=qrels)
    corr = pdireval.completeness_correlation(scores, full, method=["kendall_b", "spearman"])
    t_corr = time.perf_counter() - t0

    keys = sub[["level", "repeat"]].drop_duplicates().reset_index(drop=True)
    pick = keys.iloc[np.linspace(0, len(keys) - 1, SUBSET).round().astype(int)]
    groups = {k: g[["query", "doc", "label"]] for k, g in sub.groupby(["level", "repeat"])}

    t0, c0 = time.perf_counter(), time.process_time()
    for lv, rp in pick.itertuples(index=False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pdireval.evaluate(run, MEASURES, qrels=groups[(lv, rp)])
    t_naive = (time.perf_counter() - t0) / SUBSET * len(keys)
    c_naive = (time.process_time() - c0) / SUBSET * len(keys)

    t_trec = c_trec = float("nan")
    try:
        import pytrec_eval

        trec_measures = {"map", "bpref", "infAP", "ndcg"}  # no condensed lists in trec_eval
        t0, c0 = time.perf_counter(), time.process_time()
        run_dict: dict = {}
        for system, g in run.groupby("system", sort=False):
            d: dict = {}
            for q, doc, s in zip(g["query"].to_numpy(), g["doc"].to_numpy(), g["score"].to_numpy()):
                d.setdefault(q, {})[doc] = float(s)
            run_dict[system] = d
        t_conv, c_conv = time.perf_counter() - t0, time.process_time() - c0
        t0, c0 = time.perf_counter(), time.process_time()
        for lv, rp in pick.itertuples(index=False):
            g = groups[(lv, rp)]
            qd: dict = {}
            lab = g["label"].to_numpy()
            for q, doc, v in zip(g["query"].to_numpy(), g["doc"].to_numpy(), lab):
                qd.setdefault(q, {})[doc] = -1 if np.isnan(v) else int(v)
            ev = pytrec_eval.RelevanceEvaluator(qd, trec_measures)
            for d in run_dict.values():
                ev.evaluate(d)
        t_trec = (time.perf_counter() - t0) / SUBSET * len(keys) + t_conv
        c_trec = (time.process_time() - c0) / SUBSET * len(keys) + c_conv
    except ImportError:  # pragma: no cover
        pass

    curve = (corr.groupby(["method", "measure", "level"], sort=False)["statistic"].mean()
             .unstack("level"))
    lines = [
        "# Incomplete judgments: correlation-vs-completeness curves (Robust 2003)",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}"
        + (f", pytrec_eval-terrier {getattr(pytrec_eval, '__version__', '?')}" if "pytrec_eval" in dir() else "")
        + f". Date: {time.strftime('%Y-%m-%d')}. Load average at the start: "
        + f"{load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} (shared machine: other jobs running).",
        "",
        f"Work: {run['system'].nunique()} runs ({len(run):,} rows), {qrels['query'].nunique()} topics, "
        f"{len(qrels):,} judgments; 16 levels x 10 repeats = {len(keys)} qrels variants "
        f"({len(sub):,} rows, mode=\"unjudged\"); {len(MEASURES)} measures "
        f"({', '.join(MEASURES)}); {len(scores):,} per-query scores.",
        "",
        "| step | wall s | CPU s |",
        "|---|---:|---:|",
        f"| `subsample_qrels` (160 variants, §9.5 protocol) | {t_sub:.1f} | {c_sub:.1f} |",
        f"| `evaluate_variants` — one call, all 160 variants | {t_var:.1f} | {c_var:.1f} |",
        f"| `evaluate_variants` on the same draws with `mode=\"drop\"` (kept hits only; infAP = AP) | {t_drop:.1f} | {c_drop:.1f} |",
        f"| `evaluate` on full qrels + `completeness_correlation` (τ_b, ρ) | {t_corr:.1f} | |",
        f"| naive: `pdireval.evaluate` once per variant (extrapolated from {SUBSET}) | {t_naive:.1f} | {c_naive:.1f} |",
        f"| pytrec_eval once per variant, 4 measures (map, bpref, infAP, ndcg; extrapolated from {SUBSET}) | {t_trec:.1f} | {c_trec:.1f} |",
        "",
        f"`evaluate_variants` vs per-variant `evaluate`: **{c_naive / c_var:.1f}x** (CPU time); vs "
        f"pytrec_eval: **{c_trec / c_var:.1f}x** (pytrec_eval computes 4 of the 6 measures). CPU time",
        "is the fairer figure on this shared machine (CPU time counts all threads of the process).",
        "",
        "What limits the speed: the kernels themselves. In `mode=\"unjudged\"` every variant keeps",
        "all ~676k judged hits of the runs (removed judgments become NaN labels), so each of the",
        "960 (variant, measure) kernel calls walks the full hit arrays; the join, sort and",
        "validation happen once. `mode=\"drop\"` variants hold only the kept hits and run faster,",
        "but then infAP equals AP (deleted judgments are unpooled documents, methods-spec §9.2).",
        "",
        "Mean over the 10 repeats of the correlation with the full-judgment system ranking:",
        "",
    ]
    for method in ("kendall_b", "spearman"):
        table = curve.loc[method]
        lines.append(f"**{method}**")
        lines.append("")
        lines.append("| measure | " + " | ".join(str(c) for c in table.columns) + " |")
        lines.append("|---|" + "---:|" * len(table.columns))
        for m, row in table.iterrows():
            lines.append(f"| {m} | " + " | ".join(f"{v:.3f}" for v in row.to_numpy()) + " |")
        lines.append("")
    text = "\n".join(lines)
    out = root / "benchmarks" / "results" / "incomplete.md"
    out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
