"""Import cost of pdireval against pandas, in fresh processes (issue: a light import).

Measures, interleaved in one run so that machine load affects both alike:

1. ``import pandas`` vs ``import pdireval`` — the time of the import statement itself
   (``time.perf_counter`` around it, in a fresh interpreter each time);
2. the whole process ``python -c "import pandas"`` vs ``pdireval --help`` (interpreter
   start-up included: what a user waits for at the command line).

Writes ``results/import_time.md`` (``--out`` to change). Usage::

    python benchmarks/import_time.py [--runs 21] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def import_seconds(module: str) -> float:
    code = f"import time; s = time.perf_counter(); import {module}; print(time.perf_counter() - s)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout)


def process_seconds(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=True)
    return time.perf_counter() - start


def heavy_modules_after_import() -> list[str]:
    code = (
        "import sys, pdireval; heavy = ('scipy.stats', 'matplotlib', 'openpyxl', 'tqdm', 'pingouin', "
        "'dask', 'pdireval.meta', 'pdireval.runs', 'pdireval.stats', 'pdireval.evaluation'); "
        "print(','.join(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--out", default=str(HERE / "results" / "import_time.md"))
    args = parser.parse_args()
    cli = [sys.executable, "-m", "pdireval.cli", "--help"]
    pandas_import, pdireval_import, pandas_process, help_process = [], [], [], []
    load_before = os.getloadavg()
    for _ in range(args.runs):
        pandas_import.append(import_seconds("pandas"))
        pdireval_import.append(import_seconds("pdireval"))
        pandas_process.append(process_seconds([sys.executable, "-c", "import pandas"]))
        help_process.append(process_seconds(cli))
    load_after = os.getloadavg()
    med = statistics.median
    ratio_import = med(pdireval_import) / med(pandas_import)
    ratio_help = med(help_process) / med(pandas_process)
    import pandas

    rows = [
        ("`import pandas` (statement)", pandas_import, ""),
        ("`import pdireval` (statement)", pdireval_import, f"{ratio_import:.2f}x pandas"),
        ('`python -c "import pandas"` (process)', pandas_process, ""),
        ("`pdireval --help` (process)", help_process, f"{ratio_help:.2f}x pandas"),
    ]
    lines = [
        "# Import cost",
        "",
        f"`python benchmarks/import_time.py --runs {args.runs}`: {args.runs} fresh processes per row,",
        "the four measurements interleaved in one run. Target: `import pdireval` at most 1.5x",
        "`import pandas`; `pdireval --help` as quick.",
        "",
        f"Machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"pandas {pandas.__version__}; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after "
        "(other work was running on the machine).",
        "",
        "| what | median (s) | min (s) | max (s) | ratio |",
        "|---|---|---|---|---|",
    ]
    for name, values, ratio in rows:
        lines.append(f"| {name} | {med(values):.3f} | {min(values):.3f} | {max(values):.3f} | {ratio} |")
    heavy = heavy_modules_after_import()
    lines += [
        "",
        "Modules loaded by `import pdireval` among scipy.stats, matplotlib, openpyxl, tqdm, pingouin,",
        f"dask and the analysis subpackages: {', '.join(heavy) if heavy else 'none'}. Public names are",
        "loaded on first use (`pdireval/public.py`), the accessor's methods on first access.",
        "",
    ]
    Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
