"""``pdireval trec_eval`` against the trec_eval 9.0.8 binary, side by side.

For each of the 17 Robust 2003 runs (uncompressed, as trec_eval reads plain files), time one
``trec_eval -q QRELS RUN`` process and one ``pdireval trec_eval -q QRELS RUN`` call (in this
process: reading both files, evaluating, formatting), for the official set and for
``-m all_trec``; check the outputs agree line for line on every measure pdireval prints.
Needs ../shared (data and the oracle build script). Writes results/trec_eval_command.md.

    python benchmarks/trec_eval_command.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import gzip
import io
import platform
import shutil
import subprocess
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(HERE / "results" / "trec_eval_command.md"))
    args = parser.parse_args()

    import pdireval
    from pdireval.cli import main as cli

    work = Path(tempfile.mkdtemp(prefix="te-bench-"))
    binary = subprocess.run([str(SHARED / "oracles" / "build-trec-eval"), "9.0.8", str(work / "te")],
                            capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    qrels = SHARED / "data" / "robust03" / "qrels.txt"
    runs = []
    for path in sorted((SHARED / "data" / "robust03" / "runs").iterdir()):
        target = work / path.name.removesuffix(".gz")
        with gzip.open(path, "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
        runs.append(target)

    def ours(argv):
        buffer = io.StringIO()
        with redirect_stdout(buffer):
            cli(["trec_eval", *argv])
        return buffer.getvalue()

    rows = []
    for label, extra in (("official (default)", []), ("-m all_trec", ["-m", "all_trec"])):
        t_bin, t_ours, lines, equal = [], [], 0, True
        for _ in range(args.repeat):
            tb = to = 0.0
            for run in runs:
                argv = ["-q", *extra, str(qrels), str(run)]
                start = time.perf_counter()
                reference = subprocess.run([binary, *argv], capture_output=True, text=True, check=True).stdout
                tb += time.perf_counter() - start
                start = time.perf_counter()
                mine = ours(argv)
                to += time.perf_counter() - start
                names = {line.split("\t")[0].strip() for line in mine.splitlines()}
                kept = [line for line in reference.splitlines() if line.split("\t")[0].strip() in names]
                equal &= kept == mine.splitlines()
                lines = max(lines, len(mine.splitlines()))
            t_bin.append(tb)
            t_ours.append(to)
        rows.append((label, min(t_bin), min(t_ours), equal, lines))

    with open("/proc/loadavg") as fh:
        load = fh.read().split()[:3]
    out = [
        "# `pdireval trec_eval` vs the trec_eval 9.0.8 binary",
        "",
        f"17 Robust 2003 runs (1.5M lines), `-q`, best of {args.repeat}; machine: {platform.machine()}, "
        f"Python {platform.python_version()}, pdireval {pdireval.__version__}; load average {' '.join(load)} "
        "(2 cores shared by several developers: absolute times are noisy, the ratio less so).",
        "",
        "| measures | trec_eval binary, 17 processes | pdireval trec_eval, 17 calls | ratio | identical lines |",
        "|---|---|---|---|---|",
    ]
    for label, tb, to, equal, _ in rows:
        out.append(f"| {label} | {tb:.2f} s | {to:.2f} s | {to / tb:.2f}x | {'yes' if equal else 'NO'} |")
    out += [
        "",
        "pdireval's time includes reading and validating both files (the qrels 17 times) and the",
        "trec_eval-order sort; the binary's includes process start-up. \"identical lines\": the binary's",
        "output restricted to the measures pdireval prints equals pdireval's output.",
        "",
    ]
    Path(args.out).write_text("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
