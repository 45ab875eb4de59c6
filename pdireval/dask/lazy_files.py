"""pdireval.dask.read_run and read_qrels: many (or large) run and qrels files read lazily,
one partition per file or per Parquet row group, with pdireval's readers and their checks."""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import TYPE_CHECKING

import dask.dataframe as dd
import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE, canonical_run
from pdireval.dask.partitions import empty_frame
from pdireval.errors import SchemaError, check_option
from pdireval.io import read_qrels as read_qrels_file
from pdireval.io.files import file_system_names
from pdireval.io.parquet import read_parquet
from pdireval.io.readers import check_run_duplicates, read_run_file

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pdireval.types import PathArg, SystemFrom

__all__ = ["read_run", "read_qrels"]


def _files(path) -> list[str]:
    """A list of paths, a glob pattern, a folder (its files, in name order) or one file."""
    if isinstance(path, (list, tuple)):
        files = [os.fspath(p) for p in path]
    else:
        text = os.fspath(path)
        if os.path.isdir(text):
            files = sorted(
                str(p) for p in Path(text).iterdir() if p.is_file() and not p.name.startswith(".")
            )
        elif any(ch in text for ch in "*?["):
            files = sorted(glob.glob(text))
        else:
            files = [text]
    if not files:
        raise SchemaError(f"no file matches {path!r}: check the path or the glob pattern.")
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        raise SchemaError(
            f"{len(missing)} file(s) do not exist, e.g. {missing[:3]}: check the paths."
        )
    return files


def _pieces(files: list[str]):
    """One piece per text file, one per row group of a Parquet file (its footer is read)."""
    import pyarrow.parquet as pq

    pieces: list[tuple[str, int | None]] = []
    schema = None
    for f in files:
        if f.endswith(".parquet"):
            meta = pq.ParquetFile(f).metadata
            schema = schema or meta.schema.to_arrow_schema()
            pieces += [(f, rg) for rg in range(meta.num_row_groups)] or [(f, None)]
        else:
            pieces.append((f, None))
    return pieces, schema


def _read_run_piece(piece, system, names):
    path, rg = piece
    name = names.get(path)
    if path.endswith(".parquet"):
        return read_parquet(path, "run", system=system, row_group=rg, name=name)
    run = read_run_file(Path(path), system, name)
    check_run_duplicates(run, [run], [Path(path)])
    return canonical_run(run, check_duplicates=False)


def _read_qrels_piece(piece):
    path, rg = piece
    if path.endswith(".parquet"):
        return read_parquet(path, "qrels", row_group=rg)
    return read_qrels_file(path)


def _meta_from(kind: str, schema) -> pd.DataFrame:
    if kind == "qrels":
        return empty_frame({"query": ID_DTYPE, "doc": ID_DTYPE, "label": np.float64})
    dtypes: dict[str, object] = {"system": ID_DTYPE, "query": ID_DTYPE, "doc": ID_DTYPE}
    names = (
        ("score", "rank")
        if schema is None
        else [n for n in ("score", "rank", "label") if n in schema.names]
    )
    for n in names:
        dtypes[n] = np.int64 if n == "rank" else np.float64
    return empty_frame(dtypes)


def read_run(path: PathArg | Sequence[PathArg], *, system: SystemFrom = "tag") -> dd.DataFrame:
    """Read many (or large) run files lazily: one partition per file, or per Parquet row group.

    Parameters
    ----------
    path
        A glob pattern (``"runs/*.gz"``), a folder (its files in name order), one file, or
        a list of files: TREC run files (gzipped or not, read by :func:`pdireval.read_run`
        with its checks and line-numbered errors) or Parquet files (``.parquet``, with run
        columns; each row group is a partition).
    system
        As in :func:`pdireval.read_run`.

    Returns
    -------
    dask.dataframe.DataFrame
        The canonical run columns (``system, query, doc`` str, ``score`` float64, ``rank``
        int64, and ``label`` float64 when a Parquet file has it). With one run file per
        system, pass ``partitioned_by="system"`` to :func:`pdireval.dask.evaluate` (no
        shuffle). Only the Parquet footers are read now.
    """
    check_option("system", system, ("tag", "filename"))
    files = _files(path)
    # system="filename": names over all the files at once, so that colliding stems
    # (bm25.txt, bm25.run) keep their whole file names, as in pdireval.read_run
    names = dict(zip(files, file_system_names(files))) if system == "filename" else {}
    pieces, schema = _pieces(files)
    meta = _meta_from("run", schema)
    return dd.from_map(
        _read_run_piece,
        pieces,
        system=system,
        names=names,
        meta=meta,
        enforce_metadata=False,
        label="pdireval-read-run",
    )


def read_qrels(path: PathArg | Sequence[PathArg]) -> dd.DataFrame:
    """Read huge qrels lazily (as :func:`read_run`): one partition per file or row group.

    Returns
    -------
    dask.dataframe.DataFrame
        ``query, doc`` (str) and ``label`` (float64). Passed as ``qrels=`` to
        :func:`pdireval.dask.evaluate`, it is validated and grouped by one task.
    """
    pieces, _ = _pieces(_files(path))
    return dd.from_map(
        _read_qrels_piece,
        pieces,
        meta=_meta_from("qrels", None),
        enforce_metadata=False,
        label="pdireval-read-qrels",
    )
