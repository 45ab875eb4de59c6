"""Benchmark: evaluating a run DataFrame — pdireval vs pytrec_eval-terrier, ranx, ir_measures.

    python benchmarks/evaluate.py            # full size (several minutes)
    python benchmarks/evaluate.py --small    # 10x smaller collections, a quick check

Every tool computes the same six measures — nDCG@10, AP, RR, P@10, R@1000, Rprec — per
query, starting from the same pandas DataFrames (run: system, query, doc, rank, score;
qrels: query, doc, label) and including whatever conversion the tool needs:

* pdireval: ``pdireval.evaluate(run, measures, qrels=qrels)`` (validation included:
  column types, NaN / infinite scores, ranks, duplicate (system, query, doc) rows);
  "pdireval_shuffled" is the same call on the run's rows in random order (the shuffle is
  not timed), which takes the engine's sorting path instead of its ordered-run path.
* pytrec_eval: DataFrame -> ``{query: {doc: score}}`` dicts (per system), then
  ``RelevanceEvaluator(qrels_dict, measures).evaluate(run_dict)``.
* ranx: ``Qrels.from_df`` + ``Run.from_df`` (per system) + ``evaluate(..., return_mean=False)``;
  the first call compiles ranx's numba kernels, so it is reported apart and the timed calls
  are the later ones.
* ir_measures: ``ir_measures.iter_calc(measures, qrels_df, run_df)`` per system (columns renamed
  to its query_id / doc_id / score / relevance), consumed into a list.

Method. The parent process builds both collections (seeded; see ``_data.py``) and writes them
to Parquet in a temporary folder. Each tool then runs in its own fresh Python process, one
after the other in the same benchmark run: it loads the frames (not timed), makes one
warm-up call, then ``--repeat`` timed calls (wall clock, ``time.perf_counter``; CPU time of
the process, ``time.process_time``, alongside). Peak memory: before each call the process
resets its peak resident set size (Linux ``/proc/self/clear_refs``), and after the call reads
it back (``VmHWM`` in ``/proc/self/status``); "peak extra" is that peak minus the resident
size before the call, i.e. what the call needed on top of the input frames and the
interpreter. It counts every allocation (numpy, pyarrow, the C extensions), unlike
tracemalloc. The input size is ``DataFrame.memory_usage(deep=True)`` of run + qrels.
Results are printed as a Markdown table and written to ``--out``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MEASURES = ["nDCG@10", "AP", "RR", "P@10", "R@1000", "Rprec"]
TOOLS = ["pdireval", "pdireval_shuffled", "pytrec_eval", "ranx", "ir_measures"]


# --------------------------------------------------------------------------- the tools


def run_pdireval(run, qrels):
    import pdireval

    return pdireval.evaluate(run, MEASURES, qrels=qrels)


run_pdireval_shuffled = run_pdireval  # the same call on the rows shuffled (see child())


def phases(run, qrels, repeat):
    """pdireval's time split (internal API): validation + keys (incl. duplicate check),
    qrels + segments (lookup, positions, ties), measures + scores frame."""
    from pdireval.core.schema import canonical_qrels, canonical_run_keys
    from pdireval.core.segments import build_judgments, build_segments
    from pdireval.evaluation import scores_frame
    from pdireval.measures import compute, parse_measures

    parsed = parse_measures(MEASURES)
    best = {}
    for _ in range(repeat + 1):
        t = [time.perf_counter()]
        canonical, keys = canonical_run_keys(run)
        t.append(time.perf_counter())
        judgments = build_judgments(canonical_qrels(qrels))
        segments = build_segments(canonical, judgments, keys=keys).with_empty_segments()
        t.append(time.perf_counter())
        scores_frame(segments, parsed, [compute(segments, m) for m in parsed])
        t.append(time.perf_counter())
        for label, a, b in zip(PHASES, t[:-1], t[1:]):
            best[label] = min(best.get(label, float("inf")), b - a)
        best["hits"] = len(segments.hit_seg)
    return best


PHASES = ["validate + keys + duplicate check", "qrels lookup + positions + ties", "measures + scores frame"]


def _nested(frame, value):
    """{query: {doc: value}} from a frame grouped by query (one pass, no per-row pandas)."""
    import numpy as np

    order = np.argsort(frame["query"].to_numpy(dtype=object), kind="stable")
    q = frame["query"].to_numpy(dtype=object)[order]
    d = frame["doc"].to_numpy(dtype=object)[order].tolist()
    v = frame[value].to_numpy()[order].tolist()
    bounds = np.flatnonzero(np.r_[True, q[1:] != q[:-1], True]).tolist()
    return {q[a]: dict(zip(d[a:b], v[a:b])) for a, b in zip(bounds[:-1], bounds[1:])}


def run_pytrec_eval(run, qrels):
    import pytrec_eval

    q = _nested(qrels.assign(label=qrels["label"].astype(int)), "label")
    evaluator = pytrec_eval.RelevanceEvaluator(
        q, {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.1000", "Rprec"}
    )
    return {s: evaluator.evaluate(_nested(g, "score")) for s, g in run.groupby("system", sort=False)}


def run_ranx(run, qrels):
    from ranx import Qrels, Run, evaluate

    # ranx asserts object-dtype id columns
    ids = {"query": object, "doc": object}
    q = Qrels.from_df(qrels.astype(ids).assign(label=qrels["label"].astype(int)), q_id_col="query", doc_id_col="doc", score_col="label")
    out = {}
    for s, g in run.groupby("system", sort=False):
        r = Run.from_df(g.astype(ids), q_id_col="query", doc_id_col="doc", score_col="score")
        out[s] = evaluate(q, r, ["ndcg@10", "map", "mrr", "precision@10", "recall@1000", "r-precision"], return_mean=False)
    return out


def run_ir_measures(run, qrels):
    import ir_measures
    from ir_measures import AP, RR, P, R, Rprec, nDCG

    q = qrels.rename(columns={"query": "query_id", "doc": "doc_id", "label": "relevance"})
    q = q.assign(relevance=q["relevance"].astype(int))
    measures = [nDCG @ 10, AP, RR, P @ 10, R @ 1000, Rprec]
    out = {}
    for s, g in run.groupby("system", sort=False):
        r = g.rename(columns={"query": "query_id", "doc": "doc_id"})[["query_id", "doc_id", "score"]]
        out[s] = list(ir_measures.iter_calc(measures, q, r))
    return out


# --------------------------------------------------------------------------- child process


def _status() -> dict:
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":")
                out[key] = int(value.split()[0]) * 1024
    return out


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def child(tool: str, folder: str, name: str, repeat: int) -> None:
    import pandas as pd

    run = pd.read_parquet(Path(folder) / f"{name}_run.parquet")
    qrels = pd.read_parquet(Path(folder) / f"{name}_qrels.parquet")
    if tool == "phases":
        print(json.dumps({"tool": tool, "data": name, "phases": phases(run, qrels, repeat)}))
        return
    if tool == "pdireval_shuffled":
        run = run.sample(frac=1, random_state=0).reset_index(drop=True)
    fn = globals()[f"run_{tool}"]
    __import__(tool.split("_shuffled")[0])
    input_bytes = int(run.memory_usage(deep=True).sum() + qrels.memory_usage(deep=True).sum())
    calls = []
    for _ in range(repeat + 1):
        gc.collect()
        before = _status()["VmRSS"]
        _reset_peak()
        w, c = time.perf_counter(), time.process_time()
        result = fn(run, qrels)
        wall, cpu = time.perf_counter() - w, time.process_time() - c
        peak = _status()["VmHWM"] - before
        del result
        calls.append({"wall": wall, "cpu": cpu, "peak_extra": peak})
    print(json.dumps({"tool": tool, "data": name, "input_bytes": input_bytes, "calls": calls}))


# --------------------------------------------------------------------------- parent


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for pkg in ["pdireval", "pandas", "numpy", "pyarrow", "pytrec-eval-terrier", "ranx", "numba", "ir-measures"]:
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "-"
    return out


def _machine() -> str:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs ({cpu}), {mem:.0f} GiB RAM"


def _datasets(small: bool):
    sys.path.insert(0, str(HERE))
    import _data

    if small:
        return {
            "msmarco": ("MS MARCO-dev-like: 1 system x 700 queries x 1000 docs", lambda: _data.msmarco_like(700)),
            "trec": ("TREC-like: 10 systems x 50 topics x 1000 docs", lambda: _data.trec_like(10)),
        }
    return {
        "msmarco": ("MS MARCO-dev-like: 1 system x 7000 queries x 1000 docs", lambda: _data.msmarco_like(7000)),
        "trec": ("TREC-like: 100 systems x 50 topics x 1000 docs", lambda: _data.trec_like(100)),
    }


def _read_robust(repeat: int):
    """Time reading the 17 Robust 2003 runs (+ qrels) with pdireval, and the pandas C
    parser alone on the same files as the floor, in a fresh process each."""
    runs = ROOT.parent / "shared" / "data" / "robust03" / "runs"
    if not runs.exists():
        return None
    code = {
        "pdireval.read_run (17 files, validated)": f"import pdireval; pdireval.read_run({str(runs)!r})",
        "pandas.read_csv of the same files (parse only)": (
            "import pandas as pd, pathlib; "
            f"[pd.read_csv(p, sep=' ', header=None, names=list('qzdrst'), dtype=str) for p in sorted(pathlib.Path({str(runs)!r}).iterdir())]"
        ),
    }
    out = {}
    for label, stmt in code.items():
        prog = (
            "import time, json; t=time.perf_counter(); "
            + stmt.split("; ", 1)[0]
            + "; t0=time.perf_counter(); "
            + stmt.split("; ", 1)[1]
            + "; print(json.dumps(time.perf_counter()-t0))"
        )
        times = []
        for _ in range(repeat):
            res = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, cwd=ROOT, env=_env())
            if res.returncode:
                raise RuntimeError(res.stderr)
            times.append(json.loads(res.stdout.strip().splitlines()[-1]))
        out[label] = times
    return out


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", action="store_true", help="10x smaller collections (quick check)")
    ap.add_argument("--repeat", type=int, default=3, help="timed calls per tool (after one warm-up)")
    ap.add_argument("--tools", default=",".join(TOOLS), help="comma-separated subset of " + ",".join(TOOLS))
    ap.add_argument("--data", default="msmarco,trec", help="comma-separated subset of msmarco,trec")
    ap.add_argument("--out", default=None, help="Markdown results file (default: results/evaluate.md, or results/evaluate-small.md with --small)")
    ap.add_argument("--child", nargs=3, metavar=("TOOL", "FOLDER", "DATA"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], args.child[2], args.repeat)
        return 0

    out_path = Path(args.out) if args.out else HERE / "results" / ("evaluate-small.md" if args.small else "evaluate.md")
    tools = [t for t in args.tools.split(",") if t]
    datasets = {k: v for k, v in _datasets(args.small).items() if k in args.data.split(",")}
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = os.getloadavg()
    results = {}
    shapes = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, (label, make) in datasets.items():
            run, qrels = make()
            shapes[name] = (label, len(run), len(qrels))
            run.to_parquet(Path(folder) / f"{name}_run.parquet")
            qrels.to_parquet(Path(folder) / f"{name}_qrels.parquet")
            del run, qrels
            for tool in tools + (["phases"] if "pdireval" in tools else []):
                print(f"{name}: {tool} ...", file=sys.stderr, flush=True)
                res = subprocess.run(
                    [sys.executable, __file__, "--child", tool, folder, name, "--repeat", str(args.repeat)],
                    capture_output=True, text=True, env=_env(),
                )
                if res.returncode:
                    print(res.stderr, file=sys.stderr)
                    results[(name, tool)] = None
                    continue
                results[(name, tool)] = json.loads(res.stdout.strip().splitlines()[-1])
    robust = None if args.small else _read_robust(args.repeat)
    load_after = os.getloadavg()
    text = _report(results, shapes, tools, robust, started, load_before, load_after, args)
    print(text)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(text)
    return 0


def _fmt_bytes(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB"


def _report(results, shapes, tools, robust, started, load_before, load_after, args) -> str:
    v = _versions()
    lines = [
        "# Benchmark: evaluate a run DataFrame",
        "",
        f"Produced by `python benchmarks/evaluate.py{' --small' if args.small else ''}` on {started}.",
        "",
        f"- Machine: {_machine()}; load average {load_before[0]:.1f} at the start, {load_after[0]:.1f} at the end "
        "(a shared machine: wall times of every tool stretch together when it is busy; the CPU column and the ratios are steadier).",
        "- Versions: " + ", ".join(f"{k} {val}" for k, val in v.items()) + ".",
        f"- Measures: {', '.join(MEASURES)}, per query. One warm-up call per tool, then {args.repeat} timed calls; "
        "median (min) wall seconds. Ratio = tool's median / pdireval's median (how many times faster pdireval is).",
        "",
    ]
    for name, (label, n_run, n_qrels) in shapes.items():
        base = results.get((name, "pdireval"))
        base_med = statistics.median(c["wall"] for c in base["calls"][1:]) if base else None
        lines += [f"## {label}", "", f"{n_run:,} run rows, {n_qrels:,} qrels rows.", ""]
        lines += [
            "| tool | median wall s (min) | median CPU s | x pdireval | first call s (after import) | peak extra memory | peak / input frames |",
            "|---|---|---|---|---|---|---|",
        ]
        for tool in tools:
            r = results.get((name, tool))
            if r is None:
                lines.append(f"| {tool} | failed | | | | | |")
                continue
            timed = r["calls"][1:]
            med = statistics.median(c["wall"] for c in timed)
            low = min(c["wall"] for c in timed)
            cpu = statistics.median(c["cpu"] for c in timed)
            peak = max(c["peak_extra"] for c in timed)
            ratio = f"{med / base_med:.1f}" if base_med else "-"
            lines.append(
                f"| {tool} | {med:.2f} ({low:.2f}) | {cpu:.2f} | {ratio} | {r['calls'][0]['wall']:.2f} | "
                f"{_fmt_bytes(peak)} | {peak / r['input_bytes']:.2f} |"
            )
        if base:
            lines += ["", f"Input frames (run + qrels, deep): {_fmt_bytes(base['input_bytes'])}.", ""]
        ph = results.get((name, "phases"))
        if ph:
            p = ph["phases"]
            lines += [
                f"pdireval's split (best of {args.repeat + 1} calls, wall s; {p['hits']:,} judged hits): "
                + "; ".join(f"{k} {p[k]:.2f}" for k in PHASES)
                + ".",
                "",
            ]
    if robust:
        lines += [
            "## Reading the 17 Robust 2003 runs (1.5M lines, gzipped)",
            "",
            "Fresh process per call (imports not timed); median (min) wall seconds over "
            f"{args.repeat} calls.",
            "",
            "| reader | median s (min) |",
            "|---|---|",
        ]
        for label, times in robust.items():
            lines.append(f"| {label} | {statistics.median(times):.2f} ({min(times):.2f}) |")
        lines.append("")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
