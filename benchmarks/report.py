"""Time `pdireval report` end to end (a fresh process each, as a user runs it).

    python benchmarks/report.py            # simulated collection and Robust 2003 (if ../shared exists)

Prints wall time and peak memory (max RSS of the child process) for each collection.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROBUST = ROOT.parent / "shared" / "data" / "robust03"


def timed(args: list[str]) -> tuple[float, float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pdireval.cli", *args], capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return wall, peak_mb, done.stdout.strip()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cases = [("simulated (10 systems × 50 queries)", ["report", "--out", f"{tmp}/sim", "--no-progress"])]
        if ROBUST.exists():
            cases.append((
                "Robust 2003 (17 runs × 100 topics, 1.5M rows)",
                ["report", str(ROBUST / "runs"), "--qrels", str(ROBUST / "qrels.txt"), "--out", f"{tmp}/robust", "--no-progress"],
            ))
        print("| collection | wall time (s) | peak memory so far (MB) |\n|---|---|---|")
        for name, args in cases:
            wall, peak, _ = timed(args)
            print(f"| {name} | {wall:.1f} | {peak:.0f} |")


if __name__ == "__main__":
    main()
