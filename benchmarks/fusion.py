"""Benchmark: rank fusion of 10 runs x 7,000 queries, pdireval.fuse vs ranx.fuse side by side.

Run from the repository root:  python benchmarks/fusion.py [--small]  (writes
benchmarks/results/fusion.md). The workload (issue 15): 10 systems, 7,000 queries, 100
documents per list drawn from a pool of 300 candidates per query (so lists overlap as TREC
runs do), strictly decreasing scores without ties (even at float32 precision), each list
sorted by score as a TREC run file is — 7M rows. For every method the fused scores of both tools are compared (max |difference|),
so the table only times runs that give the same numbers.

* pdireval: ``pdireval.fuse(frame, method, ...)`` from the pandas frame, validation included.
* ranx: ``ranx.fuse(runs, norm=..., method=...)`` on ``ranx.Run`` objects built beforehand
  (``Run.from_df`` once per system, timed separately and reported), after one warm-up call on
  a small input so numba's compilation is not timed.

Timings are the best of ``--repeat`` calls (wall clock).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pdireval  # noqa: E402

#: (pdireval method, its keyword options, ranx method, ranx norm, ranx params)
CASES = [
    ("rrf", {"k": 60}, "rrf", None, {"k": 60}),
    ("combsum", {}, "sum", "min-max", {}),
    ("combmnz", {}, "mnz", "min-max", {}),
    ("combsum", {"norm": "zmuv", "weights": [0.05, 0.15] * 5}, "wsum", "zmuv", {"weights": [0.05, 0.15] * 5}),
    ("combmed", {}, "med", "min-max", {}),
    ("isr", {}, "isr", None, {}),
    ("borda", {}, "bordafuse", None, {}),
    ("rbc", {"phi": 0.9}, "rbc", None, {"phi": 0.9}),
]


def make_runs(n_systems, n_queries, depth, pool, seed=0):
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(n_queries), depth)
    frames = []
    for s in range(n_systems):
        picks = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :depth].ravel()
        # strictly decreasing scores with gaps >= 0.01: no ties even at float32 precision, so
        # trec_eval's float32 comparison (pdireval) and ranx's float64 sort read the same order
        gaps = 0.01 + rng.exponential(0.05, size=(n_queries, depth))
        score = (10.0 - np.cumsum(gaps, axis=1) + rng.normal(0, 1, size=(n_queries, 1))).ravel()
        frame = pd.DataFrame({"query": q, "pick": picks, "score": score})
        frames.append(pd.DataFrame({
            "system": f"run{s:02d}",
            "query": frame["query"].astype(str).to_numpy(),
            "doc": ("d" + (frame["query"] * pool + frame["pick"]).astype(str)).to_numpy(),
            "score": frame["score"].to_numpy(),
        }))
    run = pd.concat(frames, ignore_index=True)
    for col in ("system", "query", "doc"):
        run[col] = run[col].astype("string[pyarrow]")
    return run


def best_of(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--small", action="store_true", help="700 queries instead of 7,000")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    import ranx

    n_queries = 700 if args.small else 7000
    run = make_runs(10, n_queries, 100, 300)
    load_before = os.getloadavg()
    t = time.perf_counter()
    ranx_runs = []
    for system, group in run.groupby("system", sort=True, observed=True):
        df = pd.DataFrame({"q_id": group["query"].astype(object), "doc_id": group["doc"].astype(object),
                           "score": group["score"].astype(np.float64)})
        ranx_runs.append(ranx.Run.from_df(df, q_id_col="q_id", doc_id_col="doc_id", score_col="score", name=str(system)))
    build = time.perf_counter() - t
    small = [ranx.Run({"q": {"a": 1.0, "b": 0.5}}), ranx.Run({"q": {"a": 0.2, "c": 0.9}})]
    for _, _, rm, norm, params in CASES:  # numba compilation, not timed
        ranx.fuse(small, norm=norm, method=rm, params={k: (v[:2] if k == "weights" else v) for k, v in params.items()})
    rows = []
    for method, options, rm, norm, params in CASES:
        t_ours, ours = best_of(lambda method=method, options=options: pdireval.fuse(run, method, **options), args.repeat)
        t_ranx, theirs = best_of(lambda norm=norm, rm=rm, params=params: ranx.fuse(ranx_runs, norm=norm, method=rm, params=params), args.repeat)
        ref = theirs.to_dict()
        expected = np.array([ref[q][d] for q, d in zip(ours["query"].astype(str), ours["doc"].astype(str))])
        diff = float(np.max(np.abs(expected - ours["score"].to_numpy())))
        label = f"`fuse(runs, {method!r}{''.join(f', {k}={v!r}' for k, v in options.items() if k != 'weights')}{', weights=[...]' if 'weights' in options else ''})`"
        rows.append((label, f"`{rm}`, norm={norm}", t_ours, t_ranx, diff))
        print(label, round(t_ours, 2), round(t_ranx, 2), diff, flush=True)
    load_after = os.getloadavg()
    import numba

    lines = [
        "# Fusion: pdireval.fuse vs ranx.fuse",
        "",
        f"Workload: 10 runs x {n_queries:,} queries x 100 documents ({len(run):,} rows; 300 candidates per "
        "query, so the union U of a query has about 290 documents), generated by `benchmarks/fusion.py` "
        f"{'--small ' if args.small else ''}(seeded). Best of {args.repeat} calls, wall clock.",
        "",
        "| pdireval | ranx method | pdireval (s) | ranx (s) | ranx / pdireval | max abs. difference of the fused scores |",
        "|---|---|---|---|---|---|",
    ]
    for label, rm, a, b, diff in rows:
        lines.append(f"| {label} | {rm} | {a:.2f} | {b:.2f} | {b / a:.2f}x | {diff:.1e} |")
    lines += [
        "",
        f"ranx needs its `Run` objects first: `Run.from_df` for the 10 systems took {build:.1f} s (not in the "
        "ranx column); pdireval reads the pandas frame directly (its validation is in the pdireval column).",
        "",
        "What limits pdireval: the doc-id work on 7M strings (hashing in the run validation, sorting the "
        "distinct ids for trec_eval's tie order, building the output's string columns) and one sort of U "
        "by fused score per query; the fusion arithmetic itself is a few `np.bincount` passes. ranx runs "
        "numba-compiled per-query dictionaries in parallel threads.",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores shared with other jobs; load average "
        f"before {load_before[0]:.1f}, after {load_after[0]:.1f}. Python {platform.python_version()}, "
        f"numpy {np.__version__}, pandas {pd.__version__}, ranx {_version('ranx')}, numba {numba.__version__}.",
    ]
    out = Path(args.out) if args.out else ROOT / "benchmarks" / "results" / ("fusion-small.md" if args.small else "fusion.md")
    out.write_text("\n".join(lines) + "\n")
    print(out)


def _version(name):
    from importlib.metadata import version

    return version(name)


if __name__ == "__main__":
    main()
