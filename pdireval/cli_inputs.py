"""What the ``pdireval`` subcommands share: the arguments that name runs, qrels, measures and
how systems are named, reading the files they name, the per-system table of ``evaluate`` and
the RAG commands, and notes on stderr. Imports nothing
heavy at module level (``pdireval trec_eval`` starts without pandas)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from pdireval.types import SystemFrom

__all__ = [
    "add_ci",
    "add_measures",
    "add_qrels",
    "add_runs",
    "add_system_naming",
    "add_table_options",
    "check_each_file_once",
    "load_collection",
    "load_runs",
    "note",
    "summarise",
    "system_table",
]


def add_runs(p, *, required: bool = False, name: str = "runs", text: str | None = None) -> None:
    """The ``RUN_OR_DIR`` arguments into ``args.runs``: run files or folders of run files (at
    least one when ``required``); ``name="--runs"`` makes them an option, ``text`` its help."""
    p.add_argument(
        name,
        nargs="+" if required or name.startswith("-") else "*",
        metavar="RUN_OR_DIR",
        help=text or "TREC run file(s) or folder(s) of run files (plain or .gz)",
    )


def add_qrels(p) -> None:
    """``--qrels QRELS`` into ``args.qrels``."""
    p.add_argument("--qrels", metavar="QRELS", help="TREC qrels file (plain or .gz)")


def add_measures(p, default: str, what: str = "a measure") -> None:
    """``-m/--measure``, repeatable, into ``args.measures``; ``default`` names the measures
    used when none is given."""
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"{what}; repeat for more (default: {default})",
    )


def add_system_naming(p) -> None:
    """``--system tag|filename`` into ``args.system``: how systems read from run files are
    named (pdireval.read_run's ``system=``)."""
    p.add_argument(
        "--system",
        choices=("tag", "filename"),
        default="tag",
        help="name systems by the run tag in the file (default) or by the file name",
    )


def add_table_options(p, table: str) -> None:
    """``--per-query`` and ``--format table|csv|json`` (into ``args.per_query``,
    ``args.format``); ``table`` describes the table's layout in the help."""
    p.add_argument("--per-query", action="store_true", help="also print one value per query")
    p.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help=f"table: {table}, 4 decimals (default); csv / json: tidy rows, full precision",
    )


def add_ci(p, more: str = "") -> None:
    """``--ci t|bootstrap|anova`` and ``--confidence-level`` (into ``args.ci``,
    ``args.confidence_level``): an interval on every mean; ``more`` ends --ci's help."""
    p.add_argument(
        "--ci",
        choices=("t", "bootstrap", "anova"),
        default=None,
        help=f"add a confidence interval to every mean (pdireval.aggregate's method=){more}",
    )
    p.add_argument(
        "--confidence-level",
        type=float,
        default=0.95,
        metavar="LEVEL",
        help="confidence level of --ci (default 0.95)",
    )


def summarise(scores: pd.DataFrame, args) -> pd.DataFrame:
    """:func:`pdireval.aggregate` of ``scores``, with ``args.ci``'s interval when given,
    sorted by (judge and) system."""
    from pdireval.meta.aggregate import aggregate

    options = {}
    if args.ci is not None:
        options = {"method": args.ci, "confidence_level": args.confidence_level}
    summary = aggregate(scores, **options)
    keys = ["judge", "system"] if "judge" in summary.columns else ["system"]
    return summary.sort_values(keys, kind="stable", ignore_index=True)


def system_table(
    scores: pd.DataFrame,
    summary: pd.DataFrame,
    per_query: bool,
    column: str = "mean",
    is_count: Callable[[str], bool] | None = None,
) -> str:
    """trec_eval's layout: one block per system (and judge), ``measure <tab> query|all <tab>
    value`` with 4 decimals, the summary's ``column`` after ``all`` (as an integer for a
    measure ``is_count`` says is a count), then the interval when computed."""
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
        lines += _summary_lines(block, column, width, is_count)
    return "\n".join(lines) + "\n"


def _summary_lines(block, column: str, width: int, is_count) -> list[str]:
    """The ``measure <tab> all <tab> value[ <tab> [low, high]]`` lines of one block."""
    lows = block["ci_low"] if "ci_low" in block else [None] * len(block)
    highs = block["ci_high"] if "ci_high" in block else [None] * len(block)
    lines = []
    for measure, value, low, high in zip(block["measure"], block[column], lows, highs):
        # trec_eval's summary rules: sums of counts (as integers), means otherwise
        count = is_count is not None and is_count(measure) and value == value
        text = f"{int(value)}" if count else f"{value:.4f}"
        if low is not None:
            text += f"\t[{low:.4f}, {high:.4f}]"
        lines.append(f"{measure:<{width}}\tall\t{text}")
    return lines


def note(message: str) -> None:
    """A message for the user that is not part of the output (stderr)."""
    print(f"pdireval: {message}", file=sys.stderr)


def check_each_file_once(paths: Sequence[str]) -> None:
    """A PdirevalError when the RUN arguments name one file twice (the same path twice, two
    spellings of it, or a file and the folder holding it): its lines would be read twice."""
    from pathlib import Path

    from pdireval.errors import PdirevalError
    from pdireval.io.files import run_files

    given: dict[Path, str] = {}
    for arg in paths:
        path = Path(arg)
        files = run_files(path) if path.is_dir() else [path]
        for file in files:
            key = file.resolve()
            if key in given:
                where = arg if given[key] == arg else f"{given[key]} and {arg}"
                raise PdirevalError(
                    f"the run file {file} is named more than once ({where}): its runs would be "
                    "read twice. Give each run file (or its folder) once."
                )
            given[key] = arg


def load_runs(paths: Sequence[str], system: SystemFrom = "tag") -> pd.DataFrame:
    """The run files or folders ``paths`` as one run frame; a file named twice, or two files
    holding the same run tag, are errors (they could not be told apart)."""
    import pandas as pd

    from pdireval.errors import PdirevalError
    from pdireval.io import read_run

    check_each_file_once(paths)
    runs = [read_run(path, system=system) for path in paths]
    seen: dict[str, str] = {}
    for path, part in zip(paths, runs):
        for tag in pd.unique(part["system"]):
            if tag in seen and seen[tag] != path:
                how = "--system filename" if system == "tag" else "different file names"
                raise PdirevalError(
                    f"{seen[tag]} and {path} both hold run {tag!r}: two runs with one name "
                    f"cannot be told apart. Name systems by file with {how}, or give the runs "
                    "different tags."
                )
            seen.setdefault(tag, path)
    return pd.concat(runs, ignore_index=True) if len(runs) > 1 else runs[0]


def load_collection(args) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``args.runs`` and ``args.qrels`` read as (run, qrels); with neither, the built-in
    simulated collection (and a note saying so)."""
    from pdireval.datasets import EXAMPLE as SIMULATED
    from pdireval.datasets import simulate
    from pdireval.errors import PdirevalError
    from pdireval.io import read_qrels

    if not args.runs and args.qrels is None:
        note(
            "no RUN or --qrels given: evaluating the built-in simulated collection "
            f"(pdireval.datasets.simulate({', '.join(f'{k}={v}' for k, v in SIMULATED.items())}))."
        )
        return simulate(**SIMULATED)
    if not args.runs:
        raise PdirevalError("--qrels was given but no RUN: name at least one run file or folder.")
    if args.qrels is None:
        raise PdirevalError("no --qrels given: pass --qrels QRELS with the run file(s).")
    run = load_runs(args.runs, system=args.system)
    return run, read_qrels(args.qrels, subtopics=getattr(args, "subtopics", False))
