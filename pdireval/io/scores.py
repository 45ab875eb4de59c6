"""Per-query numbers written by other tools, read as scores frames, and scores written as
``trec_eval -q`` output: :func:`read_scores`, :func:`write_scores`.

With such a reader every meta-evaluation function of pdireval works on numbers another tool
computed: trec_eval, ir_measures, PyTerrier, ranx, BEIR / MTEB, or pdireval itself.
"""

from __future__ import annotations

import csv
import gzip
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import BOUND_COLUMNS, ID_DTYPE, canonical_scores
from pdireval.errors import OptionError, PdirevalWarning, SchemaError, check_bool, check_option
from pdireval.io.score_formats import (
    READERS,
    SCORES_FORMATS,
    SCORES_WHAT,
    SUMMARY,
    ScoresTable,
    scores_label,
)
from pdireval.io.score_sniff import sniff_format
from pdireval.io.spreadsheets import FORMULA_STARTS, excel_safe_texts
from pdireval.io.spreadsheets import excel_safe as excel_safe_frame
from pdireval.io.writers import output_path

if TYPE_CHECKING:
    from typing import Literal

    from pdireval.types import Columns, PathArg, PathOrBuffer, ScoresFormat, WriteFormat

__all__ = ["read_scores", "write_scores", "SCORES_FORMATS", "WRITE_FORMATS"]

#: What :func:`write_scores` writes.
WRITE_FORMATS = ("trec_eval", "ir_measures", "ir_measures_jsonl", "csv")

#: Ceiling on the (decompressed) size of one scores file, in bytes.
MAX_SCORES_BYTES = 2 * 2**30


# --------------------------------------------------------------------------- reading


def _read_text(source) -> tuple[str, str]:
    """(text, name) of a path (plain or .gz) or an open text/binary buffer."""
    if hasattr(source, "read"):
        data = source.read(MAX_SCORES_BYTES + 1)
        name = str(getattr(source, "name", "") or "")
    else:
        try:
            path = Path(os.fspath(source))
        except TypeError:
            raise TypeError(
                "read_scores() takes a path (str or os.PathLike) or an open file, got "
                f"{type(source).__name__}"
            ) from None
        if not path.is_file():
            raise SchemaError(f"scores file {str(path)!r} does not exist or is not a file.")
        opener = gzip.open if path.suffix == ".gz" else open
        try:
            with opener(path, "rb") as handle:
                data = handle.read(MAX_SCORES_BYTES + 1)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise SchemaError(f"cannot read scores file {str(path)!r}: {exc}") from None
        name = str(path)
    if len(data) > MAX_SCORES_BYTES:
        raise SchemaError(
            f"{name or 'the scores input'} is larger than {MAX_SCORES_BYTES >> 20} MiB; split "
            "it (e.g. one file per run) and read the parts."
        )
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SchemaError(
                f"{name or 'the scores input'} is not UTF-8 text (byte {exc.start}): {SCORES_WHAT} "
                "is expected."
            ) from None
    return data, name


#: the files of MTEB's results cache (``results/<model>/<revision>/``) that hold no result
MTEB_OTHER_FILES = ("model_meta.json", "run_settings.jsonl")


def _read_one(source, format, system) -> tuple[pd.DataFrame, str, ScoresTable]:
    """(frame, name, table) of one file: the frame as the reader made it (``summary`` and
    ``pos`` columns included), its name for messages."""
    text, name = _read_text(source)
    fmt = sniff_format(text, name) if format is None else format
    try:
        table = READERS[fmt](text, name)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        if isinstance(exc, SchemaError):
            raise
        raise SchemaError(
            f"{scores_label(name)} is not {fmt} output as expected ({exc!r}); pass the right "
            f"format= (one of {', '.join(SCORES_FORMATS)})."
        ) from None
    frame = table.frame
    if system is not None:
        frame["system"] = str(system)
    return frame, name, table


def _notes(frame: pd.DataFrame, name: str, table: ScoresTable) -> list[str]:
    """What the warning says of one file: its NaN values kept, its values left out."""
    notes = [f"{note} left out" for note in table.left_out]
    undefined = np.flatnonzero(np.isnan(frame["value"].to_numpy()))
    if len(undefined):
        notes.append(
            f"{len(undefined)} undefined value(s) written as NaN kept as NaN (e.g. "
            f"{table.locate(int(frame['pos'].to_numpy()[undefined[0]]))})"
        )
    return [f"{scores_label(name)}: {note}" for note in notes]


#: the scores files of PyTerrier's ``pt.Experiment(save_dir=...)`` folder
PYTERRIER_FILES = ("aggregated.csv", "perquery.csv")


def read_scores(
    path_or_buffer: PathOrBuffer,
    format: ScoresFormat | None = None,
    *,
    system: str | None = None,
    all_rows: Literal["drop", "keep"] = "drop",
) -> pd.DataFrame:
    """Read per-query scores written by another tool (or by pdireval) as a scores frame.

    Formats (``format=``; None sniffs it from the content: whole lines of its first and last
    64 KiB, or the whole JSON; a format is chosen only when the content says which, else a
    SchemaError lists the candidates and asks for ``format=``):

    * ``"trec_eval"`` — the output of ``trec_eval -q`` (and of ``pdireval trec_eval -q``,
      :func:`write_scores`): ``measure query value`` lines; each run's block ends with its
      summary lines, whose ``runid all TAG`` names the system. Several runs' outputs may be
      concatenated in one file. ``relstring`` lines (text by design) are left out. Sniffed
      as trec_eval by its summary lines (query ``all`` in the second column) or, without
      them, by its first column of measure names (``num_ret``, ``map``, ``P_10``).
    * ``"ir_measures"`` — ir_measures' command-line TSV: ``query measure value`` (with
      ``-q``) or ``measure value`` (summaries); ``"ir_measures_jsonl"`` — its
      ``-o jsonl`` records ``{"query_id", "measure", "value"}``. Sniffed by the summary
      lines (``all`` first) or the second column of measure names (``nDCG@10``).
    * ``"pyterrier"`` — ``pt.Experiment(perquery=True)`` saved as CSV (``name, qid,
      measure, value``), or the aggregated table (``name`` and one column per measure;
      its significance columns are dropped); ``pt.Experiment(save_dir=folder)`` writes both
      as ``perquery.csv`` and ``aggregated.csv``, and a folder holding them is read as
      those two files (its ``*.res.gz`` files are runs: :func:`pdireval.read_run`).
    * ``"ranx"`` — a per-query JSON ``{measure: {query: value}}`` (ranx's ``run.scores``
      after ``evaluate(..., return_mean=False)``), or ``Report.save()``'s JSON (means).
    * ``"mteb"`` — an MTEB result JSON as ``TaskResult.to_disk`` writes it in MTEB's results
      cache (``results/<model>/<revision>/<task>.json``: ``task_name``, ``scores: {split:
      [{metric: value, ..., main_score, hf_subset, languages}]}``; measures named
      ``task/split/metric``, or ``task/split/hf_subset/metric`` for a subset other than
      ``default``; NaN scores, which MTEB writes as ``NaN``, are kept; nested values such
      as per-experiment scores are left out, with a warning; ``evaluation_time`` and the
      other fields outside ``scores`` are not scores, and a file without ``scores`` is a
      SchemaError), or BEIR's results: the four
      dicts ``EvaluateRetrieval.evaluate`` returns (``{"NDCG@10": ...}``, e.g. dumped as a
      JSON list) or ``beir.util.save_results``' JSON (``{"ndcg": {"NDCG@10": ...}, ...}``;
      measures named ``NDCG@10``) — means only. A folder of MTEB's cache (it holds
      ``model_meta.json``) is read as its task result files.
    * ``"pdireval"`` — the CSV / JSON records of ``pdireval evaluate --per-query`` (and of
      ``write_scores(format="csv")``); it has no summary rows: a query named ``all`` is a
      query.

    Measure names are kept as the tool wrote them (``map``, ``P_10``, ``nDCG@10``).

    Every value must be a number. An undefined value as the tools write it (``nan`` /
    ``-nan`` as text, ``NaN`` or ``null`` in JSON, an empty CSV cell) is kept as NaN, and one
    :class:`~pdireval.errors.PdirevalWarning` counts them per file and names where one is.
    Anything else (``n/a``, ``True``, ``inf``, ``1,5``, a JSON string, boolean, object or
    list, a record without its value) is a SchemaError that names the file, the line (or the
    JSON key, or the record) and the value.

    Parameters
    ----------
    path_or_buffer
        A file (plain or ``.gz``), a folder (every non-hidden file in it, in name order), or
        an open file.
    format
        One of ``SCORES_FORMATS``, or None to sniff it.
    system
        The system name for every row; by default the name the file gives (trec_eval's
        ``runid``, PyTerrier's ``name``, the ``name`` of MTEB's ``model_meta.json`` beside
        its result file) or else the file name without folders and suffixes.
    all_rows
        ``"drop"`` (default): summary rows (query ``all`` in trec_eval's, ir_measures' and
        PyTerrier's files, and the means-only formats) are left out; ``"keep"``: kept with query
        ``"all"``. A file that holds only summaries needs ``"keep"`` (the meta-evaluation
        functions need per-query values).

    Returns
    -------
    DataFrame
        A canonical scores frame: ``system``, ``query``, ``measure`` (str) and ``value``
        (float64), in file order, with a RangeIndex.

    Raises
    ------
    SchemaError
        A missing, empty, undecodable or malformed file (the line is named), a value that
        is not a number (the file, line and value are named), a format the content does not
        tell (the candidates are named), or a file of summaries only with
        ``all_rows="drop"``.

    Warns
    -----
    PdirevalWarning
        Values the tool wrote as NaN, kept as NaN, and MTEB's nested values, left out
        (counted per file).
    """
    if format is not None:
        check_option("format", format, SCORES_FORMATS)
    check_option("all_rows", all_rows, ("drop", "keep"))
    if (
        not hasattr(path_or_buffer, "read")
        and isinstance(path_or_buffer, (str, os.PathLike))
        and Path(path_or_buffer).is_dir()
    ):
        files = sorted(
            p for p in Path(path_or_buffer).iterdir() if p.is_file() and not p.name.startswith(".")
        )
        if any(p.name in PYTERRIER_FILES for p in files):  # pt.Experiment(save_dir=...)
            files = [p for p in files if p.name in PYTERRIER_FILES]  # not its *.res.gz runs
        if any(p.name in MTEB_OTHER_FILES for p in files):  # MTEB's results/<model>/<rev>/
            files = [p for p in files if p.suffix == ".json" and p.name not in MTEB_OTHER_FILES]
        if not files:
            raise SchemaError(f"folder {str(path_or_buffer)!r} holds no scores file.")
        parts = [_read_one(p, format, system) for p in files]
    else:
        parts = [_read_one(path_or_buffer, format, system)]
    if all_rows == "drop":
        if all(frame["summary"].all() for frame, _, _ in parts):
            raise SchemaError(
                "the scores input holds only summary values (query 'all': one mean per system "
                "and measure, no per-query value). Pass all_rows='keep' to read them; the "
                "meta-evaluation functions need per-query values (e.g. trec_eval -q, "
                "ir_measures -q, pt.Experiment(perquery=True))."
            )
        parts = [(frame[~frame["summary"].to_numpy()], name, t) for frame, name, t in parts]
    notes = [note for frame, name, t in parts for note in _notes(frame, name, t)]
    frames = [frame[["system", "query", "measure", "value"]] for frame, _, _ in parts]
    table = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    table = table.reset_index(drop=True).astype({c: str for c in ("system", "query", "measure")})
    out = canonical_scores(table.astype({c: ID_DTYPE for c in ("system", "query", "measure")}))
    if notes:
        warnings.warn(
            "read_scores: " + "; ".join(notes) + ".",
            PdirevalWarning,
            stacklevel=2,
        )
    return out


# --------------------------------------------------------------------------- writing


def _trec_name(measure: str) -> str:
    """trec_eval's name of a pdireval measure when trec_eval has it, else the name as given."""
    from pdireval.errors import MeasureError
    from pdireval.measures import parse_measure
    from pdireval.measures.trec_eval.names import trec_eval_name

    try:
        return trec_eval_name(parse_measure(measure)) or measure
    except MeasureError:
        return measure


def _means(frame: pd.DataFrame) -> pd.DataFrame:
    """The summary rows: each (system, measure)'s mean over its queries with a value."""
    means = frame.groupby(["system", "measure"], sort=False)["value"].mean().reset_index()
    means.insert(1, "query", SUMMARY)
    return means


def _as_text(frame: pd.DataFrame, fmt: str) -> pd.DataFrame:
    """``frame`` with its values formatted as text (``-nan`` for NaN, as trec_eval prints)."""
    values = frame["value"].to_numpy(dtype=np.float64)
    text = np.char.mod(fmt, values).astype(object)
    text[np.isnan(values)] = "-nan"
    return frame.assign(value=text)


def _check_written_ids(frame: pd.DataFrame, format: str) -> None:
    """Refuse what the file could not give back: a query named ``all`` (the summary lines'
    query) and, in the whitespace-separated formats, ids with blanks."""
    named_all = (frame["query"].astype(str) == SUMMARY).to_numpy()
    if named_all.any():
        raise SchemaError(
            f"the scores frame has a query named {SUMMARY!r} ({int(named_all.sum())} row(s)): "
            f"in {format} output that is the query of the summary lines, so read_scores would "
            "read those rows as means. Rename the query (e.g. scores.assign(query=scores["
            "'query'].astype(str).replace('all', 'q-all'))) or write format='csv', which "
            "keeps it."
        )
    if format == "ir_measures_jsonl":
        return
    columns = ("system", "query", "measure") if format == "trec_eval" else ("query", "measure")
    for column in columns:
        ids = frame[column].astype(str)
        blank = ids.str.contains(r"\s", regex=True).to_numpy() | (ids == "").to_numpy()
        if blank.any():
            raise SchemaError(
                f"the scores frame's {column} {ids[blank].iloc[0]!r} is empty or holds a blank "
                f"({int(blank.sum())} row(s)): {format} output separates its fields by blanks, "
                f"so the file could not be read back. Replace the blanks (e.g. scores.assign("
                f"{column}=scores[{column!r}].astype(str).str.replace(r'\\s+', '_', "
                "regex=True))) or write format='csv' or 'ir_measures_jsonl'."
            )


def write_scores(
    scores: pd.DataFrame,
    path: PathArg,
    *,
    format: WriteFormat = "trec_eval",
    digits: int | None = 4,
    excel_safe: bool = False,
    columns: Columns = None,
) -> None:
    """Write a scores frame as ``trec_eval -q`` output (or ir_measures TSV / JSONL, or CSV).

    ``format="trec_eval"`` writes, per system (in the frame's order), one ``measure query
    value`` line per per-query value, then the summary trec_eval prints: ``runid all
    SYSTEM``, ``num_q all N`` and ``measure all mean`` (the mean over the system's queries
    with a value). Measures trec_eval has are written with trec_eval's names (``AP`` as
    ``map``, ``nDCG@10`` as ``ndcg_cut_10``), others with pdireval's; fields are laid out as
    trec_eval does (``%-22s\\t%s\\t%.4f``), so trec_eval-format readers (AutoJudge,
    :func:`read_scores`) read it. ``"ir_measures"`` writes ``query measure value`` lines
    and ``all`` means; ``"ir_measures_jsonl"`` its JSON records (both hold one run, as
    ir_measures writes them: one system per file); ``"csv"`` the frame itself.
    :func:`read_scores` reads every format back to the same frame (at ``digits``).

    Parameters
    ----------
    scores
        A scores frame (extra grouping columns are not allowed: write one group at a time).
    path
        Output file (``.gz`` compresses).
    format
        One of ``WRITE_FORMATS``.
    digits
        Decimals of the values (trec_eval's 4 by default); None writes full precision.
    excel_safe
        For a file people open in a spreadsheet: OWASP's advice against CSV (formula)
        injection, as :func:`pdireval.excel_safe` applies it. Every name (system, query,
        measure) starting with ``= + - @``, a tab, CR or LF is written with a ``'`` before it,
        and the CSV format quotes every text; numbers are unchanged. Such names then read
        back with their ``'``, so the default (False) writes every name as it is, for
        programs (pdireval, pandas, trec_eval readers). Not for ``"ir_measures_jsonl"``.
    columns
        ``{canonical name: your column name}``.

    Raises
    ------
    SchemaError
        An invalid scores frame, or one with grouping columns; outside ``"csv"``, a query
        named ``all`` (the query of the summary lines, which :func:`read_scores` would take
        for means); in the whitespace-separated formats, an empty id or one with blanks.
    OptionError
        An unknown format, a bad ``digits``, or ``excel_safe=True`` with JSON lines.
    """
    check_option("format", format, WRITE_FORMATS)
    excel_safe = check_bool("excel_safe", excel_safe)
    if excel_safe and format == "ir_measures_jsonl":
        raise OptionError(
            "excel_safe=True applies to the files a spreadsheet opens as cells (format="
            "'csv', 'ir_measures' or 'trec_eval'); JSON lines keep every name as it is: drop "
            "excel_safe=, or pick one of those formats."
        )
    if digits is not None and (
        isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= 17
    ):
        raise OptionError(f"digits= must be None or an int from 0 to 17; got {digits!r}.")
    frame = canonical_scores(scores, columns)
    bounds = [c for c in BOUND_COLUMNS if c in frame.columns]
    extra = [c for c in frame.columns if c not in ("system", "query", "measure", "value", *bounds)]
    if extra:
        raise SchemaError(
            f"the scores frame has grouping columns {extra}: a per-query scores file holds one "
            "value per (system, query, measure). Write one group at a time."
        )
    if bounds and format != "csv":
        raise SchemaError(
            f"the scores frame holds the bounds {bounds} of evaluate(..., unjudged='bounds'), "
            f"and a {format} file holds one value per (system, query, measure): write "
            f"format='csv' to keep them, or scores.drop(columns={bounds}) to write 'value' alone."
        )

    if format != "csv":
        _check_written_ids(frame, format)
    if format.startswith("ir_measures") and frame["system"].nunique() > 1:
        raise SchemaError(
            f"{format} output holds one run, and the scores frame has "
            f"{frame['system'].nunique()} systems: write one file per system, e.g. "
            "for name, part in scores.groupby('system'): write_scores(part, f'{name}.tsv', "
            f"format={format!r}); or use format='trec_eval', which names each run."
        )
    fmt = f"%.{digits}f" if digits is not None else "%.17g"  # %.17g round-trips a float64
    if format == "csv":
        if excel_safe:
            text = excel_safe_frame(frame).to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC)
        else:
            text = frame.to_csv(index=False)
    elif format == "ir_measures_jsonl":
        means = _means(frame)
        both = pd.concat([frame, means], ignore_index=True).rename(columns={"query": "query_id"})
        text = both[["query_id", "measure", "value"]].to_json(
            orient="records", lines=True, double_precision=15
        )
    else:
        if format == "trec_eval":
            names = {m: _trec_name(m) for m in pd.unique(frame["measure"])}
            frame = frame.assign(measure=frame["measure"].map(names))
        parts = []
        for system, block in frame.groupby("system", sort=False):
            means = _means(block)
            if format == "trec_eval":
                head = pd.DataFrame(
                    {
                        "system": system,
                        "query": SUMMARY,
                        "measure": ["runid", "num_q"],
                        "value": [
                            "'" + system
                            if excel_safe and system.startswith(FORMULA_STARTS)
                            else system,
                            str(block["query"].nunique()),
                        ],
                    }
                )
                parts += [_as_text(block, fmt), head, _as_text(means, fmt)]
            else:
                parts += [_as_text(block, fmt), _as_text(means, fmt)]
        lines = pd.concat(parts, ignore_index=True)
        if excel_safe:
            lines["query"] = excel_safe_texts(lines["query"])
            lines["measure"] = excel_safe_texts(lines["measure"])
        if format == "trec_eval":
            lines["measure"] = lines["measure"].str.ljust(22)
            order = ["measure", "query", "value"]
        else:
            order = ["query", "measure", "value"]
        text = lines[order].to_csv(
            sep="\t", header=False, index=False, quoting=3, lineterminator="\n"
        )
    target = output_path(path, "scores")  # a file in a folder that exists, else an error
    if str(target).endswith(".gz"):
        with gzip.open(target, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        target.write_text(text, encoding="utf-8")
