"""Benchmark: nugget scores of RAG answers (issue 34).

``pdireval.evaluate_nuggets`` on 100 systems x 1,000 queries x 30 nuggets (3,000,000
assignment rows; string ids and labels, as read from files; validation included), with the
nuggets frame (30,000 nuggets, 40% vital) and without it (the importance on every row, as in
nuggetizer's records), all six scores (A, A_strict, V, V_strict, W, W_strict). Side by side:

- nuggetizer's ``calculate_nugget_scores`` called per answer on its own input (one record of
  30 nugget dicts per answer, built before timing), timed on 10 of the 100 systems and
  extrapolated x10 (the whole 3M dicts would take gigabytes); its four scores checked equal;
- the vectorised pandas a user would write: indicator columns, ``groupby(["system",
  "query"]).sum()``, ratios (four scores plus W), checked equal.

``evaluate_support`` on 100 systems x 1,000 queries x 10 sentences x 3 citations (3M rows).

Run from the repository root: ``python benchmarks/nuggets.py`` (``--small``: 10x fewer
queries); writes benchmarks/results/nuggets.md.
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
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pdireval  # noqa: E402

LABELS = np.array(["support", "partial_support", "not_support"])


def ids(prefix: str, values) -> pd.api.extensions.ExtensionArray:
    """Integers -> pandas' default (pyarrow-backed) strings ``prefix + value``."""
    text = pc.cast(pa.array(np.asarray(values, dtype=np.int64)), pa.string())
    return pd.array(pc.binary_join_element_wise(prefix, text, ""), dtype="str")


def collection(n_systems: int, n_queries: int, n_nuggets: int, rng: int = 0):
    gen = np.random.default_rng(rng)
    s = np.repeat(np.arange(n_systems), n_queries * n_nuggets)
    q = np.tile(np.repeat(np.arange(n_queries), n_nuggets), n_systems)
    n = np.tile(np.arange(n_nuggets), n_systems * n_queries)
    vital = gen.random(n_queries * n_nuggets) < 0.4
    importance = np.where(vital, "vital", "okay")
    skill = np.linspace(0.2, 0.7, n_systems)[s]
    draw = gen.random(len(s))
    label = np.where(draw < skill, 0, np.where(draw < skill + 0.1, 1, 2))
    assignments = pd.DataFrame(
        {
            "system": ids("run", s),
            "query": ids("2024-", q),
            "nugget": ids("", n),
            "label": pd.array(LABELS[label], dtype="str"),
        }
    )
    nuggets = pd.DataFrame(
        {
            "query": ids("2024-", np.repeat(np.arange(n_queries), n_nuggets)),
            "nugget": ids("", np.tile(np.arange(n_nuggets), n_queries)),
            "importance": pd.array(importance, dtype="str"),
        }
    )
    with_importance = assignments.assign(
        importance=pd.array(np.tile(importance, n_systems), dtype="str")
    )
    return assignments, nuggets, with_importance


def support_collection(n_systems: int, n_queries: int, rng: int = 1):
    gen = np.random.default_rng(rng)
    per = 10 * 3
    s = np.repeat(np.arange(n_systems), n_queries * per)
    q = np.tile(np.repeat(np.arange(n_queries), per), n_systems)
    sentence = np.tile(np.repeat(np.arange(10), 3), n_systems * n_queries)
    doc = gen.integers(0, 1000, len(s)) * 3 + np.tile(np.arange(3), len(s) // 3)
    label = gen.choice(np.array(["FS", "PS", "NS"]), len(s), p=[0.6, 0.15, 0.25])
    return pd.DataFrame(
        {
            "system": ids("run", s),
            "query": ids("2024-", q),
            "sentence": ids("", sentence),
            "doc": ids("msmarco_v2.1_doc_", doc),
            "label": pd.array(label, dtype="str"),
        }
    )


def timed(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, min(times), statistics.median(times)


def pandas_scores(frame: pd.DataFrame) -> pd.DataFrame:
    """The vectorised pandas of a careful user: indicators, one groupby sum, ratios."""
    sup = (frame["label"] == "support").to_numpy(np.float64)
    part = (frame["label"] == "partial_support").to_numpy(np.float64)
    vital = (frame["importance"] == "vital").to_numpy(np.float64)
    w = np.where(vital == 1.0, 1.0, 0.5)
    score = sup + 0.5 * part
    parts = pd.DataFrame(
        {
            "system": frame["system"],
            "query": frame["query"],
            "n": 1.0,
            "sup": sup,
            "score": score,
            "v": vital,
            "v_sup": sup * vital,
            "v_score": score * vital,
            "w": w,
            "w_score": score * w,
        }
    )
    g = parts.groupby(["system", "query"], sort=True).sum()
    return pd.DataFrame(
        {
            "A": g["score"] / g["n"],
            "A_strict": g["sup"] / g["n"],
            "V": (g["v_score"] / g["v"]).fillna(0.0),
            "V_strict": (g["v_sup"] / g["v"]).fillna(0.0),
            "W": g["w_score"] / g["w"],
        }
    )


def nuggetizer_records(frame: pd.DataFrame):
    """nuggetizer's input: one record per answer with its list of nugget dicts."""
    records = []
    for (system, query), g in frame.groupby(["system", "query"], sort=False):
        nuggets = [
            {"importance": i, "assignment": a}
            for i, a in zip(g["importance"].tolist(), g["label"].tolist())
        ]
        records.append({"run_id": system, "qid": query, "nuggets": nuggets})
    return records


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="10x fewer queries")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    n_systems, n_queries, n_nuggets = 100, 100 if args.small else 1000, 30
    out = args.out or ROOT / "benchmarks" / "results" / (
        "nuggets-small.md" if args.small else "nuggets.md"
    )
    load_before = os.getloadavg()
    assignments, nuggets, with_importance = collection(n_systems, n_queries, n_nuggets)
    rows = len(assignments)
    pdireval.evaluate_nuggets(assignments.head(30), nuggets=nuggets.head(30))  # warm imports

    scores, best, median = timed(
        lambda: pdireval.evaluate_nuggets(assignments, nuggets=nuggets), args.repeat
    )
    scores2, best2, median2 = timed(lambda: pdireval.evaluate_nuggets(with_importance), args.repeat)
    assert scores.equals(scores2)
    mine = scores.pivot(index=["system", "query"], columns="measure", values="value")

    theirs, best_pd, median_pd = timed(lambda: pandas_scores(with_importance), 3)
    diff_pd = max(float(np.max(np.abs(theirs[c].to_numpy() - mine[c].to_numpy()))) for c in theirs)

    # nuggetizer per answer, on 10 of the systems (its own input built first)
    from nuggetizer.core.metrics import calculate_nugget_scores

    subset = with_importance[with_importance["system"].isin([f"run{i}" for i in range(10)])]
    records = nuggetizer_records(subset)

    def run_nuggetizer():
        return [calculate_nugget_scores(r["qid"], r["nuggets"]) for r in records]

    metrics, best_ng, median_ng = timed(run_nuggetizer, 3)
    fields = {"strict_vital_score": "V_strict", "strict_all_score": "A_strict",
              "vital_score": "V", "all_score": "A"}  # fmt: skip
    same = all(
        getattr(m, f) == mine.at[(r["run_id"], r["qid"]), c]
        for r, m in zip(records, metrics)
        for f, c in fields.items()
    )
    assert same, "nuggetizer's numbers differ"
    scale = n_systems / 10

    support = support_collection(n_systems, n_queries)
    _, best_sup, median_sup = timed(lambda: pdireval.evaluate_support(support), args.repeat)
    load_after = os.getloadavg()

    from importlib.metadata import version

    lines = [
        "# Benchmark: nugget and support scores of RAG answers (issue 34)",
        "",
        f"Machine: {platform.machine()}, {platform.system()}, Python "
        f"{platform.python_version()}; numpy {np.__version__}, pandas {pd.__version__}, "
        f"pyarrow {pa.__version__}, nuggetizer {version('nuggetizer')}. Generated by "
        f"`python benchmarks/nuggets.py{' --small' if args.small else ''}`; best of "
        f"{args.repeat} calls (median in brackets), every tool in this process on the same "
        f"data. Load average (1 min) {load_before[0]:.1f} before, {load_after[0]:.1f} after, "
        f"on {os.cpu_count()} cores: a machine shared with other jobs, so times are noisy.",
        "",
        f"## `evaluate_nuggets`: {n_systems} systems x {n_queries:,} queries x {n_nuggets} "
        f"nuggets ({rows:,} assignment rows, string ids and labels)",
        "",
        "| implementation | time | ratio vs pdireval |",
        "|---|---|---|",
        f"| pdireval.evaluate_nuggets(assignments, nuggets=nuggets), 6 scores, validation "
        f"included | {best:.2f} s ({median:.2f} s) | 1.0x |",
        f"| pdireval.evaluate_nuggets(assignments with an importance column), 6 scores | "
        f"{best2:.2f} s ({median2:.2f} s) | {best2 / best:.2f}x |",
        f"| pandas: indicator columns + one groupby sum + ratios (5 scores, no validation) | "
        f"{best_pd:.2f} s ({median_pd:.2f} s) | {best_pd / best:.1f}x |",
        f"| nuggetizer `calculate_nugget_scores` per answer, on its records (built before "
        f"timing), 10 systems timed x{scale:.0f} | ~{best_ng * scale:.1f} s "
        f"({best_ng:.2f} s for {len(records):,} answers) | {best_ng * scale / best:.1f}x |",
        "",
        f"Every one of nuggetizer's four scores equals pdireval's exactly on the {len(records):,} "
        f"answers timed; the pandas scores agree to {diff_pd:.1e}. Output: {len(scores):,} score "
        "rows. Where pdireval's time goes: about 40% is reading the four string columns into "
        "integer codes (pyarrow's dictionary encoding), the rest the duplicate-key check, the "
        "segment numbering and one `np.bincount` of (answer, importance, label) from which every "
        "score is a ratio.",
        "",
        f"## `evaluate_support`: {n_systems} systems x {n_queries:,} queries x 10 sentences "
        f"x 3 citations ({len(support):,} rows)",
        "",
        f"pdireval.evaluate_support (precision, recall, F1; validation included): {best_sup:.2f} s "
        f"({median_sup:.2f} s).",
        "",
    ]
    out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
