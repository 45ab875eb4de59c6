"""The RAG subcommands of ``pdireval``: ``nuggets`` and ``support``.

Each reads a table file (CSV, TSV, JSON lines or Parquet, by its extension; the producing
tools' column spellings are recognised), scores it with :func:`pdireval.evaluate_nuggets` /
:func:`pdireval.evaluate_support` and prints one block per system like ``pdireval evaluate``
(``measure <tab> all <tab> mean``, optionally per query), or the tidy rows as CSV / JSON.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas loads inside the functions: the command line starts light
    import pandas as pd

__all__ = ["add_nuggets", "add_support", "read_table", "system_table"]


def read_table(path: str) -> pd.DataFrame:
    """A table file as a frame, its format read from the extension (after a ``.gz``):
    ``.csv``; ``.tsv`` / ``.txt`` (tab-separated, with a header); ``.jsonl`` / ``.json``
    (JSON lines, one flat record per line); ``.parquet``. Ids are read as text."""
    import pandas as pd

    from pdireval.errors import SchemaError

    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    ext = suffixes[-1] if suffixes else ""
    if ext == ".csv":
        return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    if ext in (".tsv", ".txt"):
        return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, na_values=[""])
    if ext in (".jsonl", ".json"):
        return pd.read_json(path, lines=True, dtype=False)
    if ext == ".parquet":
        return pd.read_parquet(path)
    raise SchemaError(
        f"{path}: cannot tell the table format from the extension {ext or '(none)'!r}. Name "
        "the file .csv, .tsv, .jsonl or .parquet (a table with a header row)."
    )


def system_table(scores: pd.DataFrame, summary: pd.DataFrame, per_query: bool) -> str:
    """``pdireval evaluate``'s layout: one block per system (and judge), ``measure <tab>
    query|all <tab> value`` with 4 decimals, the interval after the mean when computed."""
    keys = ["judge", "system"] if "judge" in summary.columns else ["system"]
    width = max([len("runid"), len("num_q")] + [len(m) for m in summary["measure"]]) + 1
    lines = []
    for key, block in summary.groupby(keys, sort=False):
        judge, system = key if len(keys) == 2 else (None, key[0])
        lines.append(f"{'runid':<{width}}\tall\t{system}")
        if judge is not None:
            lines.append(f"{'judge':<{width}}\tall\t{judge}")
        lines.append(f"{'num_q':<{width}}\tall\t{int(block['n_queries'].max())}")
        if per_query:
            rows = scores[scores["system"] == system]
            if judge is not None:
                rows = rows[rows["judge"] == judge]
            for measure, query, value in zip(rows["measure"], rows["query"], rows["value"]):
                lines.append(f"{measure:<{width}}\t{query}\t{value:.4f}")
        lows = block["ci_low"] if "ci_low" in block else [None] * len(block)
        highs = block["ci_high"] if "ci_high" in block else [None] * len(block)
        for measure, value, low, high in zip(block["measure"], block["mean"], lows, highs):
            text = f"{value:.4f}"
            if low is not None:
                text += f"\t[{low:.4f}, {high:.4f}]"
            lines.append(f"{measure:<{width}}\tall\t{text}")
    return "\n".join(lines) + "\n"


def _common(p, default: str) -> None:
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"a score; repeat for more (default: {default})",
    )
    p.add_argument("--per-query", action="store_true", help="also print one value per query")
    p.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="table: one block per system, 4 decimals (default); csv / json: tidy rows, full "
        "precision",
    )
    p.add_argument(
        "--empty",
        choices=("zero", "nan"),
        default="zero",
        help="a score whose denominator is 0: 0.0 (zero, default; nuggetizer's) or NaN",
    )
    p.add_argument(
        "--missing",
        choices=("zero", "drop"),
        default="zero",
        help="a (system, query) with no row while other systems have one: scored as an empty "
        "answer (zero, default) or left out (drop)",
    )
    p.add_argument(
        "--ci",
        choices=("t", "bootstrap", "anova"),
        default=None,
        help="add a confidence interval to every mean (pdireval.aggregate's method=)",
    )
    p.add_argument(
        "--confidence-level",
        type=float,
        default=0.95,
        metavar="LEVEL",
        help="confidence level of --ci (default 0.95)",
    )


def add_nuggets(subparsers) -> None:
    """``pdireval nuggets``: nugget scores per system, like ``pdireval evaluate``."""
    p = subparsers.add_parser(
        "nuggets",
        help="score RAG answers by their nugget assignments (nuggetizer's scores and W)",
        description=(
            "Score RAG answers by nugget assignments (one row per system, query and nugget "
            "with its label: support / partial_support / not_support or 1 / 0.5 / 0) and print "
            "each score per system, averaged over queries ('all'). The scores are "
            "nuggetizer's (A = all_score, A_strict, V = vital_score, V_strict) and the "
            "weighted score W of the TREC 2024 RAG track (W_strict)."
        ),
        epilog=(
            "examples:\n"
            "  pdireval nuggets assignments.tsv --nuggets nuggets.jsonl\n"
            "  pdireval nuggets assignments.csv -m V_strict -m W --per-query\n"
            "  pdireval nuggets assignments.parquet --nuggets nuggets.csv --format csv > s.csv\n"
            "columns: system (or run_id), query (qid, topic_id), nugget (nugget_id), label "
            "(assignment), optional judge and importance; nuggets: query, nugget, importance "
            "(vital / okay or a weight), optional group and rule (and / or)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("assignments", metavar="ASSIGNMENTS", help="the assignments table file")
    p.add_argument(
        "--nuggets",
        metavar="NUGGETS",
        help="the nuggets table file (query, nugget, importance); without it the assignments "
        "carry each nugget's importance",
    )
    _common(p, "A A_strict V V_strict W W_strict")
    p.set_defaults(func=run_nuggets)


def add_support(subparsers) -> None:
    """``pdireval support``: citation support scores per system."""
    p = subparsers.add_parser(
        "support",
        help="score RAG answers by the support of their citations (weighted P, R, F1)",
        description=(
            "Score RAG answers by citation support labels (one row per system, query, "
            "sentence and cited document with its label: full_support / partial_support / "
            "no_support, FS / PS / NS or 1 / 0.5 / 0; one row with no doc and no label per "
            "uncited sentence) and print weighted precision, recall and F1 per system "
            "(Thakur et al., 2025)."
        ),
        epilog=(
            "examples:\n"
            "  pdireval support support.csv\n"
            "  pdireval support support.tsv -m support_f1 --per-query --ci t\n"
            "columns: system (run_id), query (topic_id), sentence (sentence_id), doc "
            "(reference), label (support), optional judge."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("support", metavar="SUPPORT", help="the support table file")
    _common(p, "support_precision support_recall support_f1")
    p.set_defaults(func=run_support)


def _print(scores: pd.DataFrame, args) -> int:
    from pdireval.meta.aggregate import aggregate

    options = {}
    if args.ci is not None:
        options = {"method": args.ci, "confidence_level": args.confidence_level}
    summary = aggregate(scores, **options)
    keys = ["judge", "system"] if "judge" in summary.columns else ["system"]
    summary = summary.sort_values(keys, kind="stable", ignore_index=True)
    if args.format == "table":
        sys.stdout.write(system_table(scores, summary, args.per_query))
        return 0
    frame = scores if args.per_query else summary
    if args.format == "csv":
        sys.stdout.write(frame.to_csv(index=False))
    else:
        sys.stdout.write(frame.to_json(orient="records", double_precision=15) + "\n")
    return 0


def run_nuggets(args) -> int:
    from pdireval.rag.nuggets import evaluate_nuggets

    nuggets = read_table(args.nuggets) if args.nuggets else None
    scores = evaluate_nuggets(
        read_table(args.assignments),
        args.measures,
        nuggets=nuggets,
        empty=args.empty,
        missing=args.missing,
    )
    return _print(scores, args)


def run_support(args) -> int:
    from pdireval.rag.support import evaluate_support

    scores = evaluate_support(
        read_table(args.support), args.measures, empty=args.empty, missing=args.missing
    )
    return _print(scores, args)
