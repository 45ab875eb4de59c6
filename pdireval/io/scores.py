"""Per-query numbers written by other tools, read as scores frames, and scores written as
``trec_eval -q`` output: :func:`read_scores`, :func:`write_scores`.

With such a reader every meta-evaluation function of pdireval works on numbers another tool
computed: trec_eval, ir_measures, PyTerrier, ranx, BEIR / MTEB, or pdireval itself.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE, canonical_scores
from pdireval.errors import OptionError, SchemaError, check_bool, check_option
from pdireval.io.spreadsheets import FORMULA_STARTS, excel_safe_texts
from pdireval.io.spreadsheets import excel_safe as excel_safe_frame

if TYPE_CHECKING:
    from typing import Literal

    from pdireval.types import Columns, PathArg, PathOrBuffer, ScoresFormat, WriteFormat

__all__ = ["read_scores", "write_scores", "SCORES_FORMATS", "WRITE_FORMATS"]

#: What :func:`read_scores` reads (``format=``); None sniffs it from the content.
SCORES_FORMATS = (
    "trec_eval",
    "ir_measures",
    "ir_measures_jsonl",
    "pyterrier",
    "ranx",
    "mteb",
    "pdireval",
)
#: What :func:`write_scores` writes.
WRITE_FORMATS = ("trec_eval", "ir_measures", "ir_measures_jsonl", "csv")

#: Ceiling on the (decompressed) size of one scores file, in bytes.
MAX_SCORES_BYTES = 2 * 2**30

#: The query id of summary rows (trec_eval's and ir_measures' ``all``).
SUMMARY = "all"

_WHAT = (
    "a scores file: trec_eval -q output (measure query value), ir_measures TSV (query "
    "measure value) or JSONL, PyTerrier's perquery / aggregated CSV, ranx's per-query JSON "
    "({measure: {query: value}}) or report JSON, BEIR / MTEB result JSON, or pdireval's own "
    "CSV / JSON (system, query, measure, value)"
)


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
                f"{name or 'the scores input'} is not UTF-8 text (byte {exc.start}): {_WHAT} "
                "is expected."
            ) from None
    return data, name


def _stem(name: str) -> str:
    """A system name from a file name: without folders and the usual suffixes."""
    base = Path(name).name if name else ""
    for suffix in (".gz", ".txt", ".tsv", ".csv", ".json", ".jsonl", ".eval", ".res", ".q"):
        if base.lower().endswith(suffix):
            base = base[: -len(suffix)]
    return base or "system"


#: the groups of ``beir.util.save_results``' JSON (``{"ndcg": {"NDCG@10": value}, ...}``)
BEIR_GROUPS = ("ndcg", "map", "recall", "precision", "mrr", "recall_cap", "hole")

#: the files of MTEB's results cache (``results/<model>/<revision>/``) that hold no result
MTEB_OTHER_FILES = ("model_meta.json", "run_settings.jsonl")


def _is_beir_results(data) -> bool:
    """Whether parsed JSON is ``beir.util.save_results``' dict of metric groups (ranx's
    per-query JSON is also a dict of dicts, keyed by query ids rather than ``NAME@k``)."""
    return (
        isinstance(data, dict)
        and bool(data)
        and set(data) <= set(BEIR_GROUPS)
        and all(
            isinstance(group, dict) and group and all("@" in str(k) for k in group)
            for group in data.values()
        )
    )


def _is_mteb_model_meta(data) -> bool:
    """Whether parsed JSON is the ``model_meta.json`` of MTEB's results cache."""
    return isinstance(data, dict) and {"name", "revision", "n_parameters"} <= set(data)


def _sniff(text: str) -> str:
    """The format of ``text`` (one of SCORES_FORMATS), or a SchemaError naming the formats."""
    head = text.lstrip()[:65536]
    if not head:
        raise SchemaError(f"the scores input is empty; {_WHAT} is expected.")
    if head[0] in "[{":
        first = head.splitlines()[0].strip()
        if first.startswith("{") and first.endswith("}") and '"measure"' in first:
            return "ir_measures_jsonl"
        try:
            data = json.loads(text)
        except ValueError:
            raise SchemaError(
                f"the scores input starts like JSON but is not valid JSON; {_WHAT} is expected."
            ) from None
        if (
            isinstance(data, list)
            and data
            and isinstance(data[0], dict)
            and {"system", "query", "measure", "value"} <= set(data[0])
        ):
            return "pdireval"
        if isinstance(data, dict) and "model_names" in data and "metrics" in data:
            return "ranx"
        if isinstance(data, dict) and ("mteb_version" in data or "task_name" in data):
            return "mteb"
        if _is_beir_results(data):  # beir.util.save_results: {"ndcg": {"NDCG@10": ...}}
            return "mteb"
        if _is_mteb_model_meta(data):  # refused by the mteb reader
            return "mteb"
        if isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
            return "ranx"
        if isinstance(data, (dict, list)):
            return "mteb"
    first = head.splitlines()[0]
    if "," in first:
        header = {c.strip().strip('"') for c in first.split(",")}
        if {"qid", "measure", "value"} <= header or ("name" in header and "qid" not in header):
            return "pyterrier"
        if {"system", "query", "measure", "value"} <= header:
            return "pdireval"
    rows = [line.split() for line in head.splitlines()[:2000] if line.strip()]
    widths = {len(r) for r in rows}
    if widths == {2}:
        return "ir_measures"
    if widths and widths <= {3}:
        second = {r[1] for r in rows}
        first_col = {r[0] for r in rows}
        if SUMMARY in second or "runid" in first_col or "num_q" in first_col:
            return "trec_eval"
        if SUMMARY in first_col:
            return "ir_measures"
        # without summaries: the measure column repeats few names; query ids vary more
        return "trec_eval" if len(first_col) < len(second) else "ir_measures"
    raise SchemaError(
        f"cannot tell the format of the scores input (first line: {first[:80]!r}); {_WHAT} "
        f"is expected. Pass format= one of {', '.join(SCORES_FORMATS)}."
    )


def _numeric(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """Rows whose value is a number (trec_eval's ``relstring`` and ``runid`` are not)."""
    value = pd.to_numeric(frame["value"], errors="coerce")
    keep = value.notna().to_numpy().copy()
    if not keep.all():  # NaN as text (trec_eval's -nan) or as a JSON number (MTEB's NaN)
        raw = frame["value"].to_numpy()[~keep]
        keep[~keep] = [
            isinstance(v, float) or str(v).strip().lower() in ("nan", "-nan") for v in raw
        ]
    out = frame[keep].copy()
    # numpy's str -> float64 is correctly rounded (pandas' fast parser may be 1 ulp off)
    out["value"] = out["value"].astype(str).str.strip().to_numpy().astype(np.float64)
    if out.empty:
        raise SchemaError(
            f"{name or 'the scores input'} holds no numeric value; {_WHAT} is expected."
        )
    return out


def _whitespace_table(text: str, n: int, name: str) -> pd.DataFrame:
    """Lines of ``n`` whitespace-separated fields, parsed by pandas' C parser; a malformed
    line is then found and named."""
    try:
        table = pd.read_csv(
            io.StringIO(text),
            sep=r"\s+",
            header=None,
            dtype=str,
            engine="c",
            skip_blank_lines=True,
            quoting=3,
            na_filter=False,
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError):
        table = None
    if table is not None and table.shape[1] == n:
        short = (table.isna() | (table == "")).any(axis=1).to_numpy()
        if not short.any():
            return table
    lines = [line for line in text.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if len(line.split()) != n:
            raise SchemaError(
                f"{name or 'scores input'}: line {i + 1} has {len(line.split())} fields, "
                f"expected {n}: {line[:100]!r}."
            )
    raise SchemaError(f"{name or 'scores input'}: expected lines of {n} fields.")


def _from_trec_eval(text: str, name: str) -> pd.DataFrame:
    """``trec_eval -q`` output: ``measure query value`` lines, each run's per-query lines
    followed by its summary (``runid all TAG``, ``num_q all N``, ``measure all mean``)."""
    table = _whitespace_table(text, 3, name)
    table.columns = ["measure", "query", "value"]
    is_all = (table["query"] == SUMMARY).to_numpy()
    # a new run's block starts where a per-query line follows a summary line
    starts = np.r_[False, is_all[:-1] & ~is_all[1:]]
    block = np.cumsum(starts)
    runid = table["measure"].to_numpy() == "runid"
    tags = pd.Series(table["value"].to_numpy()[runid], index=block[runid])
    tags = tags[~tags.index.duplicated()]
    n_blocks = int(block.max()) + 1 if len(block) else 0
    default = _stem(name)
    names = [
        tags.get(b, default if n_blocks == 1 else f"{default}-{b + 1}") for b in range(n_blocks)
    ]
    table["system"] = np.asarray(names, dtype=object)[block]
    table = table[~runid]
    return table


def _from_ir_measures(text: str, name: str) -> pd.DataFrame:
    first = next(line for line in text.splitlines() if line.strip())
    if len(first.split()) == 2:
        table = _whitespace_table(text, 2, name)
        table.columns = ["measure", "value"]
        table.insert(0, "query", SUMMARY)
    else:
        table = _whitespace_table(text, 3, name)
        table.columns = ["query", "measure", "value"]
    table["system"] = _stem(name)
    return table


def _from_jsonl(text: str, name: str) -> pd.DataFrame:
    records = []
    for i, line in enumerate(text.splitlines()):
        if line.strip():
            try:
                records.append(json.loads(line))
            except ValueError:
                raise SchemaError(
                    f"{name or 'scores input'}: line {i + 1} is not JSON: {line[:100]!r}"
                ) from None
    table = pd.DataFrame.from_records(records)
    if "query_id" not in table.columns:
        table["query_id"] = SUMMARY
    table = table.rename(columns={"query_id": "query"})
    if "system" not in table.columns:
        table["system"] = _stem(name)
    return table[["system", "query", "measure", "value"]]


def _from_pyterrier(text: str, name: str) -> pd.DataFrame:
    frame = pd.read_csv(io.StringIO(text), dtype={"qid": str, "name": str})
    frame = frame.drop(columns=[c for c in frame.columns if str(c).startswith("Unnamed")])
    if {"qid", "measure", "value"} <= set(frame.columns):  # pt.Experiment(perquery=True)
        frame = frame.rename(columns={"name": "system", "qid": "query"})
        if "system" not in frame.columns:
            frame["system"] = _stem(name)
        return frame[["system", "query", "measure", "value"]]
    # aggregated: one row per system, one column per measure (means)
    extra = [
        c
        for c in frame.columns
        if c != "name"
        and (
            str(c).endswith((" +", " -", " p-value", " reject", " corrected", " mrt"))
            or str(c) == "mrt"
        )
    ]
    frame = frame.drop(columns=extra)
    long = frame.melt(id_vars=["name"], var_name="measure", value_name="value")
    long = long.rename(columns={"name": "system"})
    long.insert(1, "query", SUMMARY)
    return long


def _from_ranx(text: str, name: str) -> pd.DataFrame:
    data = json.loads(text)
    if "model_names" in data:  # Report.save(): means per model and metric
        rows = [
            (model, SUMMARY, metric, data[model]["scores"][metric])
            for model in data["model_names"]
            for metric in data["metrics"]
        ]
        return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])
    per_query_rows = [
        (measure, str(q), v) for measure, per_query in data.items() for q, v in per_query.items()
    ]
    table = pd.DataFrame(per_query_rows, columns=["measure", "query", "value"])
    table["system"] = _stem(name)
    return table


def _mteb_model(name: str) -> str | None:
    """The model name of MTEB's ``model_meta.json`` beside the result file ``name``, if any
    (MTEB's result files do not name the model; its cache keeps the name there)."""
    if not name:
        return None
    try:
        meta = json.loads((Path(name).parent / "model_meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    model = meta.get("name") if isinstance(meta, dict) else None
    return str(model) if model else None


def _from_mteb(text: str, name: str) -> pd.DataFrame:
    data = json.loads(text)
    if _is_mteb_model_meta(data):
        raise SchemaError(
            f"{name or 'the scores input'} is MTEB's model_meta.json (the model's metadata, no "
            "score); read the task result files beside it (or their folder)."
        )
    rows: list[tuple[str, str, object]] = []
    if isinstance(data, dict) and isinstance(data.get("scores"), dict):  # MTEB result file
        system = str(data.get("model_name") or _mteb_model(name) or _stem(name))
        task = str(data.get("task_name", ""))
        for split, entries in data["scores"].items():
            for entry in entries if isinstance(entries, list) else [entries]:
                subset = entry.get("hf_subset", "default")
                prefix = "/".join(p for p in (task, split, subset) if p and p != "default")
                for metric, value in entry.items():
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        rows.append((system, f"{prefix}/{metric}" if prefix else metric, value))
    else:  # BEIR: evaluate()'s four dicts ({"NDCG@10": ...}) or save_results' dict of them
        parts = data if isinstance(data, list) else [data]
        if _is_beir_results(data):
            parts = list(data.values())
        for part in parts:
            if isinstance(part, dict):
                for metric, value in part.items():
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        rows.append((_stem(name), metric, value))
    if not rows:
        raise SchemaError(
            f"{name or 'scores input'}: no numeric result found; {_WHAT} is expected."
        )
    table = pd.DataFrame(rows, columns=["system", "measure", "value"])
    table.insert(1, "query", SUMMARY)
    return table


#: The texts pandas' read_csv reads as missing by default (its ``na_values``): missing in a
#: pdireval CSV file's other columns, but ids as they are (a query ``NA``, a system ``#N/A``).
NA_TEXTS = (
    *("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND"),
    *("1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"),
)
ID_COLUMNS = ("system", "query", "measure")


def _from_pdireval(text: str, name: str) -> pd.DataFrame:
    if text.lstrip().startswith("["):
        return pd.DataFrame.from_records(json.loads(text)).astype({"query": str})
    header = pd.read_csv(io.StringIO(text), nrows=0).columns
    return pd.read_csv(
        io.StringIO(text),
        dtype={c: str for c in ID_COLUMNS},
        keep_default_na=False,
        na_values={c: list(NA_TEXTS) for c in header if c not in ID_COLUMNS},
    )


_READERS = {
    "trec_eval": _from_trec_eval,
    "ir_measures": _from_ir_measures,
    "ir_measures_jsonl": _from_jsonl,
    "pyterrier": _from_pyterrier,
    "ranx": _from_ranx,
    "mteb": _from_mteb,
    "pdireval": _from_pdireval,
}


def _read_one(source, format, system) -> pd.DataFrame:
    text, name = _read_text(source)
    fmt = _sniff(text) if format is None else format
    try:
        table = _READERS[fmt](text, name)
    except (ValueError, KeyError, TypeError) as exc:
        if isinstance(exc, SchemaError):
            raise
        raise SchemaError(
            f"{name or 'the scores input'} is not {fmt} output as expected ({exc}); pass the "
            f"right format= (one of {', '.join(SCORES_FORMATS)})."
        ) from None
    if system is not None:
        table["system"] = str(system)
    return _numeric(table, name)


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

    Formats (``format=``; None sniffs it from the content and says which formats it knows
    when it cannot tell):

    * ``"trec_eval"`` — the output of ``trec_eval -q`` (and of ``pdireval trec_eval -q``,
      :func:`write_scores`): ``measure query value`` lines; each run's block ends with its
      summary lines, whose ``runid all TAG`` names the system. Several runs' outputs may be
      concatenated in one file. Non-numeric values (``relstring``) are left out.
    * ``"ir_measures"`` — ir_measures' command-line TSV: ``query measure value`` (with
      ``-q``) or ``measure value`` (summaries); ``"ir_measures_jsonl"`` — its
      ``-o jsonl`` records ``{"query_id", "measure", "value"}``.
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
      ``default``; NaN scores, which MTEB writes as ``NaN``, are kept; ``evaluation_time``
      and the other fields outside ``scores`` are not scores), or BEIR's results: the four
      dicts ``EvaluateRetrieval.evaluate`` returns (``{"NDCG@10": ...}``, e.g. dumped as a
      JSON list) or ``beir.util.save_results``' JSON (``{"ndcg": {"NDCG@10": ...}, ...}``;
      measures named ``NDCG@10``) — means only. A folder of MTEB's cache (it holds
      ``model_meta.json``) is read as its task result files.
    * ``"pdireval"`` — the CSV / JSON records of ``pdireval evaluate --per-query``.

    Measure names are kept as the tool wrote them (``map``, ``P_10``, ``nDCG@10``).

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
        ``"drop"`` (default): summary rows (query ``all``: trec_eval's and ir_measures'
        means, and the means-only formats) are left out; ``"keep"``: kept with query
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
        A missing, empty, undecodable or malformed file (the line is named), an unknown
        format, or a file of summaries only with ``all_rows="drop"``.
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
        table = pd.concat([_read_one(p, format, system) for p in files], ignore_index=True)
    else:
        table = _read_one(path_or_buffer, format, system)
    summary = (table["query"].astype(str) == SUMMARY).to_numpy()
    if all_rows == "drop":
        if summary.all():
            raise SchemaError(
                "the scores input holds only summary values (query 'all': one mean per system "
                "and measure, no per-query value). Pass all_rows='keep' to read them; the "
                "meta-evaluation functions need per-query values (e.g. trec_eval -q, "
                "ir_measures -q, pt.Experiment(perquery=True))."
            )
        table = table[~summary]
    table = table[["system", "query", "measure", "value"]].reset_index(drop=True)
    table = table.astype({c: str for c in ("system", "query", "measure")})
    return canonical_scores(table.astype({c: ID_DTYPE for c in ("system", "query", "measure")}))


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


def _check_field_names(frame: pd.DataFrame, names: list[str], format: str) -> None:
    """A :class:`SchemaError` for a name the whitespace-separated ``format`` cannot hold
    (empty, or holding whitespace): the file would not read back."""
    for name in names:
        text = frame[name].astype(str)
        bad = (text.str.contains(r"\s", regex=True) | (text.str.len() == 0)).to_numpy(dtype=bool)
        if bad.any():
            raise SchemaError(
                f"cannot write format={format!r}: {int(bad.sum())} row(s) have a '{name}' that "
                f"is empty or holds whitespace (first: {text[bad].iloc[0]!r}), and its fields "
                "are separated by whitespace, so the file would not read back. Replace the "
                "whitespace (e.g. with '_'), or write format='csv' or 'ir_measures_jsonl', "
                "which hold any name.",
                failure_cases=frame[bad],
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
        An invalid scores frame, or one with grouping columns; for the ``"trec_eval"`` and
        ``"ir_measures"`` formats (fields separated by whitespace), a name that is empty or
        holds whitespace.
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
    extra = [c for c in frame.columns if c not in ("system", "query", "measure", "value")]
    if extra:
        raise SchemaError(
            f"the scores frame has grouping columns {extra}: a per-query scores file holds one "
            "value per (system, query, measure). Write one group at a time."
        )

    if format.startswith("ir_measures") and frame["system"].nunique() > 1:
        raise SchemaError(
            f"{format} output holds one run, and the scores frame has "
            f"{frame['system'].nunique()} systems: write one file per system, e.g. "
            "for name, part in scores.groupby('system'): write_scores(part, f'{name}.tsv', "
            f"format={format!r}); or use format='trec_eval', which names each run."
        )
    if format in ("trec_eval", "ir_measures"):
        _check_field_names(
            frame,
            ["system", "query", "measure"] if format == "trec_eval" else ["query", "measure"],
            format,
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
    target = Path(os.fspath(path))
    if target.is_dir():
        raise OptionError(f"write_scores() path {str(target)!r} is a folder; give a file name.")
    if str(target).endswith(".gz"):
        with gzip.open(target, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        target.write_text(text, encoding="utf-8")
