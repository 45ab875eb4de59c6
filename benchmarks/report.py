"""Time `pdireval report` against `pdireval evaluate` of the same files, side by side.

    python benchmarks/report.py               # Robust 2003 (needs ../shared) and the simulated collection
    python benchmarks/report.py --repeat 3    # timed pairs per collection (default 3)

Each timed call is a fresh process (`python -m pdireval.cli ...`), as a user runs it, so the
times include Python start-up, imports, reading the files, validation and writing the
outputs. The two commands run in turn (report, evaluate, report, evaluate, ...) and the
ratio is taken pair by pair, so a machine whose speed drifts during the run (other jobs on
shared cores) moves both sides of a ratio alike. Both evaluate the same measures (the
report's defaults). Prints a Markdown table with the median wall time of each command, the
median and range of the per-pair ratio, the peak memory of the report's process, the
machine and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROBUST = ROOT.parent / "shared" / "data" / "robust03"
MEASURES = ["nDCG@10", "AP", "P@10", "RR", "Bpref"]  # pdireval.reporting.DEFAULT_MEASURES


def run_once(args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one fresh `python -m pdireval.cli ARGS` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pdireval.cli", *args], capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pdireval {' '.join(args)} failed:\n{done.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024


def side_by_side(report_args: list[str], evaluate_args: list[str], repeat: int) -> dict:
    run_once(evaluate_args)  # warm the file cache; not counted
    reports, evaluates, ratios = [], [], []
    for _ in range(repeat):
        r, _ = run_once(report_args)
        e, _ = run_once(evaluate_args)
        reports.append(r)
        evaluates.append(e)
        ratios.append(r / e)
    return {"report": reports, "evaluate": evaluates, "ratio": ratios}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed (report, evaluate) pairs per collection")
    args = parser.parse_args()
    m = [a for x in MEASURES for a in ("-m", x)]
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        if ROBUST.exists():
            files = [str(ROBUST / "runs"), "--qrels", str(ROBUST / "qrels.txt")]
            cases.append(("Robust 2003 (17 runs × 100 queries, 1.5M rows)", files))
        cases.append(("simulated (pdireval report / evaluate with no input)", []))
        load_before = os.getloadavg()
        rows = []
        for name, files in cases:
            res = side_by_side(
                ["report", *files, "--out", f"{tmp}/out", "--no-progress"],
                ["evaluate", *files, *m],
                args.repeat,
            )
            rows.append((name, res))
        load_after = os.getloadavg()
    import numpy
    import pandas

    print(f"Machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
          f"pandas {pandas.__version__}, numpy {numpy.__version__}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.")
    print(f"Load average (1, 5, 15 min) before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}; "
          f"after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}.\n")
    print("| collection | `pdireval report` (s, median) | `pdireval evaluate` (s, median) | report / evaluate (median of pairs) | ratio range | pairs |")
    print("|---|---|---|---|---|---|")
    for name, res in rows:
        print(f"| {name} | {statistics.median(res['report']):.1f} | {statistics.median(res['evaluate']):.1f} | "
              f"{statistics.median(res['ratio']):.2f}x | {min(res['ratio']):.2f}–{max(res['ratio']):.2f} | {len(res['ratio'])} |")


if __name__ == "__main__":
    main()
