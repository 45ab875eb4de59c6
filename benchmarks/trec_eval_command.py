"""``pdireval trec_eval`` against the trec_eval 9.0.8 and 10.0 binaries, one process per run.

As scripts call it: a fresh process per run file, timed from outside (wall clock and the
child's CPU time, start-up included), side by side with the C binary built from
../shared/oracles, in turn (A B A B ...), so that a drift in the machine's load hits both
alike; each pair gives a ratio and the medians are quoted. For each version (9.0.8, and
10.0 with ``--v10``) and for the default measures and ``-q -m all_trec``:

* one Robust 2003 run (input.InexpC2, 100,000 lines; its scores have 16-17 digits),
  ``--repeat`` pairs: min and median of each side and of the per-pair ratios;
* the 17 Robust 2003 runs once each: total time, ratio, and whether every output (stdout
  and exit status) is the binary's, byte for byte; and each run with 3 pairs (9.0.8,
  default measures), smallest first: a small run costs the binary little, so start-up
  weighs more in pdireval's ratio.

Two floors are timed the same way against the binary: ``python -c pass`` (the interpreter
with this environment's site-packages start-up) and ``python -c "import numpy"`` (what any
Python command using numpy pays before reading a byte).

pdireval runs through the ``pdireval`` console script installed next to this interpreter
(not a version manager's shim, which would add a shell and a second process to every call),
with this checkout first on the path and Python's bytecode cache allowed (as in any installed
package; one warm-up call writes it). Needs ../shared (data and the oracle build script).
About 2 minutes of CPU with the default ``--repeat 11``. Writes results/trec_eval_command.md.

    python benchmarks/trec_eval_command.py [--repeat 11]
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared"


def timed(argv, env=None):
    """(wall seconds, CPU seconds of the child: user + system, stdout, exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout, done.returncode


#: where one call's time goes, in one fresh interpreter (CPU seconds, time.process_time):
#: the imports, then each phase of pdireval.trec as the command runs it, on the first call
PHASES = r"""
import sys, time, io
clock = time.process_time
sys.argv = ["pdireval", "trec_eval"]
t0 = clock()
import numpy as np
t1 = clock()
import pdireval.cli
from pdireval.treceval import command
from pdireval.trec import trec_columns, trec_engine
from pdireval.trec.trec_measures import Epi
t2 = clock()
qrels_path, run_path, version = sys.argv[1:4] if len(sys.argv) > 3 else (None, None, None)
"""


def phase_probe(qrels: str, run: str, version: str) -> str:
    """Python source printing the CPU seconds of each phase of one call (see PHASES)."""
    return PHASES + f"""
q_data = open({qrels!r}, "rb").read(); r_data = open({run!r}, "rb").read()
t3 = clock()
q_table = trec_columns.table(q_data, 4)
r_table = trec_columns.table(r_data, 6)
t4 = clock()
labels = q_table.ints(3)
scores = r_table.floats(4, single={version!r} != "10")
t5 = clock()
files = trec_columns.Inputs(q_table, r_table, labels, scores)
evaluated = sorted(files.result_queries & set(files.qrels_queries))
fast = files.join(evaluated)
t6 = clock()
epi = Epi(version={version!r})
rr = trec_engine._ranked(epi, len(evaluated), *fast[:5], trec_columns.word_rank, fast[5])
t7 = clock()
out = io.StringIO()
t8 = clock()
command(([] if {version!r} != "10" else ["--v10"]) + [{qrels!r}, {run!r}], out)
t9 = clock()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6, t9 - t8)
"""


def script_path() -> str:
    beside = Path(sys.executable).parent / "pdireval"
    if beside.exists():
        return str(beside)
    found = shutil.which("pdireval")
    if found is None:
        sys.exit("the pdireval script is not installed (pip install -e .)")
    return found


def pairs(a_argv, b_argv, repeat, env):
    """``repeat`` interleaved (A, B) runs: lists of (wall, cpu) for each side."""
    a, b = [], []
    for _ in range(repeat):
        a.append(timed(a_argv, env)[:2])
        b.append(timed(b_argv)[:2])
    return a, b


def summary(a, b) -> dict:
    med = statistics.median
    return {
        "a_wall": (min(x[0] for x in a), med(x[0] for x in a)),
        "b_wall": (min(x[0] for x in b), med(x[0] for x in b)),
        "a_cpu": (min(x[1] for x in a), med(x[1] for x in a)),
        "b_cpu": (min(x[1] for x in b), med(x[1] for x in b)),
        "r_wall": med(x[0] / y[0] for x, y in zip(a, b)),
        "r_cpu": med(x[1] / y[1] for x, y in zip(a, b)),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--out", default=str(HERE / "results" / "trec_eval_command.md"))
    args = parser.parse_args()

    script = script_path()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")

    work = Path(tempfile.mkdtemp(prefix="te-bench-"))
    build = SHARED / "oracles" / "build-trec-eval"
    binaries = {
        v: subprocess.run([str(build), v, str(work / f"te-{v}")], capture_output=True, text=True,
                          check=True).stdout.strip().splitlines()[-1]
        for v in ("9.0.8", "10.0")
    }
    qrels = str(SHARED / "data" / "robust03" / "qrels.txt")
    runs = []
    for path in sorted((SHARED / "data" / "robust03" / "runs").iterdir()):
        target = work / path.name.removesuffix(".gz")
        with gzip.open(path, "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
        runs.append(str(target))
    one = next(r for r in runs if r.endswith("input.InexpC2"))
    for flag in ([], ["--v10"]):  # warm-up: writes the bytecode cache, loads the page cache
        timed([script, "trec_eval", *flag, qrels, one], env)
    timed([binaries["9.0.8"], qrels, one])
    load_before = os.getloadavg()

    binary9 = [binaries["9.0.8"], qrels, one]
    floors = {
        "`python -c pass`": summary(*pairs([sys.executable, "-c", "pass"], binary9, args.repeat, env)),
        "`python -c 'import numpy'`": summary(
            *pairs([sys.executable, "-c", "import numpy"], binary9, args.repeat, env)),
    }
    rows = []
    for version, flag in (("9.0.8", []), ("10.0", ["--v10"])):
        for label, extra in (("default (official)", []), ("-q -m all_trec", ["-q", "-m", "all_trec"])):
            ours = [script, "trec_eval", *flag, *extra, qrels, one]
            theirs = [binaries[version], *extra, qrels, one]
            one_run = summary(*pairs(ours, theirs, args.repeat, env))
            total_a = total_b = 0.0
            identical = 0
            for run in runs:
                wall_a, _cpu, out_a, st_a = timed([script, "trec_eval", *flag, *extra, qrels, run], env)
                wall_b, _cpu, out_b, st_b = timed([binaries[version], *extra, qrels, run])
                total_a += wall_a
                total_b += wall_b
                identical += (out_a, st_a) == (out_b, st_b)
            rows.append((version, label, one_run, total_b, total_a, identical))
    per_run = []  # 9.0.8, default measures: each run, 3 pairs in turn
    for run in runs:
        a, b = pairs([script, "trec_eval", qrels, run], [binaries["9.0.8"], qrels, run], 3, env)
        lines = sum(1 for _ in open(run, "rb"))
        per_run.append((Path(run).name, lines, summary(a, b)))
    phases = []
    for _ in range(5):
        done = subprocess.run([sys.executable, "-c", phase_probe(qrels, one, "9")],
                              capture_output=True, text=True, check=True, env=env)
        phases.append([float(x) for x in done.stdout.split()])
    load_after = os.getloadavg()
    import numpy

    def cell(pair):
        return f"{pair[1]:.3f} s ({pair[0]:.3f})"

    out = [
        "# `pdireval trec_eval` vs the trec_eval binaries, one process per run",
        "",
        f"`python benchmarks/trec_eval_command.py --repeat {args.repeat}`. Robust 2003 (qrels: "
        "128,796 lines; runs of up to 100,000 lines). Machine: "
        f"{platform.machine()}, {os.cpu_count()} cores shared with other work, Python "
        f"{platform.python_version()}, numpy {numpy.__version__}; load average "
        f"{load_before[0]:.1f} before, {load_after[0]:.1f} after (absolute times stretch with the "
        "load; the pairs run in turn, so the ratios less so). Whole processes, start-up included; "
        "pdireval through the `pdireval` script installed beside the interpreter, bytecode cache "
        "allowed.",
        "",
        f"One run (input.InexpC2, 100,000 lines), {args.repeat} pairs run in turn; median (min):",
        "",
        "| trec_eval | measures | binary wall | pdireval wall | wall ratio | binary CPU | "
        "pdireval CPU | CPU ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for version, label, s, *_ in rows:
        out.append(f"| {version} | {label} | {cell(s['b_wall'])} | {cell(s['a_wall'])} | "
                   f"**{s['r_wall']:.2f}x** | {cell(s['b_cpu'])} | {cell(s['a_cpu'])} | "
                   f"{s['r_cpu']:.2f}x |")
    for name, s in floors.items():
        out.append(f"| 9.0.8 | floor: {name}, nothing read | {cell(s['b_wall'])} | "
                   f"{cell(s['a_wall'])} | {s['r_wall']:.2f}x | {cell(s['b_cpu'])} | "
                   f"{cell(s['a_cpu'])} | {s['r_cpu']:.2f}x |")
    out += [
        "",
        "The 17 runs, one process each (wall time):",
        "",
        "| trec_eval | measures | binary, 17 processes | pdireval trec_eval, 17 processes | ratio | "
        "output identical |",
        "|---|---|---|---|---|---|",
    ]
    for version, label, _s, total_b, total_a, identical in rows:
        out.append(f"| {version} | {label} | {total_b:.2f} s | {total_a:.2f} s | "
                   f"{total_a / total_b:.2f}x | {identical}/17 |")
    out += [
        "",
        "Each run, 9.0.8 default measures, 3 pairs in turn (median wall; ratio: median of the "
        "pairs):",
        "",
        "| run | lines | binary | pdireval trec_eval | ratio |",
        "|---|---|---|---|---|",
    ]
    for name, lines, s in sorted(per_run, key=lambda r: r[1]):
        out.append(f"| {name} | {lines:,} | {s['b_wall'][1]:.3f} s | {s['a_wall'][1]:.3f} s | "
                   f"{s['r_wall']:.2f}x |")
    names = ["`import numpy`", "import pdireval's command modules (cli, treceval, trec)",
             "read both files (bytes)", "find the fields (qrels and run)",
             "labels and scores as numbers", "query blocks, join run to qrels (hashed)",
             "rank each query's documents (trec_eval's order, ties by docno)",
             "the whole command once more, warm: read, evaluate, measures, print"]
    out += [
        "",
        "Where one call's time goes (9.0.8, default measures, input.InexpC2): CPU seconds "
        "inside one fresh interpreter (`time.process_time`), median of 5 processes; the "
        "phases are pdireval.trec's own functions, called as the command calls them:",
        "",
        "| phase | median CPU (s) | min CPU (s) |",
        "|---|---|---|",
    ]
    for j, name in enumerate(names):
        values = sorted(p[j] for p in phases)
        out.append(f"| {name} | {values[len(values) // 2]:.4f} | {values[0]:.4f} |")
    out += [
        "",
        "Ratios are pdireval / binary (pdireval's time is that many times the binary's).",
        "",
    ]
    Path(args.out).write_text("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
