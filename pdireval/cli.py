"""The ``pdireval`` command line.

``pdireval SUBCOMMAND ...``; ``pdireval --help`` lists the subcommands. Each subcommand is
one ``add_<name>(subparsers)`` function that declares its arguments and sets
``func=<handler>``; the handler takes the parsed arguments and returns an exit status. To
add a subcommand, write those two functions and append ``add_<name>`` to
:data:`SUBCOMMANDS`.

Bad input (any :class:`~pdireval.errors.PdirevalError`, a missing or unreadable file)
exits with status 1 and a one-line message on stderr; usage errors exit with status 2
(argparse's convention).
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from collections.abc import Callable, Sequence

from pdireval import __version__
from pdireval.cli_analyses import (
    add_agreement,
    add_compare,
    add_excel_safe,
    add_fuse,
    check_excel_safe,
    print_frame,
)
from pdireval.cli_inputs import (
    add_ci,
    add_measures,
    add_qrels,
    add_runs,
    add_system_naming,
    add_table_options,
    load_collection,
    note,
    summarise,
    system_table,
)
from pdireval.cli_rag import add_nuggets, add_support
from pdireval.treceval import add_trec_eval

# pandas, the datasets and the errors load inside the functions, so that `pdireval trec_eval`
# starts without them (its engine is numpy only)

__all__ = ["main", "build_parser", "SUBCOMMANDS"]

DEFAULT_MEASURES = ["AP", "nDCG@10", "P@10", "RR"]  # = evaluation.DEFAULT_MEASURES, no pandas


def __getattr__(name: str):
    """``SIMULATED`` (the built-in collection's simulate() arguments), loaded on first use."""
    if name == "SIMULATED":
        from pdireval.datasets import EXAMPLE

        return EXAMPLE
    raise AttributeError(f"module 'pdireval.cli' has no attribute {name!r}")


# --------------------------------------------------------------------------- evaluate


def add_evaluate(subparsers) -> None:
    """``pdireval evaluate``: per-system (and per-query) measures, like trec_eval."""
    from pdireval.datasets import EXAMPLE as SIMULATED

    p = subparsers.add_parser(
        "evaluate",
        help="evaluate TREC runs against qrels (trec_eval's numbers)",
        description=(
            "Evaluate TREC run files (or folders of them) against a qrels file and print "
            "each measure per system, averaged over queries ('all'), optionally per query. "
            "With no RUN and no --qrels, evaluates the built-in simulated collection "
            f"(pdireval.datasets.simulate({', '.join(f'{k}={v}' for k, v in SIMULATED.items())}))."
        ),
        epilog=(
            "examples:\n"
            "  pdireval evaluate\n"
            "  pdireval evaluate runs/ --qrels qrels.txt -m nDCG@10 -m AP\n"
            "  pdireval evaluate run1.gz run2.gz --qrels qrels.txt -m P@10 --per-query "
            "--format csv > scores.csv\n"
            "  pdireval evaluate runs/ --qrels diversity-qrels.txt --subtopics -m alpha_nDCG@20 -m "
            "ERR_IA@20\n"
            "  pdireval evaluate runs/ --qrels qrels.txt --trec-eval 10 -m 11pt_avg -m rbp "
            "--per-query\n"
            "measures: see pdireval.measures(); trec_eval names (map, ndcg_cut_10, P_10) work too."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_runs(p)
    add_qrels(p)
    add_measures(p, " ".join(DEFAULT_MEASURES), "a measure such as nDCG@10, AP, 'RBP(p=0.8)'")
    p.add_argument(
        "--subtopics",
        action="store_true",
        help="the qrels' second field is a subtopic (a TREC diversity qrels file), for the "
        "intent-aware measures (alpha_nDCG@10, ERR_IA@20, ...)",
    )
    add_table_options(p, "trec_eval-like lines")
    add_excel_safe(p)
    p.add_argument(
        "--missing",
        choices=("zero", "drop"),
        default="zero",
        help="a judged query a run did not answer: scores 0 (zero, default) or is skipped (drop, "
        "trec_eval's default)",
    )
    add_system_naming(p)
    add_ci(p, ": the table prints it after the mean, csv / json get se, ci_low, ci_high columns")
    add_score_precision(p, trec_eval=True)
    p.add_argument(
        "--trec-eval",
        choices=("9.0.8", "10"),
        default=None,
        help="the trec_eval release whose numbers to give (pdireval.evaluate's trec_eval=): 10 "
        "for trec_eval 10.0 (scores compared as doubles, its interpolated precision, all_trec "
        "with rbp, rbp_resid, unj_5/10/20), 9.0.8 to refuse the measures only 10.0 has; "
        "default: 9.0.8's formulas, every measure",
    )
    p.set_defaults(func=run_evaluate)


def add_score_precision(p, trec_eval: bool = False) -> None:
    """The ``--score-precision`` option of ``evaluate`` and ``report``; with ``trec_eval``,
    its default follows ``--trec-eval`` (None: float64 for 10, else float32)."""
    default = "default; float64 with --trec-eval 10" if trec_eval else "default"
    p.add_argument(
        "--score-precision",
        choices=("float32", "float64"),
        default=None,
        help="compare run scores as C floats, as trec_eval 9 and pytrec_eval do (float32, "
        f"{default}), or as doubles, as trec_eval 10.0 does (float64); without it, a warning "
        "says when the choice changes a printed value",
    )


def _is_count(measure: str) -> bool:
    from pdireval.measures.registry import parse_measure

    return parse_measure(measure).definition.summary == "sum"


def run_evaluate(args) -> int:
    from pdireval.evaluation import evaluate_with_changes
    from pdireval.measures.trec_eval.versions import measures_for, trec_eval_version

    check_excel_safe(args)
    measures = args.measures or DEFAULT_MEASURES
    measures_for(measures, trec_eval_version(args.trec_eval), advice="cli")  # fail first
    run, qrels = load_collection(args)
    scores, changes = evaluate_with_changes(
        run,
        measures,
        qrels=qrels,
        missing=args.missing,
        score_precision=args.score_precision,
        trec_eval=args.trec_eval,
    )
    summary = summarise(scores, args)
    if changes is not None and len(changes) and args.score_precision is None:
        _warn_printed_changes(scores, summary, changes, args)
    if args.format == "table":  # scores come by system, query (natural order), measure
        sys.stdout.write(system_table(scores, summary, args.per_query, "summary", _is_count))
        return 0
    print_frame(scores if args.per_query else summary, args.format, args.excel_safe)
    return 0


def _warn_printed_changes(scores, summary, changes, args) -> None:
    """One warning when a value ``evaluate`` prints depends on float32 ties: the per-system
    means (and per-query values with --per-query) as printed — 4 decimals in the table
    format, full precision in csv / json."""
    from pdireval.errors import PdirevalWarning
    from pdireval.evaluation import float32_message
    from pdireval.meta.aggregate import aggregate

    key = ["system", "query", "measure"]
    exact = scores.merge(changes[key + ["value_float64"]], on=key, how="left")
    exact["value"] = exact["value_float64"].fillna(exact["value"])
    summary64 = aggregate(exact.drop(columns="value_float64")).sort_values(
        "system", kind="stable", ignore_index=True
    )
    means = summary[["system", "measure"]].assign(
        value=summary["summary"], value_float64=summary64["summary"]
    )

    def printed(frame):
        if args.format != "table":
            return frame["value"].to_numpy() != frame["value_float64"].to_numpy()
        return (
            frame["value"].map("{:.4f}".format).to_numpy()
            != frame["value_float64"].map("{:.4f}".format).to_numpy()
        )

    shown = [(means[printed(means)], len(means), "printed means")]
    if args.per_query:
        shown.insert(0, (changes[printed(changes)], len(scores), "printed per-query values"))
    for frame, total, what in shown:
        if len(frame):
            warnings.warn(
                float32_message(frame.reset_index(drop=True), total, "--score-precision {}", what),
                PdirevalWarning,
                stacklevel=2,
            )
            return


# --------------------------------------------------------------------------- report


def add_report(subparsers) -> None:
    """``pdireval report``: the whole evaluation and meta-evaluation, as workbook + HTML page."""
    p = subparsers.add_parser(
        "report",
        help="full evaluation and meta-evaluation report (Excel workbook, figures, HTML page)",
        description=(
            "Evaluate runs against qrels and run every analysis: per-system table with "
            "significance markers, per-query scores, bound-normalised variants, discriminative "
            "power and ASL curves, correlations between measures, reliability (Φ, queries "
            "needed), swap and error rates, and the information-theoretic summary. Writes "
            "report.xlsx, report.html and figures/ into --out. With no RUN and no --qrels, "
            "reports on the built-in simulated collection."
        ),
        epilog=(
            "examples:\n"
            "  pdireval report\n"
            "  pdireval report runs/ --qrels qrels.txt -m nDCG@10 -m AP --out robust-report\n"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_runs(p)
    add_qrels(p)
    p.add_argument(
        "--other-qrels",
        metavar="QRELS",
        help="a second qrels file of the same collection (e.g. LLM judgments): adds the "
        "judgments-agreement section",
    )
    p.add_argument(
        "--nugget-scores",
        metavar="SCORES",
        help="a scores file of the systems' generated answers (e.g. `pdireval nuggets ... "
        "--per-query --format csv`): adds the RAG section",
    )
    add_measures(p, "nDCG@10 AP P@10 RR Bpref")  # pdireval.reporting.DEFAULT_MEASURES
    p.add_argument(
        "--out",
        default="pdireval-report",
        metavar="DIR",
        help="output folder (default: pdireval-report)",
    )
    p.add_argument(
        "--resamples",
        type=int,
        default=1000,
        metavar="B",
        help="bootstrap resamples / trials (default 1000)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="random seed; the same seed gives the same report (default 0)",
    )
    p.add_argument("--title", help="title of the HTML page")
    add_system_naming(p)
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bars (default: shown when stderr is a terminal)",
    )
    p.add_argument(
        "--svg", action="store_true", help="also write every figure as SVG (vector, for papers)"
    )
    add_score_precision(p)
    p.add_argument(
        "--correction",
        default="holm",
        help="correction of the pair tests over each measure's pairs: holm (default), maxt "
        "(Westfall-Young step-down maxT on the bootstrap), bh, ... (as pdireval compare)",
    )
    p.set_defaults(func=run_report)


def run_report(args) -> int:
    from pdireval.datasets import EXAMPLE as SIMULATED
    from pdireval.measures import parse_measures
    from pdireval.reporting import DEFAULT_MEASURES as REPORT_MEASURES
    from pdireval.reporting import report

    measures = args.measures or list(REPORT_MEASURES)
    parse_measures(measures)  # bad measures fail first; the report shows them as given
    if not args.runs and args.qrels is None:
        note(
            "no RUN or --qrels given: reporting on the built-in simulated collection "
            f"(pdireval.datasets.simulate({', '.join(f'{k}={v}' for k, v in SIMULATED.items())}))."
        )
        run, qrels = None, None
    else:
        run, qrels = load_collection(args)
        args.title = args.title or f"pdireval report — {collection_name(args.runs, args.qrels)}"
    other_qrels = None
    if args.other_qrels is not None:
        from pdireval.io import read_qrels

        other_qrels = read_qrels(args.other_qrels)
    nugget_scores = None
    if args.nugget_scores is not None:
        from pdireval.io import read_scores

        nugget_scores = read_scores(args.nugget_scores)
    result = report(
        run,
        qrels=qrels,
        measures=measures,
        out=args.out,
        title=args.title,
        n_resamples=args.resamples,
        rng=args.seed,
        progress=False if args.no_progress else None,
        svg=args.svg,
        correction=args.correction,
        other_qrels=other_qrels,
        score_precision=args.score_precision,
        nugget_scores=nugget_scores,
    )
    print(
        f"wrote {result.workbook}, {result.html} and {len(result.figures)} figures in "
        f"{result.directory}/ ({result.seconds:.1f} s)"
    )
    return 0


def collection_name(runs: Sequence[str], qrels: str) -> str:
    """A readable name for a collection given as files: the qrels file's name, or its folder's
    when the file has a generic name (``robust03/qrels.txt`` -> ``robust03``)."""
    from pathlib import Path

    path = Path(qrels).resolve()
    stem = path.name.split(".")[0]
    name = (
        path.parent.name
        if stem.lower() in ("qrels", "qrel", "judgments", "judgements", "")
        else stem
    )
    return name or stem


# --------------------------------------------------------------------------- driver

SUBCOMMANDS: list[Callable] = [
    add_evaluate,
    add_report,
    add_trec_eval,
    add_compare,
    add_agreement,
    add_fuse,
    add_nuggets,
    add_support,
]


def build_parser() -> argparse.ArgumentParser:
    """The ``pdireval`` argument parser with every subcommand of :data:`SUBCOMMANDS`."""
    parser = argparse.ArgumentParser(
        prog="pdireval",
        description=(
            "Information-retrieval evaluation and meta-evaluation on pandas. "
            "Run 'pdireval SUBCOMMAND --help' for a subcommand's options."
        ),
    )
    parser.add_argument("--version", action="version", version=f"pdireval {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def one_line(error: BaseException) -> str:
    """An error message on one line: its first line, plus its last (the fix) when longer."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    return lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1]}"


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    from pdireval.errors import PdirevalWarning

    name = "warning" if issubclass(category, PdirevalWarning) else category.__name__
    # advice worded for the Python API becomes the command's option
    text = re.sub(
        r"\b(score_precision|missing|trec_eval)='([\w.]+)'",
        lambda m: f"--{m.group(1).replace('_', '-')} {m.group(2)}",
        one_line(message),
    )
    print(f"pdireval: {name}: {text}", file=sys.stderr)


def load_entry_points_if_needed(measures: Sequence[str] | None) -> None:
    """Import the ``pdireval.measures`` entry points when one of ``measures`` (the ``-m``
    strings) is not a measure without them: scanning the installed distributions costs about
    0.1 s, a tenth of a small evaluation, so a command naming only known measures skips it."""
    if not measures:
        return
    from pdireval.errors import MeasureError
    from pdireval.measures import parse_measure
    from pdireval.plugins import load_entry_points

    for text in measures:
        try:
            parse_measure(text)
        except (MeasureError, TypeError, ValueError):
            load_entry_points()
            return


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 bad input, 2 usage).

    User-defined measures: the modules or ``.py`` files listed in the environment variable
    ``PDIREVAL_MEASURES`` are imported first (:func:`pdireval.plugins.load_plugins`, which
    imports no measure unless one is named); the ``pdireval.measures`` entry points only when
    a measure named with ``-m`` is not known without them (:func:`load_entry_points_if_needed`).
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["trec_eval"]:  # trec_eval's own option parsing, numpy only
        from pdireval.treceval import command

        return command(args_list[1:])
    from pdireval.errors import PdirevalError, PdirevalWarning
    from pdireval.plugins import load_plugins

    try:
        load_plugins(entry_points=False)
    except (PdirevalError, OSError) as exc:
        print(f"pdireval: error: {one_line(exc)}", file=sys.stderr)
        return 1
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        load_entry_points_if_needed(getattr(args, "measures", None))
        with warnings.catch_warnings():
            # our warnings are shown as one line on stderr, never raised or repeated
            warnings.simplefilter("always", PdirevalWarning)
            warnings.showwarning = _show_warning
            return args.func(args)
    except BrokenPipeError:  # e.g. `pdireval evaluate | head`
        return 0
    except (PdirevalError, OSError) as exc:
        print(f"pdireval: error: {one_line(exc)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
