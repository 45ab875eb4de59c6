"""Benchmark: does each kernel shortcut (fast path) buy at least 1.5x over the general exact
path it stands in for, on the TREC-like collection? (issue 22: keep a fast path only then)

    python benchmarks/fast_paths.py            # 20 systems x 50 queries x 1000 documents
    python benchmarks/fast_paths.py --small    # 5 systems

Each pair is timed ``--repeat`` times in turn (round robin) with the caches emptied; the
minimum wall time is reported. Both paths give bit-identical values (tested in
tests/measures/test_kernel_shortcuts.py and test_ties.py); the table says which to keep.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--systems", type=int, default=None, help="systems (default 20; 5 with --small)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="", help="time only the rows whose label contains this")
    args = parser.parse_args()
    from _data import trec_like

    import pytest

    from pdireval.evaluation import prepare
    from pdireval.measures import gain_levels, parse_measure
    from pdireval.measures.sakai import kernels as sakai
    from pdireval.measures.ties import orderings
    from pdireval.measures.trec_eval import kernels as trec

    n_systems = args.systems or (5 if args.small else 20)
    run, qrels = trec_like(n_systems=n_systems, n_queries=50, depth=1000, rng=0)
    segments = prepare(run, qrels=qrels).segments
    binary = qrels.assign(label=(qrels["label"] > 0).astype(float))
    segments_binary = prepare(run, qrels=binary).segments

    def kernel(name, segs=None, **kw):
        m = parse_measure(name)
        segs = segments if segs is None else segs
        return lambda: m.definition.kernel(segs, m, **kw)

    def one_gain_off(name, segs):
        m = parse_measure(name)

        def go():
            with pytest.MonkeyPatch.context() as patch:
                for module in (gain_levels, sakai):
                    patch.setattr(module, "one_value", lambda values: False)
                return m.definition.kernel(segs, m)

        return go

    def enumerate_(name, **kw):
        m = parse_measure(name)
        return lambda: orderings.expected_by_orderings(
            m.definition.kernel, segments, m, joint=False, truncate=True, depth=m.cutoff, **kw)

    pairs = [
        ("IPrec@0.1: lists by pieces (short_relevant=8) vs running maximum",
         kernel("IPrec@0.1"), kernel("IPrec@0.1", short_relevant=10**9)),
        ("11pt_avg: by pieces vs running maximum",
         kernel("11pt_avg"), kernel("11pt_avg", short_relevant=10**9)),
        ("Rndcg: one pass per R-level vs (list, level) pairs",
         kernel("Rndcg"), kernel("Rndcg", max_level_passes=0)),
        ("Rndcg, binary qrels: one-gain ideal table vs sorted ideal",
         kernel("Rndcg", segments_binary), one_gain_off("Rndcg", segments_binary)),
        ("G, binary qrels: one-gain ideal table vs sorted ideal",
         kernel("G", segments_binary), one_gain_off("G", segments_binary)),
        ("ndcg_rel, binary qrels: one-gain ideal table vs sorted ideal",
         kernel("ndcg_rel", segments_binary), one_gain_off("ndcg_rel", segments_binary)),
        ("Q, binary qrels: one-gain ideal table vs sorted ideal",
         kernel("Q", segments_binary), one_gain_off("Q", segments_binary)),
        ("nERR@20, binary qrels: one-label ideal table vs sorted ideal",
         kernel("nERR@20", segments_binary), one_gain_off("nERR@20", segments_binary)),
        ("G ties=expected: cyclic designs vs each group alone",
         enumerate_("G"), enumerate_("G", designs=False)),
        ("Bpref@100 ties=expected: cyclic designs vs each group alone",
         enumerate_("Bpref@100"), enumerate_("Bpref@100", designs=False)),
    ]
    pairs = [p for p in pairs if args.only in p[0]]
    times = {label: ([], []) for label, _, _ in pairs}
    for _ in range(args.repeat):
        for label, fast, general in pairs:
            for which, fn in enumerate((fast, general)):
                segments.cache.clear()
                segments_binary.cache.clear()
                segments.judgments.cache.clear()
                segments_binary.judgments.cache.clear()
                t0 = time.process_time()
                fn()
                times[label][which].append(time.process_time() - t0)
    lines = ["| shortcut vs general path | shortcut (ms) | general (ms) | speed-up |", "|---|---|---|---|"]
    for label, (a, b) in times.items():
        fa, fb = min(a) * 1e3, min(b) * 1e3
        lines.append(f"| {label} | {fa:.1f} | {fb:.1f} | {fb / fa:.2f}x |")
    text = "\n".join(lines)
    print(text)
    if args.only:
        return
    out = HERE / "results" / "fast_paths.md"
    size = str(n_systems)
    out.write_text(
        "# Kernel shortcuts against their general paths\n\n"
        f"`python benchmarks/fast_paths.py --systems {n_systems}`: TREC-like run, "
        f"{size} systems x 50 queries x 1000 documents (pooled to depth 30, graded; the binary "
        f"rows on the same run with labels > 0 set to 1), minimum of {args.repeat} timings (CPU time of the process, less sensitive to the shared machine's load than wall time), "
        "caches emptied. A shortcut is kept only at >= 1.5x (issue 22).\n\n" + text + "\n"
    )


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
