"""Benchmark: the cost of the float32-merge warning inside ``pdireval.evaluate`` (issue 13).

    python benchmarks/float32_check.py            # the full-size collections of evaluate.py
    python benchmarks/float32_check.py --small    # 10x smaller

pdireval compares run scores at float32 precision (trec_eval 9); since issue 13 it warns
when that ties distinct doubles in a tie group holding a judged document. The check runs
only on those tie groups (one gather and two ``reduceat`` over their members), inside the
tie-breaking step that exists anyway. This script measures, in one process on the seeded
collections of ``evaluate.py`` (``_data.py``), the time spent in that check
(``pdireval.core.segments._merged_groups``, wrapped with a timer) against the whole
``prepare`` (validation, keys, the qrels join, positions and ties), best of ``--repeat``
calls, for the rows in file order and shuffled. Whole-``evaluate`` wall times before and
after the change, from ``evaluate.py`` run side by side, are in the results file.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--repeat", type=int, default=6)
    args = ap.parse_args()
    import _data

    from pdireval.core import segments as seg
    from pdireval.evaluation import prepare

    original = seg._merged_groups
    spent = [0.0]

    def timed(*a):
        t0 = time.perf_counter()
        try:
            return original(*a)
        finally:
            spent[0] += time.perf_counter() - t0

    seg._merged_groups = timed
    scale = 10 if args.small else 1
    data = (("MS MARCO-dev-like", lambda: _data.msmarco_like(7000 // scale)),
            ("TREC-like", lambda: _data.trec_like(100 // scale)))
    print("| collection | rows | judged hits | prepare s (best) | float32 check ms (best) | share |")
    print("|---|---|---|---|---|---|")
    for name, make in data:
        run, qrels = make()
        for label, frame in (("file order", run), ("shuffled", run.sample(frac=1.0, random_state=0))):
            best_total = best_check = float("inf")
            for _ in range(args.repeat):
                spent[0] = 0.0
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t0 = time.perf_counter()
                    prepared = prepare(frame, qrels=qrels)
                    total = time.perf_counter() - t0
                best_total, best_check = min(best_total, total), min(best_check, spent[0])
            print(f"| {name}, {label} | {len(frame):,} | {len(prepared.segments.hit_seg):,} | "
                  f"{best_total:.3f} | {best_check * 1000:.1f} | {best_check / best_total * 100:.2f} % |")


if __name__ == "__main__":
    main()
