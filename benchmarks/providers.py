"""Benchmark: the ir_measures-provider measures (C/W/L, Compat, Accuracy, set, diversity).

    python benchmarks/providers.py            # full size (a few minutes)
    python benchmarks/providers.py --small    # 10x smaller, a quick check

Part 1 — cost per measure on the 7M-row run (``_data.msmarco_like``: 7,000 queries x 1,000
documents, one system), and on the TREC-shaped 5M-row run (``_data.trec_like``). The run is prepared once (``pdireval.evaluation.prepare``: validation,
ordering, the qrels join; its time is reported for scale), then each measure's kernel is
timed on the prepared segments with every cache cleared before each call (so nDCG@10 pays
for its ideal DCG and the diversity measures for their greedy ideal each time). The target
(issue 14) is a cost within 2x of nDCG@10's.

Part 2 — the diversity measures against ndeval (pyndeval, ndeval's C code) on a
diversity-shaped collection (``pdireval.datasets.simulate_diversity``: per-subtopic graded
qrels, TREC Web track shape). Both compute the same 21 numbers per query that ndeval prints
(ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG, P-IA, strec at 5/10/20, NRBP, nNRBP, MAP-IA), from
the same DataFrames: pdireval with ``evaluate(run, measures, qrels=qrels)`` (validation
included); pyndeval with its ``RelevanceEvaluator`` built once from the qrels rows, then
``evaluate`` per system on ``(query, doc, score)`` tuples (the DataFrame -> tuples
conversion is included: it is what a pandas user must do). Wall clock, median of
``--repeat`` calls after one warm-up. The machine is shared: the load average is recorded.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

KERNEL_MEASURES = [
    "nDCG@10",
    "nDCG",
    "AP",
    "INSQ",
    "INST",
    "BPM@10",
    "SDCG@10",
    "NERR8@10",
    "NERR9@10",
    "NERR10",
    "NERR11",
    "Compat",
    "Accuracy",
    "SetP(relative=true)",
    "alpha_nDCG@10",
    "ERR_IA@10",
    "nNRBP",
    "AP_IA",
]
NDEVAL = {}
for _k in (5, 10, 20):
    for _ours, _theirs in (("ERR_IA", "ERR-IA"), ("nERR_IA", "nERR-IA"), ("alpha_DCG", "alpha-DCG"), ("alpha_nDCG", "alpha-nDCG"), ("P_IA", "P-IA"), ("StRecall", "strec")):
        NDEVAL[f"{_ours}@{_k}"] = f"{_theirs}@{_k}"
NDEVAL.update({"NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "MAP-IA"})


NOTES = """## Notes

* Where the 2x-of-nDCG@10 target is missed: the whole-list measures read every judged hit of
  the 1,000 ranks (INST reads its trigamma values off per-call tables for integer labels,
  NERR8-11 read hits only up to a list's first full gain); alpha_nDCG@10 and nNRBP include the greedy
  ideal, recomputed here on every call because the caches are cleared, while `evaluate`
  computes it once per (rel, alpha) for all systems and measures of a call.
* Timings on this shared 2-core machine vary by up to 2-4x between runs with the load; the
  ratios in one table come from the same run.
"""


def timed(call, repeat: int) -> float:
    call()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def kernel_costs(small: bool, repeat: int, which: str) -> tuple[list[str], dict]:
    from _data import msmarco_like, trec_like

    from pdireval.evaluation import prepare
    from pdireval.measures import compute, parse_measure

    if which == "msmarco":
        run, qrels = msmarco_like(n_queries=700 if small else 7000)
    else:
        run, qrels = trec_like(n_systems=10 if small else 100)
    start = time.perf_counter()
    prepared = prepare(run, qrels=qrels)
    prep = time.perf_counter() - start
    segments = prepared.segments

    def call(measure):
        def go():
            segments.cache.clear()
            segments.judgments.cache.clear()
            return compute(segments, measure)

        return go

    costs = {m: timed(call(parse_measure(m)), repeat) for m in KERNEL_MEASURES}
    base, whole = costs["nDCG@10"], costs["nDCG"]
    lines = [
        f"Run: {len(run):,} rows, {segments.n_segments:,} segments, {len(segments.hit_seg):,} judged hits; "
        f"prepare (validation, ordering, qrels join, once per run): {prep:.2f} s.",
        "",
        "| measure | kernel time (ms) | ratio to nDCG@10 | ratio to nDCG (whole list) |",
        "|---|---:|---:|---:|",
    ]
    lines += [f"| {m} | {1000 * t:.2f} | {t / base:.2f} | {t / whole:.2f} |" for m, t in costs.items()]
    return lines, costs


def diversity_vs_ndeval(small: bool, repeat: int) -> list[str]:
    import pyndeval

    import pdireval
    from pdireval.datasets import simulate_diversity

    n_systems = 5 if small else 30
    run, qrels = simulate_diversity(n_systems=n_systems, n_queries=50, depth=1000, pool_depth=20, rng=1)
    measures = list(NDEVAL)

    def ours():
        return pdireval.evaluate(run, measures, qrels=qrels)

    def theirs():
        judged = list(zip(qrels["query"], qrels["subtopic"], qrels["doc"], qrels["label"].astype(int)))
        evaluator = pyndeval.RelevanceEvaluator(judged, list(NDEVAL.values()))
        out = {}
        for system, frame in run.groupby("system", sort=False):
            out[system] = evaluator.evaluate(list(zip(frame["query"], frame["doc"], frame["score"])))
        return out

    t_ours, t_theirs = timed(ours, repeat), timed(theirs, repeat)
    # the numbers agree (tests/measures/test_diversity.py checks them per query at 1e-9)
    mine = ours().set_index(["system", "query", "measure"])["value"]
    other = theirs()
    worst = max(
        abs(mine[(s, q, m)] - other[s][q][NDEVAL[m]]) for s in other for q in other[s] for m in NDEVAL
    )
    return [
        f"Collection: {n_systems} systems x 50 queries x 1,000 documents ({len(run):,} run rows), "
        f"{len(qrels):,} (query, subtopic, doc) judgments, {qrels.groupby('query')['subtopic'].nunique().mean():.1f} subtopics per query.",
        "",
        "| tool | time (s) | ratio |",
        "|---|---:|---:|",
        f"| pdireval `evaluate` (21 measures, validation included) | {t_ours:.2f} | 1.00 |",
        f"| pyndeval (ndeval's C code; qrels once, runs as tuples) | {t_theirs:.2f} | {t_theirs / t_ours:.2f} |",
        "",
        f"Largest per-query difference between the two: {worst:.1e}.",
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=str(HERE / "results" / "providers.md"))
    args = parser.parse_args()
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"] * 3
    import pyndeval  # noqa: F401

    part1, _ = kernel_costs(args.small, args.repeat, "msmarco")
    part1b, _ = kernel_costs(args.small, args.repeat, "trec")
    part2 = diversity_vs_ndeval(args.small, args.repeat)
    load_after = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else ["?"] * 3
    text = "\n".join(
        [
            "# ir_measures-provider measures: cost per measure and diversity vs ndeval",
            "",
            f"`python benchmarks/providers.py{' --small' if args.small else ''} --repeat {args.repeat}`; "
            f"Python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} cores "
            f"(shared); load average {' '.join(load)} before, {' '.join(load_after)} after. "
            "Times are medians of the repeats after a warm-up.",
            "",
            "## Cost per measure on the 7M-row run (kernel on prepared segments)",
            "",
            *part1,
            "",
            "The MS MARCO-shaped run has about one judged document per query, so every kernel",
            "here is a handful of numpy calls over ~7,000 segments and the ratios measure fixed",
            "per-call overheads (extra passes, the greedy ideal's setup) more than per-document",
            "work. The TREC-shaped collection (``_data.trec_like``: 100 systems x 50 queries x",
            "1,000 documents, graded labels, about half the rows judged) has ~470 judged hits per",
            "segment and shows the per-hit cost. Measures without a cut-off read every judged hit",
            "of the list, nDCG@10 only those in the top 10, so the fair baseline for them is nDCG",
            "(whole list), the last column:",
            "",
            "## Cost per measure on the TREC-shaped run (5M rows, graded, pooled)",
            "",
            *part1b,
            "",
            "## Diversity measures: pdireval vs ndeval (pyndeval)",
            "",
            *part2,
            "",
            NOTES,
        ]
    )
    print(text)
    Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
