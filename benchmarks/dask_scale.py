"""Benchmark: pdireval.dask on a 10^8-row collection (200 systems x 500 queries x 1,000 docs).

(Named dask_scale.py, not dask.py, so that ``python benchmarks/dask_scale.py`` can import Dask.)

    python benchmarks/dask_scale.py generate            # writes the collection under --root (once)
    python benchmarks/dask_scale.py run                 # every phase, one fresh process each -> results/dask.md
    python benchmarks/dask_scale.py generate --small    # 20 systems x 100 queries: a quick check
    python benchmarks/dask_scale.py run --small

The collection (seeded) is written three ways under ``--root`` (default
``/tmp/pdireval-dask``; ``-small`` appended with ``--small``):

* ``by_system/sys-XXX.parquet``: one file per system, one row group (500,000 rows);
* ``by_query/qblock-XX.parquet``: one file per block of 10 queries, row groups of 40
  systems (400,000 rows): every (system, query) list whole in one row group;
* ``trec/sys-XXX.gz``: the TREC text format, one gzipped file per system;
* ``qrels.parquet``: 300 judged documents per query (labels 0, 1, 2).

Each phase runs in its own Python process; the parent samples the resident set size of that
process **and all its descendants** (the LocalCluster's nanny and worker processes) every
0.1 s with psutil and reports the peak of the sum ("peak RSS, all processes"). Wall time is
``time.perf_counter`` around the whole computation (reading included), after imports.
Each phase writes its scores to ``scores-<phase>.parquet``; the ``compare`` phase checks them
for exact equality against each other and against pandas ``evaluate`` on the largest subset
that fits (``--pandas-systems`` systems).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MEASURES = ["nDCG@10", "nDCG@1000", "AP", "ERR@20", "RR", "P@10", "R@1000", "Rprec"]
SEED = 20260817


def sizes(small: bool) -> dict:
    if small:
        return {"systems": 20, "queries": 100, "depth": 1000, "pool": 3000, "judged": 300, "block": 10, "rg_systems": 10}
    return {"systems": 200, "queries": 500, "depth": 1000, "pool": 3000, "judged": 300, "block": 10, "rg_systems": 40}


# --------------------------------------------------------------------------- the collection


def generate(root: Path, small: bool) -> None:
    """Write the seeded collection (see the module docstring). A system's list for a query
    is the top ``depth`` of the query's ``pool`` candidates by a noisy key that favours the
    judged-relevant candidates by a system-specific quality."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    z = sizes(small)
    S, Q, D, P, J, B = z["systems"], z["queries"], z["depth"], z["pool"], z["judged"], z["block"]
    for sub in ("by_system", "by_query", "trec"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    qids = np.array([str(401 + q) for q in range(Q)], dtype=object)
    docs = pa.array([f"D{q:04d}-{j:05d}" for q in range(Q) for j in range(P)])
    rng = np.random.default_rng([SEED, 0])
    # qrels: the first J candidates of each query are judged, labels 0 / 1 / 2
    labels = rng.choice([0, 1, 2], size=(Q, J), p=[0.7, 0.2, 0.1])
    qrels = pd.DataFrame(
        {
            "query": np.repeat(qids, J),
            "doc": docs.take(pa.array((np.arange(Q)[:, None] * P + np.arange(J)).ravel())).to_pandas(),
            "label": labels.ravel().astype(np.float64),
        }
    )
    qrels.to_parquet(root / "qrels.parquet", index=False)
    gain = np.zeros((Q, P))
    gain[:, :J] = labels
    block_schema = None
    writers, buffers = {}, {b: [] for b in range(Q // B)}
    for s in range(S):
        quality = 0.3 + 1.2 * s / max(S - 1, 1)
        r = np.random.default_rng([SEED, 1, s])
        key = r.random((Q, P)) + quality * gain * r.random((Q, P))
        top = np.argpartition(-key, D - 1, axis=1)[:, :D]
        top_key = np.take_along_axis(key, top, axis=1)
        o = np.argsort(-top_key, axis=1, kind="stable")
        top = np.take_along_axis(top, o, axis=1)
        score = np.round(np.take_along_axis(top_key, o, axis=1), 6)  # a few ties, as in real runs
        idx = (np.arange(Q)[:, None] * P + top).ravel()
        table = pa.table(
            {
                "system": pa.array(np.full(Q * D, f"sys{s:03d}", dtype=object), pa.string()),
                "query": pa.array(np.repeat(qids, D), pa.string()),
                "doc": docs.take(pa.array(idx)),
                "score": pa.array(score.ravel()),
                "rank": pa.array(np.tile(np.arange(1, D + 1, dtype=np.int64), Q)),
            }
        )
        pq.write_table(table, root / "by_system" / f"sys-{s:03d}.parquet", row_group_size=Q * D)
        trec = pa.table(
            {"query": table["query"], "q0": pa.array(np.full(Q * D, "Q0", dtype=object), pa.string()), "doc": table["doc"],
             "rank": table["rank"], "score": table["score"], "system": table["system"]}
        )
        with pa.CompressedOutputStream(str(root / "trec" / f"sys-{s:03d}.gz"), "gzip") as out:
            pacsv.write_csv(trec, out, pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"))
        for b in range(Q // B):
            buffers[b].append(table.slice(b * B * D, B * D))
            if len(buffers[b]) == z["rg_systems"] or s == S - 1:
                block = pa.concat_tables(buffers[b])
                block_schema = block_schema or block.schema
                if b not in writers:
                    writers[b] = pq.ParquetWriter(root / "by_query" / f"qblock-{b:02d}.parquet", block_schema)
                writers[b].write_table(block, row_group_size=block.num_rows)
                buffers[b] = []
        print(f"system {s + 1}/{S}", end="\r", file=sys.stderr, flush=True)
    for w in writers.values():
        w.close()
    (root / "DONE").write_text(json.dumps(z))
    print(file=sys.stderr)


# --------------------------------------------------------------------------- phases (child processes)


def _qrels(root: Path):
    import pandas as pd

    return pd.read_parquet(root / "qrels.parquet")


def _save(scores, root: Path, name: str) -> None:
    scores.to_parquet(root / f"scores-{name}.parquet", index=False)


def phase(name: str, root: Path, args) -> dict:
    import warnings

    import pandas as pd

    import pdireval
    import pdireval.dask as pdask
    from pdireval.errors import PdirevalWarning

    warnings.simplefilter("ignore", PdirevalWarning)
    qrels = _qrels(root)
    out: dict = {"phase": name}
    files = sorted(str(p) for p in (root / "by_system").glob("*.parquet"))
    t0 = time.perf_counter()
    if name.startswith("pandas"):
        n = args.pandas_systems
        t = time.perf_counter()
        run = pd.concat([pdireval.read_run(f) for f in files[:n]], ignore_index=True)
        out["read_s"] = time.perf_counter() - t
        t = time.perf_counter()
        scores = pdireval.evaluate(run, MEASURES, qrels=qrels)
        out["evaluate_s"] = time.perf_counter() - t
        out["rows"] = len(run)
        _save(scores, root, name)
    elif name.startswith("variants"):
        # evaluate_variants over 16 levels x 5 repeats = 80 qrels variants, --variant-systems systems
        n = args.variant_systems
        sub = pdireval.subsample_qrels(qrels, levels=(1, 2, 3, 4, 5, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90), repeats=5, rng=0)
        out["variants"] = 80
        t0 = time.perf_counter()
        if name == "variants-pandas":
            run = pd.concat([pdireval.read_run(f) for f in files[:n]], ignore_index=True)
            full = pdireval.evaluate_variants(run, MEASURES, sub)
            out["per_query_rows"] = len(full)
            g = full.groupby(["level", "repeat", "system", "measure"], sort=False)["value"]
            means = g.mean().reset_index()
            means["n_queries"] = g.size().to_numpy()
            means = means.sort_values(["level", "repeat", "system"], kind="stable", ignore_index=True)
        else:
            means = pdask.evaluate_variants(pdask.read_run(files[:n]), MEASURES, sub, partitioned_by="system").compute(scheduler="threads")
        out["rows"] = len(means)
        means.to_parquet(root / f"scores-{name}.parquet", index=False)
    elif name == "read-only":
        ddf = pdask.read_run(files)
        out["rows"] = int(ddf.map_partitions(len).sum().compute(scheduler="threads"))
    elif name.startswith("dask-subset"):
        n = args.pandas_systems
        ddf = pdask.read_run(files[:n])
        out["partitions"] = ddf.npartitions
        scores = ddf.ireval.evaluate(MEASURES, qrels=qrels, partitioned_by="system").compute(scheduler="threads")
        _save(scores, root, name)
    elif name in ("system", "query", "shuffle", "trec"):
        src = {"system": files, "shuffle": files,
               "query": sorted(str(p) for p in (root / "by_query").glob("*.parquet")),
               "trec": sorted(str(p) for p in (root / "trec").glob("*.gz"))}[name]
        ddf = pdask.read_run(src, system="tag")
        by = {"system": "system", "trec": "system", "query": "query", "shuffle": None}[name]
        t = time.perf_counter()
        lazy = ddf.ireval.evaluate(MEASURES, qrels=qrels, partitioned_by=by)
        out["graph_s"] = time.perf_counter() - t
        out["partitions"] = ddf.npartitions
        scores = lazy.compute(scheduler="threads")
        _save(scores, root, name)
    elif name.startswith("cluster"):
        from distributed import Client, LocalCluster

        by = {"cluster-system": "system", "cluster-shuffle": None}[name]
        with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=args.memory_limit, dashboard_address=":0") as cluster, Client(cluster) as client:
            t0 = time.perf_counter()  # the cluster's start-up is not counted
            ddf = pdask.read_run(files)
            out["partitions"] = ddf.npartitions
            scores = ddf.ireval.evaluate(MEASURES, qrels=qrels, partitioned_by=by).compute()
            out["wall_s"] = time.perf_counter() - t0
            spilled = client.run(lambda dask_worker: getattr(getattr(dask_worker, "data", None), "spilled_total", None))
            out["spilled"] = str(spilled)
        _save(scores, root, name)
        return out
    else:
        raise SystemExit(f"unknown phase {name}")
    out["wall_s"] = time.perf_counter() - t0
    return out


def final_task_time(root: Path) -> dict:
    """Time of the final small task alone, on the partition rows of the by-query layout."""
    import warnings

    import pdireval.dask as pdask
    from pdireval.core.schema import canonical_qrels
    from pdireval.core.segments import build_judgments
    from pdireval.errors import PdirevalWarning

    warnings.simplefilter("ignore", PdirevalWarning)
    files = sorted(str(p) for p in (root / "by_query").glob("*.parquet"))
    ddf = pdask.read_run(files)
    parts = ddf.ireval.evaluate(MEASURES, qrels=_qrels(root), partitioned_by="query", finalize=False).compute(scheduler="threads")
    judgments = build_judgments(canonical_qrels(_qrels(root)))
    t = time.perf_counter()
    pdask._finalize(parts, judgments, MEASURES, "zero")
    return {"final_s": time.perf_counter() - t, "rows": len(parts)}


def compare(root: Path, phases: list[str]) -> dict:
    import pandas as pd

    frames = {p: pd.read_parquet(root / f"scores-{p}.parquet") for p in phases if (root / f"scores-{p}.parquet").exists()}
    out = {}
    if "variants-pandas" in frames and "variants-dask" in frames:
        a, b = frames.pop("variants-pandas"), frames.pop("variants-dask")
        out["variants-dask == variants-pandas (means)"] = bool(a.reset_index(drop=True).astype(b.dtypes.to_dict()).equals(b.reset_index(drop=True)))
    full = [p for p in frames if not p.startswith(("pandas", "dask-subset"))]
    ref = frames.get("system")
    for p in full:
        if p != "system":
            out[f"{p} == system"] = bool(ref is not None and frames[p].equals(ref))
    if "pandas" in frames and "dask-subset" in frames:
        out["dask-subset == pandas (same systems)"] = bool(frames["pandas"].equals(frames["dask-subset"]))
    for p in [p for p in frames if p.startswith(("pandas", "dask-subset"))]:
        sub = frames[p]
        if ref is not None:
            part = ref[ref["system"].isin(sub["system"].unique())].reset_index(drop=True)
            out[f"{p} == its systems' rows in the whole-collection 'system' result"] = bool(part.equals(sub))
    return out


# --------------------------------------------------------------------------- parent


def _tree_rss(proc) -> int:
    import psutil

    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def run_child(argv: list[str]) -> tuple[dict, int]:
    import psutil

    child = subprocess.Popen([sys.executable, __file__, *argv], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    proc = psutil.Process(child.pid)
    peak = [0]
    done = threading.Event()

    def watch():
        while not done.is_set():
            try:
                peak[0] = max(peak[0], _tree_rss(proc))
            except psutil.Error:
                pass
            time.sleep(0.1)

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    stdout, _ = child.communicate()
    done.set()
    t.join()
    if child.returncode != 0:
        return {"error": f"exit {child.returncode}"}, peak[0]
    return json.loads(stdout.strip().splitlines()[-1]), peak[0]


DESCRIBE = {
    "read-only": ("Parquet by system", "threads", "read + validate only (`read_run`, no evaluation)"),
    "pandas": ("Parquet by system, {ps} systems", "pandas", "`pdireval.read_run` per file + `pdireval.evaluate` (the largest subset run here)"),
    "dask-subset": ("Parquet by system, {ps} systems", "threads", "the same subset through `pdireval.dask` (overhead vs pandas)"),
    "system": ("Parquet by system", "threads", "`partitioned_by=\"system\"`, no shuffle"),
    "query": ("Parquet by block of 10 queries", "threads", "`partitioned_by=\"query\"`, no shuffle"),
    "shuffle": ("Parquet by system, treated as arbitrary", "threads", "`partitioned_by=None`: shuffled by query"),
    "trec": ("200 gzipped TREC files", "threads", "one `read_run` task per file, `partitioned_by=\"system\"`"),
    "cluster-system": ("Parquet by system", "LocalCluster 2x1, {ml}/worker", "no shuffle; cluster start-up not timed"),
    "cluster-shuffle": ("Parquet by system, treated as arbitrary", "LocalCluster 2x1, {ml}/worker", "shuffled by query (p2p); start-up not timed"),
    "variants-pandas": ("Parquet by system, {vs} systems", "pandas", "`evaluate_variants`, 80 qrels variants, then per-(variant, system, measure) means"),
    "variants-dask": ("Parquet by system, {vs} systems", "threads", "`pdireval.dask.evaluate_variants` (means inside each partition)"),
}


def render(report: dict) -> str:
    """results/dask.md from the JSON report."""
    z = report["sizes"]
    rows_total = z["systems"] * z["queries"] * z["depth"]
    lines = [
        "# Benchmark: pdireval.dask on 10^8 run rows" if rows_total == 10**8 else f"# Benchmark: pdireval.dask ({rows_total:,} run rows)",
        "",
        f"Produced by `python benchmarks/dask_scale.py run` on {report['date']}.",
        "",
        f"- Machine: Linux, 2 CPUs shared with other users (load average {' / '.join(report['load_start'])} "
        f"(1 / 5 / 15 min) at the start, {' / '.join(report['load_end'])} at the end; the load column is the "
        "1-minute load when each phase started: at a load of 4 to 8 on 2 cores, wall times are 2-4x what a quiet "
        "machine gives), 24 GiB RAM.",
        f"- Versions: {report['versions']}.",
        f"- Collection (seeded): {z['systems']} systems x {z['queries']} queries x {z['depth']} documents = "
        f"{rows_total:,} run rows; {z['queries'] * z['judged']:,} qrels rows. Measures: {', '.join(MEASURES)}.",
        "- Wall time: whole computation, reading included, after imports. Peak RSS: the sum over the phase's "
        "process and all its descendants (LocalCluster nanny and worker processes), sampled every 0.1 s.",
        "",
        "| phase | input | scheduler | partitions | wall s | peak RSS, all processes (GiB) | load | what |",
        "|---|---|---|---|---|---|---|---|",
    ]
    fmt = {"ps": report["pandas_systems"], "vs": report.get("variant_systems", ""), "ml": report["memory_limit"]}
    for r in report["results"]:
        inp, sched, what = DESCRIBE.get(r["phase"], ("", "", ""))
        wall = f"{r['wall_s']:.1f}" if "wall_s" in r else r.get("error", "")
        lines.append(
            f"| {r['phase']} | {inp.format(**fmt)} | {sched.format(**fmt)} | {r.get('partitions', '')} | {wall} | "
            f"{r['peak_rss_gib']:.2f} | {r['load']} | {what.format(**fmt)} |"
        )
    by = {r["phase"]: r for r in report["results"]}
    lines += ["", "## Where the time goes", ""]
    if "pandas" in by and "read_s" in by["pandas"]:
        p = by["pandas"]
        lines.append(f"- pandas subset ({p['rows']:,} rows): read {p['read_s']:.1f} s, evaluate {p['evaluate_s']:.1f} s.")
    if "pandas" in by and "dask-subset" in by and "wall_s" in by["dask-subset"]:
        ratio = by["dask-subset"]["wall_s"] / by["pandas"]["wall_s"]
        lines.append(f"- **Dask overhead** on the same subset, end to end (read + evaluate): {by['dask-subset']['wall_s']:.1f} s vs pandas {by['pandas']['wall_s']:.1f} s = **{ratio:.2f}x**.")
    if "read-only" in by and "system" in by:
        lines.append(f"- Reading and validating the 10^8 rows alone (by system): {by['read-only']['wall_s']:.1f} s of the {by['system']['wall_s']:.1f} s of the by-system evaluation.")
    for name in ("system", "query", "shuffle", "trec"):
        if name in by and "graph_s" in by[name]:
            lines.append(f"- Building the lazy graph ({name}): {by[name]['graph_s']:.2f} s.")
    if "shuffle" in by and "system" in by:
        lines.append(f"- The shuffle by query costs {by['shuffle']['wall_s'] - by['system']['wall_s']:.1f} s over the by-system layout.")
    fin = report.get("final", {})
    if "final_s" in fin:
        lines.append(f"- The final task alone (split check, zero grid, order) on the {fin['rows']:,} partition rows: {fin['final_s']:.2f} s.")
    for name in ("cluster-system", "cluster-shuffle"):
        if name in by and "spilled" in by[name]:
            lines.append(f"- Bytes spilled to disk per worker ({name}): {by[name]['spilled']}.")
    if report.get("rerun"):
        lines.append(f"- Rerun: {report['rerun']}")
    lines += ["", "## Bit identity", ""]
    for k, v in report["compare"].items():
        lines.append(f"- {k}: {'identical' if v is True else v}")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["generate", "run", "phase", "final", "compare", "render"])
    ap.add_argument("name", nargs="?")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--root", default=None)
    ap.add_argument("--phases", default="read-only,pandas,dask-subset,system,query,shuffle,trec,cluster-system,cluster-shuffle,variants-pandas,variants-dask")
    ap.add_argument("--pandas-systems", type=int, default=None, help="systems in the pandas subset (default 40, 4 with --small)")
    ap.add_argument("--variant-systems", type=int, default=None, help="systems in the evaluate_variants phases (default 20, 4 with --small)")
    ap.add_argument("--memory-limit", default="3GiB", help="LocalCluster memory limit per worker")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    root = Path(args.root or ("/tmp/pdireval-dask" + ("-small" if args.small else "")))
    if args.pandas_systems is None:
        args.pandas_systems = 4 if args.small else 40
    if args.variant_systems is None:
        args.variant_systems = 4 if args.small else 20
    if args.command == "generate":
        generate(root, args.small)
        return
    if args.command == "phase":
        print(json.dumps(phase(args.name, root, args)))
        return
    if args.command == "final":
        print(json.dumps(final_task_time(root)))
        return
    if args.command == "render":  # re-render the Markdown from a saved JSON report
        out = Path(args.out or HERE / "results" / ("dask-small.md" if args.small else "dask.md"))
        out.write_text(render(json.loads(out.with_suffix(".json").read_text())))
        return
    if args.command == "compare":
        print(json.dumps(compare(root, args.phases.split(","))))
        return
    # run: every phase in its own process
    common = [*(["--small"] if args.small else []), "--root", str(root), "--pandas-systems", str(args.pandas_systems), "--variant-systems", str(args.variant_systems), "--memory-limit", args.memory_limit]
    results = []
    load_start = open("/proc/loadavg").read().split()[:3]
    for name in args.phases.split(","):
        load = open("/proc/loadavg").read().split()[0]
        res, peak = run_child(["phase", name, *common])
        res.update(peak_rss_gib=peak / 2**30, load=load)
        print(json.dumps(res), file=sys.stderr, flush=True)
        results.append(res)
    final, _ = run_child(["final", *common])
    same, _ = run_child(["compare", "--phases", args.phases, *common])
    load_end = open("/proc/loadavg").read().split()[:3]
    report = {"results": results, "final": final, "compare": same, "load_start": load_start, "load_end": load_end,
              "sizes": sizes(args.small), "pandas_systems": args.pandas_systems, "memory_limit": args.memory_limit,
              "python": platform.python_version()}
    import dask
    import numpy
    import pandas
    import pyarrow

    report["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    report["variant_systems"] = args.variant_systems
    report["versions"] = (f"python {platform.python_version()}, pandas {pandas.__version__}, numpy {numpy.__version__}, "
                          f"pyarrow {pyarrow.__version__}, dask {dask.__version__}")
    out = Path(args.out or HERE / "results" / ("dask-small.md" if args.small else "dask.md"))
    out.with_suffix(".json").write_text(json.dumps(report, indent=1))
    out.write_text(render(report))
    print(render(report))


if __name__ == "__main__":
    main()
