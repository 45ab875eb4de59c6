"""First-call latency, in fresh processes, side by side with pytrec_eval (issue 28).

Two questions a new user meets in the first minute:

1. ``pdireval evaluate RUN --qrels QRELS`` of one 50-query run from files, end to end
   (interpreter start-up, imports, reading both files, evaluating AP, nDCG@10, P@10 and RR,
   printing), against a pytrec_eval script doing the same (read both files with plain
   Python, evaluate the same four measures, print the means): what the user waits for.
2. The first ``compare`` and ``paper_table`` of a session (the statistics imported on first
   need) against the second call, in a fresh interpreter per repetition.

The 50-query run is the first 50 queries of TREC 2003 Robust's ``input.uic0301`` (with their
qrels) when ``../shared`` is present, else a simulated collection of the same shape.
Each measurement runs in its own process; the rows are interleaved in one run so that machine
load affects all alike; CPU time (user + system of the child) is reported next to wall time,
because the machine is shared. Writes ``results/latency.md`` (``--out`` to change)::

    python benchmarks/latency.py [--runs 7] [--out FILE]
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "data" / "robust03"

PYTREC = r"""
import sys, pytrec_eval
def read_run(path):
    run = {}
    for line in open(path):
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return run
def read_qrels(path):
    qrels = {}
    for line in open(path):
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    return qrels
qrels, run = read_qrels(sys.argv[2]), read_run(sys.argv[1])
res = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10", "recip_rank"}).evaluate(run)
for m in ("map", "ndcg_cut_10", "P_10", "recip_rank"):
    print(m, "all", f"{sum(v[m] for v in res.values()) / len(res):.4f}")
"""

FIRST_CALLS = r"""
import time
t0 = time.process_time()
import pdireval
run, qrels = pdireval.datasets.simulate(n_systems=5, n_queries=50, rng=1)
scores = pdireval.evaluate(run, ["AP", "nDCG@10"], qrels=qrels)
t1 = time.process_time()
pdireval.compare(scores, n_resamples=1000, rng=0)
t2 = time.process_time()
pdireval.paper_table(scores, format="latex")
t3 = time.process_time()
pdireval.compare(scores, n_resamples=1000, rng=0)
t4 = time.process_time()
import sys
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, int("scipy.stats" in sys.modules))
"""


def files(folder: Path) -> tuple[Path, Path]:
    """A 50-query run and its qrels as TREC files in ``folder``."""
    run_path, qrels_path = folder / "run50.txt", folder / "qrels50.txt"
    if SHARED.exists():
        qrels_lines = (SHARED / "qrels.txt").read_text().splitlines()
        queries = sorted({line.split()[0] for line in qrels_lines}, key=int)[:50]
        keep = set(queries)
        qrels_path.write_text("\n".join(x for x in qrels_lines if x.split()[0] in keep) + "\n")
        with gzip.open(SHARED / "runs" / "input.uic0301.gz", "rt") as f:
            run_path.write_text("".join(x for x in f if x.split()[0] in keep))
        return run_path, qrels_path
    import pdireval

    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=50, depth=1000, rng=1)
    pdireval.write_run(run, run_path)
    pdireval.write_qrels(qrels, qrels_path)
    return run_path, qrels_path


#: the environment of the timed processes: this checkout first on the path, Python's bytecode
#: cache allowed (as in any installed package)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPATH"] = str(HERE.parent) + (os.pathsep + ENV["PYTHONPATH"] if ENV.get("PYTHONPATH") else "")


def pdireval_script() -> list[str]:
    """The ``pdireval`` console script installed beside this interpreter (what a user runs;
    not a version manager's shim), else ``python -m pdireval.cli``."""
    beside = Path(sys.executable).parent / "pdireval"
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "pdireval.cli"]


def timed(argv: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, check=True, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--out", default=str(HERE / "results" / "latency.md"))
    args = parser.parse_args()
    med = statistics.median
    with tempfile.TemporaryDirectory() as tmp:
        run_path, qrels_path = files(Path(tmp))
        n_lines = sum(1 for _ in open(run_path))
        script = Path(tmp) / "pytrec.py"
        script.write_text(PYTREC)
        commands = {
            "python -c pass (interpreter start-up)": [sys.executable, "-c", "pass"],
            'python -c "import pandas"': [sys.executable, "-c", "import pandas"],
            "pdireval evaluate RUN --qrels QRELS": [*pdireval_script(), "evaluate",
                                                    str(run_path), "--qrels", str(qrels_path)],
            "pytrec_eval script (same files, same measures)": [sys.executable, str(script), str(run_path),
                                                               str(qrels_path)],
        }
        load_before = os.getloadavg()
        walls = {k: [] for k in commands}
        cpus = {k: [] for k in commands}
        firsts = []
        for argv in commands.values():  # warm-up: bytecode cache, page cache
            timed(argv)
        for _ in range(args.runs):
            for name, argv in commands.items():
                wall, cpu, _ = timed(argv)
                walls[name].append(wall)
                cpus[name].append(cpu)
            _, _, out = timed([sys.executable, "-c", FIRST_CALLS])
            firsts.append([float(x) for x in out.split()])
        load_after = os.getloadavg()
    import numpy
    import pandas
    import pytrec_eval  # noqa: F401
    import scipy

    ours, theirs = "pdireval evaluate RUN --qrels QRELS", "pytrec_eval script (same files, same measures)"
    lines = [
        "# First-call latency (issue 28)",
        "",
        f"`python benchmarks/latency.py --runs {args.runs}`: {args.runs} fresh processes per row, the rows "
        "interleaved in one run. Data: "
        + ("the first 50 queries of TREC 2003 Robust's `input.uic0301` and their qrels"
           if SHARED.exists() else "a simulated 50-query run")
        + f" ({n_lines:,} run lines), measures AP, nDCG@10, P@10, RR.",
        "",
        f"Machine: {platform.platform()}, {os.cpu_count()} cores shared with other work, Python "
        f"{platform.python_version()}, pandas {pandas.__version__}, numpy {numpy.__version__}, scipy "
        f"{scipy.__version__}; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after. "
        "Wall times stretch with the load; CPU times (user + system of the process) are the "
        "comparable numbers.",
        "",
        "## One run from files, end to end",
        "",
        "| command | median wall (s) | min wall (s) | median CPU (s) | min CPU (s) |",
        "|---|---|---|---|---|",
    ]
    for name in commands:
        lines.append(f"| {name} | {med(walls[name]):.3f} | {min(walls[name]):.3f} | "
                     f"{med(cpus[name]):.3f} | {min(cpus[name]):.3f} |")
    pairs_cpu = med(a / b for a, b in zip(cpus[ours], cpus[theirs]))
    pairs_wall = med(a / b for a, b in zip(walls[ours], walls[theirs]))
    pandas_row = 'python -c "import pandas"'
    lines += [
        "",
        f"pdireval / pytrec_eval: {med(cpus[ours]) / med(cpus[theirs]):.2f}x in CPU time, "
        f"{med(walls[ours]) / med(walls[theirs]):.2f}x in wall time (ratio of the medians; the "
        f"median of the per-round ratios: {pairs_cpu:.2f}x CPU, {pairs_wall:.2f}x wall). "
        f"pdireval's CPU time is {med(cpus[ours]) / med(cpus[pandas_row]):.2f}x that of importing "
        "pandas alone (the `import pandas` row), which pytrec_eval's script does not need.",
        "",
        "## First statistics call of a session",
        "",
        "CPU seconds inside one fresh interpreter (`time.process_time`), medians over the runs:",
        "",
        "| step | median CPU (s) | min CPU (s) |",
        "|---|---|---|",
    ]
    names = ["import pdireval + simulate + evaluate", "first compare (bootstrap, 1000 resamples)",
             "paper_table (t-tests) after it", "second compare (same call)"]
    for j, name in enumerate(names):
        values = [f[j] for f in firsts]
        lines.append(f"| {name} | {med(values):.3f} | {min(values):.3f} |")
    loaded = "yes" if any(f[4] for f in firsts) else "no"
    lines += [
        "",
        f"scipy.stats imported by these calls: {loaded}. The t, F and normal distributions come "
        "from scipy.special (the kernels scipy.stats itself calls, so the values are equal); "
        "scipy.stats is imported on first need only (Wilcoxon, sign and correlation tests).",
        "",
    ]
    Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
