"""The scripting subcommands of ``pdireval``: ``compare``, ``agreement`` and ``fuse``.

Each reads run, qrels or scores files, calls the Python function of the same name and prints
its tidy frame: ``--format table`` (aligned columns, 4 decimals, for reading), ``csv`` or
``json`` (every column, full precision, for scripts; JSON is a list of records). Errors exit
with status 1 and a one-line message, as every ``pdireval`` subcommand.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from pdireval.cli_inputs import (
    add_measures,
    add_qrels,
    add_runs,
    add_system_naming,
    load_collection,
    load_runs,
    note,
)

if TYPE_CHECKING:  # pandas loads inside the functions: the command line starts light
    import pandas as pd

    from pdireval.types import ScoresFormat

__all__ = [
    "add_compare",
    "add_agreement",
    "add_fuse",
    "print_frame",
    "read_scores_files",
    "add_excel_safe",
    "check_excel_safe",
]

FORMATS = ("table", "csv", "json")
#: read_scores' formats (pdireval.io.scores.SCORES_FORMATS, spelled here so that the command
#: line starts without pandas): the choices of --scores-format
SCORES_FORMATS = (
    "trec_eval",
    "ir_measures",
    "ir_measures_jsonl",
    "pyterrier",
    "ranx",
    "mteb",
    "pdireval",
)


def print_frame(frame: pd.DataFrame, fmt: str, excel_safe: bool = False) -> None:
    """Write ``frame`` to stdout as an aligned table (4 decimals), CSV or JSON records; with
    ``excel_safe``, the CSV of :func:`pdireval.excel_safe` (every text quoted)."""
    import csv

    import pandas as pd

    if fmt == "csv" and excel_safe:
        from pdireval.io.spreadsheets import excel_safe as safe

        sys.stdout.write(safe(frame).to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC))
    elif fmt == "csv":
        sys.stdout.write(frame.to_csv(index=False))
    elif fmt == "json":
        sys.stdout.write(frame.to_json(orient="records", double_precision=15) + "\n")
    else:
        with pd.option_context(
            "display.max_rows", None, "display.max_columns", None, "display.width", 1000
        ):
            text = frame.to_string(index=False, float_format=lambda v: f"{v:.4f}")
        sys.stdout.write(text + "\n")


def read_scores_files(paths, format: str | None = None) -> pd.DataFrame:
    """Scores files (any format :func:`pdireval.read_scores` reads; ``format`` None sniffs
    each) as one scores frame."""
    import pandas as pd

    from pdireval.errors import SchemaError
    from pdireval.io import read_scores

    try:
        parts = [read_scores(path, cast("ScoresFormat | None", format)) for path in paths]
    except SchemaError as exc:
        if format is None and "format=" in str(exc):
            raise SchemaError(
                f"{exc} On the command line: --scores-format NAME (one of "
                f"{', '.join(SCORES_FORMATS)})."
            ) from None
        raise
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]


def _scores(args) -> pd.DataFrame:
    """Scores from ``--scores`` files, or from evaluating the runs against the qrels."""
    from pdireval.errors import PdirevalError
    from pdireval.evaluation import evaluate
    from pdireval.measures import parse_measures

    if args.scores:
        if args.runs or args.qrels is not None:
            raise PdirevalError(
                "--scores was given together with RUN or --qrels: compare either scores "
                "files (--scores) or runs evaluated against qrels, not both."
            )
        scores = read_scores_files(args.scores, args.scores_format)
        return select_measures(scores, args.measures) if args.measures else scores
    measures = parse_measures(args.measures or ["AP", "nDCG@10"])
    run, qrels = load_collection(args)
    return evaluate(run, measures, qrels=qrels)


def select_measures(scores: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """The rows of ``scores`` whose measure is one of ``names`` (``-m`` with ``--scores``):
    as written, or the same measure in another spelling (``map`` selects ``AP``)."""
    import pandas as pd

    from pdireval.errors import MeasureError, PdirevalError
    from pdireval.measures.registry import parse_measure

    def canonical(name: str) -> str | None:
        try:
            return str(parse_measure(name))
        except MeasureError:
            return None

    held = list(pd.unique(scores["measure"].astype(str)))
    spelled = {name: canonical(name) for name in held}
    wanted = {name: canonical(name) for name in names}

    def matches(name: str) -> list[str]:
        return [h for h in held if h == name or (wanted[name] and spelled[h] == wanted[name])]

    missing = [name for name in names if not matches(name)]
    if missing:
        raise PdirevalError(
            f"-m {' '.join(missing)}: no such measure in the --scores files, which hold "
            f"{', '.join(held[:30])}{' ...' if len(held) > 30 else ''}. Name one of them."
        )
    chosen = {h for name in names for h in matches(name)}
    return scores[scores["measure"].astype(str).isin(chosen)].reset_index(drop=True)


def _add_format(p) -> None:
    """``--format table|csv|json`` into ``args.format`` (:func:`print_frame`), and
    ``--excel-safe``."""
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (4 decimals, default), csv or json (full precision)",
    )
    add_excel_safe(p)


def add_excel_safe(p) -> None:
    """``--excel-safe`` into ``args.excel_safe`` (with ``--format csv`` only)."""
    p.add_argument(
        "--excel-safe",
        action="store_true",
        help="with --format csv, for a file to open in a spreadsheet: a name starting with "
        "= + - @ (or a tab, CR, LF) gets a ' before it and every text is quoted, so no cell "
        "runs as a formula (OWASP's advice against CSV injection; pdireval.excel_safe). Such "
        "names then read back with the ', so leave it out for files programs read",
    )


def check_excel_safe(args) -> None:
    """An :class:`~pdireval.errors.OptionError` for ``--excel-safe`` without ``--format csv``."""
    from pdireval.errors import OptionError

    if getattr(args, "excel_safe", False) and args.format != "csv":
        raise OptionError(
            f"--excel-safe applies to --format csv (the file a spreadsheet opens), not "
            f"--format {args.format}: add --format csv, or drop --excel-safe."
        )


# --------------------------------------------------------------------------- compare


def add_compare(subparsers) -> None:
    """``pdireval compare``: paired significance tests between systems."""
    p = subparsers.add_parser(
        "compare",
        help="paired significance tests between systems (pdireval.compare)",
        description=(
            "Test every pair of systems (or every system against --baseline) per measure, "
            "from runs evaluated against qrels or from per-query scores files (trec_eval -q, "
            "ir_measures, PyTerrier, ranx or pdireval output: see pdireval.read_scores). With "
            "no input, the built-in simulated collection. Prints pdireval.compare's frame."
        ),
        epilog=(
            "examples:\n"
            "  pdireval compare runs/ --qrels qrels.txt -m AP --method t --correction holm\n"
            "  pdireval compare --scores bm25.perquery.txt --scores dense.perquery.txt "
            "--format csv\n"
            "  pdireval compare runs/ --qrels qrels.txt --baseline bm25 --format json\n"
            "  pdireval compare runs/ --qrels qrels.txt -m AP --method t --correction maxt\n"
            "  pdireval compare runs/ --qrels qrels.txt --method bayes --margin 0.01"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_runs(p)
    add_qrels(p)
    add_measures(p, "AP nDCG@10")
    add_system_naming(p)
    _add_format(p)
    p.add_argument(
        "--scores",
        action="append",
        metavar="FILE",
        help="a per-query scores file instead of runs; repeat for more (-m then picks "
        "measures of the files, in any spelling: -m map picks AP)",
    )
    p.add_argument(
        "--scores-format",
        choices=SCORES_FORMATS,
        default=None,
        metavar="NAME",
        help="the format of the --scores files, as pdireval.read_scores(format=) takes it: "
        f"{', '.join(SCORES_FORMATS)} (default: sniffed from each file's content)",
    )
    p.add_argument(
        "--method",
        default="bootstrap",
        help="bootstrap (default), t, wilcoxon, sign, randomization, tukey "
        "(ranx's student / fisher work too), or bayes (posterior P(a > b) and credible "
        "interval; prob_rope with --margin)",
    )
    p.add_argument(
        "--correction",
        default="none",
        help="none (default), holm, bonferroni, holm-sidak, hochberg, hommel, bh, by "
        "(statsmodels' names such as fdr_bh work too), or maxt (Westfall-Young step-down "
        "maxT over all pairs at once), maxt-single, closed (families of at most 8 pairs)",
    )
    p.add_argument(
        "--margin",
        type=float,
        default=None,
        metavar="DELTA",
        help="equivalence margin: TOST / non-inferiority tests, or with --method bayes the "
        "probability that the difference lies within +-DELTA",
    )
    p.add_argument(
        "--baseline",
        action="append",
        metavar="SYSTEM",
        help="test every other system against this one; repeat for more",
    )
    p.add_argument(
        "--alternative",
        choices=("two-sided", "greater", "less"),
        default="two-sided",
        help="scipy's alternatives (default two-sided)",
    )
    p.add_argument(
        "--resamples",
        type=int,
        default=None,
        metavar="B",
        help="resamples of the resampling tests (default: the method's)",
    )
    p.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    p.add_argument(
        "--confidence-level",
        type=float,
        default=0.95,
        metavar="LEVEL",
        help="of the interval of the mean difference (default 0.95)",
    )
    p.set_defaults(func=run_compare)


def run_compare(args) -> int:
    from pdireval.meta.significance import compare

    check_excel_safe(args)
    scores = _scores(args)
    correction = None if str(args.correction).lower() == "none" else args.correction
    baseline = args.baseline[0] if args.baseline and len(args.baseline) == 1 else args.baseline
    result = compare(
        scores,
        method=args.method,
        correction=correction,
        baseline=baseline,
        alternative=args.alternative,
        n_resamples=args.resamples,
        rng=args.seed,
        confidence_level=args.confidence_level,
        margin=args.margin,
    )
    print_frame(result, args.format, args.excel_safe)
    return 0


# --------------------------------------------------------------------------- agreement


def add_agreement(subparsers) -> None:
    """``pdireval agreement``: agreement between two sets of judgments."""
    p = subparsers.add_parser(
        "agreement",
        help="agreement between two qrels: labels (kappa, alpha) and leaderboards (tau, RBO)",
        description=(
            "Compare two sets of relevance judgments of one collection (e.g. human and LLM "
            "qrels): label agreement on the pairs both judged (pdireval.agreement: Cohen's "
            "kappa, Krippendorff's alpha, ...) and, with --runs, how alike the two qrels rank "
            "the systems (pdireval.leaderboard_agreement: Kendall's tau_b, tau_AP, RBO, "
            "significance decisions)."
        ),
        epilog=(
            "examples:\n"
            "  pdireval agreement qrels.txt llm-qrels.txt\n"
            "  pdireval agreement qrels.txt llm-qrels.txt --runs runs/ -m nDCG@10 -m AP\n"
            "  pdireval agreement qrels.txt llm-qrels.txt --runs runs/ --what leaderboard "
            "--format csv"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("qrels", metavar="QRELS", help="the reference judgments (TREC qrels)")
    p.add_argument("other", metavar="OTHER_QRELS", help="the judgments under test (TREC qrels)")
    add_runs(
        p, name="--runs", text="runs to rank under both qrels (adds the leaderboard agreement)"
    )
    add_measures(p, "nDCG@10 AP", "a measure for the leaderboards")
    p.add_argument(
        "--what",
        choices=("labels", "leaderboard", "both"),
        default=None,
        help="which agreement to print (default: labels, or both with --runs)",
    )
    p.add_argument(
        "--rel", type=float, default=None, help="also binary agreement with labels >= REL relevant"
    )
    p.add_argument("--per-query", action="store_true", help="label agreement per query too")
    p.add_argument(
        "--resamples",
        type=int,
        default=1000,
        metavar="B",
        help="bootstrap resamples of the intervals (default 1000)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    add_system_naming(p)
    _add_format(p)
    p.set_defaults(func=run_agreement)


def run_agreement(args) -> int:
    from pdireval.errors import OptionError
    from pdireval.io import read_qrels

    check_excel_safe(args)
    what = args.what or ("both" if args.runs else "labels")
    if what != "labels" and not args.runs:
        raise OptionError(f"--what {what} needs --runs: the leaderboards rank runs.")
    if what == "both" and args.format == "csv":
        raise OptionError(
            "--format csv prints one table: choose --what labels or --what leaderboard "
            "(or use --format json, which holds both)."
        )
    qrels, other = read_qrels(args.qrels), read_qrels(args.other)
    frames: dict[str, pd.DataFrame] = {}
    if what in ("labels", "both"):
        from pdireval.runs.judgment_agreement import agreement

        frames["labels"] = agreement(
            qrels,
            other,
            rel=args.rel,
            per_query=args.per_query,
            n_resamples=args.resamples,
            rng=args.seed,
        )
    if what in ("leaderboard", "both"):
        from pdireval.evaluation import evaluate
        from pdireval.measures import parse_measures
        from pdireval.meta.leaderboard import leaderboard_agreement

        measures = parse_measures(args.measures or ["nDCG@10", "AP"])
        run = load_runs(args.runs, system=args.system)
        frames["leaderboard"] = leaderboard_agreement(
            evaluate(run, measures, qrels=qrels), evaluate(run, measures, qrels=other)
        )
    if args.format == "json" and len(frames) > 1:
        body = ", ".join(
            f'"{k}": {v.to_json(orient="records", double_precision=15)}' for k, v in frames.items()
        )
        sys.stdout.write("{" + body + "}\n")
        return 0
    for i, (name, frame) in enumerate(frames.items()):
        if args.format == "table" and len(frames) > 1:
            sys.stdout.write(("\n" if i else "") + f"# {name} agreement\n")
        print_frame(frame, args.format, args.excel_safe)
    return 0


# --------------------------------------------------------------------------- fuse


def add_fuse(subparsers) -> None:
    """``pdireval fuse``: fuse runs into one (metasearch)."""
    p = subparsers.add_parser(
        "fuse",
        help="fuse runs into one run (RRF, CombSUM, CombMNZ, BordaFuse, RBC, ...)",
        description=(
            "Fuse the systems of the given run files into one ranked list per query "
            "(pdireval.fuse) and write it as a TREC run (to stdout, or --out FILE)."
        ),
        epilog=(
            "examples:\n"
            "  pdireval fuse bm25.run dense.run > fused.run\n"
            "  pdireval fuse runs/ --method combmnz --norm zmuv --out fused.run.gz\n"
            "  pdireval fuse bm25.run dense.run --method rrf --weight bm25=0.3 "
            "--weight dense=0.7"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_runs(p, required=True)
    p.add_argument(
        "--method",
        default="rrf",
        help="rrf (default), isr, log_isr, borda, rbc, combsum, combmnz, combanz, "
        "combmax, combmin, combmed, condorcet (ranx's names work too)",
    )
    p.add_argument("--k", type=float, default=60, help="RRF's k (default 60)")
    p.add_argument("--phi", type=float, default=0.8, help="RBC's persistence (default 0.8)")
    p.add_argument(
        "--norm",
        default="min-max",
        help="score normalisation of the score-based methods: min-max (default), "
        "zmuv, sum, max, rank, borda or none",
    )
    p.add_argument(
        "--weight",
        action="append",
        metavar="SYSTEM=W",
        help="a system's weight (weighted methods); repeat for each system",
    )
    p.add_argument(
        "--systems", nargs="+", metavar="SYSTEM", help="fuse only these systems of the runs"
    )
    p.add_argument("--name", help="the fused run's tag (default: the method's name)")
    add_system_naming(p)
    p.add_argument(
        "--out",
        metavar="FILE",
        help="write the fused run here (.gz compresses; .parquet writes Parquet)",
    )
    p.add_argument(
        "--format",
        choices=("trec", "csv", "json"),
        default="trec",
        help="trec (a TREC run, default), csv or json (the fused run frame)",
    )
    add_excel_safe(p)
    p.set_defaults(func=run_fuse)


def _weights(pairs) -> dict[str, float] | None:
    from pdireval.errors import OptionError

    if not pairs:
        return None
    weights: dict[str, float] = {}
    for pair in pairs:
        name, sep, value = pair.rpartition("=")
        try:
            weights[name] = float(value)
        except ValueError:
            name = ""
        if not sep or not name:
            raise OptionError(f"--weight must be SYSTEM=NUMBER (e.g. bm25=0.3); got {pair!r}.")
    return weights


def run_fuse(args) -> int:
    import os
    import tempfile

    from pdireval.errors import OptionError
    from pdireval.io import write_run
    from pdireval.runs.fusion import fuse

    check_excel_safe(args)
    if args.out and args.format != "trec":
        raise OptionError("--out writes a TREC run (or Parquet): drop --format, or drop --out.")
    run = load_runs(args.runs, system=args.system)
    norm = None if str(args.norm).lower() == "none" else args.norm
    fused = fuse(
        run,
        args.method,
        k=args.k,
        phi=args.phi,
        norm=norm,
        weights=_weights(args.weight),
        systems=args.systems,
        name=args.name,
    )
    if args.format != "trec":
        print_frame(fused, args.format, args.excel_safe)
        return 0
    if args.out:
        write_run(fused, args.out)
        note(f"wrote {len(fused)} lines to {args.out}")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "fused.run")
        write_run(fused, path)
        with open(path, encoding="utf-8") as handle:
            sys.stdout.write(handle.read())
    return 0
