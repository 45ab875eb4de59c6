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

from pdireval.cli_analyses import print_frame
from pdireval.cli_inputs import add_ci, add_measures, add_table_options, summarise, system_table

if TYPE_CHECKING:  # pandas loads inside the functions: the command line starts light
    import pandas as pd

__all__ = ["add_nuggets", "add_support", "read_table"]


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


def _common(p, default: str) -> None:
    add_measures(p, default, "a score")
    add_table_options(p, "one block per system")
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
    add_ci(p)


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
    summary = summarise(scores, args)
    if args.format == "table":
        sys.stdout.write(system_table(scores, summary, args.per_query))
    else:
        print_frame(scores if args.per_query else summary, args.format)
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
