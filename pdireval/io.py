"""Readers and writers for TREC run / qrels files and SVMlight (LETOR) files.

All readers use pandas' C parser (no Python loop per line) and report the file and line
number of a malformed line in a :class:`~pdireval.errors.SchemaError`.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import SchemaError
from .schema import ID_DTYPE, canonical_qrels, canonical_run

__all__ = ["read_run", "read_qrels", "read_svmlight", "write_run", "write_qrels"]

RUN_FIELDS = ["query", "q0", "doc", "rank", "score", "system"]
QRELS_FIELDS = ["query", "iteration", "doc", "label"]


def _read_table(path: Path, names: list[str], kind: str, example: str) -> pd.DataFrame:
    """Read a whitespace-separated file with exactly ``len(names)`` fields per line."""
    try:
        frame = pd.read_csv(
            path,
            sep=r"\s+",
            header=None,
            names=names,
            dtype=str,
            comment=None,
            engine="c",
            skip_blank_lines=True,
            keep_default_na=False,
            na_filter=True,
            na_values=[""],
        )
    except pd.errors.ParserError as exc:  # too many fields on some line
        raise SchemaError(
            f"{path}: malformed {kind} file ({exc}). Each line must have {len(names)} fields: "
            f"{example}"
        ) from None
    except (UnicodeDecodeError, EOFError, OSError) as exc:
        raise SchemaError(f"{path}: cannot read this {kind} file ({exc}).") from None
    if len(frame) == 0:
        raise SchemaError(f"{path}: the {kind} file is empty.")
    short = frame[names[-1]].isna().to_numpy()
    if short.any():
        line = _line_number(path, int(np.flatnonzero(short)[0]))
        raise SchemaError(
            f"{path}, line {line}: too few fields ({int(short.sum())} such line(s)). Each line "
            f"must have {len(names)} fields: {example}"
        )
    return frame


def _line_number(path: Path, row: int) -> int:
    """1-based file line of data row ``row`` (blank lines are skipped by the parser)."""
    opener = _open_text(path)
    with opener as fh:
        seen = -1
        for number, line in enumerate(fh, start=1):
            if line.strip():
                seen += 1
                if seen == row:
                    return number
    return row + 1


def _open_text(path: Path):
    if str(path).endswith(".gz"):
        import gzip

        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def _numeric(frame: pd.DataFrame, column: str, path: Path, kind: str, integer: bool) -> pd.Series:
    values = pd.to_numeric(frame[column], errors="coerce")
    bad = values.isna().to_numpy().copy()
    if integer:
        filled = values.fillna(0).to_numpy()
        bad |= filled != np.round(filled)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise SchemaError(
            f"{path}, line {_line_number(path, row)}: the {column} field {frame[column].iloc[row]!r} "
            f"is not {'a whole number' if integer else 'a number'} ({int(bad.sum())} such line(s)) "
            f"in this {kind} file."
        )
    return values


def _run_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise SchemaError(f"{path}: the folder holds no run files.")
        return files
    if not path.exists():
        raise SchemaError(f"{path}: no such file or folder.")
    return [path]


def _file_system_name(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".txt", ".run", ".trec"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def read_run(path, *, system: str = "tag") -> pd.DataFrame:
    """Read a TREC run file, or every run file in a folder, into one run frame.

    The TREC run format has six whitespace-separated fields per line:
    ``query Q0 doc rank score tag``. Files may be gzipped (``.gz``).

    Parameters
    ----------
    path
        A run file or a folder of run files (hidden files skipped).
    system
        ``"tag"`` (default): the ``system`` column is each line's run tag. ``"filename"``:
        the file's name without ``.gz`` / ``.txt`` / ``.run`` / ``.trec``.

    Returns
    -------
    DataFrame
        ``system, query, doc`` (str), ``rank`` (int64), ``score`` (float64), in file order.
        The rank field is kept as written, except that a file whose ranks start at 0 is
        shifted to 1-based ranks. (trec_eval ignores the field and orders by score; so does
        :func:`pdireval.evaluate` unless ``order="rank"``.)

    Raises
    ------
    SchemaError
        Missing file, malformed line (file and line number given), duplicate
        (system, query, doc).
    """
    if system not in ("tag", "filename"):
        raise ValueError(f"system= must be 'tag' or 'filename', got {system!r}")
    frames = []
    for file in _run_files(Path(os.fspath(path))):
        raw = _read_table(file, RUN_FIELDS, "run", "query Q0 doc rank score tag")
        rank = _numeric(raw, "rank", file, "run", integer=True).astype(np.int64)
        if len(rank) and rank.min() == 0:
            rank = rank + 1  # 0-based rank fields (common in TREC submissions)
        frame = pd.DataFrame(
            {
                "system": raw["system"] if system == "tag" else _file_system_name(file),
                "query": raw["query"],
                "doc": raw["doc"],
                "rank": rank,
                "score": _numeric(raw, "score", file, "run", integer=False).astype(np.float64),
            }
        )
        frames.append(frame)
    run = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    for col in ("system", "query", "doc"):
        run[col] = run[col].astype(ID_DTYPE)
    return canonical_run(run)


def read_qrels(path) -> pd.DataFrame:
    """Read a TREC qrels file (``query iteration doc label``; plain or ``.gz``).

    Returns
    -------
    DataFrame
        ``query, doc`` (str), ``label`` (float64), one row per (query, doc), sorted.

    Raises
    ------
    SchemaError
        Missing file, malformed line (file and line number), conflicting labels.
    """
    file = Path(os.fspath(path))
    if not file.is_file():
        raise SchemaError(f"{file}: no such qrels file.")
    raw = _read_table(file, QRELS_FIELDS, "qrels", "query iteration doc label")
    labels = _numeric(raw, "label", file, "qrels", integer=False)
    return canonical_qrels(pd.DataFrame({"query": raw["query"], "doc": raw["doc"], "label": labels}))


def write_run(run: pd.DataFrame, path, *, columns=None) -> None:
    """Write a run frame as a TREC run file (``query Q0 doc rank score tag``).

    Documents are written in trec_eval's order (score descending, ties by doc descending;
    by rank when the frame has no score); ranks are renumbered 1..n per (system, query).
    A ``.gz`` path is compressed.
    """
    canonical = canonical_run(run, columns)
    if "score" in canonical.columns:
        ordered = canonical.sort_values(["system", "query", "score", "doc"], ascending=[True, True, False, False], kind="stable")
        score = ordered["score"]
    else:
        ordered = canonical.sort_values(["system", "query", "rank", "doc"], kind="stable")
        score = -ordered["rank"].astype(np.float64)
    rank = ordered.groupby(["system", "query"], sort=False, observed=True).cumcount() + 1
    out = pd.DataFrame(
        {"query": ordered["query"], "q0": "Q0", "doc": ordered["doc"], "rank": rank, "score": score.map(repr), "system": ordered["system"]}
    )
    out.to_csv(path, sep=" ", header=False, index=False)


def write_qrels(qrels: pd.DataFrame, path, *, columns=None) -> None:
    """Write a qrels frame as a TREC qrels file (``query 0 doc label``); labels that are
    whole numbers are written as integers. NaN labels cannot be written (TREC files have
    no 'pooled but unjudged' marker) and raise a SchemaError."""
    canonical = canonical_qrels(qrels, columns)
    labels = canonical["label"].to_numpy()
    if np.isnan(labels).any():
        raise SchemaError(
            "the qrels hold NaN (pooled but unjudged) labels, which a TREC qrels file cannot "
            "express. Drop those rows or give them a label before writing."
        )
    text = [str(int(v)) if float(v).is_integer() else repr(float(v)) for v in labels]
    out = pd.DataFrame({"query": canonical["query"], "it": "0", "doc": canonical["doc"], "label": text})
    out.to_csv(path, sep=" ", header=False, index=False)


def read_svmlight(path, *, query_file=None) -> pd.DataFrame:
    """Read an SVMlight / LETOR file (``label qid:Q f:v f:v ... # comment``).

    Parameters
    ----------
    path
        The file. Lines without ``qid:`` take their query from ``query_file``.
    query_file
        Group sizes, one integer per line, in file order (LightGBM's ``*.query`` files).
        Default: ``path + ".query"`` when the lines have no ``qid:`` and that file exists.

    Returns
    -------
    DataFrame
        ``query`` (str), ``doc`` (str: ``"<query>-<i>"``, i the 0-based position of the line
        within its query, or the ``docid = X`` of a LETOR comment when present), ``label``
        (float64), then one float64 column per feature, ``f1``, ``f2``, ... (0 where a line
        omits the feature, as SVMlight's sparse format means).

    Raises
    ------
    SchemaError
        Malformed line (file and line number), missing group information, group sizes that
        do not add up to the number of lines.
    """
    file = Path(os.fspath(path))
    if not file.is_file():
        raise SchemaError(f"{file}: no such SVMlight file.")
    lines = pd.read_csv(file, sep="\x01", header=None, names=["line"], dtype=str, engine="c", skip_blank_lines=True, quoting=3)["line"]
    if len(lines) == 0:
        raise SchemaError(f"{file}: the SVMlight file is empty.")
    body = lines.str.split("#", n=1).str[0].str.strip()
    comment = lines.str.split("#", n=1).str[1]
    tokens = body.str.split()
    label = pd.to_numeric(tokens.str[0], errors="coerce")
    if label.isna().any():
        row = int(np.flatnonzero(label.isna().to_numpy())[0])
        raise SchemaError(f"{file}, line {_line_number(file, row)}: the label {tokens.iloc[row][0] if tokens.iloc[row] else ''!r} is not a number.")
    has_qid = tokens.str[1].fillna("").str.startswith("qid:")
    if has_qid.all():
        query = tokens.str[1].str.slice(4)
        feats = tokens.str[2:]
    elif not has_qid.any():
        qfile = Path(query_file) if query_file is not None else Path(str(file) + ".query")
        if not qfile.is_file():
            raise SchemaError(
                f"{file}: the lines have no 'qid:' field and there is no group file {qfile}. "
                "Pass query_file= (one group size per line)."
            )
        sizes = pd.read_csv(qfile, header=None, names=["n"])["n"].to_numpy()
        if sizes.sum() != len(lines):
            raise SchemaError(f"{qfile}: the group sizes add up to {int(sizes.sum())}, but {file} has {len(lines)} lines.")
        query = pd.Series(np.repeat(np.arange(1, len(sizes) + 1), sizes).astype(str))
        feats = tokens.str[1:]
    else:
        row = int(np.flatnonzero(~has_qid.to_numpy())[0])
        raise SchemaError(f"{file}, line {_line_number(file, row)}: no 'qid:' field, while other lines have one.")
    exploded = feats.explode().dropna()
    parts = exploded.str.split(":", n=1, expand=True) if len(exploded) else pd.DataFrame({0: [], 1: []})
    fid = pd.to_numeric(parts[0], errors="coerce")
    fval = pd.to_numeric(parts[1], errors="coerce")
    bad = (fid.isna() | fval.isna()).to_numpy()
    if bad.any():
        row = int(exploded.index[np.flatnonzero(bad)[0]])
        raise SchemaError(f"{file}, line {_line_number(file, row)}: the feature {exploded.iloc[np.flatnonzero(bad)[0]]!r} is not of the form id:value.")
    query = query.astype(str).reset_index(drop=True)
    position = query.groupby(query, sort=False).cumcount()
    doc = query + "-" + position.astype(str)
    docid = comment.str.extract(r"docid\s*=\s*(\S+)", expand=False)
    if docid.notna().all():
        doc = docid.reset_index(drop=True)
    wide = pd.DataFrame({"row": exploded.index.to_numpy(), "f": fid.astype(np.int64).to_numpy(), "v": fval.to_numpy(dtype=np.float64)})
    matrix = np.zeros((len(lines), int(wide["f"].max()) if len(wide) else 0), dtype=np.float64)
    if len(wide):
        matrix[wide["row"].to_numpy(), wide["f"].to_numpy() - 1] = wide["v"].to_numpy()
    out = pd.DataFrame({"query": query.astype(ID_DTYPE), "doc": doc.astype(ID_DTYPE), "label": label.to_numpy(dtype=np.float64)})
    features = pd.DataFrame(matrix, columns=[f"f{i + 1}" for i in range(matrix.shape[1])])
    return pd.concat([out, features], axis=1)
