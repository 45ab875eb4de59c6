"""The public writers of TREC runs and qrels (text, gzipped text or Parquet)."""

from __future__ import annotations

import csv
import gzip
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import canonical_qrels, canonical_run
from pdireval.errors import OptionError, SchemaError
from pdireval.io.files import as_path
from pdireval.io.metadata import ATTRS_KEY, metadata_lines
from pdireval.io.objects import as_frame
from pdireval.io.parquet import is_parquet

if TYPE_CHECKING:
    from pdireval.types import Columns, PathArg

__all__ = ["write_run", "write_qrels"]


def output_path(path, kind: str) -> Path:
    """The path a writer writes to, checked before anything is written: not empty, not a
    folder, and in a folder that exists (pdireval does not create folders for a file)."""
    if isinstance(path, (str, os.PathLike)) and not os.fspath(path).strip():
        raise OptionError(
            f"the {kind} path is empty ({os.fspath(path)!r}); pass the path of the {kind} file "
            "to write."
        )
    target = as_path(path, kind)
    if target.is_dir():
        raise OptionError(
            f"{target}: this is a folder; write_{kind} needs the path of a {kind} file to write, "
            f"e.g. {str(target / (kind + '.txt'))!r}."
        )
    parent = target.parent
    if not parent.is_dir():
        what = "is a file, not a folder" if parent.exists() else "does not exist"
        raise OptionError(
            f"{target}: cannot write the {kind} file there: the folder {str(parent)!r} {what}. "
            "Create the folder first (e.g. Path(path).parent.mkdir(parents=True)) or pick "
            "another path."
        )
    return target


def _check_writable_ids(frame: pd.DataFrame, names, kind: str) -> None:
    comment = frame["query"].str.startswith("#").to_numpy(dtype=bool)
    if comment.any():
        raise SchemaError(
            f"cannot write this {kind} file: {int(comment.sum())} query id(s) start with '#' "
            f"(first: {frame['query'][comment].iloc[0]!r}), and a line starting with '#' is a "
            "comment to trec_eval 10.0 and to pdireval's readers. Rename those queries first.",
            failure_cases=frame[comment],
        )
    for name in names:
        text = frame[name]
        bad = (text.str.contains(r"\s", regex=True) | (text.str.len() == 0)).to_numpy(dtype=bool)
        if bad.any():
            rows = frame[bad]
            raise SchemaError(
                f"cannot write this {kind} file: {int(bad.sum())} '{name}' id(s) are empty or "
                f"contain whitespace, which a TREC file cannot hold (first: "
                f"{text[bad].iloc[0]!r}). Replace the whitespace (e.g. with '_') first.",
                failure_cases=rows,
            )


def write_run(run: pd.DataFrame, path: PathArg, *, columns: Columns = None) -> None:
    """Write a run frame as a TREC run file (``query Q0 doc rank score tag``).

    Parameters
    ----------
    run : DataFrame
        A run frame (see :func:`pdireval.evaluate`).
    path : str or os.PathLike
        Output file; a name ending in ``.gz`` is gzip-compressed. A name ending in
        ``.parquet`` (or ``.pq``) writes the canonical run frame to Parquet instead, in its
        row order, with every column (``score``, ``rank``, ``label``) kept exactly.
    columns : mapping, optional
        ``{canonical name: your column name}``.

    Notes
    -----
    Lines are grouped by system and query and written in trec_eval's order (score
    descending, ties by doc id descending); ranks are renumbered 1..n per (system, query).
    A run with only ``rank`` is written in rank order with score ``n - rank + 1`` ... 1
    (positive, decreasing), so trec_eval reads the same ranking. Scores are written with
    full precision, so :func:`read_run` gives them back exactly.
    ``run.attrs["ir_metadata"]`` (``{system: YAML text}``, as :func:`read_run` keeps a run
    file's ``# ir_metadata`` header) is written as that header.

    Raises
    ------
    SchemaError
        An invalid run frame, or ids that are empty or contain whitespace.
    OptionError
        ``path`` is empty or a folder, or its folder does not exist (checked before
        writing).
    """
    canonical = canonical_run(as_frame(run, "run"), columns)
    target = output_path(path, "run")
    if is_parquet(path):
        canonical.to_parquet(target, index=False)
        return
    _check_writable_ids(canonical, ("system", "query", "doc"), "run")
    if "score" in canonical.columns:
        ordered = canonical.sort_values(
            ["system", "query", "score", "doc"], ascending=[True, True, False, False], kind="stable"
        )
    else:
        ordered = canonical.sort_values(["system", "query", "rank", "doc"], kind="stable")
    groups = ordered.groupby(["system", "query"], sort=False, observed=True)
    rank = groups.cumcount().to_numpy() + 1
    if "score" in ordered.columns:
        score = ordered["score"].to_numpy()
    else:
        score = (groups["doc"].transform("size").to_numpy() - rank + 1).astype(np.float64)
    out = pd.DataFrame(
        {
            "query": ordered["query"].to_numpy(),
            "q0": "Q0",
            "doc": ordered["doc"].to_numpy(),
            "rank": rank,
            "score": score,
            "system": ordered["system"].to_numpy(),
        }
    )
    header = _metadata_header(run, list(pd.unique(out["system"].to_numpy(dtype=object))))
    if not header:
        out.to_csv(target, sep=" ", header=False, index=False, quoting=csv.QUOTE_NONE)
        return
    opener = gzip.open if target.name.endswith(".gz") else open
    with opener(target, "wt", encoding="utf-8", newline="") as fh:
        fh.write("\n".join(header) + "\n")
        out.to_csv(
            fh, sep=" ", header=False, index=False, quoting=csv.QUOTE_NONE, lineterminator="\n"
        )


def _metadata_header(run, systems: list) -> list[str]:
    """The ``# ir_metadata`` lines of ``run.attrs["ir_metadata"]`` ({system: YAML text}):
    one block per system of the file, in the order its lines are written (an empty block
    for a system without metadata when others have some), so :func:`read_run` gives each
    system its own back."""
    metadata = getattr(run, "attrs", {}).get(ATTRS_KEY) if hasattr(run, "attrs") else None
    if not isinstance(metadata, dict):
        return []
    texts = [str(metadata.get(s, "")) for s in systems]
    if not any(t.strip() for t in texts):
        return []
    if len(set(texts)) == 1:
        texts = texts[:1]  # one block for every system of the file
    return [line for text in texts for line in metadata_lines(text)]


def write_qrels(qrels: pd.DataFrame, path: PathArg, *, columns: Columns = None) -> None:
    """Write a qrels frame as a TREC qrels file (``query 0 doc label``).

    Parameters
    ----------
    qrels : DataFrame
        A qrels frame: ``query, doc, label``.
    path : str or os.PathLike
        Output file; a name ending in ``.gz`` is gzip-compressed. A name ending in
        ``.parquet`` (or ``.pq``) writes the canonical qrels frame to Parquet (NaN labels
        allowed there).
    columns : mapping, optional
        ``{canonical name: your column name}``.

    Notes
    -----
    Rows are sorted by query then doc. Labels are written as integers when all are whole
    numbers, else with full precision. A ``subtopic`` column is written in the second
    (iteration) field, so ``read_qrels(path, subtopics=True)`` reads it back.

    Raises
    ------
    SchemaError
        An invalid qrels frame; ids that are empty or contain whitespace; NaN (pooled but
        unjudged) labels, which a TREC qrels file cannot express.
    OptionError
        ``path`` is empty or a folder, or its folder does not exist (checked before
        writing).
    """
    canonical = canonical_qrels(as_frame(qrels, "qrels"), columns)
    target = output_path(path, "qrels")
    if is_parquet(path):
        canonical.to_parquet(target, index=False)
        return
    has_sub = "subtopic" in canonical.columns
    _check_writable_ids(
        canonical, ("query", "subtopic", "doc") if has_sub else ("query", "doc"), "qrels"
    )
    labels = canonical["label"].to_numpy()
    if np.isnan(labels).any():
        rows = canonical[np.isnan(labels)]
        raise SchemaError(
            f"the qrels hold {len(rows)} NaN (pooled but unjudged) label(s), which a TREC qrels "
            "file cannot express. Drop those rows or give them a label before writing.",
            failure_cases=rows,
        )
    whole = np.all(labels == np.round(labels)) and np.all(np.abs(labels) < 2**53)
    text = labels.astype(np.int64) if whole else labels
    out = pd.DataFrame(
        {
            "query": canonical["query"].to_numpy(),
            "it": canonical["subtopic"].to_numpy() if has_sub else "0",
            "doc": canonical["doc"].to_numpy(),
            "label": text,
        }
    )
    out.to_csv(target, sep=" ", header=False, index=False, quoting=csv.QUOTE_NONE)
