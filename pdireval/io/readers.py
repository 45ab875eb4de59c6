"""The public readers of TREC runs and qrels (text or Parquet): :func:`read_run` (a file or
a folder of files) and :func:`read_qrels`."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.keys import run_keys
from pdireval.core.schema import ID_DTYPE, canonical_qrels, canonical_run
from pdireval.errors import OptionError, PdirevalWarning, SchemaError, check_bool, check_option
from pdireval.io.files import as_path, file_system_name, file_system_names, run_files
from pdireval.io.metadata import ATTRS_KEY, assign_blocks, read_ir_metadata
from pdireval.io.parquet import is_parquet, read_parquet
from pdireval.io.trec import QRELS_FORMAT, RUN_FORMAT, line_number, read_table

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from pdireval.types import PathArg, SystemFrom

__all__ = ["read_run", "read_qrels"]


def read_run(path: PathArg, *, system: SystemFrom = "tag") -> pd.DataFrame:
    """Read a TREC run file, or every run file in a folder, into one run frame.

    The TREC run format has six whitespace-separated fields per line:
    ``query Q0 doc rank score tag``. Files may be gzipped (``.gz``). A file ending in
    ``.parquet`` (or ``.pq``) holds a run frame (as :func:`write_run` writes it, or any
    frame with the run columns): its columns are read as they are and validated like a
    frame passed to :func:`pdireval.evaluate` (so 0-based ranks are shifted to 1-based).
    In text files, as in trec_eval, lines starting with ``#`` are comments (trec_eval
    10.0), words after the run tag are ignored, and a tab-separated file is split on tabs
    with the spaces around fields trimmed. Fields are separated by ASCII whitespace only (as
    trec_eval's C parser): a no-break space or other Unicode space anywhere outside a
    comment is an error naming the file and line (it would otherwise become part of an id,
    or split one where trec_eval does not), and so is an id of a tab-separated file holding
    a space. A byte-order mark opening the file is skipped.

    Parameters
    ----------
    path : str or os.PathLike
        A run file, or a folder of run files (hidden files are skipped; files are read in
        name order).
    system : {"tag", "filename"}
        ``"tag"`` (default): the ``system`` column is each line's run tag (the 6th field).
        ``"filename"``: the file's name without ``.gz`` / ``.txt`` / ``.run`` / ``.trec``
        / ``.parquet`` (use it when several files share a run tag); files whose names
        would collide that way (``bm25.txt`` and ``bm25.run``) keep their whole file
        name (``"bm25.txt"``, ``"bm25.run"``), so two runs never merge under one name.

    Returns
    -------
    DataFrame
        A canonical run frame in file order with a RangeIndex:

        - ``system`` (str): run tag or file name;
        - ``query``, ``doc`` (str): the query and document ids as written;
        - ``score`` (float64): the 5th field;
        - ``rank`` (int64): the 4th field, except that a file whose smallest rank is 0
          (many TREC submissions, e.g. Robust 2003, count from 0) is shifted by one so that
          ranks start at 1. trec_eval ignores this field and orders by score; so does
          :func:`pdireval.evaluate` unless ``order="rank"``.

        A file opening with an ``# ir_metadata`` header (the run's metadata as YAML between
        ``# ir_metadata.start`` and ``# ir_metadata.end``, Breuer et al. 2022) gives
        ``frame.attrs["ir_metadata"]``: ``{system: the YAML text}``, written back by
        :func:`write_run`.

    Raises
    ------
    SchemaError
        Missing or empty file or folder; a malformed line (too few or too many fields,
        a rank that is not a whole number from 0 to 2**53, a score that is not a finite
        number, numbers written other than with ASCII digits, sign, point and exponent, e.g.
        ``1_000``; non-ASCII whitespace; a space inside an id of a tab-separated file), named
        by file and 1-based line number; a document listed twice for the same query and run
        (file and lines given), or two files with the same run tag.

    Warns
    -----
    PdirevalWarning
        When files sharing a run tag both hold lines of one query (a ranked list merged
        from two files): two runs with the same tag, or parts of one run.

    Examples
    --------
    >>> import pdireval, tempfile, os
    >>> run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=2, depth=3, rng=0)
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.txt")
    >>> pdireval.write_run(run, path)
    >>> pdireval.read_run(path).shape
    (12, 5)
    """
    check_option("system", system, ("tag", "filename"))
    files = run_files(as_path(path, "run"))
    names = file_system_names(files) if system == "filename" else [None] * len(files)
    frames = [read_run_file(file, system, name) for file, name in zip(files, names)]
    if (
        len({tuple(f.columns) for f in frames}) > 1
    ):  # Parquet files with other columns: keep the shared ones
        shared = [c for c in frames[0].columns if all(c in f.columns for f in frames)]
        frames = [f[shared] for f in frames]
    run = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    keys = run_keys(run)
    check_run_duplicates(run, frames, files, keys)
    if system == "tag" and len(files) > 1:
        _warn_lists_across_files(run, keys, frames, files)
    run = canonical_run(run, check_duplicates=False)
    metadata = {}
    for file, frame in zip(files, frames):
        if not is_parquet(file):
            systems = list(pd.unique(frame["system"].to_numpy(dtype=object)))
            metadata.update(assign_blocks(read_ir_metadata(file), systems))
    if metadata:
        run.attrs[ATTRS_KEY] = metadata
    return run


def read_run_file(file: Path, system: str, name: str | None = None) -> pd.DataFrame:
    """One run file (TREC text or Parquet) as a run frame; ``name``: the system name when
    ``system="filename"`` (default: the file's stem)."""
    if is_parquet(file):
        return read_parquet(file, "run", system=system, name=name)
    raw = read_table(file, RUN_FORMAT)
    rank = raw["rank"].to_numpy().astype(np.int64)
    if rank.min() == 0:
        rank = rank + 1  # 0-based rank fields (common in TREC submissions)
    tag = (
        raw["system"]
        if system == "tag"
        else pd.Series(
            name if name is not None else file_system_name(file), index=raw.index, dtype=ID_DTYPE
        )
    )
    return pd.DataFrame(
        {
            "system": tag,
            "query": raw["query"],
            "doc": raw["doc"],
            "score": raw["score"].to_numpy(dtype=np.float64),
            "rank": rank,
        }
    )


def _warn_lists_across_files(
    run: pd.DataFrame, keys, frames: list[pd.DataFrame], files: list[Path]
) -> None:
    """Warn when a (run tag, query) ranked list takes lines from several files: the files
    share a run tag, and their lines for one query are merged into one ranking. That is
    right for one run split into parts, and silently wrong for two runs that share a tag
    (their documents happened not to repeat, else the duplicate check would have stopped
    them). One boolean per (file, list): O(rows + files x lists)."""
    in_file = np.zeros((len(frames), keys.n_segments), dtype=bool)
    start = 0
    for i, frame in enumerate(frames):
        in_file[i, keys.seg[start : start + len(frame)]] = True
        start += len(frame)
    spread = np.flatnonzero(in_file.sum(axis=0) > 1)
    if not len(spread):
        return
    seg = spread[0]
    system = keys.systems[keys.seg_system[seg]]
    query = keys.queries[keys.seg_query[seg]]
    names = [str(files[i].name) for i in np.flatnonzero(in_file[:, seg])]
    warnings.warn(
        f"{len(spread)} ranked list(s) take lines from more than one file, e.g. query {query!r} of "
        f"run tag {system!r} (in {', '.join(names[:4])}): the files share a run tag and their "
        "lines for one query are merged into one ranking. If the files are different runs, read "
        "them with system='filename'; if they are parts of one run, concatenate them into one "
        "file.",
        PdirevalWarning,
        stacklevel=3,
    )


def check_run_duplicates(
    run: pd.DataFrame, frames: list[pd.DataFrame], files: list[Path], keys=None
) -> None:
    # exact hash-based check (see pdireval.core.hashing): ~10x faster than DataFrame.duplicated
    dup_rows = (keys if keys is not None else run_keys(run)).duplicated_rows()
    if not len(dup_rows):
        return
    dup = np.zeros(len(run), dtype=bool)
    dup[dup_rows] = True
    sizes = np.array([len(f) for f in frames])
    file_of = np.repeat(np.arange(len(frames)), sizes)
    first = int(np.flatnonzero(dup)[0])
    key = run.loc[first, ["system", "query", "doc"]]
    same = np.flatnonzero(
        dup
        & (run["system"] == key["system"]).to_numpy()
        & (run["query"] == key["query"]).to_numpy()
        & (run["doc"] == key["doc"]).to_numpy()
    )
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    where = [
        (files[file_of[i]], line_number(files[file_of[i]], int(i - offsets[file_of[i]])))
        for i in same
    ]
    rows = run[dup]
    n_files = len({f for f, _ in where})
    fix = (
        "Several files share the run tag: read them with system='filename'."
        if n_files > 1
        else "A run lists each document at most once per query: remove the repeated line."
    )
    places = ", ".join(f"{f}, line {n}" for f, n in where[:4])
    raise SchemaError(
        f"document {key['doc']!r} appears {len(same)} times for query {key['query']!r} of run "
        f"{key['system']!r} ({places}); {int(dup.sum())} lines in all are repeats. {fix}",
        failure_cases=rows.reset_index(drop=True),
    )


def read_qrels(
    path: PathArg | Sequence[PathArg] | Mapping[str, PathArg],
    *,
    subtopics: bool = False,
    judges: bool = False,
) -> pd.DataFrame:
    """Read a TREC qrels file (``query iteration doc label``; plain or ``.gz``).

    Lines starting with ``#`` are comments (trec_eval 10.0); a tab-separated file is split
    on tabs with the spaces around fields trimmed. Fields are separated by ASCII whitespace
    only, as in :func:`read_run` (non-ASCII whitespace is an error with file and line).

    Parameters
    ----------
    path : str or os.PathLike, or a list or dict of them
        The qrels file. A ``.parquet`` (or ``.pq``) file holds a qrels frame
        (``query, doc, label`` and optionally ``subtopic``), validated as such. Several
        files, one judge (assessor) per file, give one qrels frame with a ``judge`` column:
        a dict ``{judge name: path}``, or a list of paths (each judge named by its file name
        without the extensions ``.gz``, ``.txt``, ``.qrels``); see :func:`pdireval.evaluate`'s
        ``judges=``.
    subtopics : bool
        False (default): the iteration field of a TREC file is ignored. True: it is the
        subtopic (intent) of a diversity qrels file (TREC Web track, ``query subtopic doc
        label``), kept as the ``subtopic`` column that the intent-aware measures
        (``alpha_nDCG@k``, ``ERR_IA@k``, ...) read.
    judges : bool
        True: the second field is the judgment group (judge, user) of trec_eval 10.0's
        ``qrels_jg`` format (``query judge doc label``), kept as the ``judge`` column.

    Returns
    -------
    DataFrame
        A canonical qrels frame with a RangeIndex, one row per (query, doc), sorted by
        query then doc:

        - ``query``, ``doc`` (str);
        - ``label`` (float64): the relevance label as written (negative labels kept).

        A (query, doc) listed twice with the same label is kept once. With
        ``subtopics=True``: columns ``query, subtopic, doc, label``, one row per
        (query, subtopic, doc), sorted by query, subtopic, doc. Several judges (a list or
        dict of files, or ``judges=True``): ``query, judge, doc, label``, one row per (query,
        judge, doc), sorted by query, judge, doc.

    Raises
    ------
    SchemaError
        Missing or empty file, or a folder; a malformed line (too few or too many fields, a
        label that is not a finite number, non-ASCII whitespace, a space inside an id of a
        tab-separated file), named by file and 1-based line number; a (query, doc) with two
        different labels.
    """
    subtopics = check_bool("subtopics", subtopics)
    judges = check_bool("judges", judges)
    if isinstance(path, (list, tuple, dict)):
        return _read_judges(path, subtopics)
    file = as_path(path, "qrels")
    if subtopics and judges:
        raise OptionError(
            "subtopics=True and judges=True both read the second field of the file; a TREC "
            "qrels file holds either subtopics or judges there. Pass one of them."
        )
    if is_parquet(file):
        return read_parquet(file, "qrels")
    raw = read_table(file, QRELS_FORMAT)
    frame = pd.DataFrame(
        {"query": raw["query"], "doc": raw["doc"], "label": raw["label"].to_numpy(dtype=np.float64)}
    )
    if subtopics or judges:
        frame.insert(1, "subtopic" if subtopics else "judge", raw["iteration"])
    try:
        return canonical_qrels(frame)
    except SchemaError as exc:
        raise SchemaError(f"{file}: {exc}", failure_cases=exc.failure_cases) from None


def _judge_name(path) -> str:
    """A judge's name from its qrels file: the file name without .gz/.txt/.qrels endings."""
    name = as_path(path, "qrels").name
    for suffix in (".gz", ".txt", ".qrels", ".qrel", ".tsv"):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name


def _read_judges(paths, subtopics: bool) -> pd.DataFrame:
    """One qrels frame with a ``judge`` column from one file per judge (list or dict)."""
    if isinstance(paths, dict):
        named = [(str(judge), p) for judge, p in paths.items()]
    else:
        named = [(_judge_name(p), p) for p in paths]
    if not named:
        raise OptionError("read_qrels got an empty list of files; pass at least one qrels path.")
    names = [n for n, _ in named]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise OptionError(
            f"two qrels files give the same judge name {repeated[0]!r} (judges are named by "
            "their file name without extensions). Pass a dict {judge name: path} to name them."
        )
    frames = []
    for judge, p in named:
        one = read_qrels(p, subtopics=subtopics)
        if "judge" in one.columns:
            raise SchemaError(
                f"{p}: this qrels file already holds a 'judge' column; read several judges "
                "either from one file each or from one file with a judge column, not both."
            )
        frames.append(one.assign(judge=pd.Series(judge, index=one.index, dtype=one["query"].dtype)))
    return canonical_qrels(pd.concat(frames, ignore_index=True))
