"""Benchmark: two source trees of pdireval side by side (a change's before and after).

    git worktree add --detach /tmp/before <commit>
    python benchmarks/before_after.py --before /tmp/before            # this tree is "after"
    python benchmarks/before_after.py --before /tmp/before --pairs 5 --scale 10

What runs: the workloads of ``benchmarks/evaluate.py`` (``pdireval.evaluate`` of nDCG@10, AP,
RR, P@10, R@1000 and Rprec from DataFrames, validation included) and of
``benchmarks/measures.py`` (each measure's kernel alone on prepared segments, caches emptied
before every call, with the doc-id tie-break and with ``ties="expected"``, and
``pdireval.evaluate(run, [measure])`` end to end), on the same seeded collections
(``_data.py``), shrunk by ``--scale``: the MS MARCO-like run has 7,000 / scale queries, the
TREC-like one 100 / scale systems (``ties="expected"`` on ``--tie-systems`` of them: some
measures enumerate joint orderings there).

Method. The parent writes the collections to Parquet once. Each pair then runs one fresh
Python process per tree (``PYTHONPATH`` set to the tree; the process checks where pdireval
came from), in the order before/after, after/before, ... (ABBA), so that a change of the
shared machine's load hits both trees alike. Inside a process every timed call is repeated
``--repeat`` times round robin (``ties="expected"`` on the TREC-like systems: at most twice)
and the minimum is kept. Times are CPU seconds of the process (``time.process_time``): on a
shared 2-core machine under load the wall clock mostly measures the other processes (the
``evaluate`` rows show the wall minimum too). Reported: per workload the median
over pairs of each tree's figure and the median (min-max) over pairs of the after/before
ratio of that pair. The measure list is the measures both trees register.

Values. The first pair also saves every result (the ``evaluate`` frames and each kernel's
per-(system, query) values); they are compared bit for bit (NaN equal to NaN, -0.0 differs
from 0.0) and the report lists every difference.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EVALUATE = ["nDCG@10", "AP", "RR", "P@10", "R@1000", "Rprec"]
BASELINE = "nDCG@10"
#: a cut-off for the measures that need one (as benchmarks/measures.py)
_CUTOFF = {"required": "@10", "real": "@1"}
_REAL_CUTOFF = {"IPrec": "@0.1"}
VARIANTS = [
    "nDCG",
    "nDCG(gains={1:3,2:7})",
    "ndcg_p(gains={1:3,2:7})",
    "Q@10",
    "nERR@10",
    "Bpref(variant=10R)",
]


# --------------------------------------------------------------------------- child


def _with_ties(text: str) -> str:
    name, at, cut = text.partition("@")
    if name.endswith(")"):
        return f"{name[:-1]},ties=expected){at}{cut}"
    return f"{name}(ties=expected){at}{cut}"


def measure_texts() -> list[str]:
    """Every registered measure (a cut-off where it needs one) and VARIANTS, nDCG@10 first."""
    import pdireval

    texts = []
    for _, row in pdireval.measures().iterrows():
        name = row["measure"]
        texts.append(name + _REAL_CUTOFF.get(name, _CUTOFF.get(row["cutoff"], "")))
    texts += VARIANTS
    return [BASELINE] + [t for t in texts if t != BASELINE]


def _load(folder: Path, name: str):
    import pandas as pd

    return (
        pd.read_parquet(folder / f"{name}_run.parquet"),
        pd.read_parquet(folder / f"{name}_qrels.parquet"),
    )


def _time_round_robin(calls: dict, repeat: int) -> dict:
    """Minimum CPU seconds of the process (``time.process_time``) per call; on a shared
    machine the wall clock also counts the time other processes held the cores."""
    times = {key: [] for key in calls}
    for _ in range(repeat):
        for key, call in calls.items():
            t0 = time.process_time()
            call()
            times[key].append(time.process_time() - t0)
    return {key: min(t) for key, t in times.items()}


def job_evaluate(folder: Path, out: Path | None, repeat: int, cfg: dict) -> dict:
    import pdireval

    result = {}
    for name in ("msmarco", "trec"):
        run, qrels = _load(folder, name)
        frame = pdireval.evaluate(run, EVALUATE, qrels=qrels)  # warm-up
        if out is not None:
            frame.to_pickle(out / f"evaluate_{name}.pkl")
        if not repeat:  # --values-only
            continue
        walls = []
        for _ in range(repeat):
            w, c = time.perf_counter(), time.process_time()
            pdireval.evaluate(run, EVALUATE, qrels=qrels)
            walls.append((time.perf_counter() - w, time.process_time() - c))
        result[f"evaluate {name} CPU"] = min(c for _, c in walls)
        result[f"evaluate {name} wall"] = min(w for w, _ in walls)
    return result


def _kernels(prepared, texts, repeat, out, tag):
    import numpy as np

    from pdireval.measures import parse_measure

    parsed = {text: parse_measure(text) for text in texts}
    seg = prepared.segments

    def call(m):
        def go():
            seg.cache.clear()
            seg.judgments.cache.clear()
            prepared.values(m)

        return go

    if out is not None:
        values = {}
        for text, m in parsed.items():
            seg.cache.clear()
            seg.judgments.cache.clear()
            values[text] = np.asarray(prepared.values(m), dtype=float)
        with open(out / f"kernels_{tag}.pkl", "wb") as fh:
            import pickle

            pickle.dump(values, fh)
    if not repeat:  # --values-only
        return {}
    best = _time_round_robin({text: call(m) for text, m in parsed.items()}, repeat)
    return {f"{tag}: {text}": t for text, t in best.items()}


def job_measures(folder: Path, out: Path | None, repeat: int, cfg: dict) -> dict:
    import pdireval
    from pdireval.evaluation import prepare

    texts = cfg["measures"]
    expected = [_with_ties(t) for t in texts]
    result = {}
    clock = [time.process_time()]

    def phase(label):  # CPU seconds of each part of the job, whole (every repeat)
        now = time.process_time()
        result[f"phase {label}"] = now - clock[0]
        clock[0] = now

    run, qrels = _load(folder, "msmarco")
    prepared = prepare(run, qrels=qrels)
    phase("msmarco read + prepare")
    result.update(_kernels(prepared, texts + expected, repeat, out, "msmarco"))
    phase("msmarco kernels")
    del prepared
    e2e = {} if not repeat else _time_round_robin(
        {t: (lambda t=t: pdireval.evaluate(run, [t], qrels=qrels)) for t in texts + expected},
        cfg["e2e_repeat"],
    )
    result.update({f"msmarco e2e: {t}": v for t, v in e2e.items()})
    phase("msmarco end to end")
    del run, qrels
    run, qrels = _load(folder, "trec")
    prepared = prepare(run, qrels=qrels)
    phase("trec read + prepare")
    result.update(_kernels(prepared, texts, repeat, out, "trec"))
    phase("trec kernels")
    del prepared
    systems = sorted(run["system"].unique())[: cfg["tie_systems"]]
    part = run[run["system"].isin(systems)]
    prepared = prepare(part, qrels=qrels)
    result.update(_kernels(prepared, expected, min(repeat, 2), out, "trec-ties"))
    phase("trec ties=expected kernels")
    return result


def child(tree: str, job: str, folder: str, out: str, repeat: int, cfg_text: str) -> None:
    import pdireval

    where = Path(pdireval.__file__).resolve()
    if not where.is_relative_to(Path(tree).resolve()):
        raise SystemExit(f"pdireval imported from {where}, not from {tree}")
    if job == "list":
        print(json.dumps(measure_texts()))
        return
    cfg = json.loads(cfg_text)
    # imported up front in every tree: some versions import scipy.special (~0.2 s CPU) with
    # pdireval.measures, others on first need inside a kernel, whose first call it would charge
    import scipy.special  # noqa: F401

    c0 = time.process_time()
    jobs = {"evaluate": job_evaluate, "measures": job_measures}
    result = jobs[job](Path(folder), Path(out) if out != "-" else None, repeat, cfg)
    result[f"{job} process CPU s"] = time.process_time() - c0
    print(json.dumps(result))


# --------------------------------------------------------------------------- parent


def _spawn(tree: Path, job: str, folder, out, repeat, cfg) -> dict | list:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    cmd = [sys.executable, __file__, "--child", str(tree), job, str(folder), str(out), "-"]
    cmd += ["--repeat", str(repeat), "--cfg", json.dumps(cfg)]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    if res.returncode:
        raise RuntimeError(f"{tree} {job}:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def _identical(a, b) -> bool:
    import numpy as np

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and a.view(np.int64).tolist() == b.view(np.int64).tolist()


def compare_values(before: Path, after: Path) -> list[str]:
    """Every difference between the two trees' saved results (empty: bit-identical)."""
    import pickle

    import pandas as pd

    diffs = []
    for path in sorted(before.glob("evaluate_*.pkl")):
        a, b = pd.read_pickle(path), pd.read_pickle(after / path.name)
        if list(a.columns) != list(b.columns) or len(a) != len(b):
            diffs.append(f"{path.stem}: columns or length differ")
            continue
        for col in a.columns:
            if a[col].dtype.kind == "f":
                same = _identical(a[col].to_numpy(), b[col].to_numpy())
            else:
                same = a[col].astype(str).tolist() == b[col].astype(str).tolist()
            if not same:
                diffs.append(f"{path.stem}: column {col} differs")
    for path in sorted(before.glob("kernels_*.pkl")):
        with open(path, "rb") as fh:
            a = pickle.load(fh)
        with open(after / path.name, "rb") as fh:
            b = pickle.load(fh)
        for text in a:
            if not _identical(a[text], b[text]):
                diffs.append(f"{path.stem}: {text} differs")
    return diffs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=False, help="source tree of the earlier version")
    ap.add_argument("--after", default=str(HERE.parent), help="source tree (default: this one)")
    ap.add_argument("--scale", type=int, default=10, help="divide the collections by this")
    ap.add_argument("--tie-systems", type=int, default=2)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--e2e-repeat", type=int, default=1)
    ap.add_argument("--jobs", default="evaluate,measures")
    ap.add_argument(
        "--values-only",
        action="store_true",
        help="one process per tree, no timing: compare the values only (e.g. at --scale 1)",
    )
    ap.add_argument("--out", default=None, help="Markdown results file")
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    ap.add_argument("--cfg", default="{}", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        tree, job, folder, out, _ = args.child
        child(tree, job, folder, out, args.repeat, args.cfg)
        return 0
    if not args.before:
        ap.error("--before is required")
    trees = {"before": Path(args.before).resolve(), "after": Path(args.after).resolve()}
    if args.values_only:
        args.pairs, args.repeat = 1, 0
    sys.path[:0] = [str(trees["after"]), str(HERE)]
    import _data

    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_start = os.getloadavg()
    lists = {k: _spawn(t, "list", "-", "-", 1, {}) for k, t in trees.items()}
    texts = [t for t in lists["before"] if t in set(lists["after"])]
    only = {k: [t for t in v if t not in set(texts)] for k, v in lists.items()}
    cfg = {"measures": texts, "e2e_repeat": args.e2e_repeat, "tie_systems": args.tie_systems}
    jobs = [j for j in args.jobs.split(",") if j]
    figures: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    ratios: dict[str, list[float]] = {}
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run, qrels = _data.msmarco_like(n_queries=7000 // args.scale)
        shapes = {"msmarco": (len(run), len(qrels))}
        run.to_parquet(folder / "msmarco_run.parquet")
        qrels.to_parquet(folder / "msmarco_qrels.parquet")
        run, qrels = _data.trec_like(n_systems=max(1, 100 // args.scale))
        shapes["trec"] = (len(run), len(qrels))
        run.to_parquet(folder / "trec_run.parquet")
        qrels.to_parquet(folder / "trec_qrels.parquet")
        del run, qrels
        saved = {k: folder / f"values_{k}" for k in trees}
        for path in saved.values():
            path.mkdir()
        for i in range(args.pairs):
            order = ["before", "after"] if i % 2 == 0 else ["after", "before"]
            for job in jobs:
                got = {}
                for which in order:
                    print(f"pair {i + 1}: {job} {which} ...", file=sys.stderr, flush=True)
                    out = saved[which] if i == 0 else "-"
                    got[which] = _spawn(trees[which], job, folder, out, args.repeat, cfg)
                    loads.append(os.getloadavg()[0])
                for which, res in got.items():
                    for key, value in res.items():
                        figures[which].setdefault(key, []).append(value)
                for key in got["before"]:
                    if key in got["after"] and got["before"][key] > 0:
                        ratios.setdefault(key, []).append(got["after"][key] / got["before"][key])
        diffs = compare_values(saved["before"], saved["after"])
    if args.values_only:
        text = values_report(args, trees, started, shapes, texts, only)
    else:
        text = report(args, trees, started, load_start, loads, shapes, texts, only, figures, ratios)
    text += values_section(diffs, texts)
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


def _git(tree: Path) -> str:
    res = subprocess.run(
        ["git", "-C", str(tree), "log", "-1", "--format=%h %s"], capture_output=True, text=True
    )
    return res.stdout.strip()[:90] or str(tree)


def report(args, trees, started, load_start, loads, shapes, texts, only, figures, ratios):
    import numpy as np

    lines = [
        "# Benchmark: before and after, side by side",
        "",
        f"Produced by `python benchmarks/before_after.py --scale {args.scale} --pairs "
        f"{args.pairs} --repeat {args.repeat} --tie-systems {args.tie_systems}` on {started}.",
        "",
        f"- before: `{_git(trees['before'])}`",
        f"- after: `{_git(trees['after'])}`",
        f"- Machine: {os.cpu_count()} CPUs, shared; load average {load_start[0]:.1f} at the "
        f"start, {min(loads):.1f}-{max(loads):.1f} after each process, "
        f"{os.getloadavg()[0]:.1f} at the end.",
        f"- Collections (scaled down {args.scale}x): MS MARCO-like {shapes['msmarco'][0]:,} run "
        f"rows, {shapes['msmarco'][1]:,} qrels rows; TREC-like {shapes['trec'][0]:,} run rows, "
        f"{shapes['trec'][1]:,} qrels rows (ties=expected kernels on {args.tie_systems} of its "
        "systems).",
        f"- {len(texts)} measure texts registered in both trees"
        + "".join(f"; only {k}: {', '.join(v)}" for k, v in only.items() if v)
        + ".",
        f"- Each figure: CPU seconds, minimum of {args.repeat} calls in one process (end to end "
        f"per measure: {args.e2e_repeat}); tree = median over {args.pairs} processes; ratio = "
        "after / before pair by pair, median (min-max).",
        "",
    ]
    keys = list(ratios)
    summary = [k for k in keys if ": " not in k]
    lines += [
        "## evaluate (benchmarks/evaluate.py's workload) and whole processes",
        "",
        "| figure | before s | after s | after / before (min-max) |",
        "|---|---|---|---|",
    ]
    for k in summary:
        lines.append(_row(k, figures, ratios))
    groups = {}
    for k in keys:
        if ": " in k:
            groups.setdefault(k.split(": ", 1)[0], []).append(k)
    for group, members in groups.items():
        r = np.array([statistics.median(ratios[k]) for k in members])
        tb = sum(statistics.median(figures["before"][k]) for k in members)
        ta = sum(statistics.median(figures["after"][k]) for k in members)
        lines += [
            "",
            f"## {group}: {len(members)} measure texts",
            "",
            f"Sum of the medians: before {tb:.3f} s, after {ta:.3f} s ({ta / tb:.3f}x). "
            f"Per measure after/before: median {np.median(r):.3f}, geometric mean "
            f"{np.exp(np.mean(np.log(r))):.3f}, range {r.min():.2f}-{r.max():.2f}.",
            "",
            "| measure | before ms | after ms | after / before (min-max) |",
            "|---|---|---|---|",
        ]
        for k in members:
            lines.append(_row(k, figures, ratios, scale=1e3, label=k.split(": ", 1)[1]))
    return "\n".join(lines) + "\n"


def values_report(args, trees, started, shapes, texts, only) -> str:
    lines = [
        "# Values: before and after, side by side",
        "",
        f"Produced by `python benchmarks/before_after.py --values-only --scale {args.scale} "
        f"--tie-systems {args.tie_systems}` on {started}.",
        "",
        f"- before: `{_git(trees['before'])}`",
        f"- after: `{_git(trees['after'])}`",
        f"- Collections: MS MARCO-like {shapes['msmarco'][0]:,} run rows, "
        f"{shapes['msmarco'][1]:,} qrels rows; TREC-like {shapes['trec'][0]:,} run rows, "
        f"{shapes['trec'][1]:,} qrels rows (ties=expected on {args.tie_systems} of its "
        "systems).",
        f"- {len(texts)} measure texts registered in both trees"
        + "".join(f"; only {k}: {', '.join(v)}" for k, v in only.items() if v)
        + ".",
    ]
    return "\n".join(lines) + "\n"


def _row(key, figures, ratios, scale=1.0, label=None):
    b = statistics.median(figures["before"][key]) * scale
    a = statistics.median(figures["after"][key]) * scale
    r = ratios[key]
    return (
        f"| {label or key} | {b:.3f} | {a:.3f} | {statistics.median(r):.3f} "
        f"({min(r):.2f}-{max(r):.2f}) |"
    )


def values_section(diffs, texts) -> str:
    lines = ["", "## Values", ""]
    if not diffs:
        lines.append(
            "Bit-identical: both `evaluate` frames of each collection, and the per-(system, "
            f"query) values of all {len(texts)} measure texts in both tie modes on each "
            "collection (compared as the bits of the doubles)."
        )
    else:
        lines += [f"- {d}" for d in diffs]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
